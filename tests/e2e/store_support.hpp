// Helpers of the tests that drive the built `sao` on a study store (store_cli_test.cpp,
// store_damage_test.cpp, exit_codes_test.cpp): running the command, reading and changing a
// store with SQLite's C API, reading a result file.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support.hpp"

namespace sao::testing {

inline const std::string kSao = std::string(SAO_BINARY_DIR) + "/sao";
inline const std::string kProblems = std::string(SAO_SOURCE_DIR) + "/problems/";

// Runs `sao ARGS` through the shell and returns its exit code and output (stdout and stderr).
inline CommandOutput sao(const std::string& args) {
  return run_command(kSao + " " + args + " 2>&1");
}

inline nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// One integer from a query on a store (-1 when it cannot be read); `attach`: statements run
// first (ATTACH 'other.sqlite' AS s1; to query several stores at once).
inline int query(const std::filesystem::path& store, const std::string& sql,
                 const std::string& attach = "") {
  sqlite3* db = nullptr;
  int value = -1;
  if (sqlite3_open_v2(store.string().c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK &&
      sqlite3_exec(db, attach.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
      value = sqlite3_column_int(stmt, 0);
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return value;
}

// Runs SQL statements on a store (a test failure when they fail).
inline void execute(const std::filesystem::path& store, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(store.string().c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error ? error : "") << "\n"
      << sql;
  sqlite3_free(error);
  sqlite3_close(db);
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Starts `sao` with `args` (output discarded); returns its pid.
inline pid_t spawn_sao(const std::vector<std::string>& args) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::FILE* null = std::fopen("/dev/null", "w");
    dup2(fileno(null), 1);
    dup2(fileno(null), 2);
    std::vector<char*> argv{const_cast<char*>(kSao.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(kSao.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

// The prefix that runs a command as an unprivileged user when the tests run as root (root
// ignores file permissions, so read-only files and folders would not be read-only to it).
inline std::string as_unprivileged() {
  return ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
}

}  // namespace sao::testing
