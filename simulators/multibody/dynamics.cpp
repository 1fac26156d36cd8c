#include "simulators/multibody/dynamics.hpp"

#include <sstream>

#include "simulators/multibody/augmented_solver.hpp"

namespace sao::sim::multibody {
namespace {

// What one linearisation keeps (AugmentedLinearization): the augmented system factored at its
// point, G' there, and the scratch of its products. A run hands out again a storage no
// linearisation holds any more, so that a new point (a backward step of the adjoint) allocates
// nothing once the sizes are set.
struct LinearizationData {
  AugmentedSolver solver;
  bool sparse = false;  // G' in sparse_gt (the sparse path), else in gt
  Eigen::MatrixXd gt;   // G': (2n + na) x (n + m)
  Eigen::SparseMatrix<double> sparse_gt;
  Eigen::VectorXd top, w;  // scratch of vector_jacobian
};

// f = (q', q'') with A(x, p) z = r(x, p), z = (q'', multipliers): at the solution z,
// d q''/d(x, p) = [I 0] A^-1 G with G = d(r - A z)/d(x, p) for z held, so the derivatives
// of the assembly (no AD through the solve) give the Jacobian, and any lambda' [f_x | f_p]
// costs one solve with A' (= A) and a product with G.
class AugmentedLinearization final : public OdeModel::Linearization {
 public:
  AugmentedLinearization(int n, std::shared_ptr<LinearizationData> data)
      : n_(n), data_(std::move(data)) {}

  void jacobian(Eigen::MatrixXd& out) const override {
    const LinearizationData& d = *data_;
    const Eigen::MatrixXd g =
        d.sparse ? Eigen::MatrixXd(d.sparse_gt.transpose()) : d.gt.transpose();
    out.setZero(2 * n_, g.cols());
    out.block(0, n_, n_, n_).setIdentity();  // (q')' = q'
    out.bottomRows(n_) = d.solver.solve(g).topRows(n_);
  }
  // (S_v, [I 0] A^-1 G (S; I)): G (S; I) = G'^T (S; I) takes the columns of G' only for
  // the na directions, not the 2n + na of `jacobian`.
  void jacobian_times(const Eigen::MatrixXd& S, Eigen::MatrixXd& out) const override {
    const LinearizationData& d = *data_;
    const Eigen::Index na = S.cols();
    Eigen::MatrixXd g;
    if (d.sparse) {  // G (S; I) with G' sparse: its rows of the state, then of the parameters
      Eigen::MatrixXd directions(2 * n_ + na, na);
      directions.topRows(2 * n_) = S;
      directions.bottomRows(na).setIdentity();
      g = d.sparse_gt.transpose() * directions;
    } else {
      g = d.gt.topRows(2 * n_).transpose() * S;
      g += d.gt.bottomRows(na).transpose();
    }
    out.resize(2 * n_, na);
    out.topRows(n_) = S.bottomRows(n_);  // (q')' = q'
    out.bottomRows(n_) = d.solver.solve(g).topRows(n_);
  }
  // Sparse, bordered by the augmented system (AugmentedSolver::newton_matrix).
  bool newton_matrix(double gamma, Eigen::SparseMatrix<double>& out) const override {
    if (!data_->sparse) return false;
    data_->solver.newton_matrix(gamma, data_->sparse_gt, out);
    return true;
  }
  // w = A^-T (0, lambda_v) = A^-1 (0, lambda_v), then G w, in the storage's scratch.
  void vector_jacobian(const double* lambda, Eigen::VectorXd& out) const override {
    LinearizationData& d = *data_;
    d.top.setZero(d.sparse ? d.sparse_gt.cols() : d.gt.cols());
    d.top.head(n_) = Eigen::Map<const Eigen::VectorXd>(lambda + n_, n_);
    d.solver.solve_into(d.top, d.w);
    if (d.sparse) {
      out.noalias() = d.sparse_gt * d.w;
    } else {
      out.noalias() = d.gt * d.w;
    }
    out.segment(n_, n_) += Eigen::Map<const Eigen::VectorXd>(lambda, n_);
  }
  // The same for every column at once: one solve with m right-hand sides, one product with G.
  void block_vector_jacobian(const Eigen::Ref<const Eigen::MatrixXd>& lambda,
                             Eigen::MatrixXd& out) const override {
    const LinearizationData& d = *data_;
    Eigen::MatrixXd top =
        Eigen::MatrixXd::Zero(d.sparse ? d.sparse_gt.cols() : d.gt.cols(), lambda.cols());
    top.topRows(n_) = lambda.bottomRows(n_);
    const Eigen::MatrixXd w = d.solver.solve(top);
    if (d.sparse) {
      out.noalias() = d.sparse_gt * w;
    } else {
      out.noalias() = d.gt * w;
    }
    out.middleRows(n_, n_) += lambda.topRows(n_);
  }

