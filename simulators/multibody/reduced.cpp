#include "simulators/multibody/reduced.hpp"

#include <Eigen/SparseCholesky>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sao::sim::multibody {
namespace {

// b, b' and b'' of A q = b(t, p): -Phi, -Phi_t and gamma at q = q' = 0, which for linear
// constraints are those of every pose.
template <class S>
void offsets(const Dynamics& d, const Env<S>& env, Vec<S>& b, Vec<S>& bt, Vec<S>& btt,
             Mat<S>& phi_q) {
  const Vec<S> zero = Vec<S>::Constant(d.nq(), C<S>(0.0));
  d.constraints(zero.data(), zero.data(), env, b, phi_q, bt, btt);
  b = -b;
  bt = -bt;
}

// N' M N for M's diagonal, factored: dense (Cholesky, regular when its condition estimate is
// above 1e-14) or sparse (LDL', regular when its pivots spread over less than 1e14). A run's
// masses depend on its parameters only: it is factored once per run.
class ReducedMass {
 public:
  bool same(const Vec<double>& mass) const {
    return mass.size() == factored_.size() && mass == factored_;
  }
  // False when N' M N is not positive definite.
  bool factor(const Reduction& r, const Vec<double>& mass) {
    factored_ = mass;
    sparse_ = r.sparse;
    if (sparse_) {
      matrix_ = r.basis.transpose() * mass.asDiagonal() * r.basis;
      sparse_ldlt_.compute(matrix_);
      const Eigen::VectorXd& d = sparse_ldlt_.vectorD();
      ok_ = sparse_ldlt_.info() == Eigen::Success && d.minCoeff() > 0.0 &&
            d.minCoeff() > 1e-14 * d.maxCoeff();
    } else {  // a dense product: no sparse one's allocations at every history point
      dense_.compute(r.basis.transpose() * (mass.asDiagonal() * Eigen::MatrixXd(r.basis)));
      ok_ = dense_.info() == Eigen::Success && dense_.rcond() > 1e-14;
    }
    return ok_;
  }
  bool ok() const { return ok_; }
  // (N' M N)^-1 B.
  template <class Rhs>
  Eigen::MatrixXd solve(const Rhs& b) const {
    if (sparse_) return sparse_ldlt_.solve(b);
    return dense_.solve(b);
  }
  void solve_in_place(Eigen::VectorXd& b) const {
    if (sparse_) {
      b = sparse_ldlt_.solve(b);
    } else {
      dense_.solveInPlace(b);
    }
  }
  // N' M N on the sparse path.
  const Eigen::SparseMatrix<double>& matrix() const { return matrix_; }

 private:
  Vec<double> factored_;
  bool sparse_ = false, ok_ = false;
  Eigen::SparseMatrix<double> matrix_;
  Eigen::LLT<Eigen::MatrixXd> dense_;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> sparse_ldlt_;
};

// A' [df/dx | df/dp_active] of the reduced equations, formed once per point.
class ReducedLinearization final : public OdeModel::Linearization {
 public:
  explicit ReducedLinearization(Eigen::MatrixXd jacobian) : jacobian_(std::move(jacobian)) {}
  void jacobian(Eigen::MatrixXd& out) const override { out = jacobian_; }
  void jacobian_times(const Eigen::MatrixXd& S, Eigen::MatrixXd& out) const override {
    sensitivity_rhs_from_jacobian(jacobian_, S, out);
  }
  void vector_jacobian(const double* lambda, Eigen::VectorXd& out) const override {
    out.noalias() =
        jacobian_.transpose() * Eigen::Map<const Eigen::VectorXd>(lambda, jacobian_.rows());
  }

