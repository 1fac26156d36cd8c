// Independent coordinates of a dynamic multibody model whose constraint equations are all
// linear: Phi(q, t; p) = A q - b(t, p) with A the same at every pose, time and parameter value
// (translational joints to the ground and between bodies that cannot turn, fixed joints,
// coordinate drivers, ...). The constraints are eliminated once:
//   q = A^+ b(t, p) + N z,   q' = A^+ b'(t, p) + N z',   q'' = A^+ b''(t, p) + N z''
// with N an orthonormal basis of the null space of A and A^+ its pseudo-inverse, and the
// integrator carries (z, z'): k = n - m independent coordinates instead of n coordinates and m
// multipliers. The equations of motion projected onto the motions the joints allow,
//   N' M N z'' = N' (Q(t, q, q') - M A^+ b''),
// need neither multipliers nor Baumgarte stabilisation (the constraints hold exactly). The
// histories (accelerations, reactions included) are those of the absolute coordinates at the
// full state, which the reduced state gives: every response reads the same functions.
//
// N and A^+ follow the model's structure: the coordinates fall into groups that no constraint
// equation joins (a body on its own guide, the bodies a chain of joints links), A is block
// diagonal in them, and so are N and A^+: each group's block is the orthonormal basis of its
// own equations' null space (Eigen's Householder QR) and their pseudo-inverse (Eigen's complete
// orthogonal decomposition). N stays orthonormal (z = N' q, the conditioning of N' M N that of
// M), and a row of sliders gets a signed selection of coordinates, N' M N diagonal and a banded
// reduced Jacobian. With `sparse`, the reduced equations are factored sparse too: N' M N by a
// sparse LDL', CVODES's Newton matrices (and the adjoint's) as a sparse matrix bordered by
// N' M N and the projected element-by-element derivatives, by a sparse LU whose symbolic
// analysis is done once per run (the absolute path's, model.cpp SparseNewton).
#pragma once

#include <Eigen/SparseCore>
#include <memory>
#include <string>
#include <vector>

#include "simulators/multibody/dynamics.hpp"

namespace sao::sim::multibody {

struct Reduction {
  Eigen::MatrixXd jacobian;  // A: m x n
  // N: n x k, orthonormal columns spanning the null space of A, and A^+: n x m, block diagonal
  // in the groups of coordinates (without their exact zeros: the quarter car's N has 2
  // nonzeros of 18, A^+ 7 of 63).
  Eigen::SparseMatrix<double> basis, particular;
  // The reduced equations factored sparse (above), else dense (N' M N by a dense Cholesky, the
  // reduced Jacobian dense, CVODES's dense Newton matrices).
  bool sparse = false;
  // Entries of the reduced Jacobian's pattern, N' (the bodies' and force elements' couplings) N
  // (k x k, N' M N included): what "auto" judges the structure by.
  long pattern_entries = 0;
  std::string choice;  // why dense or sparse, for the log line
  int size() const { return static_cast<int>(basis.cols()); }
};

// "linear_algebra" "auto" (measured in docs/performance.md, "The independent-coordinate path
// sparse"): sparse reduced equations from kSparseReducedFrom independent coordinates when the
// reduced Jacobian's pattern fills at most kSparseReducedFill of its k^2 entries (a row of
// sliders: 3k - 2); dense ones below, and for a denser pattern up to kReducedUpTo independent
// coordinates, above which the model integrates in absolute coordinates (sparse: dense reduced
// equations lose to them there, a row of sliders 0.51 s against 0.38 s at 200). "sparse"
// reduces with sparse equations, "dense" with dense ones, whatever the size.
constexpr int kSparseReducedFrom = 40;
constexpr double kSparseReducedFill = 0.2;
constexpr int kReducedUpTo = 160;

// Whether the model integrates in independent coordinates, into `out`; when not, `why` says
// why ("joint pivot's equations are not linear in the coordinates", ...). Only dynamic models
// integrated by CVODES, without beams, whose every constraint equation has the same Jacobian
// at the given pose and at poses, times and parameter values away from it, and under "auto"
// not too many independent coordinates for the equations' structure (above).
bool find_reduction(const Dynamics& dynamics, Reduction& out, std::string& why);

// The row of the first entry of J that differs from A's (beyond 1e-12 of A's scale), or -1.
Eigen::Index first_changed_row(const Eigen::MatrixXd& A, const Eigen::MatrixXd& J);

// The line the choice is logged with: "multibody: 9 coordinates, 7 linear constraint
// equations eliminated, integrating 4 states (2 independent coordinates and their rates; dense
// reduced equations: ...)" or "multibody: integrating 18 states in absolute coordinates
// (...)".
std::string reduction_summary(const Dynamics& dynamics, const Reduction* reduction,
                              const std::string& why);

// x = (q, q') of the reduced state xr = (z, z') at t. For double and AD.
template <class S>
void full_state(const Dynamics& dynamics, const Reduction& reduction, double t, const S* xr,
                const S* p, const LoadCaseSpec& lc, S* x);
// (z, z') = (N' q, N' q') of x = (q, q'); with x = (q', q''), (z', z''). For double and AD.
template <class S>
void reduced_state(const Dynamics& dynamics, const Reduction& reduction, const S* x, S* xr);

// Every history output at the reduced state xr = (z, z') at t into `h`, without the augmented
// solve: q'' = A^+ b'' + N z'' from the reduced equations and the multipliers from
// Phi_q' lambda = Q - M q'' (lambda = A^+' (Q - M q''): A has full row rank). Throws
// std::runtime_error when the reduced mass matrix is singular.
void reduced_histories(const Dynamics& dynamics, const Reduction& reduction, double t,
                       const double* xr, const double* p, const LoadCaseSpec& lc,
                       Eigen::Ref<Eigen::VectorXd> h);

// One run in independent coordinates at parameters p in load case lc, differentiated with
// respect to `active`; throws std::runtime_error when the constraints' Jacobian differs from
// the reduction's in this run (a load-case parameter turning a joint's axis).
std::unique_ptr<OdeModel::Instance> reduced_run(const Dynamics& dynamics,
                                                const Reduction& reduction,
                                                const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                                const std::vector<int>& active);

}  // namespace sao::sim::multibody
