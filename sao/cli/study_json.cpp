#include "sao/cli/study_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sao/optimizer/cycle_record_json.hpp"
#include "sao/report/evaluate.hpp"
#include "sao/report/units_json.hpp"
#include "sao/seam/difference_batch.hpp"
#include "sao/study/study_loader.hpp"

namespace sao::cli {

nlohmann::ordered_json design_json(const Study& study, const Evaluation& evaluation,
                                   const Eigen::VectorXd& x, const std::string& label, bool all) {
  const DesignSummary s = summarise_design(study, evaluation, x);
  nlohmann::ordered_json constraints = nlohmann::ordered_json::array();
  for (const ConstraintSummary& c : s.constraints) constraints.push_back(constraint_json(c));
  nlohmann::ordered_json responses = nlohmann::ordered_json::array();
  for (size_t k = 0; k < evaluation.cases.size(); ++k) {
    const std::string lc = k < study.load_cases.size() ? study.load_cases[k].name : "";
    for (const auto& [key, value] : evaluation.cases[k].scalars) {
      const std::string name = all ? key : declared_name(study, key);
      if (name.empty()) continue;
      nlohmann::ordered_json entry = {{"load_case", lc}, {"name", name}};
      put_unit(entry, declared_unit(study, key));  // of the value
      entry["value"] = value;
      responses.push_back(entry);
    }
    for (const auto& [key, h] : evaluation.cases[k].histories) {
      const std::string name = all ? key : declared_name(study, key);
      if (name.empty() || h.size() == 0) continue;
      const HistoryRange range = history_range(study, k, h);
      nlohmann::ordered_json entry = {{"load_case", lc}, {"name", name}};
      put_unit(entry, declared_unit(study, key));  // of min and max
      entry.update(
          nlohmann::ordered_json{{"min", range.min},
                                 {"max", range.max},
                                 {"time_of_max", std::isnan(range.time_of_max)
                                                     ? nlohmann::ordered_json(nullptr)
                                                     : nlohmann::ordered_json(range.time_of_max)}});
      responses.push_back(entry);
    }
  }
  nlohmann::ordered_json out = {{"label", label},
                                {"design", named_in_order(study, x)},
                                {"units", units_of(study)},  // of design and objective
                                {"objective", s.objective}};
  if (study.multi_objective()) {
    // Every objective of a multi-objective study ("objective" above is the first).
    nlohmann::ordered_json objectives = nlohmann::ordered_json::array();
    for (size_t k = 0; k < study.objectives.size(); ++k) {
      nlohmann::ordered_json o = {{"name", study.objectives[k].name},
                                  {"value", s.objectives[k]},
                                  {"maximize", study.objectives[k].maximize}};
      put_unit(o, study.objectives[k].note.unit);
      objectives.push_back(o);
    }
    out["objectives"] = objectives;
  }
  out["max_violation"] = s.max_violation;
  out["constraints"] = constraints;
  out["responses"] = responses;
  return out;
}

nlohmann::ordered_json gradient_check_json(const GradientCheck& check,
                                           const std::vector<std::string>& hints) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const GradientCheckRow& r : check.rows) {
    nlohmann::ordered_json row = {{"response", r.response},
                                  {"load_case", r.load_case},
                                  {"point", r.point},
                                  {"variable", r.variable}};
    // The response's unit (of value) and the variable's: the derivatives are in unit per
    // variable_unit. Each only where the study declares it.
    put_unit(row, r.unit);
    if (!r.variable_unit.empty()) row["variable_unit"] = r.variable_unit;
    row.update(nlohmann::ordered_json{{"value", r.value},
                                      {"simulator", r.analytic},
                                      {"reference", r.reference},
                                      {"order", r.order},
                                      {"settled", r.settled},
                                      {"relative_error", r.relative_error}});
    rows.push_back(row);
  }
  return {{"rows", rows}, {"analyses", check.analyses}, {"hints", hints}};
}

std::vector<std::string> step_hints(const Study& study, const nlohmann::json& document,
                                    const Eigen::VectorXd& design) {
  const nlohmann::json gradients = document.contains("simulator") &&
                                           document["simulator"].is_object() &&
                                           document["simulator"].contains("gradients")
                                       ? document["simulator"]["gradients"]
                                       : nlohmann::json::object();
  if (!gradients.is_object()) return {};
  const std::string method = gradients.contains("method") && gradients["method"].is_string()
                                 ? gradients["method"].get<std::string>()
                                 : "forward";
  if (method != "forward" && method != "central") return {};
  const double p = gradients.contains("step") && gradients["step"].is_number()
                       ? gradients["step"].get<double>()
                       : DifferenceSettings{}.relative_step;
  std::vector<std::string> hints;
  for (int i = 0; i < study.n_design() && i < design.size(); ++i) {
    const DesignVariable& v = study.design[i];
    const double b = design(i);
    const double step = difference_step(b, p);
    const double span = v.upper - v.lower;
    const bool of_value = b != 0.0 && step > 0.01 * std::abs(b);
    const bool of_span = std::isfinite(span) && span > 0.0 && step > 0.01 * span;
    if (!of_value && !of_span) continue;
    // The p that gives a step of 0.1 % of the smaller of |b| and the span.
    double size = std::isfinite(span) && span > 0.0 ? span : std::abs(b);
    if (b != 0.0) size = std::min(size, std::abs(b));
    const double advised = 1e-3 * size / (1.0 + std::abs(b));
    hints.push_back(fmt::format(
        "{} = {:.6g}: the finite-difference step (1 + |b|) p = {:.3g} (p = {:.3g}) is {:.2g} % "
        "of its value and {:.2g} % of its span; set simulator.gradients.step to about {:.2g} "
        "(0.1 %), or express {} in smaller units (docs/sensitivities.md, step size)",
        v.name, b, step, p, b != 0.0 ? 100.0 * step / std::abs(b) : INFINITY,
        std::isfinite(span) && span > 0.0 ? 100.0 * step / span : INFINITY, advised, v.name));
  }
  return hints;
}

std::vector<std::string> reference_hints(const Study& study, const GradientCheck& check,
                                         double relative_step) {
  std::vector<std::string> hints;
  for (const GradientCheckRow& r : check.rows) {
    if (r.settled || r.relative_error <= 1e-3) continue;
    const auto v = std::find_if(study.design.begin(), study.design.end(),
                                [&](const DesignVariable& d) { return d.name == r.variable; });
    const double span = v == study.design.end() ? NAN : v->upper - v->lower;
    const std::string share =
        std::isfinite(span) && span > 0.0
            ? fmt::format(" ({:.2g} % of {}'s span)", 100.0 * r.first_step / span, r.variable)
            : std::string();
    hints.push_back(fmt::format(
        "{} / {}: the reference did not meet its tolerance (order {}), so the {:.2g} relative "
        "error may be the reference's: its first step is {:.3g}{}; try --step {:.2g} (ten "
        "times smaller) and trust a reference that settles (\"settled\" in --json)",
        r.response, r.variable, r.order, r.relative_error, r.first_step, share,
        relative_step / 10.0));
  }
  return hints;
}

}  // namespace sao::cli
