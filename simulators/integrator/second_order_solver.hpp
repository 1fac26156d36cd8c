// A SUNLinearSolver for the Newton matrices of a second-order system written as a first-order
// one (issue 25): x = (q, v) with q' = v (the multibody equations), so that the Jacobian's
// top-left block is zero and M = I - gamma J (and the adjoint's I + gamma J') is
//   M = [I  C]   and   M [u; w] = [r; s]  <=>  (E - D C) w = s - D r,  u = r - C w:
//       [D  E]
// an LU factorisation of the half-size Schur complement E - D C (Eigen) instead of the whole
// matrix, about 1/8 of the dense factorisation's work, and half-size triangular solves. When
// the top-left block of M is not exactly the identity the whole matrix is factored (Eigen's LU
// with partial pivoting). The matrix is CVODES's dense SUNMatrix; used by the forward, direct
// and adjoint integrations alike (cvodes_integrator.cpp).
#pragma once

#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>

#include <functional>

namespace sao::sim {

// A new solver for n x n dense matrices (n even); null when out of memory. Freed by
// SUNLinSolFree.
SUNLinearSolver second_order_solver(SUNContext context, long n);

// The Newton matrices of a block of `blocks` independent systems that share one n x n matrix
// (the shared backward sweep of the adjoint method, cvodes_integrator.hpp): CVODES forms and
// hands over the n x n matrix, the vectors hold n x blocks values (column after column), and
// one factorisation (the Schur complement's when `second_order` and the top-left block is the
// identity, else Eigen's LU of the whole matrix) solves every block. Null when n or blocks is
// not positive, n is odd for a second-order system, or out of memory.
SUNLinearSolver block_solver(SUNContext context, long n, long blocks, bool second_order);

// The Newton matrices of a system that factors them itself (OdeSystem::newton_setup): a
// placeholder SUNMatrix (CVODES hands it to the linear system function, which records
// nothing in it) and a direct solver whose solves call `solve` on the right-hand side in place
// (the factorisation happened in the linear system function). Null when out of memory; freed by
// SUNMatDestroy and SUNLinSolFree.
SUNMatrix placeholder_matrix(SUNContext context);
SUNLinearSolver callback_solver(SUNContext context, std::function<void(double*)> solve);

}  // namespace sao::sim
