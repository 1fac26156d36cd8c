// The study store as a JobLedger (sao/seam/executor.hpp, docs/cluster.md): the batch jobs
// submitted for runs, so that a resumed run re-attaches to them. Table `jobs`, added to a store
// of any version opened for writing (older programs ignore it); one transaction per submission.
// Each row carries a checksum (store_integrity.cpp), checked when the store is opened.
#include <sqlite3.h>

#include <ctime>

#include "sao/store/sqlite_statement.hpp"
#include "sao/store/store.hpp"

namespace sao {
using sqlite::now_utc;
using sqlite::Statement;

void StudyStore::create_jobs_table() {
  exec(
      "CREATE TABLE IF NOT EXISTS jobs (inputs_hash TEXT NOT NULL, key TEXT NOT NULL, "
      "job_id TEXT NOT NULL, directory TEXT NOT NULL, submitted TEXT NOT NULL, "
      "checksum TEXT NOT NULL DEFAULT '', PRIMARY KEY (inputs_hash, key))");
}

std::optional<JobLedger::Entry> StudyStore::find_job(const std::string& key) {
  if (read_only_) return std::nullopt;
  Statement q(db_, "SELECT job_id, directory FROM jobs WHERE inputs_hash = ?1 AND key = ?2");
  q.bind(1, inputs_).bind(2, key);
  if (!q.row()) return std::nullopt;
  return Entry{q.text(0), q.text(1)};
}

void StudyStore::record_jobs(const std::vector<std::pair<std::string, Entry>>& jobs) {
  if (read_only_ || jobs.empty()) return;
  exec("BEGIN IMMEDIATE");
  try {
    const std::string now = now_utc();
    for (const auto& [key, entry] : jobs) {
      Statement(db_,
                "INSERT OR REPLACE INTO jobs (inputs_hash, key, job_id, directory, submitted) "
                "VALUES (?1, ?2, ?3, ?4, ?5)")
          .bind(1, inputs_)
          .bind(2, key)
          .bind(3, entry.job_id)
          .bind(4, entry.directory)
          .bind(5, now)
          .run();
      seal("jobs", sqlite3_last_insert_rowid(db_));
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
  Statement q(db_, "SELECT COUNT(*) FROM jobs");
  return q.row() ? q.integer(0) : 0;
}

}  // namespace sao
