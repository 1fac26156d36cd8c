#include "sao/report/svg_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
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
  static constexpr double left = 70, right = 20, top = 30, bottom = 76;  // room for 2 legend rows
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
  for (double l : plot.horizontal_lines) {
    y0 = std::min(y0, f.ty(l));
    y1 = std::max(y1, f.ty(l));
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
  for (double t : ticks(f.y0, f.y1)) {
    const double y = f.py_t(t);
    const std::string label = plot.log_y ? fmt::format("1e{:g}", t) : fmt::format("{:.4g}", t);
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
  for (double l : plot.horizontal_lines) {
    svg += fmt::format(
        "<line class=\"bound\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"#000\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>\n",
        left, f.py(l), left + w, f.py(l));
  }
  return svg;
}

// Every series (line and markers) with its legend entry, the legend in rows below the frame.
std::string series_and_legend(const Plot& plot, const Frame& f, int width) {
  std::string svg;
  double legend_x = Frame::left, legend_y = Frame::top + f.h + 42;
  for (const PlotSeries& s : plot.series) {
    std::string points;
    std::string dots;
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.y[i]) || (plot.log_y && s.y[i] <= 0)) continue;
      points += fmt::format("{:.1f},{:.1f} ", f.px(s.x[i]), f.py(s.y[i]));
      if (s.markers) {
        dots += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>",
                            f.px(s.x[i]), f.py(s.y[i]), s.color);
      }
    }
    if (s.line && !points.empty()) {
      svg += fmt::format(
          "<polyline class=\"series\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\"{} "
          "points=\"{}\"/>\n",
          s.color, s.dashed ? " stroke-dasharray=\"5 3\"" : "", points);
    }
    svg += "<g class=\"markers\">" + dots + "</g>\n";
    const double entry = 28 + 6.2 * s.name.size();
    if (legend_x > Frame::left && legend_x + entry > width - Frame::right) {  // next legend row
      legend_x = Frame::left;
      legend_y += 15;
    }
    svg += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"4\" fill=\"{}\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\">{}</text>\n",
        legend_x, legend_y, s.color, legend_x + 16, legend_y + 6, xml_escape(s.name));
    legend_x += entry;
  }
  return svg;
}

}  // namespace

std::string svg_plot(const Plot& plot, int width, int height) {
  const Frame f = frame_of(plot, width, height);
  std::string svg = fmt::format(
      "<svg class=\"plot\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"{}\">\n",
      width, height, width, height, xml_escape(plot.title));
  svg += fmt::format("<title>{}</title>\n", xml_escape(plot.title));
  svg += axes(plot, f);
  svg += series_and_legend(plot, f, width);
  svg += "</svg>\n";
  return svg;
}

std::string svg_file(const Plot& plot, int width, int height) {
  // The namespace declaration a file of its own needs (inline in HTML it is implied).
  return "<svg xmlns=\"http://www.w3.org/2000/svg\"" + svg_plot(plot, width, height).substr(4);
}

}  // namespace sao
