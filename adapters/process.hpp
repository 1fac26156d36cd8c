// Running one external program (Boost.Process): an argument list (never a shell unless the
// study asks for one, and then the command is fixed text), an environment, a working
// directory, stdout and stderr to files, and a time limit after which the whole process tree
// (the program and everything it started, found by its SAO_RUN_ID cookie, process_tree.hpp) is
// killed. The program gets PR_SET_PDEATHSIG(SIGKILL): it dies with `sao`. Whatever it leaves
// running when it exits is killed as well.
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
  std::vector<std::string> environment_allowlist;  // non-empty: only these are inherited
  std::filesystem::path directory;                 // working directory (must exist)
  std::filesystem::path stdout_file;               // created / truncated
  std::filesystem::path stderr_file;
  double timeout_seconds = 0.0;  // 0: no limit
  // The cookie SAO_RUN_ID set in the environment of the program and so of everything it starts
  // (process_tree.hpp); "" for none. With it, the whole tree is killed when the program ends,
  // times out or `sao` is interrupted, including descendants that left its process group.
  std::string run_id;
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

// A short command whose output is wanted (sbatch, squeue, sacct, scancel): an argument list,
// this process's environment, stdout and stderr captured (a few kilobytes). Not for the codes'
// runs; never a shell. Safe to call while an interrupt is being handled.
struct CapturedRun {
  bool started = false;
  int exit_code = -1;  // -1 when it did not exit normally
  std::string out, err;
  std::string error;  // why it did not start
};
CapturedRun run_capture(const std::filesystem::path& program,
                        const std::vector<std::string>& arguments);

// "exit status 3", "killed by signal 11 (Segmentation fault)", "timed out after 2 s (process
// tree killed)", "could not start: ...".
std::string describe(const ProcessResult& result);

// The absolute path of an executable: `name` with a '/' is taken relative to `base`;
// otherwise it is searched in PATH. Empty when there is no such executable file.
std::filesystem::path find_program(const std::string& name, const std::filesystem::path& base);

}  // namespace sao::adapters
