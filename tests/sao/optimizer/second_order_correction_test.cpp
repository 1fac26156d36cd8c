// Driver::correct_step (settings' second_order_correction): the correction of a rejected proposal
// moves the retained rows onto their analysed values at b*; it has nothing to correct where b*
// violates only constraints the subproblem did not carry.
#include <gtest/gtest.h>

#include "sao/optimizer/driver.hpp"
#include "tests/e2e/run_study.hpp"

namespace sao {
namespace {

// HS 32 from its start (0.1, 0.7, 0.2): c1 = 6 x2 + 4 x3 - x1^3 >= 3 is far inside its bound
// there (5 against 3) and, with the seed's cutoff 0.7 (given: by default the trust region keeps
// a scalar constraint from its zero on), screened out of the first subproblem, whose proposal,
// along the equality x1 + x2 + x3 = 1, violates it by 17.5 %. The equality's row is linear, so the
// correction would propose the same design again: one analysis of b* to its last digits. The first
// cycle is rejected either way; with the correction on it must cost no more analyses than with it
// off.
TEST(SecondOrderCorrection, NotTriedWhereOnlyAConstraintTheSubproblemDidNotCarryIsViolated) {
  const RunSummary with = run_study("problems/suite/hs-032.json", {"settings.cutoff=0.7"});
  const RunSummary without =
      run_study("problems/suite/hs-032.json",
                {"settings.cutoff=0.7", "settings.second_order_correction=false"});
  ASSERT_FALSE(with.history.empty());
  ASSERT_FALSE(without.history.empty());
  const CycleRecord& first = with.history.front();
  ASSERT_FALSE(first.accepted) << "the first proposal no longer violates c1: the test's premise";
  for (const CycleRecord::Prediction& p : first.predictions) {
    EXPECT_NE(p.constraint, "c1") << "the first subproblem carries c1: the test's premise";
  }
  EXPECT_GT(first.V, 1.0);
  EXPECT_EQ(first.analyses, without.history.front().analyses);
  EXPECT_EQ(with.status, RunStatus::kConverged) << with.message;
  EXPECT_NEAR(with.objective, 1.0, 1e-6);
}

}  // namespace
}  // namespace sao
