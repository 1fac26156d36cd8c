#include "simulators/multibody/reduced.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
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

// The first row of J that differs from A's, or -1.
Eigen::Index first_change(const Eigen::MatrixXd& A, const Eigen::MatrixXd& J) {
  const double scale = 1e-12 * (1.0 + A.cwiseAbs().maxCoeff());
  for (Eigen::Index r = 0; r < A.rows(); ++r) {
    for (Eigen::Index c = 0; c < A.cols(); ++c) {
      if (!(std::abs(A(r, c) - J(r, c)) <= scale)) return r;
    }
  }
  return -1;
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
    const Eigen::Index row = first_change(A, jacobian_at(d, moved, p.data(), 0.37 * trial));
    if (row >= 0) return "the equations of " + d.row_owner(row) + " are not linear";
    std::vector<double> other(p);
    for (size_t i = 0; i < other.size(); ++i) other[i] = p[i] * (1.0 + 0.13 * trial) + 0.07 * trial;
    const Eigen::Index prow = first_change(A, jacobian_at(d, q, other.data(), 0.0));
    if (prow >= 0) return "the direction of " + d.row_owner(prow) + " depends on the parameters";
  }
  return "";
}

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
    std::vector<bool> needed(n_, true);
    if (!moving_offsets_) {
      for (int i = 0; i < n_; ++i) needed[i] = r.basis.row(i).cwiseAbs().maxCoeff() > 1e-14;
    }
    full_->restrict_coordinates(needed);
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
    const Eigen::Index changed = first_change(r.jacobian, phi_q_);
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

  std::unique_ptr<OdeModel::Linearization> linearize(double t, const double* xr) override {
    if (!accelerations(t, xr)) {
      throw std::runtime_error(d_.singular_motion(t, x_.data(), p_.data(), lc_));
    }
    qdd_.noalias() = r_.sparse_basis * zdd_;
    qdd_ += ap_;
    const Eigen::MatrixXd T = full_->force_derivatives(t, x_.data(), qdd_).transpose();
    // d rho / d(z, z', p) with rho = N' (Q - M q'') at q'' held, then M_r^-1 of it.
    Eigen::MatrixXd rho(k_, 2 * k_ + na_);
    const auto& N = r_.sparse_basis;
    rho.leftCols(k_).noalias() = N.transpose() * (T.leftCols(n_) * N);
    rho.middleCols(k_, k_).noalias() = N.transpose() * (T.middleCols(n_, n_) * N);
    if (na_ > 0) {
      Eigen::MatrixXd gp = T.rightCols(na_);
      if (moving_offsets_) {
        offset_derivatives(t);
        gp.noalias() += T.leftCols(n_) * dq_;
        gp.noalias() += T.middleCols(n_, n_) * dv_;
        gp.noalias() -= mass_.asDiagonal() * da_;
      }
      rho.rightCols(na_).noalias() = N.transpose() * gp;
    }
    Eigen::MatrixXd jacobian = Eigen::MatrixXd::Zero(2 * k_, 2 * k_ + na_);
    jacobian.block(0, k_, k_, k_).setIdentity();
    jacobian.bottomRows(k_) = reduced_mass_.solve(rho);
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
      ap_.noalias() = r_.sparse_particular * btt_;
      offsets_time_ = t;
    }
    const Eigen::Map<const Eigen::VectorXd> z(xr, k_), zd(xr + k_, k_);
    x_.head(n_).noalias() = r_.sparse_particular * b_;
    x_.head(n_).noalias() += r_.sparse_basis * z;
    x_.tail(n_).noalias() = r_.sparse_particular * bt_;
    x_.tail(n_).noalias() += r_.sparse_basis * zd;
    full_time_ = t;
    full_at_.assign(xr, xr + 2 * k_);
  }
  // z'' at (t, xr) into zdd_; false when the reduced mass matrix is not positive definite.
  bool accelerations(double t, const double* xr) {
    to_full(t, xr);
    if (accelerations_known_) return mass_ok_;
    full_->mass_and_forces(t, x_.data(), x_.data() + n_, mass_, forces_);
    if (factored_mass_.size() != mass_.size() ||
        mass_ != factored_mass_) {  // N' M N, factored again only when M changes
      reduced_mass_.compute(r_.basis.transpose() * mass_.asDiagonal() * r_.basis);
      factored_mass_ = mass_;
      mass_ok_ = reduced_mass_.info() == Eigen::Success && reduced_mass_.rcond() > 1e-14;
    }
    if (!mass_ok_) return false;
    forces_ -= mass_.cwiseProduct(ap_);
    zdd_.noalias() = r_.sparse_basis.transpose() * forces_;
    reduced_mass_.solveInPlace(zdd_);
    accelerations_known_ = true;
    return true;
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
  Vec<double> b_, bt_, btt_, mass_, forces_, factored_mass_;
  Mat<double> phi_q_;
  std::vector<std::pair<const Joint*, int>> moving_;  // (joint, its first row)
  std::vector<double> zero_;
  JointTerms<double> terms_;
  double offsets_time_ = NAN;  // the t of b_, bt_, btt_
  double full_time_ = NAN;     // the (t, xr) of x_
  std::vector<double> full_at_;
  bool accelerations_known_ = false;  // mass_, forces_, zdd_ are those of x_
  Eigen::LLT<Eigen::MatrixXd> reduced_mass_;
  bool mass_ok_ = false;
  Eigen::MatrixXd dq_, dv_, da_;
};

