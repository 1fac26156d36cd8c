// The study store: one SQLite file per study directory (DIR/study.sqlite) holding everything a
// run produced, written as results arrive.
//
// In the flow of ARCHITECTURE.md it sits beside the simulator ("cache / study store") and at
// the end of a cycle ("CycleRecord -> ... store"). It holds
//   - every analysis: the design (exact doubles), the simulator inputs it was made with (a
//     hash, see simulator_inputs_hash), the derivatives requested, status, message, cost,
//     time, and the responses and gradients of every load case (an exact binary encoding);
//   - the study definitions used (the JSON documents, overrides applied);
//   - branches: the root run and every restart (`sao restart DIR --from-cycle K`);
//   - settings changes made between cycles (`sao set`), per branch and cycle;
//   - every cycle record (the JSON form of result.json, cycle_record_json.hpp), with the
//     settings in force in that cycle.
// Each analysis and each cycle is one transaction (WAL journal), so a process killed at any
// instant loses at most the analyses still running. As an AnalysisStore it is the driver's
// analysis cache across processes: an analysis is reused when the design is bitwise equal and
// the simulator inputs hash matches.
//
// A file that is not a study store (another SQLite database, a corrupted file, an empty or any
// other file) is refused with a StoreError before anything is written to it.
//
// Every row carries a checksum (SHA-256, OpenSSL) written by the store:
//   - analyses and cycles (of all their columns but the time written): verify() names every
//     row that fails it or does not decode; lookup() and cycles() never return such a row, so
//     a damaged analysis is analysed again and a damaged cycle record is rebuilt by the replay
//     (both can be recomputed exactly);
//   - studies, branches, settings_changes, jobs and meta (store_integrity.cpp): what the user
//     asked for, which nothing can recompute. The store is not opened when one of them fails
//     its checksum: a StoreError (exit 2) names the table and the row. A branch's status and
//     message change during a run; set_branch_status rewrites its checksum with them.
// Stores written before checksums (versions 1 and 2) or before the checksums of every table
// (version 3) are read as they are (unchecked_rows() counts what could not be checked); opened
// for writing, they get the checksums they lack once and are marked version 5 (version 4 gets
// the row lists of those tables, which make a deleted row fail too). A store whose
// version number is older than the checksums it holds is refused (an altered version).
//
// Errors: StoreError for what is wrong with the file (bad input, exit 2), StoreIoError for what
// stops the store being used now (in use, read-only, disk full, an I/O error: exit 3).
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sao/optimizer/cycle_record_json.hpp"
#include "sao/optimizer/driver.hpp"
#include "sao/seam/analysis_store.hpp"
#include "sao/seam/executor.hpp"
#include "sao/study/study.hpp"

struct sqlite3;

