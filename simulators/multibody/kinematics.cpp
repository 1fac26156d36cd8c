#include "simulators/multibody/kinematics.hpp"

#include <Eigen/SparseCholesky>
#include <algorithm>
#include <set>
#include <sstream>

namespace sao::sim::multibody {
namespace {

// The smallest pivot over the largest a factorisation must keep to count as regular (the
// dense LU's limit in `regular`).
constexpr double kPivotRatio = 1e-13;

// J J' of a sparse J (m x n) factored by a sparse LDL': the least-norm steps on the sparse path.
class SparseGram {
 public:
  // False when J J' is not positive definite or its pivots spread over more than 1 / kPivotRatio.
  bool factor(const Eigen::SparseMatrix<double>& J) {
    gram_ = J * J.transpose();
    ldlt_.compute(gram_);
    if (ldlt_.info() != Eigen::Success) return false;
    const Eigen::VectorXd& d = ldlt_.vectorD();
    return d.size() == 0 || (d.minCoeff() > 0.0 && d.minCoeff() > kPivotRatio * d.maxCoeff());
  }
  template <class Rhs>
  Eigen::MatrixXd solve(const Rhs& b) const {
    return ldlt_.solve(b);
  }

 private:
  Eigen::SparseMatrix<double> gram_;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt_;
};

// A sparse LU of `matrix` (merged into `lu`'s pattern: a copy is factored); false when singular.
bool sparse_lu(const Eigen::SparseMatrix<double>& matrix, SparseFactor& lu) {
  Eigen::SparseMatrix<double> merged = matrix;
  return lu.factor(merged) && lu.pivot_ratio() > kPivotRatio;
}

}  // namespace

bool regular(const Eigen::PartialPivLU<Eigen::MatrixXd>& lu) {
  const Eigen::VectorXd pivots = lu.matrixLU().diagonal().cwiseAbs();
  if (pivots.size() == 0) return true;
  return lu.rcond() > 1e-13 && pivots.minCoeff() > 1e-13 * pivots.maxCoeff();
}

template <class S>
bool solve(const Mat<S>& A, const Vec<S>& b, Vec<S>& x, bool sparse) {
  Eigen::MatrixXd Av(A.rows(), A.cols());
  Eigen::VectorXd bv(b.size());
  for (Eigen::Index i = 0; i < A.rows(); ++i) {
    for (Eigen::Index j = 0; j < A.cols(); ++j) Av(i, j) = value_of(A(i, j));
    bv(i) = value_of(b(i));
  }
  Eigen::PartialPivLU<Eigen::MatrixXd> lu;
  SparseFactor factor;
  if (sparse) {
    if (!sparse_lu(Av.sparseView(1.0, 0.0), factor)) return false;  // every nonzero
  } else {
    lu.compute(Av);
    if (!regular(lu)) return false;
  }
  const Eigen::VectorXd xv =
      sparse ? Eigen::VectorXd(factor.solve(bv)) : Eigen::VectorXd(lu.solve(bv));
  if constexpr (std::is_same_v<S, double>) {
    x = xv;
  } else {
    Eigen::Index size = 0;
    for (Eigen::Index i = 0; i < b.size(); ++i) size = std::max(size, b(i).derivatives().size());
    for (Eigen::Index i = 0; i < A.size(); ++i) size = std::max(size, A(i).derivatives().size());
    auto d = [size](const AD& a, Eigen::Index k) {
      return a.derivatives().size() == size ? a.derivatives()(k) : 0.0;
    };
    Eigen::MatrixXd dx(xv.size(), size);
    for (Eigen::Index k = 0; k < size; ++k) {
      Eigen::VectorXd r(bv.size());
      for (Eigen::Index i = 0; i < A.rows(); ++i) {
        r(i) = d(b(i), k);
        for (Eigen::Index j = 0; j < A.cols(); ++j) r(i) -= d(A(i, j), k) * xv(j);
      }
      if (sparse) {
        dx.col(k) = factor.solve(r);
      } else {
        dx.col(k) = lu.solve(r);
      }
    }
    x.resize(xv.size());
    for (Eigen::Index i = 0; i < xv.size(); ++i) x(i) = AD(xv(i), dx.row(i).transpose());
  }
  return true;
}

template <class S>
bool least_norm(const Mat<S>& J, const Vec<S>& b, Vec<S>& x, bool sparse) {
  const Eigen::Index m = J.rows(), n = J.cols();
  Eigen::MatrixXd values(m, n);
  Eigen::VectorXd bv(m);
  for (Eigen::Index j = 0; j < n; ++j) {
    for (Eigen::Index i = 0; i < m; ++i) values(i, j) = value_of(J(i, j));
  }
  for (Eigen::Index i = 0; i < m; ++i) bv(i) = value_of(b(i));
  Eigen::PartialPivLU<Eigen::MatrixXd> lu;
  SparseGram gram;
  Eigen::SparseMatrix<double> sparse_values;
  if (sparse) {
    sparse_values = values.sparseView(1.0, 0.0);  // every nonzero
    if (!gram.factor(sparse_values)) return false;
  } else {
    lu.compute(values * values.transpose());
    if (!regular(lu)) return false;
  }
  Eigen::VectorXd y, xv;
  if (sparse) {
    y = gram.solve(bv);
    xv = sparse_values.transpose() * y;
  } else {
    y = lu.solve(bv);
    xv = values.transpose() * y;
  }
  if constexpr (std::is_same_v<S, double>) {
    x = xv;
  } else {
    Eigen::Index size = 0;
    for (Eigen::Index i = 0; i < J.size(); ++i) size = std::max(size, J(i).derivatives().size());
    for (Eigen::Index i = 0; i < m; ++i) size = std::max(size, b(i).derivatives().size());
    auto d = [size](const S& v, Eigen::Index k) {
      return v.derivatives().size() == size ? v.derivatives()(k) : 0.0;  // else a constant
    };
    // Per direction k, with dJ and db its derivatives: J J' dy = db - dJ x - J (dJ' y), then
    // dx = dJ' y + J' dy (the right-hand sides first, one solve for all of them).
    Eigen::MatrixXd dJ(m, n), dx(n, size), r(m, size);
    for (Eigen::Index k = 0; k < size; ++k) {
      for (Eigen::Index j = 0; j < n; ++j) {
        for (Eigen::Index i = 0; i < m; ++i) dJ(i, j) = d(J(i, j), k);
      }
      dx.col(k).noalias() = dJ.transpose() * y;
      for (Eigen::Index i = 0; i < m; ++i) r(i, k) = d(b(i), k);
      r.col(k).noalias() -= dJ * xv;
      if (sparse) {
        r.col(k) -= sparse_values * dx.col(k);
      } else {
        r.col(k).noalias() -= values * dx.col(k);
      }
    }
    if (sparse) {
      dx += sparse_values.transpose() * gram.solve(r);
    } else {
      dx.noalias() += values.transpose() * lu.solve(r);
    }
    x.resize(n);
    for (Eigen::Index i = 0; i < n; ++i) x(i) = S(xv(i), dx.row(i).transpose());
  }
  return true;
}

void Kinematics::sparse_phi_pattern(SparsePhi& phi_q) const {
  std::vector<Eigen::Triplet<double>> entries;
  int row = 0;
  for (const Joint& j : model_.joints) {  // in joint_entries' order
    for (int k = 0; k < j.equations(); ++k) {
      for_each_column(j.a, j.b, [&](int, int col) { entries.emplace_back(row + k, col, 0.0); });
    }
    row += j.equations();
  }
  Eigen::SparseMatrix<double>& a = phi_q.matrix;
  a.resize(n_constraints(), nq());
  a.setFromTriplets(entries.begin(), entries.end());  // sorted within each column
  a.makeCompressed();
  phi_q.slot.clear();
  for (const Eigen::Triplet<double>& e : entries) {
    const int* first = a.innerIndexPtr() + a.outerIndexPtr()[e.col()];
    const int* last = a.innerIndexPtr() + a.outerIndexPtr()[e.col() + 1];
    phi_q.slot.push_back(
        static_cast<int>(std::lower_bound(first, last, e.row()) - a.innerIndexPtr()));
  }
}

template <class S, class PhiQ>
void Kinematics::constraints(const S* q, const S* qd, const Env<S>& env, Vec<S>& phi, PhiQ& phi_q,
                             Vec<S>& phi_t, Vec<S>& gamma) const {
  const int m = n_constraints();
  phi.resize(m);
  phi_t.resize(m);
  gamma.resize(m);
  joint_rows(q, qd, env, phi_q, [&](int row, const Joint&, const JointTerms<S>& terms, int k) {
    phi(row) = terms.phi[k];
    phi_t(row) = terms.phi_t[k];
    gamma(row) = terms.gamma[k];
  });
}

template <class S>
void Kinematics::mass_and_forces(const S* q, const S* qd, const Env<S>& env, Vec<S>& mass,
                                 Vec<S>& Q, std::vector<Coupling<S>>* coupled) const {
  mass.resize(nq());
  Q = Vec<S>::Constant(nq(), C<S>(0.0));
  S m[3], weight[2], fa[3], fb[3];
  for (size_t i = 0; i < model_.bodies.size(); ++i) {
    body_terms(model_.bodies[i], model_.gx, model_.gy, env, m, weight);
    for (int c = 0; c < 3; ++c) mass(3 * i + c) = m[c];
    Q(3 * i) += weight[0];
    Q(3 * i + 1) += weight[1];
  }
  for (const Force& f : model_.forces) {
    force_terms(f, q, qd, env, fa, fb);
    for_each_column(f.a, f.b,
                    [&](int local, int col) { Q(col) += local < 3 ? fa[local] : fb[local - 3]; });
  }
  if (coupled) coupled->clear();
  for (const BeamElement& e : model_.beam_elements) {
    beam_forces(e, model_.gx, model_.gy, q, qd, env, fa, fb);
    S own, coupling, rotary;
    beam_mass(e, env, own, coupling, rotary);
    for (int c = 0; c < 3; ++c) {
      Q(3 * e.a + c) += fa[c];
      Q(3 * e.b + c) += fb[c];
      const S& diagonal = c < 2 ? own : rotary;
      mass(3 * e.a + c) += diagonal;
      mass(3 * e.b + c) += diagonal;
    }
    if (coupled) {
      for (int c = 0; c < 2; ++c) {
        const int i = 3 * e.a + c, j = 3 * e.b + c;
        coupled->push_back({std::min(i, j), std::max(i, j), coupling});
      }
    }
  }
}

template <class S, class PhiQ>
S Kinematics::reaction(int joint, int component, const PhiQ& phi_q, const Vec<S>& lambda) const {
  int row = 0;
  for (int i = 0; i < joint; ++i) row += model_.joints[i].equations();
  const Joint& j = model_.joints[joint];
  const int on = j.b >= 0 ? j.b : j.a;
  S r = C<S>(0.0);
  if (on < 0) return r;
  // The rows of the relative angle (or of a driven angle) carry the torque.
  int angle_row = -1;
  switch (j.kind) {
    case JointKind::kTranslational:
    case JointKind::kAngleDriver:
      angle_row = row;
      break;
    case JointKind::kFixed:
      angle_row = row + 2;
      break;
    case JointKind::kDriver:
      if (j.coordinate == 2) angle_row = row;
      break;
    case JointKind::kRevolute:
    case JointKind::kTranslationalDriver:
      break;
  }
  if (component == 2) {
    if (angle_row >= 0) r -= phi_q.coeff(angle_row, 3 * on + 2) * lambda(angle_row);
    return r;
  }
  for (int k = row; k < row + j.equations(); ++k) {
    if (k != angle_row) r -= phi_q.coeff(k, 3 * on + component) * lambda(k);
  }
  return r;
}

template <class S>
std::vector<S> Kinematics::integrand_symbols(const Env<S>& env, const S* x) const {
  const int n = nq();
  std::vector<S> all = env.symbols;
  for (size_t b = 0; b < model_.bodies.size(); ++b) {
    for (size_t c = 0; c < 3; ++c) all.push_back(x[3 * b + c]);
    for (size_t c = 0; c < 3; ++c) all.push_back(x[n + 3 * b + c]);
  }
  return all;
}

template <class S>
bool Kinematics::kinematic_point(double t, const Eigen::VectorXd& q_solved, const S* p,
                                 const LoadCaseSpec& lc, KinematicState<S>& out) const {
  const int n = nq();
  // q: the solved positions, and for AD scalars one Newton step from them, which carries
  // dq/dp = -Phi_q^-1 Phi_p (the residual is zero there).
  Vec<S> q(n), zero = Vec<S>::Constant(n, C<S>(0.0));
  for (int i = 0; i < n; ++i) q(i) = C<S>(q_solved(i));
  const Env<S> v = vars(p, t, lc);
  Vec<S> phi, phi_t, gamma;
  Mat<S> phi_q;
  constraints(q.data(), zero.data(), v, phi, phi_q, phi_t, gamma);
  if constexpr (!std::is_same_v<S, double>) {
    Vec<S> dq;
    if (!solve(phi_q, phi, dq)) return false;
    q -= dq;
    constraints(q.data(), zero.data(), v, phi, phi_q, phi_t, gamma);
  }
  // Velocities: Phi_q q' = -Phi_t; accelerations: Phi_q q'' = gamma(q, q').
  Vec<S> qd, qdd;
  if (!solve(phi_q, Vec<S>(-phi_t), qd)) return false;
  constraints(q.data(), qd.data(), v, phi, phi_q, phi_t, gamma);
  if (!solve(phi_q, gamma, qdd)) return false;
  // Inverse dynamics: Phi_q' lambda = Q - M q''.
  Vec<S> mass, Q;
  mass_and_forces(q.data(), qd.data(), v, mass, Q);
  const Vec<S> residual = Q - Vec<S>(mass.cwiseProduct(qdd));
  Vec<S> lambda;
  if (!solve(Mat<S>(phi_q.transpose()), residual, lambda)) return false;
  out.values = history_values(q, qd, qdd, lambda, phi_q, v);
  out.q = q;
  out.qd = qd;
  out.qdd = qdd;
  out.lambda = lambda;
  out.phi_q = phi_q;
  return true;
}

bool Kinematics::sparse_kinematic_point(double t, const Eigen::VectorXd& q, const double* p,
                                        const LoadCaseSpec& lc, SparseKinematics& kept,
                                        KinematicState<double>& out) const {
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(nq());
  const Env<double> v = vars(p, t, lc);
  Vec<double> phi, phi_t, gamma;
  constraints(q.data(), zero.data(), v, phi, kept.phi_q, phi_t, gamma);
  if (!sparse_lu(kept.phi_q.matrix, kept.lu)) return false;
  // Phi_q depends on q alone: one factorisation for q', q'' and (transposed) lambda.
  out.qd = kept.lu.solve(Eigen::VectorXd(-phi_t));
  constraints(q.data(), out.qd.data(), v, phi, kept.phi_q, phi_t, gamma);
  out.qdd = kept.lu.solve(gamma);
  Vec<double> mass, Q;
  mass_and_forces(q.data(), out.qd.data(), v, mass, Q);
  out.lambda = kept.lu.solve(Eigen::VectorXd(Q - mass.cwiseProduct(out.qdd)), true);
  out.q = q;
  out.phi_q.resize(0, 0);
  out.values = history_values(out.q, out.qd, out.qdd, out.lambda, kept.phi_q.matrix, v);
  return true;
}

template <class S, class PhiQ>
Vec<S> Kinematics::history_values(const Vec<S>& q, const Vec<S>& qd, const Vec<S>& qdd,
                                  const Vec<S>& lambda, const PhiQ& phi_q, const Env<S>& v) const {
  Vec<S> values(static_cast<Eigen::Index>(model_.history_names.size()));
  const int nb = static_cast<int>(model_.bodies.size());
  for (int b = 0; b < nb; ++b) {
    for (int c = 0; c < 3; ++c) {
      values(9 * b + c) = q(3 * b + c);
      values(9 * b + 3 + c) = qd(3 * b + c);
      values(9 * b + 6 + c) = qdd(3 * b + c);
    }
  }
  int k = 9 * nb;
  for (const Force& f : model_.forces) {
    if (f.kind != ForceKind::kSpringDamper) continue;
    S length, velocity, tension, ux, uy;
    spring_state(f, q.data(), qd.data(), v, length, velocity, tension, ux, uy);
    values(k++) = length;
    values(k++) = velocity;
    values(k++) = tension;
  }
  for (int j = 0; j < static_cast<int>(model_.joints.size()); ++j) {
    for (int c = 0; c < 3; ++c) values(k++) = reaction<S>(j, c, phi_q, lambda);
  }
  for (const Marker& mk : model_.markers) {
    for (int c = 0; c < 6; ++c) values(k++) = marker(mk, c, q.data(), qd.data(), qdd.data(), v);
  }
  for (const Beam& beam : model_.beams) {
    for (int w = 0; w < beam_output_kinds(beam); ++w) {
      for (int node = 0; node <= beam.elements; ++node) {
        values(k++) =
            beam_output(model_, beam, static_cast<BeamOutput>(w), node, q.data(), qd.data(), v);
      }
    }
  }
  return values;
}

std::string Kinematics::row_owner(Eigen::Index row) const {
  int first = 0;
  for (const Joint& j : model_.joints) {
    if (row < first + j.equations()) return "joint " + j.name;
    first += j.equations();
  }
  return "initial condition " + std::to_string(row - first + 1);
}

std::string Kinematics::worst_joint(const Eigen::VectorXd& phi) const {
  Eigen::Index worst = 0;
  phi.cwiseAbs().maxCoeff(&worst);
  return row_owner(worst);
}

std::string Kinematics::dependent_rows(const Eigen::MatrixXd& J) const {
  const Eigen::Index m = J.rows();
  if (m == 0) return "";
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(J.transpose());
  qr.setThreshold(1e-10);
  if (qr.rank() == m) return "";
  std::set<std::string> owners;
  for (Eigen::Index k = qr.rank(); k < m; ++k) {
    owners.insert(row_owner(qr.colsPermutation().indices()(k)));
  }
  std::string out = "the equations of ";
  for (auto it = owners.begin(); it != owners.end(); ++it) {
    out += (it == owners.begin() ? "" : ", ") + *it;
  }
  return out + " depend on the other joints' (lock-up or a redundant joint)";
}

bool Kinematics::sparse_newton_step(const Eigen::VectorXd& phi, SparseKinematics& kept,
                                    Eigen::VectorXd& step) const {
  const int n = nq(), m = n_constraints();
  const auto rows = phi.size();
  Eigen::SparseMatrix<double> fixed;  // Phi_q with the initial conditions' rows
  if (rows > m) {
    std::vector<Eigen::Triplet<double>> entries;
    const Eigen::SparseMatrix<double>& a = kept.phi_q.matrix;
    for (Eigen::Index j = 0; j < a.outerSize(); ++j) {
      for (Eigen::SparseMatrix<double>::InnerIterator it(a, j); it; ++it) {
        entries.emplace_back(it.row(), it.col(), it.value());
      }
    }
    for (Eigen::Index k = m; k < rows; ++k) {
      const InitialCondition& ic = model_.initial_conditions[k - m];
      entries.emplace_back(k, 3 * ic.body + ic.coordinate, 1.0);
    }
    fixed.resize(rows, n);
    fixed.setFromTriplets(entries.begin(), entries.end());
  }
  const Eigen::SparseMatrix<double>& J = rows > m ? fixed : kept.phi_q.matrix;
  if (rows == n) {
    if (!sparse_lu(J, kept.lu)) return false;
    step = kept.lu.solve(phi);
    return true;
  }
  SparseGram gram;  // fewer equations than coordinates: the smallest correction
  if (!gram.factor(J)) return false;
  step = J.transpose() * gram.solve(phi);
  return true;
}

std::string Kinematics::assemble(double t, const double* p, const LoadCaseSpec& lc,
                                 Eigen::VectorXd& q, bool initial_conditions, int* iterations,
                                 SparseKinematics* kept) const {
  const int n = nq();
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
  const Env<double> v = vars(p, t, lc);
  const bool sparse_path = sparse();
  SparseKinematics local;
  SparseKinematics& work = kept ? *kept : local;
  auto singular = [&](const Eigen::VectorXd& phi) {
    std::ostringstream why;
    why << "singular constraint Jacobian at t = " << t << " (lock-up or a redundant joint; "
        << worst_joint(phi) << " has the largest residual)";
    return why.str();
  };
  for (int it = 0; it < 50; ++it) {
    Eigen::VectorXd phi, phi_t, gamma;
    Eigen::MatrixXd phi_q;
    if (sparse_path) {
      constraints(q.data(), zero.data(), v, phi, work.phi_q, phi_t, gamma);
    } else {
      constraints(q.data(), zero.data(), v, phi, phi_q, phi_t, gamma);
    }
    if (initial_conditions) {
      const int m = static_cast<int>(phi.size());
      const int c = static_cast<int>(model_.initial_conditions.size());
      phi.conservativeResize(m + c);
      if (!sparse_path) {
        phi_q.conservativeResize(m + c, n);
        phi_q.bottomRows(c).setZero();
      }
      for (int k = 0; k < c; ++k) {
        const InitialCondition& ic = model_.initial_conditions[k];
        phi(m + k) = q(3 * ic.body + ic.coordinate) - ic.value.at(v);
        if (!sparse_path) phi_q(m + k, 3 * ic.body + ic.coordinate) = 1.0;
      }
    }
    if (iterations) *iterations = it;
    if (phi.size() == 0) return "";  // free bodies: nothing to assemble
    if (phi.cwiseAbs().maxCoeff() <= 1e-10 * (1.0 + q.cwiseAbs().maxCoeff())) return "";
    Eigen::VectorXd step;
    if (sparse_path) {
      if (!sparse_newton_step(phi, work, step)) return singular(phi);
    } else if (phi_q.rows() == n) {
      const Eigen::PartialPivLU<Eigen::MatrixXd> lu(phi_q);
      if (!regular(lu)) return singular(phi);
      step = lu.solve(phi);
    } else {  // fewer equations than coordinates: the smallest correction
      const Eigen::MatrixXd g = phi_q * phi_q.transpose();
      const Eigen::LDLT<Eigen::MatrixXd> ldlt(g);
      step = phi_q.transpose() * ldlt.solve(phi);
    }
    q -= step;
    if (!q.allFinite()) break;
  }
  std::ostringstream why;
  why << "the position equations do not converge at t = " << t
      << " (no assembly: the mechanism cannot reach this configuration)";
  return why.str();
}

std::string Kinematics::kinematic_sensitivities(double t, int point, const Eigen::VectorXd& p,
                                                const LoadCaseSpec& lc,
                                                const KinematicRequest& request,
                                                const KinematicState<double>& solved,
                                                SparseKinematics& kept) const {
  std::vector<size_t> here;  // the wanted values at this grid point
  for (size_t f = 0; f < request.wanted->size(); ++f) {
    if ((*request.wanted)[f].point == point) here.push_back(f);
  }
  if (here.empty()) return "";
  if (sparse()) {
    sparse_sensitivities(t, here, p, lc, request, solved, kept);
    return "";
  }
  const Eigen::VectorXd& q = solved.q;
  const std::vector<int>& active = *request.active;
  const auto na = static_cast<Eigen::Index>(active.size());
  const int n = nq(), m = n_constraints();
  const std::string singular =
      "singular kinematic sensitivity equations at t = " + std::to_string(t) + " (lock-up)";
  // Seeds: unit derivatives in the active parameters, after `offset` other seeds.
  auto seeded_parameters = [&](Eigen::Index size, Eigen::Index offset) {
    std::vector<AD> ps(static_cast<size_t>(p.size()));
    for (Eigen::Index i = 0; i < p.size(); ++i) ps[i] = AD(p(i), Eigen::VectorXd::Zero(size));
    for (Eigen::Index a = 0; a < na; ++a) ps[active[a]].derivatives()(offset + a) = 1.0;
    return ps;
  };
  if (!request.adjoint) {
    // Direct: the kinematic equations solved in AD scalars seeded on the parameters.
    ad_size = na;
    const std::vector<AD> ps = seeded_parameters(na, 0);
    KinematicState<AD> state;
    if (!kinematic_point(t, q, ps.data(), lc, state)) return singular;
    for (size_t f : here) {
      const AD& value = state.values((*request.wanted)[f].output);
      if (value.derivatives().size() == na) {
        request.rows->row(static_cast<Eigen::Index>(f)) = value.derivatives().transpose();
      }
    }
    return "";
  }
  // Adjoint (seed 003, 4.15-4.33): the chain of implicit levels q (Phi = 0), q' (Phi_q q' +
  // Phi_t = 0), q'' (Phi_q q'' - gamma = 0), lambda (Phi_q' lambda - Q + M q'' = 0), each
  // with Phi_q (or its transpose) as Jacobian in its own unknown. One AD pass gives every
  // residual's and output's partial derivatives in z = (q, q', q'', lambda, p_active); per
  // wanted value the levels are then eliminated backwards with one adjoint solve each.
  const Eigen::Index nz = 3 * n + m + na;
  ad_size = nz;
  auto seeded = [&](const Eigen::VectorXd& x, Eigen::Index offset) {
    Vec<AD> out(x.size());
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      out(i) = AD(x(i), Eigen::VectorXd::Unit(nz, offset + i));
    }
    return out;
  };
  const Vec<AD> qa = seeded(solved.q, 0), qda = seeded(solved.qd, n),
                qdda = seeded(solved.qdd, 2 * n), la = seeded(solved.lambda, 3 * n);
  const std::vector<AD> pa = seeded_parameters(nz, 3 * n + m);
  Vec<AD> phi, phi_t, gamma;
  Mat<AD> phi_q;
  const Env<AD> v = vars(pa.data(), t, lc);
  constraints(qa.data(), qda.data(), v, phi, phi_q, phi_t, gamma);
  const Vec<AD> r_v = phi_q * qda + phi_t;
  const Vec<AD> r_a = phi_q * qdda - gamma;
  Vec<AD> mass, Q;
  mass_and_forces(qa.data(), qda.data(), v, mass, Q);
  const Vec<AD> r_l = Vec<AD>(phi_q.transpose() * la) - Q + Vec<AD>(mass.cwiseProduct(qdda));
  const Vec<AD> g = history_values(qa, qda, qdda, la, phi_q, v);
  auto jacobian = [&](const Vec<AD>& r) {
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(r.size(), nz);
    for (Eigen::Index i = 0; i < r.size(); ++i) {
      if (r(i).derivatives().size() == nz) J.row(i) = r(i).derivatives().transpose();
    }
    return J;
  };
  const Eigen::MatrixXd J_l = jacobian(r_l), J_a = jacobian(r_a), J_v = jacobian(r_v),
                        J_p = jacobian(phi);
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(solved.phi_q);
  if (!regular(lu)) return singular;
  for (size_t f : here) {
    Eigen::RowVectorXd gz = jacobian(Vec<AD>::Constant(1, g((*request.wanted)[f].output))).row(0);
    // lambda level: its Jacobian in lambda is Phi_q', so the adjoint solve is with Phi_q.
    const Eigen::VectorXd mu_l = lu.solve(Eigen::VectorXd(gz.segment(3 * n, m).transpose()));
    gz -= mu_l.transpose() * J_l;
    // q'', q' and q levels: Jacobians Phi_q in their unknown, adjoint solves with Phi_q'.
    const std::pair<const Eigen::MatrixXd*, int> levels[] = {{&J_a, 2 * n}, {&J_v, n}, {&J_p, 0}};
    for (const auto& [J, offset] : levels) {
      const Eigen::VectorXd mu =
          lu.transpose().solve(Eigen::VectorXd(gz.segment(offset, n).transpose()));
      gz -= mu.transpose() * *J;
    }
    request.rows->row(static_cast<Eigen::Index>(f)) = gz.tail(na);
  }
  return "";
}

