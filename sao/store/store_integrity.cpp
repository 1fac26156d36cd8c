// The checksums of the study store's tables that cannot be rebuilt (version 4, row lists 5): the
// study documents, the branches, the settings changes, the batch jobs and the store's own `meta`
// rows. Analyses and cycle records have their own checksums (store.cpp): a damaged one is
// removed and analysed again or rebuilt by the replay. The rows here hold what the user asked
// for (a study, a `sao set`, a restart), which no replay can recompute; a row that fails its
// checksum makes the store unusable: every command that opens it is refused with a StoreError
// (exit 2) naming the table and the row, and nothing is written to it.
//
// A row's checksum is SHA-256 (record_checksum) of the table's name and its columns as SQLite
// reads them back (integers in decimal), written by seal() in the transaction of the change.
// Since version 5, `meta` also keeps each table's row list, `rows.TABLE`: the checksum of its
// rows' (rowid, checksum) pairs in rowid order, rewritten with every change of the table, so
// that a row deleted (or added with a valid checksum) outside sao is refused too. `meta` has
// one row `checksum` over every other (key, value) pair, ordered by key.
#include <sqlite3.h>

#include <string>
#include <vector>

#include "sao/store/sqlite_statement.hpp"
#include "sao/store/store.hpp"
#include "sao/store/store_records.hpp"

namespace sao {
namespace {

using sqlite::Statement;

struct SealedTable {
  const char* name;
  const char* columns;  // every column but `checksum`, in the order they are hashed
};

constexpr SealedTable kSealedTables[] = {
    {"meta", nullptr},  // the checksum row, below
    {"studies", "id, document, source, start, inputs_hash, created"},
    {"branches", "id, parent, from_cycle, study, status, message, created"},
    {"settings_changes", "id, branch, cycle, assignment, created"},
    {"jobs", "inputs_hash, key, job_id, directory, submitted"},
    // Added to version 5 without a new version (older programs ignore it): a store opened only
    // by programs before it has no such table, and then no row list for it either.
    {"does", "id, branch, inputs_hash, settings, points, notes, created"},
};

// The checksum of the row whose columns start at column `first` of `q` (`count` of them).
std::string row_checksum(const char* table, const Statement& q, int first, int count) {
  std::vector<std::string> values{table};
  for (int c = first; c < first + count; ++c) values.push_back(q.text(c));
  return record_checksum({values.begin(), values.end()});
}

int column_count(const char* columns) {
  int n = 1;
  for (const char* p = columns; *p; ++p) n += *p == ',';
  return n;
}

}  // namespace

std::string StudyStore::table_digest(const char* table) const {
  Statement q(db_,
              (std::string("SELECT rowid, checksum FROM ") + table + " ORDER BY rowid").c_str());
  std::vector<std::string> values{std::string("rows.") + table};
  while (q.row()) {
    values.push_back(q.text(0));
    values.push_back(q.text(1));
  }
  return record_checksum({values.begin(), values.end()});
}

void StudyStore::seal_rows(const char* table) {
  Statement(db_, "INSERT OR REPLACE INTO meta VALUES (?1, ?2)")
      .bind(1, std::string("rows.") + table)
      .bind(2, table_digest(table))
      .run();
  seal_meta();
}

void StudyStore::seal_row_lists() {
  for (const SealedTable& t : kSealedTables) {
    if (t.columns && has_table(t.name)) seal_rows(t.name);
  }
}

std::string StudyStore::meta_checksum() const {
  Statement q(db_, "SELECT key, value FROM meta WHERE key != 'checksum' ORDER BY key");
  std::vector<std::string> values{"meta"};
  while (q.row()) {
    values.push_back(q.text(0));
    values.push_back(q.text(1));
  }
  return record_checksum({values.begin(), values.end()});
}

void StudyStore::seal_meta() {
  Statement(db_, "INSERT OR REPLACE INTO meta VALUES ('checksum', ?1)")
      .bind(1, meta_checksum())
      .run();
}

void StudyStore::seal(const char* table, long long rowid) {
  for (const SealedTable& t : kSealedTables) {
    if (std::string(t.name) != table || !t.columns) continue;
    std::string sum;
    {  // the row as SQLite reads it back (the statement ends before the update)
      const std::string select =
          std::string("SELECT ") + t.columns + " FROM " + t.name + " WHERE rowid = ?1";
      Statement q(db_, select.c_str());
      q.bind64(1, rowid);
      if (!q.row()) return;
      sum = row_checksum(t.name, q, 0, column_count(t.columns));
    }
    const std::string update =
        std::string("UPDATE ") + t.name + " SET checksum = ?1 WHERE rowid = ?2";
    Statement(db_, update.c_str()).bind(1, sum).bind64(2, rowid).run();
    seal_rows(t.name);
    return;
  }
  throw std::logic_error(std::string("StudyStore::seal: no sealed table ") + table);
}

void StudyStore::in_transaction(const std::function<void()>& change) {
  exec("SAVEPOINT sealed_change");
  try {
    change();
    exec("RELEASE sealed_change");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK TO sealed_change; RELEASE sealed_change", nullptr, nullptr,
                 nullptr);
    throw;
  }
}

