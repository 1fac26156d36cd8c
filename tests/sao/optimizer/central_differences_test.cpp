// Driver::switch_to_central_differences ("central_differences_on_stall"): a run whose
// forward-difference gradients stall it takes them by central differences from then on.
#include <gtest/gtest.h>

#include <string>

#include "sao/optimizer/driver.hpp"
#include "tests/e2e/run_study.hpp"

namespace sao {
namespace {

// HS 28 (a convex quadratic along a linear equality, f* = 0) with forward differences of the
// documented default step, p = 1e-3: their error (f'' h / 2 per variable, h = (1 + |b|) p) keeps
// the first-order residual above kkt_tolerance, the proposals from b0 are rejected until every
// move limit is below min_move_limit, and the run ends `stalled`. Central differences are exact
// on a quadratic: after the switch the run converges at the optimum.
const char* kStudy = "problems/suite/hs-028.json";
const std::string kStep = "simulator.gradients.step=1e-3";

TEST(CentralDifferences, AForwardDifferenceStallSwitchesAndTheRunConverges) {
  const RunSummary without =
      run_study(kStudy, {kStep, "settings.central_differences_on_stall=false"});
  ASSERT_EQ(without.status, RunStatus::kStalled)
      << "forward differences of step 1e-3 no longer stall HS 28: the test's premise; "
      << without.message;
  for (const CycleRecord& r : without.history) {
    if (!r.gradient_method.empty()) {
      EXPECT_EQ(r.gradient_method, "forward differences");
    }
  }

  const RunSummary with = run_study(kStudy, {kStep});
  ASSERT_EQ(with.status, RunStatus::kConverged) << with.message;
  EXPECT_NEAR(with.objective, 0.0, 1e-8);
  EXPECT_NE(with.message.find("gradients by central differences from cycle"), std::string::npos)
      << with.message;
  // The cycles before the switch are the run without it, cycle for cycle; from the switch on
  // the gradients are central, and the stalled run's last cycle is where it switched.
  ASSERT_GT(with.history.size(), without.history.size());
  for (size_t c = 0; c < without.history.size(); ++c) {
    EXPECT_EQ(with.history[c].accepted, without.history[c].accepted) << "cycle " << c + 1;
    EXPECT_EQ(with.history[c].F_opt, without.history[c].F_opt) << "cycle " << c + 1;
  }
  bool central = false;
  for (size_t c = without.history.size(); c < with.history.size(); ++c) {
    const std::string& method = with.history[c].gradient_method;
    if (method.empty()) continue;
    EXPECT_EQ(method, "central differences") << "cycle " << c + 1;
    central = true;
  }
  EXPECT_TRUE(central);
  // Central differences cost two runs per variable where forward ones cost one: more runs,
  // and the switch is counted in them.
  EXPECT_GT(with.simulator_runs, without.simulator_runs);
}

TEST(CentralDifferences, ARunThatDoesNotStallKeepsItsForwardDifferences) {
  // The suite's step (1e-6): HS 28 converges with forward differences, nothing switches.
  const RunSummary run = run_study(kStudy);
  ASSERT_EQ(run.status, RunStatus::kConverged) << run.message;
  EXPECT_EQ(run.message.find("central"), std::string::npos) << run.message;
  for (const CycleRecord& r : run.history) {
    if (!r.gradient_method.empty()) {
      EXPECT_EQ(r.gradient_method, "forward differences");
    }
  }
}

}  // namespace
}  // namespace sao
