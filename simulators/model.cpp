#include "simulators/model.hpp"

#include <stdexcept>

namespace sao::sim {
namespace {

std::vector<const Model*> all_models() {
  return {&impact_absorber_model(), &slider_crank_path_model()};
}

}  // namespace

std::string OdeModel::analyse(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                              const IntegratorSettings& settings, CaseResult& out) const {
  const RightHandSide f = [&](double t, const double* x, double* xdot) {
    return rhs(t, x, xdot, p, lc);
  };
  const IntegrationResult r = integrate(f, initial_state(p, lc), lc.grid, settings);
  if (!r.ok) return r.message;
  outputs(r.states, p, lc, out);
  return "";
}

double Model::load_parameter(const LoadCaseSpec& lc, const std::string& key) const {
  if (auto it = lc.parameters.find(key); it != lc.parameters.end()) return it->second;
  const auto defaults = load_parameters();
  if (auto it = defaults.find(key); it != defaults.end()) return it->second;
  throw std::logic_error("model " + name() + " reads load-case parameter \"" + key +
                         "\" but does not declare it");
}

const Model* find_model(const std::string& name) {
  for (const Model* m : all_models()) {
    if (m->name() == name) return m;
  }
  return nullptr;
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const Model* m : all_models()) names.push_back(m->name());
  return names;
}

}  // namespace sao::sim