 private:
  Eigen::MatrixXd jacobian_;
};

// The sparse path's linearisation: rho = d(N' (Q - M q''))/d(z, z', p_active) with q'' held, its
// state columns sparse (k x 2k: N' G_q N and N' G_v N) and its parameter columns dense (k x na),
// and N' M N's factor: f_x = [0 I; M_r^-1 rho_x] and f_p = [0; M_r^-1 rho_p] are formed only
// when CVODES asks for the dense Jacobian, never for the Newton matrices or the products.
class SparseReducedLinearization final : public OdeModel::Linearization {
 public:
  SparseReducedLinearization(Eigen::SparseMatrix<double> rho, Eigen::MatrixXd rho_p,
                             std::shared_ptr<const ReducedMass> mass)
      : k_(rho.rows()), rho_(std::move(rho)), rho_p_(std::move(rho_p)), mass_(std::move(mass)) {}
  void jacobian(Eigen::MatrixXd& out) const override {
    out.setZero(2 * k_, 2 * k_ + rho_p_.cols());
    out.block(0, k_, k_, k_).setIdentity();
    out.bottomLeftCorner(k_, 2 * k_) = mass_->solve(Eigen::MatrixXd(rho_));
    out.bottomRightCorner(k_, rho_p_.cols()) = mass_->solve(rho_p_);
  }
  // (S_v, M_r^-1 (rho_x S + rho_p)).
  void jacobian_times(const Eigen::MatrixXd& S, Eigen::MatrixXd& out) const override {
    Eigen::MatrixXd g = rho_p_;
    g.noalias() += rho_ * S;
    out.resize(2 * k_, S.cols());
    out.topRows(k_) = S.bottomRows(k_);
    out.bottomRows(k_) = mass_->solve(g);
  }
  // w = M_r^-1 lambda_v (M_r symmetric), then (rho_x' w + (0, lambda_z), rho_p' w).
  void vector_jacobian(const double* lambda, Eigen::VectorXd& out) const override {
    const Eigen::VectorXd w = mass_->solve(Eigen::Map<const Eigen::VectorXd>(lambda + k_, k_));
    out.resize(2 * k_ + rho_p_.cols());
    out.head(2 * k_).noalias() = rho_.transpose() * w;
    out.tail(rho_p_.cols()).noalias() = rho_p_.transpose() * w;
    out.segment(k_, k_) += Eigen::Map<const Eigen::VectorXd>(lambda, k_);
  }
  void block_vector_jacobian(const Eigen::Ref<const Eigen::MatrixXd>& lambda,
                             Eigen::MatrixXd& out) const override {
    const Eigen::MatrixXd w = mass_->solve(lambda.bottomRows(k_));
    out.resize(2 * k_ + rho_p_.cols(), lambda.cols());
    out.topRows(2 * k_).noalias() = rho_.transpose() * w;
    out.bottomRows(rho_p_.cols()).noalias() = rho_p_.transpose() * w;
    out.middleRows(k_, k_) += lambda.topRows(k_);
  }
  // The sparse bordered matrix
  //   [ I        -gamma I   0        ]
  //   [ 0         I        -gamma I  ]   of the unknowns (u, w, y), right-hand side (r1, r2, 0),
  //   [ -rho_z   -rho_v     M_r      ]
  // whose Schur complement onto (u, w) is I - gamma f_x (y = M_r^-1 rho_x (u, w)); 3k square,
  // every stored entry of rho and M_r kept, zero or not: the pattern holds over the run.
  bool newton_matrix(double gamma, Eigen::SparseMatrix<double>& out) const override {
    const Eigen::SparseMatrix<double>& mass = mass_->matrix();
    std::vector<Eigen::Triplet<double>> entries;
    entries.reserve(static_cast<size_t>(4 * k_ + rho_.nonZeros() + mass.nonZeros()));
    for (Eigen::Index i = 0; i < 2 * k_; ++i) entries.emplace_back(i, i, 1.0);
    for (Eigen::Index i = 0; i < k_; ++i) {
      entries.emplace_back(i, k_ + i, -gamma);
      entries.emplace_back(k_ + i, 2 * k_ + i, -gamma);
    }
    for (Eigen::Index c = 0; c < rho_.outerSize(); ++c) {
      for (Eigen::SparseMatrix<double>::InnerIterator it(rho_, c); it; ++it) {
        entries.emplace_back(2 * k_ + it.row(), c, -it.value());
      }
    }
    for (Eigen::Index c = 0; c < mass.outerSize(); ++c) {
      for (Eigen::SparseMatrix<double>::InnerIterator it(mass, c); it; ++it) {
        entries.emplace_back(2 * k_ + it.row(), 2 * k_ + c, it.value());
      }
    }
    out.resize(3 * k_, 3 * k_);
    out.setFromTriplets(entries.begin(), entries.end());
    return true;
  }

