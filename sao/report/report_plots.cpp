#include "sao/report/report_plots.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include "sao/optimizer/screening.hpp"
#include "sao/report/evaluate.hpp"
#include "sao/store/branch_state.hpp"
#include "sao/study/criteria.hpp"

namespace sao::report {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string section(const std::string& id, const std::string& title, std::vector<TocEntry>& toc) {
  toc.push_back({id, title, 0});
  return fmt::format("<section><h2 id=\"{}\">{}</h2>\n", id, xml_escape(title));
}

// A plot with an id and a table-of-contents entry under the current section.
std::string listed_plot(Plot plot, const std::string& id, std::vector<TocEntry>& toc) {
  plot.id = id;
  toc.push_back({id, plot.title, 1});
  return chart_html(plot);
}

PlotSeries marks(const std::string& name, const std::string& colour, char marker) {
  PlotSeries s{name, {}, {}, colour};
  s.line = false;
  s.marker = marker;
  return s;
}

// A per-cycle quantity from cycle 0 (the start) on, with the rejected and relaxed cycles marked
// by markers of their own (their proposals were analysed, so their values exist).
Plot per_cycle(const std::string& title, const std::string& y_label, double start,
               const std::vector<CycleRecord>& history, double (*value)(const CycleRecord&)) {
  PlotSeries line{"proposal b* of each cycle (cycle 0: the start design)", {0.0}, {start}};
  apply_style(line, 0);
  line.dash.clear();
  line.dashed = false;
  PlotSeries rejected = marks("rejected (not accepted)", "#d62728", 'x');
  PlotSeries relaxed = marks("relaxed subproblem", "#ff7f0e", 's');
  for (const CycleRecord& r : history) {
    line.x.push_back(r.cycle);
    line.y.push_back(r.x_opt.size() == 0 ? kNaN : value(r));  // a failed cycle: a gap
    if (r.x_opt.size() == 0) continue;
    if (std::string(cycle_outcome(r)) == "rejected") {
      rejected.x.push_back(r.cycle), rejected.y.push_back(value(r));
    }
    if (r.relaxed) relaxed.x.push_back(r.cycle), relaxed.y.push_back(value(r));
  }
  Plot plot{title, "cycle", y_label, {line}, {}};
  plot.x_integer = true;
  if (!rejected.x.empty()) plot.series.push_back(rejected);
  if (!relaxed.x.empty()) plot.series.push_back(relaxed);
  return plot;
}

// (b - from)/(to - from) of variable i over the cycles: the accepted design after each cycle.
PlotSeries scaled_variable(const DesignVariable& v, int i,
                           const std::vector<CycleRecord>& history) {
  PlotSeries b{v.note.title(v.name), {}, {}};
  apply_style(b, i);
  const auto [from, to] = v.interval(v.initial);  // unbounded: the span around the start
  if (!history.empty()) {
    b.x.push_back(0);
    b.y.push_back((history.front().x0(i) - from) / (to - from));
  }
  for (const CycleRecord& r : history) {
    if (r.x_opt.size() <= i) continue;
    const double accepted = r.accepted ? r.x_opt(i) : r.x0(i);
    b.x.push_back(r.cycle);
    b.y.push_back((accepted - from) / (to - from));
  }
  return b;
}

// The line predicted = computed across the values of a predicted-against-computed chart.
PlotSeries diagonal(const Plot& plot) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const PlotSeries& s : plot.series) {
    for (size_t k = 0; k < s.x.size(); ++k) {
      for (double v : {s.x[k], s.y[k]}) {
        if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
      }
    }
  }
  PlotSeries d{"predicted = computed", {lo, hi}, {lo, hi}, "#888"};
  d.markers = false;
  d.dash = "4 4";
  return d;
}

