// `sao robust STUDY|DIR [--method lhs|mc|mc-analyses|form] [--points N] [--samples N]
// [--verify K] [--metamodel kriging|quadratic] [--design NAME=VALUE ...] [--quantiles P,...]
// [--confidence C] [--seed S] [--out DIR] [--json] [-q]` (issue 51, docs/robustness.md): the
// spread of every response, the objective and each constraint at a design under the study's
// random variables ("random_variables"), with confidence intervals, and the probability of
// violating each constraint (sao/report/robust.hpp). The design: the study's initial design (a
// study file), or the design the run in DIR reported (its result.json; the initial design when
// there is none); --design overrides single values. The analyses it needs go into the study
// store as DOEs (the DOE runner's: stored, re-used, resumable); progress lines per batch.
//
// Exit codes (as `sao doe`'s): 0 the estimate printed; 2 bad input (no "random_variables", an
// unknown --design name, settings out of range, too few successful analyses for the model); 3
// every analysis of this process failed, an interruption (the analyses finished are stored), I/O.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "sao/report/robust.hpp"

namespace sao::cli {

struct RobustCommand {
  std::string target;  // a study file, a study directory or its store
  std::string out_dir;
  std::string method = "lhs";
  std::vector<std::string> design;  // --design NAME=VALUE
  report::RobustRequest request;
  bool json = false;
  bool quiet = false;
};

CLI::App* add_robust_command(CLI::App& app, RobustCommand& command);

// Runs it; the exit code (above). Throws the errors run_guarded maps.
int robust(const RobustCommand& command);

}  // namespace sao::cli
