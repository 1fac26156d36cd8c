#include "sao/report/pareto_files.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
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

std::string csv_text(double v) {
  if (!std::isfinite(v)) return "";
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

std::string pareto_csv(const Study& study, const ParetoResult& result) {
  std::ostringstream csv;
  csv << "point,verified,agrees";
  for (const DesignVariable& v : study.design) csv << "," << v.name;
  for (const char* what : {"predicted", "computed"}) {
    for (const Objective& o : study.objectives) csv << "," << o.name << " " << what;
    for (const Constraint& c : study.constraints) csv << "," << c.name << " " << what;
    csv << ",max_violation " << what;
  }
  for (const Objective& o : study.objectives) csv << "," << o.name << " error";
  csv << "\n";
  for (size_t i = 0; i < result.front.size(); ++i) {
    const ParetoPoint& p = result.front[i];
    csv << i + 1 << "," << (p.verified ? "yes" : "no") << ","
        << (p.verified ? (p.agrees ? "yes" : "no") : "");
    for (Eigen::Index k = 0; k < p.design.size(); ++k) csv << "," << csv_text(p.design(k));
    for (const ParetoValues* v : {&p.predicted, &p.computed}) {
      const bool has = v == &p.predicted || p.verified;
      for (Eigen::Index k = 0; k < static_cast<Eigen::Index>(study.objectives.size()); ++k)
        csv << "," << (has ? csv_text(v->objectives(k)) : "");
      for (Eigen::Index j = 0; j < static_cast<Eigen::Index>(study.constraints.size()); ++j)
        csv << "," << (has ? csv_text(v->constraints(j)) : "");
      csv << "," << (has ? csv_text(v->violation) : "");
    }
    // The error as a signed fraction of the objective's range over the front.
    for (Eigen::Index k = 0; k < static_cast<Eigen::Index>(study.objectives.size()); ++k)
      csv << "," << (p.verified ? csv_text(p.error(k)) : "");
    csv << "\n";
  }
  return csv.str();
}

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
                                                      : nlohmann::ordered_json()}});
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
    }
    front.push_back(row);
  }
  return {{"study", study.name},
          {"settings",
           {{"algorithm", pareto::algorithm_name(options.search.algorithm)},
            {"population", options.search.population},
            {"generations", options.search.generations},
            {"seed", options.search.seed},
            {"metamodel", metamodel_kind_name(options.model)},
            {"model", pareto_modelling_name(options.modelling)},
            {"verify", options.verify},
            {"rounds", options.rounds},
            {"tolerance", options.tolerance}}},
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
          {"analysed", result.analysed},
          {"reused", result.reused},
          {"ranges",
           std::vector<double>(result.ranges.data(), result.ranges.data() + result.ranges.size())},
          {"balanced", balanced_point(study, result) + 1},
          {"front", front}};
}

void write_pareto(const std::string& dir, const Study& study, const ParetoResult& result,
                  const ParetoOptions& options) {
  write_file_atomically(dir + "/pareto.csv", pareto_csv(study, result));
  write_file_atomically(dir + "/pareto.json", pareto_json(study, result, options).dump(2) + "\n");
  write_file_atomically(dir + "/pareto.html", pareto_page(study, result));
}

}  // namespace sao