// How well the approximations predicted the analyses at the proposals: the objective per cycle
// (one point per analysed cycle), and each retained constraint part's g_hat at its critical
// retained point (CycleRecord::predictions), one series per part.
std::vector<Plot> prediction_charts(const Study& study, const std::vector<CycleRecord>& history) {
  Plot objective{"Objective: predicted against computed at each proposal",
                 "computed F(b*): " + study.objective.note.title(study.objective.name),
                 "predicted F~(b*)",
                 {},
                 {}};
  PlotSeries accepted = marks("accepted proposals", plot_colour(0), 'o');
  PlotSeries rejected = marks("rejected proposals", "#d62728", 'x');
  Plot constraints{"Constraints: predicted against computed g^ [%] at each proposal",
                   "computed g^ [%] (0: on the bound)",
                   "predicted g^ [%]",
                   {},
                   {}};
  std::map<std::string, size_t> series;  // part name -> its series
  for (const CycleRecord& r : history) {
    if (r.x_opt.size() == 0) continue;
    PlotSeries& to = r.accepted ? accepted : rejected;
    to.x.push_back(r.F_opt), to.y.push_back(r.F_approx);
    for (const CycleRecord::Prediction& p : r.predictions) {
      const auto c = std::find_if(study.constraints.begin(), study.constraints.end(),
                                  [&](const Constraint& k) { return k.name == p.constraint; });
      const std::string name =
          c == study.constraints.end() ? p.constraint : constraint_display_name(*c);
      const auto [at, added] = series.emplace(name, constraints.series.size());
      if (added) {
        PlotSeries s = marks(name, "", 'o');
        apply_style(s, at->second);
        s.line = false;
        constraints.series.push_back(s);
      }
      constraints.series[at->second].x.push_back(p.computed);
      constraints.series[at->second].y.push_back(p.predicted);
    }
  }
  for (PlotSeries* s : {&accepted, &rejected}) {
    if (!s->x.empty()) objective.series.push_back(*s);
  }
  std::vector<Plot> out;
  for (Plot* p : {&objective, &constraints}) {
    p->empty_message = "no proposal analysed yet (or no constraint retained)";
    if (!p->series.empty()) p->series.push_back(diagonal(*p));
  }
  objective.id = "plot-predicted-objective";
  constraints.id = "plot-predicted-constraints";
  return {objective, constraints};
}

// Variable i in its unit over the cycles (the accepted design after each), its bounds drawn.
Plot variable_chart(const Study& study, int i, const std::vector<CycleRecord>& history) {
  const DesignVariable& v = study.design[i];
  PlotSeries b{"accepted design after each cycle", {}, {}};
  apply_style(b, 0);
  if (!history.empty()) b.x.push_back(0), b.y.push_back(history.front().x0(i));
  for (const CycleRecord& r : history) {
    if (r.x_opt.size() <= i) continue;
    b.x.push_back(r.cycle);
    b.y.push_back(r.accepted ? r.x_opt(i) : r.x0(i));
  }
  Plot plot{"Design variable " + v.note.title(v.name), "cycle", v.note.title(v.name), {b}, {}};
  if (std::isfinite(v.lower)) plot.horizontal_lines.push_back({v.lower, "lower bound"});
  if (std::isfinite(v.upper))
    plot.horizontal_lines.push_back({v.upper, "upper bound", "#555", "2 4"});
  plot.x_integer = true;
  plot.id = html_id("variable-", v.name);
  return plot;
}

}  // namespace

std::string html_id(const std::string& prefix, const std::string& name) {
  std::string id = prefix;
  for (char c : name) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) != 0;
    if (keep) {
      id += c;
    } else if (id.back() != '-') {
      id += '-';
    }
  }
  while (!id.empty() && id.back() == '-') id.pop_back();
  return id;
}

std::string constraint_entry_name(const Constraint& c) {
  std::string name = c.name;
  for (const char* suffix : {"[+]", "[-]"}) {
    const auto at = name.find(suffix);
    if (at != std::string::npos) name.erase(at, 3);
  }
  return name;
}

