// DIR/result.json and DIR/history.csv of a study's run, written after every cycle by the one
// function `sao run`/`sao step` (sao/cli) and `sao serve` (sao/service) call, so a study driven
// through either leaves the same files (issue 19; issue 26, item 6).
//
// result.json is result_to_json (report.hpp) with, in this order first, the program version,
// the design in study order (design variables, then auxiliaries), and, when the final design's
// analysis is at hand, every constraint's worst value at the final design and where it occurs
// (load case, time point and time), and the active set: the constraints whose worst value lies
// within kActiveTolerance of their bound (normalised g_hat >= -kActiveTolerance) or beyond it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sao/optimizer/driver.hpp"
#include "sao/report/evaluate.hpp"
#include "sao/seam/simulator.hpp"
#include "sao/store/study_session.hpp"
#include "sao/study/study.hpp"

namespace sao {

// The one definition of an active constraint (docs/results.md), used by result.json, the
// report's summary, the command line and the service: its worst normalised value g_hat (in
// units of its normaliser, evaluate.hpp) within 0.1 % of its bound, or beyond it.
constexpr double kActiveTolerance = 1e-3;
inline bool is_active(double normalised) {
  return normalised >= -kActiveTolerance;
}

// The design of the result: the final one, or while the run goes on (`sao step`, a run killed
// between cycles) the design the next cycle starts from.
Eigen::VectorXd current_design(const RunSummary& summary);

// The variables of x by name, in study order (design variables, then auxiliaries).
nlohmann::ordered_json named_in_order(const Study& study, const Eigen::VectorXd& x);

// A constraint at a design: name, label and unit (where the study gives them), worst value,
// bound, normalised g_hat, point and time.
nlohmann::ordered_json constraint_json(const ConstraintSummary& constraint);

// While the run goes on, "design", "cycles", "constraints" and "active_set" are those of
// current_design() (the other figures are filled when the run ends).
nlohmann::ordered_json result_document(const Study& study, const RunSummary& summary,
                                       const std::optional<Evaluation>& final_analysis);

// Writes DIR/result.json (result_document) and DIR/history.csv atomically, creating DIR.
void write_result_files(const std::string& dir, const Study& study, const RunSummary& summary,
                        const std::optional<Evaluation>& final_analysis);

// A cycle of the run whose results go to `dir` is being computed while this object lives
// (`sao run`: the whole run; `sao step`, a step of `sao serve`: that cycle and the writing of
// its results). Only such a folder's result.json is marked by mark_results_interrupted: a
// study of `sao serve` that waits between cycles was not interrupted in one.
class CycleInProgress {
 public:
  explicit CycleInProgress(std::string dir);
  ~CycleInProgress();
  CycleInProgress(const CycleInProgress&) = delete;
  CycleInProgress& operator=(const CycleInProgress&) = delete;

 private:
  std::string dir_;
};

// On SIGINT, SIGTERM or SIGHUP (the interrupt action of `sao`, sao/cli): every result.json
// this process wrote whose status is still "running" and whose folder has a cycle in progress
// (CycleInProgress) gets "status": "interrupted" and `why` as its message; the others keep
// theirs. No result file is written after this call, so that a killed run's file does not
// claim a run that goes on. Its design, cycles and history.csv are those of the last finished
// cycle. Returns the files marked.
std::vector<std::string> mark_results_interrupted(const std::string& why);

// The stored analysis of the session's current design (result.json's constraint values), if
// at hand.
std::optional<Evaluation> final_analysis(const StudySession& session);

// Writes DIR/result.json and DIR/history.csv (write_result_files) for the session's run,
// except over the results of a converged run (the branch was converged when the session
// opened) by a run that is not (yet) converged: a resume that failed, or one still rebuilding
// damaged records. `final`: the run has ended (a kept file is then named in a warning). Returns
// whether the files were written. Throws std::runtime_error (the folder) or StoreIoError (the
// write) when they cannot be written.
bool write_run_results(const StudySession& session, const std::string& dir, bool final);

}  // namespace sao
