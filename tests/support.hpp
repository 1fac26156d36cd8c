// Helpers the tests share: a fresh scratch folder per test, reading a file whole, running
// a command through the shell, and what a call logs.
#pragma once

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>

namespace sao::testing {

// SAO_BINARY_DIR/<group>/<name>, emptied and created (name: the running test's by default).
inline std::filesystem::path scratch_directory(const std::string& group,
                                               const std::string& name = {}) {
  const std::string leaf =
      name.empty() ? ::testing::UnitTest::GetInstance()->current_test_info()->name() : name;
  const std::filesystem::path dir = std::filesystem::path(SAO_BINARY_DIR) / group / leaf;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// The whole file as bytes ("" when it cannot be opened).
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct CommandOutput {
  int code = -1;     // exit status; -1 when it did not exit normally
  std::string text;  // what the command wrote to stdout (redirect stderr in `command`)
};

// Runs `command` through /bin/sh and collects its output and exit status.
inline CommandOutput run_command(const std::string& command) {
  CommandOutput out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.text.append(buf, n);
  const int status = pclose(pipe);
  out.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

// What `body` logs through spdlog's default logger at `level` and above; the logger and level
// are restored afterwards.
template <class Body>
std::string captured_log(spdlog::level::level_enum level, Body body) {
  std::ostringstream log;
  const auto previous = spdlog::default_logger();
  const auto previous_level = spdlog::get_level();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>(
      "capture", std::make_shared<spdlog::sinks::ostream_sink_st>(log)));
  spdlog::set_level(level);
  body();
  spdlog::set_level(previous_level);
  spdlog::set_default_logger(previous);
  return log.str();
}

}  // namespace sao::testing
