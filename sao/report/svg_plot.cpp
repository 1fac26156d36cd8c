#include "sao/report/svg_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace sao {

namespace {

const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                          "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

}  // namespace

std::string plot_colour(size_t i) {
  return kColours[i % (sizeof kColours / sizeof *kColours)];
}

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void apply_style(PlotSeries& series, size_t i) {
  static const char* dashes[] = {"", "6 3", "2 2", "8 3 2 3", "12 4"};
  static const char markers[] = {'o', 's', '^', 'd', 'v', 'x', '+'};
  series.color = plot_colour(i);
  series.dash = dashes[i % (sizeof dashes / sizeof *dashes)];
  series.dashed = !series.dash.empty();
  series.marker = markers[i % sizeof markers];
}

bool spans_decades(const Plot& plot, double decades) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0.0;
  for (const PlotSeries& s : plot.series) {
    for (double y : s.y) {
      if (!std::isfinite(y)) continue;
      if (y <= 0.0) return false;
      lo = std::min(lo, y);
      hi = std::max(hi, y);
    }
  }
  for (const ReferenceLine& l : plot.horizontal_lines) {
    if (l.y <= 0.0) return false;
  }
  return hi > 0.0 && std::log10(hi / lo) >= decades;
}

namespace {

// About five round tick values covering [lo, hi].
std::vector<double> ticks(double lo, double hi) {
  const double span = hi - lo;
  const double raw = span / 5.0;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double f : {1.0, 2.0, 5.0, 10.0}) {
    step = f * magnitude;
    if (span / step <= 6.0) break;
  }
  std::vector<double> out;
  for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step) {
    out.push_back(std::abs(v) < 1e-12 * step ? 0.0 : v);
  }
  return out;
}

// The plot area in pixels and the data range it shows, and the mapping between them.
struct Frame {
  static constexpr double left = 70, right = 20, top = 30, bottom = 92;  // room for 3 legend rows
  double w = 0, h = 0;
  bool log_y = false;
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0;  // y on the transformed (log) scale

  double ty(double y) const { return log_y ? std::log10(y) : y; }
  double px(double x) const { return left + (x - x0) / (x1 - x0) * w; }
  double py(double y) const { return top + (1.0 - (ty(y) - y0) / (y1 - y0)) * h; }
  // A y already on the transformed scale (a tick).
  double py_t(double t) const { return top + (1.0 - (t - y0) / (y1 - y0)) * h; }
};

// The frame of a plot: the range of its finite points (and bounds), padded.
Frame frame_of(const Plot& plot, int width, int height) {
  Frame f;
  f.w = width - Frame::left - Frame::right;
  f.h = height - Frame::top - Frame::bottom;
  f.log_y = plot.log_y;
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const PlotSeries& s : plot.series) {
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.y[i]) || (plot.log_y && s.y[i] <= 0)) continue;
      x0 = std::min(x0, s.x[i]);
      x1 = std::max(x1, s.x[i]);
      y0 = std::min(y0, f.ty(s.y[i]));
      y1 = std::max(y1, f.ty(s.y[i]));
    }
  }
  for (const ReferenceLine& l : plot.horizontal_lines) {
    if (plot.log_y && l.y <= 0) continue;
    y0 = std::min(y0, f.ty(l.y));
    y1 = std::max(y1, f.ty(l.y));
  }
  if (!std::isfinite(x0)) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  if (x1 - x0 < 1e-300) x0 -= 0.5, x1 += 0.5;
  if (y1 - y0 < 1e-12 * std::max(1.0, std::abs(y0))) y0 -= 0.5, y1 += 0.5;
  const double pad = 0.05 * (y1 - y0);
  y0 -= pad;
  y1 += pad;
  f.x0 = x0;
  f.x1 = x1;
  f.y0 = y0;
  f.y1 = y1;
  return f;
}

// The y ticks: whole decades on a log axis that spans at least one, round values otherwise.
std::vector<double> y_ticks(const Frame& f) {
  if (!f.log_y || f.y1 - f.y0 < 1.0) return ticks(f.y0, f.y1);
  const double step = std::max(1.0, std::ceil((f.y1 - f.y0) / 6.0));
  std::vector<double> out;
  for (double t = std::ceil(f.y0 / step) * step; t <= f.y1; t += step) out.push_back(t);
  return out;
}

