// Discrete design variables in the driver (issue 51; docs/study-format.md, "Discrete
// variables"): the end rounding of the gradient-based strategies, the metamodel strategy's
// allowed designs, and the catalogue spring study.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "sao/optimizer/driver.hpp"
#include "sao/study/study_loader.hpp"
#include "tests/e2e/run_study.hpp"
#include "tests/sao/fake_simulator.hpp"

namespace sao {
namespace {

using testing::FakeSimulator;
using ::testing::HasSubstr;

// min (b1 - 0.32)^2 + (b2 - 1.23)^2 s.t. s = b1 >= 0.31 (and <= s_upper when given), b1 on the
// grid 0, 0.1, ..., 1.
LoadedStudy grid_study(const nlohmann::json& settings, double s_upper = 0.0) {
  nlohmann::json d = {
      {"design_variables",
       {{{"name", "b1"},
         {"lower", 0.0},
         {"upper", 1.0},
         {"step", 0.1},
         {"initial", 0.9},
         {"sizing", "range"}},
        {{"name", "b2"}, {"lower", 0.0}, {"upper", 2.0}, {"initial", 0.2}, {"sizing", "range"}}}},
      {"load_cases", {{{"name", "only"}}}},
      {"responses", {{{"name", "r"}, {"kind", "scalar"}}, {{"name", "s"}, {"kind", "scalar"}}}},
      {"objective", {{"minimize", {{"response", "r"}}}}},
      {"constraints", {{{"name", "s_min"}, {"of", {{"response", "s"}}}, {"lower", 0.31}}}},
      {"settings", settings},
      {"simulator", {{"type", "fake"}}}};
  if (s_upper > 0.0) d["constraints"][0]["upper"] = s_upper;
  return load_study(d);
}

FakeSimulator grid_simulator() {
  return FakeSimulator({{"r",
                         [](const Eigen::VectorXd& b) {
                           return std::pow(b(0) - 0.32, 2) + std::pow(b(1) - 1.23, 2);
                         },
                         [](const Eigen::VectorXd& b) {
                           return Eigen::Vector2d(2.0 * (b(0) - 0.32), 2.0 * (b(1) - 1.23)).eval();
                         }},
                        {"s", [](const Eigen::VectorXd& b) { return b(0); },
                         [](const Eigen::VectorXd&) { return Eigen::Vector2d(1.0, 0.0).eval(); }}});
}

// The continuous optimum b1 = 0.32 lies between 0.3 (nearer, but infeasible) and 0.4: the
// rounding analyses both and reports the feasible one, saying so.
TEST(DiscreteDriver, TheEndRoundingReportsTheBestFeasibleNeighbour) {
  const LoadedStudy s = grid_study({{"max_cycles", 30}});
  FakeSimulator sim = grid_simulator();
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  ASSERT_TRUE(r.rounding.done);
  EXPECT_NEAR(r.rounding.continuous(0), 0.32, 1e-4);
  EXPECT_NEAR(r.rounding.continuous_objective, 0.0, 1e-6);
  EXPECT_EQ(r.rounding.candidates, 2);
  EXPECT_EQ(r.rounding.failed, 0);
  EXPECT_TRUE(r.rounding.feasible);
  EXPECT_DOUBLE_EQ(r.x(0), 0.4);
  EXPECT_NEAR(r.x(1), 1.23, 1e-4);
  EXPECT_NEAR(r.objective, 0.0064, 1e-6);  // analysed at the rounded design
  EXPECT_LE(r.max_violation, s.options.vioacc);
  EXPECT_THAT(r.message, HasSubstr("rounded to allowed values (b1 0.32"));
  EXPECT_THAT(r.message, HasSubstr("-> 0.4): 2 of the 2 allowed designs"));
  EXPECT_THAT(r.message, HasSubstr("the best feasible"));
}

// With 0.31 <= b1 <= 0.35 neither 0.3 (3.2 % below) nor 0.4 (14 % above) holds: the least
// violation is reported, and the message says that none is feasible.
TEST(DiscreteDriver, WhenNoNeighbourIsFeasibleTheLeastViolationIsReportedAsSuch) {
  const LoadedStudy s = grid_study({{"max_cycles", 30}}, 0.35);
  FakeSimulator sim = grid_simulator();
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  ASSERT_TRUE(r.rounding.done);
  EXPECT_FALSE(r.rounding.feasible);
  EXPECT_DOUBLE_EQ(r.x(0), 0.3);
  EXPECT_NEAR(r.max_violation, 100.0 * 0.01 / 0.31, 1e-6);
  EXPECT_THAT(r.message, HasSubstr("reported: none feasible, the least violation"));
}

TEST(DiscreteDriver, WhenEveryRoundingAnalysisFailsTheContinuousDesignStaysAndSaysSo) {
  LoadedStudy s = grid_study({{"max_cycles", 30}});
  FakeSimulator sim = grid_simulator();
  // s fails when b1 is on the grid: every rounding analysis fails, the continuous design stays.
  sim.fail_when = [](const Eigen::VectorXd& b) {
    return std::abs(b(0) * 10.0 - std::round(b(0) * 10.0)) < 1e-9 && b(0) < 0.85;
  };
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  EXPECT_FALSE(r.rounding.done);
  EXPECT_THAT(r.message, HasSubstr("not rounded to the allowed values: the 2 analyses"));
  EXPECT_NEAR(r.x(0), 0.32, 1e-4);
}

// The metamodel strategy analyses allowed designs only, and finds the discrete optimum
// b1 = 0.4 (0.3 is infeasible) with b2 at its continuous optimum.
TEST(DiscreteDriver, TheMetamodelStrategyAnalysesAllowedDesignsOnly) {
  const LoadedStudy s =
      grid_study({{"strategy", "metamodel"}, {"metamodel", "quadratic"}, {"max_cycles", 12}});
  FakeSimulator sim = grid_simulator();
  int off_grid = 0;
  sim.fail_when = [&](const Eigen::VectorXd& b) {
    off_grid += std::abs(b(0) * 10.0 - std::round(b(0) * 10.0)) > 1e-12;
    return false;
  };
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  EXPECT_EQ(off_grid, 0);
  EXPECT_FALSE(r.rounding.done);  // nothing to round
  EXPECT_NEAR(r.x(0), 0.4, 1e-12);
  EXPECT_NEAR(r.x(1), 1.23, 1e-3);
}

// The catalogue spring (problems/impact-absorber/catalogue-spring.json): a scan of the damper
// at each catalogue stiffness (docs/study-format.md) puts the discrete optimum at k = 0.39 with
// c about 0.458 and F about 0.5238; the continuous optimum is k = 0.36276, F = 0.52029.
TEST(DiscreteDriver, TheCatalogueSpringEndsOnACatalogueValue) {
  const RunSummary rounded = run_study("problems/impact-absorber/catalogue-spring.json");
  ASSERT_EQ(rounded.status, RunStatus::kConverged) << rounded.message;
  ASSERT_TRUE(rounded.rounding.done);
  EXPECT_NEAR(rounded.rounding.continuous_objective, 0.52029, 5e-4);
  EXPECT_DOUBLE_EQ(rounded.x(0), 0.39);
  EXPECT_NEAR(rounded.objective, 0.53199, 5e-4);  // c kept at its continuous value
  EXPECT_LE(rounded.max_violation, 0.001);
  const RunSummary native = run_study("problems/impact-absorber/catalogue-spring.json",
                                      {"settings.strategy=\"metamodel\""});
  ASSERT_EQ(native.status, RunStatus::kConverged) << native.message;
  EXPECT_DOUBLE_EQ(native.x(0), 0.39);
  EXPECT_NEAR(native.objective, 0.5238, 5e-4);  // c re-optimised with the catalogue's k
  EXPECT_LE(native.max_violation, 0.001);
}

}  // namespace
}  // namespace sao
