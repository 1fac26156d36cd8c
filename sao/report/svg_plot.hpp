// Plots as SVG text drawn by the program (no network, no plotting library): the HTML report
// (html_report.hpp), the compromise curve of a sweep and the history plots of `sao evaluate`.
#pragma once

#include <string>
#include <vector>

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

// One plot as an <svg> element (width x height pixels), axes with ticks and a legend, for
// inline use in HTML; svg_file gives the same as a standalone .svg document.
std::string svg_plot(const Plot& plot, int width = 640, int height = 320);
std::string svg_file(const Plot& plot, int width = 640, int height = 320);

// The i-th colour of the plot palette (CSS), and text escaped for XML/HTML.
std::string plot_colour(size_t i);
std::string xml_escape(const std::string& text);

}  // namespace sao