std::string constraint_title(const Constraint& c) {
  std::string base = constraint_entry_name(c);
  const auto at = base.find('@');
  if (at != std::string::npos) base.erase(at);
  return c.note.title(base);
}

double part_sign(const Constraint& c) {
  return c.name.find("[-]") != std::string::npos ? -1.0 : 1.0;
}

bool bounds_from_above(const Constraint& c) {
  return (c.sense == Sense::kLessEqual) == (part_sign(c) > 0);
}

std::string constraint_display_name(const Constraint& c) {
  const std::string entry = constraint_entry_name(c);
  const auto at = entry.find('@');
  return constraint_title(c) + (at == std::string::npos ? "" : " " + entry.substr(at)) +
         (bounds_from_above(c) ? ", upper" : ", lower");
}

std::vector<Plot> cycle_charts(const Study& study, const Options& options,
                               const std::vector<CycleRecord>& history, const RunSummary& summary) {
  std::vector<Plot> charts;
  const double F0 = summary.start_objective;
  Plot objective = per_cycle("Objective F", study.objective.note.title(study.objective.name), F0,
                             history, [](const CycleRecord& r) { return r.F_opt; });
  objective.log_y = spans_decades(objective);
  if (objective.log_y) objective.y_label += " (log scale)";
  objective.id = "plot-objective";
  charts.push_back(objective);
  Plot violation = per_cycle("Maximum constraint violation V", "V [%]", summary.start_violation,
                             history, [](const CycleRecord& r) { return r.V; });
  violation.horizontal_lines.push_back({0.0, "V = 0: every constraint on its bound"});
  violation.id = "plot-violation";
  charts.push_back(violation);
  PlotSeries ef{"Ef, objective (zeros left out)", {}, {}}, eg{"Eg, constraints", {}, {}};
  apply_style(ef, 2);
  apply_style(eg, 3);
  for (const CycleRecord& r : history) {
    const bool analysed = r.x_opt.size() > 0;
    ef.x.push_back(r.cycle), ef.y.push_back(analysed ? r.Ef : kNaN);
    eg.x.push_back(r.cycle), eg.y.push_back(analysed ? r.Eg : kNaN);
  }
  // A log axis cannot show 0: a series that is 0 (or not measured) in every cycle says so.
  for (PlotSeries* e : {&ef, &eg}) {
    if (std::none_of(e->y.begin(), e->y.end(), [](double v) { return v > 0.0; })) {
      e->name = e->name.substr(0, 2) + ": 0 in every cycle (nothing to draw on a log axis)";
    }
  }
  Plot errors{"Approximation errors", "cycle", "error [%] (log scale)", {ef, eg}, {}, true};
  errors.horizontal_lines = {
      {options.objacc,
       fmt::format("objacc {:.3g} % (seed strategy: converged needs Ef below)", options.objacc),
       ef.color, "6 3"},
      {options.vioacc,
       fmt::format("vioacc {:.3g} % (seed strategy: converged needs Eg below)", options.vioacc),
       eg.color, "2 3"}};
  errors.id = "plot-errors";
  errors.x_integer = true;
  charts.push_back(errors);
  for (Plot& p : prediction_charts(study, history)) charts.push_back(std::move(p));
  Plot factors{"Move-limit factors", "cycle", "move-limit factor", {}, {}};
  Plot design{"Design variables (scaled to their bounds)",
              "cycle",
              "(b - lower)/(upper - lower)",
              {},
              {{0.0, "lower bound"}, {1.0, "upper bound", "#555", "2 4"}}};
  for (int i = 0; i < study.n_design(); ++i) {
    const DesignVariable& v = study.design[i];
    PlotSeries m{v.note.title(v.name), {}, {}};
    apply_style(m, i);
    for (const CycleRecord& r : history) {
      if (r.factors.size() > i) m.x.push_back(r.cycle), m.y.push_back(r.factors(i));
    }
    factors.series.push_back(m);
    design.series.push_back(scaled_variable(v, i, history));
  }
  for (Plot* p : {&factors, &design}) p->x_integer = true;
  factors.id = "plot-move-limits";
  design.id = "plot-design";
  charts.push_back(factors);
  charts.push_back(design);
  for (int i = 0; i < study.n_design(); ++i) charts.push_back(variable_chart(study, i, history));
  return charts;
}

