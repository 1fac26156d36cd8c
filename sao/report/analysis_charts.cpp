#include "sao/report/analysis_charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "sao/optimizer/driver.hpp"
#include "sao/report/evaluate.hpp"
#include "sao/report/report_plots.hpp"
#include "sao/store/branch_state.hpp"
#include "sao/study/criteria.hpp"

namespace sao::report {
namespace {

// The worst value over its points of the quantity a constraint part bounds, its sign undone:
// the largest under an upper bound, the smallest over a lower one.
double worst_value(const Study& study, const Constraint& c, const Eigen::VectorXd& x,
                   const ExactResponses& exact) {
  const Eigen::VectorXd g = criterion_values(study, c.g, x, exact);
  return part_sign(c) * (c.sense == Sense::kLessEqual ? g.maxCoeff() : g.minCoeff());
}

// Whether the objective is a value of its own (not the auxiliary of a bound formulation, whose
// parts are constraints named objective:...).
bool objective_column(const Study& study) {
  return study.objective.f.program->uses_responses() || study.n_total() == study.n_design();
}

// design key -> (branch, cycle) of every cycle start and proposal of every branch's lineage.
std::map<std::vector<double>, std::pair<int, int>> cycle_designs(StudySession& session) {
  const Study& study = session.study();
  std::map<std::vector<double>, std::pair<int, int>> out;
  for (const BranchView& b : branch_views(session.store())) {
    for (const CycleRecord& r : session.lineage(b.info.id)) {
      if (r.cycle == 1 && r.x0.size() > 0)
        out.emplace(design_key(study, r.x0), std::pair{b.info.id, 0});
      if (r.x_opt.size() > 0)
        out.emplace(design_key(study, r.x_opt), std::pair{b.info.id, r.cycle});
    }
  }
  return out;
}

size_t column(const AnalysisTable& table, const std::string& key) {
  const auto at = std::find(table.keys.begin(), table.keys.end(), key);
  if (at == table.keys.end()) {
    std::string known;
    for (const std::string& k : table.keys) known += (known.empty() ? "" : ", ") + k;
    throw std::invalid_argument("\"" + key.substr(0, 60) +
                                "\" is not a quantity of the stored analyses (" + known + ")");
  }
  return static_cast<size_t>(at - table.keys.begin());
}

}  // namespace

AnalysisTable analysis_table(StudySession& session) {
  const Study& study = session.study();
  AnalysisTable t;
  for (const DesignVariable& v : study.design) {
    t.columns.push_back(v.note.title(v.name));
    t.units.push_back(v.note.unit);
    t.keys.push_back(v.name);
  }
  t.variables = t.keys.size();
  const bool objective = objective_column(study);
  if (objective) {
    t.columns.push_back("objective: " + study.objective.note.title(study.objective.name));
    t.units.push_back(study.objective.note.unit);
    t.keys.push_back("objective");
  }
  std::vector<const Constraint*> parts;
  for (const Constraint& c : study.constraints) {
    if (!c.g.program->uses_responses()) continue;
    parts.push_back(&c);
    t.columns.push_back(constraint_display_name(c) +
                        (c.g.time_dependent() ? " (worst over t)" : ""));
    t.units.push_back(c.note.unit);
    t.keys.push_back(c.name);
  }
  const auto cycles = cycle_designs(session);
  std::map<int, int> last_cycle;  // branch -> the cycle of its latest matched analysis
  Eigen::VectorXd x = initial_variables(study);
  long index = -1;
  for (const StoredAnalysis& a : session.store().analyses()) {
    ++index;
    if (!a.evaluation.ok || a.design.size() != study.n_design()) continue;
    x.head(study.n_design()) = a.design;
    std::vector<double> row(a.design.data(), a.design.data() + a.design.size());
    try {
      const ExactResponses exact(study, a.evaluation);
      if (objective)
        row.push_back(
            user_objective(study, criterion_value(study, study.objective.f, 0, x, exact)));
      for (const Constraint* c : parts) row.push_back(worst_value(study, *c, x, exact));
    } catch (const std::exception&) {
      continue;  // an analysis of another study's responses (a restart changed them)
    }
    const auto match = cycles.find(design_key(study, x));
    int branch = a.branch, cycle = last_cycle[a.branch];
    if (match != cycles.end()) {
      if (branch == 0) branch = match->second.first;
      cycle = match->second.second;
      last_cycle[branch] = cycle;
    }
    t.rows.push_back(std::move(row));
    t.index.push_back(index);
    t.branch.push_back(branch);
    t.cycle.push_back(cycle);
  }
  return t;
}

Plot analysis_scatter(const AnalysisTable& table, const std::string& x, const std::string& y,
                      const std::string& by) {
  if (by != "branch" && by != "cycle") {
    throw std::invalid_argument("by: expected \"branch\" or \"cycle\", got \"" + by.substr(0, 40) +
                                "\"");
  }
  const size_t cx = column(table, x), cy = column(table, y);
  Plot plot{table.columns[cy] + " against " + table.columns[cx],
            table.columns[cx],
            table.columns[cy],
            {},
            {}};
  // The sides of an |x| constraint stay apart in the id ("[+]" and "[-]" are no id characters).
  auto side = [](std::string key) {
    for (const auto& [from, to] : {std::pair{"[+]", "-plus"}, std::pair{"[-]", "-minus"}}) {
      for (size_t at = key.find(from); at != std::string::npos; at = key.find(from)) {
        key.replace(at, 3, to);
      }
    }
    return key;
  };
  plot.id = html_id("analyses-", side(y) + "-" + side(x));
  plot.empty_message = "no usable analysis in the store yet";
  if (by == "cycle") {
    const int last =
        table.cycle.empty() ? 0 : *std::max_element(table.cycle.begin(), table.cycle.end());
    PlotSeries s{
        fmt::format("{} analyses, shaded by cycle: 0 light to {} dark", table.rows.size(), last),
        {},
        {},
        plot_colour(0)};
    s.line = false;
    for (size_t r = 0; r < table.rows.size(); ++r) {
      s.x.push_back(table.rows[r][cx]);
      s.y.push_back(table.rows[r][cy]);
      s.shade.push_back(last > 0 ? static_cast<double>(table.cycle[r]) / last : 1.0);
      s.ids.push_back(table.index[r]);
    }
    plot.series.push_back(s);
    return plot;
  }
  std::map<int, size_t> series;
  for (size_t r = 0; r < table.rows.size(); ++r) {
    const auto [at, added] = series.emplace(table.branch[r], plot.series.size());
    if (added) {
      PlotSeries s{
          table.branch[r] ? fmt::format("branch {}", table.branch[r]) : "branch not recorded",
          {},
          {}};
      apply_style(s, at->second);
      s.line = false;
      plot.series.push_back(s);
    }
    plot.series[at->second].x.push_back(table.rows[r][cx]);
    plot.series[at->second].y.push_back(table.rows[r][cy]);
    plot.series[at->second].ids.push_back(table.index[r]);
  }
  return plot;
}

std::pair<std::string, std::string> scatter_keys(const AnalysisTable& table, const std::string& x,
                                                 const std::string& y) {
  const std::string first_y =
      table.variables < table.keys.size() ? table.keys[table.variables] : "";
  return {x.empty() && !table.keys.empty() ? table.keys.front() : x, y.empty() ? first_y : y};
}

std::vector<Plot> analysis_charts(const AnalysisTable& table, const Study& study) {
  std::vector<std::string> ys;
  if (objective_column(study)) {
    ys.push_back("objective");
  } else {
    for (const Constraint& c : study.constraints) {
      if (c.name.rfind("objective:", 0) == 0 && c.g.program->uses_responses()) ys.push_back(c.name);
    }
  }
  std::vector<Plot> out;
  for (const std::string& y : ys) {
    for (const DesignVariable& v : study.design)
      out.push_back(analysis_scatter(table, v.name, y, "cycle"));
  }
  return out;
}

}  // namespace sao::report
