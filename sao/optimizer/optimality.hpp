// First-order optimality of a design, from the true gradients (the KKT residual).
//
// Honest termination (issue 17): a run is `converged` only where the first-order conditions
// hold, not where the move limits have shrunk so far that nothing changes any more. At a
// design x with the gradients of the objective and of the retained constraint rows (the
// sensitivities of the cycle), the residual is
//
//   r = min over lambda >= 0, mu >= 0 of  || s (.) (dF/dx + sum_j lambda_j dg_hat_j/dx
//                                             - mu_lower + mu_upper) ||_inf / D
//
// over the rows that are active at x (g_hat_j >= -active_tolerance) and the bounds that are
// active (x_i at lower_i or upper_i). s_i is a characteristic size of variable i (its range,
// or |x_i| when that is smaller, never below 1 % of the range; max(|x_i|, 1) without bounds),
// so r does not depend on the units of the variables;
//   D = max(||s (.) dF/dx||_inf here, |F| kept between 1 % and 100 % of ||s (.) dF/dx||_inf
//           at the start),
// so r does not depend on the units of the objective, a large added constant cannot make it
// small (|F| counts at most as much as the start's gradient), and at an unconstrained optimum
// (dF/dx -> 0) the gradient is measured against |F|, or 1 % of the start's when F -> 0. The
// 1 % floor is for an objective falling to 0 only: where |F| is at least kNotFalling times its
// slope here (||s (.) dF/dx||_inf), D = max(slope, min(|F|, the start's slope)). Otherwise a
// start next to a singular term (HS 64 from x3 = 1e-5: 144000 / x3 makes the start's slope
// 1.4e16) would make every later residual vanish, and a run would converge where a step of
// one characteristic size still gains a quarter of F. "The start" is, for the driver, the
// first feasible b0 (Driver::measure_optimality; the first measured b0 until one is feasible):
// a far infeasible start (HS 49 from a 1000-fold violation, slope 7.6e6) would otherwise make
// the slope of a design short of the optimum look like zero (0.70 at f = 0.19, f* = 0). The
// minimisation is a small LP (GLPK). r = 0 at a KKT point; the multipliers lambda are in
// units of F per unit of g_hat. The LP also bounds each active row's complementarity,
// lambda_j |g_hat_j| / D for a row inside its bound, by the same t: the multipliers minimise
// the larger of stationarity and complementarity, which the driver reports
// (Driver::measure_optimality adds the complementarity to r); stationarity alone would take
// a row 0.09 % inside its bound over one exactly at it (the truck's 0.16 m member: 0.00338
// reported where the row at its bound met both conditions).
#pragma once

#include <Eigen/Dense>
#include <string>
#include <vector>

namespace sao {

constexpr double kReferenceShare = 0.01;  // D's floor: this share of the start's gradient

struct OptimalityInput {
  Eigen::VectorXd x;                   // the design (all variables)
  Eigen::VectorXd lower, upper;        // bounds of every variable (may be infinite)
  Eigen::VectorXd objective_gradient;  // dF/dx at x
  Eigen::VectorXd row_values;          // g_hat of the rows at x
  Eigen::MatrixXd row_jacobian;        // d g_hat / dx, one row each
  double reference = 0.0;              // ||s (.) dF/dx||_inf at the start (0: x is it)
  double objective = 0.0;              // F at x
  double active_tolerance = 1e-3;      // g_hat >= -this counts as active
};

struct Optimality {
  bool computed = false;
  double residual = 0.0;                // r above
  double gradient_scale = 0.0;          // ||s (.) dF/dx||_inf at x
  double normaliser = 0.0;              // D
  std::vector<int> active_rows;         // indices of the active rows
  std::vector<double> multipliers;      // lambda, one per active row
  std::vector<int> at_lower, at_upper;  // variables at their lower / upper bound
  std::string message;                  // why it could not be computed
};

// Characteristic size s_i of each variable (see above).
Eigen::VectorXd variable_sizes(const Eigen::VectorXd& x, const Eigen::VectorXd& lower,
                               const Eigen::VectorXd& upper);

// ||s (.) g||_inf.
double scaled_gradient_norm(const Eigen::VectorXd& gradient, const Eigen::VectorXd& sizes);

// D of the residual (above).
double residual_normaliser(double gradient_scale, double objective, double reference);

// The residual, the multipliers of the active rows and the active bounds at input.x.
Optimality first_order_optimality(const OptimalityInput& input);

}  // namespace sao