std::string chart_section(const std::string& id, const std::string& title, const std::string& intro,
                          const std::vector<Plot>& charts, std::vector<TocEntry>& toc) {
  if (charts.empty()) return "";
  std::string body = section(id, title, toc);
  if (!intro.empty()) body += "<p>" + xml_escape(intro) + "</p>\n";
  body += "<div class=\"charts\">\n";
  for (const Plot& p : charts) body += listed_plot(p, p.id, toc);
  return body + "</div>\n</section>\n";
}

namespace {

// The parts of one constraint entry in one load case: its [+] and [-] halves, or the two
// sides of an equality, or the constraint alone.
struct ConstraintGroup {
  std::string name;  // entry name with @case
  std::vector<int> parts;
};

std::vector<ConstraintGroup> constraint_groups(const Study& study) {
  std::vector<ConstraintGroup> groups;
  std::map<std::string, size_t> index;
  for (size_t j = 0; j < study.constraints.size(); ++j) {
    const Constraint& c = study.constraints[j];
    if (!c.g.time_dependent()) continue;
    const std::string key = c.path + "|" + constraint_entry_name(c);
    auto [it, added] = index.emplace(key, groups.size());
    if (added) groups.push_back({constraint_entry_name(c), {}});
    groups[it->second].parts.push_back(static_cast<int>(j));
  }
  return groups;
}

// The bound lines of a group whose bounds are numbers, each in the legend.
void add_bound_lines(const Study& study, const ConstraintGroup& group, Plot& plot) {
  for (int j : group.parts) {
    const Constraint& c = study.constraints[j];
    if (c.bound_auxiliary >= 0) continue;
    const double s = part_sign(c);
    const bool upper = bounds_from_above(c);
    const double bound = s * c.bound;
    bool seen = false;
    for (const ReferenceLine& l : plot.horizontal_lines) seen = seen || l.y == bound;
    if (seen) continue;
    plot.horizontal_lines.push_back(
        {bound, fmt::format("{} bound {:.6g}", upper ? "upper" : "lower", bound), "#000",
         upper ? "6 3" : "2 3"});
  }
}

Plot group_plot(const Study& study, const Options& options, const ConstraintGroup& group,
                const std::vector<ShownDesign>& designs) {
  const Constraint& first = study.constraints[group.parts.front()];
  std::string sides;
  for (int j : group.parts) {
    const Constraint& c = study.constraints[j];
    sides += (sides.empty() ? "" : ", ") + c.g.text +
             (c.sense == Sense::kLessEqual ? " <= " : " >= ") +
             (c.bound_auxiliary >= 0 ? study.auxiliaries[c.bound_auxiliary].name
                                     : fmt::format("{:.6g}", c.bound));
  }
  const int lc = first.g.program->grid_case();
  const std::string where = lc < 0 ? "" : " @" + study.load_cases[lc].name;
  Plot plot{constraint_title(first) + where + ": " + sides,
            study.time_title(lc),
            constraint_title(first),
            {},
            {}};
  add_bound_lines(study, group, plot);
  size_t style = 0;
  for (const ShownDesign& d : designs) {
    if (!d.analysis) continue;
    const ExactResponses exact(study, *d.analysis);
    // The quantity from the first part (its sign undone), the retained points of every part.
    const Constraint& c = first;
    const Eigen::VectorXd g = criterion_values(study, c.g, d.x, exact);
    PlotSeries s{d.label, {}, {}};
    apply_style(s, style);
    s.markers = false;
    for (int p = 0; p < g.size(); ++p) {
      s.x.push_back(point_time(study, *c.g.program, p));
      s.y.push_back(part_sign(c) * g(p));
    }
    PlotSeries kept = marks(d.label + ": retained points", s.color, 'o');
    for (const RetainedRow& row : screen_study(study, options, d.x, exact).rows) {
      for (int j : group.parts) {
        if (row.constraint != j || row.point >= static_cast<int>(s.x.size())) continue;
        kept.x.push_back(s.x[row.point]);
        kept.y.push_back(s.y[row.point]);
      }
    }
    plot.series.push_back(s);
    if (!kept.x.empty()) plot.series.push_back(kept);
    for (int j : group.parts) {  // a bound that is a variable: its value at this design
      const Constraint& part = study.constraints[j];
      if (part.bound_auxiliary < 0) continue;
      const double bound = part_sign(part) * constraint_bound(study, part, d.x);
      PlotSeries b{d.label + ": bound " + study.auxiliaries[part.bound_auxiliary].name +
                       (part_sign(part) < 0 ? " (negated)" : ""),
                   {s.x.front(), s.x.back()},
                   {bound, bound},
                   "#000"};
      b.color = s.color;  // each design's own bound in its colour
      b.dash = s.dash.empty() ? "6 3" : s.dash;
      b.markers = false;
      plot.series.push_back(b);
    }
    ++style;
  }
  plot.id = html_id("constraint-", group.name);
  return plot;
}

}  // namespace

