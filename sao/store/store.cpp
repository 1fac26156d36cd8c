#include "sao/store/store.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <tuple>

#include "sao/seam/json_text.hpp"
#include "sao/store/sqlite_statement.hpp"
#include "sao/store/store_records.hpp"

namespace sao {

nlohmann::json branch_json(const BranchInfo& branch) {
  return {{"id", branch.id},         {"parent", branch.parent},   {"from_cycle", branch.from_cycle},
          {"status", branch.status}, {"message", branch.message}, {"created", branch.created}};
}

namespace {

using sqlite::now_utc;
using sqlite::Statement;

constexpr const char* kFormat = "sao-study-store";
// 2: cycle records in the one JSON form of cycle_record_json.hpp, with their variable names.
// 3: a checksum per analysis and cycle row.
// 4: a checksum per row of studies, branches, settings_changes and jobs, and meta's `checksum`
//    row (store_integrity.cpp); a row that fails it makes the store unusable (exit 2).
// 5: each of those tables' row list in meta (`rows.TABLE`): a deleted row is refused too.
// Stores of version 1 (sao 0.1) are still read: their analyses are encoded as in version 2, and
// their cycle rows are read by decode_cycle_record. Opening a store of version 1 to 4 for
// writing adds the checksum columns, the checksums and row lists it lacks and marks it version 5.
constexpr int kVersion = 5;
constexpr int kOldestReadable = 1;

uint64_t fnv1a(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

double unix_seconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

std::string design_blob(const Eigen::VectorXd& design) {
  return std::string(reinterpret_cast<const char*>(design.data()),
                     static_cast<size_t>(design.size()) * sizeof(double));
}

nlohmann::json derivatives_json(const std::vector<DerivativeRequest>& derivatives) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : derivatives) {
    out.push_back(
        {{"load_case", d.load_case}, {"response", d.response}, {"points", d.time_indices}});
  }
  return out;
}

// Every table's `checksum` is SHA-256 of the row (see kAnalysisFields, cycle_checksum and
// store_integrity.cpp for the columns each covers); meta holds format, version, created and
// `checksum` (of the other three). The tables `jobs` and `does` are created by create_jobs_table
// and create_doe_table.
const char* kSchema = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE studies (
  id INTEGER PRIMARY KEY, document TEXT NOT NULL, source TEXT NOT NULL, start INTEGER NOT NULL,
  inputs_hash TEXT NOT NULL, created TEXT NOT NULL, checksum TEXT NOT NULL DEFAULT '');
CREATE TABLE branches (
  id INTEGER PRIMARY KEY, parent INTEGER NOT NULL, from_cycle INTEGER NOT NULL,
  study INTEGER NOT NULL REFERENCES studies(id), status TEXT NOT NULL, message TEXT NOT NULL,
  created TEXT NOT NULL, checksum TEXT NOT NULL DEFAULT '');
CREATE TABLE analyses (
  id INTEGER PRIMARY KEY, inputs_hash TEXT NOT NULL, design BLOB NOT NULL,
  design_json TEXT NOT NULL, gradients INTEGER NOT NULL, derivatives TEXT NOT NULL,
  ok INTEGER NOT NULL, message TEXT NOT NULL, runs INTEGER NOT NULL, seconds REAL NOT NULL,
  finished REAL NOT NULL, branch INTEGER NOT NULL, result BLOB NOT NULL,
  checksum TEXT NOT NULL DEFAULT '');
CREATE INDEX analyses_by_design ON analyses (inputs_hash, design);
CREATE TABLE settings_changes (
  id INTEGER PRIMARY KEY, branch INTEGER NOT NULL, cycle INTEGER NOT NULL,
  assignment TEXT NOT NULL, created TEXT NOT NULL, checksum TEXT NOT NULL DEFAULT '');
CREATE TABLE cycles (
  branch INTEGER NOT NULL, cycle INTEGER NOT NULL, record TEXT NOT NULL, settings TEXT NOT NULL,
  created TEXT NOT NULL, checksum TEXT NOT NULL DEFAULT '', PRIMARY KEY (branch, cycle));
)sql";

