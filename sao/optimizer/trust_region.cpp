#include "sao/optimizer/trust_region.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace sao {

std::vector<bool> continued_steps(const Eigen::VectorXd& previous, const Eigen::VectorXd& step,
                                  const Eigen::VectorXd& half) {
  return reversed_steps(-previous, step, half);
}

std::vector<bool> reversed_steps(const Eigen::VectorXd& previous, const Eigen::VectorXd& step,
                                 const Eigen::VectorXd& half) {
  if (previous.size() != step.size() || half.size() != step.size()) {
    throw std::invalid_argument("reversed_steps: expected " + std::to_string(step.size()) +
                                " entries per vector (one per variable)");
  }
  std::vector<bool> out(static_cast<size_t>(step.size()));
  for (Eigen::Index i = 0; i < step.size(); ++i) {
    // A step below the floor is rounding (the subproblem's tolerance, the simulator's last
    // digits), not a direction: its sign must not halve a variable that stayed put while its
    // mirror image in a symmetric design, rounded the other way, keeps its factor.
    const double floor = kNegligibleStep * half(i);
    out[static_cast<size_t>(i)] =
        step(i) * previous(i) < 0.0 && std::abs(step(i)) > floor && std::abs(previous(i)) > floor;
  }
  return out;
}

double penalty_for_step(double penalty, double objective_gain, double violation_drop,
                        double floor) {
  if (!(violation_drop > floor) || !(objective_gain < 0.0)) return penalty;
  if (objective_gain + penalty * violation_drop >= kPenaltyShare * penalty * violation_drop) {
    return penalty;
  }
  const double needed = -objective_gain / ((1.0 - kPenaltyShare) * violation_drop);
  return std::isfinite(needed) ? std::max(penalty, needed) : penalty;
}

TrustRegionDecision decide_trust_region(const Options& options, const TrustRegionFacts& facts,
                                        const Eigen::VectorXd& factors) {
  const auto n = static_cast<size_t>(factors.size());
  if (facts.move_limit_active.size() != n || facts.held_by_bound.size() != n ||
      static_cast<size_t>(facts.used.size()) != n ||
      (!facts.reversed.empty() && facts.reversed.size() != n) ||
      (!facts.continued.empty() && facts.continued.size() != n)) {
    throw std::invalid_argument("decide_trust_region: expected " + std::to_string(n) +
                                " entries per variable (one per move-limit factor)");
  }
  TrustRegionDecision d;
  d.factors = factors;
  d.ratio = facts.predicted > 0.0 ? facts.actual / facts.predicted : -1.0;
  d.accept = facts.actual > 0.0 && d.ratio >= kAcceptRatio && !facts.beyond_violation_limit;
  d.actions.assign(n, MoveAction::kKept);
  if (!d.accept) {
    const double u = std::clamp(facts.used.size() ? facts.used.maxCoeff() : 1.0, 0.1, 1.0);
    d.factors *= options.beta1 * u;
    d.actions.assign(n, MoveAction::kRejected);
    return d;
  }
  for (size_t i = 0; i < n; ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    if (!facts.reversed.empty() && facts.reversed[i] && d.ratio <= kGrowRatio) {
      d.factors(k) *= options.beta3;
      d.actions[i] = MoveAction::kOscillation;
    } else if (d.ratio < 0.25) {
      d.factors(k) *= options.beta4;
      d.actions[i] = MoveAction::kShrunk;
    } else if (facts.move_limit_active[i] && !facts.held_by_bound[i] &&
               (d.ratio > kGrowRatio || (!facts.continued.empty() && facts.continued[i]))) {
      // A good prediction, or a second fair one in a row with the variable pressing on its
      // move limit the same way: the region, not the approximation, holds the step back.
      d.factors(k) = std::min(2.0 * d.factors(k), std::max(kMaxFactor, factors(k)));
      d.actions[i] = MoveAction::kEnlarged;
    }
  }
  // Never a needle: after an accepted step no factor is below kMinAspect of the largest. The
  // oscillation rule's halving stops there (a factor it finds already below stays: that
  // variable's approximation keeps overshooting); a factor left behind while others grew on their
  // move limits is raised to it (the 60-variable suspension had factors 1e-9 of the largest,
  // which a variable needed 20 and more doublings to leave once the model asked it to move).
  const double floor = kMinAspect * d.factors.maxCoeff();
  for (size_t i = 0; i < n; ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    const bool oscillates = d.actions[i] == MoveAction::kOscillation;
    d.factors(k) = std::max(d.factors(k), oscillates ? std::min(factors(k), floor) : floor);
  }
  return d;
}

}  // namespace sao