Study measured_study(const StudySession& session, int branch) {
  if (branch != session.branch()) return session.study();
  return as_measured(session.study(), session.driver().summary().constraint_scales);
}

std::vector<Plot> constraint_charts(const Study& study, const Options& options,
                                    const std::vector<ShownDesign>& designs) {
  std::vector<Plot> charts;
  for (const ConstraintGroup& group : constraint_groups(study)) {
    charts.push_back(group_plot(study, options, group, designs));
  }
  return charts;
}

namespace {

// A response or relation drawn over its grid: its program per load case.
struct Quantity {
  std::string name;
  std::string title;
  std::vector<std::pair<int, expr::ProgramPtr>> programs;  // (load case, program)
};

// Series-valued responses and relations, bound per load case (a relation that reads a
// response of no particular case is bound for each).
std::vector<Quantity> series_quantities(const Study& study) {
  std::set<std::string> constrained;
  for (const Constraint& c : study.constraints) constrained.insert(c.g.text);
  std::vector<std::pair<std::string, std::string>> named;  // name, title
  for (const ResponseDef& r : study.responses) {
    if (r.history) named.push_back({r.name, r.note.title(r.name)});
  }
  for (const auto& [name, text] : study.relations) {
    const auto it = study.relation_notes.find(name);
    named.push_back({name, it == study.relation_notes.end() ? name : it->second.title(name)});
  }
  std::vector<Quantity> out;
  for (const auto& [name, title] : named) {
    if (constrained.count(name) || constrained.count("-(" + name + ")")) continue;
    Quantity q{name, title, {}};
    for (size_t c = 0; c < study.load_cases.size(); ++c) {
      try {
        auto program = expr::bind(expr::name_node(name), study.symbols, static_cast<int>(c));
        if (program->is_series()) q.programs.push_back({static_cast<int>(c), program});
        if (!expr::needs_case(expr::name_node(name), study.symbols)) break;
      } catch (const expr::Error&) {
        break;  // not a quantity of one load case: not drawn
      }
    }
    if (!q.programs.empty()) out.push_back(q);
  }
  return out;
}

// The data arrays a quantity is compared with: "name - data" or "data - name" in a criterion
// or relation (a target it should meet, as the slider-crank's xP - xG).
std::vector<std::string> targets_of(const Study& study, const std::string& name) {
  std::vector<std::string> texts;
  for (const Constraint& c : study.constraints) texts.push_back(c.g.text);
  texts.push_back(study.objective.f.text);
  for (const auto& [n, text] : study.relations) texts.push_back(text);
  std::vector<std::string> out;
  for (const auto& [data, values] : study.data) {
    const std::regex pair("\\b" + name + "\\s*-\\s*" + data + "\\b|\\b" + data + "\\s*-\\s*" +
                          name + "\\b");
    for (const std::string& t : texts) {
      if (std::regex_search(t, pair)) {
        out.push_back(data);
        break;
      }
    }
  }
  return out;
}

std::vector<double> values_at(const Study& study, const expr::ProgramPtr& program,
                              const ShownDesign& d) {
  const ExactResponses exact(study, *d.analysis);
  const Eigen::VectorXd v = criterion_values(study, Criterion{program, ""}, d.x, exact);
  return std::vector<double>(v.data(), v.data() + v.size());
}

Plot quantity_plot(const Study& study, const Quantity& q, int load_case,
                   const expr::ProgramPtr& program, const std::vector<ShownDesign>& designs) {
  const bool several = study.load_cases.size() > 1;
  const std::string where = several ? "@" + study.load_cases[load_case].name : "";
  Plot plot{q.title + where, study.time_title(load_case), q.title, {}, {}};
  size_t style = 0, points = 0;
  for (const ShownDesign& d : designs) {
    if (!d.analysis) continue;
    PlotSeries s{d.label, {}, values_at(study, program, d)};
    apply_style(s, style++);
    for (size_t p = 0; p < s.y.size(); ++p) s.x.push_back(point_time(study, *program, p));
    points = s.x.size();
    plot.series.push_back(s);
  }
  for (const std::string& data : targets_of(study, q.name)) {
    const std::vector<double>& target = study.data.at(data);
    if (target.size() != points || plot.series.empty()) continue;
    PlotSeries t = marks("target " + data, "#000", 'd');
    t.x = plot.series.front().x;
    t.y = target;
    plot.series.push_back(t);
  }
  plot.id = html_id("quantity-", q.name + where);
  return plot;
}

// Quantities named x<S> and y<S> drawn against each other (a path), with their targets.
std::vector<Plot> path_plots(const Study& study, const std::vector<Quantity>& quantities,
                             const std::vector<ShownDesign>& designs) {
  std::vector<Plot> out;
  for (const Quantity& qx : quantities) {
    if (qx.name.size() < 2 || qx.name[0] != 'x') continue;
    const std::string stem = qx.name.substr(1);
    for (const Quantity& qy : quantities) {
      if (qy.name != "y" + stem || qx.programs.size() != 1 || qy.programs.size() != 1) continue;
      Plot plot{
          "Path of " + stem + ": " + qy.name + " against " + qx.name, qx.title, qy.title, {}, {}};
      size_t style = 0;
      for (const ShownDesign& d : designs) {
        if (!d.analysis) continue;
        PlotSeries s{d.label, values_at(study, qx.programs[0].second, d),
                     values_at(study, qy.programs[0].second, d)};
        apply_style(s, style++);
        plot.series.push_back(s);
      }
      const auto tx = targets_of(study, qx.name), ty = targets_of(study, qy.name);
      if (tx.size() == 1 && ty.size() == 1 && !plot.series.empty() &&
          study.data.at(tx[0]).size() == study.data.at(ty[0]).size()) {
        PlotSeries t = marks("target points (" + tx[0] + ", " + ty[0] + ")", "#000", 'd');
        t.x = study.data.at(tx[0]);
        t.y = study.data.at(ty[0]);
        plot.series.push_back(t);
      }
      plot.id = html_id("path-", stem);
      if (!plot.series.empty()) out.push_back(plot);
    }
  }
  return out;
}

}  // namespace