std::string Kinematics::analyse(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                const KinematicRequest* request, CaseResult& out) const {
  const int n = nq(), nb = static_cast<int>(model_.bodies.size()), points = lc.grid.points;
  Eigen::VectorXd q(n);
  {
    const Env<double> v = vars(p.data(), lc.grid.start, lc);
    for (int i = 0; i < nb; ++i) {
      q(3 * i) = model_.bodies[i].x.at(v);
      q(3 * i + 1) = model_.bodies[i].y.at(v);
      q(3 * i + 2) = model_.bodies[i].angle.at(v);
    }
  }
  const auto nh = static_cast<Eigen::Index>(model_.history_names.size());
  Eigen::MatrixXd values(points, nh);
  const bool sparse_path = sparse();
  SparseKinematics kept;  // the sparse path's Phi_q and LU: one symbolic analysis
  for (int k = 0; k < points; ++k) {
    const double t = lc.grid.at(k);
    const std::string failure = assemble(t, p.data(), lc, q, false, nullptr, &kept);
    if (!failure.empty()) return failure;
    KinematicState<double> state;
    if (!(sparse_path ? sparse_kinematic_point(t, q, p.data(), lc, kept, state)
                      : kinematic_point(t, q, p.data(), lc, state))) {
      return "singular velocity, acceleration or reaction equations at t = " + std::to_string(t);
    }
    values.row(k) = state.values.transpose();
    if (request) {
      const std::string why = kinematic_sensitivities(t, k, p, lc, *request, state, kept);
      if (!why.empty()) return why;
    }
  }
  for (Eigen::Index h = 0; h < nh; ++h) out.histories[model_.history_names[h]] = values.col(h);
  return "";
}

