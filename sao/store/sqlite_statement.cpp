#include "sao/store/sqlite_statement.hpp"

#include <ctime>

namespace sao::sqlite {

void throw_error(sqlite3* db, const std::string& what) {
  const char* file = sqlite3_db_filename(db, "main");
  const std::string where = std::string(file && *file ? file : "study store") + ": ";
  const std::string detail = what + ": " + sqlite3_errmsg(db);
  switch (sqlite3_errcode(db) & 0xff) {
    case SQLITE_FULL:
      throw StoreIoError(where + "disk full, the store cannot grow (" + detail + ")");
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
      throw StoreIoError(where + "I/O error (" + detail + ")");
    case SQLITE_READONLY:
      throw StoreIoError(where + "read-only (" + detail +
                         "); `sao status` and `sao report` can read it");
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      throw StoreBusyError(where + "busy, in use by another process (" + detail + ")");
    default:
      throw StoreError(where + detail);
  }
}

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace sao::sqlite
