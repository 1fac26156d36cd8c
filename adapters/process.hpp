// Running one external program (Boost.Process): an argument list (never a shell unless the
// study asks for one, and then the command is fixed text), an environment, a working
// directory, stdout and stderr to files, and a time limit after which the whole process group
// (the program and everything it started) is killed.
//
// Failures to start, non-zero exits, signals and time-outs are values (ProcessResult), never
// exceptions, so a failing code cannot take the driver down.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace sao::adapters {

struct ProcessSpec {
  std::filesystem::path program;  // absolute path of the executable
  std::vector<std::string> arguments;
  std::map<std::string, std::string> environment;  // set (or replaced) for the child
  bool inherit_environment = true;                 // start from this process's environment
  std::filesystem::path directory;                 // working directory (must exist)
  std::filesystem::path stdout_file;               // created / truncated
  std::filesystem::path stderr_file;
  double timeout_seconds = 0.0;  // 0: no limit
};

struct ProcessResult {
  bool started = false;
  bool timed_out = false;
  bool signaled = false;
  int exit_code = -1;  // when it exited normally
  int signal = 0;      // when signaled
  double seconds = 0.0;
  std::string error;  // why it did not start
};

ProcessResult run_process(const ProcessSpec& spec);

// "exit status 3", "killed by signal 11 (Segmentation fault)", "timed out after 2 s (process
// group killed)", "could not start: ...".
std::string describe(const ProcessResult& result);

// The absolute path of an executable: `name` with a '/' is taken relative to `base`;
// otherwise it is searched in PATH. Empty when there is no such executable file.
std::filesystem::path find_program(const std::string& name, const std::filesystem::path& base);

}  // namespace sao::adapters
