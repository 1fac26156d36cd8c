#include "sao/report/pareto_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>

#include "sao/report/chart.hpp"
#include "sao/store/atomic_file.hpp"

namespace sao {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

nlohmann::ordered_json values_json(const Study& study, const ParetoValues& v) {
  nlohmann::ordered_json objectives, constraints;
  for (size_t k = 0; k < study.objectives.size(); ++k)
    objectives[study.objectives[k].name] = v.objectives(static_cast<Eigen::Index>(k));
  for (size_t j = 0; j < study.constraints.size(); ++j)
    constraints[study.constraints[j].name] = v.constraints(static_cast<Eigen::Index>(j));
  return {{"objectives", objectives},
          {"constraints", constraints.is_null() ? nlohmann::ordered_json::object() : constraints},
          {"max_violation", v.violation}};
}

}  // namespace

report::Table pareto_table(const Study& study, const ParetoResult& result) {
  using Kind = report::Column::Kind;
  report::Table t;
  const size_t n = result.front.size();
  auto column = [&t](const std::string& name, const std::string& unit,
                     Kind kind) -> report::Column& {
    return t.add(name, unit, kind, kind == Kind::real ? 10 : 0);
  };
  report::Column* c = &column("point", "", Kind::integer);
  for (size_t i = 0; i < n; ++i) c->numbers.push_back(static_cast<double>(i + 1));
  c = &column("verified", "", Kind::text);
  for (const ParetoPoint& p : result.front) c->texts.push_back(p.verified ? "yes" : "no");
  c = &column("agrees", "", Kind::text);
  for (const ParetoPoint& p : result.front)
    c->texts.push_back(p.verified ? (p.agrees ? "yes" : "no") : "");
  for (int k = 0; k < study.n_design(); ++k) {
    c = &column(study.design[k].name, study.design[k].note.unit, Kind::real);
    for (const ParetoPoint& p : result.front) c->numbers.push_back(p.design(k));
  }
  // One column of each point's values (predicted, or computed: verified points only).
  auto values = [&](const std::string& name, const std::string& unit, bool computed,
                    const std::function<double(const ParetoValues&)>& of) {
    report::Column& v = column(name, unit, Kind::real);
    for (const ParetoPoint& p : result.front) {
      if (computed && !p.verified) {
        v.numbers.push_back(std::nullopt);
      } else {
        v.numbers.push_back(of(computed ? p.computed : p.predicted));
      }
    }
  };
  for (const bool computed : {false, true}) {
    const std::string what = computed ? " computed" : " predicted";
    for (size_t k = 0; k < study.objectives.size(); ++k) {
      values(study.objectives[k].name + what, study.objectives[k].note.unit, computed,
             [k](const ParetoValues& v) { return v.objectives(static_cast<Eigen::Index>(k)); });
    }
    for (size_t j = 0; j < study.constraints.size(); ++j) {
      values(study.constraints[j].name + what, study.constraints[j].note.unit, computed,
             [j](const ParetoValues& v) { return v.constraints(static_cast<Eigen::Index>(j)); });
    }
    values("max_violation" + what, "%", computed,
           [](const ParetoValues& v) { return v.violation; });
  }
  // The error as a signed fraction of the objective's range over the front.
  for (size_t k = 0; k < study.objectives.size(); ++k) {
    c = &column(study.objectives[k].name + " error", "", Kind::real);
    for (const ParetoPoint& p : result.front) {
      c->numbers.push_back(p.verified ? std::optional<double>(p.error(static_cast<Eigen::Index>(k)))
                                      : std::nullopt);
    }
  }
  return t;
}