 private:
  int n_;
  std::shared_ptr<LinearizationData> data_;
};

// One run of a dynamic model: the model at parameters p in load case lc, differentiated with
// respect to the parameters `active`. The quantities that depend on the parameters only are
// evaluated once, here, with their derivatives; the linearisation goes element by element
// (every body, force and joint), each in LocalAD seeded on its own coordinates and the active
// parameters it reads, in chunks of at most kLocal directions: its cost grows with the size of
// the model, not with the number of design variables, and allocates nothing per operation.
class Run final : public AbsoluteRun {
 public:
  Run(const Dynamics& dynamics, const Eigen::VectorXd& p, const LoadCaseSpec& lc,
      const std::vector<int>& active)
      : model_(dynamics.model()),
        dynamics_(dynamics),
        p_(p),
        n_(dynamics.nq()),
        m_(dynamics.n_constraints()),
        width_(2 * dynamics.nq() + static_cast<int>(active.size())),
        position_(p.size(), -1),
        direction_(active.size(), -1),
        sparse_(dynamics.sparse()) {
    solver_.set_sparse(sparse_);
    for (size_t a = 0; a < active.size(); ++a) position_[active[a]] = static_cast<int>(a);
    env_ = dynamics.vars(p.data(), lc.grid.start, lc);
    // The frozen quantities: values, and derivatives in the active parameters.
    frozen_.value.resize(model_.frozen.size());
    frozen_.gradient.resize(model_.frozen.size());
    Eigen::VectorXd g(static_cast<Eigen::Index>(env_.symbols.size()));
    const Values symbols(env_.symbols);
    for (size_t k = 0; k < model_.frozen.size(); ++k) {
      expr::Evaluator evaluator(*model_.frozen[k], symbols);
      if (active.empty()) {
        frozen_.value[k] = evaluator.value();
        continue;
      }
      frozen_.value[k] = evaluator.value(0, g);
      for (int i = 0; i < static_cast<int>(p.size()); ++i) {
        if (position_[i] >= 0 && g(i) != 0.0) frozen_.gradient[k].push_back({position_[i], g(i)});
      }
    }
    env_.frozen = &frozen_;
    restrict_coordinates(std::vector<bool>(n_, true));
    q_.resize(n_);
    qd_.resize(n_);
  }

  // The columns of G' each element's derivatives go to: the needed coordinates and velocities
  // of its bodies, then the active parameters it reads.
  void restrict_coordinates(const std::vector<bool>& needed) override {
    auto columns = [&](int a, int b, const Reads& reads) {
      std::vector<int> out;
      for_each_column(a, b, [&](int, int col) {
        if (needed[col]) out.push_back(col);
      });
      for_each_column(a, b, [&](int, int col) {
        if (needed[col]) out.push_back(n_ + col);
      });
      for (int i : reads.parameters) {
        if (position_[i] >= 0) out.push_back(2 * n_ + position_[i]);
      }
      return out;
    };
    body_columns_.clear();
    joint_columns_.clear();
    force_columns_.clear();
    beam_columns_.clear();
    for (const Body& b : model_.bodies) body_columns_.push_back(columns(-1, -1, b.reads));
    for (const Joint& j : model_.joints) joint_columns_.push_back(columns(j.a, j.b, j.reads));
    for (const Force& f : model_.forces) force_columns_.push_back(columns(f.a, f.b, f.reads));
    for (const BeamElement& e : model_.beam_elements) {
      beam_columns_.push_back(columns(e.a, e.b, e.reads));
    }
  }

  int rhs(double t, const double* x, double* xdot) override {
    if (!solve_at(t, x, solver_)) return 1;  // singular: let CVODES retry with a smaller step
    for (int i = 0; i < n_; ++i) {
      xdot[i] = x[n_ + i];
      xdot[n_ + i] = z_(i);
    }
    return 0;
  }

