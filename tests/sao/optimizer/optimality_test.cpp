#include "sao/optimizer/optimality.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sao {
namespace {

// min b1 + b2 s.t. g_hat = (4 - b1 b2) / 4 <= 0, bounds [0.1, 10]: the KKT point is (2, 2)
// with multiplier 2.
OptimalityInput product_problem(double b1, double b2, double objective_factor = 1.0) {
  OptimalityInput in;
  in.x = Eigen::Vector2d(b1, b2);
  in.lower = Eigen::Vector2d(0.1, 0.1);
  in.upper = Eigen::Vector2d(10.0, 10.0);
  in.objective_gradient = objective_factor * Eigen::Vector2d(1.0, 1.0);
  in.row_values = Eigen::VectorXd::Constant(1, (4.0 - b1 * b2) / 4.0);
  in.row_jacobian = Eigen::RowVector2d(-b2 / 4.0, -b1 / 4.0);
  return in;
}

TEST(Optimality, ZeroAtAKktPointWithItsMultiplier) {
  const Optimality o = first_order_optimality(product_problem(2.0, 2.0));
  ASSERT_TRUE(o.computed) << o.message;
  EXPECT_NEAR(o.residual, 0.0, 1e-12);
  ASSERT_EQ(o.active_rows.size(), 1u);
  EXPECT_NEAR(o.multipliers[0], 2.0, 1e-9);
  EXPECT_TRUE(o.at_lower.empty());
  EXPECT_TRUE(o.at_upper.empty());
}

TEST(Optimality, PositiveAtAFeasiblePointThatIsNotOptimal) {
  // (1, 4) is on the constraint too, but its normal (-1, -0.25) cannot cancel (1, 1).
  const Optimality o = first_order_optimality(product_problem(1.0, 4.0));
  ASSERT_TRUE(o.computed);
  EXPECT_GT(o.residual, 0.1);
}

TEST(Optimality, InactiveRowsDoNotCountAndInteriorPointsNeedAZeroGradient) {
  OptimalityInput in = product_problem(3.0, 3.0);  // g_hat = -1.25: inactive
  const Optimality o = first_order_optimality(in);
  EXPECT_TRUE(o.active_rows.empty());
  EXPECT_NEAR(o.residual, 1.0, 1e-12);  // the whole (scaled) objective gradient remains
}

TEST(Optimality, DoesNotDependOnTheUnitsOrAConstantOfTheObjective) {
  const double a = first_order_optimality(product_problem(1.0, 4.0)).residual;
  const double b = first_order_optimality(product_problem(1.0, 4.0, 1e4)).residual;
  EXPECT_NEAR(a, b, 1e-12);
  // Variables in other units: b = 1000 b' (bounds, gradients and rows transformed alike).
  OptimalityInput in = product_problem(1.0, 4.0);
  in.x *= 1000.0;
  in.lower *= 1000.0;
  in.upper *= 1000.0;
  in.objective_gradient /= 1000.0;
  in.row_jacobian /= 1000.0;
  EXPECT_NEAR(first_order_optimality(in).residual, a, 1e-12);
}

// HS 64's objective 5 x1 + 50000 / x1 + 20 x2 + 72000 / x2 + 10 x3 + 144000 / x3 started at x3
// = 1e-5, next to its singular term: the start's slope is about 1.4e16. At (81, 110, 187.6),
// where a step of one characteristic size still gains about a quarter of F, the residual must say
// so, not vanish against the start's slope.
TEST(Optimality, AStartNextToASingularTermDoesNotHideTheSlopeOfAnObjectiveNotFallingToZero) {
  OptimalityInput in;
  in.x = Eigen::Vector3d(81.0, 110.0, 187.6);
  in.lower = Eigen::Vector3d::Constant(1e-5);
  in.upper = Eigen::Vector3d::Constant(1000.0);
  const Eigen::Vector3d c(5.0, 20.0, 10.0), d(50000.0, 72000.0, 144000.0);
  in.objective_gradient = c - d.cwiseQuotient(in.x.cwiseProduct(in.x));
  in.objective = c.dot(in.x) + d.cwiseQuotient(in.x).sum();
  in.row_values = Eigen::VectorXd::Constant(1, -0.02);  // 4/x1 + 32/x2 + 120/x3 <= 1, inactive
  in.row_jacobian =
      Eigen::RowVector3d(-4.0 / (81.0 * 81.0), -32.0 / (110.0 * 110.0), -120.0 / (187.6 * 187.6));
  const Eigen::Vector3d start(1e-5, 105.5, 1e-5);
  const Eigen::Vector3d start_gradient = c - d.cwiseQuotient(start.cwiseProduct(start));
  in.reference = scaled_gradient_norm(start_gradient, variable_sizes(start, in.lower, in.upper));
  ASSERT_GT(in.reference, 1e15);
  const Optimality o = first_order_optimality(in);
  ASSERT_TRUE(o.computed) << o.message;
  EXPECT_GT(o.residual, 0.1);
  EXPECT_NEAR(o.normaliser, in.objective, 1e-9 * in.objective);
  // An objective falling to 0 keeps the start's slope as its floor: at (1e-4, 1e-4) of
  // F = x1^2 + x2^2 in [-10, 10]^2 (slope 2e-4 over sizes of 0.2) the residual is measured
  // against 1 % of the start's slope (10 over sizes of 5 from (5, 5)), not against the slope.
  OptimalityInput zero;
  zero.x = Eigen::Vector2d(1e-4, 1e-4);
  zero.lower = Eigen::Vector2d::Constant(-10.0);
  zero.upper = Eigen::Vector2d::Constant(10.0);
  zero.objective_gradient = 2.0 * zero.x;
  zero.objective = zero.x.squaredNorm();
  zero.reference = 50.0;
  const Optimality z = first_order_optimality(zero);
  ASSERT_TRUE(z.computed) << z.message;
  EXPECT_NEAR(z.normaliser, 0.5, 1e-12);
  EXPECT_NEAR(z.residual, 8e-5, 1e-9);
}

TEST(Optimality, BoundsTakeMultipliersOfTheRightSignOnly) {
  OptimalityInput in;
  in.x = Eigen::VectorXd::Constant(1, 1.0);
  in.lower = Eigen::VectorXd::Constant(1, 1.0);
  in.upper = Eigen::VectorXd::Constant(1, 5.0);
  in.objective_gradient = Eigen::VectorXd::Constant(1, 2.0);  // min 2x: optimal at the lower bound
  in.row_values.resize(0);
  in.row_jacobian.resize(0, 1);
  Optimality o = first_order_optimality(in);
  EXPECT_EQ(o.at_lower, std::vector<int>{0});
  EXPECT_NEAR(o.residual, 0.0, 1e-12);
  in.objective_gradient(0) = -2.0;  // max 2x at the lower bound: not optimal
  o = first_order_optimality(in);
  EXPECT_NEAR(o.residual, 1.0, 1e-12);
  in.x(0) = 5.0;  // at the upper bound it is
  o = first_order_optimality(in);
  EXPECT_EQ(o.at_upper, std::vector<int>{0});
  EXPECT_NEAR(o.residual, 0.0, 1e-12);
}

TEST(Optimality, TheResidualIsTheOneItsMultipliersLeaveWhateverTheRowScale) {
  // (1, 4) is not a KKT point; rows scaled by 1e-9 .. 1e9 change the multiplier, not the
  // residual, and the residual must be the one the returned multiplier really leaves.
  const double reference = first_order_optimality(product_problem(1.0, 4.0)).residual;
  for (double scale : {1e-9, 1e-4, 1e4, 1e9}) {
    OptimalityInput in = product_problem(1.0, 4.0);
    in.row_values *= scale;
    in.row_jacobian *= scale;
    const Optimality o = first_order_optimality(in);
    ASSERT_TRUE(o.computed) << o.message;
    ASSERT_EQ(o.multipliers.size(), 1u);
    const Eigen::VectorXd s = variable_sizes(in.x, in.lower, in.upper);
    const Eigen::VectorXd left =
        in.objective_gradient + o.multipliers[0] * in.row_jacobian.row(0).transpose();
    EXPECT_NEAR(o.residual, left.cwiseProduct(s).cwiseAbs().maxCoeff() / o.normaliser, 1e-12)
        << "scale " << scale;
    EXPECT_NEAR(o.residual, reference, 1e-9 * (1.0 + reference)) << "scale " << scale;
  }
}

// Two rows of one peak (neighbouring time points): A exactly at its bound, whose normal
// leaves a stationarity of 2e-4 alone, and B 5e-4 inside it, whose normal cancels the gradient
// exactly. The residual the driver reports is the larger of stationarity and complementarity
// (lambda_j |g_hat_j| / D on each active row); the multipliers must minimise it, not
// stationarity alone: with B alone it would be 5e-4 (the truck's 0.16 m member: 0.0034 from a
// row 0.09 % inside its bound, where the row at its bound met both conditions).
TEST(Optimality, TheMultipliersMinimiseStationarityAndComplementarityTogether) {
  OptimalityInput in;
  in.x = Eigen::Vector2d(2.0, 2.0);
  in.lower = Eigen::Vector2d(0.1, 0.1);
  in.upper = Eigen::Vector2d(10.0, 10.0);
  in.objective_gradient = Eigen::Vector2d(1.0, 1.0);
  in.row_values = Eigen::Vector2d(0.0, -5e-4);
  in.row_jacobian.resize(2, 2);
  in.row_jacobian << -0.5, -0.5001, -0.5, -0.5;
  const Optimality o = first_order_optimality(in);
  ASSERT_TRUE(o.computed) << o.message;
  ASSERT_EQ(o.multipliers.size(), 2u);
  const Eigen::VectorXd s = variable_sizes(in.x, in.lower, in.upper);
  Eigen::VectorXd left = in.objective_gradient;
  double complementarity = 0.0;
  for (size_t a = 0; a < 2; ++a) {
    left += o.multipliers[a] * in.row_jacobian.row(o.active_rows[a]).transpose();
    complementarity =
        std::max(complementarity,
                 o.multipliers[a] * std::abs(in.row_values(o.active_rows[a])) / o.normaliser);
  }
  EXPECT_NEAR(o.residual, left.cwiseProduct(s).cwiseAbs().maxCoeff() / o.normaliser, 1e-12);
  const double reported = std::max(o.residual, complementarity);
  EXPECT_LE(reported, 2e-4 + 1e-12);  // no worse than A alone
  EXPECT_GT(reported, 1e-5);          // not a KKT point: A does not cancel the gradient
}

// A variable on its bound whose column in the LP is tiny next to the others (s_i / D = 4e-8)
// with a large gradient: the bound's multiplier must still be found (issue 47: "first-order
// residual 0.0238" at an exact KKT point, the bound columns not scaled like the rows).
TEST(Optimality, ABoundMultiplierIsFoundWhateverItsColumnsScale) {
  for (double gradient : {6e5, 6e7, 6e9}) {
    OptimalityInput in;
    in.x = Eigen::Vector2d(0.0, 5.0);
    in.lower = Eigen::Vector2d(0.0, 0.0);
    in.upper = Eigen::Vector2d(1.0, 10.0);
    // s = (0.01, 5); D = 5 x 5e4 = 2.5e5 (the interior variable's term dominates).
    in.objective_gradient = Eigen::Vector2d(gradient, 5e4);
    in.row_values = Eigen::VectorXd::Constant(1, 0.0);  // g_hat = (5 - x2) / 5, active
    in.row_jacobian = Eigen::RowVector2d(0.0, -0.2);    // lambda = 2.5e5
    in.objective = 1.0;
    const Optimality o = first_order_optimality(in);
    ASSERT_TRUE(o.computed) << o.message;
    EXPECT_EQ(o.at_lower, std::vector<int>{0});
    EXPECT_NEAR(o.residual, 0.0, 1e-9) << "dF/dx1 = " << gradient;
    ASSERT_EQ(o.multipliers.size(), 1u);
    EXPECT_NEAR(o.multipliers[0], 2.5e5, 1e-3);
  }
}

TEST(Optimality, UnboundedVariablesUseTheirOwnSize) {
  const Eigen::VectorXd s =
      variable_sizes(Eigen::Vector3d(200.0, 0.001, 5.0), Eigen::Vector3d(-INFINITY, -INFINITY, 0.0),
                     Eigen::Vector3d(INFINITY, 1.0, 10.0));
  EXPECT_DOUBLE_EQ(s(0), 200.0);
  EXPECT_DOUBLE_EQ(s(1), 1.0);
  EXPECT_DOUBLE_EQ(s(2), 5.0);
}

Eigen::VectorXd vector_of(const nlohmann::json& j) {
  const auto v = j.get<std::vector<double>>();
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

// A degenerate multiplier LP, the input of a run near its optimum (30 variables, 12 rows active
// at round-off; tests/data/optimality-degenerate-lp.json says where it came from): GLPK's primal
// simplex went on without end (more than 16 minutes), and with it the whole run. Its iterations
// are limited now and the dual simplex and the exact one take over; the design is near a KKT
// point, which the residual says.
TEST(Optimality, ADegenerateMultiplierLpEndsAndMeasuresTheResidual) {
  std::ifstream file(std::string(SAO_SOURCE_DIR) + "/tests/data/optimality-degenerate-lp.json");
  ASSERT_TRUE(file.good());
  const nlohmann::json j = nlohmann::json::parse(file);
  OptimalityInput in;
  in.x = vector_of(j.at("x"));
  in.lower = vector_of(j.at("lower"));
  in.upper = vector_of(j.at("upper"));
  in.objective_gradient = vector_of(j.at("objective_gradient"));
  in.row_values = vector_of(j.at("row_values"));
  const auto& rows = j.at("row_jacobian");
  in.row_jacobian.resize(static_cast<Eigen::Index>(rows.size()), in.x.size());
  for (std::size_t r = 0; r < rows.size(); ++r)
    in.row_jacobian.row(static_cast<Eigen::Index>(r)) = vector_of(rows[r]).transpose();
  in.reference = j.at("reference").get<double>();
  in.objective = j.at("objective").get<double>();
  in.active_tolerance = j.at("active_tolerance").get<double>();
  const Optimality o = first_order_optimality(in);
  ASSERT_TRUE(o.computed) << o.message;
  EXPECT_EQ(o.active_rows.size(), 12u);
  EXPECT_LT(o.residual, 1e-3);
  for (double lambda : o.multipliers) EXPECT_GE(lambda, 0.0);
}

}  // namespace
}  // namespace sao
