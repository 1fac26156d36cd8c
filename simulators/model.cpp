#include "simulators/model.hpp"

namespace sao::sim {
namespace {

std::vector<const OdeModel*> all_models() {
  return {&impact_absorber_model()};
}

}  // namespace

double OdeModel::load_parameter(const LoadCaseSpec& lc, const std::string& key) const {
  auto it = lc.parameters.find(key);
  return it != lc.parameters.end() ? it->second : load_parameters().at(key);
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
