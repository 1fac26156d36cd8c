#include "sao/optimizer/move_limits.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace sao {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr double kM = 0.4;  // this cycle's factor in every test

// An accepted, unconverged cycle that changes no factor: the objective improves by 10%,
// E = 5 (accurate), every constraint holds (V = -1), no move limit is active.
CycleFacts quiet_cycle(int n = 1) {
  CycleFacts c;
  c.F0 = 100.0;
  c.Fopt = 90.0;
  c.Ef = 5.0;
  c.Eg = 5.0;
  c.V = -1.0;
  c.delta_b = Eigen::VectorXd::Constant(n, 0.1);
  c.move_limit_active.assign(n, false);
  c.bound_active.assign(n, false);
  return c;
}

// A previous cycle whose objective fell and whose variables all moved by -0.1, i.e. the
// opposite direction of quiet_cycle's variables.
PreviousCycle reversed_previous(int n = 1, double dF = -5.0) {
  PreviousCycle p;
  p.dF = dF;
  p.delta_b = Eigen::VectorXd::Constant(n, -0.1);
  p.V = -1.0;
  return p;
}

Eigen::VectorXd factors(int n = 1) {
  return Eigen::VectorXd::Constant(n, kM);
}

MoveDecision decide(const CycleFacts& c, const std::optional<PreviousCycle>& previous = {},
                    const Options& o = Options{}) {
  return decide_move_limits(o, c, previous, factors(static_cast<int>(c.delta_b.size())));
}

// --- the base case ----------------------------------------------------------------------

TEST(MoveLimits, QuietCycleKeepsFactors) {
  const auto d = decide(quiet_cycle());
  EXPECT_TRUE(d.accept);
  EXPECT_FALSE(d.converged);
  EXPECT_DOUBLE_EQ(d.Fchg, 10.0);
  EXPECT_DOUBLE_EQ(d.E, 5.0);
  EXPECT_DOUBLE_EQ(d.factors[0], kM);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kKept));
}

TEST(MoveLimits, ReportsFchgAndE) {
  auto c = quiet_cycle();
  c.F0 = -200.0;
  c.Fopt = -210.0;
  c.Ef = 3.0;
  c.Eg = 7.0;
  const auto d = decide(c);
  EXPECT_DOUBLE_EQ(d.Fchg, 5.0);
  EXPECT_DOUBLE_EQ(d.E, 7.0);
}

TEST(MoveLimits, FchgIsAbsoluteWhenF0IsZero) {
  auto c = quiet_cycle();
  c.F0 = 0.0;
  c.Fopt = -0.002;
  EXPECT_DOUBLE_EQ(decide(c).Fchg, 0.2);
}

// --- rejection --------------------------------------------------------------------------

TEST(MoveLimits, RejectsWhenErrorExceedsErrmax) {
  auto c = quiet_cycle(2);
  c.Eg = 41.0;
  const auto d = decide(c);
  EXPECT_FALSE(d.accept);
  EXPECT_FALSE(d.converged);
  EXPECT_DOUBLE_EQ(d.E, 41.0);
  EXPECT_DOUBLE_EQ(d.factors[0], kM * 0.5);
  EXPECT_DOUBLE_EQ(d.factors[1], kM * 0.5);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kRejected, MoveAction::kRejected));

  c.Eg = 5.0;
  c.Ef = 41.0;
  EXPECT_FALSE(decide(c).accept);
}

TEST(MoveLimits, ErrorEqualToErrmaxIsNotRejected) {
  auto c = quiet_cycle();
  c.Ef = 40.0;
  const auto d = decide(c);
  EXPECT_TRUE(d.accept);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kShrunk));  // but E > errlrg
}

TEST(MoveLimits, RejectsWhenViolationExceedsViomax) {
  auto c = quiet_cycle();
  c.V = 10.5;
  const auto d = decide(c);
  EXPECT_FALSE(d.accept);
  EXPECT_DOUBLE_EQ(d.factors[0], kM * 0.5);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kRejected));

  c.V = 10.0;
  EXPECT_TRUE(decide(c).accept);
}

