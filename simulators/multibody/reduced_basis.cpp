// The reduction of a model whose constraints are all linear (reduced.hpp): whether it applies,
// N and A^+ block by block in the groups of coordinates no constraint equation joins, and the
// choice of dense or sparse reduced equations ("linear_algebra").
#include <boost/pending/disjoint_sets.hpp>
#include <cmath>
#include <map>
#include <sstream>

#include "simulators/multibody/reduced.hpp"

namespace sao::sim::multibody {
namespace {

// Phi_q at pose q, time t and parameters p (the model's load-case defaults).
Eigen::MatrixXd jacobian_at(const Dynamics& d, const Eigen::VectorXd& q, const double* p,
                            double t) {
  const LoadCaseSpec lc;
  const Eigen::VectorXd qd = Eigen::VectorXd::Zero(q.size());
  Vec<double> phi, phi_t, gamma;
  Mat<double> phi_q;
  d.constraints(q.data(), qd.data(), d.vars(p, t, lc), phi, phi_q, phi_t, gamma);
  return phi_q;
}

// The Jacobian of the constraints at the given pose, checked to be the same at other poses,
// times and parameter values; "" or why not.
std::string constant_jacobian(const Dynamics& d, Eigen::MatrixXd& A) {
  const MultibodyModel& model = d.model();
  const int n = d.nq();
  const LoadCaseSpec lc;
  const std::vector<double>& p = model.parameter_defaults;
  const Env<double> env = d.vars(p.data(), 0.0, lc);
  Eigen::VectorXd q(n);
  for (size_t i = 0; i < model.bodies.size(); ++i) {
    q(3 * i) = model.bodies[i].x.at(env);
    q(3 * i + 1) = model.bodies[i].y.at(env);
    q(3 * i + 2) = model.bodies[i].angle.at(env);
  }
  A = jacobian_at(d, q, p.data(), 0.0);
  for (int trial = 1; trial <= 3; ++trial) {
    Eigen::VectorXd moved(n);
    for (int i = 0; i < n; ++i) moved(i) = q(i) + 0.8 * std::sin(1.3 * i + 0.7 * trial + 0.2);
    const Eigen::Index row = first_changed_row(A, jacobian_at(d, moved, p.data(), 0.37 * trial));
    if (row >= 0) return "the equations of " + d.row_owner(row) + " are not linear";
    std::vector<double> other(p);
    for (size_t i = 0; i < other.size(); ++i) other[i] = p[i] * (1.0 + 0.13 * trial) + 0.07 * trial;
    const Eigen::Index prow = first_changed_row(A, jacobian_at(d, q, other.data(), 0.0));
    if (prow >= 0) return "the direction of " + d.row_owner(prow) + " depends on the parameters";
  }
  return "";
}

// The groups of coordinates that no constraint equation joins (Boost's disjoint sets: two
// coordinates share a group when a row of A has both), each with its coordinates and its rows,
// in the order of their first coordinate; false when a row of A is zero.
bool coordinate_groups(const Eigen::MatrixXd& A, std::vector<std::vector<int>>& columns,
                       std::vector<std::vector<int>>& rows) {
  const auto m = static_cast<int>(A.rows()), n = static_cast<int>(A.cols());
  boost::disjoint_sets_with_storage<> sets(static_cast<size_t>(n));
  std::vector<int> first(static_cast<size_t>(m), -1);  // each row's first coordinate
  for (int r = 0; r < m; ++r) {
    for (int c = 0; c < n; ++c) {
      if (A(r, c) == 0.0) continue;
      if (first[r] < 0) {
        first[r] = c;
      } else {
        sets.union_set(first[r], c);
      }
    }
    if (first[r] < 0) return false;
  }
  std::map<size_t, size_t> group;  // a group's representative -> its index
  for (int c = 0; c < n; ++c) {
    const auto [it, added] = group.emplace(sets.find_set(c), columns.size());
    if (added) columns.emplace_back();
    columns[it->second].push_back(c);
  }
  rows.resize(columns.size());
  for (int r = 0; r < m; ++r) rows[group.at(sets.find_set(first[r]))].push_back(r);
  return true;
}

// N and A^+ of A (out.jacobian) block by block: each group's orthonormal null-space basis
// (Householder QR of its rows' transpose) and pseudo-inverse, their nonzeros into out.basis and
// out.particular; false when the constraint equations are dependent.
bool block_basis(Reduction& out) {
  const Eigen::MatrixXd& A = out.jacobian;
  std::vector<std::vector<int>> columns, rows;
  if (!coordinate_groups(A, columns, rows)) return false;
  std::vector<Eigen::Triplet<double>> basis, particular;
  int k = 0;
  for (size_t g = 0; g < columns.size(); ++g) {
    const std::vector<int>&C = columns[g], &R = rows[g];
    const auto nc = static_cast<Eigen::Index>(C.size()), nr = static_cast<Eigen::Index>(R.size());
    if (nr == 0) {  // coordinates no joint holds: their own unit vectors
      for (int c : C) basis.emplace_back(c, k++, 1.0);
      continue;
    }
    const Eigen::MatrixXd block = A(R, C);
    const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(block.transpose());
    if (qr.rank() < nr) return false;
    const Eigen::MatrixXd Q = qr.householderQ() * Eigen::MatrixXd::Identity(nc, nc);
    const Eigen::MatrixXd inverse = block.completeOrthogonalDecomposition().pseudoInverse();
    for (Eigen::Index i = 0; i < nc; ++i) {
      for (Eigen::Index j = nr; j < nc; ++j) {
        if (Q(i, j) != 0.0) basis.emplace_back(C[i], k + static_cast<int>(j - nr), Q(i, j));
      }
      for (Eigen::Index j = 0; j < nr; ++j) {
        if (inverse(i, j) != 0.0) particular.emplace_back(C[i], R[j], inverse(i, j));
      }
    }
    k += static_cast<int>(nc - nr);
  }
  out.basis.resize(A.cols(), k);
  out.basis.setFromTriplets(basis.begin(), basis.end());
  out.particular.resize(A.cols(), A.rows());
  out.particular.setFromTriplets(particular.begin(), particular.end());
  return true;
}

// Entries of N' P N, P the pattern of the bodies' own couplings (3 x 3: the mass matrix and
// their weights) and of every force element's two bodies (6 x 6): the reduced Jacobian's pattern
// (the constraints' reactions vanish in the null space, N' Phi_q' = 0).
long reduced_pattern(const MultibodyModel& model, const Eigen::SparseMatrix<double>& N) {
  std::vector<Eigen::Triplet<double>> entries;
  auto couple = [&](int a, int b) {
    if (a < 0 || b < 0) return;
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) entries.emplace_back(3 * a + i, 3 * b + j, 1.0);
    }
  };
  for (int i = 0; i < static_cast<int>(model.bodies.size()); ++i) couple(i, i);
  for (const Force& f : model.forces) {
    couple(f.a, f.b);
    couple(f.b, f.a);
    couple(f.a, f.a);
    couple(f.b, f.b);
  }
  Eigen::SparseMatrix<double> P(model.nq(), model.nq());
  P.setFromTriplets(entries.begin(), entries.end());
  const Eigen::SparseMatrix<double> magnitude = N.cwiseAbs();
  const Eigen::SparseMatrix<double> reduced = magnitude.transpose() * P * magnitude;
  return static_cast<long>(reduced.nonZeros());
}

