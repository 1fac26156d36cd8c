// The trust-region move-limit strategy (the default; `"strategy": "seed"` selects appendix A,
// move_limits.hpp), as a pure function.
//
// After b* is analysed, the step is judged by a merit function, the exact penalty
//   Phi(x) = F(x) + mu h(x),   h(x) = max(0, max_j g_hat_j(x))   (normalised violation)
// with mu twice the largest sum of the constraint multipliers seen so far (optimality.hpp;
// from the first feasible b0 on, since it: a far-infeasible start's are not the optimum's), and
// at least kPenaltyFloor D (D: the residual normaliser, in the units of F; for one step's
// judgement raised by penalty_for_step where that step trades F for feasibility), so that a step is
// accepted when it improves the objective without giving up feasibility, or improves
// feasibility. rho = (Phi(b0) - Phi(b*)) / (Phi(b0) - Phi~(b*)) compares the actual with the
// predicted improvement (Phi~: the approximations, exact at b0). When the subproblem had to be
// relaxed (no design of the subregion satisfies the approximate constraints), the cycle is a
// feasibility step and rho compares the violation h alone (phase 1).
//
//   rho <  eta (1e-2):  rejected; every factor shrinks below the step taken:
//                       m_i := beta1 max(u, 0.1) m_i, u = the largest fraction of its
//                       half-width any variable used
//   rho <  0.25:        accepted; every factor m_i := beta4 m_i
//   rho >  0.75:        accepted; the factors of variables on their move limit (not held
//                       by a bound: one resting on a bound and pressing away from it does
//                       grow) grow, m_i := 2 m_i, up to max_factor
//   otherwise:          accepted, factors kept; except that a variable on its move limit
//                       whose step goes on in the direction of the previous cycle's (accepted:
//                       the cycle before this one), where its subregion's half-width is below
//                       kSmallRegion of its range, grows as above: a fair ratio that persists
//                       at a small region is a crawl (issue 47: 40 cycles at 1e-4 of the range
//                       on HS 93), not a model still being learnt (only where the subproblem
//                       carried the Lagrangian's curvature: TrustRegionStrategy::judge)
// b* within a tenth of vioacc of feasibility counts as feasible in Phi(b*) (h = 0): the
// subproblem predicted the violation removed, and what is left is round-off or the second-order
// violation of a step along a curved constraint, which would otherwise reject an exact step or
// keep the ratio in the keep band.
// Whatever rho, a step (not phase 1) whose violation V exceeds both `viomax` and b0's is rejected:
// the upper bound on the violation of a filter method. The penalty mu is kept small (near the
// multipliers) so that steps along active constraints are not judged by their second-order
// violation; without this bound, a step whose approximation wrongly predicted feasibility
// could then be accepted with a large violation for its objective gain.
// Per variable, on an accepted step with rho <= 0.75: a variable whose step reversed the
// direction of the previous accepted step (it oscillates: the approximation overshoots along
// it, its curvature is not captured) has its factor halved, m_i := beta3 m_i; the others are
// sized by rho as above. So the region narrows along the directions in which the
// approximation keeps overshooting and not along those in which it is right. With rho > 0.75
// the prediction was good and a reversal is the approach to the optimum from the other side:
// no shrink. The halving stops at kMinAspect of the largest factor: a valley that zigzags
// across a variable at every cycle would otherwise narrow it geometrically to nothing (1e-19
// after 290 cycles of the linked suspension, issue 24) while the other variables still move,
// and the run would stall at a point that is not stationary. Nor does any other factor stay
// below that share after an accepted step: one left behind while the others doubled on their
// move limits is raised to it (the 60-variable suspension had factors of 2.5e-10 beside 0.34).
// A step (this one or the previous) below kNegligibleStep of the variable's half-width is
// rounding, not a direction, and reverses nothing (a symmetric design stays so).
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "sao/optimizer/move_limits.hpp"
#include "sao/study/options.hpp"