 private:
  Eigen::Index k_;
  Eigen::SparseMatrix<double> rho_;
  Eigen::MatrixXd rho_p_;
  std::shared_ptr<const ReducedMass> mass_;
};

// One run in independent coordinates: the absolute run's mass, forces and element-by-element
// derivatives at the full state, projected onto the null space of the constraints.
class ReducedRun final : public OdeModel::Instance {
 public:
  ReducedRun(const Dynamics& d, const Reduction& r, const Eigen::VectorXd& p,
             const LoadCaseSpec& lc, const std::vector<int>& active)
      : d_(d),
        r_(r),
        p_(p),
        lc_(lc),
        active_(active),
        n_(d.nq()),
        k_(r.size()),
        na_(static_cast<int>(active.size())),
        full_(d.run(p, lc, active)) {
    for (const Joint& j : d.model().joints) {
      for (int i : j.reads.parameters) {
        for (int a : active) moving_offsets_ = moving_offsets_ || a == i;
      }
    }
    // The absolute derivatives are projected onto N (and, when the offsets move with an active
    // parameter, onto A^+ db/dp): a coordinate whose row of N is zero needs none of its own.
    // Zero to rounding: a guide along pi/2 leaves cos(pi/2) = 6e-17 in its x row, whose
    // derivatives would add below the last bit of the projected sums.
    std::vector<bool> needed(n_, moving_offsets_);
    std::vector<Eigen::Triplet<double>> twice;  // blockdiag(N, N), for the sparse path
    for (Eigen::Index c = 0; c < r.basis.outerSize(); ++c) {
      for (Eigen::SparseMatrix<double>::InnerIterator it(r.basis, c); it; ++it) {
        needed[it.row()] = needed[it.row()] || std::abs(it.value()) > 1e-14;
        twice.emplace_back(it.row(), c, it.value());
        twice.emplace_back(n_ + it.row(), k_ + c, it.value());
      }
    }
    full_->restrict_coordinates(needed);
    if (r.sparse) {
      basis_twice_.resize(2 * n_, 2 * k_);
      basis_twice_.setFromTriplets(twice.begin(), twice.end());
    }
    x_.resize(2 * n_);
    Env<double>& env = full_->env();
    env.set_time(lc.grid.start);
    offsets(d_, env, b_, bt_, btt_, phi_q_);
    // The joints whose offsets move with t (drivers, expressions of t), evaluated at every
    // call; the others' offsets are those of t0.
    int row = 0;
    for (const Joint& j : d.model().joints) {
      const bool driver = j.kind == JointKind::kDriver || j.kind == JointKind::kAngleDriver ||
                          j.kind == JointKind::kTranslationalDriver;
      if (driver || j.reads.live) moving_.push_back({&j, row});
      row += j.equations();
    }
    zero_.assign(n_, 0.0);
    const Eigen::Index changed = first_changed_row(r.jacobian, phi_q_);
    if (changed >= 0) {
      throw std::runtime_error("multibody: the equations of " + d.row_owner(changed) +
                               " in load case \"" + lc.name +
                               "\" are not those the independent coordinates were built from; "
                               "set \"coordinates\": \"absolute\"");
    }
  }

  int rhs(double t, const double* xr, double* xdot) override {
    if (!accelerations(t, xr)) return 1;
    for (int i = 0; i < k_; ++i) {
      xdot[i] = xr[k_ + i];
      xdot[k_ + i] = zdd_(i);
    }
    return 0;
  }
  bool second_order() const override { return true; }
  // The Newton matrices sparse (SparseReducedLinearization::newton_matrix), on the sparse path.
  bool sparse() const override { return r_.sparse; }

