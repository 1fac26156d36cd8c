// The exit codes of every `sao` command, and the one place where errors become them:
// 0 converged (run) or valid; 1 a run that ended without convergence (cycle limit,
// infeasible, stalled); 2 bad input or usage (study file, command line, a file that is not a
// study store); 3 a failed run or analysis, or I/O: a file that could not be written, a store
// that is busy (another sao), read-only for a command that writes, or on a full disk.
// The README's table of exit codes is the user's form of this.
#pragma once

#include <functional>
#include <iostream>
#include <stdexcept>

#include "sao/optimizer/driver.hpp"
#include "sao/store/store.hpp"
#include "sao/study/study_loader.hpp"

namespace sao::cli {

enum ExitCode : int { kOk = 0, kNotConverged = 1, kBadInput = 2, kFailed = 3 };

// A bad value on the command line (e.g. a malformed --vary): exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline int exit_code(RunStatus status) {
  switch (status) {
    case RunStatus::kConverged:
      return kOk;
    case RunStatus::kFailed:
      return kFailed;
    default:
      return kNotConverged;
  }
}

// Runs one command and returns its exit code; an exception is printed as "error: ..." and
// mapped: StoreIoError to 3 first, then StudyError, StoreError and UsageError to 2, anything
// else (FileWriteError, a failed analysis, ...) to 3.
inline int run_guarded(const std::function<int()>& command) {
  try {
    return command();
  } catch (const StoreIoError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kFailed;
  } catch (const StudyError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kBadInput;
  } catch (const StoreError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kBadInput;
  } catch (const UsageError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kFailed;
  }
}

}  // namespace sao::cli