// Title, frame, grid lines with tick labels, axis labels and the horizontal lines.
std::string axes(const Plot& plot, const Frame& f) {
  const double left = Frame::left, top = Frame::top, w = f.w, h = f.h;
  std::string svg = "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += fmt::format(
      "<text x=\"{}\" y=\"18\" font-size=\"14\" font-weight=\"bold\" text-anchor=\"middle\">{}"
      "</text>\n",
      left + w / 2, xml_escape(plot.title));
  svg += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>\n", left,
      top, w, h);
  for (double t : y_ticks(f)) {
    const double y = f.py_t(t);
    const std::string label =
        plot.log_y ? fmt::format("{:g}", std::pow(10.0, t)) : fmt::format("{:.4g}", t);
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">{}</text>\n",
        left, y, left + w, y, left - 4, y + 4, label);
  }
  for (double t : ticks(f.x0, f.x1)) {
    const double x = f.px(t);
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#eee\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"middle\">{:.4g}</text>\n",
        x, top, x, top + h, x, top + h + 14, t);
  }
  svg += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\" text-anchor=\"middle\">{}</text>\n",
      left + w / 2, top + h + 30, xml_escape(plot.x_label));
  svg += fmt::format(
      "<text x=\"14\" y=\"{:.1f}\" font-size=\"12\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 14 {:.1f})\">{}</text>\n",
      top + h / 2, top + h / 2, xml_escape(plot.y_label));
  for (const ReferenceLine& l : plot.horizontal_lines) {
    if (plot.log_y && l.y <= 0) continue;
    svg += fmt::format(
        "<line class=\"bound\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"{}\" stroke-width=\"1.5\" stroke-dasharray=\"{}\"/>\n",
        left, f.py(l.y), left + w, f.py(l.y), l.color, l.dash);
  }
  return svg;
}

// A marker of `shape` centred at (x, y).
std::string marker_svg(char shape, double x, double y, const std::string& colour) {
  const double r = 3.2;
  switch (shape) {
    case 's':
      return fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
          "fill=\"{}\"/>",
          x - r, y - r, 2 * r, 2 * r, colour);
    case '^':
    case 'v': {
      const double s = shape == '^' ? 1.0 : -1.0;
      return fmt::format("<path d=\"M{:.1f},{:.1f}L{:.1f},{:.1f}L{:.1f},{:.1f}Z\" fill=\"{}\"/>", x,
                         y - s * 1.3 * r, x + 1.2 * r, y + s * r, x - 1.2 * r, y + s * r, colour);
    }
    case 'd':
      return fmt::format(
          "<path d=\"M{:.1f},{:.1f}L{:.1f},{:.1f}L{:.1f},{:.1f}L{:.1f},{:.1f}Z\" fill=\"{}\"/>", x,
          y - 1.4 * r, x + r, y, x, y + 1.4 * r, x - r, y, colour);
    case 'x':
    case '+': {
      const double a = 1.3 * r;
      const bool cross = shape == 'x';
      return fmt::format(
          "<path d=\"M{:.1f},{:.1f}L{:.1f},{:.1f}M{:.1f},{:.1f}L{:.1f},{:.1f}\" stroke=\"{}\" "
          "stroke-width=\"2\"/>",
          x - a, cross ? y - a : y, x + a, cross ? y + a : y, cross ? x - a : x, y - a,
          cross ? x + a : x, y + a, colour);
    }
    default:
      return fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" fill=\"{}\"/>", x, y, r,
                         colour);
  }
}

std::string dash_of(const PlotSeries& s) {
  if (!s.dash.empty()) return s.dash;
  return s.dashed ? "5 3" : "";
}

// A line from (x0, y) to (x1, y) as a legend swatch.
std::string swatch_line(double x0, double x1, double y, const std::string& colour,
                        const std::string& dash, double width) {
  return fmt::format(
      "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
      "stroke-width=\"{}\"{}/>",
      x0, y, x1, y, colour, width, dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"");
}

