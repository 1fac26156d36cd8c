// A design of experiments run on a study store (`sao doe`, docs/doe.md): the plan made once and
// kept in the store (table `does`), its points analysed by the study's simulator and executor
// (the worker pool or SLURM, as a run's), each batch's analyses stored as it returns, so that a
// killed `sao doe` loses only the analyses in flight and a resume analyses only the points the
// store lacks. Points already analysed (the same design, bit for bit, with the same simulator
// inputs, values only) are re-used, never run again.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sao/store/study_session.hpp"

namespace sao {

// The DOE a command runs: the store's latest when its settings are the section's (a resume, or
// a finished DOE run again: nothing to analyse), else a new plan.
struct PreparedDoe {
  StoredDoe doe;
  bool resumed = false;
  std::vector<std::string> explicit_constraints;  // their names (the plan respects them)
};

// The DOE settings of a stored study, as `sao doe DIR [--set doe.KEY=VALUE ...]` takes them:
// the stored study's "doe" section with `overrides` (each "doe.KEY=VALUE") applied; none (resume
// the store's latest DOE) when no override is given and the store holds a DOE. `session` opened
// for analyses. Throws StudyError for an override outside "doe." or one that does not validate,
// and for a study without a "doe" section when none is given.
std::optional<DoeSection> stored_doe_section(StudySession& session,
                                             const std::vector<std::string>& overrides);

// prepare_doe of `section`, or the store's latest DOE resumed when there is none.
PreparedDoe prepare_stored_doe(StudySession& session, const std::optional<DoeSection>& section);

// Finds or makes the DOE of `section` in the store of `session` (opened for analyses). A new
// plan is made with the study's explicit constraints and, for a Latin hypercube, the stored
// analyses inside the region as existing points it keeps away from; it is stored before any
// analysis. Throws StudyError when the store's latest DOE is unfinished and has other settings
// (naming them: `sao doe DIR` resumes it), or when the plan cannot be made (doe::PlanError's
// message, at "doe").
PreparedDoe prepare_doe(StudySession& session, const DoeSection& section);

// Where the points of a DOE stand, and what they are for: "doe" (a design of experiments; a
// front's or a robustness estimate's own), "verification" (a front's points of round `round`, a
// robustness estimate's), "samples" (a robustness estimate's analysed samples).
struct DoeProgress {
  std::string purpose = "doe";
  int round = 0;     // the front's round of a verification (0: none)
  int total = 0;     // points of the plan
  int reused = 0;    // taken from the store (analysed before this process)
  int analysed = 0;  // analysed by this process so far (failed ones included)
  int failed = 0;    // of those, failed
  int running = 0;   // in the batch under way
  double elapsed_seconds = 0.0;
  double remaining_seconds = -1.0;  // estimated from this process' pace; -1: not known yet
  int done() const { return reused + analysed; }
};

// The progress as JSON ({"event": event, "purpose", "round" (when not 0), "done", "total",
// "reused", "analysed", "failed", "elapsed_seconds", "remaining_seconds" (null when not known)}),
// as `sao doe --json` prints it and the service publishes it; without "event" when event is
// null.
nlohmann::ordered_json progress_json(const char* event, const DoeProgress& progress);

// Analyses the points of `doe` the store lacks, `batch` at a time (0: the study's simulator
// workers for the local pool, max_jobs (or 20) for a batch executor such as SLURM), values
// only; `report` before each batch and after it, the progress with `purpose` and `round`.
// Returns the final progress.
DoeProgress run_doe(StudySession& session, const StoredDoe& doe, int batch,
                    const std::function<void(const DoeProgress&)>& report,
                    const std::string& purpose = "doe", int round = 0);

// Where each DOE of a store stands (`sao status`): its plan's size and how many of its points
// the store holds a successful analysis of. Leaves the store's simulator inputs changed.
struct DoeState {
  int id = 0;
  std::string method;
  int total = 0;
  int done = 0;
};
std::vector<DoeState> doe_states(StudyStore& store);

// The analyses per batch `batch` (the section's "batch") means for this study.
int doe_batch_size(const nlohmann::json& document, int batch, int missing);

}  // namespace sao