namespace {

// One chart: objective a against objective b, the predicted front (a line for two objectives,
// else markers) and the verified points, predicted and computed, told apart.
Plot pair_plot(const Study& study, const ParetoResult& result, size_t a, size_t b, bool line) {
  Plot plot;
  const Objective& oa = study.objectives[a];
  const Objective& ob = study.objectives[b];
  plot.title = ob.name + " against " + oa.name;
  plot.x_label = oa.note.title(oa.name);
  plot.y_label = ob.note.title(ob.name);
  PlotSeries predicted{"front predicted by the metamodels", {}, {}, plot_colour(0)};
  predicted.line = line;
  predicted.markers = true;
  PlotSeries verified_pred{"verified points: predicted", {}, {}, plot_colour(1)};
  verified_pred.line = false;
  verified_pred.marker = 'x';
  PlotSeries verified{"verified points: analysed", {}, {}, plot_colour(2)};
  verified.line = false;
  verified.marker = 's';
  const auto ia = static_cast<Eigen::Index>(a), ib = static_cast<Eigen::Index>(b);
  for (const ParetoPoint& p : result.front) {
    predicted.x.push_back(p.predicted.objectives(ia));
    predicted.y.push_back(p.predicted.objectives(ib));
    if (!p.verified) continue;
    verified_pred.x.push_back(p.predicted.objectives(ia));
    verified_pred.y.push_back(p.predicted.objectives(ib));
    verified.x.push_back(p.computed.objectives(ia));
    verified.y.push_back(p.computed.objectives(ib));
  }
  plot.series = {predicted, verified_pred, verified};
  plot.id = "pareto-" + std::to_string(a + 1) + "-" + std::to_string(b + 1);
  plot.empty_message = "No front point.";
  return plot;
}

std::string pareto_page(const Study& study, const ParetoResult& result) {
  int verified = 0;
  for (const ParetoPoint& p : result.front) verified += p.verified;
  const ParetoRound& last = result.rounds.back();
  std::string body =
      "<h1>Pareto front</h1>\n<p>" +
      xml_escape(study.name + ": " + std::to_string(result.front.size()) +
                 " front points predicted by the metamodels (" + last.model +
                 (last.errors.empty() ? "" : " of the criteria") + "), " +
                 std::to_string(verified) + " verified by analyses after " +
                 std::to_string(result.rounds.size()) + " round(s); " +
                 (result.agreed ? "every verified point agrees"
                                : "the last round still disagrees at " +
                                      std::to_string(last.disagreeing) + " point(s)") +
                 " (data: pareto.csv, pareto.json).") +
      "</p>\n";
  const size_t m = study.objectives.size();
  if (m == 2)
    return chart_page("Pareto front", body + chart_html(pair_plot(study, result, 0, 1, true)));
  // Three objectives or more: a scatter matrix, one chart per pair, row by row.
  body += "<div style=\"display:grid;grid-template-columns:repeat(" + std::to_string(m - 1) +
          ",minmax(0,1fr));gap:8px\">\n";
  for (size_t b = 1; b < m; ++b) {
    for (size_t a = 0; a + 1 < m; ++a) {
      body += a < b ? "<div>" + chart_html(pair_plot(study, result, a, b, false)) + "</div>\n"
                    : "<div></div>\n";
    }
  }
  return chart_page("Pareto front", body + "</div>\n");
}

}  // namespace

int balanced_point(const Study& study, const ParetoResult& result) {
  if (result.front.empty()) return -1;
  const Eigen::Index m = result.front.front().predicted.objectives.size();
  Eigen::VectorXd lo = result.front.front().predicted.objectives, hi = lo;
  for (const ParetoPoint& p : result.front) {
    lo = lo.cwiseMin(p.predicted.objectives);
    hi = hi.cwiseMax(p.predicted.objectives);
  }
  const Eigen::VectorXd width = (hi - lo).cwiseMax(1e-300);
  int best = -1;
  double best_d = kNaN;
  for (int pass = 0; pass < 2 && best < 0; ++pass) {
    for (size_t i = 0; i < result.front.size(); ++i) {
      const ParetoPoint& p = result.front[i];
      if (pass == 0 && !(p.verified && p.agrees)) continue;
      const Eigen::VectorXd& f = pass == 0 ? p.computed.objectives : p.predicted.objectives;
      double d = 0.0;
      for (Eigen::Index k = 0; k < m; ++k) {
        const double ideal = study.objectives[static_cast<size_t>(k)].maximize ? hi(k) : lo(k);
        d += std::pow((f(k) - ideal) / width(k), 2);
      }
      if (best < 0 || d < best_d) best = static_cast<int>(i), best_d = d;
    }
  }
  return best;
}

nlohmann::ordered_json model_errors_json(const ParetoRound& round) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const ParetoModelError& e : round.errors) {
    out.push_back(
        {{"name", e.name},
         {"loo_rms", e.loo_rms},
         {"loo_percent", std::isfinite(e.loo_percent) ? nlohmann::ordered_json(e.loo_percent)
                                                      : nlohmann::ordered_json()},
         {"inputs", e.log_inputs ? "log" : "linear"}});
  }
  return out;
}

