// The plots of the HTML report (html_report.hpp), each section as HTML with inline SVG and the
// entries it adds to the table of contents. Internal to sao/report.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sao/optimizer/driver.hpp"
#include "sao/report/svg_plot.hpp"
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

// "<h2 id=...>" sections, each adding its entries to `toc`.
std::string cycle_plots(const Study& study, const std::vector<CycleRecord>& history,
                        const RunSummary& summary, std::vector<TocEntry>& toc);
std::string constraint_plots(const Study& study, const Options& options,
                             const std::vector<ShownDesign>& designs, std::vector<TocEntry>& toc);
std::string response_plots(const Study& study, const std::vector<ShownDesign>& designs,
                           std::vector<TocEntry>& toc);

// The quantity a constraint part constrains, as a reader names it: "label [unit]" of its entry,
// or its name without the generated [+]/[-]/@case suffixes.
std::string constraint_title(const Constraint& c);
// The constraint's name without the [+]/[-] suffix of an |x| constraint ("acceleration@hump").
std::string constraint_entry_name(const Constraint& c);

// An id usable in HTML ("constraint-acceleration-hump").
std::string html_id(const std::string& prefix, const std::string& name);

}  // namespace sao::report
