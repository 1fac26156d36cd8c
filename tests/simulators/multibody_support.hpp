// What the multibody tests share: a load case on a time grid and a model's parameter defaults.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "sao/seam/simulator.hpp"
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

// Every history and scalar of the first load case of `a` within `tolerance` (relative to
// 1 + |value|) of `b`'s.
inline void expect_close_values(const Evaluation& a, const Evaluation& b, double tolerance) {
  ASSERT_TRUE(a.ok && b.ok);
  ASSERT_EQ(a.cases[0].histories.size(), b.cases[0].histories.size());
  for (const auto& [name, h] : a.cases[0].histories) {
    const Eigen::VectorXd& g = b.cases[0].histories.at(name);
    ASSERT_EQ(h.size(), g.size()) << name;
    for (Eigen::Index i = 0; i < h.size(); ++i) {
      EXPECT_NEAR(h(i), g(i), tolerance * (1.0 + std::abs(g(i)))) << name << " point " << i;
    }
  }
  for (const auto& [name, v] : a.cases[0].scalars) {
    EXPECT_NEAR(v, b.cases[0].scalars.at(name), tolerance * (1.0 + std::abs(v))) << name;
  }
}

}  // namespace sao::sim::testing
