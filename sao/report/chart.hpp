// Charts: what a plot shows (series, bounds, axes), described here and drawn in the browser by
// Chart.js (Debian's libjs-chart.js) through sao/web/charts.js, the one renderer of the
// workbench, the HTML report, the sweep's compromise page and `sao evaluate`'s histories page.
// No tick, legend or axis is computed here: the library lays them out (docs/architecture.md).
#pragma once

#include <nlohmann/json.hpp>
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
  std::string dash{};            // the line's dash pattern ("": solid, or "5 3" when dashed)
  // 'o' circle, 's' square, '^' triangle, 'v', 'd' diamond, 'x', '+'; 'r' a ring around the
  // point (a mark: a branch point, a study change).
  char marker = 'o';
  // Per point, in [0, 1]: its marker's shade from light to dark of `color` (empty: all alike).
  std::vector<double> shade{};
  // Per point, what it stands for (a stored analysis' index; empty: nothing): its read-out
  // names it, and a click on it tells the page (charts.js: a "sao-point" event).
  std::vector<long> ids{};
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
  std::string id{};                             // the chart's element id (a link target)
  bool x_integer = false;                       // x takes whole numbers (cycles): whole ticks
  // Said in the chart's place when no series has a finite point ("no member converged").
  std::string empty_message{};
};

// The i-th of the distinct looks of the series of one plot: a colour, a dash pattern and a
// marker, so that lines drawn over one another stay apart (and apart in black and white).
void apply_style(PlotSeries& series, size_t i);
// Whether a plot's y values are all positive and span at least `decades` powers of ten (a
// log axis shows them better: a 0-1100 axis hides an optimum at 3.75).
bool spans_decades(const Plot& plot, double decades = 2.0);

// The plot as sao/web/charts.js reads it: {"id", "title", "x_label", "y_label", "log_y",
// "x_integer", "empty", "series": [{"name", "x", "y", "color", "dash": [on, off, ...],
// "line", "markers", "marker", "shade", "ids"}], "lines": [{"y", "label", "color", "dash"}]}; a
// value that is not finite is null (a gap).
nlohmann::json chart_spec(const Plot& plot);

// The chart's place in a page: a <figure> holding the spec, which sao/web/charts.js draws.
std::string chart_html(const Plot& plot);
// A self-contained HTML page (no file or network access: Chart.js, charts.js and the style are
// inline) with `body` in it, every chart_html() of it drawn on load.
std::string chart_page(const std::string& title, const std::string& body);

// The i-th colour of the plot palette (CSS), and text escaped for XML/HTML.
std::string plot_colour(size_t i);
std::string xml_escape(const std::string& text);

// The workbench's and pages' static files (sao/web/, Chart.js), embedded in the binary:
// the file's content, or nullptr when there is none at `path` ("/charts.js").
struct WebFile {
  const char* path;
  const unsigned char* data;
  std::size_t size;
};
const WebFile* web_file(const std::string& path);

}  // namespace sao
