#include "sao/report/html_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "sao/optimizer/screening.hpp"
#include "sao/report/svg_plot.hpp"
#include "sao/study/criteria.hpp"

namespace sao {
namespace {

// The objective, the violation, the errors, the move-limit factors and the design variables
// per cycle.
std::string cycle_plots(const Study& study, const std::vector<CycleRecord>& history) {
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
  body += svg_plot({"Objective F(b*)", "cycle", "F", {{"F(b*)", cycles, F, plot_colour(0)}}, {}});
  body += svg_plot({"Maximum constraint violation V",
                    "cycle",
                    "V [%]",
                    {{"V", cycles, V, plot_colour(1)}},
                    {0.0}});
  body += svg_plot({"Approximation errors",
                    "cycle",
                    "error [%] (log scale)",
                    {{"Ef (zeros left out)", cycles, Ef, plot_colour(2)},
                     {"Eg", cycles, Eg, plot_colour(3), true}},
                    {},
                    true});
  Plot factors{"Move-limit factors", "cycle", "m", {}, {}};
  Plot design{
      "Design variables (scaled to their bounds)", "cycle", "(b - lower)/(upper - lower)", {}, {}};
  for (int i = 0; i < n; ++i) {
    PlotSeries m{study.design[i].name, {}, {}, plot_colour(i)};
    PlotSeries b{study.design[i].name, {}, {}, plot_colour(i)};
    const DesignVariable& v = study.design[i];
    const auto [from, to] = v.interval(v.initial);  // unbounded: the span around the start
    if (!history.empty()) {
      b.x.push_back(history.front().cycle - 1);
      b.y.push_back((history.front().x0(i) - from) / (to - from));
    }
    for (const CycleRecord& r : history) {
      if (r.factors.size() > i) {
        m.x.push_back(r.cycle);
        m.y.push_back(r.factors(i));
      }
      if (r.x_opt.size() > i) {
        const double accepted = r.accepted ? r.x_opt(i) : r.x0(i);
        b.x.push_back(r.cycle);
        b.y.push_back((accepted - from) / (to - from));
      }
    }
    factors.series.push_back(m);
    design.series.push_back(b);
  }
  body += svg_plot(factors);
  body += svg_plot(design);
  body += "</section>\n";
  return body;
}

// A labelled design and its stored analysis (none when the store has none).
struct ShownDesign {
  std::string label;
  Eigen::VectorXd x;
  std::optional<Evaluation> analysis;
};

// The first and the last design of the history, with their stored analyses.
std::vector<ShownDesign> first_and_last(StudySession& session,
                                        const std::vector<CycleRecord>& history, int n) {
  std::vector<ShownDesign> designs;
  if (!history.empty()) {
    designs.push_back({"first design", history.front().x0, std::nullopt});
    const CycleRecord& last = history.back();
    designs.push_back({"last design", last.accepted && last.x_opt.size() > 0 ? last.x_opt : last.x0,
                       std::nullopt});
  }
  for (ShownDesign& d : designs) {
    std::vector<Evaluation> stored = session.store().lookup(d.x.head(n), false);
    if (!stored.empty()) d.analysis = stored.front();
  }
  return designs;
}

// Constraint j over time at each design: g, the points the screening retains, and the bound
// when it is an auxiliary variable.
// `options`: the settings in force (sao set changes included), whose cutoff and neighbours the
// retained points follow.
std::string constraint_plot(const Study& study, const Options& options, size_t j,
                            const std::vector<ShownDesign>& designs) {
  const Constraint& c = study.constraints[j];
  int load_case = 0;
  expr::for_each_response_read(*c.g.program, 0, [&](int, int lc, int) { load_case = lc; });
  const TimeGrid& grid = study.load_cases[load_case].grid;
  const std::string sense = c.sense == Sense::kLessEqual ? " <= " : " >= ";
  Plot plot{"Constraint " + c.name + ": " + c.g.text + sense + "bound", "t", "g", {}, {}};
  if (c.bound_auxiliary < 0) plot.horizontal_lines.push_back(c.bound);
  for (size_t d = 0; d < designs.size(); ++d) {
    if (!designs[d].analysis) continue;
    const Eigen::VectorXd& x = designs[d].x;
    const ExactResponses exact(study, *designs[d].analysis);
    const Eigen::VectorXd g = criterion_values(study, c.g, x, exact);
    PlotSeries s{designs[d].label, {}, {}, plot_colour(d), d == 0, false};
    for (int p = 0; p < g.size(); ++p) {
      s.x.push_back(grid.points == g.size() ? grid.at(p) : p);
      s.y.push_back(g(p));
    }
    PlotSeries kept{
        designs[d].label + ": retained points", {}, {}, plot_colour(d), false, true, false};
    for (const RetainedRow& row : screen_study(study, options, x, exact).rows) {
      if (row.constraint != static_cast<int>(j)) continue;
      kept.x.push_back(s.x[row.point]);
      kept.y.push_back(s.y[row.point]);
    }
    plot.series.push_back(s);
    plot.series.push_back(kept);
    if (c.bound_auxiliary >= 0) {  // the bound is a variable: its value at this design
      const double bound = constraint_bound(study, c, x);
      plot.series.push_back(
          {designs[d].label + ": bound " + study.auxiliaries[c.bound_auxiliary].name,
           {s.x.front(), s.x.back()},
           {bound, bound},
           "#000",
           d == 0,
           false});
    }
  }
  return svg_plot(plot, 800, 360);
}

// Time-dependent constraints at the first and the last design ("" when there are none).
std::string constraint_plots(StudySession& session, const Study& study,
                             const std::vector<CycleRecord>& history) {
  const std::vector<ShownDesign> designs = first_and_last(session, history, study.n_design());
  std::string histories;
  for (size_t j = 0; j < study.constraints.size(); ++j) {
    const Constraint& c = study.constraints[j];
    if (!c.g.time_dependent() || !c.g.program->uses_responses()) continue;
    histories += constraint_plot(study, session.options(), j, designs);
  }
  if (histories.empty()) return "";
  return "<section><h2>Time-dependent constraints</h2>\n<p>The constraint function g(t) at "
         "the first and the last design; black: the bound; dots: the time points retained by "
         "the screening at that design.</p>\n" +
         histories + "</section>\n";
}

// The history as a table.
std::string history_table(const Study& study, const std::vector<CycleRecord>& history) {
  const int n = study.n_design();
  std::string table = "<table><tr><th>cycle</th><th>accepted</th>";
  for (const auto& v : study.design) table += "<th>" + xml_escape(v.name) + "</th>";
  table += "<th>F</th><th>Ef [%]</th><th>Eg [%]</th><th>V [%]</th></tr>\n";
  for (const CycleRecord& r : history) {
    if (r.x_opt.size() == 0) continue;
    table += fmt::format("<tr><td>{}</td><td>{}</td>", r.cycle, r.accepted ? "yes" : "no");
    for (int i = 0; i < n; ++i) table += fmt::format("<td>{:.6g}</td>", r.x_opt(i));
    table += fmt::format("<td>{:.6g}</td><td>{:.3g}</td><td>{:.3g}</td><td>{:.3g}</td></tr>\n",
                         r.F_opt, r.Ef, r.Eg, r.V);
  }
  table += "</table>\n";
  return table;
}

}  // namespace

std::string html_report(StudySession& session) {
  const Study& study = session.study();
  const std::vector<CycleRecord> history = session.lineage(session.branch());
  std::string body = cycle_plots(study, history);
  body += constraint_plots(session, study, history);
  const std::string table = history_table(study, history);

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
      xml_escape(study.name), xml_escape(study.description), session.branch(), to_string(s.status),
      xml_escape(s.message), history.size(), body, table);
}

}  // namespace sao
