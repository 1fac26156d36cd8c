// What the multibody tests share: a load case on a time grid and a model's parameter defaults.
#pragma once

#include <map>
#include <string>

#include "simulators/models/model.hpp"

namespace sao::sim::testing {

inline LoadCaseSpec grid_case(TimeGrid grid, std::map<std::string, double> parameters = {}) {
  LoadCaseSpec lc;
  lc.name = "case";
  lc.grid = std::move(grid);
  lc.parameters = std::move(parameters);
  return lc;
}

// The model's parameters at their defaults, in the order of model.parameters().
inline Eigen::VectorXd defaults(const Model& model) {
  const auto names = model.parameters();
  const auto values = model.parameter_defaults();
  Eigen::VectorXd p(static_cast<Eigen::Index>(names.size()));
  for (size_t i = 0; i < names.size(); ++i) p(static_cast<Eigen::Index>(i)) = values.at(names[i]);
  return p;
}

}  // namespace sao::sim::testing
