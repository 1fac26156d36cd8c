#include "sao/optimizer/cycle_record_json.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace sao {

namespace {

nlohmann::json named(const Eigen::VectorXd& x, const std::vector<std::string>& names) {
  nlohmann::json out = nlohmann::json::object();
  for (int i = 0; i < x.size() && i < static_cast<int>(names.size()); ++i) {
    out[names[i]] = exact_number(x(i));
  }
  return out;
}

Eigen::VectorXd named_from(const nlohmann::json& j, const std::vector<std::string>& names) {
  if (!j.is_object()) throw std::invalid_argument("expected an object of variables");
  std::vector<double> values;
  for (const std::string& name : names) {
    auto it = j.find(name);
    if (it == j.end()) break;
    values.push_back(exact_number_from(*it));
  }
  if (values.size() != j.size()) throw std::invalid_argument("unknown or missing variables");
  return Eigen::Map<const Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
}

nlohmann::json numbers(const Eigen::VectorXd& v) {
  nlohmann::json out = nlohmann::json::array();
  for (int i = 0; i < v.size(); ++i) out.push_back(exact_number(v(i)));
  return out;
}

MoveAction action_from(const std::string& name) {
  for (MoveAction a :
       {MoveAction::kKept, MoveAction::kRejected, MoveAction::kOscillation, MoveAction::kWorse,
        MoveAction::kEnlarged, MoveAction::kShrunk, MoveAction::kConverged}) {
    if (name == to_string(a)) return a;
  }
  throw std::invalid_argument("unknown move action \"" + name + "\"");
}

// Reads one key, naming it in any error (in plain words: the value's kind is checked before
// any get<T>(), whose exception text is the JSON library's).
template <typename Read>
void read(const nlohmann::json& j, const char* key, Read&& apply) {
  const std::string where = std::string("cycle record: \"") + key + "\": ";
  const auto it = j.find(key);
  if (it == j.end()) throw std::invalid_argument(where + "missing");
  try {
    apply(*it);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + e.what());
  }
}

}  // namespace

int int_from(const nlohmann::json& value) {
  if (!value.is_number_integer()) throw std::invalid_argument("expected an integer");
  constexpr long long kMin = std::numeric_limits<int>::min();
  constexpr long long kMax = std::numeric_limits<int>::max();
  const bool fits = value.is_number_unsigned()
                        ? value.get<unsigned long long>() <= static_cast<unsigned long long>(kMax)
                        : value.get<long long>() >= kMin && value.get<long long>() <= kMax;
  if (!fits) throw std::invalid_argument("integer out of range");
  return static_cast<int>(value.get<long long>());
}

std::vector<std::string> variable_names(const Study& study) {
  std::vector<std::string> names;
  for (const auto& v : study.design) names.push_back(v.name);
  for (const auto& a : study.auxiliaries) names.push_back(a.name);
  return names;
}

namespace {

nlohmann::json predictions_json(const std::vector<CycleRecord::Prediction>& predictions) {
  nlohmann::json out = nlohmann::json::array();
  for (const CycleRecord::Prediction& p : predictions) {
    out.push_back({{"constraint", p.constraint},
                   {"point", p.point},
                   {"predicted", exact_number(p.predicted)},
                   {"computed", exact_number(p.computed)}});
  }
  return out;
}

}  // namespace

