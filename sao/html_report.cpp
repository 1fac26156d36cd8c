#include "sao/html_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "sao/criteria.hpp"

namespace sao {
namespace {

const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                          "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string colour(size_t i) {
  return kColours[i % (sizeof kColours / sizeof *kColours)];
}

std::string escape(const std::string& text) {
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

}  // namespace

std::string svg_plot(const Plot& plot, int width, int height) {
  const double left = 70, right = 20, top = 30, bottom = 76;  // room for 2 legend rows
  const double w = width - left - right, h = height - top - bottom;
  auto ty = [&](double y) { return plot.log_y ? std::log10(y) : y; };
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const PlotSeries& s : plot.series) {
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.y[i]) || (plot.log_y && s.y[i] <= 0)) continue;
      x0 = std::min(x0, s.x[i]);
      x1 = std::max(x1, s.x[i]);
      y0 = std::min(y0, ty(s.y[i]));
      y1 = std::max(y1, ty(s.y[i]));
    }
  }
  for (double l : plot.horizontal_lines) {
    y0 = std::min(y0, ty(l));
    y1 = std::max(y1, ty(l));
  }
  if (!std::isfinite(x0)) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  if (x1 - x0 < 1e-300) x0 -= 0.5, x1 += 0.5;
  if (y1 - y0 < 1e-12 * std::max(1.0, std::abs(y0))) y0 -= 0.5, y1 += 0.5;
  const double pad = 0.05 * (y1 - y0);
  y0 -= pad;
  y1 += pad;
  auto px = [&](double x) { return left + (x - x0) / (x1 - x0) * w; };
  auto py = [&](double y) { return top + (1.0 - (ty(y) - y0) / (y1 - y0)) * h; };
  auto py_t = [&](double t) { return top + (1.0 - (t - y0) / (y1 - y0)) * h; };

  std::string svg = fmt::format(
      "<svg class=\"plot\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"{}\">\n",
      width, height, width, height, escape(plot.title));
  svg += fmt::format("<title>{}</title>\n", escape(plot.title));
  svg += fmt::format(
      "<text x=\"{}\" y=\"18\" font-size=\"14\" font-weight=\"bold\" text-anchor=\"middle\">{}"
      "</text>\n",
      left + w / 2, escape(plot.title));
  svg += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>\n", left,
      top, w, h);
  for (double t : ticks(y0, y1)) {
    const double y = py_t(t);
    const std::string label = plot.log_y ? fmt::format("1e{:g}", t) : fmt::format("{:.4g}", t);
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">{}</text>\n",
        left, y, left + w, y, left - 4, y + 4, label);
  }
  for (double t : ticks(x0, x1)) {
    const double x = px(t);
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#eee\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"middle\">{:.4g}</text>\n",
        x, top, x, top + h, x, top + h + 14, t);
  }
  svg += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\" text-anchor=\"middle\">{}</text>\n",
      left + w / 2, top + h + 30, escape(plot.x_label));
  svg += fmt::format(
      "<text x=\"14\" y=\"{:.1f}\" font-size=\"12\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 14 {:.1f})\">{}</text>\n",
      top + h / 2, top + h / 2, escape(plot.y_label));
  for (double l : plot.horizontal_lines) {
    svg += fmt::format(
        "<line class=\"bound\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"#000\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>\n",
        left, py(l), left + w, py(l));
  }
  double legend_x = left, legend_y = top + h + 42;
  for (const PlotSeries& s : plot.series) {
    std::string points;
    std::string dots;
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.y[i]) || (plot.log_y && s.y[i] <= 0)) continue;
      points += fmt::format("{:.1f},{:.1f} ", px(s.x[i]), py(s.y[i]));
      if (s.markers) {
        dots += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>", px(s.x[i]),
                            py(s.y[i]), s.color);
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
    if (legend_x > left && legend_x + entry > width - right) {  // next legend row
      legend_x = left;
      legend_y += 15;
    }
    svg += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"4\" fill=\"{}\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\">{}</text>\n",
        legend_x, legend_y, s.color, legend_x + 16, legend_y + 6, escape(s.name));
    legend_x += entry;
  }
  svg += "</svg>\n";
  return svg;
}