// Dense or sparse reduced equations ("linear_algebra", under "auto" by the size and the fill of
// the reduced Jacobian's pattern), into out.sparse and out.choice; "" or why the model is better
// integrated in absolute coordinates.
std::string choose_algebra(const Dynamics& d, Reduction& out) {
  using LinearAlgebra = MultibodyModel::LinearAlgebra;
  const long k = out.size();
  out.pattern_entries = reduced_pattern(d.model(), out.basis);
  std::ostringstream pattern;
  pattern << out.pattern_entries << " of " << k * k << " entries in the reduced Jacobian's pattern";
  switch (d.model().linear_algebra) {
    case LinearAlgebra::kDense:
      out.sparse = false;
      out.choice = "dense reduced equations (\"linear_algebra\": \"dense\")";
      return "";
    case LinearAlgebra::kSparse:
      out.sparse = true;
      out.choice =
          "sparse reduced equations (\"linear_algebra\": \"sparse\"; " + pattern.str() + ")";
      return "";
    case LinearAlgebra::kAuto:
      break;
  }
  std::ostringstream rule;
  rule << "auto: sparse from " << kSparseReducedFrom << " independent coordinates with at most "
       << 100 * kSparseReducedFill << " % of the entries, else dense up to " << kReducedUpTo;
  const double fill = static_cast<double>(out.pattern_entries) / static_cast<double>(k * k);
  out.sparse = k >= kSparseReducedFrom && fill <= kSparseReducedFill;
  if (out.sparse || k <= kReducedUpTo) {
    out.choice = std::string(out.sparse ? "sparse" : "dense") + " reduced equations (" +
                 pattern.str() + "; " + rule.str() + ")";
    return "";
  }
  return std::to_string(k) + " independent coordinates, " + pattern.str() +
         ": their dense equations lose to the sparse absolute ones (" + rule.str() + ")";
}

}  // namespace

Eigen::Index first_changed_row(const Eigen::MatrixXd& A, const Eigen::MatrixXd& J) {
  const double scale = 1e-12 * (1.0 + A.cwiseAbs().maxCoeff());
  for (Eigen::Index r = 0; r < A.rows(); ++r) {
    for (Eigen::Index c = 0; c < A.cols(); ++c) {
      if (!(std::abs(A(r, c) - J(r, c)) <= scale)) return r;
    }
  }
  return -1;
}

bool find_reduction(const Dynamics& d, Reduction& out, std::string& why) {
  const MultibodyModel& model = d.model();
  const int n = d.nq(), m = d.n_constraints();
  if (!model.reduce) {
    why = "\"coordinates\": \"absolute\"";
  } else if (!model.dynamic || model.variational.on) {
    why = "not integrated by CVODES";
  } else if (!model.beam_elements.empty()) {
    why = "beam elements";
  } else if (m == 0) {
    why = "no constraint equations";
  } else if (m >= n) {
    why = "no degree of freedom left by the joints";
  } else {
    try {
      why = constant_jacobian(d, out.jacobian);
    } catch (const std::exception& e) {
      why = std::string("the constraints' Jacobian away from the given pose: ") + e.what();
    }
  }
  if (!why.empty()) return false;
  if (!block_basis(out)) {
    why = "dependent constraint equations";
    return false;
  }
  why = choose_algebra(d, out);
  return why.empty();
}

std::string reduction_summary(const Dynamics& d, const Reduction* r, const std::string& why) {
  std::ostringstream s;
  s << "multibody: " << d.nq() << " coordinates, ";
  if (r) {
    s << d.n_constraints() << " linear constraint equations eliminated, integrating "
      << 2 * r->size() << " states (" << r->size() << " independent coordinates and their rates; "
      << r->choice << ")";
  } else {
    s << d.n_constraints() << " constraint equations, integrating " << 2 * d.nq()
      << " states in absolute coordinates (" << why << ")";
  }
  return s.str();
}

}  // namespace sao::sim::multibody