  // d rho / d(z, z', p) with rho = N' (Q - M q'') at q'' held: dense, then M_r^-1 of it into the
  // dense Jacobian; or sparse (the sparse path), kept with M_r's factor.
  std::unique_ptr<OdeModel::Linearization> linearize(double t, const double* xr) override {
    if (!accelerations(t, xr)) {
      throw std::runtime_error(d_.singular_motion(t, x_.data(), p_.data(), lc_));
    }
    qdd_.noalias() = r_.basis * zdd_;
    qdd_ += ap_;
    const auto& N = r_.basis;
    if (r_.sparse) {
      full_->sparse_force_derivatives(t, x_.data(), qdd_, sparse_t_);
      Eigen::SparseMatrix<double> rho = N.transpose() * (sparse_t_.leftCols(2 * n_) * basis_twice_);
      return std::make_unique<SparseReducedLinearization>(
          std::move(rho), parameter_columns(t, sparse_t_), reduced_mass_);
    }
    const Eigen::MatrixXd T = full_->force_derivatives(t, x_.data(), qdd_).transpose();
    Eigen::MatrixXd rho(k_, 2 * k_ + na_);
    rho.leftCols(k_).noalias() = N.transpose() * (T.leftCols(n_) * N);
    rho.middleCols(k_, k_).noalias() = N.transpose() * (T.middleCols(n_, n_) * N);
    rho.rightCols(na_) = parameter_columns(t, T);
    Eigen::MatrixXd jacobian = Eigen::MatrixXd::Zero(2 * k_, 2 * k_ + na_);
    jacobian.block(0, k_, k_, k_).setIdentity();
    jacobian.bottomRows(k_) = reduced_mass_->solve(rho);
    return std::make_unique<ReducedLinearization>(std::move(jacobian));
  }

  void integrands(double t, const double* xr, double* g) override {
    to_full(t, xr);
    full_->integrands(t, x_.data(), g);
  }
  void integrand_jacobian(double t, const double* xr, Eigen::MatrixXd& jac) override {
    to_full(t, xr);
    Eigen::MatrixXd full;
    full_->integrand_jacobian(t, x_.data(), full);
    jac.resize(full.rows(), 2 * k_ + na_);
    jac.leftCols(k_).noalias() = full.leftCols(n_) * r_.basis;
    jac.middleCols(k_, k_).noalias() = full.middleCols(n_, n_) * r_.basis;
    if (na_ == 0) return;
    jac.rightCols(na_) = full.rightCols(na_);
    if (moving_offsets_) {
      offset_derivatives(t);
      jac.rightCols(na_).noalias() += full.leftCols(n_) * dq_;
      jac.rightCols(na_).noalias() += full.middleCols(n_, n_) * dv_;
    }
  }

