#include "sao/report/report_plots.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <regex>
#include <set>

#include "sao/optimizer/screening.hpp"
#include "sao/report/evaluate.hpp"
#include "sao/study/criteria.hpp"

namespace sao::report {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string section(const std::string& id, const std::string& title, std::vector<TocEntry>& toc) {
  toc.push_back({id, title, 0});
  return fmt::format("<section><h2 id=\"{}\">{}</h2>\n", id, xml_escape(title));
}

// A section of plots with an introduction, its entries after its own in the contents ("" when
// it has no plot).
std::string section_of_plots(const std::string& id, const std::string& title,
                             const std::string& intro, const std::string& plots,
                             const std::vector<TocEntry>& entries, std::vector<TocEntry>& toc) {
  if (plots.empty()) return "";
  std::string body = section(id, title, toc);
  toc.insert(toc.end(), entries.begin(), entries.end());
  return body + "<p>" + xml_escape(intro) + "</p>\n" + plots + "</section>\n";
}

// A plot with an id and a table-of-contents entry under the current section.
std::string listed_plot(Plot plot, const std::string& id, std::vector<TocEntry>& toc,
                        int width = 800, int height = 380) {
  plot.id = id;
  toc.push_back({id, plot.title, 1});
  return svg_plot(plot, width, height);
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

std::string cycle_plots(const Study& study, const std::vector<CycleRecord>& history,
                        const RunSummary& summary, std::vector<TocEntry>& toc) {
  std::string body = section("cycles", "Per cycle", toc);
  const double F0 = summary.start_objective;
  Plot objective = per_cycle("Objective F", study.objective.note.title(study.objective.name), F0,
                             history, [](const CycleRecord& r) { return r.F_opt; });
  objective.log_y = spans_decades(objective);
  if (objective.log_y) objective.y_label += " (log scale)";
  body += listed_plot(objective, "plot-objective", toc);
  Plot violation = per_cycle("Maximum constraint violation V", "V [%]", summary.start_violation,
                             history, [](const CycleRecord& r) { return r.V; });
  violation.horizontal_lines.push_back({0.0, "V = 0: every constraint on its bound"});
  body += listed_plot(violation, "plot-violation", toc);
  PlotSeries ef{"Ef, objective (zeros left out)", {}, {}}, eg{"Eg, constraints", {}, {}};
  apply_style(ef, 2);
  apply_style(eg, 3);
  for (const CycleRecord& r : history) {
    const bool analysed = r.x_opt.size() > 0;
    ef.x.push_back(r.cycle), ef.y.push_back(analysed ? r.Ef : kNaN);
    eg.x.push_back(r.cycle), eg.y.push_back(analysed ? r.Eg : kNaN);
  }
  body +=
      listed_plot({"Approximation errors", "cycle", "error [%] (log scale)", {ef, eg}, {}, true},
                  "plot-errors", toc);
  Plot factors{"Move-limit factors", "cycle", "m", {}, {}};
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
  body += listed_plot(factors, "plot-move-limits", toc);
  body += listed_plot(design, "plot-design", toc);
  return body + "</section>\n";
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

// The sign that turns part j's g into the quantity the entry constrains: -1 for the [-] half.
double part_sign(const Constraint& c) {
  return c.name.find("[-]") != std::string::npos ? -1.0 : 1.0;
}

// The bound lines of a group whose bounds are numbers, each in the legend.
void add_bound_lines(const Study& study, const ConstraintGroup& group, Plot& plot) {
  for (int j : group.parts) {
    const Constraint& c = study.constraints[j];
    if (c.bound_auxiliary >= 0) continue;
    const double s = part_sign(c);
    const bool upper = (c.sense == Sense::kLessEqual) == (s > 0);
    const double bound = s * c.bound;
    bool seen = false;
    for (const ReferenceLine& l : plot.horizontal_lines) seen = seen || l.y == bound;
    if (seen) continue;
    plot.horizontal_lines.push_back(
        {bound, fmt::format("{} bound {:.6g}", upper ? "upper" : "lower", bound), "#000",
         upper ? "6 3" : "2 3"});
  }
}

std::string group_plot(const Study& study, const Options& options, const ConstraintGroup& group,
                       const std::vector<ShownDesign>& designs, std::vector<TocEntry>& toc) {
  const Constraint& first = study.constraints[group.parts.front()];
  std::string sides;
  for (int j : group.parts) {
    const Constraint& c = study.constraints[j];
    sides += (sides.empty() ? "" : ", ") + c.g.text +
             (c.sense == Sense::kLessEqual ? " <= " : " >= ") +
             (c.bound_auxiliary >= 0 ? study.auxiliaries[c.bound_auxiliary].name
                                     : fmt::format("{:.6g}", c.bound));
  }
  Plot plot{"Constraint " + group.name + ": " + sides,
            "t (the load case's grid)",
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
      b.dash = s.dash.empty() ? "6 3" : s.dash;
      b.markers = false;
      plot.series.push_back(b);
    }
    ++style;
  }
  return listed_plot(plot, html_id("constraint-", group.name), toc, 800, 400);
}

}  // namespace

std::string constraint_plots(const Study& study, const Options& options,
                             const std::vector<ShownDesign>& designs, std::vector<TocEntry>& toc) {
  std::string plots;
  std::vector<TocEntry> entries;
  for (const ConstraintGroup& group : constraint_groups(study)) {
    plots += group_plot(study, options, group, designs, entries);
  }
  return section_of_plots("constraints", "Time-dependent constraints",
                          "The constrained quantity over time at each chosen design (an |x| "
                          "constraint with both of its signs, x against its upper and lower "
                          "bound); the bounds are in the legend; dots: the time points the "
                          "screening retains at that design.",
                          plots, entries, toc);
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

std::string quantity_plot(const Study& study, const Quantity& q, int load_case,
                          const expr::ProgramPtr& program, const std::vector<ShownDesign>& designs,
                          std::vector<TocEntry>& toc) {
  const bool several = study.load_cases.size() > 1;
  const std::string where = several ? "@" + study.load_cases[load_case].name : "";
  Plot plot{q.name + where, "t (the load case's grid)", q.title, {}, {}};
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
  return listed_plot(plot, html_id("quantity-", q.name + where), toc, 720, 360);
}

// Quantities named x<S> and y<S> drawn against each other (a path), with their targets.
std::string path_plots(const Study& study, const std::vector<Quantity>& quantities,
                       const std::vector<ShownDesign>& designs, std::vector<TocEntry>& toc) {
  std::string out;
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
      if (!plot.series.empty()) out += listed_plot(plot, html_id("path-", stem), toc, 720, 460);
    }
  }
  return out;
}

}  // namespace

std::string response_plots(const Study& study, const std::vector<ShownDesign>& designs,
                           std::vector<TocEntry>& toc) {
  const std::vector<Quantity> quantities = series_quantities(study);
  std::vector<TocEntry> entries;
  std::string plots = path_plots(study, quantities, designs, entries);
  for (const Quantity& q : quantities) {
    for (const auto& [load_case, program] : q.programs) {
      plots += quantity_plot(study, q, load_case, program, designs, entries);
    }
  }
  return section_of_plots("responses", "Responses and relations",
                          "Histories of the responses and relations at each chosen design, with "
                          "the data arrays they are compared with (target points) where a "
                          "criterion or relation subtracts one from the other.",
                          plots, entries, toc);
}

}  // namespace sao::report
