// The augmented system of the equations of motion (dynamics.hpp),
//   A z = r,  A = [M  Phi_q'; Phi_q  0],  z = (q'', multipliers),
// factored once for any number of solves, and the sparse Newton matrix of a run whose
// linearisation goes through it.
#pragma once

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <vector>

#include "simulators/multibody/kinematics.hpp"

namespace sao::sim::multibody {

template <class S>
Mat<S> augmented_matrix(const Vec<S>& mass, const std::vector<Coupling<S>>& coupled,
                        const Mat<S>& phi_q) {
  const auto n = mass.size(), m = phi_q.rows();
  Mat<S> A = Mat<S>::Constant(n + m, n + m, C<S>(0.0));
  A.topLeftCorner(n, n) = mass_matrix(mass, coupled);
  A.block(0, n, n, m) = phi_q.transpose();
  A.block(n, 0, m, n) = phi_q;
  return A;
}

// A (M diagonal, or with the couplings of beam elements). With every mass positive and a
// well-conditioned Schur complement S = Phi_q M^-1 Phi_q' (cond < 1e6, so that forming it loses
// at most 1e-10), through S: a Cholesky factorisation of m x m (and of M when it is not
// diagonal) instead of a dense LU of (n + m) x (n + m); with `sparse` (set_sparse) and M
// diagonal, S is a sparse matrix (Phi_q couples a joint's two bodies only) factored by Eigen's
// sparse LDL', its symbolic analysis kept while S's pattern holds (a sparse Phi_q of the
// joints' pattern, Kinematics::sparse_phi_pattern, keeps it for a whole run), and the solves go
// through the sparse Phi_q: work in proportion to the model's size, not its cube. Otherwise
// (massless bodies, near lock-up) the dense LU, whose test `regular` decides whether A is
// singular.
class AugmentedSolver {
 public:
  void set_sparse(bool sparse) { sparse_ = sparse; }
  // False when A is singular. Phi_q dense, or sparse (the sparse path's, without a dense copy
  // unless the Schur complement cannot be used).
  bool factor(const Eigen::VectorXd& mass, const std::vector<Coupling<double>>& coupled,
              const Eigen::MatrixXd& phi_q);
  bool factor(const Eigen::VectorXd& mass, const std::vector<Coupling<double>>& coupled,
              const Eigen::SparseMatrix<double>& phi_q);
  // z = A^-1 r for one right-hand side, into z and the members' storage (no allocation once
  // their sizes are set): the right-hand side's path.
  void solve_into(const Eigen::VectorXd& r, Eigen::VectorXd& z);
  // A^-1 R for every column of R (n + m rows); A is symmetric, so this is also A^-T R.
  Eigen::MatrixXd solve(const Eigen::Ref<const Eigen::MatrixXd>& R) const;
  // The Newton matrix I - gamma f_x of x = (q, q'), f = (q', [I 0] A^-1 r), at the point A was
  // factored at, without f_x: with G' = `gt` there ((2n + na) x (n + m), sparse, G = d(r - A z)/
  // d(x, p) for z held, so that f_x = [0 I; [I 0] A^-1 G_x]), the sparse bordered matrix
  //   [ I      -gamma I    0           ]
  //   [ 0       I         -gamma [I 0] ]   of the unknowns (u, w, y), right-hand side (r1, r2, 0),
  //   [ -G_q   -G_v        A           ]
  // whose Schur complement onto (u, w) is I - gamma f_x (y = A^-1 G_x (u, w)); 3n + m square.
  // Every stored entry of gt and of a sparse Phi_q is kept, zero or not: the pattern holds.
  void newton_matrix(double gamma, const Eigen::SparseMatrix<double>& gt,
                     Eigen::SparseMatrix<double>& out) const;

 private:
  // Sizes and M; whether the sparse Schur complement applies (set_sparse, M diagonal, positive).
  bool begin(const Eigen::VectorXd& mass, const std::vector<Coupling<double>>& coupled,
             Eigen::Index constraints);
  // The dense paths with phi_q.
  bool factor_dense(const Eigen::VectorXd& mass, const std::vector<Coupling<double>>& coupled,
                    const Eigen::MatrixXd& phi_q);
  bool factor_coupled(const Eigen::VectorXd& mass, const std::vector<Coupling<double>>& coupled,
                      const Eigen::MatrixXd& phi_q);
  // S from sparse_phi_, factored; false (then the dense paths) when it is not well conditioned.
  bool factor_sparse();
  bool same_mass(const Eigen::VectorXd& mass, const std::vector<Coupling<double>>& coupled) const;
  Eigen::MatrixXd solve_coupled(const Eigen::Ref<const Eigen::MatrixXd>& R) const;
  // M^-1 R with M's factor (sparse or dense).
  Eigen::MatrixXd mass_solve(const Eigen::Ref<const Eigen::MatrixXd>& R) const;

  Eigen::Index n_ = 0, m_ = 0;
  bool sparse_ = false;  // the Schur complement sparse when M is diagonal
  bool dense_ = false, coupled_ = false, sparse_schur_ = false;
  Eigen::LLT<Eigen::MatrixXd> mass_llt_;
  // With `sparse`, M with couplings (banded: a beam couples its neighbouring nodes) by a sparse
  // LDL' instead: M^-1 Phi_q' in proportion to n m, not n^2 m.
  bool sparse_mass_ = false;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> sparse_mass_ldlt_;
  Eigen::VectorXd mass_;                   // M's diagonal, and
  std::vector<Coupling<double>> couples_;  // its couplings, for newton_matrix
  Eigen::VectorXd factored_mass_;          // the M mass_llt_ holds (diagonal and couplings)
  std::vector<Coupling<double>> factored_coupled_;
  bool mass_regular_ = false;
  Eigen::MatrixXd inverse_mass_phi_;
  Eigen::VectorXd inverse_mass_;
  Eigen::MatrixXd phi_q_;
  Eigen::MatrixXd scaled_phi_, schur_matrix_;  // Phi_q M^-1 and S, formed in place
  Eigen::VectorXd mu_, force_;                 // scratch of solve_into
  Eigen::LLT<Eigen::MatrixXd> schur_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
  // The sparse path: Phi_q, S and its factor, analysed again only when S's pattern changes
  // (the pattern analysed: its column starts and row indices).
  Eigen::SparseMatrix<double> sparse_phi_, sparse_schur_matrix_;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> sparse_ldlt_;
  std::vector<int> analysed_outer_, analysed_inner_;
};

}  // namespace sao::sim::multibody
