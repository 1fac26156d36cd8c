#include "simulators/model.hpp"

#include <stdexcept>

namespace sao::sim {
namespace {

std::vector<const OdeModel*> all_models() {
  return {&impact_absorber_model()};
}

}  // namespace

double OdeModel::load_parameter(const LoadCaseSpec& lc, const std::string& key) const {
  if (auto it = lc.parameters.find(key); it != lc.parameters.end()) return it->second;
  const auto defaults = load_parameters();
  if (auto it = defaults.find(key); it != defaults.end()) return it->second;
  throw std::logic_error("model " + name() + " reads load-case parameter \"" + key +
                         "\" but does not declare it");
}

const OdeModel* find_model(const std::string& name) {
  for (const OdeModel* m : all_models()) {
    if (m->name() == name) return m;
  }
  return nullptr;
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const OdeModel* m : all_models()) names.push_back(m->name());
  return names;
}

}  // namespace sao::sim