namespace sao {

struct TrustRegionFacts {
  double actual = 0.0;     // Phi(b0) - Phi(b*) (phase 1: h(b0) - h(b*))
  double predicted = 0.0;  // Phi(b0) - Phi~(b*) (phase 1: h(b0) - h~(b*))
  bool phase1 = false;
  std::vector<bool> move_limit_active;  // per design variable, at b*
  std::vector<bool> held_by_bound;      // per design variable: a bound held its step at b*
  std::vector<bool> reversed;           // per design variable: the step reversed the previous
                                        // accepted step's direction (empty: none did)
  std::vector<bool> continued;          // per design variable: the step went on in the direction
                                        // of the previous cycle's, accepted (empty: none did)
  Eigen::VectorXd used;                 // |b*_i - b0_i| / half-width of the subregion, in [0, 1]
  bool beyond_violation_limit = false;  // b* violates by more than viomax and more than b0 did
};

struct TrustRegionDecision {
  bool accept = false;
  double ratio = 0.0;  // rho
  Eigen::VectorXd factors;
  std::vector<MoveAction> actions;
};

constexpr double kAcceptRatio = 1e-2;  // eta
constexpr double kMaxFactor = 1.0;     // largest move-limit factor the strategy grows to
constexpr double kGrowRatio = 0.75;    // rho above which factors on their move limit grow
constexpr double kPenaltyFloor = 0.1;  // mu >= this share of the residual normaliser D
// After an accepted step no factor is below this share of the largest (the oscillation rule's
// halving stops there; a factor it finds below stays).
constexpr double kMinAspect = 1e-2;
// A step of a variable (this cycle's or the previous accepted one) smaller than this share of
// its subregion's half-width is no direction: it does not count as a reversal.
constexpr double kNegligibleStep = 1e-4;

// Per variable: whether `step` reverses `previous` (the previous accepted step), both larger
// than kNegligibleStep of the variable's subregion half-width `half` (TrustRegionFacts::reversed).
std::vector<bool> reversed_steps(const Eigen::VectorXd& previous, const Eigen::VectorXd& step,
                                 const Eigen::VectorXd& half);

// The share of a variable's range below which a subregion's half-width counts as small: a
// fair step (rho in the keep band) that goes on in the direction of the previous cycle's,
// pressing on its move limit, grows it there (TrustRegionFacts::continued).
constexpr double kSmallRegion = 0.01;

// Per variable: whether `step` goes on in the direction of `previous`, both larger than
// kNegligibleStep of `half` (TrustRegionFacts::continued).
std::vector<bool> continued_steps(const Eigen::VectorXd& previous, const Eigen::VectorXd& step,
                                  const Eigen::VectorXd& half);

// The penalty mu a step's judgement needs (the l1 merit's rule, Nocedal & Wright 18.36): a step
// predicted to reduce the violation (violation_drop = h(b0) - h~(b*) > 0) at a cost in the
// objective (objective_gain = F(b0) - F~(b*) < 0) is predicted to improve the merit only when
// mu h's drop outweighs that cost. With mu below it (the floor kPenaltyFloor D and twice the
// multipliers, both small before the constraints' multipliers are known), a step from an
// infeasible start onto the approximate feasible set is predicted to lose, and rejected with the
// ratio -1 whatever it achieves (HS 95: twice, the region halved twice before the first accepted
// cycle). For that step's judgement only, mu is raised so that the predicted gain is at least
// kPenaltyShare of mu h's drop; a drop of at most `floor` (what counts as feasible) raises
// nothing. Returns the penalty to judge the step with. The raise is not kept for later cycles:
// kept, a raise for a small drop (a violation of 1e-5 removed at a cost in F) judged the next
// steps along the active constraints by their second-order violation, and HS 93 needed 395 runs
// instead of 125.
constexpr double kPenaltyShare = 0.1;
double penalty_for_step(double penalty, double objective_gain, double violation_drop, double floor);

// Throws std::invalid_argument when the per-variable vectors do not match `factors`.
TrustRegionDecision decide_trust_region(const Options& options, const TrustRegionFacts& facts,
                                        const Eigen::VectorXd& factors);

}  // namespace sao
