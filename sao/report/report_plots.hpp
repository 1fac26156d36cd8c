// The charts of the HTML report (html_report.hpp) and of the workbench (the service asks for the
// same ones: the report is the workbench's views, frozen), by section, each with its id.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sao/optimizer/driver.hpp"
#include "sao/report/chart.hpp"
#include "sao/store/study_session.hpp"
#include "sao/study/study.hpp"

namespace sao::report {

// A design whose histories the report draws, with its stored analysis (none when the store
// has none).
struct ShownDesign {
  std::string label;  // "start (cycle 0)", "cycle 3 (rejected)", "best, last: cycle 12"
  Eigen::VectorXd x;  // design and auxiliary variables
  std::optional<Evaluation> analysis;
};

// One entry of the table of contents: a link to `id` at nesting `level` (0: a section).
struct TocEntry {
  std::string id;
  std::string title;
  int level = 0;
};

// Per cycle: objective, violation, approximation errors, move-limit factors, the design
// variables scaled to their bounds, then each variable in its unit.
std::vector<Plot> cycle_charts(const Study& study, const Options& options,
                               const std::vector<CycleRecord>& history, const RunSummary& summary);
// The session's study with each constraint's `scale` as the run of `branch` measured it (a zero
// bound sized at its start: as_measured, evaluate.hpp) where that is the session's own branch,
// whose run is at hand; another branch's start may size it otherwise: the study's `scale`. What
// the screening of the charts and of the workbench's histories is done with.
Study measured_study(const StudySession& session, int branch);
// One chart per time-dependent constraint entry and load case at the designs (both signs of an
// |x| constraint together), its bounds and the time points the screening retains.
std::vector<Plot> constraint_charts(const Study& study, const Options& options,
                                    const std::vector<ShownDesign>& designs);
// The responses and relations no constraint reads, at the designs, with their target data.
std::vector<Plot> response_charts(const Study& study, const std::vector<ShownDesign>& designs);
// The histories the simulator delivers beside the study's responses (the road under a vehicle,
// an excitation) at the designs, per load case (evaluate.hpp: HistoryChoice::kUndeclared).
std::vector<Plot> output_charts(const Study& study, const std::vector<ShownDesign>& designs);
// Objective and violation per cycle of every branch (its lineage), the branch points ringed.
std::vector<Plot> branch_charts(StudySession& session);

// An "<h2 id=...>" section holding the charts, adding its entries to `toc` ("" without charts).
std::string chart_section(const std::string& id, const std::string& title, const std::string& intro,
                          const std::vector<Plot>& charts, std::vector<TocEntry>& toc);

// The quantity a constraint part constrains, as a reader names it: "label [unit]" of its entry,
// or its name without the generated [+]/[-]/@case suffixes.
std::string constraint_title(const Constraint& c);
// The sign that turns a part's g into the quantity its entry constrains: -1 for the [-] half
// of an |x| constraint, else 1.
double part_sign(const Constraint& c);
// Whether the part bounds that quantity from above (an upper bound), else from below.
bool bounds_from_above(const Constraint& c);
// The part as every list and legend names it: its title, its load case and its side
// ("Chassis acceleration [m/s^2] @hump, upper").
std::string constraint_display_name(const Constraint& c);
// The constraint's name without the [+]/[-] suffix of an |x| constraint ("acceleration@hump").
std::string constraint_entry_name(const Constraint& c);

// An id usable in HTML ("constraint-acceleration-hump").
std::string html_id(const std::string& prefix, const std::string& name);

}  // namespace sao::report
