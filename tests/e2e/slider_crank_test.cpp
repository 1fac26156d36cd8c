// End to end: slider-crank path synthesis (seed 003, 2.5.2 / 3.7.2) with x2, y2, theta2 as
// intermediate responses and the coupler point, path error and movability constraints as
// explicit relations, against PROBLEMS.md (verified optimum F = 3.7461 with g2 active and b2
// at its upper bound 30; seed: 10 cycles, the issue allows 12).
#include <gtest/gtest.h>

#include "tests/e2e/run_study.hpp"

namespace sao {
namespace {

TEST(SliderCrankE2E, IntermediateResponsesReachTheVerifiedOptimum) {
  const RunSummary r = run_study("problems/slider-crank/path.json");
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  EXPECT_NEAR(r.start_objective, 3486.1, 0.05);
  EXPECT_NEAR(r.objective, 3.746, 0.01);
  EXPECT_LE(r.cycles, 12);
  const Eigen::VectorXd& b = r.x;
  EXPECT_NEAR(b(1), 30.0, 1e-6);  // b2 at its upper bound
  const double g1 = -0.85 * b(1) + b(0) + b(2) - b(5), g2 = -0.85 * b(1) + b(0) - b(2) + b(5);
  EXPECT_NEAR(g1, -32.22, 0.05);
  EXPECT_NEAR(g2, 0.0, 1e-4);  // active
  const double reference[] = {9.3878, 30.000, -6.6500, 12.715, 8.2239, 9.4622, 0.82156, 0.91597};
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(b(i), reference[i], 2e-3 * (1 + std::abs(reference[i])));
}

// Its last cycle's subproblem predicts no gain in a subregion that did not hold its step back:
// the run converges at that b0 without analysing the proposal, a ninth analysis that would not
// change the decision (issue 47: the slider-crank in at most 8 analyses).
TEST(SliderCrankE2E, TheLastCycleConvergesOnItsPredictionWithoutAnalysingTheProposal) {
  const RunSummary r = run_study("problems/slider-crank/path.json");
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  ASSERT_GE(r.history.size(), 2u);
  const CycleRecord& last = r.history.back();
  EXPECT_TRUE(last.converged);
  EXPECT_NE(last.message.find("predicted to improve on b0"), std::string::npos) << last.message;
  EXPECT_EQ(last.x_opt, last.x0);
  EXPECT_EQ(last.analyses, r.history[r.history.size() - 2].analyses);
  EXPECT_LE(r.analyses, 8);
}

// Without intermediate responses (the path error approximated directly, by the default
// quasi-Newton form of the objective's response) the same start does not reach the optimum
// within the cycle limit: what exact relations buy (docs/results.md: 3.888 after 31 analyses
// against 3.746 after 8).
TEST(SliderCrankE2E, ObjectiveApproximatedDirectlyDoesWorse) {
  const RunSummary with = run_study("problems/slider-crank/path.json");
  const RunSummary direct = run_study("problems/slider-crank/path-direct.json");
  EXPECT_EQ(direct.status, RunStatus::kCycleLimit) << direct.message;
  EXPECT_GT(direct.analyses, 2 * with.analyses);
  // Worse by 10 times the study's objective accuracy (objacc 0.1 %) at least.
  EXPECT_GT(direct.objective, 1.01 * with.objective);
}

// The same study on the planar multibody solver (kinematic analysis by Newton's method)
// reaches the same optimum along the same path.
TEST(SliderCrankE2E, MultibodySolverGivesTheSameOptimum) {
  const RunSummary closed = run_study("problems/slider-crank/path.json");
  const RunSummary multibody = run_study("problems/slider-crank/path-multibody.json");
  ASSERT_EQ(multibody.status, RunStatus::kConverged) << multibody.message;
  EXPECT_NEAR(multibody.objective, closed.objective, 1e-6);
  EXPECT_TRUE(multibody.x.isApprox(closed.x, 1e-6));
  EXPECT_EQ(multibody.cycles, closed.cycles);
}

}  // namespace
}  // namespace sao