TEST(MoveLimits, RelaxedCycleIsNotRejectedForViolation) {
  auto c = quiet_cycle();
  c.V = 50.0;
  c.relax = true;
  const auto d = decide(c);
  EXPECT_TRUE(d.accept);
  EXPECT_DOUBLE_EQ(d.factors[0], kM);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kKept));

  c.Ef = 45.0;  // a large error still rejects a relaxed cycle
  EXPECT_FALSE(decide(c).accept);
}

TEST(MoveLimits, RejectionUsesTheGivenFactorsPerVariable) {
  auto c = quiet_cycle(2);
  c.Ef = 50.0;
  Eigen::VectorXd m(2);
  m << 0.4, 0.1;
  const auto d = decide_move_limits(Options{}, c, std::nullopt, m);
  EXPECT_DOUBLE_EQ(d.factors[0], 0.4 * 0.5);
  EXPECT_DOUBLE_EQ(d.factors[1], 0.1 * 0.5);
}

// --- convergence ------------------------------------------------------------------------

CycleFacts converging_cycle() {
  auto c = quiet_cycle();
  c.Fopt = 99.95;  // Fchg = 0.05
  c.V = 0.05;
  c.Ef = 0.05;
  c.Eg = 0.05;
  c.move_limit_active = {true};  // would enlarge if not converged
  return c;
}

TEST(MoveLimits, ConvergesWhenAllFourTestsPass) {
  const auto d = decide(converging_cycle());
  EXPECT_TRUE(d.accept);
  EXPECT_TRUE(d.converged);
  EXPECT_DOUBLE_EQ(d.factors[0], kM);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kConverged));
}

TEST(MoveLimits, ActiveMoveLimitBlocksConvergenceWhenFreeLimitsAreRequired) {
  Options o;
  o.require_free_move_limits = true;
  const auto pinned =
      decide_move_limits(o, converging_cycle(), std::nullopt, Eigen::VectorXd::Constant(1, kM));
  EXPECT_TRUE(pinned.accept);
  EXPECT_FALSE(pinned.converged);
  // Accurate and on its move limit: the subregion grows so the next step can leave it.
  EXPECT_THAT(pinned.actions, ElementsAre(MoveAction::kEnlarged));
  auto inside = converging_cycle();
  inside.move_limit_active = {false};
  EXPECT_TRUE(
      decide_move_limits(o, inside, std::nullopt, Eigen::VectorXd::Constant(1, kM)).converged);
}

// A move limit shrunk below the objective accuracy (as a fraction of the range) no longer
// counts as holding the design back: a noisy fit that keeps one limit active while the limits
// shrink can then converge (the least-squares runs of the noisy study).
TEST(MoveLimits, ATinyActiveMoveLimitDoesNotBlockConvergence) {
  Options o;
  o.require_free_move_limits = true;
  o.objacc = 5.0;  // % : limits below 0.05 of the range are tiny
  EXPECT_TRUE(
      decide_move_limits(o, converging_cycle(), std::nullopt, Eigen::VectorXd::Constant(1, 0.04))
          .converged);
  EXPECT_FALSE(
      decide_move_limits(o, converging_cycle(), std::nullopt, Eigen::VectorXd::Constant(1, 0.06))
          .converged);
}

TEST(MoveLimits, ConvergesWithFeasibleMargin) {
  auto c = converging_cycle();
  c.V = -30.0;
  EXPECT_TRUE(decide(c).converged);
}

TEST(MoveLimits, DoesNotConvergeWhenFchgIsTooLarge) {
  auto c = converging_cycle();
  c.Fopt = 99.8;  // Fchg = 0.2
  const auto d = decide(c);
  EXPECT_TRUE(d.accept);
  EXPECT_FALSE(d.converged);
}

TEST(MoveLimits, DoesNotConvergeWhenViolationIsTooLarge) {
  auto c = converging_cycle();
  c.V = 0.2;
  EXPECT_FALSE(decide(c).converged);
  c.V = 0.1;  // strict: V must be below vioacc
  EXPECT_FALSE(decide(c).converged);
}

TEST(MoveLimits, DoesNotConvergeWhenEfIsTooLarge) {
  auto c = converging_cycle();
  c.Ef = 0.2;
  EXPECT_FALSE(decide(c).converged);
}

TEST(MoveLimits, DoesNotConvergeWhenEgIsTooLarge) {
  auto c = converging_cycle();
  c.Eg = 0.2;
  EXPECT_FALSE(decide(c).converged);
}

