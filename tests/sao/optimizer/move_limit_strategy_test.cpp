#include "sao/optimizer/move_limit_strategy.hpp"

#include <gtest/gtest.h>

#include <optional>

namespace sao {
namespace {

const MoveLimitStrategy& seed() {
  return move_limit_strategy(Strategy::kSeed);
}
const MoveLimitStrategy& trust_region() {
  return move_limit_strategy(Strategy::kTrustRegion);
}

TEST(MoveLimitStrategy, OneInstancePerStrategy) {
  EXPECT_EQ(&seed(), &move_limit_strategy(Strategy::kSeed));
  EXPECT_NE(&seed(), &trust_region());
}

TEST(MoveLimitStrategy, OnlyTheTrustRegionFloorsTheSubregion) {
  EXPECT_TRUE(trust_region().floored_subregion());
  EXPECT_FALSE(seed().floored_subregion());
}

TEST(MoveLimitStrategy, OnlyTheTrustRegionStallsBelowMinMoveLimit) {
  Options o;
  o.min_move_factor = 1e-6;
  const Eigen::VectorXd collapsed = Eigen::VectorXd::Constant(2, 1e-7);
  Eigen::VectorXd one_open = collapsed;
  one_open(1) = 1e-5;
  EXPECT_TRUE(trust_region().stalled(o, collapsed));
  EXPECT_FALSE(trust_region().stalled(o, one_open));
  EXPECT_FALSE(trust_region().stalled(o, Eigen::VectorXd()));  // before the run started
  EXPECT_FALSE(seed().stalled(o, collapsed));
}

TEST(MoveLimitStrategy, OnlyTheTrustRegionConvergesAtAFeasibleFirstOrderPoint) {
  Options o;  // vioacc 0.1 %, kkt_tolerance 1e-3
  Optimality at_b0;
  at_b0.computed = true;
  at_b0.residual = 1e-4;
  EXPECT_TRUE(trust_region().converged_at_b0(o, at_b0, 0.05));
  EXPECT_FALSE(trust_region().converged_at_b0(o, at_b0, 0.2));  // b0 violates a constraint
  EXPECT_FALSE(seed().converged_at_b0(o, at_b0, 0.05));
  at_b0.residual = 2e-3;
  EXPECT_FALSE(trust_region().converged_at_b0(o, at_b0, 0.05));
  at_b0.residual = 1e-4;
  at_b0.computed = false;
  EXPECT_FALSE(trust_region().converged_at_b0(o, at_b0, 0.05));
}

// A subproblem that predicts no gain in a subregion that did not hold its step back, at a
// feasible b0 whose residual is within ten times kkt_tolerance: the trust region converges at b0
// before b* is analysed; every other case goes on to the analysis (an empty message).
TEST(MoveLimitStrategy, OnlyTheTrustRegionConvergesOnAPredictionOfNoGain) {
  Options o;                   // vioacc 0.1 %, kkt_tolerance 1e-3
  ApproximateProblem problem;  // no retained row: the predicted violation is 0
  problem.x0 = Eigen::VectorXd::Zero(2);
  SubproblemResult sub;
  sub.status = SubproblemStatus::kOptimal;
  sub.objective = 2.0;
  const Eigen::VectorXd proposed = Eigen::VectorXd::Constant(2, 1e-9);
  CycleFacts facts;
  facts.F0 = 2.0;
  facts.V0 = 0.0;  // a violation at b0 that the subproblem removes would be a predicted gain
  facts.move_limit_active = {false, false};
  Optimality at_b0;
  at_b0.computed = true;
  at_b0.residual = 5e-3;
  const auto message = [&](const MoveLimitStrategy& s) {
    return s.converged_on_prediction({o, problem, sub, proposed, facts, at_b0, 1.0});
  };
  EXPECT_EQ(message(trust_region()),
            "no design of the subregion is predicted to improve on b0 (first-order residual "
            "0.005)");
  EXPECT_EQ(message(seed()), "");
  facts.move_limit_active[1] = true;  // the subregion held the step
  EXPECT_EQ(message(trust_region()), "");
  facts.move_limit_active[1] = false;
  sub.objective = 2.0 - 1e-6;  // a gain predicted
  EXPECT_EQ(message(trust_region()), "");
  sub.objective = 2.0;
  facts.V0 = 0.2;  // b0 violates a constraint
  EXPECT_EQ(message(trust_region()), "");
  facts.V0 = 0.0;
  at_b0.residual = 2e-2;  // beyond ten times kkt_tolerance
  EXPECT_EQ(message(trust_region()), "");
  at_b0.residual = 5e-3;
  sub.status = SubproblemStatus::kRelaxed;  // phase 1
  EXPECT_EQ(message(trust_region()), "");
  sub.status = SubproblemStatus::kOptimal;
  EXPECT_NE(message(trust_region()), "");
}

// The seed's strategy takes the fit's noise estimate (2 sigma) as the noise when the user gave
// none (noise_from_data): an error of 12 % is then below errsml (10 + 6) and the factor of a
// variable on its move limit grows; without the estimate it stays.
TEST(MoveLimitStrategy, SeedJudgesWithTheFitsNoiseWhenNoneIsGiven) {
  const Study study;
  Options o;
  o.noise_from_data = true;
  const Options noisy = o.with_noise_applied();
  const ApproximateProblem problem;
  const SubproblemResult sub;
  const Eigen::VectorXd x = Eigen::VectorXd::Zero(1);
  const Evaluation analysis;
  CycleFacts facts;
  facts.F0 = 1.0;
  facts.Fopt = 0.9;
  facts.Ef = 12.0;
  facts.V = -1.0;
  facts.delta_b = Eigen::VectorXd::Constant(1, -0.1);
  facts.move_limit_active = {true};
  facts.bound_active = {false};
  facts.held_by_bound = {false};
  const Eigen::VectorXd factors = Eigen::VectorXd::Constant(1, 0.2);
  const std::optional<PreviousCycle> previous;
  const Optimality at_b0;
  auto judge = [&](double noise_estimate) {
    return seed().judge({study, o, noisy, problem, sub, x, x, analysis, facts, factors, previous,
                         at_b0, 0.0, noise_estimate, 1, std::nullopt});
  };
  const StepJudgement with_estimate = judge(3.0);
  EXPECT_TRUE(with_estimate.accept);
  EXPECT_FALSE(with_estimate.converged);
  EXPECT_EQ(with_estimate.actions, std::vector<MoveAction>{MoveAction::kEnlarged});
  EXPECT_DOUBLE_EQ(with_estimate.factors(0), 0.2 * o.beta5);
  EXPECT_DOUBLE_EQ(with_estimate.E, 12.0);
  EXPECT_DOUBLE_EQ(with_estimate.ratio, 0.0);
  EXPECT_TRUE(with_estimate.message.empty());
  const StepJudgement without = judge(-1.0);
  EXPECT_EQ(without.actions, std::vector<MoveAction>{MoveAction::kKept});
  EXPECT_DOUBLE_EQ(without.factors(0), 0.2);
}

// A second-order correction is judged against the step it corrects (Nocedal & Wright, 18.3): its
// own subproblem, which moved the rows onto their values at the rejected b*, may predict a loss
// (the way back to feasibility costs F), and judged by that prediction a correction that gained
// what the step predicted was rejected with the ratio -1.
TEST(MoveLimitStrategy, TrustRegionJudgesACorrectionAgainstTheStepItCorrects) {
  Study study;  // one variable in [0, 10], no constraints: the merit is F
  DesignVariable b;
  b.name = "b";
  b.upper = 10.0;
  b.initial = 5.0;
  study.design.push_back(b);
  const Options o;
  ApproximateProblem problem;
  problem.study = &study;
  problem.x0 = Eigen::VectorXd::Constant(1, 5.0);
  SubproblemResult sub;
  sub.objective = 1.02;  // the correction's own subproblem: F~ above F(b0)
  const Eigen::VectorXd x = Eigen::VectorXd::Constant(1, 5.5);
  const Evaluation analysis;
  CycleFacts facts;
  facts.F0 = 1.0;
  facts.Fopt = 0.99;  // the correction gained 0.01
  facts.V = -100.0;
  facts.V0 = -100.0;
  facts.delta_b = Eigen::VectorXd::Constant(1, 0.5);
  facts.move_limit_active = {false};
  facts.bound_active = {false};
  facts.held_by_bound = {false};
  const Eigen::VectorXd factors = Eigen::VectorXd::Constant(1, 0.4);
  const std::optional<PreviousCycle> previous;
  const Optimality at_b0;
  auto judge = [&](std::optional<StepPrediction> against) {
    return trust_region().judge({study, o, o, problem, sub, x, x, analysis, facts, factors,
                                 previous, at_b0, 0.0, -1.0, 2, against});
  };
  const StepJudgement own = judge(std::nullopt);
  EXPECT_FALSE(own.accept);
  EXPECT_DOUBLE_EQ(own.ratio, -1.0);
  EXPECT_NEAR(own.predicted, -0.02, 1e-12);
  const StepJudgement against = judge(StepPrediction{0.0125, 0.0});
  EXPECT_TRUE(against.accept);
  EXPECT_NEAR(against.ratio, 0.8, 1e-12);
  EXPECT_NEAR(against.actual, 0.01, 1e-12);
  EXPECT_DOUBLE_EQ(against.predicted, 0.0125);
}

}  // namespace
}  // namespace sao
