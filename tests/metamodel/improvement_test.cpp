#include "sao/metamodel/improvement.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace sao::metamodel {
namespace {

TEST(MetamodelImprovement, ExpectedImprovementClosedForms) {
  // s -> 0: the improvement itself, max(best - mu, 0).
  EXPECT_EQ(expected_improvement(1.0, 0.0, 3.0), 2.0);
  EXPECT_EQ(expected_improvement(4.0, 0.0, 3.0), 0.0);
  EXPECT_NEAR(expected_improvement(1.0, 1e-9, 3.0), 2.0, 1e-12);
  EXPECT_NEAR(expected_improvement(4.0, 1e-9, 3.0), 0.0, 1e-12);
  // mu = best: s phi(0) = s / sqrt(2 pi).
  EXPECT_NEAR(expected_improvement(2.0, 0.5, 2.0), 0.5 / std::sqrt(2 * std::numbers::pi), 1e-15);
  // best - mu = s: s (Phi(1) + phi(1)) = 1.0833154705876864 s.
  EXPECT_NEAR(expected_improvement(1.0, 2.0, 3.0), 2.0 * 1.0833154705876864, 1e-13);
  // Symmetry: EI(mu = best - d) - EI(mu = best + d) = d.
  EXPECT_NEAR(expected_improvement(0.7, 1.3, 1.0) - expected_improvement(1.3, 1.3, 1.0), 0.3,
              1e-14);
  // Grows with the uncertainty.
  EXPECT_LT(expected_improvement(5.0, 1.0, 3.0), expected_improvement(5.0, 2.0, 3.0));
  EXPECT_THROW(expected_improvement(1.0, -1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(expected_improvement(std::nan(""), 1.0, 0.0), std::invalid_argument);
}

TEST(MetamodelImprovement, FeasibilityAndConstrainedImprovement) {
  EXPECT_EQ(probability_of_feasibility(1.0, 0.0, 2.0), 1.0);
  EXPECT_EQ(probability_of_feasibility(3.0, 0.0, 2.0), 0.0);
  EXPECT_EQ(probability_of_feasibility(2.0, 0.0, 2.0), 0.5);
  EXPECT_NEAR(probability_of_feasibility(2.0, 0.7, 2.0), 0.5, 1e-15);
  EXPECT_NEAR(probability_of_feasibility(1.0, 1.0, 2.0), 0.8413447460685429, 1e-14);
  const double ei = expected_improvement(1.0, 0.5, 1.2);
  const std::vector<ConstraintPrediction> g = {{1.0, 1.0, 2.0}, {0.0, 2.0, 0.0}};
  EXPECT_NEAR(constrained_expected_improvement(1.0, 0.5, 1.2, g), ei * 0.8413447460685429 * 0.5,
              1e-14);
  EXPECT_EQ(constrained_expected_improvement(1.0, 0.5, 1.2, {}), ei);
  KrigingPrediction p;
  p.mean = Eigen::Vector2d(1.0, 4.0);
  p.std_error = Eigen::Vector2d(0.0, 0.0);
  EXPECT_EQ(expected_improvement(p, 3.0), Eigen::Vector2d(2.0, 0.0));
}

}  // namespace
}  // namespace sao::metamodel
