// The direct coupling's scaling (bench/compare/direct_coupling.hpp, DirectSettings::scaled): on
// a tiny study scaled like the suspension (a stiffness of 1e4 N/m beside a coordinate of 1e-2 m,
// an objective of 1e-5), NLopt's SLSQP and IPOPT reach the known optimum only when they see the
// variables divided by their ranges and the objective by its start value.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "bench/compare/direct_coupling.hpp"
#include "sao/study/open_study.hpp"
#include "simulators/internal_simulator.hpp"

namespace sao::bench {
namespace {

// F = 1e-5 (1 + (k/1e4 - 1.3)^2 + (y/0.05 - 0.4)^2) with k/1e4 + y/0.05 <= 1.5: the optimum is
// the projection of (1.3, 0.4) onto the constraint, k = 12000, y = 0.015, F = 1.02e-5.
constexpr double kOptimum = 1.02e-5;

OpenedStudy tiny_study() {
  sim::register_internal_simulator();
  const nlohmann::json document = {
      {"name", "badly scaled"},
      {"design_variables",
       {{{"name", "k"}, {"lower", 100}, {"upper", 30000}, {"initial", 5000}},
        {{"name", "y"}, {"lower", -0.05}, {"upper", 0.05}, {"initial", -0.03}}}},
      {"load_cases", {{{"name", "main"}}}},
      {"responses", {{{"name", "f"}, {"kind", "scalar"}}, {{"name", "c"}, {"kind", "scalar"}}}},
      {"objective", {{"minimize", "f"}}},
      {"constraints", {{{"name", "c"}, {"of", "c"}, {"upper", 1.5}}}},
      {"settings", {{"objacc", 0.1}, {"vioacc", 0.001}}},
      {"simulator",
       {{"type", "internal"},
        {"model", "functions"},
        {"functions",
         {{"f", "1e-5*(1 + (k/1e4 - 1.3)^2 + (y/0.05 - 0.4)^2)"}, {"c", "k/1e4 + y/0.05"}}},
        {"gradients", {{"method", "central"}, {"step", 1e-6}}}}}};
  return open_study_document(document, "badly scaled");
}

TEST(DirectScaling, RangesAndTheStartObjective) {
  const OpenedStudy opened = tiny_study();
  const Eigen::VectorXd x = (Eigen::VectorXd(2) << 5000, -0.03).finished();
  const DirectScaling s = direct_scaling(opened.study, x, -3.6e-5);
  ASSERT_EQ(s.variables.size(), 2);
  EXPECT_DOUBLE_EQ(s.variables(0), 29900);
  EXPECT_DOUBLE_EQ(s.variables(1), 0.1);
  EXPECT_DOUBLE_EQ(s.objective, 3.6e-5);
  EXPECT_DOUBLE_EQ(direct_scaling(opened.study, x, 0.0).objective, 1.0);
  EXPECT_DOUBLE_EQ(direct_scaling(opened.study, x, NAN).objective, 1.0);
}

TEST(DirectScaling, UnboundedVariablesByTheirStart) {
  OpenedStudy opened = tiny_study();
  opened.study.design[0].upper = std::numeric_limits<double>::infinity();
  const Eigen::VectorXd x = (Eigen::VectorXd(2) << 5000, -0.03).finished();
  EXPECT_DOUBLE_EQ(direct_scaling(opened.study, x, 1.0).variables(0), 5000);
  const Eigen::VectorXd small = (Eigen::VectorXd(2) << 0.5, -0.03).finished();
  EXPECT_DOUBLE_EQ(direct_scaling(opened.study, small, 1.0).variables(0), 1.0);
}

void expect_optimum(const DirectResult& r) {
  EXPECT_EQ(r.status, "converged") << r.reason;
  EXPECT_NEAR(r.objective, kOptimum, 1e-4 * kOptimum) << r.reason;
  ASSERT_EQ(r.x.size(), 2);
  EXPECT_NEAR(r.x(0), 12000, 0.01 * 29900);
  EXPECT_NEAR(r.x(1), 0.015, 0.01 * 0.1);
  ASSERT_FALSE(r.history.empty());
  EXPECT_EQ(r.history.back().analyses, r.analyses);
  EXPECT_EQ(r.history.back().gradients, r.gradients);
  EXPECT_EQ(r.history.back().runs, r.runs);
  // Each entry counts itself: an analysis without gradients is a new design.
  for (size_t i = 1; i < r.history.size(); ++i) {
    if (r.history[i].gradients == r.history[i - 1].gradients) {
      EXPECT_EQ(r.history[i].analyses, r.history[i - 1].analyses + 1) << "entry " << i;
    }
  }
}

TEST(DirectScaling, SlsqpReachesTheOptimumScaled) {
  OpenedStudy opened = tiny_study();
  const DirectResult r =
      run_direct(opened.study, *opened.simulator, {NLOPT_LD_SLSQP, 200, 1e-9, 60, true, {}});
  expect_optimum(r);
}

TEST(DirectScaling, IpoptReachesTheOptimumScaled) {
  OpenedStudy opened = tiny_study();
  const DirectResult r =
      run_ipopt(opened.study, *opened.simulator, {NLOPT_LD_SLSQP, 200, 1e-6, 60, true, {}});
  expect_optimum(r);
}

// Unscaled, IPOPT's tolerances are absolute in the objective's units (its gradient is about
// 4e-4 per metre at the start and 1e-9 per N/m): it says Solve_Succeeded far above the optimum
// (1.9e-5 when written), and so does SLSQP, whose first quasi-Newton steps are the raw gradient.
TEST(DirectScaling, BothStopFarFromTheOptimumUnscaled) {
  OpenedStudy opened = tiny_study();
  const DirectResult ipopt =
      run_ipopt(opened.study, *opened.simulator, {NLOPT_LD_SLSQP, 200, 1e-3, 60, false, {}});
  EXPECT_GT(ipopt.objective, 1.5 * kOptimum) << ipopt.status << " " << ipopt.reason;
  const DirectResult slsqp =
      run_direct(opened.study, *opened.simulator, {NLOPT_LD_SLSQP, 200, 1e-3, 60, false, {}});
  EXPECT_GT(slsqp.objective, 1.5 * kOptimum) << slsqp.status << " " << slsqp.reason;
}

}  // namespace
}  // namespace sao::bench
