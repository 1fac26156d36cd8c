// Plots as self-contained SVG text, made by the program (no network, no plotting library):
// used by the sweep's compromise curve and the history plots of `sao evaluate --plot`.
#pragma once

#include <string>
#include <vector>

namespace sao {

// A line plot as a self-contained SVG: one polyline of points, optional labelled markers.
struct PlotSeries {
  std::string label;
  std::vector<double> x, y;
  bool line = true;
};
// `markers`: a circle at every point of a line (off for dense histories).
std::string svg_plot(const std::string& title, const std::string& x_label,
                     const std::string& y_label, const std::vector<PlotSeries>& series,
                     bool markers = true);

}  // namespace sao