nlohmann::ordered_json pareto_settings_json(const ParetoOptions& options) {
  return {{"algorithm", pareto::algorithm_name(options.search.algorithm)},
          {"population", options.search.population},
          {"generations", options.search.generations},
          {"seed", options.search.seed},
          {"metamodel", metamodel_kind_name(options.model)},
          {"model", pareto_modelling_name(options.modelling)},
          {"verify", options.verify},
          {"rounds", options.rounds},
          {"tolerance", options.tolerance},
          {"faces", options.faces},
          {"refine", options.refine},
          {"refine_objective", options.refine_objective}};
}

std::vector<Plot> pareto_charts(const Study& study, const ParetoResult& result) {
  const size_t m = study.objectives.size();
  if (m == 2) return {pair_plot(study, result, 0, 1, true)};
  std::vector<Plot> out;
  for (size_t b = 1; b < m; ++b) {
    for (size_t a = 0; a < b; ++a) out.push_back(pair_plot(study, result, a, b, false));
  }
  return out;
}

nlohmann::ordered_json pareto_json(const Study& study, const ParetoResult& result,
                                   const ParetoOptions& options) {
  nlohmann::ordered_json objectives = nlohmann::ordered_json::array();
  for (const Objective& o : study.objectives) {
    objectives.push_back({{"name", o.name},
                          {"sense", o.maximize ? "maximize" : "minimize"},
                          {"unit", o.note.unit},
                          {"label", o.note.label}});
  }
  nlohmann::ordered_json constraints = nlohmann::ordered_json::array();
  for (const Constraint& c : study.constraints) constraints.push_back(c.name);
  nlohmann::ordered_json rounds = nlohmann::ordered_json::array();
  for (const ParetoRound& r : result.rounds) {
    rounds.push_back(
        {{"round", r.round},
         {"front_points", r.points},
         {"training", r.training},
         {"model", r.model},
         {"worst_loo_percent", std::isfinite(r.worst_loo) ? nlohmann::ordered_json(r.worst_loo)
                                                          : nlohmann::ordered_json()},
         {"models", model_errors_json(r)},
         {"verified", r.verified},
         {"faces", r.faces},
         {"analysed", r.analysed},
         {"failed", r.failed},
         {"disagreeing", r.disagreeing},
         {"max_error", r.max_error}});
  }
  nlohmann::ordered_json front = nlohmann::ordered_json::array();
  for (size_t i = 0; i < result.front.size(); ++i) {
    const ParetoPoint& p = result.front[i];
    nlohmann::ordered_json design;
    for (int k = 0; k < study.n_design(); ++k) design[study.design[k].name] = p.design(k);
    nlohmann::ordered_json row = {{"point", i + 1},
                                  {"design", design},
                                  {"verified", p.verified},
                                  {"predicted", values_json(study, p.predicted)}};
    if (p.verified) {
      row["computed"] = values_json(study, p.computed);
      row["error"] = std::vector<double>(p.error.data(), p.error.data() + p.error.size());
      row["agrees"] = p.agrees;
      row["replaced"] = p.replaced;
      row["refined"] = p.refined;
    }
    front.push_back(row);
  }
  return {{"study", study.name},
          {"settings", pareto_settings_json(options)},
          {"objectives", objectives},
          {"constraints", constraints},
          {"doe",
           {{"points", result.doe.total},
            {"reused", result.doe.reused},
            {"analysed", result.doe.analysed},
            {"failed", result.doe.failed}}},
          {"modelled", pareto_modelling_name(result.modelling)},
          {"response_values", result.response_values},
          {"rounds", rounds},
          {"agreed", result.agreed},
          {"replaced", result.replaced},
          {"refinement",
           {{"started", result.refinement.started},
            {"refined", result.refinement.improved},
            {"cycles", result.refinement.cycles},
            {"analysed", result.refinement.analyses},
            {"sensitivity_analyses", result.refinement.sensitivities},
            {"simulator_runs", result.refinement.simulator_runs},
            {"reused", result.refinement.reused},
            {"refused", result.refinement.refused},
            {"reason", result.refinement.reason}}},
          {"analysed", result.analysed},
          {"reused", result.reused},
          {"ranges",
           std::vector<double>(result.ranges.data(), result.ranges.data() + result.ranges.size())},
          {"balanced", balanced_point(study, result) + 1},
          {"front", front}};
}