std::string html_report(StudySession& session) {
  const Study& study = session.study();
  const std::vector<CycleRecord> history = session.lineage(session.branch());
  const int n = study.n_design();

  std::vector<double> cycles, F, V, Ef, Eg;
  for (const CycleRecord& r : history) {
    if (r.x_opt.size() == 0) continue;
    cycles.push_back(r.cycle);
    F.push_back(r.F_opt);
    V.push_back(r.V);
    Ef.push_back(r.Ef);
    Eg.push_back(r.Eg);
  }
  std::string body;
  body += "<section><h2>Per cycle</h2>\n";
  body += svg_plot({"Objective F(b*)", "cycle", "F", {{"F(b*)", cycles, F, colour(0)}}, {}});
  body += svg_plot(
      {"Maximum constraint violation V", "cycle", "V [%]", {{"V", cycles, V, colour(1)}}, {0.0}});
  body += svg_plot(
      {"Approximation errors",
       "cycle",
       "error [%] (log scale)",
       {{"Ef (zeros left out)", cycles, Ef, colour(2)}, {"Eg", cycles, Eg, colour(3), true}},
       {},
       true});
  Plot factors{"Move-limit factors", "cycle", "m", {}, {}};
  Plot design{
      "Design variables (scaled to their bounds)", "cycle", "(b - lower)/(upper - lower)", {}, {}};
  for (int i = 0; i < n; ++i) {
    PlotSeries m{study.design[i].name, {}, {}, colour(i)};
    PlotSeries b{study.design[i].name, {}, {}, colour(i)};
    const DesignVariable& v = study.design[i];
    if (!history.empty()) {
      b.x.push_back(history.front().cycle - 1);
      b.y.push_back((history.front().x0(i) - v.lower) / (v.upper - v.lower));
    }
    for (const CycleRecord& r : history) {
      if (r.factors.size() > i) {
        m.x.push_back(r.cycle);
        m.y.push_back(r.factors(i));
      }
      if (r.x_opt.size() > i) {
        const double accepted = r.accepted ? r.x_opt(i) : r.x0(i);
        b.x.push_back(r.cycle);
        b.y.push_back((accepted - v.lower) / (v.upper - v.lower));
      }
    }
    factors.series.push_back(m);
    design.series.push_back(b);
  }
  body += svg_plot(factors);
  body += svg_plot(design);
  body += "</section>\n";

  // Time-dependent constraints at the first and the last design.
  std::vector<std::pair<std::string, Eigen::VectorXd>> designs;
  if (!history.empty()) {
    designs.push_back({"first design", history.front().x0});
    const CycleRecord& last = history.back();
    designs.push_back(
        {"last design", last.accepted && last.x_opt.size() > 0 ? last.x_opt : last.x0});
  }
  std::vector<std::optional<Evaluation>> analyses;
  for (const auto& [label, x] : designs) {
    std::vector<Evaluation> stored = session.store().lookup(x.head(n), false);
    analyses.push_back(stored.empty() ? std::nullopt : std::optional<Evaluation>(stored.front()));
  }
  std::string histories;
  for (size_t j = 0; j < study.constraints.size(); ++j) {
    const Constraint& c = study.constraints[j];
    if (!c.g.time_dependent() || !c.g.program->uses_responses()) continue;
    int load_case = 0;
    expr::for_each_response_read(*c.g.program, 0, [&](int, int lc, int) { load_case = lc; });
    const TimeGrid& grid = study.load_cases[load_case].grid;
    const std::string sense = c.sense == Sense::kLessEqual ? " <= " : " >= ";
    Plot plot{"Constraint " + c.name + ": " + c.g.text + sense + "bound", "t", "g", {}, {}};
    if (c.bound_auxiliary < 0) plot.horizontal_lines.push_back(c.bound);
    for (size_t d = 0; d < designs.size(); ++d) {
      if (!analyses[d]) continue;
      const Eigen::VectorXd& x = designs[d].second;
      const ExactResponses exact(study, *analyses[d]);
      const Eigen::VectorXd g = criterion_values(study, c.g, x, exact);
      PlotSeries s{designs[d].first, {}, {}, colour(d), d == 0, false};
      for (int p = 0; p < g.size(); ++p) {
        s.x.push_back(grid.points == g.size() ? grid.at(p) : p);
        s.y.push_back(g(p));
      }
      PlotSeries kept{
          designs[d].first + ": retained points", {}, {}, colour(d), false, true, false};
      for (const RetainedRow& row : screen_study(study, study.options, x, exact).rows) {
        if (row.constraint != static_cast<int>(j)) continue;
        kept.x.push_back(s.x[row.point]);
        kept.y.push_back(s.y[row.point]);
      }
      plot.series.push_back(s);
      plot.series.push_back(kept);
      if (c.bound_auxiliary >= 0) {  // the bound is a variable: its value at this design
        const double bound = constraint_bound(study, c, x);
        plot.series.push_back(
            {designs[d].first + ": bound " + study.auxiliaries[c.bound_auxiliary].name,
             {s.x.front(), s.x.back()},
             {bound, bound},
             "#000",
             d == 0,
             false});
      }
    }
    histories += svg_plot(plot, 800, 360);
  }
  if (!histories.empty()) {
    body +=
        "<section><h2>Time-dependent constraints</h2>\n<p>The constraint function g(t) at "
        "the first and the last design; black: the bound; dots: the time points retained by "
        "the screening at that design.</p>\n" +
        histories + "</section>\n";
  }

  // The history as a table.
  std::string table = "<table><tr><th>cycle</th><th>accepted</th>";
  for (const auto& v : study.design) table += "<th>" + escape(v.name) + "</th>";
  table += "<th>F</th><th>Ef [%]</th><th>Eg [%]</th><th>V [%]</th></tr>\n";
  for (const CycleRecord& r : history) {
    if (r.x_opt.size() == 0) continue;
    table += fmt::format("<tr><td>{}</td><td>{}</td>", r.cycle, r.accepted ? "yes" : "no");
    for (int i = 0; i < n; ++i) table += fmt::format("<td>{:.6g}</td>", r.x_opt(i));
    table += fmt::format("<td>{:.6g}</td><td>{:.3g}</td><td>{:.3g}</td><td>{:.3g}</td></tr>\n",
                         r.F_opt, r.Ef, r.Eg, r.V);
  }
  table += "</table>\n";

  const RunSummary& s = session.driver().summary();
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>{0} - sao report</title>\n<style>\n"
      "body {{ font-family: sans-serif; margin: 2em; color: #222; }}\n"
      "svg.plot {{ display: block; margin: 1em 0; background: #fff; }}\n"
      "table {{ border-collapse: collapse; font-size: 12px; }}\n"
      "td, th {{ border: 1px solid #ccc; padding: 2px 6px; text-align: right; }}\n"
      "</style>\n</head>\n<body>\n<h1>{0}</h1>\n<p>{1}</p>\n"
      "<p>Branch {2}: {3} ({4}); {5} cycles.</p>\n{6}<section><h2>History</h2>\n{7}</section>\n"
      "</body>\n</html>\n",
      escape(study.name), escape(study.description), session.branch(), to_string(s.status),
      escape(s.message), history.size(), body, table);
}

}  // namespace sao
