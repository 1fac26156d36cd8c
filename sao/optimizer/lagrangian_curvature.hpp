// The curvature of the Lagrangian that the approximations miss (issue 47.1), learnt from the
// cycle starts' gradients and added to the subproblem's objective.
//
// SQP methods carry a quasi-Newton model of the Lagrangian L = F + sum_j lambda_j g_hat_j, so
// that a step along a curved active constraint follows its curvature. SAO's approximations
// carry each response's own curvature (a diagonal secant, or a matrix for the objective's
// responses), which misses what couples the variables in a constraint (x1 x2 x3 x4 >= 25) and
// makes the last cycles converge linearly. The correction C is learnt from what the cycle's
// approximation gets wrong: with b1 the new cycle start, where the approximation is exact in
// value and gradient, and b the previous one (both analysed with gradients), the secant of the
// Lagrangian along s = b1 - b that the approximation misses is
//
//   y = (grad F~(b) - grad F(b)) + sum_j lambda_j (grad g_hat~_j(b) - grad g_hat_j(b))
//
// (lambda: the multipliers at b1) since the approximation's gradients equal the true ones at b1.
// The objective's part enters where the objective reads scalar responses only and is not a bound
// formulation's auxiliary, and between two feasible starts only (kFeasibleRows): a sum over a
// history's points (the slider-crank's path error) moves with them (with its part in y the
// slider-crank needed 25 analyses instead of 8). Without the objective's part the model of F (the
// quasi-Newton form, convex) kept its own curvature where the Lagrangian's along the active
// constraints is smaller, and the last cycles converged linearly with ratios near 1.2 (the spring,
// HS 26 and 46 at the cycle limit; benchmarks.md). C is updated by one symmetric rank-one step per
// pair, in the variables scaled by their characteristic sizes (z = b / s, optimality.hpp's
// variable_sizes), so that it can be indefinite (a concave constraint with a positive multiplier)
// and is zero where the approximations are right (separable quadratic constraints: the diagonal
// secant is exact). Its eigenvalues are clamped to +-max_curvature D (D: the first-order residual's
// normaliser, the scale of F's change over one characteristic size). The subproblem minimises
// F~(x) + 1/2 dz' C dz (dz = (b - b0) / s), the predicted merit includes the term, and the
// objective's own approximation error (Ef) does not.
//
// Rows are matched by (constraint, time point): a multiplier on a row without a gradient at b
// (screened out there) skips the pair. Only with the trust-region strategy and gradients
// (not multi-point fits, not the seed's appendix A).
#pragma once

#include <Eigen/Dense>
#include <map>
#include <optional>
#include <utility>

#include "sao/optimizer/optimality.hpp"
#include "sao/optimizer/subproblem.hpp"

namespace sao {

// The retained rows at a cycle start b0, as the optimality measure evaluated them:
// problem.row_values(b0) and their gradients (one row per retained row), and the objective's
// gradient there (problem.objective_gradient(b0)).
struct RowsAtStart {
  Eigen::VectorXd values;
  Eigen::MatrixXd jacobian;
  Eigen::VectorXd objective_gradient;
};

class LagrangianCurvature {
 public:
  // At a cycle start b0 = problem.x0 (problem.model exact in value and gradient at b0, before
  // any curvature term is set on it): updates C from the pair (the previous start, b0) with
  // the multipliers of `at_b0` (first_order_optimality at b0 over problem.rows), then keeps
  // b0's gradients for the next pair. `rows`: the rows at b0 the optimality measure used.
  // bound: the eigenvalue clamp (max_curvature D).
  void update(const ApproximateProblem& problem, const RowsAtStart& rows, const Optimality& at_b0,
              double bound);
  // C in the design variables b (n x n; empty before the first update with a pair).
  Eigen::MatrixXd matrix() const;
  // How many pairs updated C so far.
  int updates() const { return updates_; }

 private:
  struct Start {
    Eigen::VectorXd b;                                    // design variables
    std::map<std::pair<int, int>, Eigen::VectorXd> rows;  // d(g - bound)/db by (constraint, point)
    Eigen::VectorXd objective;                            // dF/db
    bool feasible = false;  // every retained row within kFeasibleRows of its bound
  };
  std::optional<Start> last_;
  // Whether the objective's part enters y: an objective of scalar responses only, not a bound
  // formulation's auxiliary (a property of the study, decided at the first update).
  bool scalar_objective_ = false;
  Eigen::MatrixXd C_;      // in z = b / sizes_
  Eigen::VectorXd sizes_;  // the scaling C_ is kept in (the first start's sizes)
  int updates_ = 0;
};

}  // namespace sao