// The columns an analysis' checksum covers (all but id, finished and the checksum), in order.
constexpr const char* kAnalysisFields =
    "inputs_hash, design, design_json, gradients, derivatives, ok, message, runs, seconds, "
    "branch, result";

// A REAL column's bits as SQLite gives them back (NaN is stored as NULL, -0 as 0).
std::string exact_text(double v) {
  if (v == 0.0 || std::isnan(v)) v = 0.0;
  return std::string(reinterpret_cast<const char*>(&v), sizeof v);
}

// The checksum of an analysis: the values of kAnalysisFields in order, integers in decimal.
std::string analysis_checksum(std::vector<std::string> fields, int gradients, int ok, int runs,
                              double seconds, int branch) {
  fields.insert(fields.begin() + 3, std::to_string(gradients));
  fields.insert(fields.begin() + 5, std::to_string(ok));
  fields.insert(fields.begin() + 7, std::to_string(runs));
  fields.insert(fields.begin() + 8, exact_text(seconds));
  fields.insert(fields.begin() + 9, std::to_string(branch));
  return record_checksum({fields.begin(), fields.end()});
}

// The checksum of the analysis whose kAnalysisFields start at column `first` of `q`.
std::string analysis_checksum(const Statement& q, int first) {
  return analysis_checksum({q.text(first), q.text(first + 1), q.text(first + 2), q.text(first + 4),
                            q.text(first + 6), q.text(first + 10)},
                           q.integer(first + 3), q.integer(first + 5), q.integer(first + 7),
                           q.real(first + 8), q.integer(first + 9));
}

std::string cycle_checksum(int branch, int cycle, const std::string& record,
                           const std::string& settings) {
  const std::string b = std::to_string(branch), c = std::to_string(cycle);
  return record_checksum({b, c, record, settings});
}

bool access_denied(const std::string& path) {
  return ::access(path.c_str(), R_OK) != 0;
}

