#include "sao/optimizer/trust_region.hpp"

#include <gtest/gtest.h>

namespace sao {
namespace {

TrustRegionFacts facts(double actual, double predicted, bool on_limit = true, bool on_bound = false,
                       double used = 1.0) {
  TrustRegionFacts f;
  f.actual = actual;
  f.predicted = predicted;
  f.move_limit_active = {on_limit, false};
  f.held_by_bound = {on_bound, false};
  f.used = Eigen::Vector2d(used, used);
  return f;
}

const Eigen::Vector2d m(0.4, 0.2);

TEST(TrustRegion, AcceptsWhatImprovesAsPredictedAndGrowsLimitsThatHeldTheStep) {
  const TrustRegionDecision d = decide_trust_region(Options{}, facts(0.9, 1.0), m);
  EXPECT_TRUE(d.accept);
  EXPECT_DOUBLE_EQ(d.ratio, 0.9);
  EXPECT_DOUBLE_EQ(d.factors(0), 0.8);  // on its move limit: doubled
  EXPECT_DOUBLE_EQ(d.factors(1), 0.2);  // free: kept
  EXPECT_EQ(d.actions[0], MoveAction::kEnlarged);
  // Never beyond kMaxFactor, and not when the variable sits on a bound.
  EXPECT_DOUBLE_EQ(
      decide_trust_region(Options{}, facts(1, 1), Eigen::Vector2d(0.8, 0.2)).factors(0),
      kMaxFactor);
  EXPECT_DOUBLE_EQ(decide_trust_region(Options{}, facts(1, 1, true, true), m).factors(0), 0.4);
}

TEST(TrustRegion, RejectsWhatGetsWorseAndShrinksBelowTheStepTaken) {
  TrustRegionDecision d = decide_trust_region(Options{}, facts(-0.1, 1.0), m);
  EXPECT_FALSE(d.accept);
  EXPECT_DOUBLE_EQ(d.factors(0), 0.4 * 0.5);
  EXPECT_EQ(d.actions[1], MoveAction::kRejected);
  // A step that used only 20 % of its half-width: the region shrinks below it.
  d = decide_trust_region(Options{}, facts(-0.1, 1.0, false, false, 0.2), m);
  EXPECT_DOUBLE_EQ(d.factors(0), 0.4 * 0.5 * 0.2);
  // Improvement far below the prediction (rho < eta) is rejected too.
  EXPECT_FALSE(decide_trust_region(Options{}, facts(0.001, 1.0), m).accept);
  // No predicted improvement: nothing to accept.
  EXPECT_FALSE(decide_trust_region(Options{}, facts(0.1, 0.0), m).accept);
}

// The filter's upper bound on the violation: a step that improves the merit (a small penalty,
// a large objective gain) is still rejected when it violates by more than viomax and more than
// b0 did, and the region shrinks as for any rejection.
TEST(TrustRegion, AStepBeyondTheViolationLimitIsRejectedWhateverItsRatio) {
  TrustRegionFacts f = facts(1.0, 1.0);
  f.beyond_violation_limit = true;
  const TrustRegionDecision d = decide_trust_region(Options{}, f, m);
  EXPECT_FALSE(d.accept);
  EXPECT_DOUBLE_EQ(d.ratio, 1.0);
  EXPECT_DOUBLE_EQ(d.factors(0), 0.4 * 0.5);
  EXPECT_EQ(d.actions[0], MoveAction::kRejected);
}

TEST(TrustRegion, PoorAgreementAcceptsButShrinks) {
  const TrustRegionDecision d = decide_trust_region(Options{}, facts(0.1, 1.0), m);
  EXPECT_TRUE(d.accept);
  EXPECT_DOUBLE_EQ(d.factors(0), 0.4 * Options{}.beta4);
  EXPECT_DOUBLE_EQ(d.factors(1), 0.2 * Options{}.beta4);
}

TEST(TrustRegion, AVariableThatReversesItsStepNarrowsUnlessThePredictionWasGood) {
  // Moderate agreement: the variable that turned back halves, the other keeps its factor.
  TrustRegionFacts f = facts(0.5, 1.0);
  f.reversed = {true, false};
  TrustRegionDecision d = decide_trust_region(Options{}, f, m);
  EXPECT_TRUE(d.accept);
  EXPECT_DOUBLE_EQ(d.factors(0), 0.4 * Options{}.beta3);
  EXPECT_EQ(d.actions[0], MoveAction::kOscillation);
  EXPECT_DOUBLE_EQ(d.factors(1), 0.2);
  // Poor agreement: the oscillating variable halves, the other shrinks by beta4.
  f = facts(0.1, 1.0);
  f.reversed = {false, true};
  d = decide_trust_region(Options{}, f, m);
  EXPECT_DOUBLE_EQ(d.factors(0), 0.4 * Options{}.beta4);
  EXPECT_DOUBLE_EQ(d.factors(1), 0.2 * Options{}.beta3);
  // Good agreement: a reversal is the approach from the other side, the limit still grows.
  f = facts(0.9, 1.0);
  f.reversed = {true, true};
  d = decide_trust_region(Options{}, f, m);
  EXPECT_DOUBLE_EQ(d.factors(0), 0.8);
  EXPECT_DOUBLE_EQ(d.factors(1), 0.2);
}

// A valley that zigzags across one variable halves its factor at every reversal: without a
// floor its limit collapses (1e-19 of the range after 290 cycles of the linked suspension)
// while the others still move, and the run stalls at a point that is not stationary. The
// halving stops at kMinAspect of the largest factor; a factor already below stays where it is.
TEST(TrustRegion, OscillationNarrowsTheRegionButNeverToANeedle) {
  TrustRegionFacts f = facts(0.5, 1.0);
  f.reversed = {true, false};
  Eigen::Vector2d factors(3e-3, 0.2);
  TrustRegionDecision d = decide_trust_region(Options{}, f, factors);
  EXPECT_DOUBLE_EQ(d.factors(0), kMinAspect * 0.2);  // halving would give 1.5e-3
  EXPECT_EQ(d.actions[0], MoveAction::kOscillation);
  for (int cycle = 0; cycle < 40; ++cycle) d = decide_trust_region(Options{}, f, d.factors);
  EXPECT_DOUBLE_EQ(d.factors(0), kMinAspect * 0.2);
  EXPECT_DOUBLE_EQ(d.factors(1), 0.2);
  // Above the floor the rule halves as before; below it, nothing is raised.
  factors << 0.1, 0.2;
  EXPECT_DOUBLE_EQ(decide_trust_region(Options{}, f, factors).factors(0), 0.1 * Options{}.beta3);
  factors << 1e-4, 0.2;
  EXPECT_DOUBLE_EQ(decide_trust_region(Options{}, f, factors).factors(0), 1e-4);
  // The whole region still shrinks on rejections and poor agreement (a real failure of the
  // approximations), keeping its shape.
  d = decide_trust_region(Options{}, facts(0.1, 1.0), Eigen::Vector2d(2e-3, 0.2));
  EXPECT_DOUBLE_EQ(d.factors(0), 2e-3 * Options{}.beta4);
  TrustRegionFacts rejected = facts(0.1, 1.0);
  rejected.actual = -0.1;
  d = decide_trust_region(Options{}, rejected, Eigen::Vector2d(1e-4, 0.2));
  EXPECT_FALSE(d.accept);
  EXPECT_DOUBLE_EQ(d.factors(0) / d.factors(1), 1e-4 / 0.2);
}

// A factor that is not oscillating but was left behind while others grew on their move limits
// (the 60-variable suspension: 2.5e-10 beside 0.34 after 195 cycles) is raised to kMinAspect of
// the largest by the next accepted step, whatever its ratio; the largest is left as the ratio's
// rule sets it (kept, or shrunk by beta4 below a ratio of 0.25).
TEST(TrustRegion, AFactorLeftBehindIsRaisedToTheAspectFloor) {
  for (double rho : {0.1, 0.5, 0.9}) {
    SCOPED_TRACE(rho);
    TrustRegionFacts f = facts(rho, 1.0, /*on_limit=*/false);
    f.reversed = {false, false};
    const TrustRegionDecision d = decide_trust_region(Options{}, f, Eigen::Vector2d(1e-9, 0.4));
    const double largest = d.factors(1);
    EXPECT_DOUBLE_EQ(d.factors(0), kMinAspect * largest);
    EXPECT_LE(largest, 0.4);
  }
  // Above the floor a factor is left as the rules set it.
  TrustRegionFacts f = facts(0.5, 1.0, /*on_limit=*/false);
  f.reversed = {false, false};
  EXPECT_DOUBLE_EQ(decide_trust_region(Options{}, f, Eigen::Vector2d(0.05, 0.4)).factors(0), 0.05);
}

TEST(TrustRegion, OnlyStepsBeyondRoundingReverse) {
  // Variable 0 turned back by a fifth of its half-width: a reversal. Variables 1 and 2 stayed
  // put, their steps rounding of opposite signs (a symmetric design's mirror pair): neither is
  // a reversal, so both keep their factor. Variable 3 went on in the same direction.
  const Eigen::Vector4d half(0.1, 0.1, 0.1, 0.1);
  const Eigen::Vector4d previous(0.05, 1e-9, -1e-9, 0.05);
  const Eigen::Vector4d step(-0.02, -1e-9, 1e-9, 0.01);
  EXPECT_EQ(reversed_steps(previous, step, half), (std::vector<bool>{true, false, false, false}));
  // The floor is kNegligibleStep of the half-width, for this step and the previous one.
  const double at = kNegligibleStep * 0.1;
  EXPECT_EQ(reversed_steps(Eigen::Vector2d(2 * at, 0.05), Eigen::Vector2d(-0.05, -0.5 * at),
                           Eigen::Vector2d(0.1, 0.1)),
            (std::vector<bool>{true, false}));
  EXPECT_EQ(reversed_steps(Eigen::Vector2d(0.5 * at, 0.05), Eigen::Vector2d(-0.05, -2 * at),
                           Eigen::Vector2d(0.1, 0.1)),
            (std::vector<bool>{false, true}));
  EXPECT_THROW(reversed_steps(Eigen::Vector2d(1, 1), Eigen::Vector3d(1, 1, 1), half.head(3)),
               std::invalid_argument);
}

TEST(TrustRegion, APenaltyTooSmallForAFeasibilityStepIsRaised) {
  // From h0 = 1 to the approximate feasible set (drop 1) at a cost of 0.084 in the objective:
  // with mu = 0.05 the predicted merit change is -0.034, a loss (the step would be rejected
  // with the ratio -1). Raised, the predicted gain is kPenaltyShare of mu times the drop.
  const double mu = penalty_for_step(0.05, -0.084, 1.0, 1e-6);
  EXPECT_NEAR(mu, 0.084 / (1.0 - kPenaltyShare), 1e-15);
  EXPECT_NEAR(-0.084 + mu * 1.0, kPenaltyShare * mu, 1e-15);
  // Already enough, a step that gains in the objective, or a drop within the floor: unchanged.
  EXPECT_EQ(penalty_for_step(1.0, -0.084, 1.0, 1e-6), 1.0);
  EXPECT_EQ(penalty_for_step(0.05, 0.2, 1.0, 1e-6), 0.05);
  EXPECT_EQ(penalty_for_step(0.05, -0.084, 1e-7, 1e-6), 0.05);
  EXPECT_EQ(penalty_for_step(0.05, -0.084, -1.0, 1e-6), 0.05);
}

TEST(TrustRegion, SizesMustMatch) {
  TrustRegionFacts f = facts(1, 1);
  f.used.resize(1);
  EXPECT_THROW(decide_trust_region(Options{}, f, m), std::invalid_argument);
  f = facts(1, 1);
  f.reversed = {true};
  EXPECT_THROW(decide_trust_region(Options{}, f, m), std::invalid_argument);
}

}  // namespace
}  // namespace sao
