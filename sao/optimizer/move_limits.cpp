#include "sao/optimizer/move_limits.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace sao {
namespace {

void check_size(const char* what, long long got, long long expected) {
  if (got == expected) return;
  throw std::invalid_argument("decide_move_limits: expected " + std::to_string(expected) +
                              " entries in " + what + " (one per move-limit factor), got " +
                              std::to_string(got));
}

}  // namespace

const char* to_string(MoveAction action) {
  switch (action) {
    case MoveAction::kKept:
      return "kept";
    case MoveAction::kRejected:
      return "rejected";
    case MoveAction::kOscillation:
      return "oscillation";
    case MoveAction::kWorse:
      return "worse";
    case MoveAction::kEnlarged:
      return "enlarged";
    case MoveAction::kShrunk:
      return "shrunk";
    case MoveAction::kConverged:
      return "converged";
  }
  return "unknown";
}

MoveDecision decide_move_limits(const Options& options, const CycleFacts& cycle,
                                const std::optional<PreviousCycle>& previous,
                                const Eigen::VectorXd& factors) {
  const long long n = factors.size();
  check_size("cycle.delta_b", cycle.delta_b.size(), n);
  check_size("cycle.move_limit_active", static_cast<long long>(cycle.move_limit_active.size()), n);
  check_size("cycle.bound_active", static_cast<long long>(cycle.bound_active.size()), n);
  if (previous) check_size("previous.delta_b", previous->delta_b.size(), n);

  const Options& o = options;
  // Without an approximated function there is no approximation error.
  const double Ef = cycle.approximated ? cycle.Ef : 0.0;
  const double Eg = cycle.approximated ? cycle.Eg : 0.0;
  const double E = std::max(Ef, Eg);
  const double V = cycle.V;
  const bool relax = cycle.relax;
  const double dF = cycle.Fopt - cycle.F0;
  const double Fchg = std::abs(cycle.F0) < 1e-300 ? std::abs(dF) * 100.0
                                                  : std::abs(dF) / std::abs(cycle.F0) * 100.0;

  MoveDecision d;
  d.Fchg = Fchg;
  d.E = E;
  d.factors = factors;

  if (E > o.errmax || (V > o.viomax && !relax)) {
    d.factors *= o.beta1;
    d.actions.assign(n, MoveAction::kRejected);
    return d;
  }
  d.accept = true;

  const double V_test = o.converge_on_violation_change && previous ? std::abs(V - previous->V) : V;
  // A move limit that shrank below the objective accuracy (as a fraction) no longer holds
  // the design back in any way the accuracy could tell: it does not block convergence.
  bool pinned = false;
  for (size_t i = 0; i < cycle.move_limit_active.size(); ++i) {
    pinned |= o.require_free_move_limits && cycle.move_limit_active[i] &&
              factors(static_cast<Eigen::Index>(i)) > o.objacc / 100.0;
  }
  if (Fchg < o.objacc && V_test < o.vioacc && Ef < o.objacc && Eg < o.vioacc && !pinned) {
    d.converged = true;
    d.actions.assign(n, MoveAction::kConverged);
    return d;
  }

  const bool Fdrchg = previous && dF * previous->dF < 0.0;
  const bool large_error = E > o.errlrg || (V > o.violrg && !relax);
  d.actions.assign(n, MoveAction::kKept);
  for (long long i = 0; i < n; ++i) {
    const bool bdrchg = previous && previous->reversed_by(cycle.delta_b, i);
    MoveAction& action = d.actions[i];
    if (bdrchg && (Fdrchg || Fchg < o.beta2 * o.objacc) && !relax) {
      action = MoveAction::kOscillation;
    } else if (cycle.Fopt > cycle.F0 && !relax) {
      action = MoveAction::kWorse;
    } else if (cycle.move_limit_active[i] && !cycle.bound_active[i]) {
      if (E < o.errsml && E != 0.0 && (V < o.viosml || relax) && !bdrchg) {
        action = MoveAction::kEnlarged;
      } else if (large_error) {
        action = MoveAction::kShrunk;
      }
    } else if (large_error) {
      action = MoveAction::kShrunk;
    }
    switch (action) {
      case MoveAction::kOscillation:
        d.factors[i] *= o.beta3;
        break;
      case MoveAction::kWorse:
      case MoveAction::kShrunk:
        d.factors[i] *= o.beta4;
        break;
      case MoveAction::kEnlarged:
        d.factors[i] *= o.beta5;
        break;
      default:
        break;
    }
  }
  return d;
}

}  // namespace sao