  // x = (q, q'): the Newton matrices through their half-size Schur complement, or sparse.
  bool second_order() const override { return true; }
  bool sparse() const override { return sparse_; }
  // Beams: their nodes' tolerances resolve their deformation (beam.hpp).
  bool own_tolerances() const override { return !model_.beams.empty(); }
  void tolerances(const double* x, double rtol, double atol, double* tolerance) override {
    beam_tolerances(model_, x, n_, rtol, atol, env_, tolerance);
  }

  // Factored and filled in a storage no earlier linearisation holds any more (G' swapped in,
  // not copied).
  std::unique_ptr<OdeModel::Linearization> linearize(double t, const double* x) override {
    std::shared_ptr<LinearizationData> data = free_storage();
    if (!solve_at(t, x, data->solver)) {
      throw std::runtime_error(dynamics_.singular_motion(t, x, p_.data(), *env_.lc));
    }
    data->sparse = sparse_;
    fill_gt(x, true, sparse_);
    if (sparse_) {
      data->sparse_gt.resize(width_, n_ + m_);
      data->sparse_gt.setFromTriplets(gt_entries_.begin(), gt_entries_.end());  // summed
    } else {
      gt_.swap(data->gt);
    }
    return std::make_unique<AugmentedLinearization>(n_, std::move(data));
  }

  Env<double>& env() override { return env_; }
  void mass_and_forces(double t, const double* q, const double* qd, Vec<double>& mass,
                       Vec<double>& forces) override {
    env_.set_time(t);
    dynamics_.mass_and_forces(q, qd, env_, mass, forces, &coupled_);
  }
  Eigen::Ref<const Eigen::MatrixXd> force_derivatives(double t, const double* x,
                                                      const Eigen::VectorXd& qdd) override {
    env_.set_time(t);
    z_.setZero(n_ + m_);
    z_.head(n_) = qdd;
    fill_gt(x, false, false);
    return gt_.leftCols(n_);
  }
  void sparse_force_derivatives(double t, const double* x, const Eigen::VectorXd& qdd,
                                Eigen::SparseMatrix<double>& out) override {
    env_.set_time(t);
    z_.setZero(n_ + m_);
    z_.head(n_) = qdd;
    fill_gt(x, false, true);
    for (Eigen::Triplet<double>& e : gt_entries_) e = {e.col(), e.row(), e.value()};
    out.resize(n_, width_);
    out.setFromTriplets(gt_entries_.begin(), gt_entries_.end());  // summed
  }

  void integrands(double t, const double* x, double* g) override {
    env_.set_time(t);
    const std::vector<double> symbols = dynamics_.integrand_symbols(env_, x);
    for (size_t k = 0; k < model_.integrals.size(); ++k) {
      g[k] = evaluate(*model_.integrals[k].integrand, symbols);
    }
  }

  // The integrands' own gradients in their symbols, mapped onto (x, p_active): no AD needed.
  void integrand_jacobian(double t, const double* x, Eigen::MatrixXd& jac) override {
    env_.set_time(t);
    const std::vector<double> symbols = dynamics_.integrand_symbols(env_, x);
    const auto size = static_cast<Eigen::Index>(symbols.size());
    const int first_coordinate = static_cast<int>(env_.symbols.size());
    jac.setZero(static_cast<Eigen::Index>(model_.integrals.size()), width_);
    Eigen::VectorXd g(size);
    for (size_t k = 0; k < model_.integrals.size(); ++k) {
      expr::Evaluator(*model_.integrals[k].integrand, Values(symbols)).value(0, g);
      const auto row = static_cast<Eigen::Index>(k);
      for (int i = 0; i < static_cast<int>(position_.size()); ++i) {
        if (position_[i] >= 0) jac(row, 2 * n_ + position_[i]) = g(i);
      }
      for (int b = 0; b < n_ / 3; ++b) {
        for (int c = 0; c < 6; ++c) {
          const int col = c < 3 ? 3 * b + c : n_ + 3 * b + c - 3;
          jac(row, col) = g(first_coordinate + 6 * b + c);
        }
      }
    }
  }

