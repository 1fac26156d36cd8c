#include "sao/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace sao {

namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
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

// "Nice" tick positions covering [lo, hi].
std::vector<double> ticks(double lo, double hi) {
  const double span = hi - lo;
  const double raw = span / 5;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double f : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (f * magnitude >= raw) {
      step = f * magnitude;
      break;
    }
  }
  std::vector<double> out;
  for (double t = std::ceil(lo / step) * step; t <= hi + 1e-9 * span; t += step) {
    out.push_back(std::abs(t) < 1e-9 * step ? 0.0 : t);  // no "-0"
  }
  return out;
}

}  // namespace

std::string svg_plot(const std::string& title, const std::string& x_label,
                     const std::string& y_label, const std::vector<PlotSeries>& series,
                     bool markers) {
  const double W = 640, H = 420, left = 80, right = 200, top = 40, bottom = 60;
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (const auto& s : series) {
    for (size_t i = 0; i < s.x.size(); ++i) {
      x0 = std::min(x0, s.x[i]);
      x1 = std::max(x1, s.x[i]);
      y0 = std::min(y0, s.y[i]);
      y1 = std::max(y1, s.y[i]);
    }
  }
  if (!std::isfinite(x0)) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  if (x1 - x0 < 1e-12 * (1 + std::abs(x0))) x0 -= 0.5, x1 += 0.5;
  if (y1 - y0 < 1e-12 * (1 + std::abs(y0)))
    y0 -= 0.5 * (1 + std::abs(y0)) * 0.01, y1 += 0.5 * (1 + std::abs(y1)) * 0.01;
  const double px = (x1 - x0) * 0.05, py = (y1 - y0) * 0.08;
  x0 -= px, x1 += px, y0 -= py, y1 += py;
  auto X = [&](double x) { return left + (x - x0) / (x1 - x0) * (W - left - right); };
  auto Y = [&](double y) { return H - bottom - (y - y0) / (y1 - y0) * (H - top - bottom); };
  const char* colours[] = {"#1f77b4", "#7f7f7f", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"};
  std::ostringstream o;
  o.precision(6);
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
    << "\" viewBox=\"0 0 " << W << " " << H << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  o << "<text x=\"" << W / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">"
    << escape(title) << "</text>\n";
  o << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << W - left - right
    << "\" height=\"" << H - top - bottom << "\" fill=\"none\" stroke=\"black\"/>\n";
  for (double t : ticks(x0, x1)) {
    o << "<line x1=\"" << X(t) << "\" y1=\"" << H - bottom << "\" x2=\"" << X(t) << "\" y2=\""
      << H - bottom + 5 << "\" stroke=\"black\"/><text x=\"" << X(t) << "\" y=\"" << H - bottom + 18
      << "\" text-anchor=\"middle\">" << t << "</text>\n";
  }
  for (double t : ticks(y0, y1)) {
    o << "<line x1=\"" << left - 5 << "\" y1=\"" << Y(t) << "\" x2=\"" << left << "\" y2=\"" << Y(t)
      << "\" stroke=\"black\"/><text x=\"" << left - 8 << "\" y=\"" << Y(t) + 4
      << "\" text-anchor=\"end\">" << t << "</text>\n";
  }
  o << "<text x=\"" << (left + W - right) / 2 << "\" y=\"" << H - 15 << "\" text-anchor=\"middle\">"
    << escape(x_label) << "</text>\n";
  o << "<text transform=\"translate(18," << (top + H - bottom) / 2
    << ") rotate(-90)\" text-anchor=\"middle\">" << escape(y_label) << "</text>\n";
  for (size_t k = 0; k < series.size(); ++k) {
    const PlotSeries& s = series[k];
    const char* colour = colours[k % 6];
    o << "<g class=\"series\" data-label=\"" << escape(s.label) << "\">\n";
    if (s.line && s.x.size() > 1) {
      o << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\" points=\"";
      for (size_t i = 0; i < s.x.size(); ++i) o << X(s.x[i]) << "," << Y(s.y[i]) << " ";
      o << "\"/>\n";
    }
    for (size_t i = 0; i < s.x.size() && (markers || !s.line); ++i) {
      o << "<circle cx=\"" << X(s.x[i]) << "\" cy=\"" << Y(s.y[i]) << "\" r=\"" << (s.line ? 3 : 4)
        << "\" fill=\"" << (s.line ? colour : "none") << "\" stroke=\"" << colour << "\"/>\n";
    }
    const double ly = top + 10 + 20 * k;
    o << "<circle cx=\"" << W - right + 15 << "\" cy=\"" << ly << "\" r=\"4\" fill=\"" << colour
      << "\"/><text x=\"" << W - right + 25 << "\" y=\"" << ly + 4 << "\">" << escape(s.label)
      << "</text>\n</g>\n";
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace sao
