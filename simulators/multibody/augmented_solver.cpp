#include "simulators/multibody/augmented_solver.hpp"

#include <algorithm>

namespace sao::sim::multibody {

bool AugmentedSolver::begin(const Eigen::VectorXd& mass,
                            const std::vector<Coupling<double>>& coupled,
                            Eigen::Index constraints) {
  n_ = mass.size();
  m_ = constraints;
  dense_ = false;
  sparse_schur_ = false;
  coupled_ = !coupled.empty();
  mass_ = mass;
  couples_ = coupled;
  if (!sparse_ || coupled_ || m_ == 0 || !(mass.array() > 0.0).all()) return false;
  inverse_mass_ = mass.cwiseInverse();
  return true;
}

bool AugmentedSolver::factor(const Eigen::VectorXd& mass,
                             const std::vector<Coupling<double>>& coupled,
                             const Eigen::MatrixXd& phi_q) {
  if (begin(mass, coupled, phi_q.rows())) {
    sparse_phi_ = phi_q.sparseView(1.0, 0.0);  // every nonzero
    if (factor_sparse()) return true;
  }
  return factor_dense(mass, coupled, phi_q);
}

bool AugmentedSolver::factor(const Eigen::VectorXd& mass,
                             const std::vector<Coupling<double>>& coupled,
                             const Eigen::SparseMatrix<double>& phi_q) {
  if (begin(mass, coupled, phi_q.rows())) {
    sparse_phi_ = phi_q;
    if (factor_sparse()) return true;  // Phi_q kept sparse only: no dense copy
  }
  return factor_dense(mass, coupled, Eigen::MatrixXd(phi_q));
}

bool AugmentedSolver::factor_dense(const Eigen::VectorXd& mass,
                                   const std::vector<Coupling<double>>& coupled,
                                   const Eigen::MatrixXd& phi_q) {
  sparse_schur_ = false;
  phi_q_ = phi_q;
  if (coupled_) return factor_coupled(mass, coupled, phi_q);
  if ((mass.array() > 0.0).all()) {
    inverse_mass_ = mass.cwiseInverse();
    if (m_ == 0) return true;
    // Into the members' storage: no allocation once their sizes are set.
    scaled_phi_.noalias() = phi_q * inverse_mass_.asDiagonal();
    schur_matrix_.noalias() = scaled_phi_ * phi_q.transpose();
    schur_.compute(schur_matrix_);
    if (schur_.info() == Eigen::Success && schur_.rcond() > 1e-6) return true;
  }
  dense_ = true;
  lu_.compute(augmented_matrix<double>(mass, coupled, phi_q));
  return regular(lu_);
}

// S = Phi_q M^-1 Phi_q' sparse (the product keeps every entry of the factors' patterns, zero or
// not), factored by LDL'; false (then the dense paths) when S is not positive definite or its
// pivots spread over more than 1e6 (the dense path's condition limit, estimated by the pivots).
bool AugmentedSolver::factor_sparse() {
  sparse_schur_matrix_ = sparse_phi_ * inverse_mass_.asDiagonal() * sparse_phi_.transpose();
  sparse_schur_matrix_.makeCompressed();
  const Eigen::SparseMatrix<double>& s = sparse_schur_matrix_;
  const int* outer = s.outerIndexPtr();
  const int* inner = s.innerIndexPtr();
  const auto columns = static_cast<size_t>(s.outerSize()) + 1;
  const auto entries = static_cast<size_t>(s.nonZeros());
  if (analysed_outer_.size() != columns || analysed_inner_.size() != entries ||
      !std::equal(outer, outer + columns, analysed_outer_.begin()) ||
      !std::equal(inner, inner + entries, analysed_inner_.begin())) {
    sparse_ldlt_.analyzePattern(s);
    analysed_outer_.assign(outer, outer + columns);
    analysed_inner_.assign(inner, inner + entries);
  }
  sparse_ldlt_.factorize(s);
  if (sparse_ldlt_.info() != Eigen::Success) return false;
  const Eigen::VectorXd& d = sparse_ldlt_.vectorD();
  const double smallest = d.minCoeff();
  sparse_schur_ = smallest > 0.0 && smallest > 1e-6 * d.maxCoeff();
  return sparse_schur_;
}

void AugmentedSolver::solve_into(const Eigen::VectorXd& r, Eigen::VectorXd& z) {
  if (dense_ || coupled_) {
    z = solve(r);
    return;
  }
  z.resize(n_ + m_);
  z.head(n_) = inverse_mass_.cwiseProduct(r.head(n_));
  if (m_ == 0) return;
  if (sparse_schur_) {
    mu_.noalias() = sparse_phi_ * z.head(n_);
    mu_ -= r.tail(m_);
    mu_ = sparse_ldlt_.solve(mu_);
    force_.noalias() = sparse_phi_.transpose() * mu_;
  } else {
    mu_.noalias() = phi_q_ * z.head(n_);
    mu_ -= r.tail(m_);
    schur_.solveInPlace(mu_);
    force_.noalias() = phi_q_.transpose() * mu_;
  }
  z.tail(m_) = mu_;
  z.head(n_) -= inverse_mass_.cwiseProduct(force_);
}

Eigen::MatrixXd AugmentedSolver::solve(const Eigen::Ref<const Eigen::MatrixXd>& R) const {
  if (dense_) return lu_.solve(R);
  if (coupled_) return solve_coupled(R);
  Eigen::MatrixXd z(n_ + m_, R.cols());
  z.topRows(n_) = inverse_mass_.asDiagonal() * R.topRows(n_);
  if (m_ == 0) return z;
  // M a + Phi_q' mu = F, Phi_q a = G: S mu = Phi_q M^-1 F - G, a = M^-1 (F - Phi_q' mu).
  if (sparse_schur_) {
    const Eigen::MatrixXd g = sparse_phi_ * z.topRows(n_) - R.bottomRows(m_);
    z.bottomRows(m_) = sparse_ldlt_.solve(g);
    const Eigen::MatrixXd f = sparse_phi_.transpose() * z.bottomRows(m_);
    z.topRows(n_) -= inverse_mass_.asDiagonal() * f;
    return z;
  }
  z.bottomRows(m_) = schur_.solve(phi_q_ * z.topRows(n_) - R.bottomRows(m_));
  z.topRows(n_) -= inverse_mass_.asDiagonal() * (phi_q_.transpose() * z.bottomRows(m_));
  return z;
}

// M with couplings: its Cholesky factor, M^-1 Phi_q' and S, else the dense LU.
// M's factor and its test are kept while M stays the same: masses and a beam's consistent
// mass depend on the parameters only (the parser rejects t in them), so within a run M is
// factored once per solver, not at every call (its condition estimate alone was an eighth of
// the flexible crank's direct run). The same factor, so the same solutions to the last bit.
bool AugmentedSolver::factor_coupled(const Eigen::VectorXd& mass,
                                     const std::vector<Coupling<double>>& coupled,
                                     const Eigen::MatrixXd& phi_q) {
  if (!same_mass(mass, coupled)) {
    sparse_mass_ = sparse_;
    if (sparse_mass_) {  // the pivots' spread for the condition estimate
      std::vector<Eigen::Triplet<double>> entries;
      for (Eigen::Index i = 0; i < mass.size(); ++i) entries.emplace_back(i, i, mass(i));
      for (const Coupling<double>& c : coupled) {
        entries.emplace_back(c.i, c.j, c.value);
        entries.emplace_back(c.j, c.i, c.value);
      }
      Eigen::SparseMatrix<double> M(mass.size(), mass.size());
      M.setFromTriplets(entries.begin(), entries.end());
      sparse_mass_ldlt_.compute(M);
      const Eigen::VectorXd& d = sparse_mass_ldlt_.vectorD();
      mass_regular_ = sparse_mass_ldlt_.info() == Eigen::Success && d.minCoeff() > 0.0 &&
                      d.minCoeff() > 1e-12 * d.maxCoeff();
    } else {
      mass_llt_.compute(mass_matrix<double>(mass, coupled));
      mass_regular_ = mass_llt_.info() == Eigen::Success && mass_llt_.rcond() > 1e-12;
    }
    factored_mass_ = mass;
    factored_coupled_ = coupled;
  }
  if (mass_regular_) {
    inverse_mass_phi_ = mass_solve(phi_q.transpose());
    if (m_ == 0) return true;
    schur_.compute(phi_q * inverse_mass_phi_);
    if (schur_.info() == Eigen::Success && schur_.rcond() > 1e-6) return true;
  }
  dense_ = true;
  lu_.compute(augmented_matrix<double>(mass, coupled, phi_q));
  return regular(lu_);
}

bool AugmentedSolver::same_mass(const Eigen::VectorXd& mass,
                                const std::vector<Coupling<double>>& coupled) const {
  if (mass.size() != factored_mass_.size() || mass != factored_mass_ ||
      coupled.size() != factored_coupled_.size()) {
    return false;
  }
  for (size_t k = 0; k < coupled.size(); ++k) {
    const Coupling<double>& a = coupled[k];
    const Coupling<double>& b = factored_coupled_[k];
    if (a.i != b.i || a.j != b.j || a.value != b.value) return false;
  }
  return true;
}

Eigen::MatrixXd AugmentedSolver::solve_coupled(const Eigen::Ref<const Eigen::MatrixXd>& R) const {
  Eigen::MatrixXd z(n_ + m_, R.cols());
  z.topRows(n_) = mass_solve(R.topRows(n_));
  if (m_ == 0) return z;
  z.bottomRows(m_) = schur_.solve(phi_q_ * z.topRows(n_) - R.bottomRows(m_));
  z.topRows(n_) -= inverse_mass_phi_ * z.bottomRows(m_);
  return z;
}

Eigen::MatrixXd AugmentedSolver::mass_solve(const Eigen::Ref<const Eigen::MatrixXd>& R) const {
  if (sparse_mass_) return sparse_mass_ldlt_.solve(R);
  return mass_llt_.solve(R);
}

void AugmentedSolver::newton_matrix(double gamma, const Eigen::SparseMatrix<double>& gt,
                                    Eigen::SparseMatrix<double>& out) const {
  const Eigen::Index n = n_, m = m_, size = 3 * n + m;
  const Eigen::Index phi_entries = sparse_schur_ ? sparse_phi_.nonZeros() : m * n;
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(
      static_cast<size_t>(6 * n + 2 * couples_.size() + gt.nonZeros() + 2 * phi_entries));
  for (Eigen::Index i = 0; i < 2 * n; ++i) entries.emplace_back(i, i, 1.0);
  for (Eigen::Index i = 0; i < n; ++i) {
    entries.emplace_back(i, n + i, -gamma);          // u - gamma w = r1
    entries.emplace_back(n + i, 2 * n + i, -gamma);  // w - gamma y_q'' = r2
  }
  // -G_x: G(r, c) = gt(c, r) for the 2n state rows c of gt's column r.
  for (Eigen::Index r = 0; r < n + m; ++r) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(gt, r); it; ++it) {
      if (it.row() < 2 * n) entries.emplace_back(2 * n + r, it.row(), -it.value());
    }
  }
  // A = [M Phi_q'; Phi_q 0].
  for (Eigen::Index i = 0; i < n; ++i) entries.emplace_back(2 * n + i, 2 * n + i, mass_(i));
  for (const Coupling<double>& c : couples_) {
    entries.emplace_back(2 * n + c.i, 2 * n + c.j, c.value);
    entries.emplace_back(2 * n + c.j, 2 * n + c.i, c.value);
  }
  auto constraint = [&](Eigen::Index k, Eigen::Index j, double value) {
    entries.emplace_back(3 * n + k, 2 * n + j, value);
    entries.emplace_back(2 * n + j, 3 * n + k, value);
  };
  for (Eigen::Index j = 0; j < n; ++j) {
    if (sparse_schur_) {
      for (Eigen::SparseMatrix<double>::InnerIterator it(sparse_phi_, j); it; ++it) {
        constraint(it.row(), j, it.value());
      }
      continue;
    }
    for (Eigen::Index k = 0; k < m; ++k) {
      if (phi_q_(k, j) != 0.0) constraint(k, j, phi_q_(k, j));
    }
  }
  out.resize(size, size);
  out.setFromTriplets(entries.begin(), entries.end());
}

}  // namespace sao::sim::multibody