// Why the reduction's dense equations would lose to the absolute coordinates' sparse path, or "".
std::string reduction_too_large(const Dynamics& d) {
  using LinearAlgebra = MultibodyModel::LinearAlgebra;
  const int independent = d.nq() - d.n_constraints();
  switch (d.model().linear_algebra) {
    case LinearAlgebra::kDense:
      return "";
    case LinearAlgebra::kSparse:
      return "\"linear_algebra\": \"sparse\" (the independent coordinates' equations are dense)";
    case LinearAlgebra::kAuto:
      break;
  }
  if (independent <= kReducedUpTo) return "";
  return std::to_string(independent) +
         " independent coordinates: their dense equations lose to the sparse absolute ones (auto: "
         "independent up to " +
         std::to_string(kReducedUpTo) + ")";
}

}  // namespace

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
  if (why.empty()) why = reduction_too_large(d);
  if (!why.empty()) return false;
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(out.jacobian.transpose());
  if (qr.rank() < m) {
    why = "dependent constraint equations";
    return false;
  }
  const Eigen::MatrixXd Q = qr.householderQ() * Eigen::MatrixXd::Identity(n, n);
  out.basis = Q.rightCols(n - m);
  out.particular = out.jacobian.completeOrthogonalDecomposition().pseudoInverse();
  out.sparse_basis = out.basis.sparseView();
  out.sparse_particular = out.particular.sparseView();
  return true;
}

std::string reduction_summary(const Dynamics& d, const Reduction* r, const std::string& why) {
  std::ostringstream s;
  s << "multibody: " << d.nq() << " coordinates, ";
  if (r) {
    s << d.n_constraints() << " linear constraint equations eliminated, integrating "
      << 2 * r->size() << " states (" << r->size() << " independent coordinates and their rates)";
  } else {
    s << d.n_constraints() << " constraint equations, integrating " << 2 * d.nq()
      << " states in absolute coordinates (" << why << ")";
  }
  return s.str();
}

template <class S>
void full_state(const Dynamics& d, const Reduction& r, double t, const S* xr, const S* p,
                const LoadCaseSpec& lc, S* x) {
  Vec<S> b, bt, btt;
  Mat<S> phi_q;
  offsets(d, d.vars(p, t, lc), b, bt, btt, phi_q);
  const int n = d.nq(), k = r.size();
  for (int i = 0; i < n; ++i) {
    S q = C<S>(0.0), v = C<S>(0.0);
    for (Eigen::Index j = 0; j < b.size(); ++j) {
      q += r.particular(i, j) * b(j);
      v += r.particular(i, j) * bt(j);
    }
    for (int j = 0; j < k; ++j) {
      q += r.basis(i, j) * xr[j];
      v += r.basis(i, j) * xr[k + j];
    }
    x[i] = q;
    x[n + i] = v;
  }
}

template <class S>
void reduced_state(const Dynamics& d, const Reduction& r, const S* x, S* xr) {
  const int n = d.nq(), k = r.size();
  for (int j = 0; j < k; ++j) {
    S z = C<S>(0.0), v = C<S>(0.0);
    for (int i = 0; i < n; ++i) {
      z += r.basis(i, j) * x[i];
      v += r.basis(i, j) * x[n + i];
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
  const Eigen::SparseMatrix<double>&N = r.sparse_basis, &P = r.sparse_particular;
  Vec<double> q = P * b, qd = P * bt, qdd = P * btt;
  q.noalias() += N * z;
  qd.noalias() += N * zd;
  Vec<double> mass, forces;
  d.mass_and_forces(q.data(), qd.data(), env, mass, forces);
  const Eigen::LLT<Eigen::MatrixXd> reduced_mass(r.basis.transpose() * mass.asDiagonal() * r.basis);
  if (reduced_mass.info() != Eigen::Success || !(reduced_mass.rcond() > 1e-14)) {
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