TEST(MoveLimits, ConvergesOnViolationChangeWhenAsked) {
  // No feasible design: V stays at 8 (between violrg and viomax).
  auto c = converging_cycle();
  c.V = 8.0;
  PreviousCycle p = reversed_previous();
  p.V = 8.05;

  EXPECT_FALSE(decide(c, p).converged);  // option off: V itself is tested

  Options o;
  o.converge_on_violation_change = true;
  const auto d = decide(c, p, o);
  EXPECT_TRUE(d.converged);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kConverged));

  p.V = 7.0;  // the violation still changes by 1%
  EXPECT_FALSE(decide(c, p, o).converged);

  EXPECT_FALSE(decide(c, std::nullopt, o).converged);  // no previous cycle: V itself
  c.V = 0.05;
  EXPECT_TRUE(decide(c, std::nullopt, o).converged);
}

// --- oscillation ------------------------------------------------------------------------

TEST(MoveLimits, OscillationWhenObjectiveChangesDirection) {
  // The objective rose (+1%) after falling, and the variable reversed: oscillation wins over
  // the worse-objective branch.
  auto c = quiet_cycle();
  c.Fopt = 101.0;
  const auto d = decide(c, reversed_previous());
  EXPECT_TRUE(d.accept);
  EXPECT_DOUBLE_EQ(d.factors[0], kM * 0.5);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kOscillation));
}

TEST(MoveLimits, OscillationWhenObjectiveChangeIsSmall) {
  // Same direction as before (no Fdrchg) but Fchg = 0.3 < beta2 * objacc = 0.4.
  auto c = quiet_cycle();
  c.Fopt = 99.7;
  const auto d = decide(c, reversed_previous());
  EXPECT_DOUBLE_EQ(d.factors[0], kM * 0.5);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kOscillation));
}

TEST(MoveLimits, NoOscillationWithoutDirectionChangeOrSmallFchg) {
  // Variable reversed, but the objective kept falling by 10%.
  const auto d = decide(quiet_cycle(), reversed_previous());
  EXPECT_DOUBLE_EQ(d.factors[0], kM);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kKept));
}

TEST(MoveLimits, NoOscillationWhenTheVariableKeepsItsDirection) {
  auto c = quiet_cycle();
  c.Fopt = 101.0;
  PreviousCycle p = reversed_previous();
  p.delta_b[0] = 0.3;
  const auto d = decide(c, p);
  EXPECT_DOUBLE_EQ(d.factors[0], kM * 0.75);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kWorse));
}

TEST(MoveLimits, ZeroStepIsNoDirectionChange) {
  auto c = quiet_cycle();
  c.Fopt = 99.7;
  c.delta_b[0] = 0.0;
  EXPECT_THAT(decide(c, reversed_previous()).actions, ElementsAre(MoveAction::kKept));
}

TEST(MoveLimits, OscillationIsPerVariable) {
  auto c = quiet_cycle(2);
  c.Fopt = 101.0;
  PreviousCycle p = reversed_previous(2);
  p.delta_b[1] = 0.2;  // variable 1 keeps its direction
  const auto d = decide(c, p);
  EXPECT_DOUBLE_EQ(d.factors[0], kM * 0.5);
  EXPECT_DOUBLE_EQ(d.factors[1], kM * 0.75);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kOscillation, MoveAction::kWorse));
}

TEST(MoveLimits, NoOscillationOrWorseWhenRelaxed) {
  auto c = quiet_cycle();
  c.Fopt = 101.0;
  c.relax = true;
  const auto d = decide(c, reversed_previous());
  EXPECT_TRUE(d.accept);
  EXPECT_DOUBLE_EQ(d.factors[0], kM);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kKept));
}

TEST(MoveLimits, NoOscillationWithoutPreviousCycle) {
  auto c = quiet_cycle();
  c.Fopt = 99.7;  // small Fchg, but nothing to compare the direction with
  EXPECT_THAT(decide(c).actions, ElementsAre(MoveAction::kKept));
}

// --- worse objective --------------------------------------------------------------------

TEST(MoveLimits, ShrinksWhenObjectiveGotWorse) {
  auto c = quiet_cycle();
  c.Fopt = 101.0;
  c.move_limit_active = {true};  // would otherwise enlarge
  const auto d = decide(c);
  EXPECT_TRUE(d.accept);
  EXPECT_DOUBLE_EQ(d.factors[0], kM * 0.75);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kWorse));
}

