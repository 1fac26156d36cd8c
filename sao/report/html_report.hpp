// The HTML report of a study directory (`sao report DIR`): one self-contained page (Chart.js,
// the charts' renderer and the style inline: nothing from the network), its charts those the
// workbench shows (report_plots.hpp).
//
// The last box of the flow in docs/architecture.md, read back from the study store. In order:
// a summary (status, the optimum with its active constraints and bounds, their values and
// multipliers where measured, the counts), a table of contents, the per-cycle plots (objective
// and violation from the start design, cycle 0, on; rejected and relaxed cycles marked;
// approximation errors; move-limit factors; design variables scaled to their bounds), one plot
// per time-dependent constraint (both signs of an |x| constraint together, its bounds in the
// legend, the time points the screening retains), the responses and relations no constraint
// reads (with the data arrays they are compared with, e.g. a path against its target points),
// and the history as a table. Every axis and column shows "label [unit]" where the study gives
// them (Annotation in study.hpp).
#pragma once

#include <string>
#include <vector>

#include "sao/report/chart.hpp"
#include "sao/store/study_session.hpp"

namespace sao {

struct ReportOptions {
  // The designs whose histories are drawn: "first" (= "0", the start design), "best" (the
  // lowest objective among the feasible accepted designs), "last" (the final design), or a
  // cycle number k (the design proposed in cycle k). Empty: first, best, last.
  std::vector<std::string> cycles;
};

// "0,3,last" -> {"0", "3", "last"}; throws std::invalid_argument naming a bad entry.
std::vector<std::string> parse_report_cycles(const std::string& text);

// The branch's summary with the start figures of its lineage's first design (a restarted
// branch's own summary starts where it branched off): objective and violation from the stored
// analysis, the bound formulation's auxiliaries at the maxima they bound, as the driver reports
// a start (the cycle record's F0 holds the auxiliary's initial guess).
RunSummary with_lineage_start(StudySession& session, const std::vector<CycleRecord>& history);

// The report of the session's current branch (its lineage), after StudySession::open().
// Throws std::invalid_argument when a chosen cycle does not exist.
std::string html_report(StudySession& session, const ReportOptions& options = {});

}  // namespace sao