 private:
  // x_ = (q, q') and A^+ b'' at (t, xr), into the run's storage; nothing to do when they are
  // those of the last call (CVODES asks for the right-hand side, then the linearisation and
  // the sensitivities' right-hand sides, at the same point).
  void to_full(double t, const double* xr) {
    Env<double>& env = full_->env();
    env.set_time(t);
    if (t == full_time_ && std::equal(xr, xr + 2 * k_, full_at_.begin())) return;
    accelerations_known_ = false;
    // The offsets depend on t only: CVODES asks for the right-hand side and the linearisation
    // (and the sensitivities' right-hand sides) at the same t.
    if (t != offsets_time_) {
      for (const auto& [joint, first] : moving_) {
        joint_terms(*joint, zero_.data(), zero_.data(), env, terms_);
        for (int r = 0; r < joint->equations(); ++r) {
          b_(first + r) = -terms_.phi[r];
          bt_(first + r) = -terms_.phi_t[r];
          btt_(first + r) = terms_.gamma[r];
        }
      }
      ap_.noalias() = r_.particular * btt_;
      offsets_time_ = t;
    }
    const Eigen::Map<const Eigen::VectorXd> z(xr, k_), zd(xr + k_, k_);
    x_.head(n_).noalias() = r_.particular * b_;
    x_.head(n_).noalias() += r_.basis * z;
    x_.tail(n_).noalias() = r_.particular * bt_;
    x_.tail(n_).noalias() += r_.basis * zd;
    full_time_ = t;
    full_at_.assign(xr, xr + 2 * k_);
  }
  // z'' at (t, xr) into zdd_; false when the reduced mass matrix is not positive definite.
  bool accelerations(double t, const double* xr) {
    to_full(t, xr);
    if (accelerations_known_) return reduced_mass_->ok();
    full_->mass_and_forces(t, x_.data(), x_.data() + n_, mass_, forces_);
    if (!reduced_mass_->same(mass_)) {  // N' M N, factored again only when M changes
      // A new factor when a linearisation still holds the old one.
      if (reduced_mass_.use_count() > 1) reduced_mass_ = std::make_shared<ReducedMass>();
      reduced_mass_->factor(r_, mass_);
    }
    if (!reduced_mass_->ok()) return false;
    forces_ -= mass_.cwiseProduct(ap_);
    zdd_.noalias() = r_.basis.transpose() * forces_;
    reduced_mass_->solve_in_place(zdd_);
    accelerations_known_ = true;
    return true;
  }
  // N' d(Q - M q'')/dp_active (k x na) from G = `forces` (n x (2n + na), dense or sparse): its
  // parameter columns and, when the offsets move with an active parameter, the state columns
  // times A^+ db/dp, A^+ db'/dp and -M A^+ db''/dp.
  template <class Forces>
  Eigen::MatrixXd parameter_columns(double t, const Forces& forces) {
    Eigen::MatrixXd gp = forces.rightCols(na_);
    if (na_ > 0 && moving_offsets_) {
      offset_derivatives(t);
      gp.noalias() += forces.leftCols(n_) * dq_;
      gp.noalias() += forces.middleCols(n_, n_) * dv_;
      gp.noalias() -= mass_.asDiagonal() * da_;
    }
    return r_.basis.transpose() * gp;
  }
  // A^+ db/dp, A^+ db'/dp, A^+ db''/dp at t for the active parameters (n x na each).
  void offset_derivatives(double t) {
    std::vector<AD> xs, ps;
    seed_ad(nullptr, 0, p_, active_, xs, ps);
    ad_size = na_;
    Vec<AD> b, bt, btt;
    Mat<AD> phi_q;
    offsets(d_, d_.vars(ps.data(), t, lc_), b, bt, btt, phi_q);
    auto derivatives = [&](const Vec<AD>& v) {
      Eigen::MatrixXd out = Eigen::MatrixXd::Zero(v.size(), na_);
      for (Eigen::Index i = 0; i < v.size(); ++i) {
        if (v(i).derivatives().size() == na_) out.row(i) = v(i).derivatives().transpose();
      }
      return Eigen::MatrixXd(r_.particular * out);
    };
    dq_ = derivatives(b);
    dv_ = derivatives(bt);
    da_ = derivatives(btt);
  }

  const Dynamics& d_;
  const Reduction& r_;
  Eigen::VectorXd p_;
  const LoadCaseSpec& lc_;
  std::vector<int> active_;
  int n_, k_, na_;
  bool moving_offsets_ = false;  // a joint reads an active parameter: b depends on it
  std::unique_ptr<AbsoluteRun> full_;
  Eigen::VectorXd x_, ap_, qdd_, zdd_;
  Vec<double> b_, bt_, btt_, mass_, forces_;
  Mat<double> phi_q_;
  std::vector<std::pair<const Joint*, int>> moving_;  // (joint, its first row)
  std::vector<double> zero_;
  JointTerms<double> terms_;
  double offsets_time_ = NAN;  // the t of b_, bt_, btt_
  double full_time_ = NAN;     // the (t, xr) of x_
  std::vector<double> full_at_;
  bool accelerations_known_ = false;  // mass_, forces_, zdd_ are those of x_
  std::shared_ptr<ReducedMass> reduced_mass_ = std::make_shared<ReducedMass>();
  Eigen::SparseMatrix<double> basis_twice_, sparse_t_;  // the sparse path's blockdiag(N, N), G
  Eigen::MatrixXd dq_, dv_, da_;
};

}  // namespace

