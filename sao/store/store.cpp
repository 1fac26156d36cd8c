#include "sao/store/store.hpp"

#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>

namespace sao {
namespace {

constexpr const char* kFormat = "sao-study-store";
// 2: cycle records in the one JSON form of cycle_record_json.hpp, with their variable names.
// Stores of version 1 (sao 0.1) are still read: their analyses are encoded as in version 2, and
// their cycle rows are read by cycle_from_version_1; opening one marks it version 2, since new
// rows are written in the new form.
constexpr int kVersion = 2;
constexpr int kOldestReadable = 1;

// --- binary encoding: little helpers over a byte string ---

class Writer {
 public:
  void u32(uint32_t v) { bytes(&v, sizeof v); }
  void f64(double v) { bytes(&v, sizeof v); }
  void str(const std::string& s) {
    u32(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  void vec(const double* data, size_t n) {
    u32(static_cast<uint32_t>(n));
    bytes(data, n * sizeof(double));
  }
  std::string take() { return std::move(out_); }

 private:
  void bytes(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  uint32_t u32() {
    uint32_t v;
    bytes(&v, sizeof v);
    return v;
  }
  double f64() {
    double v;
    bytes(&v, sizeof v);
    return v;
  }
  std::string str() {
    const uint32_t n = u32();
    need(n);
    std::string s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::vector<double> vec() {
    const uint32_t n = u32();
    need(static_cast<size_t>(n) * sizeof(double));
    std::vector<double> v(n);
    bytes(v.data(), n * sizeof(double));
    return v;
  }
  bool done() const { return pos_ == in_.size(); }

 private:
  void need(size_t n) const {
    if (in_.size() - pos_ < n) throw StoreError("stored analysis: truncated record");
  }
  void bytes(void* p, size_t n) {
    need(n);
    std::memcpy(p, in_.data() + pos_, n);
    pos_ += n;
  }
  const std::string& in_;
  size_t pos_ = 0;
};

constexpr uint32_t kEvaluationTag = 0x53414f45;  // "SAOE"

uint64_t fnv1a(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
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

// A prepared statement with RAII; errors become StoreError naming the store.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) fail("prepare");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement& bind(int i, int v) {
    check(sqlite3_bind_int(stmt_, i, v));
    return *this;
  }
  Statement& bind(int i, double v) {
    check(sqlite3_bind_double(stmt_, i, v));
    return *this;
  }
  Statement& bind(int i, const std::string& v) {
    check(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Statement& blob(int i, const std::string& v) {
    check(sqlite3_bind_blob(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  bool row() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail("step");
    return false;
  }
  void run() {
    while (row()) {
    }
  }
  int integer(int c) const { return sqlite3_column_int(stmt_, c); }
  double real(int c) const { return sqlite3_column_double(stmt_, c); }
  std::string text(int c) const {
    const auto* p = sqlite3_column_blob(stmt_, c);
    return p ? std::string(static_cast<const char*>(p), sqlite3_column_bytes(stmt_, c)) : "";
  }

 private:
  void check(int rc) {
    if (rc != SQLITE_OK) fail("bind");
  }
  [[noreturn]] void fail(const char* what) const {
    throw StoreError(std::string("study store: ") + what + ": " + sqlite3_errmsg(db_));
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

const char* kSchema = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE studies (
  id INTEGER PRIMARY KEY, document TEXT NOT NULL, source TEXT NOT NULL, start INTEGER NOT NULL,
  inputs_hash TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE branches (
  id INTEGER PRIMARY KEY, parent INTEGER NOT NULL, from_cycle INTEGER NOT NULL,
  study INTEGER NOT NULL REFERENCES studies(id), status TEXT NOT NULL, message TEXT NOT NULL,
  created TEXT NOT NULL);
CREATE TABLE analyses (
  id INTEGER PRIMARY KEY, inputs_hash TEXT NOT NULL, design BLOB NOT NULL,
  design_json TEXT NOT NULL, gradients INTEGER NOT NULL, derivatives TEXT NOT NULL,
  ok INTEGER NOT NULL, message TEXT NOT NULL, runs INTEGER NOT NULL, seconds REAL NOT NULL,
  finished REAL NOT NULL, branch INTEGER NOT NULL, result BLOB NOT NULL);
CREATE INDEX analyses_by_design ON analyses (inputs_hash, design);
CREATE TABLE settings_changes (
  id INTEGER PRIMARY KEY, branch INTEGER NOT NULL, cycle INTEGER NOT NULL,
  assignment TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE cycles (
  branch INTEGER NOT NULL, cycle INTEGER NOT NULL, record TEXT NOT NULL, settings TEXT NOT NULL,
  created TEXT NOT NULL, PRIMARY KEY (branch, cycle));
)sql";

}  // namespace

// --- hashing and encodings ---

std::string simulator_inputs_hash(const Study& study, const std::string& fingerprint) {
  nlohmann::json inputs;
  inputs["simulator"] = study.simulator;
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

std::string encode_evaluation(const Evaluation& e) {
  Writer w;
  w.u32(kEvaluationTag);
  w.u32(e.ok ? 1 : 0);
  w.str(e.message);
  w.u32(e.has_gradients ? 1 : 0);
  w.f64(e.cost.wall_seconds);
  w.u32(static_cast<uint32_t>(e.cost.runs));
  w.u32(static_cast<uint32_t>(e.cases.size()));
  for (const CaseResult& c : e.cases) {
    w.u32(static_cast<uint32_t>(c.scalars.size()));
    for (const auto& [name, v] : c.scalars) {
      w.str(name);
      w.f64(v);
    }
    w.u32(static_cast<uint32_t>(c.histories.size()));
    for (const auto& [name, h] : c.histories) {
      w.str(name);
      w.vec(h.data(), h.size());
    }
    w.u32(static_cast<uint32_t>(c.gradients.size()));
    for (const auto& [name, g] : c.gradients) {
      w.str(name);
      w.u32(static_cast<uint32_t>(g.rows()));
      w.u32(static_cast<uint32_t>(g.cols()));
      w.vec(g.data(), g.size());  // column-major, as Eigen stores it
    }
  }
  return w.take();
}

Evaluation decode_evaluation(const std::string& bytes) {
  Reader r(bytes);
  if (r.u32() != kEvaluationTag) throw StoreError("stored analysis: unknown encoding");
  Evaluation e;
  e.ok = r.u32() != 0;
  e.message = r.str();
  e.has_gradients = r.u32() != 0;
  e.cost.wall_seconds = r.f64();
  e.cost.runs = static_cast<int>(r.u32());
  e.cases.resize(r.u32());
  for (CaseResult& c : e.cases) {
    for (uint32_t n = r.u32(); n > 0; --n) {
      std::string name = r.str();
      c.scalars[name] = r.f64();
    }
    for (uint32_t n = r.u32(); n > 0; --n) {
      std::string name = r.str();
      const std::vector<double> v = r.vec();
      c.histories[name] = Eigen::Map<const Eigen::VectorXd>(v.data(), v.size());
    }
    for (uint32_t n = r.u32(); n > 0; --n) {
      std::string name = r.str();
      const uint32_t rows = r.u32(), cols = r.u32();
      const std::vector<double> v = r.vec();
      if (v.size() != static_cast<size_t>(rows) * cols) {
        throw StoreError("stored analysis: gradient of " + name + " has a wrong size");
      }
      c.gradients[name] = Eigen::Map<const Eigen::MatrixXd>(v.data(), rows, cols);
    }
  }
  if (!r.done()) throw StoreError("stored analysis: trailing bytes");
  return e;
}

// A cycle row of a version-1 store: the record's fields under their C++ names, vectors as
// arrays, non-finite numbers as "nan", "inf", "-inf". Read only, to resume runs stored by 0.1.
CycleRecord cycle_from_version_1(const nlohmann::json& j) {
  CycleRecord r;
  r.cycle = j.at("cycle").get<int>();
  r.accepted = j.at("accepted").get<bool>();
  r.converged = j.at("converged").get<bool>();
  r.relaxed = j.at("relaxed").get<bool>();
  r.subproblem = j.at("subproblem").get<std::string>();
  r.active_move_limits = j.at("active_move_limits").get<int>();
  r.retained_constraints = j.at("retained_constraints").get<int>();
  r.retained_rows = j.at("retained_rows").get<int>();
  r.x0 = exact_numbers_from(j.at("x0"));
  r.x_opt = exact_numbers_from(j.at("x_opt"));
  r.F0 = exact_number_from(j.at("F0"));
  r.F_opt = exact_number_from(j.at("F_opt"));
  r.F_approx = exact_number_from(j.at("F_approx"));
  r.Ef = exact_number_from(j.at("Ef"));
  r.Eg = exact_number_from(j.at("Eg"));
  r.E = exact_number_from(j.at("E"));
  r.V = exact_number_from(j.at("V"));
  r.Fchg = exact_number_from(j.at("Fchg"));
  r.factors = exact_numbers_from(j.at("factors"));
  r.next_factors = exact_numbers_from(j.at("next_factors"));
  for (const auto& a : j.at("actions")) r.actions.push_back(static_cast<MoveAction>(a.get<int>()));
  r.analyses = j.at("analyses").get<int>();
  r.fit_points = j.at("fit_points").get<int>();
  r.noise_estimate = exact_number_from(j.at("noise_estimate"));
  r.message = j.at("message").get<std::string>();
  return r;
}

// --- the store ---

StudyStore::StudyStore(const std::string& path, bool create) : path_(path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  const bool empty = exists && fs::is_regular_file(path, ec) && fs::file_size(path, ec) == 0;
  if (exists && !fs::is_regular_file(path, ec)) {
    throw StoreError(path + ": not a study store (not a regular file)");
  }
  if (!exists && !create) throw StoreError(path + ": no study store here");
  if (exists && !empty) {
    // Read the header ourselves: SQLite would happily treat some foreign files as databases.
    char header[16] = {};
    std::ifstream in(path, std::ios::binary);
    in.read(header, sizeof header);
    if (!in || std::memcmp(header, "SQLite format 3", 16) != 0) {
      throw StoreError(path +
                       ": not a study store (not an SQLite database: a foreign or corrupted "
                       "file); nothing was changed");
    }
  }
  const bool fresh = !exists || empty;
  const int flags = SQLITE_OPEN_READWRITE | (fresh ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw StoreError(path + ": cannot open the study store: " + why);
  }
  sqlite3_busy_timeout(db_, 10000);
  try {
    if (fresh) {
      exec("PRAGMA journal_mode=WAL");
      exec("BEGIN IMMEDIATE");
      exec(kSchema);
      Statement(db_, "INSERT INTO meta VALUES ('format', ?1)").bind(1, std::string(kFormat)).run();
      Statement(db_, "INSERT INTO meta VALUES ('version', ?1)")
          .bind(1, std::to_string(kVersion))
          .run();
      Statement(db_, "INSERT INTO meta VALUES ('created', ?1)").bind(1, now_utc()).run();
      exec("COMMIT");
    } else {
      // Validate before anything writes (setting the journal mode writes the header).
      std::string format, version;
      try {
        Statement q(db_, "SELECT key, value FROM meta WHERE key IN ('format', 'version')");
        while (q.row()) (q.text(0) == "format" ? format : version) = q.text(1);
      } catch (const StoreError& e) {
        throw StoreError(path + ": not a study store (" + e.what() + "); nothing was changed");
      }
      if (format != kFormat) {
        throw StoreError(path + ": not a study store (an SQLite database of another program); " +
                         "nothing was changed");
      }
      const int found = std::atoi(version.c_str());
      if (found < kOldestReadable || found > kVersion || version != std::to_string(found)) {
        throw StoreError(path + ": study store format version " + version +
                         ", this program reads " + std::to_string(kOldestReadable) + " to " +
                         std::to_string(kVersion) + "; nothing was changed");
      }
      {
        Statement check(db_, "PRAGMA quick_check");
        const std::string verdict = check.row() ? check.text(0) : "no answer";
        if (verdict != "ok") {
          throw StoreError(path + ": study store is corrupted (" + verdict +
                           "); nothing was changed");
        }
      }
      exec("PRAGMA journal_mode=WAL");
      if (found < kVersion) {  // rows written from now on are of the current form
        Statement(db_, "UPDATE meta SET value = ?1 WHERE key = 'version'")
            .bind(1, std::to_string(kVersion))
            .run();
      }
    }
    // NORMAL in WAL mode: a killed process loses nothing committed (a power loss may lose the
    // last transactions, never the consistency).
    exec("PRAGMA synchronous=NORMAL");
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

StudyStore::~StudyStore() {
  if (db_) sqlite3_close(db_);
}

void StudyStore::exec(const char* sql) const {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string what = error ? error : sqlite3_errmsg(db_);
    sqlite3_free(error);
    throw StoreError(path_ + ": " + what);
  }
}

std::vector<Evaluation> StudyStore::lookup(const Eigen::VectorXd& design, bool gradients) {
  Statement q(db_,
              "SELECT result FROM analyses WHERE inputs_hash = ?1 AND design = ?2 AND ok = 1 "
              "AND gradients >= ?3 ORDER BY gradients ASC, id DESC");
  q.bind(1, inputs_).blob(2, design_blob(design)).bind(3, gradients ? 1 : 0);
  std::vector<Evaluation> out;
  while (q.row()) out.push_back(decode_evaluation(q.text(0)));
  return out;
}

void StudyStore::save(const Eigen::VectorXd& design,
                      const std::vector<DerivativeRequest>& derivatives, const Evaluation& e) {
  nlohmann::json named = nlohmann::json::array();
  for (int i = 0; i < design.size(); ++i) named.push_back(exact_number(design(i)));
  Statement q(db_,
              "INSERT INTO analyses (inputs_hash, design, design_json, gradients, derivatives, ok, "
              "message, runs, seconds, finished, branch, result) "
              "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
  q.bind(1, inputs_)
      .blob(2, design_blob(design))
      .bind(3, named.dump())
      .bind(4, e.has_gradients ? 1 : 0)
      .bind(5, derivatives_json(derivatives).dump())
      .bind(6, e.ok ? 1 : 0)
      .bind(7, e.message)
      .bind(8, e.cost.runs)
      .bind(9, e.cost.wall_seconds)
      .bind(10, unix_seconds())
      .bind(11, branch_for_saves)
      .blob(12, encode_evaluation(e));
  q.run();  // one statement: its own transaction
}

int StudyStore::add_study(const nlohmann::json& document, const std::string& source, int start) {
  Statement q(db_,
              "INSERT INTO studies (document, source, start, inputs_hash, created) "
              "VALUES (?1, ?2, ?3, ?4, ?5)");
  q.bind(1, document.dump()).bind(2, source).bind(3, start).bind(4, inputs_).bind(5, now_utc());
  q.run();
  return static_cast<int>(sqlite3_last_insert_rowid(db_));
}

StoredStudy StudyStore::study(int id) const {
  Statement q(db_, "SELECT document, source, start FROM studies WHERE id = ?1");
  q.bind(1, id);
  if (!q.row()) throw StoreError(path_ + ": no study " + std::to_string(id));
  StoredStudy s;
  s.id = id;
  try {
    s.document = nlohmann::json::parse(q.text(0));
  } catch (const nlohmann::json::exception& e) {
    throw StoreError(path_ + ": stored study " + std::to_string(id) + " is not JSON: " + e.what());
  }
  s.source = q.text(1);
  s.start = q.integer(2);
  return s;
}

int StudyStore::add_branch(int parent, int from_cycle, int study) {
  Statement q(db_,
              "INSERT INTO branches (parent, from_cycle, study, status, message, created) "
              "VALUES (?1, ?2, ?3, 'running', '', ?4)");
  q.bind(1, parent).bind(2, from_cycle).bind(3, study).bind(4, now_utc());
  q.run();
  return static_cast<int>(sqlite3_last_insert_rowid(db_));
}

std::vector<BranchInfo> StudyStore::branches() const {
  Statement q(db_,
              "SELECT id, parent, from_cycle, study, status, message, created FROM branches "
              "ORDER BY id");
  std::vector<BranchInfo> out;
  while (q.row()) {
    out.push_back(
        {q.integer(0), q.integer(1), q.integer(2), q.integer(3), q.text(4), q.text(5), q.text(6)});
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
  Statement q(db_, "UPDATE branches SET status = ?1, message = ?2 WHERE id = ?3");
  q.bind(1, status).bind(2, message).bind(3, branch);
  q.run();
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
    }
    exec("COMMIT");
  } catch (...) {
    exec("ROLLBACK");
    throw;
  }
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
  Statement q(db_,
              "INSERT OR REPLACE INTO cycles (branch, cycle, record, settings, created) "
              "VALUES (?1, ?2, ?3, ?4, ?5)");
  q.bind(1, branch)
      .bind(2, record.cycle)
      .bind(3, stored.dump())
      .bind(4, settings.dump())
      .bind(5, now_utc());
  q.run();
}

std::vector<StoredCycle> StudyStore::cycles(int branch) const {
  Statement q(db_, "SELECT record, settings FROM cycles WHERE branch = ?1 ORDER BY cycle");
  q.bind(1, branch);
  std::vector<StoredCycle> out;
  while (q.row()) {
    try {
      const nlohmann::json stored = nlohmann::json::parse(q.text(0));
      CycleRecord record;
      if (stored.contains("record")) {
        const auto variables = stored.at("variables").get<std::vector<std::string>>();
        record = cycle_record_from_json(stored.at("record"), variables);
      } else {
        record = cycle_from_version_1(stored);  // written by a version-1 store
      }
      out.push_back({branch, std::move(record), nlohmann::json::parse(q.text(1))});
    } catch (const std::exception& e) {
      throw StoreError(path_ + ": stored cycle of branch " + std::to_string(branch) +
                       " is unreadable: " + e.what());
    }
  }
  return out;
}

void StudyStore::delete_cycles_from(int branch, int cycle) {
  Statement q(db_, "DELETE FROM cycles WHERE branch = ?1 AND cycle >= ?2");
  q.bind(1, branch).bind(2, cycle);
  q.run();
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