namespace sao {

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The store cannot be used now: locked by another process, read-only, disk full, I/O error.
class StoreIoError : public StoreError {
 public:
  using StoreError::StoreError;
};

// The store is held by another process (its lock, or SQLite's busy/locked): it can be used
// again once that process has ended. A StoreIoError (exit 3) to the command line; the service
// answers it 409.
class StoreBusyError : public StoreIoError {
 public:
  using StoreIoError::StoreIoError;
};

// How a store is opened: to read only (status, report: no lock, nothing written, works on a
// read-only file or folder), to read and write, or to write and create it when missing.
enum class StoreAccess { kReadOnly, kReadWrite, kCreate };

// A stored row that is not trusted: it fails its checksum or cannot be decoded.
struct DamagedRecord {
  std::string table;   // "analyses" or "cycles"
  long long row = 0;   // the analysis id, or the cycle number
  int branch = 0;      // the branch of a cycle record (or of the analysis' run)
  std::string design;  // analyses: the design as stored (JSON array); cycles: x0 if readable
  std::string reason;  // "checksum mismatch", "cannot be decoded: ..."
};
// A hash (16 hex digits) of what determines an analysis besides the design: the study's
// simulator section, its load cases, the design variable names and the derived-response
// definitions (with the constants, data and relations they may read).
std::string simulator_inputs_hash(const Study& study, const std::string& fingerprint = {});

// Exact, self-describing binary encoding of an evaluation (NaN rows included).
std::string encode_evaluation(const Evaluation& evaluation);
// Throws StoreError when the bytes are not an encoded evaluation.
Evaluation decode_evaluation(const std::string& bytes);

struct StoredStudy {
  int id = 0;
  nlohmann::json document;  // the study file's JSON, command-line overrides applied
  std::string source;       // the file it came from (for messages and relative paths)
  int start = 0;            // the `--start K` used (0: the initial values)
};

// A stored analysis as a whole (StudyStore::analyses).
struct StoredAnalysis {
  std::string inputs_hash;
  int branch = 0;  // the branch that ran it (0: none recorded)
  Eigen::VectorXd design;
  Evaluation evaluation;
};

struct BranchInfo {
  int id = 0;
  int parent = 0;      // 0: the root branch
  int from_cycle = 0;  // the branch continues after this cycle of its parent
  int study = 0;       // StoredStudy id
  std::string status;  // running | converged | cycle limit | infeasible | failed
  std::string message;
  std::string created;  // UTC, ISO 8601
};
// The fields of a branch every view shows (`sao status --json`, the service's branches):
// id, parent, from_cycle, status, message, created; each view adds its own.
nlohmann::json branch_json(const BranchInfo& branch);

struct SettingChange {
  int branch = 0;
  int cycle = 0;           // applies before this cycle runs
  std::string assignment;  // key=value, as given to `sao set`
};

struct StoredCycle {
  int branch = 0;
  CycleRecord record;
  nlohmann::json settings;  // the study's settings and move factors in force in the cycle
};

// A design of experiments (`sao doe`, docs/doe.md): the settings its plan was made from and the
// plan, fixed when it was made, so that a resume analyses the same points.
struct StoredDoe {
  int id = 0;
  int branch = 0;           // the branch whose study it analyses
  std::string inputs_hash;  // simulator_inputs_hash of that study
  nlohmann::json settings;  // the plan's canonical settings (DoeSection::plan)
  Eigen::MatrixXd points;   // rows: the designs, in the order analysed
  nlohmann::json notes;     // what making the plan reported (distances, replaced, dropped, ...)
  std::string created;      // UTC, ISO 8601
};

class StudyStore final : public AnalysisStore, public JobLedger {
 public:
  // Opens the store at `path`. With `create`, a missing (or empty) file becomes a new store;
  // otherwise a missing file is an error. Throws StoreError naming the file and what is wrong
  // (not a SQLite file, corrupted, not a study store, another format version: stores written
  // before the one cycle-record form are version 1) without writing to it.
  StudyStore(const std::string& path, bool create);
  StudyStore(const std::string& path, StoreAccess access);
  ~StudyStore() override;
  StudyStore(const StudyStore&) = delete;
  StudyStore& operator=(const StudyStore&) = delete;

  const std::string& path() const { return path_; }
  bool read_only() const { return read_only_; }
  // Stores written before (some) checksums and opened read-only: rows without one (read as they
  // are); opened for writing: the rows that got theirs now; 0 for others.
  int unchecked_rows() const { return unchecked_rows_; }

  // Every analysis and cycle row that fails its checksum or cannot be decoded.
  std::vector<DamagedRecord> verify() const;
  // Deletes those rows (a writable store only), so that they are analysed or rebuilt again.
  void remove(const std::vector<DamagedRecord>& damaged);

  // The simulator inputs (simulator_inputs_hash) of the analyses looked up and saved from now
  // on; analyses stored under another hash are never reused.
  void use_inputs(const std::string& inputs_hash) { inputs_ = inputs_hash; }

  // AnalysisStore.
  std::vector<Evaluation> lookup(const Eigen::VectorXd& design, bool gradients) override;
  void save(const Eigen::VectorXd& design, const std::vector<DerivativeRequest>& derivatives,
            const Evaluation& evaluation) override;
  int branch_for_saves = 0;  // recorded with each saved analysis (0: none)