void write_pareto(const std::string& dir, const Study& study, const ParetoResult& result,
                  const ParetoOptions& options) {
  write_file_atomically(dir + "/pareto.csv", report::csv(pareto_table(study, result), false));
  write_file_atomically(dir + "/pareto.json", pareto_json(study, result, options).dump(2) + "\n");
  write_file_atomically(dir + "/pareto.html", pareto_page(study, result));
}

}  // namespace sao

namespace sao {

nlohmann::json read_pareto_json(const std::string& dir) {
  const std::string file = dir + "/pareto.json";
  std::ifstream in(file);
  if (!in) {
    throw std::invalid_argument(file + ": not found (run `sao pareto " + dir +
                                "` first: it writes the front there)");
  }
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(file + ": not a front written by `sao pareto`: " + e.what());
  }
}

namespace {

ParetoValues values_of(const Study& study, const nlohmann::json& j) {
  ParetoValues v;
  v.objectives.resize(static_cast<Eigen::Index>(study.objectives.size()));
  for (size_t i = 0; i < study.objectives.size(); ++i) {
    v.objectives(static_cast<Eigen::Index>(i)) =
        j.at("objectives").at(study.objectives[i].name).get<double>();
  }
  v.constraints.resize(static_cast<Eigen::Index>(study.constraints.size()));
  for (size_t i = 0; i < study.constraints.size(); ++i) {
    v.constraints(static_cast<Eigen::Index>(i)) =
        j.at("constraints").at(study.constraints[i].name).get<double>();
  }
  v.violation = j.at("max_violation").get<double>();
  return v;
}

}  // namespace

ParetoResult read_pareto_front(const nlohmann::json& document, const Study& study) {
  ParetoResult result;
  try {
    for (const nlohmann::json& p : document.at("front")) {
      ParetoPoint point;
      point.design.resize(study.n_design());
      for (int i = 0; i < study.n_design(); ++i)
        point.design(i) = p.at("design").at(study.design[i].name).get<double>();
      point.predicted = values_of(study, p.at("predicted"));
      point.verified = p.at("verified").get<bool>();
      if (point.verified) {
        point.computed = values_of(study, p.at("computed"));
        const std::vector<double> error = p.at("error").get<std::vector<double>>();
        point.error = Eigen::Map<const Eigen::VectorXd>(error.data(),
                                                        static_cast<Eigen::Index>(error.size()));
        point.agrees = p.at("agrees").get<bool>();
        point.replaced = p.value("replaced", false);  // absent before replacement existed
        point.refined = p.value("refined", false);    // absent before refinement existed
      }
      result.front.push_back(std::move(point));
    }
    result.agreed = document.at("agreed").get<bool>();
    result.replaced = document.value("replaced", 0);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(
        std::string("pareto.json is not a front of this study (written by another?): ") + e.what());
  }
  return result;
}

FrontPointStudy front_point_study(const nlohmann::json& front, const nlohmann::json& document,
                                  const Study& study, int k, const std::string& objective) {
  const ParetoResult read = read_pareto_front(front, study);
  if (k < 1 || k > static_cast<int>(read.front.size())) {
    throw std::invalid_argument(
        fmt::format("front point {}: the front has points 1..{}", k, read.front.size()));
  }
  FrontPointStudy out;
  for (size_t i = 0; i < study.objectives.size(); ++i) {
    if (study.objectives[i].name == objective) out.objective = static_cast<int>(i);
  }
  if (!objective.empty() &&
      study.objectives[static_cast<size_t>(out.objective)].name != objective) {
    std::string names;
    for (const Objective& o : study.objectives) names += (names.empty() ? "" : ", ") + o.name;
    throw std::invalid_argument("objective " + objective + ": the study has no such objective (" +
                                names + ")");
  }
  const ParetoPoint& point = read.front[static_cast<size_t>(k - 1)];
  out.verified = point.verified;
  out.study = single_objective_study(document, study, point, out.objective);
  return out;
}

}  // namespace sao