template <class S>
void full_state(const Dynamics& d, const Reduction& r, double t, const S* xr, const S* p,
                const LoadCaseSpec& lc, S* x) {
  Vec<S> b, bt, btt;
  Mat<S> phi_q;
  offsets(d, d.vars(p, t, lc), b, bt, btt, phi_q);
  const int n = d.nq(), k = r.size();
  std::fill(x, x + 2 * n, C<S>(0.0));
  for (Eigen::Index j = 0; j < r.particular.outerSize(); ++j) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(r.particular, j); it; ++it) {
      x[it.row()] += it.value() * b(j);
      x[n + it.row()] += it.value() * bt(j);
    }
  }
  for (int j = 0; j < k; ++j) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(r.basis, j); it; ++it) {
      x[it.row()] += it.value() * xr[j];
      x[n + it.row()] += it.value() * xr[k + j];
    }
  }
}

template <class S>
void reduced_state(const Dynamics& d, const Reduction& r, const S* x, S* xr) {
  const int n = d.nq(), k = r.size();
  for (int j = 0; j < k; ++j) {
    S z = C<S>(0.0), v = C<S>(0.0);
    for (Eigen::SparseMatrix<double>::InnerIterator it(r.basis, j); it; ++it) {
      z += it.value() * x[it.row()];
      v += it.value() * x[n + it.row()];
    }
    xr[j] = z;
    xr[k + j] = v;
  }
}

void reduced_histories(const Dynamics& d, const Reduction& r, double t, const double* xr,
                       const double* p, const LoadCaseSpec& lc, Eigen::Ref<Eigen::VectorXd> h) {
  const Env<double> env = d.vars(p, t, lc);
  Vec<double> b, bt, btt;
  Mat<double> phi_q;
  offsets(d, env, b, bt, btt, phi_q);
  const int n = d.nq(), k = r.size();
  const Eigen::Map<const Eigen::VectorXd> z(xr, k), zd(xr + k, k);
  const Eigen::SparseMatrix<double>&N = r.basis, &P = r.particular;
  Vec<double> q = P * b, qd = P * bt, qdd = P * btt;
  q.noalias() += N * z;
  qd.noalias() += N * zd;
  Vec<double> mass, forces;
  d.mass_and_forces(q.data(), qd.data(), env, mass, forces);
  ReducedMass reduced_mass;
  if (!reduced_mass.factor(r, mass)) {
    Vec<double> x(2 * n);
    x << q, qd;
    throw std::runtime_error(d.singular_motion(t, x.data(), p, lc));
  }
  const Eigen::VectorXd zdd = reduced_mass.solve(N.transpose() * (forces - mass.cwiseProduct(qdd)));
  qdd.noalias() += N * zdd;
  const Vec<double> lambda = P.transpose() * (forces - mass.cwiseProduct(qdd));
  h = d.history_values<double>(q, qd, qdd, lambda, r.jacobian, env);
}

std::unique_ptr<OdeModel::Instance> reduced_run(const Dynamics& dynamics,
                                                const Reduction& reduction,
                                                const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                                const std::vector<int>& active) {
  return std::make_unique<ReducedRun>(dynamics, reduction, p, lc, active);
}

#define SAO_MULTIBODY_REDUCED(S)                                                             \
  template void full_state<S>(const Dynamics&, const Reduction&, double, const S*, const S*, \
                              const LoadCaseSpec&, S*);                                      \
  template void reduced_state<S>(const Dynamics&, const Reduction&, const S*, S*);
SAO_MULTIBODY_REDUCED(double)
SAO_MULTIBODY_REDUCED(AD)
#undef SAO_MULTIBODY_REDUCED

}  // namespace sao::sim::multibody