  // JobLedger: the batch jobs submitted for runs (table `jobs`, keyed by the simulator inputs
  // and the run's key), so that a resumed run re-attaches to them. A writable store only.
  std::optional<Entry> find_job(const std::string& key) override;
  void record_jobs(const std::vector<std::pair<std::string, Entry>>& jobs) override;
  int job_count() const;  // rows of `jobs` (0 for a store without the table)

  // Study definitions.
  int add_study(const nlohmann::json& document, const std::string& source, int start);
  StoredStudy study(int id) const;

  // Branches (ids from 1; the newest is the current one).
  int add_branch(int parent, int from_cycle, int study);
  std::vector<BranchInfo> branches() const;
  BranchInfo branch(int id) const;
  int current_branch() const;  // 0 when the store holds no branch yet
  void set_branch_status(int branch, const std::string& status, const std::string& message);

  // Settings changes (`sao set`).
  void add_setting_changes(int branch, int cycle, const std::vector<std::string>& assignments);
  std::vector<SettingChange> setting_changes(int branch) const;
  // Deletes the changes made for `cycle` of `branch` (`sao set --undo`: those not yet applied).
  void remove_setting_changes(int branch, int cycle);

  // Cycle records, in cycle order, stored exactly in the form of cycle_record_json.hpp with
  // `variables` (variable_names of the branch's study) to read them back.
  void save_cycle(int branch, const CycleRecord& record, const std::vector<std::string>& variables,
                  const nlohmann::json& settings);
  std::vector<StoredCycle> cycles(int branch) const;
  void delete_cycles_from(int branch, int cycle);
  int last_cycle(int branch) const;  // the highest cycle number stored (any row; 0: none)

  // Every successful analysis (with `include_failed`, the failed ones too) that passes its
  // checksum and decodes, in the order stored.
  std::vector<StoredAnalysis> analyses(bool include_failed = false) const;

  // Designs of experiments (table `does`), oldest first; none in a store without the table.
  int add_doe(int branch, const nlohmann::json& settings, const Eigen::MatrixXd& points,
              const nlohmann::json& notes);
  std::vector<StoredDoe> does() const;

  // Counts over the whole store.
  int analysis_count() const;
  int simulator_runs() const;  // sum of the stored analyses' runs

 private:
  void open_database(bool fresh, StoreAccess access);
  void create_schema();
  void create_jobs_table();  // added to stores of any version opened for writing
  void create_doe_table();   // the same (store_does.cpp)
  void add_doe_table();      // to a store of this version without it, opened for writing
  bool holds_no_table() const;
  void validate_existing(StoreAccess access);
  void add_checksums(int version);               // a store of version 1 to 3 opened for writing
  void add_record_checksums();                   // analyses and cycles of a store of version 1 or 2
  void refuse_newer_columns(int version) const;  // a version number lowered by hand
  // store_integrity.cpp: the checksums of studies, branches, settings_changes, jobs and meta.
  void seal(const char* table, long long rowid);  // (re)writes the row's checksum
  void seal_meta();
  std::string meta_checksum() const;
  int seal_all();             // adds the column where missing, seals every row; their count
  int unsealed_rows() const;  // rows of those tables (a store read before version 4)
  // A StoreError naming the first row that fails its checksum (and, from version 5, a table
  // whose rows are not those its row list in meta names).
  void verify_sealed(int version) const;
  std::string table_digest(const char* table) const;         // the row list of `table` (version 5)
  void seal_rows(const char* table);                         // (re)writes it in meta
  void seal_row_lists();                                     // seal_rows of every sealed table
  void in_transaction(const std::function<void()>& change);  // a savepoint
  bool has_table(const char* table) const;
  bool has_column(const char* table, const char* column) const;
  void exec(const char* sql) const;
  std::string checksum_column() const { return checksums_ ? "checksum" : "''"; }
  sqlite3* db_ = nullptr;
  std::string path_;
  std::string inputs_;
  bool read_only_ = false;
  bool checksums_ = true;  // false: a store of version 1 or 2 opened read-only
  bool sealed_ = true;     // false: a store of version 1 to 3 opened read-only
  int unchecked_rows_ = 0;
};

}  // namespace sao
