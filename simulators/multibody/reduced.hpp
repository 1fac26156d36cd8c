// Independent coordinates of a dynamic multibody model whose constraint equations are all
// linear: Phi(q, t; p) = A q - b(t, p) with A the same at every pose, time and parameter value
// (translational joints to the ground and between bodies that cannot turn, fixed joints,
// coordinate drivers, ...). The constraints are eliminated once:
//   q = A^+ b(t, p) + N z,   q' = A^+ b'(t, p) + N z',   q'' = A^+ b''(t, p) + N z''
// with N an orthonormal basis of the null space of A (Eigen's Householder QR) and A^+ its
// pseudo-inverse (Eigen's complete orthogonal decomposition), and the integrator carries
// (z, z'): k = n - m independent coordinates instead of n coordinates and m multipliers. The
// equations of motion projected onto the motions the joints allow,
//   N' M N z'' = N' (Q(t, q, q') - M A^+ b''),
// need neither multipliers nor Baumgarte stabilisation (the constraints hold exactly). The
// histories (accelerations, reactions included) are those of the absolute coordinates at the
// full state, which the reduced state gives: every response reads the same functions.
#pragma once

#include <Eigen/SparseCore>
#include <memory>
#include <string>
#include <vector>

#include "simulators/multibody/dynamics.hpp"

namespace sao::sim::multibody {

struct Reduction {
  Eigen::MatrixXd jacobian;    // A: m x n
  Eigen::MatrixXd basis;       // N: n x k, orthonormal columns spanning the null space of A
  Eigen::MatrixXd particular;  // A^+: n x m
  // N and A^+ without their exact zeros, for the products of every call (a joint involves
  // few coordinates: the quarter car's N has 2 nonzeros of 18, A^+ 7 of 63).
  Eigen::SparseMatrix<double> sparse_basis, sparse_particular;
  int size() const { return static_cast<int>(basis.cols()); }
};

// The reduced equations are dense (N' M N, the k x k Jacobian and CVODES's dense Newton
// matrices: their cost grows as k^2 to k^3): "linear_algebra" "auto" keeps the independent
// coordinates up to this many of them and integrates a larger model in absolute coordinates
// (sparse); "sparse" never reduces, "dense" always. Measured in docs/performance.md (a row of
// sliders: independent 0.31 s against absolute sparse 0.33 s at 160, 0.51 against 0.38 s at 200).
constexpr int kReducedUpTo = 160;

// Whether the model integrates in independent coordinates, into `out`; when not, `why` says
// why ("joint pivot's equations are not linear in the coordinates", ...). Only dynamic models
// integrated by CVODES, without beams, whose every constraint equation has the same Jacobian
// at the given pose and at poses, times and parameter values away from it, and not too many
// independent coordinates (kReducedUpTo).
bool find_reduction(const Dynamics& dynamics, Reduction& out, std::string& why);

// The line the choice is logged with: "multibody: 9 coordinates, 7 linear constraint
// equations eliminated, integrating 4 states" or "multibody: integrating 18 states in
// absolute coordinates (...)".
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