// --- on the move limit ------------------------------------------------------------------

CycleFacts on_move_limit() {
  auto c = quiet_cycle();
  c.move_limit_active = {true};
  return c;
}

TEST(MoveLimits, EnlargesWhenAccurateOnTheMoveLimit) {
  const auto d = decide(on_move_limit());
  EXPECT_DOUBLE_EQ(d.factors[0], kM * (4.0 / 3.0));
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kEnlarged));
}

TEST(MoveLimits, NoEnlargeWhenViolationNotSmall) {
  auto c = on_move_limit();
  c.V = 6.0;  // above viosml, below violrg
  const auto d = decide(c);
  EXPECT_DOUBLE_EQ(d.factors[0], kM);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kKept));
}

TEST(MoveLimits, EnlargesDespiteViolationWhenRelaxed) {
  auto c = on_move_limit();
  c.V = 8.0;
  c.relax = true;
  EXPECT_THAT(decide(c).actions, ElementsAre(MoveAction::kEnlarged));
}

TEST(MoveLimits, NoEnlargeWhenNothingWasApproximated) {
  auto c = on_move_limit();
  c.approximated = false;
  const auto d = decide(c);
  EXPECT_DOUBLE_EQ(d.E, 0.0);
  EXPECT_DOUBLE_EQ(d.factors[0], kM);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kKept));
}

TEST(MoveLimits, NoEnlargeWhenErrorIsExactlyZero) {
  auto c = on_move_limit();
  c.Ef = 0.0;
  c.Eg = 0.0;
  EXPECT_THAT(decide(c).actions, ElementsAre(MoveAction::kKept));
}

TEST(MoveLimits, NotApproximatedIgnoresReportedErrors) {
  // E = 0 without approximation, even with errors that would otherwise reject the cycle.
  auto c = quiet_cycle();
  c.approximated = false;
  c.Ef = 50.0;
  c.Eg = 50.0;
  const auto d = decide(c);
  EXPECT_TRUE(d.accept);
  EXPECT_DOUBLE_EQ(d.E, 0.0);
}

TEST(MoveLimits, NoEnlargeWhenTheVariableChangedDirection) {
  // bdrchg, but no oscillation (objective kept falling by 10%).
  const auto d = decide(on_move_limit(), reversed_previous());
  EXPECT_DOUBLE_EQ(d.factors[0], kM);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kKept));
}

TEST(MoveLimits, KeptOnTheMoveLimitWithModerateError) {
  auto c = on_move_limit();
  c.Ef = 15.0;  // between errsml and errlrg
  const auto d = decide(c);
  EXPECT_DOUBLE_EQ(d.factors[0], kM);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kKept));
}

TEST(MoveLimits, ShrinksOnTheMoveLimitForLargeError) {
  auto c = on_move_limit();
  c.Eg = 30.0;
  const auto d = decide(c);
  EXPECT_DOUBLE_EQ(d.factors[0], kM * 0.75);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kShrunk));
}

TEST(MoveLimits, ShrinksOnTheMoveLimitForLargeViolation) {
  auto c = on_move_limit();
  c.V = 8.0;  // above violrg, below viomax
  const auto d = decide(c);
  EXPECT_DOUBLE_EQ(d.factors[0], kM * 0.75);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kShrunk));
}

TEST(MoveLimits, BoundActiveBlocksTheMoveLimitBranch) {
  auto c = on_move_limit();
  c.bound_active = {true};
  const auto d = decide(c);
  EXPECT_DOUBLE_EQ(d.factors[0], kM);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kKept));
}

// --- inside the move limits -------------------------------------------------------------

TEST(MoveLimits, ShrinksInsideTheMoveLimitsForLargeError) {
  auto c = quiet_cycle();
  c.Ef = 30.0;
  const auto d = decide(c);
  EXPECT_DOUBLE_EQ(d.factors[0], kM * 0.75);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kShrunk));
}

