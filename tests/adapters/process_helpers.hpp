// Helpers of the process-tree tests (process_tree_test.cpp, external_simulator_test.cpp):
// whether a process is still there, pids written by tests/adapters/programs/fake_code, and a
// process marked with a SAO_RUN_ID cookie as a run of another `sao` would leave it.
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "adapters/process_tree.hpp"
#include "tests/support.hpp"

namespace sao::adapters::tree_helpers {

// True while /proc/<pid> exists (a zombie counts: it has not been reaped).
inline bool exists(pid_t pid) {
  return std::filesystem::exists("/proc/" + std::to_string(pid));
}

// Waits up to 5 s for the process to be gone (killed and reaped).
inline bool gone(pid_t pid) {
  for (int i = 0; i < 250 && exists(pid); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !exists(pid);
}

inline pid_t pid_in(const std::filesystem::path& file) {
  std::ifstream in(file);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

// `sleep 100` with SAO_RUN_ID=cookie, as a run of another `sao` would leave it.
inline pid_t start_marked_sleeper(const std::string& cookie) {
  const std::string env = std::string(kRunCookie) + "=" + cookie;
  char* const argv[] = {const_cast<char*>("sleep"), const_cast<char*>("100"), nullptr};
  char* const envp[] = {const_cast<char*>(env.c_str()), nullptr};
  pid_t pid = 0;
  if (::posix_spawn(&pid, "/bin/sleep", nullptr, nullptr, argv, envp) != 0) return 0;
  // The new environment shows in /proc once the exec has completed (posix_spawn returns a
  // little earlier).
  const std::string environ = "/proc/" + std::to_string(pid) + "/environ";
  for (int i = 0; i < 500 && sao::testing::read_file(environ).empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return pid;
}

}  // namespace sao::adapters::tree_helpers