 private:
  // G' at (t, x) with z_ held: the force rows of every body, force and beam element, and with
  // `joints` the joints' rows and their multipliers' terms; into gt_, or with `sparse` as the
  // triplets gt_entries_ (every derivative an element has, zero or not: a fixed pattern).
  void fill_gt(const double* x, bool joints, bool sparse) {
    to_triplets_ = sparse;
    if (sparse) {
      gt_entries_.clear();
    } else {
      gt_.setZero(width_, n_ + m_);  // G', a column per equation
    }
    // Bodies: the weight, and -M q'' with q'' held, in their force rows.
    for (size_t i = 0; i < model_.bodies.size(); ++i) {
      const Body& b = model_.bodies[i];
      by_chunks(body_columns_[i], -1, -1, b.reads, x, [&](const Env<LocalAD>& env) {
        LocalAD mass[3], weight[2];
        body_terms(b, model_.gx, model_.gy, env, mass, weight);
        const int r = 3 * static_cast<int>(i);
        add(r, weight[0], 1.0);
        add(r + 1, weight[1], 1.0);
        for (int d = 0; d < 3; ++d) add(r + d, mass[d], -z_(r + d));
      });
    }
    // Force elements: their generalised forces.
    for (size_t e = 0; e < model_.forces.size(); ++e) {
      const Force& f = model_.forces[e];
      by_chunks(force_columns_[e], f.a, f.b, f.reads, x, [&](const Env<LocalAD>& env) {
        LocalAD fa[3], fb[3];
        force_terms(f, q_.data(), qd_.data(), env, fa, fb);
        for_each_column(f.a, f.b, [&](int local, int col) {
          add(col, local < 3 ? fa[local] : fb[local - 3], 1.0);
        });
      });
    }
    // Beam elements: their generalised forces and weights, and -M q'' with q'' held.
    for (size_t e = 0; e < model_.beam_elements.size(); ++e) {
      const BeamElement& be = model_.beam_elements[e];
      by_chunks(beam_columns_[e], be.a, be.b, be.reads, x, [&](const Env<LocalAD>& env) {
        LocalAD fa[3], fb[3], own, coupling, rotary;
        beam_forces(be, model_.gx, model_.gy, q_.data(), qd_.data(), env, fa, fb);
        beam_mass(be, env, own, coupling, rotary);
        for (int c = 0; c < 3; ++c) {
          const int ra = 3 * be.a + c, rb = 3 * be.b + c;
          add(ra, fa[c], 1.0);
          add(rb, fb[c], 1.0);
          add(ra, c < 2 ? own : rotary, -z_(ra));
          add(rb, c < 2 ? own : rotary, -z_(rb));
          if (c < 2) {
            add(ra, coupling, -z_(rb));
            add(rb, coupling, -z_(ra));
          }
        }
      });
    }
    if (!joints) return;
    // Joints: their stabilised rows minus Phi_q q'', and -Phi_q' multipliers in the force rows.
    int row = 0;
    for (size_t e = 0; e < model_.joints.size(); ++e) {
      const Joint& j = model_.joints[e];
      by_chunks(joint_columns_[e], j.a, j.b, j.reads, x, [&](const Env<LocalAD>& env) {
        JointTerms<LocalAD> terms;
        joint_terms(j, q_.data(), qd_.data(), env, terms);
        for (int r = 0; r < j.equations(); ++r) {
          LocalAD g = stabilised_gamma(j, terms, r, qd_.data(), model_.alpha, model_.beta);
          for_each_column(j.a, j.b,
                          [&](int local, int col) { g -= terms.phi_q[r][local] * z_(col); });
          add(n_ + row + r, g, 1.0);
          for_each_column(j.a, j.b, [&](int local, int col) {
            add(col, terms.phi_q[r][local], -z_(n_ + row + r));
          });
        }
      });
      row += j.equations();
    }
  }

  // The augmented system at (t, x), factored into `solver`, and its solution z_; false when
  // singular.
  bool solve_at(double t, const double* x, AugmentedSolver& solver) {
    env_.set_time(t);
    if (sparse_) {  // Phi_q assembled sparse, in the joints' pattern
      dynamics_.augmented(x, x + n_, env_, mass_, coupled_, sparse_phi_, r_, &forces_);
      if (!solver.factor(mass_, coupled_, sparse_phi_.matrix)) return false;
    } else {
      dynamics_.augmented(x, x + n_, env_, mass_, coupled_, phi_q_, r_, &forces_);
      if (!solver.factor(mass_, coupled_, phi_q_)) return false;
    }
    solver.solve_into(r_, z_);
    return true;
  }
  // A linearisation's storage that none holds any more, else a new one.
  std::shared_ptr<LinearizationData> free_storage() {
    for (const auto& data : storage_) {
      if (data.use_count() == 1) return data;
    }
    storage_.push_back(std::make_shared<LinearizationData>());
    storage_.back()->solver.set_sparse(sparse_);
    return storage_.back();
  }

