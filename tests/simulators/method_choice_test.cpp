// The choice of "auto" between the direct and the adjoint method from measured costs
// (simulators/sensitivities/method_choice.hpp, issue 25), on synthetic costs.
#include "simulators/sensitivities/method_choice.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace sao::sim {
namespace {

using ::testing::HasSubstr;
using Request = MethodChooser::Request;

// `values` values, `parameters` parameters, the backward block `width` over `stops` stops.
Request request(int values, int parameters, int width = -1, int stops = 1) {
  return {values, parameters, width, stops};
}

// The rule of counts until an analysis of the load case has been timed, then the estimates
// from the measured costs, each named in the reason.
TEST(MethodChooser, CountsFirstThenMeasuredCosts) {
  MethodChooser chooser(2);
  EXPECT_TRUE(chooser.choose(0, request(3, 3)).adjoint);
  EXPECT_FALSE(chooser.choose(0, request(4, 3)).adjoint);
  EXPECT_THAT(chooser.choose(0, request(4, 3)).reason, HasSubstr("no run timed yet"));
  chooser.record_analysis(0, 1.0);
  // Assumed: one analysis per parameter and per value.
  EXPECT_FALSE(chooser.choose(0, request(4, 3)).adjoint);
  EXPECT_THAT(chooser.choose(0, request(4, 3)).reason, HasSubstr("assumed"));
  // Measured: 3 parameters cost 0.3 analyses each, 10 values 0.05 each.
  chooser.record(0, false, request(100, 3), 1.9);
  chooser.record(0, true, request(10, 3), 1.5);
  const MethodChooser::Choice c = chooser.choose(0, request(12, 3));  // 1.9 s against 1.6 s
  EXPECT_TRUE(c.adjoint);
  EXPECT_THAT(c.reason, HasSubstr("estimated 1.9 s direct against 1.6 s adjoint"));
  EXPECT_FALSE(chooser.choose(0, request(20, 3)).adjoint);  // 2 s adjoint
  // The other load case is measured on its own.
  EXPECT_FALSE(chooser.choose(1, request(12, 3)).adjoint);
  // The shared sweep's block: 1803 values but 4 backward vectors cost 4 x 0.05 analyses (the
  // analysis's steps unknown: no restart cost is counted).
  EXPECT_TRUE(chooser.choose(0, request(1803, 3, 4)).adjoint);
  EXPECT_THAT(chooser.choose(0, request(1803, 3, 4)).reason, HasSubstr("4 of them"));
}

// A method that failed in a load case (an adjoint backward solve giving up) is not chosen
// again there, whatever the estimates say; the other load cases keep choosing by cost.
TEST(MethodChooser, AFailedMethodIsNotChosenAgainInItsLoadCase) {
  MethodChooser chooser(2);
  EXPECT_TRUE(chooser.choose(0, request(1, 3)).adjoint);
  chooser.record_failure(0, true);
  const MethodChooser::Choice c = chooser.choose(0, request(1, 3));
  EXPECT_FALSE(c.adjoint);
  EXPECT_THAT(c.reason, HasSubstr("the adjoint method failed earlier"));
  EXPECT_TRUE(chooser.choose(1, request(1, 3)).adjoint);
  chooser.record_failure(1, false);
  EXPECT_TRUE(chooser.choose(1, request(30, 3)).adjoint);
  // Both failed: back to the estimates.
  chooser.record_failure(0, false);
  EXPECT_TRUE(chooser.choose(0, request(1, 3)).adjoint);
}

// Before either method ran: the quarter car's 1803 retained values of a load case, 6
// parameters, a backward block of 4 vectors restarted at 600 grid points of a run of 3400 steps.
// Counted per vector only, the sweep would be estimated at 5 analyses against 7 for the direct
// method; its 600 restarts (50 backward steps each) make it 1 + 4 (1 + 50 x 599 / 3400) = 40.
TEST(MethodChooser, TheSweepsRestartsCountBeforeAnythingIsMeasured) {
  MethodChooser chooser(1);
  chooser.record_analysis(0, 0.02, 3400);
  const MethodChooser::Choice c = chooser.choose(0, request(1803, 6, 4, 600));
  EXPECT_FALSE(c.adjoint) << c.reason;
  EXPECT_THAT(c.reason, HasSubstr("for 600 stop(s)"));
  EXPECT_THAT(c.reason, HasSubstr("estimated 0.14 s direct against 0.805 s adjoint"));
  // One stop (an integral, or values at one time): the block of 4 vectors, 5 analyses.
  EXPECT_TRUE(chooser.choose(0, request(1803, 6, 4, 1)).adjoint);
  // A few stops in a long run cost little: 40 values at 38 points of 4270 steps, L = 1.43.
  chooser.record_analysis(0, 0.02, 4270);
  EXPECT_TRUE(chooser.choose(0, request(40, 6, 4, 38)).adjoint);
}

// A measured sweep is calibrated per backward vector over its length, so that it carries over
// to requests with other numbers of stops: 106 values at 100 stops of a 440-step run cost 12
// analyses (a = 11 / (2 x 12.25) = 0.449); 10 stops then cost 1 + 0.449 x 2 x 2.02 = 2.82.
TEST(MethodChooser, AMeasuredSweepCarriesOverToOtherStops) {
  MethodChooser chooser(1);
  chooser.record_analysis(0, 1.0, 440);
  EXPECT_TRUE(chooser.choose(0, request(106, 6, 2, 1)).adjoint);  // 3 against 7
  chooser.record(0, true, request(106, 2, 2, 100), 12.0);
  chooser.record(0, false, request(106, 2), 3.0);                    // d = 1
  EXPECT_FALSE(chooser.choose(0, request(106, 2, 2, 100)).adjoint);  // 12 against 3
  const MethodChooser::Choice few = chooser.choose(0, request(12, 2, 2, 10));
  EXPECT_TRUE(few.adjoint) << few.reason;  // 2.82 against 3
  EXPECT_THAT(few.reason, HasSubstr("against 2.82 s adjoint"));
}

// One method measured, the other's estimate close (within 25 %) but only assumed: the other is
// run once to measure it, and from then on the cheaper by both measurements is kept.
TEST(MethodChooser, TheUnmeasuredMethodIsRunOnceWhenClose) {
  MethodChooser chooser(2);
  chooser.record_analysis(0, 1.0, 1000);
  chooser.record_analysis(1, 1.0, 1000);
  // Assumed 7 direct against 5 adjoint: the adjoint runs and costs 6 (a = 1.25).
  EXPECT_TRUE(chooser.choose(0, request(40, 6, 4)).adjoint);
  chooser.record(0, true, request(40, 6, 4), 6.0);
  const MethodChooser::Choice probe = chooser.choose(0, request(40, 6, 4));
  EXPECT_FALSE(probe.adjoint) << probe.reason;  // 7 assumed is within 25 % of 6 measured
  EXPECT_THAT(probe.reason, HasSubstr("direct not measured in this load case"));
  // The direct run costs 4 (d = 0.5): it is kept.
  chooser.record(0, false, request(40, 6, 4), 4.0);
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(chooser.choose(0, request(40, 6, 4)).adjoint);
  // Had it cost 10 (d = 1.5), the adjoint would be back.
  chooser.record(0, false, request(40, 6, 4), 10.0);
  EXPECT_TRUE(chooser.choose(0, request(40, 6, 4)).adjoint);
  // Far apart (adjoint measured at 2, direct assumed 7): no probe.
  chooser.record(1, true, request(40, 6, 4), 2.0);
  EXPECT_TRUE(chooser.choose(1, request(40, 6, 4)).adjoint);
}

}  // namespace
}  // namespace sao::sim
