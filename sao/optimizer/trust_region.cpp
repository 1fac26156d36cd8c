#include "sao/optimizer/trust_region.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace sao {

TrustRegionDecision decide_trust_region(const Options& options, const TrustRegionFacts& facts,
                                        const Eigen::VectorXd& factors) {
  const auto n = static_cast<size_t>(factors.size());
  if (facts.move_limit_active.size() != n || facts.bound_active.size() != n ||
      static_cast<size_t>(facts.used.size()) != n ||
      (!facts.reversed.empty() && facts.reversed.size() != n)) {
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
    } else if (d.ratio > kGrowRatio && facts.move_limit_active[i] && !facts.bound_active[i]) {
      d.factors(k) = std::min(2.0 * d.factors(k), std::max(kMaxFactor, factors(k)));
      d.actions[i] = MoveAction::kEnlarged;
    }
  }
  return d;
}

}  // namespace sao
