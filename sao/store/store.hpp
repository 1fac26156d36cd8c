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
// A file that is not a study store (another SQLite database, a corrupted file, any other
// file) is refused with a StoreError before anything is written to it.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "sao/optimizer/cycle_record_json.hpp"
#include "sao/optimizer/driver.hpp"
#include "sao/seam/analysis_store.hpp"
#include "sao/study/study.hpp"

struct sqlite3;

namespace sao {

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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

struct BranchInfo {
  int id = 0;
  int parent = 0;      // 0: the root branch
  int from_cycle = 0;  // the branch continues after this cycle of its parent
  int study = 0;       // StoredStudy id
  std::string status;  // running | converged | cycle limit | infeasible | failed
  std::string message;
  std::string created;  // UTC, ISO 8601
};

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

class StudyStore final : public AnalysisStore {
 public:
  // Opens the store at `path`. With `create`, a missing (or empty) file becomes a new store;
  // otherwise a missing file is an error. Throws StoreError naming the file and what is wrong
  // (not a SQLite file, corrupted, not a study store, another format version: stores written
  // before the one cycle-record form are version 1) without writing to it.
  StudyStore(const std::string& path, bool create);
  ~StudyStore() override;
  StudyStore(const StudyStore&) = delete;
  StudyStore& operator=(const StudyStore&) = delete;

  const std::string& path() const { return path_; }

  // The simulator inputs (simulator_inputs_hash) of the analyses looked up and saved from now
  // on; analyses stored under another hash are never reused.
  void use_inputs(const std::string& inputs_hash) { inputs_ = inputs_hash; }

  // AnalysisStore.
  std::vector<Evaluation> lookup(const Eigen::VectorXd& design, bool gradients) override;
  void save(const Eigen::VectorXd& design, const std::vector<DerivativeRequest>& derivatives,
            const Evaluation& evaluation) override;
  int branch_for_saves = 0;  // recorded with each saved analysis (0: none)

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

  // Cycle records, in cycle order, stored exactly in the form of cycle_record_json.hpp with
  // `variables` (variable_names of the branch's study) to read them back.
  void save_cycle(int branch, const CycleRecord& record, const std::vector<std::string>& variables,
                  const nlohmann::json& settings);
  std::vector<StoredCycle> cycles(int branch) const;
  void delete_cycles_from(int branch, int cycle);

  // Counts over the whole store.
  int analysis_count() const;
  int simulator_runs() const;  // sum of the stored analyses' runs

 private:
  void exec(const char* sql) const;
  sqlite3* db_ = nullptr;
  std::string path_;
  std::string inputs_;
};

}  // namespace sao
