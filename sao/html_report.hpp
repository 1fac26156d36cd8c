// The HTML report of a study directory (`sao report DIR`): one self-contained page with SVG
// plots drawn here (no script, no style sheet or font from the network).
//
// The last box of the flow in ARCHITECTURE.md, read back from the study store: per cycle the
// objective, the maximum violation, the approximation errors Ef and Eg, the move-limit factors
// and the design variables (scaled to their bounds); for every time-dependent constraint the
// normalised history g_hat(t) at the first and at the last design, with the bound (g_hat = 0)
// and the time points retained by the screening at those designs marked.
#pragma once

#include <string>
#include <vector>

#include "sao/study_session.hpp"

namespace sao {

struct PlotSeries {
  std::string name;
  std::vector<double> x, y;
  std::string color;    // CSS colour
  bool dashed = false;  // dashed line
  bool markers = true;  // a dot at every point
  bool line = true;     // join the points
};

struct Plot {
  std::string title;
  std::string x_label, y_label;
  std::vector<PlotSeries> series;
  std::vector<double> horizontal_lines;  // e.g. a bound
  bool log_y = false;                    // points <= 0 are left out
};

// One plot as an <svg> element (width x height pixels), axes with ticks and a legend.
std::string svg_plot(const Plot& plot, int width = 640, int height = 320);

// The report of the session's current branch (its lineage), after StudySession::open().
std::string html_report(StudySession& session);

}  // namespace sao
