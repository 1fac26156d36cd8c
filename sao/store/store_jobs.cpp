// The study store as a JobLedger (sao/seam/executor.hpp, docs/cluster.md): the batch jobs
// submitted for runs, so that a resumed run re-attaches to them. Table `jobs`, added to a store
// of any version opened for writing (older programs ignore it); one transaction per submission.
#include <sqlite3.h>

#include <ctime>

#include "sao/store/store.hpp"

namespace sao {
namespace {

// A prepared statement that finalises itself; errors name the store.
struct Query {
  Query(sqlite3* db, const char* sql) : db(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK) fail("prepare");
  }
  ~Query() { sqlite3_finalize(stmt); }
  Query& text(int i, const std::string& v) {
    if (sqlite3_bind_text(stmt, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT) !=
        SQLITE_OK) {
      fail("bind");
    }
    return *this;
  }
  bool row() {
    const int rc = sqlite3_step(stmt);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) fail("step");
    return rc == SQLITE_ROW;
  }
  std::string column(int c) const {
    const auto* p = sqlite3_column_text(stmt, c);
    return p ? reinterpret_cast<const char*>(p) : "";
  }
  [[noreturn]] void fail(const char* what) const {
    const int code = sqlite3_errcode(db) & 0xff;
    const std::string why = std::string("jobs table: ") + what + ": " + sqlite3_errmsg(db);
    if (code == SQLITE_BUSY || code == SQLITE_FULL || code == SQLITE_IOERR) throw StoreIoError(why);
    throw StoreError(why);
  }
  sqlite3* db;
  sqlite3_stmt* stmt = nullptr;
};

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

void StudyStore::create_jobs_table() {
  exec(
      "CREATE TABLE IF NOT EXISTS jobs (inputs_hash TEXT NOT NULL, key TEXT NOT NULL, "
      "job_id TEXT NOT NULL, directory TEXT NOT NULL, submitted TEXT NOT NULL, "
      "PRIMARY KEY (inputs_hash, key))");
}

std::optional<JobLedger::Entry> StudyStore::find_job(const std::string& key) {
  if (read_only_) return std::nullopt;
  Query q(db_, "SELECT job_id, directory FROM jobs WHERE inputs_hash = ?1 AND key = ?2");
  q.text(1, inputs_).text(2, key);
  if (!q.row()) return std::nullopt;
  return Entry{q.column(0), q.column(1)};
}

void StudyStore::record_jobs(const std::vector<std::pair<std::string, Entry>>& jobs) {
  if (read_only_ || jobs.empty()) return;
  exec("BEGIN IMMEDIATE");
  try {
    const std::string now = now_utc();
    for (const auto& [key, entry] : jobs) {
      Query(db_, "INSERT OR REPLACE INTO jobs VALUES (?1, ?2, ?3, ?4, ?5)")
          .text(1, inputs_)
          .text(2, key)
          .text(3, entry.job_id)
          .text(4, entry.directory)
          .text(5, now)
          .row();
    }
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

int StudyStore::job_count() const {
  if (sqlite3_exec(db_, "SELECT 1 FROM jobs LIMIT 1", nullptr, nullptr, nullptr) != SQLITE_OK) {
    return 0;
  }
  Query q(db_, "SELECT COUNT(*) FROM jobs");
  return q.row() ? std::stoi(q.column(0)) : 0;
}

}  // namespace sao
