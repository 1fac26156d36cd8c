#include "sao/report/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "sao/report/chart.hpp"
#include "sao/seam/json_reader.hpp"
#include "sao/seam/json_text.hpp"
#include "sao/store/atomic_file.hpp"
#include "sao/study/criteria.hpp"

namespace sao {

Eigen::VectorXd initial_variables(const Study& study) {
  Eigen::VectorXd x(study.n_total());
  for (int i = 0; i < study.n_design(); ++i) x(i) = study.design[i].initial;
  for (int a = 0; a < study.n_aux(); ++a) x(study.n_design() + a) = study.auxiliaries[a].initial;
  return x;
}

HistoryRange history_range(const Study& study, size_t load_case, const Eigen::VectorXd& history) {
  Eigen::Index at = 0;
  HistoryRange r;
  r.max = history.maxCoeff(&at);
  r.min = history.minCoeff();
  const bool timed = load_case < study.load_cases.size() &&
                     static_cast<int>(history.size()) == study.load_cases[load_case].grid.points;
  r.time_of_max = timed ? study.load_cases[load_case].grid.at(static_cast<int>(at))
                        : std::numeric_limits<double>::quiet_NaN();
  return r;
}

double point_time(const Study& study, const expr::Program& program, int point) {
  const int lc = program.grid_case();
  return lc < 0 ? point : study.load_cases[lc].grid.at(point);
}

namespace {

// The time of a constraint's point; 0 for a scalar or a series over a data array (no grid).
double time_of(const Study& study, const Constraint& c, int point) {
  return c.g.program->grid_case() < 0 ? 0.0 : point_time(study, *c.g.program, point);
}

std::string fmt(const char* format, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, a);
  return buf;
}

}  // namespace

Study as_measured(const Study& study, const std::vector<double>& scales) {
  Study out = study;
  if (scales.size() != study.constraints.size()) return out;
  for (size_t j = 0; j < scales.size(); ++j) out.constraints[j].scale = scales[j];
  return out;
}

DesignSummary summarise_design(const Study& study, const Evaluation& evaluation,
                               const Eigen::VectorXd& x_in) {
  const ExactResponses exact(study, evaluation);
  Eigen::VectorXd x = x_in;
  DesignSummary out;
  // Bound formulation: the objective is the largest value the auxiliary bounds, and the
  // auxiliary is set to it (the design's own objective, not the start guess).
  if (study.bounds_maxima()) x = with_bounded_maxima(study, x, exact);
  out.objective = user_objective(study, criterion_value(study, study.objective.f, 0, x, exact));
  for (const Objective& o : study.objectives)
    out.objectives.push_back(objective_value(study, o, x, exact));
  out.max_violation = study.constraints.empty() ? -100.0 : -std::numeric_limits<double>::infinity();
  for (const Constraint& c : study.constraints) {
    ConstraintSummary s;
    s.name = c.name;
    s.note = c.note;
    s.bound = constraint_bound(study, c, x);
    s.normaliser = constraint_normaliser(study, c, x);
    const Eigen::VectorXd g = criterion_values(study, c.g, x, exact);
    const Eigen::VectorXd gh = normalised_history(study, c, x, exact);
    Eigen::Index k = 0;
    s.normalised = gh.maxCoeff(&k);
    s.point = static_cast<int>(k);
    s.worst = g(k);
    s.time = time_of(study, c, s.point);
    out.max_violation = std::max(out.max_violation, 100.0 * s.normalised);
    out.constraints.push_back(s);
  }
  return out;
}

namespace {

const ResponseDef* declared_response(const Study& study, const std::string& key) {
  for (const ResponseDef& r : study.responses) {
    if (response_key(r) == key) return &r;
  }
  return nullptr;
}

// " [unit]" after a value, or "" for none.
std::string bracketed(const Annotation& note) {
  if (note.unit.empty()) return {};
  std::string out(1, ' ');  // appended piecewise: GCC 12 warns falsely on " " + std::string
  out += note.bracketed_unit();
  return out;
}

}  // namespace