std::vector<Plot> branch_charts(StudySession& session) {
  const Study& study = session.study();
  const std::vector<BranchView> branches = branch_views(session.store());
  const int current = session.store().current_branch();
  // Read once for both charts: each branch's lineage, its stored study, and the cycles before
  // which a setting or bound changed.
  std::map<int, std::vector<CycleRecord>> lineages;
  std::map<int, int> studies;
  std::map<int, std::set<int>> changed;
  for (const BranchView& v : branches) {
    lineages[v.info.id] = session.lineage(v.info.id);
    studies[v.info.id] = v.info.study;
    for (const SettingChange& c : session.store().setting_changes(v.info.id)) {
      changed[v.info.id].insert(c.cycle);
    }
  }
  std::vector<Plot> charts;
  for (const bool objective : {true, false}) {
    Plot plot{
        objective ? "Objective per cycle, every branch" : "Violation V per cycle, every branch",
        "cycle",
        objective ? study.objective.note.title(study.objective.name) : "V [%]",
        {},
        {}};
    PlotSeries points = marks("branch points (a restart from that cycle)", "#000", 'r');
    PlotSeries changes = marks(
        "study changed before this cycle (sao set, or a restart's edited study)", "#d62728", 'x');
    const auto mark = [&](PlotSeries& to, int branch, int cycle) {
      for (const CycleRecord& r : lineages.at(branch)) {
        if (r.cycle != cycle || r.x_opt.size() == 0) continue;
        to.x.push_back(r.cycle);
        to.y.push_back(objective ? r.F_opt : r.V);
      }
    };
    std::optional<PlotSeries> current_line;  // drawn last, over the others where they agree
    for (size_t k = 0; k < branches.size(); ++k) {
      const BranchInfo& b = branches[k].info;
      // A stored "running" is a run that has not ended: nothing says it computes now.
      PlotSeries s{fmt::format("branch {}{} ({})", b.id, b.id == current ? ", current" : "",
                               b.status == "running" ? "not ended" : b.status),
                   {},
                   {}};
      apply_style(s, k);
      for (const CycleRecord& r : lineages.at(b.id)) {
        s.x.push_back(r.cycle);
        s.y.push_back(r.x_opt.size() == 0 ? kNaN : objective ? r.F_opt : r.V);
      }
      if (b.id == current) {
        current_line = std::move(s);
      } else {
        plot.series.push_back(std::move(s));
      }
      for (int cycle : changed[b.id]) mark(changes, b.id, cycle);
      if (b.parent == 0 || !lineages.count(b.parent)) continue;
      mark(points, b.parent, b.from_cycle);
      if (studies[b.parent] != b.study) mark(changes, b.id, b.from_cycle + 1);
    }
    if (current_line) plot.series.push_back(std::move(*current_line));
    for (const PlotSeries* m : {&points, &changes}) {
      if (!m->x.empty()) plot.series.push_back(*m);
    }
    plot.x_integer = true;
    plot.id = objective ? "branches-objective" : "branches-violation";
    charts.push_back(plot);
  }
  return charts;
}

std::vector<Plot> output_charts(const Study& study, const std::vector<ShownDesign>& designs) {
  std::vector<std::string> labels;
  std::vector<Evaluation> analyses;
  for (const ShownDesign& d : designs) {
    if (!d.analysis) continue;
    labels.push_back(d.label);
    analyses.push_back(*d.analysis);
  }
  return history_charts(study, labels, analyses, HistoryChoice::kUndeclared);
}

std::vector<Plot> response_charts(const Study& study, const std::vector<ShownDesign>& designs) {
  const std::vector<Quantity> quantities = series_quantities(study);
  std::vector<Plot> charts = path_plots(study, quantities, designs);
  for (const Quantity& q : quantities) {
    for (const auto& [load_case, program] : q.programs) {
      charts.push_back(quantity_plot(study, q, load_case, program, designs));
    }
  }
  return charts;
}

}  // namespace sao::report