// The legend, in rows below the frame: per series its line (with its dash pattern) and
// marker, as drawn; per labelled reference line its dashed line.
class Legend {
 public:
  Legend(const Frame& f, int width) : x_(Frame::left), y_(Frame::top + f.h + 44), width_(width) {}
  // An entry: `swatch(x, y)` draws its sample with the line's middle at height y from x on.
  void add(const std::function<std::string(double, double)>& swatch, const std::string& name) {
    const double entry = 36 + 6.2 * name.size();
    if (x_ > Frame::left && x_ + entry > width_ - Frame::right) {  // next legend row
      x_ = Frame::left;
      y_ += 15;
      ++rows_;
    }
    rows_ = std::max(rows_, 1);
    svg_ += "<g class=\"legend-entry\">" + swatch(x_, y_) +
            fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\">{}</text></g>\n", x_ + 30,
                        y_ + 4, xml_escape(name));
    x_ += entry;
  }
  const std::string& svg() const { return svg_; }
  int rows() const { return rows_; }

 private:
  int rows_ = 0;
  double x_, y_;
  int width_;
  std::string svg_;
};

// The legend swatch of a series at (x, y): its line and its marker, as drawn in the plot.
std::string series_swatch(const PlotSeries& s, double x, double y) {
  std::string out;
  if (s.line) out += swatch_line(x, x + 24, y, s.color, dash_of(s), 1.8);
  if (s.markers) out += marker_svg(s.marker, x + 12, y, s.color);
  return out;
}

// Every series as lines broken where a point is missing, and its markers.
std::string series_svg(const Plot& plot, const Frame& f) {
  std::string svg;
  for (const PlotSeries& s : plot.series) {
    std::vector<std::string> runs(1);
    std::string dots;
    const std::string dash = dash_of(s);
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]) || (plot.log_y && s.y[i] <= 0)) {
        if (!runs.back().empty()) runs.emplace_back();  // a gap
        continue;
      }
      runs.back() += fmt::format("{:.1f},{:.1f} ", f.px(s.x[i]), f.py(s.y[i]));
      if (s.markers) dots += marker_svg(s.marker, f.px(s.x[i]), f.py(s.y[i]), s.color);
    }
    for (const std::string& points : runs) {
      if (!s.line || points.empty()) continue;
      svg += fmt::format(
          "<polyline class=\"series\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\"{} "
          "points=\"{}\"/>\n",
          s.color, dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"", points);
    }
    svg += "<g class=\"markers\">" + dots + "</g>\n";
  }
  return svg;
}

// The legend, and the rows it takes.
std::string legend_svg(const Plot& plot, const Frame& f, int width, int& rows) {
  Legend legend(f, width);
  for (const PlotSeries& s : plot.series) {
    if (s.name.empty()) continue;
    legend.add([&](double x, double y) { return series_swatch(s, x, y); }, s.name);
  }
  for (const ReferenceLine& l : plot.horizontal_lines) {
    if (l.label.empty()) continue;
    legend.add([&](double x, double y) { return swatch_line(x, x + 24, y, l.color, l.dash, 1.5); },
               l.label);
  }
  rows = legend.rows();
  return legend.svg();
}

}  // namespace

std::string svg_plot(const Plot& plot, int width, int height_of_plot) {
  // The frame keeps its size; a legend of more than 3 rows makes the picture taller.
  const Frame f = frame_of(plot, width, height_of_plot);
  int legend_rows = 0;
  const std::string legend = legend_svg(plot, f, width, legend_rows);
  const int height = height_of_plot + 15 * std::max(0, legend_rows - 3);
  std::string svg = fmt::format(
      "<svg class=\"plot\"{} width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"{}\">\n",
      plot.id.empty() ? "" : " id=\"" + xml_escape(plot.id) + "\"", width, height, width, height,
      xml_escape(plot.title));
  svg += fmt::format("<title>{}</title>\n", xml_escape(plot.title));
  svg += axes(plot, f);
  svg += series_svg(plot, f);
  svg += legend;
  svg += "</svg>\n";
  return svg;
}

std::string svg_file(const Plot& plot, int width, int height) {
  // The namespace declaration a file of its own needs (inline in HTML it is implied).
  return "<svg xmlns=\"http://www.w3.org/2000/svg\"" + svg_plot(plot, width, height).substr(4);
}

}  // namespace sao