std::string response_key(const ResponseDef& r) {
  return r.derived.empty() ? r.source : r.name;
}

std::string declared_name(const Study& study, const std::string& key) {
  const ResponseDef* r = declared_response(study, key);
  return r ? r->name : "";
}

std::string declared_unit(const Study& study, const std::string& key) {
  const ResponseDef* r = declared_response(study, key);
  return r ? r->note.unit : "";
}

std::string design_report(const Study& study, const Evaluation& evaluation,
                          const Eigen::VectorXd& x, bool all) {
  const DesignSummary s = summarise_design(study, evaluation, x);
  std::string r = "design    ";
  for (int i = 0; i < study.n_design(); ++i) {
    r += " " + study.design[i].name + " = " + fmt("%.6g", x(i)) + bracketed(study.design[i].note);
  }
  if (study.multi_objective()) {
    for (size_t k = 0; k < study.objectives.size(); ++k) {
      const Objective& o = study.objectives[k];
      r += std::string(k == 0 ? "\nobjectives " : "           ") + o.name + " = " +
           fmt("%.6g", s.objectives[k]) + bracketed(o.note) +
           (o.maximize ? " (maximised)\n" : " (minimised)\n");
    }
  } else {
    r += "\nobjective  " + study.objective.name + " = " + fmt("%.6g", s.objective) +
         bracketed(study.objective.note) + "\n";
  }
  r += "violation  " + fmt("%.3g", s.max_violation) + " %\n\nconstraints (worst point)\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-36s %14s %14s %10s %10s  %s\n", "name", "value", "bound",
                "g_hat[%]", "t", "unit");
  r += line;
  for (const ConstraintSummary& c : s.constraints) {
    std::snprintf(line, sizeof line, "  %-36s %14.6g %14.6g %10.3g %10.4g  %s\n", c.name.c_str(),
                  c.worst, c.bound, 100.0 * c.normalised, c.time, c.note.unit.c_str());
    r += line;
  }
  r += all ? "\nresponses (every one the simulator delivers)\n"
           : "\nresponses (the study's; --all: every one the simulator delivers)\n";
  std::snprintf(line, sizeof line, "  %-14s %-12s %14s %10s %14s %10s  %s\n", "response", "case",
                "min", "t", "max", "t", "unit");
  r += line;
  for (size_t c = 0; c < study.load_cases.size() && c < evaluation.cases.size(); ++c) {
    const CaseResult& cr = evaluation.cases[c];
    const LoadCaseSpec& lc = study.load_cases[c];
    for (const auto& [key, h] : cr.histories) {
      const std::string name = all ? key : declared_name(study, key);
      if (name.empty() || h.size() == 0) continue;
      Eigen::Index lo = 0, hi = 0;
      const double mn = h.minCoeff(&lo), mx = h.maxCoeff(&hi);
      std::snprintf(line, sizeof line, "  %-14s %-12s %14.6g %10.4g %14.6g %10.4g  %s\n",
                    name.c_str(), lc.name.c_str(), mn, lc.grid.at(static_cast<int>(lo)), mx,
                    lc.grid.at(static_cast<int>(hi)), declared_unit(study, key).c_str());
      r += line;
    }
    for (const auto& [key, v] : cr.scalars) {
      const std::string name = all ? key : declared_name(study, key);
      if (name.empty()) continue;
      std::snprintf(line, sizeof line, "  %-14s %-12s %14.6g %10s %14s %10s  %s\n", name.c_str(),
                    lc.name.c_str(), v, "", "", "", declared_unit(study, key).c_str());
      r += line;
    }
  }
  return r;
}

