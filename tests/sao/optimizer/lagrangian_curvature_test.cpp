// Issue 47: the Lagrangian's curvature in the subproblem, and the trust region that does not
// crawl at a small region in the keep band.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>

#include "sao/optimizer/driver.hpp"
#include "sao/optimizer/subproblem.hpp"
#include "sao/optimizer/trust_region.hpp"
#include "sao/study/study_loader.hpp"
#include "tests/sao/fake_simulator.hpp"

namespace sao {
namespace {

using testing::FakeSimulator;

// Hock & Schittkowski's problem 71 as responses of the fake simulator: min x1 x4 (x1 + x2 + x3)
// + x3 s.t. x1 x2 x3 x4 >= 25, x1^2 + x2^2 + x3^2 + x4^2 = 40, 1 <= x <= 5, from (1, 5, 5, 1);
// f* = 17.0140173. The product constraint couples every pair of variables, which the diagonal
// quadratic form of a constraint cannot represent.
LoadedStudy hs71(bool lagrangian) {
  const double start[] = {1.0, 5.0, 5.0, 1.0};
  nlohmann::json d = {
      {"load_cases", {{{"name", "only"}}}},
      {"responses",
       {{{"name", "f"}, {"kind", "scalar"}},
        {{"name", "product"}, {"kind", "scalar"}},
        {{"name", "squares"}, {"kind", "scalar"}}}},
      {"objective", {{"minimize", "f"}}},
      {"constraints",
       {{{"name", "product"}, {"of", {{"response", "product"}}}, {"lower", 25.0}},
        {{"name", "squares"}, {"of", {{"response", "squares"}}}, {"equals", 40.0}}}},
      {"settings",
       {{"objacc", 0.001},
        {"vioacc", 0.001},
        {"max_cycles", 100},
        {"lagrangian_curvature", lagrangian}}},
      {"simulator", {{"type", "fake"}}}};
  for (int k = 0; k < 4; ++k) {
    d["design_variables"].push_back({{"name", "x" + std::to_string(k + 1)},
                                     {"lower", 1.0},
                                     {"upper", 5.0},
                                     {"initial", start[k]}});
  }
  return load_study(d);
}

FakeSimulator hs71_simulator() {
  using V = Eigen::VectorXd;
  return FakeSimulator({{"f", [](const V& x) { return x(0) * x(3) * (x(0) + x(1) + x(2)) + x(2); },
                         [](const V& x) {
                           V g(4);
                           g << x(3) * (2 * x(0) + x(1) + x(2)), x(0) * x(3), x(0) * x(3) + 1,
                               x(0) * (x(0) + x(1) + x(2));
                           return g;
                         }},
                        {"product", [](const V& x) { return x.prod(); },
                         [](const V& x) {
                           V g(4);
                           for (int k = 0; k < 4; ++k) g(k) = x.prod() / x(k);
                           return g;
                         }},
                        {"squares", [](const V& x) { return x.squaredNorm(); },
                         [](const V& x) { return V(2 * x); }}});
}

RunSummary run_hs71(bool lagrangian) {
  const LoadedStudy s = hs71(lagrangian);
  FakeSimulator sim = hs71_simulator();
  Driver driver(s, sim, s.options);
  return driver.run();
}

TEST(LagrangianCurvature, ACoupledConstraintConvergesInFewerCycles) {
  const RunSummary with = run_hs71(true);
  const RunSummary without = run_hs71(false);
  std::cout << "HS 71: with the Lagrangian's curvature " << with.cycles << " cycles, "
            << with.analyses << " analyses, F = " << with.objective << "; without "
            << without.cycles << " cycles, " << without.analyses
            << " analyses, F = " << without.objective << "\n";
  ASSERT_EQ(with.status, RunStatus::kConverged) << with.message;
  EXPECT_NEAR(with.objective, 17.0140173, 1e-4 * 17.0140173);
  EXPECT_LE(with.max_violation, 0.001);
  // Measured 2026-11-28: 7 cycles; the approximations alone converge linearly on the product
  // constraint and reach the cycle limit of 100 (with forward differences, the suite's hs-071,
  // 20 cycles against 7).
  EXPECT_LT(2 * with.cycles, without.cycles);
}

// Hock & Schittkowski's problem 81: min exp(x1 x2 x3 x4 x5) - 0.5 (x1^3 + x2^3 + 1)^2 s.t.
// sum x_i^2 = 10, x2 x3 - 5 x4 x5 = 0, x1^3 + x2^3 = -1 from (-2, 2, 2, -1, -1); f* = 0.0539498.
// x1^3 + x2^3 is concave in x1 < 0 along the solution: its quadratic approximation floored at
// zero curvature (the default for a response bounded from one side) misses the second-order
// change of every step along the equality, each proposal violates it by as much as it gains,
// and the region shrinks to 1e-4 of the ranges. An equality has no conservative side: its
// responses keep a curvature of either sign.
TEST(LagrangianCurvature, AConcaveEqualityKeepsItsCurvature) {
  using V = Eigen::VectorXd;
  const double start[] = {-2.0, 2.0, 2.0, -1.0, -1.0};
  const double range[] = {2.3, 2.3, 3.2, 3.2, 3.2};
  nlohmann::json d = {
      {"load_cases", {{{"name", "only"}}}},
      {"responses",
       {{{"name", "f"}, {"kind", "scalar"}},
        {{"name", "h1"}, {"kind", "scalar"}},
        {{"name", "h2"}, {"kind", "scalar"}},
        {{"name", "h3"}, {"kind", "scalar"}}}},
      {"objective", {{"minimize", "f"}}},
      {"constraints",
       {{{"name", "h1"}, {"of", {{"response", "h1"}}}, {"equals", 10.0}},
        {{"name", "h2"}, {"of", {{"response", "h2"}}}, {"equals", 0.0}, {"scale", 1.0}},
        {{"name", "h3"}, {"of", {{"response", "h3"}}}, {"equals", -1.0}}}},
      {"settings", {{"objacc", 0.001}, {"vioacc", 0.001}, {"max_cycles", 100}}},
      {"simulator", {{"type", "fake"}}}};
  for (int k = 0; k < 5; ++k) {
    d["design_variables"].push_back({{"name", "x" + std::to_string(k + 1)},
                                     {"lower", -range[k]},
                                     {"upper", range[k]},
                                     {"initial", start[k]}});
  }
  const LoadedStudy s = load_study(d);
  FakeSimulator sim(
      {{"f",
        [](const V& x) {
          const double c = x(0) * x(0) * x(0) + x(1) * x(1) * x(1) + 1;
          return std::exp(x.prod()) - 0.5 * c * c;
        },
        [](const V& x) {
          const double c = x(0) * x(0) * x(0) + x(1) * x(1) * x(1) + 1;
          V g(5);
          for (int k = 0; k < 5; ++k) {
            double others = 1.0;
            for (int j = 0; j < 5; ++j) others *= j == k ? 1.0 : x(j);
            g(k) = std::exp(x.prod()) * others;
          }
          g(0) -= 3 * c * x(0) * x(0);
          g(1) -= 3 * c * x(1) * x(1);
          return g;
        }},
       {"h1", [](const V& x) { return x.squaredNorm(); }, [](const V& x) { return V(2 * x); }},
       {"h2", [](const V& x) { return x(1) * x(2) - 5 * x(3) * x(4); },
        [](const V& x) {
          V g(5);
          g << 0, x(2), x(1), -5 * x(4), -5 * x(3);
          return g;
        }},
       {"h3", [](const V& x) { return x(0) * x(0) * x(0) + x(1) * x(1) * x(1); },
        [](const V& x) {
          V g(5);
          g << 3 * x(0) * x(0), 3 * x(1) * x(1), 0, 0, 0;
          return g;
        }}});
  Driver driver(s, sim, s.options);
  const RunSummary run = driver.run();
  std::cout << "HS 81: " << run.cycles << " cycles, " << run.analyses
            << " analyses, F = " << run.objective << "\n";
  ASSERT_EQ(run.status, RunStatus::kConverged) << run.message;
  EXPECT_NEAR(run.objective, 0.0539498478, 1e-4);
  EXPECT_LE(run.max_violation, 0.001);
  // Measured 2026-11-28 (exact gradients): 9 cycles; with the floor at zero, as before, 58.
  EXPECT_LE(run.cycles, 20);
}

TEST(LagrangianCurvature, OnlyTheSubproblemsObjectiveCarriesIt) {
  // The term is added to what the subproblem minimises, never to the objective's own
  // approximation (its error Ef), and vanishes with its gradient at b0.
  const LoadedStudy s = hs71(true);
  FakeSimulator sim = hs71_simulator();
  Eigen::VectorXd x0(4);
  x0 << 1.0, 5.0, 5.0, 1.0;
  EvaluationRequest request;
  request.design = x0;
  request.derivatives = {DerivativeRequest{}};
  const Evaluation e = sim.evaluate({request}).front();
  ASSERT_TRUE(e.has_gradients);
  const LinearApproximation linear(s, e, x0);
  ApproximateProblem plain;
  plain.study = &s;
  plain.model = &linear;
  plain.x0 = x0;
  ApproximateProblem curved = plain;
  curved.curvature = Eigen::MatrixXd::Identity(4, 4) * 3.0;
  curved.curvature(0, 1) = curved.curvature(1, 0) = 1.0;
  Eigen::VectorXd x = x0;
  x(1) -= 0.5;
  x(0) += 0.2;
  EXPECT_DOUBLE_EQ(curved.objective(x0), plain.objective(x0));
  EXPECT_TRUE(curved.objective_gradient(x0).isApprox(plain.objective_gradient(x0)));
  EXPECT_DOUBLE_EQ(curved.approximate_objective(x), plain.objective(x));
  const Eigen::VectorXd d = x - x0;
  EXPECT_NEAR(curved.objective(x) - plain.objective(x), 0.5 * d.dot(curved.curvature * d), 1e-12);
  EXPECT_TRUE((curved.objective_gradient(x) - plain.objective_gradient(x))
                  .isApprox(curved.curvature * d, 1e-12));
}

// The crawl of issue 47: cycles accepted with a fair ratio (the keep band, 0.25 to 0.75)
// while the region is small keep the factors where they are, and a run whose ratio stays
// there (a small persistent violation each subproblem predicts removed lowers it) creeps. Here
// the region starts at 0.1 % of the ranges, far from the optimum, on a bilinear constraint
// violated at the start: min 3 x1 + x2 + 3 x3 s.t. x1 x2 + x2 x3 + x1 x3 >= 4 from
// (3.05, 0.188, 0.172), where g = 1.13.
struct Crawl {
  RunStatus status = RunStatus::kFailed;
  double objective = 0.0;
  int cycles = 0;
  int small_keeps = 0;  // cycles kept in the keep band at a region below 1 % of the ranges
  int longest = 0;      // the most of them in a row
};

Crawl bilinear_from_a_small_region(bool lagrangian_curvature) {
  // Before: neither the Lagrangian's curvature nor the second-order correction (2026-11-29).
  nlohmann::json d = {
      {"load_cases", {{{"name", "only"}}}},
      {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
      {"objective", {{"minimize", "3*x1 + x2 + 3*x3"}}},
      {"constraints", {{{"name", "r"}, {"of", {{"response", "r"}}}, {"lower", 4.0}}}},
      {"settings",
       {{"objacc", 0.001},
        {"vioacc", 0.001},
        {"max_cycles", 200},
        {"lagrangian_curvature", lagrangian_curvature},
        {"second_order_correction", lagrangian_curvature}}},
      {"simulator", {{"type", "fake"}}}};
  const double start[] = {3.05, 0.188, 0.172};
  for (int k = 0; k < 3; ++k) {
    d["design_variables"].push_back({{"name", "x" + std::to_string(k + 1)},
                                     {"lower", 0.1},
                                     {"upper", 10.0},
                                     {"initial", start[k]},
                                     {"sizing", "range"},
                                     {"move_limit", 0.002}});
  }
  const LoadedStudy s = load_study(d);
  using V = Eigen::VectorXd;
  FakeSimulator sim({{"r", [](const V& x) { return x(0) * x(1) + x(1) * x(2) + x(0) * x(2); },
                      [](const V& x) {
                        V g(3);
                        g << x(1) + x(2), x(0) + x(2), x(0) + x(1);
                        return g;
                      }}});
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  Crawl out;
  out.status = r.status;
  out.objective = r.objective;
  out.cycles = r.cycles;
  int in_a_row = 0;
  for (const CycleRecord& c : r.history) {
    double region = 0.0;
    for (int i = 0; i < 3; ++i) {
      const DesignVariable& v = s.design[i];
      region = std::max(region, move_half_width(v, c.factors(i), c.x0(i), true) / v.span());
    }
    const bool keep = c.accepted && c.ratio >= 0.25 && c.ratio <= kGrowRatio &&
                      std::none_of(c.actions.begin(), c.actions.end(),
                                   [](MoveAction a) { return a == MoveAction::kEnlarged; });
    const bool crawl = keep && region < kSmallRegion;
    out.small_keeps += crawl;
    in_a_row = crawl ? in_a_row + 1 : 0;
    out.longest = std::max(out.longest, in_a_row);
  }
  std::cout << "bilinear from a small region (lagrangian_curvature " << lagrangian_curvature
            << "): " << r.cycles << " cycles, " << out.small_keeps
            << " kept at a region below 1 %, at most " << out.longest << " in a row\n";
  return out;
}

TEST(LagrangianCurvature, NoCrawlInTheKeepBandAtASmallRegion) {
  const Crawl now = bilinear_from_a_small_region(true);
  ASSERT_EQ(now.status, RunStatus::kConverged);
  // Optimum: x1 = x3 = a, x2 = (4 - a^2) / (2 a): F = 5.5 a + 2 / a, least at a^2 = 2 / 5.5,
  // F = 2 sqrt(11).
  EXPECT_NEAR(now.objective, 2.0 * std::sqrt(11.0), 1e-3);
  EXPECT_LE(now.longest, 5);
  EXPECT_LT(now.cycles, 60);
  // The same run with the trust region of before (lagrangian_curvature and
  // second_order_correction false: no curvature, no growth of a small region, no correction)
  // shows the pattern: at a region below 1 % of the ranges it keeps
  // the factors cycle after cycle with ratios of 0.2 to 0.6 at a violation of about 0.04 %,
  // and never converges.
  const Crawl before = bilinear_from_a_small_region(false);
  EXPECT_GT(before.longest, 5);
  EXPECT_EQ(before.status, RunStatus::kCycleLimit);
}

}  // namespace
}  // namespace sao
