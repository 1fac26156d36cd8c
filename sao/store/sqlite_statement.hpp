// The study store's SQLite helpers, shared by its files (store.cpp, store_jobs.cpp): a prepared
// statement with RAII, the one mapping of SQLite errors to StoreError / StoreIoError, and the
// UTC time stamps the tables keep. Internal to sao/store/.
#pragma once

#include <sqlite3.h>

#include <string>

#include "sao/store/store.hpp"

namespace sao::sqlite {

// An SQLite error as StoreIoError when it stops the store being used now (disk full, I/O,
// read-only, busy), else as StoreError; both name the store's file.
[[noreturn]] void throw_error(sqlite3* db, const std::string& what);

// Now, as "YYYY-MM-DDTHH:MM:SSZ".
std::string now_utc();

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
  Statement& bind64(int i, long long v) {
    check(sqlite3_bind_int64(stmt_, i, v));
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
  long long integer64(int c) const { return sqlite3_column_int64(stmt_, c); }
  double real(int c) const { return sqlite3_column_double(stmt_, c); }
  std::string text(int c) const {
    const auto* p = sqlite3_column_blob(stmt_, c);
    return p ? std::string(static_cast<const char*>(p), sqlite3_column_bytes(stmt_, c)) : "";
  }

 private:
  void check(int rc) {
    if (rc != SQLITE_OK) fail("bind");
  }
  [[noreturn]] void fail(const char* what) const { throw_error(db_, what); }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace sao::sqlite