Eigen::VectorXd variables_from_result(const Study& study, const std::string& result_file) {
  // Not JSON, or a number beyond a double: the file, line, column and path named.
  const nlohmann::json doc = read_json_file(result_file);
  if (!doc.is_object() || !doc.contains("design")) {
    throw std::invalid_argument(result_file + ": no \"design\" object (a result.json of sao run?)");
  }
  if (!doc["design"].is_object()) {
    throw std::invalid_argument(result_file +
                                ": design: " + json_expected("an object", doc["design"]));
  }
  Eigen::VectorXd x = initial_variables(study);
  for (const auto& [name, value] : doc["design"].items()) {
    const int index = study.variable_index(name);
    if (index < 0) {
      throw std::invalid_argument(result_file + ": design." + name +
                                  ": not a variable of this study");
    }
    if (!value.is_number()) {
      throw std::invalid_argument(result_file + ": design." + name + ": " +
                                  json_expected("a number", value));
    }
    x(index) = value.get<double>();
  }
  return x;
}

namespace {

// The response a simulator history is delivered as (its name or source), and the bounds the
// study's constraints put on it in load case `load_case` (both signs of an |x| constraint), as
// labelled lines; the y axis titled "label [unit]".
void add_response_bounds(const Study& study, const std::string& history, int load_case,
                         Plot& plot) {
  const ResponseDef* response = nullptr;
  for (const ResponseDef& r : study.responses) {
    if (r.source == history || (r.source.empty() && r.name == history)) response = &r;
  }
  if (!response) return;
  plot.y_label = response->note.title(response->name);
  for (const Constraint& c : study.constraints) {
    const double sign = c.g.text == response->name ? 1.0 : -1.0;
    if (c.bound_auxiliary >= 0 || c.g.program->grid_case() != load_case) continue;
    if (c.g.text != response->name && c.g.text != "-(" + response->name + ")") continue;
    const bool upper = (c.sense == Sense::kLessEqual) == (sign > 0);
    const double bound = sign * c.bound;
    plot.horizontal_lines.push_back(
        {bound,
         (upper ? "upper bound " : "lower bound ") + fmt("%.6g", bound) + " (" + c.name + ")",
         "#000", upper ? "6 3" : "2 3"});
  }
}

}  // namespace

std::vector<Plot> history_charts(const Study& study, const std::vector<std::string>& labels,
                                 const std::vector<Evaluation>& evaluations, HistoryChoice which) {
  const bool all = which != HistoryChoice::kDeclared;
  std::vector<Plot> charts;
  for (size_t c = 0; c < study.load_cases.size(); ++c) {
    const LoadCaseSpec& lc = study.load_cases[c];
    const std::vector<double> t = lc.grid.times();
    if (evaluations.empty() || c >= evaluations.front().cases.size()) continue;
    for (const auto& [key, h] : evaluations.front().cases[c].histories) {
      const std::string name = all ? key : declared_name(study, key);
      if (name.empty()) continue;
      if (which == HistoryChoice::kUndeclared && !declared_name(study, key).empty()) continue;
      Plot plot{"", study.time_title(static_cast<int>(c)), name, {}, {}, false};
      add_response_bounds(study, key, static_cast<int>(c), plot);  // y_label: "label [unit]"
      plot.title = plot.y_label + " @" + lc.name;
      for (size_t k = 0; k < evaluations.size() && k < labels.size(); ++k) {
        const auto& histories = evaluations[k].cases.at(c).histories;
        auto it = histories.find(key);
        if (it == histories.end()) continue;
        PlotSeries s{labels[k], t, {}};
        apply_style(s, k);
        s.markers = false;
        s.y.assign(it->second.data(), it->second.data() + it->second.size());
        plot.series.push_back(std::move(s));
      }
      plot.id = lc.name + "-" + name;
      if (which == HistoryChoice::kUndeclared) {
        plot.title += " (delivered by the simulator, not a response of the study)";
        plot.id = "output-" + plot.id;
      }
      charts.push_back(std::move(plot));
    }
  }
  return charts;
}

std::string write_history_page(const std::string& dir, const std::string& title,
                               const std::vector<Plot>& charts) {
  make_output_folder(dir);
  std::string body = "<h1>" + xml_escape(title) + "</h1>\n<div class=\"charts\">\n";
  for (const Plot& p : charts) body += chart_html(p);
  const std::string file = dir + "/histories.html";
  write_file_atomically(file, chart_page(title, body + "</div>\n"));
  return file;
}

}  // namespace sao
