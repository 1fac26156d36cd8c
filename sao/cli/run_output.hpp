// What `sao run` and `sao step` print while they work (issue 26, item 4):
//   - the cycle table (one row per cycle) and the result, always (JSON lines with --json);
//   - the progress of the analyses: by default a single line updated in place (carriage
//     return, at most five times a second) when stdout is a terminal, nothing when it is not
//     (a pipe, a file, a test); `--progress lines` prints one line per batch as before,
//     `--progress none` nothing; with --json the "analyses" events are on unless
//     `--progress none`;
//   - with `--log info`, each cycle in words on stderr (cycle_in_words).
#pragma once

#include <chrono>
#include <string>

#include "sao/optimizer/driver.hpp"
#include "sao/store/study_session.hpp"

namespace sao::cli {

// How run prints its progress.
enum class Output { kTable, kQuiet, kJson };
// How the progress of the analyses is shown (--progress).
enum class Progress { kAuto, kBar, kLines, kNone };

// kAuto resolved: kBar on a terminal, kNone otherwise.
Progress resolve_progress(Progress progress);

// "cycle 3: proposal accepted (actual/predicted 0.92), move limits grown (b1 0.2 -> 0.4), 2
// constraints retained, largest violation -1.2 %": what the cycle did, for --log info.
std::string cycle_in_words(const Study& study, const CycleRecord& record);
// "; at the design it continues from, active constraints: a, b" (within kActiveTolerance of
// their bound, sao/report/result_file.hpp), from the session's analysis of that design ("" without
// one).
std::string active_constraints(const StudySession& session, const CycleRecord& record);

// The one printer of a run's cycles: the study line and the table header before the first
// record, the start design as row 0 (when the run starts at cycle 1), then one row per cycle
// (only the converged one when quiet), or one JSON line per cycle. Logs cycle_in_words and
// active_constraints at info.
class ProgressPrinter;
class CyclePrinter {
 public:
  // `progress`: its updating line is cleared before a row is printed (may be null).
  CyclePrinter(const StudySession& session, Output output, ProgressPrinter* progress = nullptr)
      : session_(session), output_(output), progress_(progress) {}
  void operator()(const CycleRecord& record);

 private:
  const StudySession& session_;
  Output output_;
  ProgressPrinter* progress_;
  bool header_ = false;
};

// Prints the batches' progress in the chosen form (JSON lines with Output::kJson).
class ProgressPrinter {
 public:
  ProgressPrinter(Output output, Progress progress);
  ~ProgressPrinter();
  ProgressPrinter(const ProgressPrinter&) = delete;
  ProgressPrinter& operator=(const ProgressPrinter&) = delete;
  void operator()(const BatchProgress& p);
  // Clears the updating line (before a cycle row or the result is printed).
  void clear();

 private:
  Output output_;
  Progress progress_;
  bool shown_ = false;  // the updating line is on the screen
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace sao::cli