bool Kinematics::sparse() const {
  using LinearAlgebra = MultibodyModel::LinearAlgebra;
  switch (model_.linear_algebra) {
    case LinearAlgebra::kDense:
      return false;
    case LinearAlgebra::kSparse:
      return true;
    case LinearAlgebra::kAuto:
      break;
  }
  return nq() + n_constraints() >= (model_.beam_elements.empty() ? kSparseFrom : kSparseFromBeams);
}

std::string Kinematics::linear_algebra_summary() const {
  std::ostringstream s;
  s << "multibody: " << (sparse() ? "sparse" : "dense") << " linear algebra ("
    << nq() + n_constraints()
    << (model_.dynamic ? " unknowns in the augmented system; "
                       : " unknowns in the kinematic equations (coordinates and constraints); ");
  if (model_.linear_algebra == MultibodyModel::LinearAlgebra::kAuto) {
    s << "auto: sparse from " << (model_.beam_elements.empty() ? kSparseFrom : kSparseFromBeams)
      << (model_.beam_elements.empty() ? ")" : " with beam elements)");
  } else {
    s << "\"linear_algebra\" set)";
  }
  return s.str();
}

template bool solve<double>(const Mat<double>&, const Vec<double>&, Vec<double>&, bool);
template bool solve<AD>(const Mat<AD>&, const Vec<AD>&, Vec<AD>&, bool);
template bool least_norm<double>(const Mat<double>&, const Vec<double>&, Vec<double>&, bool);
template bool least_norm<AD>(const Mat<AD>&, const Vec<AD>&, Vec<AD>&, bool);