// file:PATH for SQLite's URI names, with the characters URIs reserve escaped.
std::string sqlite_uri(const std::string& path) {
  std::string out = "file:";
  for (unsigned char c : std::filesystem::absolute(path).string()) {
    if (c == '%' || c == '?' || c == '#' || c < 0x20 || c >= 0x7f) {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// The start design of a cycle row's text, read as plain JSON (the values of "b0" in the order
// of "variables"; a version-1 row's "x0"), as a JSON array; "" when it does not read so.
std::string start_design_text(const std::string& text) {
  const nlohmann::json stored = nlohmann::json::parse(text, nullptr, false);
  if (!stored.is_object()) return "";
  const nlohmann::json& x0 = stored.contains("x0") ? stored["x0"] : nlohmann::json();
  if (x0.is_array()) return x0.dump();
  if (!stored.contains("record") || !stored["record"].is_object() ||
      !stored.contains("variables") || !stored["variables"].is_array()) {
    return "";
  }
  const nlohmann::json& b0 = stored["record"].contains("b0") ? stored["record"]["b0"] : x0;
  nlohmann::json values = nlohmann::json::array();
  for (const nlohmann::json& name : stored["variables"]) {
    if (!b0.is_object() || !name.is_string() || !b0.contains(name.get<std::string>())) return "";
    values.push_back(b0[name.get<std::string>()]);
  }
  return values.dump();
}

}  // namespace

// --- hashing and encodings ---

std::string simulator_inputs_hash(const Study& study, const std::string& fingerprint) {
  nlohmann::json inputs;
  // Where the runs execute (simulator.executor: local or a cluster) does not change them.
  nlohmann::json simulator = study.simulator;
  if (simulator.is_object()) simulator.erase("executor");
  inputs["simulator"] = simulator;
  if (!fingerprint.empty()) inputs["fingerprint"] = fingerprint;  // files the simulator reads
  nlohmann::json cases = nlohmann::json::array();
  for (const LoadCaseSpec& c : study.load_cases) {
    nlohmann::json grid = {{"start", exact_number(c.grid.start)},
                           {"end", exact_number(c.grid.end)},
                           {"points", c.grid.points},
                           {"values", c.grid.values}};
    cases.push_back({{"name", c.name}, {"grid", grid}, {"parameters", c.parameters}});
  }
  inputs["load_cases"] = cases;
  nlohmann::json names = nlohmann::json::array();
  for (const DesignVariable& v : study.design) names.push_back(v.name);
  inputs["design_variables"] = names;
  nlohmann::json responses = nlohmann::json::array();
  bool derived = false;
  for (const ResponseDef& r : study.responses) {
    responses.push_back({{"name", r.name},
                         {"source", r.source},
                         {"history", r.history},
                         {"expression", r.expression}});
    derived = derived || !r.expression.empty();
  }
  inputs["responses"] = responses;
  if (derived) {  // what a derived response's expression may read
    inputs["constants"] = study.constants;
    inputs["data"] = study.data;
    inputs["relations"] = study.relations;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(inputs.dump())));
  return hex;
}

// --- the store ---

StudyStore::StudyStore(const std::string& path, bool create)
    : StudyStore(path, create ? StoreAccess::kCreate : StoreAccess::kReadWrite) {}

StudyStore::StudyStore(const std::string& path, StoreAccess access)
    : path_(path), read_only_(access == StoreAccess::kReadOnly) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  const bool empty = exists && fs::is_regular_file(path, ec) && fs::file_size(path, ec) == 0;
  if (exists && !fs::is_regular_file(path, ec)) {
    throw StoreError(path + ": not a study store (not a regular file)");
  }
  if (!exists && access != StoreAccess::kCreate) throw StoreError(path + ": no study store here");
  if (empty && access != StoreAccess::kCreate) {
    throw StoreError(path + ": not a study store (an empty file); nothing was changed");
  }
  if (exists && !empty) {
    // Read the header ourselves: SQLite would happily treat some foreign files as databases.
    char header[16] = {};
    std::ifstream in(path, std::ios::binary);
    in.read(header, sizeof header);
    if (!in && in.gcount() == 0 && access_denied(path)) {
      throw StoreIoError(path + ": cannot read the study store (permission denied)");
    }
    if (!in || std::memcmp(header, "SQLite format 3", 16) != 0) {
      throw StoreError(path +
                       ": not a study store (not an SQLite database: a foreign or corrupted "
                       "file); nothing was changed");
    }
  }
  const bool fresh = !exists || empty;
  try {
    open_database(fresh, access);
    if (fresh || (access == StoreAccess::kCreate && holds_no_table())) {
      create_schema();  // a new store, or one whose creation was cut short (nothing in it)
    } else {
      validate_existing(access);
    }
    // NORMAL in WAL mode: a killed process loses nothing committed (a power loss may lose the
    // last transactions, never the consistency).
    if (!read_only_) exec("PRAGMA synchronous=NORMAL");
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

void StudyStore::open_database(bool fresh, StoreAccess access) {
  auto open = [&](const std::string& name, int flags) {
    sqlite3_close(db_);
    db_ = nullptr;
    const int rc = sqlite3_open_v2(name.c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK) {
      const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
      const bool io = rc == SQLITE_CANTOPEN || rc == SQLITE_READONLY || rc == SQLITE_FULL;
      if (io) throw StoreIoError(path_ + ": cannot open the study store: " + why);
      throw StoreError(path_ + ": cannot open the study store: " + why);
    }
    sqlite3_busy_timeout(db_, 10000);
  };
  if (read_only_) {
    open(path_, SQLITE_OPEN_READONLY);
    // A WAL store in a read-only folder cannot get its shared-memory file: read it as an
    // immutable file then (nobody can write it there either).
    if (sqlite3_exec(db_, "SELECT 1 FROM sqlite_master LIMIT 1", nullptr, nullptr, nullptr) !=
        SQLITE_OK) {
      open(sqlite_uri(path_) + "?immutable=1", SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
    }
    return;
  }
  open(path_, SQLITE_OPEN_READWRITE | (fresh ? SQLITE_OPEN_CREATE : 0));
  if (access != StoreAccess::kReadOnly && sqlite3_db_readonly(db_, "main") == 1) {
    throw StoreIoError(path_ +
                       ": the study store is read-only (file permissions); `sao status` and `sao "
                       "report` can read it, this command needs to write it");
  }
}

bool StudyStore::holds_no_table() const {
  Statement q(db_, "SELECT COUNT(*) FROM sqlite_master");
  return q.row() && q.integer(0) == 0;
}

void StudyStore::create_schema() {
  exec("PRAGMA journal_mode=WAL");
  exec("BEGIN IMMEDIATE");
  exec(kSchema);
  Statement(db_, "INSERT INTO meta VALUES ('format', ?1)").bind(1, std::string(kFormat)).run();
  Statement(db_, "INSERT INTO meta VALUES ('version', ?1)").bind(1, std::to_string(kVersion)).run();
  Statement(db_, "INSERT INTO meta VALUES ('created', ?1)").bind(1, now_utc()).run();
  seal_meta();
  create_jobs_table();
  create_doe_table();
  seal_row_lists();
  exec("COMMIT");
}

void StudyStore::validate_existing(StoreAccess access) {
  // Validate before anything writes (setting the journal mode writes the header).
  std::string format, version;
  try {
    Statement q(db_, "SELECT key, value FROM meta WHERE key IN ('format', 'version')");
    while (q.row()) (q.text(0) == "format" ? format : version) = q.text(1);
  } catch (const StoreIoError&) {
    throw;
  } catch (const StoreError& e) {
    throw StoreError(path_ + ": not a study store (" + e.what() + "); nothing was changed");
  }
  if (format != kFormat) {
    throw StoreError(path_ + ": not a study store (an SQLite database of another program, or " +
                     "a damaged store: table meta names no format " + kFormat +
                     "); nothing was changed");
  }
  const int found = std::atoi(version.c_str());
  if (found < kOldestReadable || found > kVersion || version != std::to_string(found)) {
    throw StoreError(path_ + ": study store format version " + version +
                     " (table meta), this program reads " + std::to_string(kOldestReadable) +
                     " to " + std::to_string(kVersion) + "; nothing was changed");
  }
  {
    Statement check(db_, "PRAGMA quick_check");
    const std::string verdict = check.row() ? check.text(0) : "no answer";
    if (verdict != "ok") {
      throw StoreError(path_ + ": study store is corrupted (" + verdict + "); nothing was changed");
    }
  }
  refuse_newer_columns(found);
  if (found >= 4) verify_sealed(found);  // before anything is read or written
  if (access == StoreAccess::kReadOnly) {
    checksums_ = found >= 3;
    sealed_ = found >= 4;
    if (!checksums_) {
      Statement q(db_, "SELECT (SELECT COUNT(*) FROM analyses) + (SELECT COUNT(*) FROM cycles)");
      unchecked_rows_ = q.row() ? q.integer(0) : 0;
    }
    if (!sealed_) unchecked_rows_ += unsealed_rows();
    return;
  }
  exec("PRAGMA journal_mode=WAL");
  if (found < kVersion) add_checksums(found);  // rows written from now on are of this form
  if (!has_table("does")) add_doe_table();     // a store no `sao doe` of this version opened
}

void StudyStore::refuse_newer_columns(int version) const {
  // A version number lowered by hand would have the checks of the newer version skipped.
  bool lists = false;  // the row lists of version 5
  if (version < 5) {
    Statement q(db_, "SELECT COUNT(*) FROM meta WHERE key LIKE 'rows.%'");
    lists = q.row() && q.integer(0) > 0;
  }
  const bool newer = (version < 3 && has_column("analyses", "checksum")) ||
                     (version < 4 && has_column("studies", "checksum")) || lists;
  if (newer) {
    throw StoreError(path_ + ": table meta: the store says format version " +
                     std::to_string(version) +
                     " but holds the checksums of a later version (a version changed outside "
                     "sao?); the store is not used, nothing was changed");
  }
}

void StudyStore::add_checksums(int version) {
  exec("BEGIN IMMEDIATE");
  try {
    create_jobs_table();  // with its checksum column when the store had no jobs yet
    create_doe_table();
    const int sealed = seal_all();  // (row lists added to a store of version 4)
    unchecked_rows_ = version < 4 ? sealed : 0;
    if (version < 3) add_record_checksums();
    Statement(db_, "UPDATE meta SET value = ?1 WHERE key = 'version'")
        .bind(1, std::to_string(kVersion))
        .run();
    seal_meta();
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

void StudyStore::add_record_checksums() {
  {
    exec(
        "ALTER TABLE analyses ADD COLUMN checksum TEXT NOT NULL DEFAULT '';"
        "ALTER TABLE cycles ADD COLUMN checksum TEXT NOT NULL DEFAULT ''");
    std::vector<std::pair<long long, std::string>> sums;
    {
      Statement q(db_, (std::string("SELECT id, ") + kAnalysisFields + " FROM analyses").c_str());
      while (q.row()) sums.emplace_back(q.integer64(0), analysis_checksum(q, 1));
    }
    for (const auto& [id, sum] : sums) {
      Statement(db_, "UPDATE analyses SET checksum = ?1 WHERE id = ?2")
          .bind(1, sum)
          .bind64(2, id)
          .run();
    }
    unchecked_rows_ += static_cast<int>(sums.size());
    Statement cycles(db_, "SELECT branch, cycle, record, settings FROM cycles");
    std::vector<std::tuple<int, int, std::string>> cycle_sums;
    while (cycles.row()) {
      cycle_sums.emplace_back(
          cycles.integer(0), cycles.integer(1),
          cycle_checksum(cycles.integer(0), cycles.integer(1), cycles.text(2), cycles.text(3)));
    }
    for (const auto& [branch, cycle, sum] : cycle_sums) {
      Statement(db_, "UPDATE cycles SET checksum = ?1 WHERE branch = ?2 AND cycle = ?3")
          .bind(1, sum)
          .bind(2, branch)
          .bind(3, cycle)
          .run();
    }
    unchecked_rows_ += static_cast<int>(cycle_sums.size());
  }
}

StudyStore::~StudyStore() {
  if (db_) sqlite3_close(db_);
}

void StudyStore::exec(const char* sql) const {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    sqlite3_free(error);
    sqlite::throw_error(db_, "exec");
  }
}

std::vector<Evaluation> StudyStore::lookup(const Eigen::VectorXd& design, bool gradients) {
  // Values only first, then in the order stored: a replay meets first the row its cycle made
  // (a later row may cover more derivative rows; taking it would count one sensitivity
  // analysis fewer than the run that is replayed).
  const std::string sql = std::string("SELECT ") + checksum_column() + ", " + kAnalysisFields +
                          " FROM analyses WHERE inputs_hash = ?1 AND design = ?2 AND ok = 1 AND "
                          "gradients >= ?3 ORDER BY gradients ASC, id ASC";
  Statement q(db_, sql.c_str());
  q.bind(1, inputs_).blob(2, design_blob(design)).bind(3, gradients ? 1 : 0);
  std::vector<Evaluation> out;
  while (q.row()) {
    // A row that fails its checksum or does not decode is not trusted (verify() names it):
    // the design is analysed again.
    const std::string sum = q.text(0);
    if (!sum.empty() || checksums_) {
      if (sum != analysis_checksum(q, 1)) continue;
    }
    try {
      out.push_back(decode_evaluation(q.text(11)));
    } catch (const StoreError&) {
    }
  }
  return out;
}

void StudyStore::save(const Eigen::VectorXd& design,
                      const std::vector<DerivativeRequest>& derivatives, const Evaluation& e) {
  if (read_only_) return;  // a read-only store (status, report) keeps nothing new
  nlohmann::json named = nlohmann::json::array();
  for (int i = 0; i < design.size(); ++i) named.push_back(exact_number(design(i)));
  const std::string blob = design_blob(design), json = named.dump(),
                    requested = derivatives_json(derivatives).dump(), result = encode_evaluation(e);
  const std::string sum = analysis_checksum({inputs_, blob, json, requested, e.message, result},
                                            e.has_gradients ? 1 : 0, e.ok ? 1 : 0, e.cost.runs,
                                            e.cost.wall_seconds, branch_for_saves);
  Statement q(db_,
              "INSERT INTO analyses (inputs_hash, design, design_json, gradients, derivatives, ok, "
              "message, runs, seconds, finished, branch, result, checksum) "
              "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
  q.bind(1, inputs_)
      .blob(2, blob)
      .bind(3, json)
      .bind(4, e.has_gradients ? 1 : 0)
      .bind(5, requested)
      .bind(6, e.ok ? 1 : 0)
      .bind(7, e.message)
      .bind(8, e.cost.runs)
      .bind(9, e.cost.wall_seconds)
      .bind(10, unix_seconds())
      .bind(11, branch_for_saves)
      .blob(12, result)
      .bind(13, sum);
  q.run();  // one statement: its own transaction
}

int StudyStore::add_study(const nlohmann::json& document, const std::string& source, int start) {
  long long id = 0;
  in_transaction([&] {
    Statement q(db_,
                "INSERT INTO studies (document, source, start, inputs_hash, created) "
                "VALUES (?1, ?2, ?3, ?4, ?5)");
    q.bind(1, document.dump()).bind(2, source).bind(3, start).bind(4, inputs_).bind(5, now_utc());
    q.run();
    id = sqlite3_last_insert_rowid(db_);
    seal("studies", id);
  });
  return static_cast<int>(id);
}

StoredStudy StudyStore::study(int id) const {
  Statement q(db_, "SELECT document, source, start FROM studies WHERE id = ?1");
  q.bind(1, id);
  if (!q.row()) throw StoreError(path_ + ": no study " + std::to_string(id));
  StoredStudy s;
  s.id = id;
  try {
    s.document = parse_json_text(q.text(0));
  } catch (const JsonTextError& e) {  // its line, column and JSON path in the stored text
    throw StoreError(path_ + ": table studies, row " + std::to_string(id) +
                     ": the stored study document is not readable (" + e.what() +
                     "); the store is not used (a study document cannot be rebuilt: restore "
                     "the file from a backup, or start a new study folder)");
  }
  s.source = q.text(1);
  s.start = q.integer(2);
  return s;
}

int StudyStore::add_branch(int parent, int from_cycle, int study) {
  long long id = 0;
  in_transaction([&] {
    Statement q(db_,
                "INSERT INTO branches (parent, from_cycle, study, status, message, created) "
                "VALUES (?1, ?2, ?3, 'running', '', ?4)");
    q.bind(1, parent).bind(2, from_cycle).bind(3, study).bind(4, now_utc());
    q.run();
    id = sqlite3_last_insert_rowid(db_);
    seal("branches", id);
  });
  return static_cast<int>(id);
}

std::vector<BranchInfo> StudyStore::branches() const {
  Statement q(db_,
              "SELECT id, parent, from_cycle, study, status, message, created FROM branches "
              "ORDER BY id");
  std::vector<BranchInfo> out;
  while (q.row()) {
    out.push_back(
        {q.integer(0), q.integer(1), q.integer(2), q.integer(3), q.text(4), q.text(5), q.text(6)});
    // A branch starts from an earlier one (add_branch): any other parent, followed by the
    // commands that walk a branch's ancestors, would go round in circles.
    const BranchInfo& b = out.back();
    if (b.parent < 0 || b.parent >= b.id) {
      throw StoreError(path_ + ": study store is corrupted (branch " + std::to_string(b.id) +
                       " names branch " + std::to_string(b.parent) +
                       " as its parent, not an earlier branch); nothing was changed");
    }
  }
  return out;
}

BranchInfo StudyStore::branch(int id) const {
  for (const BranchInfo& b : branches()) {
    if (b.id == id) return b;
  }
  throw StoreError(path_ + ": no branch " + std::to_string(id));
}

int StudyStore::current_branch() const {
  Statement q(db_, "SELECT COALESCE(MAX(id), 0) FROM branches");
  return q.row() ? q.integer(0) : 0;
}

void StudyStore::set_branch_status(int branch, const std::string& status,
                                   const std::string& message) {
  if (read_only_) return;
  in_transaction([&] {
    Statement q(db_, "UPDATE branches SET status = ?1, message = ?2 WHERE id = ?3");
    q.bind(1, status).bind(2, message).bind(3, branch);
    q.run();
    seal("branches", branch);  // the checksum follows the status
  });
}

void StudyStore::add_setting_changes(int branch, int cycle,
                                     const std::vector<std::string>& assignments) {
  exec("BEGIN IMMEDIATE");
  try {
    for (const std::string& a : assignments) {
      Statement q(db_,
                  "INSERT INTO settings_changes (branch, cycle, assignment, created) "
                  "VALUES (?1, ?2, ?3, ?4)");
      q.bind(1, branch).bind(2, cycle).bind(3, a).bind(4, now_utc());
      q.run();
      seal("settings_changes", sqlite3_last_insert_rowid(db_));
    }
    exec("COMMIT");
  } catch (...) {
    exec("ROLLBACK");
    throw;
  }
}

void StudyStore::remove_setting_changes(int branch, int cycle) {
  in_transaction([&] {
    Statement q(db_, "DELETE FROM settings_changes WHERE branch = ?1 AND cycle = ?2");
    q.bind(1, branch).bind(2, cycle);
    q.run();
    seal_rows("settings_changes");
  });
}

std::vector<SettingChange> StudyStore::setting_changes(int branch) const {
  Statement q(db_,
              "SELECT branch, cycle, assignment FROM settings_changes WHERE branch = ?1 "
              "ORDER BY cycle, id");
  q.bind(1, branch);
  std::vector<SettingChange> out;
  while (q.row()) out.push_back({q.integer(0), q.integer(1), q.text(2)});
  return out;
}

void StudyStore::save_cycle(int branch, const CycleRecord& record,
                            const std::vector<std::string>& variables,
                            const nlohmann::json& settings) {
  const nlohmann::json stored = {{"variables", variables},
                                 {"record", cycle_record_to_json(record, variables)}};
  const std::string text = stored.dump(), settings_text = settings.dump();
  Statement q(db_,
              "INSERT OR REPLACE INTO cycles (branch, cycle, record, settings, created, checksum) "
              "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  q.bind(1, branch)
      .bind(2, record.cycle)
      .bind(3, text)
      .bind(4, settings_text)
      .bind(5, now_utc())
      .bind(6, cycle_checksum(branch, record.cycle, text, settings_text));
  q.run();
}

std::vector<StoredCycle> StudyStore::cycles(int branch) const {
  const std::string sql = "SELECT record, settings, cycle, " + checksum_column() +
                          " FROM cycles WHERE branch = ?1 ORDER BY cycle";
  Statement q(db_, sql.c_str());
  q.bind(1, branch);
  std::vector<StoredCycle> out;
  while (q.row()) {
    // A damaged record (verify() names it) is left out: the replay rebuilds it.
    const std::string sum = q.text(3);
    if ((!sum.empty() || checksums_) &&
        sum != cycle_checksum(branch, q.integer(2), q.text(0), q.text(1))) {
      continue;
    }
    try {
      CycleRecord record = decode_cycle_record(q.text(0));
      out.push_back({branch, std::move(record), nlohmann::json::parse(q.text(1))});
    } catch (const std::exception&) {
    }
  }
  return out;
}

void StudyStore::delete_cycles_from(int branch, int cycle) {
  if (read_only_) return;
  Statement q(db_, "DELETE FROM cycles WHERE branch = ?1 AND cycle >= ?2");
  q.bind(1, branch).bind(2, cycle);
  q.run();
}

std::vector<StoredAnalysis> StudyStore::analyses(bool include_failed) const {
  const std::string sql = "SELECT " + checksum_column() + ", " + kAnalysisFields +
                          " FROM analyses" + (include_failed ? "" : " WHERE ok = 1") +
                          " ORDER BY id";
  Statement q(db_, sql.c_str());
  std::vector<StoredAnalysis> out;
  while (q.row()) {
    const std::string sum = q.text(0);
    if ((!sum.empty() || checksums_) && sum != analysis_checksum(q, 1)) continue;
    const std::string blob = q.text(2);
    if (blob.size() % sizeof(double) != 0) continue;
    StoredAnalysis a;
    a.inputs_hash = q.text(1);
    a.branch = q.integer(10);
    a.design.resize(static_cast<Eigen::Index>(blob.size() / sizeof(double)));
    std::memcpy(a.design.data(), blob.data(), blob.size());
    try {
      a.evaluation = decode_evaluation(q.text(11));
    } catch (const StoreError&) {
      continue;
    }
    out.push_back(std::move(a));
  }
  return out;
}

int StudyStore::last_cycle(int branch) const {
  Statement q(db_, "SELECT COALESCE(MAX(cycle), 0) FROM cycles WHERE branch = ?1");
  q.bind(1, branch);
  return q.row() ? q.integer(0) : 0;
}

std::vector<DamagedRecord> StudyStore::verify() const {
  std::vector<DamagedRecord> out;
  {
    const std::string sql =
        "SELECT id, " + checksum_column() + ", " + kAnalysisFields + " FROM analyses ORDER BY id";
    Statement q(db_, sql.c_str());
    while (q.row()) {
      DamagedRecord d{"analyses", q.integer64(0), q.integer(11), q.text(4), ""};
      const std::string sum = q.text(1);
      if (sum.empty() && !checksums_) continue;  // a store from before checksums
      if (sum != analysis_checksum(q, 2)) {
        d.reason = sum.empty() ? "no checksum" : "checksum mismatch";
      } else {
        try {
          (void)decode_evaluation(q.text(12));
        } catch (const StoreError& e) {
          d.reason = std::string("cannot be decoded: ") + e.what();
        }
      }
      if (!d.reason.empty()) out.push_back(std::move(d));
    }
  }
  const std::string sql = "SELECT branch, cycle, record, settings, " + checksum_column() +
                          " FROM cycles ORDER BY "
                          "branch, cycle";
  Statement q(db_, sql.c_str());
  while (q.row()) {
    DamagedRecord d{"cycles", q.integer(1), q.integer(0), "", ""};
    const std::string sum = q.text(4);
    if (sum.empty() && !checksums_) continue;
    const bool matches =
        sum == cycle_checksum(d.branch, static_cast<int>(d.row), q.text(2), q.text(3));
    if (!matches) {
      // Not trusted, so not decoded: its start design read as plain JSON, to name it.
      d.reason = sum.empty() ? "no checksum" : "checksum mismatch";
      d.design = start_design_text(q.text(2));
    } else {
      try {
        const CycleRecord r = decode_cycle_record(q.text(2));
        nlohmann::json x0 = nlohmann::json::array();
        for (int i = 0; i < r.x0.size(); ++i) x0.push_back(exact_number(r.x0(i)));
        d.design = x0.dump();
        try {
          (void)parse_json_text(q.text(3));  // must read too
        } catch (const JsonTextError& e) {
          throw StoreError(std::string("stored settings: ") + e.what());
        }
      } catch (const std::exception& e) {  // StoreError, or std::invalid_argument naming the key
        d.reason = std::string("cannot be decoded: ") + e.what();
      }
    }
    if (!d.reason.empty()) out.push_back(std::move(d));
  }
  return out;
}

void StudyStore::remove(const std::vector<DamagedRecord>& damaged) {
  if (read_only_ || damaged.empty()) return;
  exec("BEGIN IMMEDIATE");
  try {
    for (const DamagedRecord& d : damaged) {
      if (d.table == "analyses") {
        Statement(db_, "DELETE FROM analyses WHERE id = ?1").bind64(1, d.row).run();
      } else {
        Statement(db_, "DELETE FROM cycles WHERE branch = ?1 AND cycle = ?2")
            .bind(1, d.branch)
            .bind(2, static_cast<int>(d.row))
            .run();
      }
    }
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

int StudyStore::analysis_count() const {
  Statement q(db_, "SELECT COUNT(*) FROM analyses");
  return q.row() ? q.integer(0) : 0;
}

int StudyStore::simulator_runs() const {
  Statement q(db_, "SELECT COALESCE(SUM(runs), 0) FROM analyses");
  return q.row() ? q.integer(0) : 0;
}

}  // namespace sao