int StudyStore::seal_all() {
  int rows = 0;
  for (const SealedTable& t : kSealedTables) {
    if (!t.columns || !has_table(t.name)) continue;
    if (!has_column(t.name, "checksum")) {
      const std::string alter =
          std::string("ALTER TABLE ") + t.name + " ADD COLUMN checksum TEXT NOT NULL DEFAULT ''";
      exec(alter.c_str());
    }
    std::vector<long long> rowids;
    {
      Statement q(db_, (std::string("SELECT rowid FROM ") + t.name).c_str());
      while (q.row()) rowids.push_back(q.integer64(0));
    }
    for (long long rowid : rowids) seal(t.name, rowid);
    seal_rows(t.name);  // also for a table without rows
    rows += static_cast<int>(rowids.size());
  }
  return rows;
}

int StudyStore::unsealed_rows() const {
  int rows = 0;
  for (const SealedTable& t : kSealedTables) {
    if (!t.columns || !has_table(t.name)) continue;
    Statement q(db_, (std::string("SELECT COUNT(*) FROM ") + t.name).c_str());
    rows += q.row() ? q.integer(0) : 0;
  }
  return rows;
}

void StudyStore::verify_sealed(int version) const {
  const char* why =
      "; the store is not used (this table cannot be rebuilt from the stored "
      "analyses: restore the file from a backup, or start a new study folder); "
      "nothing was changed";
  Statement meta(db_, "SELECT value FROM meta WHERE key = 'checksum'");
  const std::string stored = meta.row() ? meta.text(0) : "";
  if (stored != meta_checksum()) {
    throw StoreError(path_ +
                     ": table meta: " + (stored.empty() ? "no checksum" : "checksum mismatch") +
                     " (format, version or creation time changed outside sao, or a damaged "
                     "file)" +
                     why);
  }
  for (const SealedTable& t : kSealedTables) {
    if (!t.columns) continue;
    if (!has_table(t.name)) {  // does, in a store no `sao doe` has opened: no row list either
      Statement listed(db_, "SELECT COUNT(*) FROM meta WHERE key = ?1");
      listed.bind(1, std::string("rows.") + t.name);
      if (listed.row() && listed.integer(0) == 0) continue;
      throw StoreError(path_ + ": table " + t.name +
                       " is missing but table meta lists its rows (deleted outside sao, or a "
                       "damaged file)" +
                       why);
    }
    const std::string select =
        std::string("SELECT rowid, checksum, ") + t.columns + " FROM " + t.name + " ORDER BY rowid";
    Statement q(db_, select.c_str());
    while (q.row()) {
      const std::string sum = q.text(1);
      if (sum == row_checksum(t.name, q, 2, column_count(t.columns))) continue;
      throw StoreError(path_ + ": table " + t.name + ", row " + std::to_string(q.integer64(0)) +
                       ": " + (sum.empty() ? "no checksum" : "checksum mismatch") +
                       " (changed outside sao, or a damaged file)" + why);
    }
    if (version < 5) continue;  // no row lists before version 5
    Statement rows(db_, "SELECT value FROM meta WHERE key = ?1");
    rows.bind(1, std::string("rows.") + t.name);
    const std::string kept = rows.row() ? rows.text(0) : "";
    if (kept != table_digest(t.name)) {
      throw StoreError(
          path_ + ": table " + t.name + ": " +
          (kept.empty() ? "no row list in table meta" : "its rows are not those table meta lists") +
          " (a row deleted or added outside sao, or a damaged file)" + why);
    }
  }
}

bool StudyStore::has_table(const char* table) const {
  Statement q(db_, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1");
  q.bind(1, std::string(table));
  return q.row() && q.integer(0) > 0;
}

bool StudyStore::has_column(const char* table, const char* column) const {
  Statement q(db_, "SELECT COUNT(*) FROM pragma_table_info(?1) WHERE name = ?2");
  q.bind(1, std::string(table)).bind(2, std::string(column));
  return q.row() && q.integer(0) > 0;
}

}  // namespace sao