#define SAO_MULTIBODY_KINEMATICS(S, PhiQ)                                                          \
  template void Kinematics::constraints<S, PhiQ>(const S*, const S*, const Env<S>&, Vec<S>&,       \
                                                 PhiQ&, Vec<S>&, Vec<S>&) const;                   \
  template S Kinematics::reaction<S, PhiQ>(int, int, const PhiQ&, const Vec<S>&) const;            \
  template Vec<S> Kinematics::history_values<S, PhiQ>(const Vec<S>&, const Vec<S>&, const Vec<S>&, \
                                                      const Vec<S>&, const PhiQ&, const Env<S>&)   \
      const;
SAO_MULTIBODY_KINEMATICS(double, Mat<double>)
SAO_MULTIBODY_KINEMATICS(AD, Mat<AD>)
#undef SAO_MULTIBODY_KINEMATICS
template void Kinematics::constraints<double, SparsePhi>(const double*, const double*,
                                                         const Env<double>&, Vec<double>&,
                                                         SparsePhi&, Vec<double>&,
                                                         Vec<double>&) const;
template double Kinematics::reaction<double, Eigen::SparseMatrix<double>>(
    int, int, const Eigen::SparseMatrix<double>&, const Vec<double>&) const;
template AD Kinematics::reaction<AD, JointPhiQ>(int, int, const JointPhiQ&, const Vec<AD>&) const;
template Vec<double> Kinematics::history_values<double, Eigen::SparseMatrix<double>>(
    const Vec<double>&, const Vec<double>&, const Vec<double>&, const Vec<double>&,
    const Eigen::SparseMatrix<double>&, const Env<double>&) const;
#define SAO_MULTIBODY_KINEMATICS_FORCES(S)                                                 \
  template void Kinematics::mass_and_forces<S>(const S*, const S*, const Env<S>&, Vec<S>&, \
                                               Vec<S>&, std::vector<Coupling<S>>*) const;  \
  template std::vector<S> Kinematics::integrand_symbols<S>(const Env<S>&, const S*) const;
SAO_MULTIBODY_KINEMATICS_FORCES(double)
SAO_MULTIBODY_KINEMATICS_FORCES(AD)
#undef SAO_MULTIBODY_KINEMATICS_FORCES

}  // namespace sao::sim::multibody
