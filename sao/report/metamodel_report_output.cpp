// The metamodel report as text and as JSON (metamodel_report.hpp).
#include <fmt/format.h>

#include <cmath>

#include "sao/report/metamodel_report.hpp"
#include "sao/report/units_json.hpp"

namespace sao::report {
namespace {

using Json = nlohmann::ordered_json;

Json number(double v) {
  return std::isfinite(v) ? Json(v) : Json();
}

std::string figure(double v, const char* format = "{:.4g}") {
  return std::isfinite(v) ? fmt::format(fmt::runtime(format), v) : "-";
}

std::string bracketed(const std::string& unit) {
  return unit.empty() ? "" : " [" + unit + "]";
}

int confidence_percent() {
  return static_cast<int>(std::lround(100 * metamodel::SobolSettings().confidence));
}

std::string header_text(const MetamodelReport& r) {
  std::string out;
  if (!r.store.empty()) out += "metamodel  store " + r.store + "\n";
  out += fmt::format("points     {} distinct designs of {} successful analyses", r.points.rows(),
                     r.analyses);
  if (r.repeated > 0) out += fmt::format(" ({} repeat a design)", r.repeated);
  if (r.other_inputs > 0)
    out += fmt::format("; {} under other simulator inputs not used", r.other_inputs);
  out += "\nvariables ";
  size_t k = 0;
  for (size_t i = 0; i < r.variables.size(); ++i) {
    const bool input = k < r.inputs.size() && r.inputs[k] == static_cast<int>(i);
    if (input) {
      out += fmt::format(" {} [{:.4g}, {:.4g}]{}", r.variables[i], r.box.lower(k), r.box.upper(k),
                         r.variable_units[i].empty() ? "" : " " + r.variable_units[i]);
      ++k;
    } else {
      out += fmt::format(" {} (one value: {:.6g}, not an input)", r.variables[i],
                         r.points.rows() > 0 ? r.points(0, i) : std::nan(""));
    }
    out += i + 1 < r.variables.size() ? "," : "";
  }
  std::string models;
  for (const std::string& m : r.models) models += (models.empty() ? "" : ", ") + m;
  out += "\nmodels     " + models + "; accuracy by leave-one-out; * the least LOO RMS\n";
  if (r.request.sobol_model != "none") {
    out += fmt::format(
        "sobol      from {} over the box above; N = {}, {} resamples, {} % intervals, seed {}\n",
        r.request.sobol_model.empty() ? "the best model" : r.request.sobol_model,
        r.request.sobol_samples, r.request.bootstrap, confidence_percent(), r.request.seed);
  }
  return out;
}

std::string value_text(const MetamodelReport& r, const ModelledValue& v) {
  std::string out = fmt::format("\n{}{} ({}, {} points", v.name, bracketed(v.unit),
                                to_string(v.kind), v.values.size());
  if (v.values.size() > 0) {
    out += fmt::format("; from {:.6g} to {:.6g}, mean {:.6g}", v.values.minCoeff(),
                       v.values.maxCoeff(), v.values.mean());
  }
  out += ")\n";
  if (v.constant) return out + "  " + v.note + "\n";
  out += fmt::format("  {:<14} {:>6} {:>11} {:>9} {:>9} {:>9}\n", "model", "points", "LOO RMS",
                     "R2_pred", "R2", "adj R2");
  for (size_t k = 0; k < v.fits.size(); ++k) {
    const ModelFit& f = v.fits[k];
    const char mark = static_cast<int>(k) == v.best ? '*' : ' ';
    if (!f.fitted) {
      out += fmt::format("{} {:<14} skipped: {}\n", mark, f.model, f.skipped);
      continue;
    }
    const metamodel::Accuracy& a = f.accuracy;
    out += fmt::format("{} {:<14} {:>6} {:>11} {:>9} {:>9} {:>9}\n", mark, f.model, v.values.size(),
                       figure(a.loo_rms, "{:.4g}"), figure(a.r2_pred, "{:.4f}"),
                       figure(a.r2, "{:.4f}"), figure(a.r2_adjusted, "{:.4f}"));
    if (!a.note.empty()) out += "    " + a.note + "\n";
  }
  if (!v.sobol) {
    if (!v.note.empty()) out += "  " + v.note + "\n";
    return out;
  }
  const metamodel::SobolIndices& s = *v.sobol;
  const int pc = confidence_percent();
  out += fmt::format("  Sobol indices of {} (variance {:.4g}):\n", v.sobol_model, s.variance);
  const std::string interval = fmt::format("[{} % interval]", pc);
  out += fmt::format("  {:<14} {:>7} {:<18} {:>7} {}\n", "variable", "S_i", interval, "S_Ti",
                     interval);
  for (size_t k = 0; k < r.inputs.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    out += fmt::format("  {:<14} {:>7.3f} [{:>7.3f}, {:>7.3f}] {:>7.3f} [{:>7.3f}, {:>7.3f}]\n",
                       r.variables[r.inputs[k]], s.first(i), s.first_low(i), s.first_high(i),
                       s.total(i), s.total_low(i), s.total_high(i));
  }
  return out;
}

Json fit_json(const ModelFit& f) {
  Json j = {{"model", f.model}, {"needs", f.needs}, {"fitted", f.fitted}};
  if (!f.fitted) {
    j["skipped"] = f.skipped;
    return j;
  }
  const metamodel::Accuracy& a = f.accuracy;
  j["press"] = number(a.press);
  j["loo_rms"] = number(a.loo_rms);
  j["r2_pred"] = number(a.r2_pred);
  j["r2"] = number(a.r2);
  j["r2_adjusted"] = number(a.r2_adjusted);
  if (!a.note.empty()) j["note"] = a.note;
  return j;
}

Json sobol_json(const MetamodelReport& r, const ModelledValue& v) {
  if (!v.sobol) return Json();
  const metamodel::SobolIndices& s = *v.sobol;
  Json variables = Json::array();
  for (size_t k = 0; k < r.inputs.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    variables.push_back({{"name", r.variables[r.inputs[k]]},
                         {"S", number(s.first(i))},
                         {"S_low", number(s.first_low(i))},
                         {"S_high", number(s.first_high(i))},
                         {"ST", number(s.total(i))},
                         {"ST_low", number(s.total_low(i))},
                         {"ST_high", number(s.total_high(i))}});
  }
  return {{"model", v.sobol_model},
          {"mean", number(s.mean)},
          {"variance", number(s.variance)},
          {"evaluations", s.evaluations},
          {"variables", variables}};
}

// Predicted against computed: per point of the value its design (every variable, by name), the
// computed value and the best model's leave-one-out prediction there (computed minus the LOO
// residual: the prediction of the model fitted without that point). Empty without a best model.
Json loo_points_json(const MetamodelReport& r, const ModelledValue& v) {
  Json points = Json::array();
  if (v.best < 0) return points;
  const Eigen::VectorXd& residuals = v.fits[v.best].accuracy.loo_residuals;
  for (size_t k = 0; k < v.rows.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    Json design = Json::object();
    for (size_t d = 0; d < r.variables.size(); ++d) {
      design[r.variables[d]] = number(r.points(v.rows[k], static_cast<Eigen::Index>(d)));
    }
    const double computed = v.values(i);
    const double residual = i < residuals.size() ? residuals(i) : std::nan("");
    points.push_back({{"design", design},
                      {"computed", number(computed)},
                      {"predicted_loo", number(computed - residual)}});
  }
  return points;
}

Json value_json(const MetamodelReport& r, const ModelledValue& v) {
  Json j = {{"name", v.name}, {"kind", to_string(v.kind)}, {"response", v.response}};
  j["load_case"] = v.load_case.empty() ? Json() : Json(v.load_case);
  put_unit(j, v.unit);
  j["points"] = v.values.size();
  j["constant"] = v.constant;
  const bool any = v.values.size() > 0;
  j["min"] = any ? number(v.values.minCoeff()) : Json();
  j["max"] = any ? number(v.values.maxCoeff()) : Json();
  j["mean"] = any ? number(v.values.mean()) : Json();
  Json fits = Json::array();
  for (const ModelFit& f : v.fits) fits.push_back(fit_json(f));
  j["models"] = fits;
  j["best"] = v.best >= 0 ? Json(v.fits[v.best].model) : Json();
  j["loo_points"] = loo_points_json(r, v);
  j["sobol"] = sobol_json(r, v);
  if (!v.note.empty()) j["note"] = v.note;
  return j;
}

}  // namespace

std::string metamodel_report_text(const MetamodelReport& report) {
  std::string out = header_text(report);
  for (const ModelledValue& v : report.values) out += value_text(report, v);
  return out;
}

nlohmann::ordered_json metamodel_report_json(const MetamodelReport& r) {
  Json variables = Json::array();
  size_t k = 0;
  for (size_t i = 0; i < r.variables.size(); ++i) {
    Json v = {{"name", r.variables[i]}};
    put_unit(v, r.variable_units[i]);
    const bool input = k < r.inputs.size() && r.inputs[k] == static_cast<int>(i);
    v["input"] = input;
    const double one = r.points.rows() > 0 ? r.points(0, i) : std::nan("");
    v["lower"] = number(input ? r.box.lower(k) : one);
    v["upper"] = number(input ? r.box.upper(k) : one);
    if (input) ++k;
    variables.push_back(v);
  }
  Json values = Json::array();
  for (const ModelledValue& v : r.values) values.push_back(value_json(r, v));
  return {{"store", r.store.empty() ? Json() : Json(r.store)},
          {"analyses", r.analyses},
          {"points", r.points.rows()},
          {"repeated", r.repeated},
          {"other_inputs", r.other_inputs},
          {"variables", variables},
          {"models", r.models},
          {"sobol_settings",
           {{"model", r.request.sobol_model.empty() ? "best" : r.request.sobol_model},
            {"samples", r.request.sobol_samples},
            {"bootstrap", r.request.bootstrap},
            {"confidence", metamodel::SobolSettings().confidence},
            {"seed", r.request.seed}}},
          {"values", values}};
}

}  // namespace sao::report
