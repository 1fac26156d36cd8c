// Plots as SVG text drawn by the program (no network, no plotting library): the HTML report
// (html_report.hpp), the compromise curve of a sweep and the history plots of `sao evaluate`.
#pragma once

#include <string>
#include <vector>

namespace sao {

struct PlotSeries {
  std::string name{};
  std::vector<double> x{}, y{};  // a point whose x or y is not finite leaves a gap in the line
  std::string color{};           // CSS colour
  bool dashed = false;           // dashed line (the "5 3" pattern unless `dash` says otherwise)
  bool markers = true;           // a marker at every point
  bool line = true;              // join the points
  std::string dash{};            // stroke-dasharray of the line ("": solid, or "5 3" when dashed)
  char marker = 'o';             // 'o' circle, 's' square, '^' triangle, 'v', 'd' diamond, 'x', '+'
};

// A horizontal line across the plot (a bound), with its legend entry when `label` is given.
struct ReferenceLine {
  double y = 0.0;
  std::string label{};
  std::string color = "#000";
  std::string dash = "6 3";
};

struct Plot {
  std::string title{};
  std::string x_label{}, y_label{};
  std::vector<PlotSeries> series{};
  std::vector<ReferenceLine> horizontal_lines;  // e.g. a bound
  bool log_y = false;                           // points <= 0 are left out
  std::string id{};                             // the <svg> element's id (a link target)
};

// The i-th of the distinct looks of the series of one plot: a colour, a dash pattern and a
// marker, so that lines drawn over one another stay apart (and apart in black and white).
void apply_style(PlotSeries& series, size_t i);
// Whether a plot's y values are all positive and span at least `decades` powers of ten (a
// log axis shows them better: a 0-1100 axis hides an optimum at 3.75).
bool spans_decades(const Plot& plot, double decades = 2.0);

// One plot as an <svg> element (width x height pixels), axes with ticks and a legend, for
// inline use in HTML; svg_file gives the same as a standalone .svg document.
std::string svg_plot(const Plot& plot, int width = 640, int height = 320);
std::string svg_file(const Plot& plot, int width = 640, int height = 320);

// The i-th colour of the plot palette (CSS), and text escaped for XML/HTML.
std::string plot_colour(size_t i);
std::string xml_escape(const std::string& text);

}  // namespace sao