  // d(value)/d(the current chunk's directions) into column `equation` of G', times `factor`.
  void add(int equation, const LocalAD& value, double factor) {
    if (to_triplets_) {
      for (int l = 0; l < chunk_count_; ++l) {
        gt_entries_.emplace_back(chunk_columns_[l], equation, factor * value.derivatives()(l));
      }
      return;
    }
    for (int l = 0; l < chunk_count_; ++l) {
      gt_(chunk_columns_[l], equation) += factor * value.derivatives()(l);
    }
  }
  // Calls evaluate(env) once per chunk of at most kLocal of an element's directions `columns`
  // (coordinates and velocities of its bodies a and b, then active parameters), with q_, qd_
  // and the parameters seeded on the chunk's directions, which `add` maps back to G'.
  template <class Evaluate>
  void by_chunks(const std::vector<int>& columns, int a, int b, const Reads& reads, const double* x,
                 Evaluate evaluate) {
    const int total = static_cast<int>(columns.size());
    for (int first = 0; first < total; first += kLocal) {
      const int count = std::min(kLocal, total - first);
      ad_size = kLocal;
      // The element's coordinates and velocities, seeded where their column is in the chunk.
      // (In place: a LocalAD carries kLocal derivatives, not worth a copy.)
      for_each_column(a, b, [&](int, int col) {
        q_[col].value() = x[col];
        q_[col].derivatives().setZero();
        qd_[col].value() = x[n_ + col];
        qd_[col].derivatives().setZero();
      });
      for (int l = 0; l < count; ++l) {
        const int col = columns[first + l];
        if (col < n_) {
          q_[col].derivatives()(l) = 1.0;
        } else if (col < 2 * n_) {
          qd_[col - n_].derivatives()(l) = 1.0;
        } else {
          direction_[col - 2 * n_] = l;
        }
      }
      Env<LocalAD>& env = chunk_env_;  // reused: its symbols keep their storage
      env.t_index = env_.t_index;
      env.t = env_.t;
      env.lc = env_.lc;
      env.frozen = &frozen_;
      env.direction = direction_.data();
      if (reads.live) {  // the symbols, for the quantities evaluated at every call
        env.symbols.resize(env_.symbols.size());
        for (size_t i = 0; i < env_.symbols.size(); ++i) {
          LocalAD& v = env.symbols[i];
          v.value() = env_.symbols[i];
          v.derivatives().setZero();
          const int a_pos = i < position_.size() ? position_[i] : -1;
          if (a_pos >= 0 && direction_[a_pos] >= 0) v.derivatives()(direction_[a_pos]) = 1.0;
        }
      } else {
        env.symbols.clear();
      }
      chunk_columns_ = columns.data() + first;
      chunk_count_ = count;
      evaluate(env);
      for (int l = 0; l < count; ++l) {
        if (columns[first + l] >= 2 * n_) direction_[columns[first + l] - 2 * n_] = -1;
      }
    }
  }

