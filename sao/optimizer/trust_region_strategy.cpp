#include "sao/optimizer/trust_region_strategy.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "sao/optimizer/trust_region.hpp"
#include "sao/study/criteria.hpp"

namespace sao {
namespace {

// With a non-binding subregion that offers no improvement, the residual may exceed
// kkt_tolerance by this factor (rows counted as active within active_tolerance).
constexpr double kModelTolerance = 10.0;

// A zero-bound constraint's `scale` is replaced by its terms' or its gradient's size only where
// that is more than this factor larger: within it, `scale` is the user's choice, kept.
constexpr double kTenfold = 10.0;

// b* within this share of vioacc of feasibility counts as feasible in the merit.
constexpr double kFeasibleShare = 0.1;

// The violation (a fraction) below which b* counts as feasible in the merit.
double feasible_violation(const Options& noisy) {
  return kFeasibleShare * noisy.vioacc / 100.0;
}

// Whether constraint j is the second side of an equality (held as two constraints that share its
// name): what is said of the equality was said with its first side.
bool second_side(const Study& study, size_t j) {
  const int partner = study.constraints[j].equality_partner;
  return partner >= 0 && static_cast<size_t>(partner) < j;
}

// The facts of b*'s step per variable that size the next region: its move limits and the bounds
// that held it, the share of its half-width used, and whether it reversed or went on with the
// previous accepted step (trust_region.hpp).
void step_facts(const AnalysedProposal& p, TrustRegionFacts& t) {
  const int n = p.study.n_design();
  const Eigen::VectorXd b0 = p.problem.x0.head(n);
  t.move_limit_active = p.facts.move_limit_active;
  // A factor grows on its move limit unless a bound held the step: a variable resting on a
  // bound and pressing away from it must be able to leave it again (with bound_active, its
  // factor could only shrink: 1e-18 on the linked suspension, issue 24).
  t.held_by_bound = p.facts.held_by_bound;
  t.used.resize(n);
  Eigen::VectorXd half(n);
  for (int i = 0; i < n; ++i) {
    half(i) = move_half_width(p.study.design[i], p.factors(i), b0(i), true);
    t.used(i) = half(i) > 0.0 ? std::min(1.0, std::abs(p.facts.delta_b(i)) / half(i)) : 1.0;
  }
  if (p.previous && !t.phase1) {
    t.reversed = reversed_steps(p.previous->delta_b, p.facts.delta_b, half);
  }
  // The growth of a small region goes with the Lagrangian's curvature (settings'
  // lagrangian_curvature), where the subproblem carried it (some curvature learnt from the
  // active constraints): without it, the suite needed more runs, and the 60-variable
  // suspension, with no active constraint, 251 cycles instead of 164 (docs/benchmarks.md).
  if (p.noisy.lagrangian_curvature && p.problem.curvature.size() > 0 && p.previous &&
      p.previous->cycle > 0 && p.previous->cycle == p.cycle - 1) {
    t.continued = continued_steps(p.previous->delta_b, p.facts.delta_b, half);
    // Only where the region has become small (a half-width below kSmallRegion of the range):
    // there a fair ratio that persists is the crawl of the issue, not a model that is still
    // being learnt.
    for (int i = 0; i < n; ++i) {
      const double span = p.study.design[i].span();
      if (!(std::isfinite(span) && half(i) < kSmallRegion * span)) t.continued[i] = false;
    }
  }
}

// b*'s largest violation as the subproblem predicts it (0 when feasible), a fraction.
double predicted_violation(const ApproximateProblem& problem, const Eigen::VectorXd& proposed) {
  return problem.rows.empty() ? 0.0 : std::max(0.0, problem.row_values(proposed).maxCoeff());
}

// The merit improvement the subproblem predicts for b* (not phase 1) and the penalty mu it is
// predicted with.
StepPrediction merit_prediction(const Options& noisy, const ApproximateProblem& problem,
                                const SubproblemResult& sub, const Eigen::VectorXd& proposed,
                                const CycleFacts& facts, double penalty) {
  const double h0 = std::max(0.0, facts.V0 / 100.0);
  const double h_pred = predicted_violation(problem, proposed);
  // b* within a tenth of vioacc of feasibility has removed the violation as far as the run is
  // concerned: the subproblem predicts it removed (h~ = 0), and counting what is left would
  // weigh round-off (a step that gains exactly the predicted objective rejected for a violation
  // of 1e-12) or a persistent small violation that keeps the ratio low and the region small.
  const double tolerance = feasible_violation(noisy);
  StepPrediction out;
  out.penalty = penalty_for_step(penalty, facts.F0 - sub.objective, h0 - h_pred, tolerance);
  out.predicted = (facts.F0 - sub.objective) + out.penalty * (h0 - h_pred);
  return out;
}

}  // namespace

std::string TrustRegionStrategy::converged_on_prediction(const PredictedProposal& p) const {
  // No design of the subregion is predicted to be better than b0. The approximations are exact
  // in value and gradient at b0, so when the subregion did not hold the step back (the issue's
  // "non-binding subregion") and the residual is near its tolerance (the multiplier estimate
  // counts rows within active_tolerance of their bound), b0 is a first-order point as far as its
  // gradients tell: converged if b0 is feasible, without analysing b*, which would not change
  // the decision (it did until 2026-11-30: one analysis more). Otherwise b* is analysed and
  // judged like any other (rejected, the region shrinks until min_move_limit). The facts of b0
  // first: the prediction (the approximations at b*) only where they hold.
  const auto& limits = p.facts.move_limit_active;
  const bool free = std::none_of(limits.begin(), limits.end(), [](bool a) { return a; });
  if (p.sub.status != SubproblemStatus::kOptimal || !free || !(p.facts.V0 <= p.noisy.vioacc) ||
      !p.at_b0.computed || !(p.at_b0.residual <= kModelTolerance * p.noisy.kkt_tolerance)) {
    return {};
  }
  const StepPrediction merit =
      merit_prediction(p.noisy, p.problem, p.sub, p.proposed, p.facts, p.penalty);
  const double scale = std::abs(p.facts.F0) + merit.penalty + 1e-300;
  if (merit.predicted > 1e-12 * scale) return {};
  return "no design of the subregion is predicted to improve on b0 (first-order residual " +
         three_digits(p.at_b0.residual) + ")";
}

std::vector<UnsizedConstraint> TrustRegionStrategy::prepare(Study& study, const Eigen::VectorXd& x0,
                                                            const ResponseModel& exact) const {
  std::vector<UnsizedConstraint> unsized;
  for (size_t j = 0; j < study.constraints.size(); ++j) {
    Constraint& c = study.constraints[j];
    if (c.bound_auxiliary >= 0 || std::abs(c.bound) > kZeroBound) continue;
    const double N = constraint_normaliser(study, c, x0);
    const double value = normalised_history(study, c, x0, exact).cwiseAbs().maxCoeff() * N;
    // Its value sizes it where it exceeds `scale`; where it is within `scale` (it cancels:
    // b1*b2 - 500 = 0 at the start), its terms where they exceed `scale` kTenfold (a `scale`
    // within that factor of them is taken as the user's); else, maybe, its gradient at the first
    // approximation (size_by_gradients).
    const double terms = largest_term(study, c.g, x0, exact);
    if (value > N && std::isfinite(value)) {
      // Over tenfold its `scale`, the run measures the violations (and vioacc) far more loosely
      // than the `scale` given would: a warning (once for an equality's two sides), and
      // result.json's `normaliser`.
      if (value > kTenfold * N && !second_side(study, j)) {
        spdlog::warn(
            "constraint {}: normalised by {:.6g}, its largest |g| at the start, over ten times "
            "its `scale` ({:.6g}): its violations, and vioacc, are measured in units of that "
            "size (result.json's `normaliser`; set `scale` to about it to silence this)",
            c.name, value, N);
      } else {
        spdlog::debug(
            "constraint {}: normalised by {:.6g}, its largest |g| at the start (scale "
            "{:.6g})",
            c.name, value, N);
      }
      c.scale = value;
    } else if (terms > kTenfold * N && std::isfinite(terms)) {
      spdlog::debug(
          "constraint {}: normalised by {:.6g}, its largest |term| at the start, where "
          "it is {:.3g} (scale {:.6g})",
          c.name, terms, value, N);
      c.scale = terms;
    } else {
      const double size = std::max(value, terms);
      unsized.push_back({static_cast<int>(j), std::isfinite(size) ? size : 0.0});
    }
  }
  return unsized;
}

void TrustRegionStrategy::size_by_gradients(Study& study, std::vector<UnsizedConstraint>& unsized,
                                            ApproximateProblem& problem) const {
  const int n = study.n_design();
  Eigen::VectorXd lower, upper;
  study.variable_bounds(lower, upper);
  const Eigen::VectorXd sizes = variable_sizes(problem.x0, lower, upper).head(n);
  for (const UnsizedConstraint& u : unsized) {
    const int j = u.constraint;
    Constraint& c = study.constraints[j];
    std::vector<int> points;
    for (const RetainedRow& r : problem.rows) {
      if (r.constraint == j) points.push_back(r.point);
    }
    double change = 0.0;
    if (!points.empty() && problem.model) {
      Eigen::MatrixXd J;
      normalised_constraint_points(study, c, points, problem.x0, *problem.model, 1.0, &J);
      for (Eigen::Index p = 0; p < J.rows(); ++p) {
        change = std::max(change, scaled_gradient_norm(J.row(p).head(n).transpose(), sizes));
      }
    }
    const double given = constraint_normaliser(study, c, problem.x0);
    const bool said = second_side(study, static_cast<size_t>(j));  // an equality: one warning
    if (change > kTenfold * given && std::isfinite(change)) {
      if (!said) {
        spdlog::warn(
            "constraint {}: its bound is 0 and at the start it is at most {:.3g}, so "
            "only its `scale` ({:.6g}) sized it, a guess: a step of one characteristic "
            "size in one variable changes it by up to {:.6g}, which now normalises it "
            "(set `scale` to about that to silence this)",
            c.name, u.start_size, given, change);
      }
      c.scale = change;
      for (RetainedRow& r : problem.rows) {
        if (r.constraint == j) r.normaliser = change;
      }
    } else if (!said && !(change > 0.0) && !(u.start_size > 1e-3 * given)) {
      spdlog::warn(
          "constraint {}: its bound is 0 and neither its value, its terms nor its "
          "gradient at the start size it: normalised by the `scale` given ({:.6g}), a "
          "guess that vioacc and the errors are measured in",
          c.name, given);
    }
  }
  unsized.clear();
}

bool TrustRegionStrategy::converged_at_b0(const Options& noisy, const Optimality& at_b0,
                                          double V0) const {
  return !(!at_b0.computed || V0 > noisy.vioacc || at_b0.residual > noisy.kkt_tolerance);
}

bool TrustRegionStrategy::stalled(const Options& noisy, const Eigen::VectorXd& factors) const {
  return factors.size() > 0 && factors.maxCoeff() < noisy.min_move_factor;
}

StepJudgement TrustRegionStrategy::judge(const AnalysedProposal& p) const {
  const Study& study = p.study;
  const Options& noisy = p.noisy;
  const CycleFacts& facts = p.facts;
  // b*'s violation in the units of b0's rows: a constraint bounded by an auxiliary (the bound
  // formulation, g <= b7) is normalised by the auxiliary's value; measured each at its own
  // design, the violations of b0 and b* differ by the ratio of the two values (a factor 1e4
  // when phase 1 sets b7 from 0 to 5e-5), and actual / predicted improvement says nothing.
  const double V_opt =
      max_violation(study, p.x_opt, ExactResponses(study, p.analysis), &p.problem.x0);
  const double h_opt = std::max(0.0, V_opt / 100.0);
  const double h0 = std::max(0.0, facts.V0 / 100.0);
  TrustRegionFacts t;
  t.phase1 = p.sub.status == SubproblemStatus::kRelaxed;
  double penalty = p.penalty;
  if (t.phase1) {
    t.actual = h0 - h_opt;
    t.predicted = h0 - predicted_violation(p.problem, p.proposed);
  } else {
    // What is left of the violation within a tenth of vioacc counts as removed
    // (merit_prediction).
    const double h_left = h_opt > feasible_violation(noisy) ? h_opt : 0.0;
    const StepPrediction merit =
        p.judged_against ? *p.judged_against
                         : merit_prediction(noisy, p.problem, p.sub, p.proposed, facts, p.penalty);
    penalty = merit.penalty;
    t.predicted = merit.predicted;
    t.actual = (facts.F0 - facts.Fopt) + penalty * (h0 - h_left);
  }
  t.beyond_violation_limit = !t.phase1 && V_opt > std::max(noisy.viomax, facts.V0);
  step_facts(p, t);
  const TrustRegionDecision d = decide_trust_region(noisy, t, p.factors);
  StepJudgement j;
  j.accept = d.accept;
  j.ratio = d.ratio;
  j.actual = t.actual;
  j.predicted = t.predicted;
  j.penalty = penalty;
  j.E = std::max(facts.Ef, facts.Eg);
  j.Fchg = std::abs(facts.Fopt - facts.F0) / std::max(std::abs(facts.F0), 1e-300) * 100.0;
  j.factors = d.factors;
  j.actions = d.actions;
  spdlog::debug("cycle {}: {} step, actual / predicted improvement {:.4g} / {:.4g} = {:.3g}: {}{}",
                p.cycle, t.phase1 ? "feasibility" : "merit", t.actual, t.predicted, d.ratio,
                d.accept ? "accepted" : "rejected",
                t.beyond_violation_limit ? " (violation beyond viomax and b0's)" : "");
  return j;
}

}  // namespace sao
