#include "sao/report/html_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "sao/report/analysis_charts.hpp"
#include "sao/report/report_plots.hpp"
#include "sao/report/result_file.hpp"
#include "sao/study/criteria.hpp"

namespace sao {

using report::ShownDesign;
using report::TocEntry;

std::vector<std::string> parse_report_cycles(const std::string& text) {
  std::vector<std::string> out;
  size_t from = 0;
  while (from <= text.size()) {
    const size_t comma = std::min(text.find(',', from), text.size());
    std::string item = text.substr(from, comma - from);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    const bool number = !item.empty() && item.find_first_not_of("0123456789") == std::string::npos;
    if (!(number && item.size() <= 9) && item != "first" && item != "best" && item != "last") {
      throw std::invalid_argument("--cycles: \"" + item +
                                  "\" is not a cycle number, \"first\", \"best\" or \"last\" "
                                  "(e.g. --cycles 0,3,last)");
    }
    out.push_back(item);
    from = comma + 1;
  }
  return out;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The accepted design of the lowest objective among the feasible ones (V <= vioacc; none
// feasible: the lowest V), cycle 0 (the start) included. Returns its cycle.
int best_cycle(const std::vector<CycleRecord>& history, const RunSummary& summary,
               const Options& options) {
  int best = 0;
  double best_F = summary.start_objective;
  double best_V = summary.start_violation;
  auto better = [&](double F, double V) {
    const bool feasible = V <= options.vioacc, best_feasible = best_V <= options.vioacc;
    if (feasible != best_feasible) return feasible;
    return feasible ? F < best_F : V < best_V;
  };
  for (const CycleRecord& r : history) {
    if (!r.accepted || r.x_opt.size() == 0 || !better(r.F_opt, r.V)) continue;
    best = r.cycle, best_F = r.F_opt, best_V = r.V;
  }
  return best;
}

// The designs `options.cycles` names (default first, best, last), one entry per distinct
// design with every name it goes by, with their stored analyses.
std::vector<ShownDesign> chosen_designs(StudySession& session,
                                        const std::vector<CycleRecord>& history,
                                        const RunSummary& summary, const ReportOptions& options) {
  std::vector<std::string> wanted = options.cycles;
  if (wanted.empty()) wanted = {"first", "best", "last"};
  const int last = static_cast<int>(history.size());
  std::vector<ShownDesign> designs;
  for (const std::string& w : wanted) {
    int cycle = w == "first" ? 0 : w == "last" ? last : -1;
    if (w == "best") cycle = best_cycle(history, summary, session.options());
    if (cycle < 0) cycle = std::stoi(w);
    if (cycle > last) {
      throw std::invalid_argument(fmt::format(
          "--cycles: cycle {} does not exist (this branch has cycles 0 to {})", cycle, last));
    }
    Eigen::VectorXd x;
    std::string label = w == "first" || w == "best" || w == "last" ? w + ": " : "";
    if (history.empty()) {
      x = summary.x;
      label += "cycle 0";
    } else if (cycle == 0) {
      x = history.front().x0;
      label += "start (cycle 0)";
    } else if (w == "last") {
      x = summary.x.size() > 0 ? summary.x : history.back().x0;
      label += fmt::format("final design (cycle {})", cycle);
    } else {
      const CycleRecord& r = history[cycle - 1];
      if (r.x_opt.size() == 0) continue;  // a failed cycle proposed nothing analysable
      x = r.x_opt;
      label += fmt::format("cycle {}{}", cycle,
                           r.accepted ? "" : " (" + std::string(cycle_outcome(r)) + ")");
    }
    auto same = std::find_if(designs.begin(), designs.end(), [&](const ShownDesign& d) {
      return d.x.size() == x.size() && (x.size() == 0 || (d.x - x).cwiseAbs().maxCoeff() == 0.0);
    });
    if (same != designs.end()) {
      same->label += ", " + label;
      continue;
    }
    designs.push_back({label, x, std::nullopt});
  }
  const int n = session.study().n_design();
  for (ShownDesign& d : designs) {
    if (d.x.size() < n) continue;
    std::vector<Evaluation> stored = session.store().lookup(d.x.head(n), false);
    if (!stored.empty()) d.analysis = stored.front();
  }
  return designs;
}

std::string number(double v) {
  return std::isfinite(v) ? fmt::format("{:.6g}", v) : (v > 0 ? "+inf" : "-inf");
}

// The final design: each variable with its bounds, and which bound it is on.
std::string design_table(const Study& study, const Eigen::VectorXd& x) {
  std::string table =
      "<table class=\"optimum\"><tr><th>variable</th><th>name</th><th>value</th><th>lower</th>"
      "<th>upper</th><th>active bound</th></tr>\n";
  for (int i = 0; i < study.n_design() && i < x.size(); ++i) {
    const DesignVariable& v = study.design[i];
    const double tol = 1e-6 * v.span();
    const char* on = std::abs(x(i) - v.lower) <= tol   ? "lower"
                     : std::abs(x(i) - v.upper) <= tol ? "upper"
                                                       : "";
    table += fmt::format(
        "<tr{}><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "</tr>\n",
        *on ? " class=\"active\"" : "", xml_escape(v.note.title(v.name)), xml_escape(v.name),
        number(x(i)), number(v.lower), number(v.upper), on);
  }
  return table + "</table>\n";
}

// The active constraints at the final design: the worst point of every part active by
// is_active (result_file.hpp: within 0.1 % of its bound, or violated), with the multiplier of the
// first-order check where it was measured there. The bound formulation's own rows (objective:...)
// are left out: at a min-max optimum they are active by construction.
std::string active_constraints(const Study& study, const RunSummary& summary,
                               const std::optional<Evaluation>& analysis) {
  if (!analysis) return "<p>The final design's analysis is not in the store.</p>\n";
  const Eigen::VectorXd& x = summary.x;
  const ExactResponses exact(study, *analysis);
  const FinalOptimality& f = summary.optimality;
  std::string rows;
  for (const Constraint& c : study.constraints) {
    if (c.name.rfind("objective:", 0) == 0) continue;
    const Eigen::VectorXd g_hat = normalised_history(study, c, x, exact);
    Eigen::Index worst = 0;
    const double top = g_hat.maxCoeff(&worst);
    if (!is_active(top)) continue;
    const Eigen::VectorXd g = criterion_values(study, c.g, x, exact);
    // The first-order check names its rows "part[point]": the part's multiplier is their sum.
    std::string multiplier = "-";
    if (f.at_final_design) {
      double sum = 0.0;
      bool found = false;
      for (const auto& a : f.constraints) {
        if (a.name != c.name && a.name.rfind(c.name + "[", 0) != 0) continue;
        sum += a.multiplier;
        found = true;
      }
      if (found) multiplier = fmt::format("{:.4g}", sum);
    }
    const int lc = c.g.program->grid_case();
    const std::string where =
        c.g.time_dependent()
            ? fmt::format("t = {:.6g}",
                          lc < 0 ? static_cast<double>(worst) : study.load_cases[lc].grid.at(worst))
            : "";
    rows += fmt::format(
        "<tr><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} {}</td>"
        "<td>{:.3g}</td><td>{}</td></tr>\n",
        xml_escape(report::constraint_display_name(c)), xml_escape(c.name), xml_escape(where),
        number(g(worst)),
        c.sense == Sense::kLessEqual ? "&lt;=" : "&gt;=", number(constraint_bound(study, c, x)),
        100.0 * top, multiplier);
  }
  if (rows.empty())
    return "<p>No constraint is within 0.1 % of its bound at the final design.</p>\n";
  return "<table class=\"active-constraints\"><tr><th>constraint</th><th>part</th><th>where</th>"
         "<th>value</th><th>bound</th><th>g&#770; [%]</th><th>multiplier</th></tr>\n" +
         rows + "</table>\n";
}

std::string summary_section(StudySession& session, const std::vector<CycleRecord>& history,
                            const RunSummary& s, const std::optional<Evaluation>& final_analysis) {
  const Study& study = session.study();
  int rejected = 0, relaxed = 0, failed = 0;
  for (const CycleRecord& r : history) {
    failed += r.x_opt.size() == 0;
    rejected += std::string(cycle_outcome(r)) == "rejected";
    relaxed += r.relaxed;
  }
  std::string out = "<section><h2 id=\"summary\">Summary</h2>\n";
  out += fmt::format("<p class=\"status\"><b>Status: {}</b> &mdash; {}</p>\n", to_string(s.status),
                     xml_escape(s.message));
  out += fmt::format(
      "<table class=\"figures\"><tr><th></th><th>start</th><th>final</th></tr>\n"
      "<tr><td class=\"name\">{}</td><td>{}</td><td>{}</td></tr>\n"
      "<tr><td class=\"name\">maximum violation V [%]</td><td>{:.3g}</td><td>{:.3g}</td></tr>\n"
      "</table>\n",
      xml_escape("objective: " + study.objective.note.title(study.objective.name) +
                 (study.objective.maximize ? " (maximised)" : " (minimised)")),
      number(s.start_objective), number(s.objective), s.start_violation, s.max_violation);
  out += "<h3>Optimum</h3>\n" + design_table(study, s.x);
  out += "<h3>Active constraints</h3>\n" + active_constraints(study, s, final_analysis);
  if (s.optimality.computed) {
    out += fmt::format(
        "<p>First-order check (multipliers): residual {:.3g} (tolerance {:.3g}) at the start "
        "design of cycle {}{}.</p>\n",
        s.optimality.residual, s.optimality.tolerance, s.optimality.cycle,
        s.optimality.at_final_design ? ", the final design" : ", not the final design");
  }
  out += fmt::format(
      "<p class=\"counts\">{} cycles ({} rejected, {} relaxed, {} failed); {} analyses and {} "
      "sensitivity analyses on this branch; the store holds {} analyses from {} simulator runs "
      "(every branch).</p>\n</section>\n",
      history.size(), rejected, relaxed, failed, s.analyses, s.sensitivity_analyses,
      session.store().analysis_count(), session.store().simulator_runs());
  return out;
}

std::string toc_html(const std::vector<TocEntry>& toc) {
  std::string out = "<nav><h2>Contents</h2>\n<ul class=\"toc\">\n";
  bool nested = false;
  for (const TocEntry& e : toc) {
    if (e.level > 0 && !nested) out += "<ul>\n", nested = true;
    if (e.level == 0 && nested) out += "</ul>\n", nested = false;
    out += fmt::format("<li><a href=\"#{}\">{}</a></li>\n", e.id, xml_escape(e.title));
  }
  if (nested) out += "</ul>\n";
  return out + "</ul>\n</nav>\n";
}

// The history as a table, cycle 0 (the start) first; rejected and relaxed cycles marked.
std::string history_table(const Study& study, const std::vector<CycleRecord>& history,
                          const RunSummary& summary, std::vector<TocEntry>& toc) {
  toc.push_back({"history", "History (table)", 0});
  const int n = study.n_design();
  std::string table =
      "<section><h2 id=\"history\">History</h2>\n<div class=\"table-scroll\"><table "
      "class=\"history\"><tr><th>cycle</th>"
      "<th>accepted</th>";
  for (const auto& v : study.design) table += "<th>" + xml_escape(v.note.title(v.name)) + "</th>";
  table += "<th>" + xml_escape(study.objective.note.title(study.objective.name)) +
           "</th><th>Ef [%]</th><th>Eg [%]</th><th>V [%]</th></tr>\n";
  if (!history.empty()) {
    table += "<tr><td>0</td><td>start</td>";
    for (int i = 0; i < n; ++i) table += fmt::format("<td>{:.6g}</td>", history.front().x0(i));
    table += fmt::format("<td>{:.6g}</td><td></td><td></td><td>{:.3g}</td></tr>\n",
                         summary.start_objective, summary.start_violation);
  }
  for (const CycleRecord& r : history) {
    if (r.x_opt.size() == 0) {
      table +=
          fmt::format("<tr class=\"failed\"><td>{}</td><td colspan=\"{}\">failed: {}</td></tr>\n",
                      r.cycle, n + 5, xml_escape(r.message));
      continue;
    }
    const std::string outcome = cycle_outcome(r);
    const std::string state = outcome + (r.relaxed ? ", relaxed" : "");
    table += fmt::format("<tr{}><td>{}</td><td>{}</td>",
                         outcome == "rejected" ? " class=\"rejected\"" : "", r.cycle, state);
    for (int i = 0; i < n; ++i) table += fmt::format("<td>{:.6g}</td>", r.x_opt(i));
    table += fmt::format("<td>{:.6g}</td><td>{:.3g}</td><td>{:.3g}</td><td>{:.3g}</td></tr>\n",
                         r.F_opt, r.Ef, r.Eg, r.V);
  }
  return table + "</table></div>\n</section>\n";
}

}  // namespace

RunSummary with_lineage_start(StudySession& session, const std::vector<CycleRecord>& history) {
  RunSummary s = session.driver().summary();
  if (history.empty()) return s;
  const Study& study = session.study();
  const Eigen::VectorXd& x0 = history.front().x0;
  const std::optional<Evaluation> e =
      x0.size() == study.n_total() ? session.analysis_of(x0.head(study.n_design())) : std::nullopt;
  if (!e) {
    s.start_objective = history.front().F0;
    return s;
  }
  s.set_start(study, x0, ExactResponses(study, *e));
  return s;
}

std::string html_report(StudySession& session, const ReportOptions& options) {
  const Study& study = session.study();
  const std::vector<CycleRecord> history = session.lineage(session.branch());
  const RunSummary s = with_lineage_start(session, history);
  const std::vector<ShownDesign> designs = chosen_designs(session, history, s, options);
  const std::optional<Evaluation> final_analysis =
      s.x.size() >= study.n_design() ? session.analysis_of(s.x.head(study.n_design()))
                                     : std::nullopt;
  std::vector<TocEntry> toc = {{"summary", "Summary", 0}};
  std::string body = report::chart_section(
      "cycles", "Per cycle", "", report::cycle_charts(study, session.options(), history, s), toc);
  body += report::chart_section(
      "constraints", "Time-dependent constraints",
      "The constrained quantity over time at each chosen design (an |x| constraint with both of "
      "its signs, x against its upper and lower bound); the bounds are in the legend; markers: "
      "the time points the screening retains at that design.",
      report::constraint_charts(report::measured_study(session, session.branch()),
                                session.options(), designs),
      toc);
  body += report::chart_section(
      "responses", "Responses and relations",
      "Histories of the responses and relations at each chosen design, with the data arrays "
      "they are compared with (target points) where a criterion or relation subtracts one from "
      "the other.",
      report::response_charts(study, designs), toc);
  body += report::chart_section(
      "outputs", "Other simulator outputs",
      "Histories the simulator delivers beside the study's responses (e.g. the road under a "
      "vehicle), at each chosen design.",
      report::output_charts(study, designs), toc);
  body += report::chart_section(
      "analyses", "Every stored analysis",
      "One point per analysis in the store (every branch), shaded by the cycle it belongs to: "
      "the objective against each design variable. The workbench draws any quantity against "
      "any other.",
      report::analysis_charts(report::analysis_table(session), study), toc);
  if (session.store().branches().size() > 1) {
    body += report::chart_section("branches", "Branches",
                                  "Every branch of the study from its start design on (a "
                                  "restarted branch: its parent's cycles up to where it left).",
                                  report::branch_charts(session), toc);
  }
  body += history_table(study, history, s, toc);
  std::string shown;
  for (const ShownDesign& d : designs) {
    shown += (shown.empty() ? "" : "; ") + d.label + (d.analysis ? "" : " (no stored analysis)");
  }
  return chart_page(
      study.name + " - sao report",
      fmt::format("<h1>{}</h1>\n<p>{}</p>\n<p>Branch {}. Histories drawn at: {}. Charts: drag "
                  "across one to zoom, double-click for all of it; PNG and CSV under each.</p>\n"
                  "{}{}{}",
                  xml_escape(study.name), xml_escape(study.description), session.branch(),
                  xml_escape(shown), summary_section(session, history, s, final_analysis),
                  toc_html(toc), body));
}

}  // namespace sao