  const MultibodyModel& model_;
  const Dynamics& dynamics_;
  Eigen::VectorXd p_;
  int n_, m_, width_;
  std::vector<int> position_;   // model parameter -> its position among the active ones, or -1
  std::vector<int> direction_;  // active parameter -> local direction in the current chunk, or -1
  Frozen frozen_;
  Env<double> env_;  // the symbols (t moved per call) and the frozen quantities
  std::vector<std::vector<int>> body_columns_, joint_columns_, force_columns_, beam_columns_;
  std::vector<LocalAD> q_, qd_;  // seeded coordinates and velocities of the current element
  Vec<double> mass_, r_, forces_;
  std::vector<Coupling<double>> coupled_;
  Mat<double> phi_q_;
  SparsePhi sparse_phi_;                                     // Phi_q on the sparse path
  AugmentedSolver solver_;                                   // the right-hand side's
  std::vector<std::shared_ptr<LinearizationData>> storage_;  // the linearisations'
  Eigen::VectorXd z_;
  Eigen::MatrixXd gt_;                              // G' of the linearisation being formed (dense)
  std::vector<Eigen::Triplet<double>> gt_entries_;  // or its entries (sparse)
  bool to_triplets_ = false;                        // which of the two `add` fills
  Env<LocalAD> chunk_env_;                          // the symbols of the current chunk
  const int* chunk_columns_ = nullptr;  // the columns of G' of the current chunk's directions
  int chunk_count_ = 0;
  bool sparse_;  // Dynamics::sparse
};

}  // namespace

template <class S, class PhiQ>
void Dynamics::augmented(const S* q, const S* qd, const Env<S>& env, Vec<S>& mass,
                         std::vector<Coupling<S>>& coupled, PhiQ& phi_q, Vec<S>& rhs,
                         Vec<S>* forces) const {
  const int n = nq();
  Vec<S> own;
  Vec<S>& Q = forces ? *forces : own;
  mass_and_forces(q, qd, env, mass, Q, &coupled);
  rhs.resize(n + n_constraints());
  rhs.head(n) = Q;
  // Baumgarte stabilisation of the acceleration constraints.
  joint_rows(q, qd, env, phi_q, [&](int row, const Joint& j, const JointTerms<S>& terms, int k) {
    rhs(n + row) = stabilised_gamma(j, terms, k, qd, model_.alpha, model_.beta);
  });
}

template <class S>
bool Dynamics::accelerations(const S* q, const S* qd, const Env<S>& env, Vec<S>& qdd,
                             Vec<S>* lambda, Mat<S>* jacobian) const {
  const int n = nq(), m = n_constraints();
  Vec<S> mass, rhs;
  std::vector<Coupling<S>> coupled;
  Mat<S> phi_q;
  augmented(q, qd, env, mass, coupled, phi_q, rhs);
  Vec<S> z;
  if constexpr (std::is_same_v<S, double>) {
    AugmentedSolver solver;
    solver.set_sparse(sparse());
    if (!solver.factor(mass, coupled, phi_q)) return false;
    z = solver.solve(rhs);
  } else if (!solve(augmented_matrix(mass, coupled, phi_q), rhs, z)) {
    return false;
  }
  qdd = z.head(n);
  if (lambda) *lambda = z.tail(m);
  if (jacobian) *jacobian = phi_q;
  return true;
}

template <class S>
bool Dynamics::equations(const S* x, S* xdot, const Env<S>& env) const {
  const int n = nq();
  Vec<S> qdd;
  if (!accelerations(x, x + n, env, qdd)) return false;
  for (int i = 0; i < n; ++i) {
    xdot[i] = x[n + i];
    xdot[n + i] = qdd(i);
  }
  return true;
}

template <class S>
std::string Dynamics::singular_motion(double t, const S* xs, const S* ps,
                                      const LoadCaseSpec& lc) const {
  const int n = nq();
  std::vector<double> x(2 * n), p(model_.parameter_names.size());
  for (int i = 0; i < 2 * n; ++i) x[i] = value_of(xs[i]);
  for (size_t i = 0; i < p.size(); ++i) p[i] = value_of(ps[i]);
  std::ostringstream why;
  why << "singular equations of motion at t = " << t << ": ";
  Vec<double> mass, rhs;
  std::vector<Coupling<double>> coupled;
  Mat<double> phi_q;
  augmented(x.data(), x.data() + n, vars(p.data(), t, lc), mass, coupled, phi_q, rhs);
  const std::string dependent = dependent_rows(phi_q);
  if (!dependent.empty()) return why.str() + dependent;
  std::vector<std::string> massless;
  for (size_t b = 0; b < model_.bodies.size(); ++b) {
    if (!(mass(3 * b) > 0.0) || !(mass(3 * b + 2) > 0.0)) massless.push_back(model_.bodies[b].name);
  }
  if (massless.empty()) {
    why << "the augmented matrix is ill-conditioned";
  } else {
    why << "body";
    for (size_t k = 0; k < massless.size(); ++k) why << (k ? ", " : " ") << massless[k];
    why << " has no mass or no inertia where the joints leave it free to move";
  }
  return why.str();
}

template <class S>
void Dynamics::initial(const S* p, S* x0, const LoadCaseSpec& lc) const {
  const int n = nq();
  const double t0 = lc.grid.start;
  std::vector<double> pv(model_.parameter_names.size());
  for (size_t i = 0; i < pv.size(); ++i) pv[i] = value_of(p[i]);
  const Env<double> v = vars(pv.data(), t0, lc);
  Eigen::VectorXd q(n);
  for (size_t i = 0; i < model_.bodies.size(); ++i) {
    q(3 * i) = model_.bodies[i].x.at(v);
    q(3 * i + 1) = model_.bodies[i].y.at(v);
    q(3 * i + 2) = model_.bodies[i].angle.at(v);
  }
  const bool square = !model_.initial_conditions.empty();
  const std::string failure = assemble(t0, pv.data(), lc, q, square);
  if (!failure.empty()) throw std::runtime_error("assembly: " + failure);
  // One Newton step in S from the assembled q: exact first derivatives of q with respect to
  // the parameters (the residual is zero there). Without initial conditions the step is the
  // smallest correction of the given pose, so q carries the given pose's derivatives.
  const Env<S> vs = vars(p, t0, lc);
  Vec<S> qs(n);
  for (int i = 0; i < n; ++i) qs(i) = C<S>(q(i));
  if (!square) {
    for (size_t i = 0; i < model_.bodies.size(); ++i) {
      const Body& b = model_.bodies[i];
      const S given[3] = {b.x.at(vs), b.y.at(vs), b.angle.at(vs)};
      for (int c = 0; c < 3; ++c) {
        const int k = 3 * static_cast<int>(i) + c;
        qs(k) = given[c] + C<S>(q(k) - value_of(given[c]));
      }
    }
  }
  Vec<S> zero = Vec<S>::Constant(n, C<S>(0.0));
  Vec<S> phi, phi_t, gamma;
  Mat<S> phi_q;
  constraints(qs.data(), zero.data(), vs, phi, phi_q, phi_t, gamma);
  const int m = static_cast<int>(phi.size());
  const int c = static_cast<int>(model_.initial_conditions.size());
  Mat<S> J = Mat<S>::Constant(m + c, n, C<S>(0.0));
  Vec<S> F(m + c), rates(m + c);
  J.topRows(m) = phi_q;
  F.head(m) = phi;
  rates.head(m) = -phi_t;
  for (int k = 0; k < c; ++k) {
    const InitialCondition& ic = model_.initial_conditions[k];
    const int col = 3 * ic.body + ic.coordinate;
    J(m + k, col) = C<S>(1.0);
    F(m + k) = qs(col) - ic.value.at(vs);
    rates(m + k) = ic.rate.at(vs);
  }
  Vec<S> given(n);  // the bodies' velocities as given
  for (size_t i = 0; i < model_.bodies.size(); ++i) {
    given(3 * i) = model_.bodies[i].vx.at(vs);
    given(3 * i + 1) = model_.bodies[i].vy.at(vs);
    given(3 * i + 2) = model_.bodies[i].omega.at(vs);
  }
  Vec<S> dq, qd;
  // Which rows of J depend on the others, for the error message.
  auto redundancy = [this, t0](const Mat<S>& J, const char* otherwise) {
    Eigen::MatrixXd values(J.rows(), J.cols());
    for (Eigen::Index i = 0; i < J.size(); ++i) values(i) = value_of(J(i));
    const std::string dependent = dependent_rows(values);
    std::ostringstream why;
    why << "assembly at t = " << t0 << ": " << (dependent.empty() ? otherwise : dependent);
    return why.str();
  };
  if (m + c == 0) {  // free bodies: the pose and velocities as given
    dq = Vec<S>::Constant(n, C<S>(0.0));
    qd = given;
  } else if (square) {
    if (!solve(J, F, dq, sparse()) || !solve(J, rates, qd, sparse())) {
      throw std::runtime_error(redundancy(J, "the initial conditions fix no single pose"));
    }
  } else {
    // Smallest corrections: dq = J' (J J')^-1 F; q' = given - J' (J J')^-1 (J given - rates).
    Vec<S> w;
    if (!least_norm(J, F, dq, sparse()) || !least_norm(J, Vec<S>(J * given - rates), w, sparse())) {
      throw std::runtime_error(redundancy(J, "redundant constraints"));
    }
    qd = given - w;
  }
  for (int i = 0; i < n; ++i) {
    x0[i] = qs(i) - dq(i);
    x0[n + i] = qd(i);
  }
}

template <class S>
S Dynamics::out(int k, double t, const S* x, const S* p, const LoadCaseSpec& lc) const {
  if constexpr (std::is_same_v<S, AD>) {
    AD value;
    if (sparse_out(k, t, x, p, lc, value)) return value;
  }
  const int n = nq();
  const int nb = static_cast<int>(model_.bodies.size());
  const Env<S> v = vars(p, t, lc);
  auto solved = [&](Vec<S>& qdd, Vec<S>* lambda, Mat<S>* phi_q) {
    if (!accelerations(x, x + n, v, qdd, lambda, phi_q)) {
      throw std::runtime_error(singular_motion(t, x, p, lc));
    }
  };
  if (k < 9 * nb) {
    const int body = k / 9, c = k % 9;
    if (c < 3) return x[3 * body + c];
    if (c < 6) return x[n + 3 * body + c - 3];
    Vec<S> qdd;
    solved(qdd, nullptr, nullptr);
    return qdd(3 * body + c - 6);
  }
  int index = k - 9 * nb;
  for (const Force& f : model_.forces) {
    if (f.kind != ForceKind::kSpringDamper) continue;
    if (index < 3) {
      S length, velocity, tension, ux, uy;
      spring_state(f, x, x + n, v, length, velocity, tension, ux, uy);
      return index == 0 ? length : (index == 1 ? velocity : tension);
    }
    index -= 3;
  }
  if (index < 3 * static_cast<int>(model_.joints.size())) {
    Vec<S> qdd, lambda;
    Mat<S> phi_q;
    solved(qdd, &lambda, &phi_q);
    return reaction(index / 3, index % 3, phi_q, lambda);
  }
  index -= 3 * static_cast<int>(model_.joints.size());
  if (index < 6 * static_cast<int>(model_.markers.size())) {
    Vec<S> qdd = Vec<S>::Constant(n, C<S>(0.0));
    if (index % 6 >= 4) solved(qdd, nullptr, nullptr);
    return marker(model_.markers[index / 6], index % 6, x, x + n, qdd.data(), v);
  }
  index -= 6 * static_cast<int>(model_.markers.size());
  for (const Beam& beam : model_.beams) {
    const int per_kind = beam.elements + 1, count = beam_output_kinds(beam) * per_kind;
    if (index < count) {
      return beam_output(model_, beam, static_cast<BeamOutput>(index / per_kind), index % per_kind,
                         x, x + n, v);
    }
    index -= count;
  }
  // An integrand: of the parameters, t and the coordinates and velocities of every body.
  return evaluate(*model_.integrals.at(index).integrand, integrand_symbols(v, x));
}

bool Dynamics::history_values_at(const double* x, const Env<double>& env,
                                 Eigen::Ref<Eigen::VectorXd> h) const {
  const int n = nq(), m = n_constraints();
  const Eigen::Map<const Eigen::VectorXd> q(x, n), qd(x + n, n);
  if (!sparse()) {
    Vec<double> qdd, lambda;
    Mat<double> phi_q;
    if (!accelerations(x, x + n, env, qdd, &lambda, &phi_q)) return false;
    h = history_values<double>(q, qd, qdd, lambda, phi_q, env);
    return true;
  }
  Vec<double> mass, rhs;
  std::vector<Coupling<double>> coupled;
  SparsePhi phi_q;
  augmented(x, x + n, env, mass, coupled, phi_q, rhs);
  AugmentedSolver solver;
  solver.set_sparse(true);
  if (!solver.factor(mass, coupled, phi_q.matrix)) return false;
  const Eigen::VectorXd z = solver.solve(rhs);
  h = history_values<double>(q, qd, Vec<double>(z.head(n)), Vec<double>(z.tail(m)), phi_q.matrix,
                             env);
  return true;
}

std::unique_ptr<AbsoluteRun> Dynamics::run(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                           const std::vector<int>& active) const {
  return std::make_unique<Run>(*this, p, lc, active);
}

#define SAO_MULTIBODY_DYNAMICS(S)                                                               \
  template void Dynamics::augmented<S, Mat<S>>(const S*, const S*, const Env<S>&, Vec<S>&,      \
                                               std::vector<Coupling<S>>&, Mat<S>&, Vec<S>&,     \
                                               Vec<S>*) const;                                  \
  template bool Dynamics::accelerations<S>(const S*, const S*, const Env<S>&, Vec<S>&, Vec<S>*, \
                                           Mat<S>*) const;                                      \
  template bool Dynamics::equations<S>(const S*, S*, const Env<S>&) const;                      \
  template void Dynamics::initial<S>(const S*, S*, const LoadCaseSpec&) const;                  \
  template S Dynamics::out<S>(int, double, const S*, const S*, const LoadCaseSpec&) const;      \
  template std::string Dynamics::singular_motion<S>(double, const S*, const S*,                 \
                                                    const LoadCaseSpec&) const;
SAO_MULTIBODY_DYNAMICS(double)
SAO_MULTIBODY_DYNAMICS(AD)
#undef SAO_MULTIBODY_DYNAMICS
template void Dynamics::augmented<double, SparsePhi>(const double*, const double*,
                                                     const Env<double>&, Vec<double>&,
                                                     std::vector<Coupling<double>>&, SparsePhi&,
                                                     Vec<double>&, Vec<double>*) const;

}  // namespace sao::sim::multibody