TEST(MoveLimits, ShrinksInsideTheMoveLimitsForLargeViolation) {
  auto c = quiet_cycle();
  c.V = 8.0;
  const auto d = decide(c);
  EXPECT_DOUBLE_EQ(d.factors[0], kM * 0.75);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kShrunk));

  c.relax = true;  // a relaxed cycle ignores the violation here
  EXPECT_THAT(decide(c).actions, ElementsAre(MoveAction::kKept));
}

TEST(MoveLimits, MixedActionsAcrossVariables) {
  auto c = quiet_cycle(3);
  c.move_limit_active = {true, true, false};
  c.bound_active = {false, true, false};
  Eigen::VectorXd m(3);
  m << 0.4, 0.2, 0.1;
  const auto d = decide_move_limits(Options{}, c, std::nullopt, m);
  EXPECT_DOUBLE_EQ(d.factors[0], 0.4 * (4.0 / 3.0));
  EXPECT_DOUBLE_EQ(d.factors[1], 0.2);
  EXPECT_DOUBLE_EQ(d.factors[2], 0.1);
  EXPECT_THAT(d.actions, ElementsAre(MoveAction::kEnlarged, MoveAction::kKept, MoveAction::kKept));
}

// --- noise ------------------------------------------------------------------------------

TEST(MoveLimits, NoiseRaisesTheThresholds) {
  Options noisy;
  noisy.noise = 5.0;
  noisy = noisy.with_noise_applied();

  auto c = quiet_cycle();
  c.Ef = 42.0;  // errmax 40 -> 45
  EXPECT_FALSE(decide(c).accept);
  EXPECT_TRUE(decide(c, std::nullopt, noisy).accept);

  c = quiet_cycle();
  c.V = 12.0;  // viomax 10 -> 15
  EXPECT_FALSE(decide(c).accept);
  EXPECT_TRUE(decide(c, std::nullopt, noisy).accept);

  c = on_move_limit();
  c.Ef = 12.0;  // errsml 10 -> 15: enlarged only with noise
  EXPECT_THAT(decide(c).actions, ElementsAre(MoveAction::kKept));
  EXPECT_THAT(decide(c, std::nullopt, noisy).actions, ElementsAre(MoveAction::kEnlarged));

  c = quiet_cycle();
  c.Fopt = 97.0;  // Fchg 3, V 2, Ef 4, Eg 1: all below the raised accuracies (5.1)
  c.V = 2.0;
  c.Ef = 4.0;
  c.Eg = 1.0;
  EXPECT_FALSE(decide(c).converged);
  EXPECT_TRUE(decide(c, std::nullopt, noisy).converged);
}

// --- bad input --------------------------------------------------------------------------

TEST(MoveLimits, RejectsMismatchedSizes) {
  auto expect_message = [](const CycleFacts& c, const std::optional<PreviousCycle>& p,
                           const std::string& part) {
    try {
      decide_move_limits(Options{}, c, p, factors(2));
      ADD_FAILURE() << "no exception for " << part;
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr("decide_move_limits: expected 2"));
      EXPECT_THAT(e.what(), HasSubstr(part));
      EXPECT_THAT(e.what(), HasSubstr("got 3"));
    }
  };
  CycleFacts c = quiet_cycle(2);
  c.delta_b = Eigen::VectorXd::Zero(3);
  expect_message(c, std::nullopt, "cycle.delta_b");

  c = quiet_cycle(2);
  c.move_limit_active.assign(3, false);
  expect_message(c, std::nullopt, "cycle.move_limit_active");

  c = quiet_cycle(2);
  c.bound_active.assign(3, false);
  expect_message(c, std::nullopt, "cycle.bound_active");

  expect_message(quiet_cycle(2), reversed_previous(3), "previous.delta_b");
}

TEST(MoveLimits, ActionNames) {
  EXPECT_STREQ(to_string(MoveAction::kKept), "kept");
  EXPECT_STREQ(to_string(MoveAction::kRejected), "rejected");
  EXPECT_STREQ(to_string(MoveAction::kOscillation), "oscillation");
  EXPECT_STREQ(to_string(MoveAction::kWorse), "worse");
  EXPECT_STREQ(to_string(MoveAction::kEnlarged), "enlarged");
  EXPECT_STREQ(to_string(MoveAction::kShrunk), "shrunk");
  EXPECT_STREQ(to_string(MoveAction::kConverged), "converged");
}

}  // namespace
}  // namespace sao
