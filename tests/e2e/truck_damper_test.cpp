// End to end: the truck damper study of seed 003, chapter 7, on the quarter-car model
// (problems/truck-damper/quarter-car.json). The model's damper law and crossing profile are
// reconstructions (PROBLEMS.md), so the seed's figures (0.102 m -> 0.0795 m in 11 cycles) are
// not expected; what is checked is that the study converges, holds the acceleration bound and
// reduces the largest inward deflection of the start design (0.1187 m, `sao evaluate`), and that
// finite differences with the seed's step find the same design as the direct method.
#include <gtest/gtest.h>

#include "tests/e2e/run_study.hpp"

namespace sao {
namespace {

// The seed's strategy (appendix A) reproduces the seed's result.
TEST(TruckDamperE2E, ConvergesWithTheAccelerationBoundHeld) {
  const RunSummary r =
      run_study("problems/truck-damper/quarter-car.json", {"settings.strategy=\"seed\""});
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  EXPECT_LE(r.cycles, 16);
  EXPECT_LT(r.max_violation, 0.1);         // every constraint within vioacc = 0.1 %
  EXPECT_NEAR(r.objective, 0.1027, 5e-4);  // from 0.1187 m at the start
  EXPECT_NEAR(r.x(3), 22.0, 1e-9);         // rebound bleed at its upper bound, as in the seed
  EXPECT_NEAR(r.x(5), 0.7, 1e-9);          // rebound blow-off at its lower bound, as in the seed
  EXPECT_LT(r.x(0), 1.0);                  // a small compression bleed, as in the seed (0.563)
}

TEST(TruckDamperE2E, ForwardDifferencesWithTheSeedsStepAgree) {
  const RunSummary direct =
      run_study("problems/truck-damper/quarter-car.json", {"settings.strategy=\"seed\""});
  const RunSummary fd = run_study(
      "problems/truck-damper/quarter-car.json",
      {R"(simulator.gradients={"method":"forward","step":1e-3})", "settings.strategy=\"seed\""});
  ASSERT_EQ(fd.status, RunStatus::kConverged) << fd.message;
  EXPECT_NEAR(fd.objective, direct.objective, 1e-4);
  EXPECT_EQ(fd.cycles, direct.cycles);
  EXPECT_GT(fd.simulator_runs, 2 * direct.simulator_runs);  // 6 perturbed runs per gradient
}

// The default trust-region strategy converges (first-order residual below kkt_tolerance) at an
// objective below the seed strategy's 0.102722 within the seed strategy's 15 analyses (issue 17:
// the truck in at most 15), and passes that value on the way.
TEST(TruckDamperE2E, TheTrustRegionConvergesBelowTheSeedsObjectiveWithinItsAnalyses) {
  const RunSummary seed =
      run_study("problems/truck-damper/quarter-car.json", {"settings.strategy=\"seed\""});
  const RunSummary r = run_study("problems/truck-damper/quarter-car.json", {});
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  EXPECT_LT(r.max_violation, 0.1);
  EXPECT_LT(r.objective, seed.objective);
  EXPECT_LE(r.analyses, 15);
  EXPECT_LE(r.analyses, seed.analyses);
  int analyses_to_pass = -1;  // designs analysed up to and including the passing proposal
  for (const CycleRecord& c : r.history) {
    if (c.accepted && c.V <= 0.1 && c.F_opt <= seed.objective) {
      analyses_to_pass = c.analyses;
      break;
    }
  }
  ASSERT_GT(analyses_to_pass, 0);
  EXPECT_LE(analyses_to_pass, seed.analyses);
}

}  // namespace
}  // namespace sao
