// What the error of forward-difference gradients may hide at a design that looks converged
// (Driver::doubt_convergence, setting "central_differences_to_confirm").
//
// A forward difference (f(b + h e_i) - f(b)) / h errs by about h f_ii / 2 (h = (1 + |b_i|) p,
// the relative step p of difference_batch.hpp). With the study format's default p = 1e-3 that
// error can cancel the true slope: Rosenbrock's valley cut by the unit disk converged at
// (0.715, 0.511), f = 0.0812, where the forward differences read (0, 0) and the true gradient
// is (-0.35, -0.15); f* = 0.0457. The first-order residual cannot tell such a point from an
// optimum, and the residual's own bound on the error says little: at a vertex the multipliers
// absorb any error of the gradients, and at step 1e-3 nearly every converged design of the suite
// has a residual uncertainty above kkt_tolerance while its objective is right to 1e-6.
//
// So the measure is the objective's improvement the error may hide. At b0, with the Lagrangian
// L = F + sum_a lambda_a g_hat_a over the active rows (multipliers of the optimality measure)
// and its curvature H (the approximations' own, by differences of their exact gradients, plus
// the curvature C they miss, lagrangian_curvature.hpp):
//   e_i = (L~(b0 + h_i e_i) - L~(b0)) / h_i - dL~/db_i(b0) + h_i C_ii / 2
// is the error the approximate model predicts for the forward differences of L, and over the
// directions that keep the active rows and bounds (the null space Z of their gradients,
// variables scaled by their characteristic sizes)
//   hidden = 1/2 (Z'e)' |Z'HZ|^-1 (Z'e)
// is what a Newton step with the corrected gradient would gain (|.|: eigenvalues by magnitude,
// so that a direction of negative or vanishing curvature counts as the largest gain the others
// allow, not as an unbounded one). The driver compares it with kkt_tolerance D (D: the
// residual's normaliser, in units of F): the accuracy the run was asked for.
#pragma once

#include <Eigen/Dense>

#include "sao/optimizer/optimality.hpp"
#include "sao/optimizer/subproblem.hpp"

namespace sao {

struct DifferenceErrorInput {
  const ApproximateProblem* problem = nullptr;  // exact in value and gradient at x
  Eigen::VectorXd x;                            // b0 (every variable)
  int n_design = 0;                             // the first n_design entries of x are differenced
  Eigen::VectorXd lower, upper;                 // bounds of every variable
  double relative_step = 0.0;                   // p
  const Optimality* at_x = nullptr;             // active rows, multipliers, active bounds
  Eigen::MatrixXd curvature;                    // C in the design variables (n x n), or empty
};

// `hidden` above, in units of F; 0 when no direction is free.
double hidden_improvement(const DifferenceErrorInput& in);

}  // namespace sao