nlohmann::json cycle_record_to_json(const CycleRecord& r,
                                    const std::vector<std::string>& variables) {
  nlohmann::json actions = nlohmann::json::array();
  for (MoveAction a : r.actions) actions.push_back(to_string(a));
  return {{"cycle", r.cycle},
          {"accepted", r.accepted},
          {"converged", r.converged},
          {"relaxed", r.relaxed},
          {"subproblem", r.subproblem},
          {"active_move_limits", r.active_move_limits},
          {"retained_constraints", r.retained_constraints},
          {"retained_rows", r.retained_rows},
          {"b0", named(r.x0, variables)},
          {"b_opt", named(r.x_opt, variables)},
          {"F0", exact_number(r.F0)},
          {"F_opt", exact_number(r.F_opt)},
          {"F_approx", exact_number(r.F_approx)},
          {"Ef", exact_number(r.Ef)},
          {"Eg", exact_number(r.Eg)},
          {"E", exact_number(r.E)},
          {"V", exact_number(r.V)},
          {"Fchg", exact_number(r.Fchg)},
          {"move_factors", numbers(r.factors)},
          {"next_move_factors", numbers(r.next_factors)},
          {"move_actions", actions},
          {"analyses", r.analyses},
          {"fit_points", r.fit_points},
          {"noise_estimate", exact_number(r.noise_estimate)},
          {"kkt_residual", exact_number(r.kkt_residual)},
          {"ratio", exact_number(r.ratio)},
          {"gradient_method", r.gradient_method},
          {"predictions", predictions_json(r.predictions)},
          {"message", r.message}};
}

CycleRecord cycle_record_from_json(const nlohmann::json& j,
                                   const std::vector<std::string>& variables) {
  if (!j.is_object()) throw std::invalid_argument("cycle record: not a JSON object");
  CycleRecord r;
  auto integer = [&](const char* key, int& to) {
    read(j, key, [&](auto& v) { to = int_from(v); });
  };
  auto flag = [&](const char* key, bool& to) {
    read(j, key, [&](auto& v) { to = json_boolean(v, ""); });
  };
  auto real = [&](const char* key, double& to) {
    read(j, key, [&](auto& v) { to = exact_number_from(v); });
  };
  integer("cycle", r.cycle);
  flag("accepted", r.accepted);
  flag("converged", r.converged);
  flag("relaxed", r.relaxed);
  read(j, "subproblem", [&](auto& v) { r.subproblem = json_string(v, ""); });
  integer("active_move_limits", r.active_move_limits);
  integer("retained_constraints", r.retained_constraints);
  integer("retained_rows", r.retained_rows);
  read(j, "b0", [&](auto& v) { r.x0 = named_from(v, variables); });
  read(j, "b_opt", [&](auto& v) { r.x_opt = named_from(v, variables); });
  real("F0", r.F0);
  real("F_opt", r.F_opt);
  real("F_approx", r.F_approx);
  real("Ef", r.Ef);
  real("Eg", r.Eg);
  real("E", r.E);
  real("V", r.V);
  real("Fchg", r.Fchg);
  read(j, "move_factors", [&](auto& v) { r.factors = exact_numbers_from(v); });
  read(j, "next_move_factors", [&](auto& v) { r.next_factors = exact_numbers_from(v); });
  read(j, "move_actions", [&](auto& v) {
    if (!v.is_array()) throw std::invalid_argument("expected an array of names");
    for (const auto& a : v) r.actions.push_back(action_from(json_string(a, "")));
  });
  integer("analyses", r.analyses);
  integer("fit_points", r.fit_points);
  real("noise_estimate", r.noise_estimate);
  // Records written before the trust-region strategy have neither.
  if (j.contains("kkt_residual")) real("kkt_residual", r.kkt_residual);
  if (j.contains("ratio")) real("ratio", r.ratio);
  // Records written before issue 22's item 4 have none.
  if (j.contains("gradient_method")) {
    read(j, "gradient_method", [&](auto& v) { r.gradient_method = json_string(v, ""); });
  }
  // Records written before the predicted-against-computed view have none.
  if (j.contains("predictions")) {
    read(j, "predictions", [&](auto& v) {
      if (!v.is_array()) throw std::invalid_argument("expected an array of predictions");
      for (const auto& p : v) {
        if (!p.is_object()) throw std::invalid_argument("expected a prediction object");
        r.predictions.push_back({json_string(p.at("constraint"), ""), int_from(p.at("point")),
                                 exact_number_from(p.at("predicted")),
                                 exact_number_from(p.at("computed"))});
      }
    });
  }
  read(j, "message", [&](auto& v) { r.message = json_string(v, ""); });
  return r;
}

}  // namespace sao
