#include "simulators/models/model.hpp"

#include <cmath>
#include <memory>
#include <stdexcept>

#include "simulators/integrator/sparse_factor.hpp"

namespace sao::sim {
namespace {

std::vector<const Model*> all_models() {
  return {&impact_absorber_model(), &oscillator_model(), &quarter_car_model(),
          &slider_crank_path_model()};
}

}  // namespace

std::vector<ResponseInfo> OdeModel::responses() const {
  std::vector<ResponseInfo> out;
  for (const auto& name : history_outputs()) out.push_back({name, true});
  for (const auto& name : integral_outputs()) out.push_back({name, false});
  for (const auto& name : history_scalars()) out.push_back({name, false});
  return out;
}

namespace {

// The derivative vector of an AD value; a constant may carry an empty one.
Eigen::VectorXd derivative(const AD& v, int size) {
  return v.derivatives().size() == size ? v.derivatives() : Eigen::VectorXd::Zero(size);
}

}  // namespace

void seed_ad(const double* x, int n, Eigen::Ref<const Eigen::VectorXd> p,
             const std::vector<int>& active, std::vector<AD>& xs, std::vector<AD>& ps) {
  const int size = n + static_cast<int>(active.size());
  xs.resize(n);
  ps.resize(p.size());
  for (int i = 0; i < n; ++i) xs[i] = AD(x ? x[i] : 0.0, size, i);
  for (Eigen::Index j = 0; j < p.size(); ++j) ps[j] = AD(p(j), Eigen::VectorXd::Zero(size));
  for (size_t a = 0; a < active.size(); ++a) {
    ps[active[a]] = AD(p(active[a]), size, n + static_cast<int>(a));
  }
}

namespace {

// The model's own functions with the parameters p: what a model without a run of its own
// (every model but Multibody) does.
class DefaultInstance final : public OdeModel::Instance {
 public:
  DefaultInstance(const OdeModel& model, const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                  const std::vector<int>& active)
      : model_(model),
        p_(p),
        lc_(lc),
        active_(active),
        first_integrand_(static_cast<int>(model.history_outputs().size())),
        integrals_(static_cast<int>(model.integral_outputs().size())) {}

  int rhs(double t, const double* x, double* xdot) override {
    return model_.rhs(t, x, xdot, p_.data(), lc_);
  }
  void integrands(double t, const double* x, double* g) override {
    for (int k = 0; k < integrals_; ++k)
      g[k] = model_.output(first_integrand_ + k, t, x, p_.data(), lc_);
  }
  void integrand_jacobian(double t, const double* x, Eigen::MatrixXd& jac) override {
    const int n = model_.state_size(), na = static_cast<int>(active_.size());
    const Eigen::VectorXd xv = Eigen::Map<const Eigen::VectorXd>(x, n);
    jac.resize(integrals_, n + na);
    for (int k = 0; k < integrals_; ++k) {
      jac.row(k) = model_.output_gradient(first_integrand_ + k, t, xv, p_, lc_, active_);
    }
  }

 private:
  const OdeModel& model_;
  Eigen::VectorXd p_;
  const LoadCaseSpec& lc_;
  std::vector<int> active_;
  int first_integrand_, integrals_;
};

// x0 and dx0/dp of the system: automatic differentiation in the active parameters only (x0
// reads no state), and none at all for an analysis.
void set_initial_state(const OdeModel& model, const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                       const std::vector<int>& active, OdeSystem& s) {
  const int n = model.state_size();
  const int na = static_cast<int>(active.size());
  s.x0.resize(n);
  model.initial_state(p.data(), s.x0.data(), lc);
  s.x0_p.resize(n, na);
  if (na == 0) return;
  std::vector<AD> xs, ps, x0(n);
  seed_ad(nullptr, 0, p, active, xs, ps);
  model.initial_state(ps.data(), x0.data(), lc);
  for (int i = 0; i < n; ++i) s.x0_p.row(i) = derivative(x0[i], na).transpose();
}

}  // namespace

std::unique_ptr<OdeModel::Instance> OdeModel::instance(const Eigen::VectorXd& p,
                                                       const LoadCaseSpec& lc,
                                                       const std::vector<int>& active) const {
  return std::make_unique<DefaultInstance>(*this, p, lc, active);
}

namespace {

// The Newton matrices of a sparse instance (Instance::sparse): its linearisation's sparse matrix
// factored with the symbolic analysis of the run's first (sparse_factor.hpp), the right-hand
// side padded with zeros to its size. The forward problem's I - gamma f_x and the backward
// problem's I + gamma f_x' = (I - (-gamma) f_x)' each have their own (CVODES recomputes the
// forward problem between checkpoints during the backward solve).
struct SparseNewton {
  std::shared_ptr<OdeModel::Instance> run;
  bool transposed = false;
  std::unique_ptr<OdeModel::Linearization> linear;
  Eigen::SparseMatrix<double> matrix;
  SparseFactor factor;
  Eigen::MatrixXd rhs;

  int set_up(double t, const double* x, double gamma, bool relinearize) {
    if (relinearize || !linear) {
      linear.reset();  // its storage free for the new one
      linear = run->linearize(t, x);
      if (!linear) throw std::logic_error("a sparse instance without a linearisation");
    }
    if (!linear->newton_matrix(transposed ? -gamma : gamma, matrix)) {
      throw std::logic_error("a sparse instance's linearisation without a Newton matrix");
    }
    return factor.factor(matrix) ? 0 : 1;
  }
  void solve(double* b, Eigen::Index n, int blocks) {
    Eigen::Map<Eigen::MatrixXd> bv(b, n, blocks);
    rhs.setZero(matrix.rows(), blocks);
    rhs.topRows(n) = bv;
    bv = factor.solve(rhs, transposed).topRows(n);
  }
};

void sparse_newton(const std::shared_ptr<OdeModel::Instance>& run, Eigen::Index n, OdeSystem& s) {
  auto forward = std::make_shared<SparseNewton>();
  forward->run = run;
  s.newton_setup = [forward](double t, const double* x, double gamma, bool relinearize) {
    return forward->set_up(t, x, gamma, relinearize);
  };
  s.newton_solve = [forward, n](double* b) { forward->solve(b, n, 1); };
  auto backward = std::make_shared<SparseNewton>();
  backward->run = run;
  backward->transposed = true;
  s.newton_b_setup = [backward](double t, const double* x, double gamma, bool relinearize) {
    return backward->set_up(t, x, gamma, relinearize);
  };
  s.newton_b_solve = [backward, n](double* b, int blocks) { backward->solve(b, n, blocks); };
}

}  // namespace

OdeSystem OdeModel::system(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                           const std::vector<int>& active) const {
  const int n = state_size();
  const int nq = static_cast<int>(integral_outputs().size());
  const int na = static_cast<int>(active.size());
  const std::shared_ptr<Instance> run = instance(p, lc, active);
  OdeSystem s;
  s.max_step = max_step(lc);
  s.jacobian_age = jacobian_age();
  s.second_order = run->second_order();
  s.parameters = na;
  s.quadratures = nq;
  s.rhs = [run](double t, const double* x, double* xdot) { return run->rhs(t, x, xdot); };
  if (run->own_tolerances()) {
    s.tolerances = [run](const double* x, double rtol, double atol, double* tolerance) {
      run->tolerances(x, rtol, atol, tolerance);
    };
  }
  s.diagnose = [this, p, &lc](double t, const double* x) { return diagnose(t, x, p.data(), lc); };
  s.quadrature = [run](double t, const double* x, double* qdot) { run->integrands(t, x, qdot); };
  // CVODES asks for the Jacobians at the same (t, x) from several callbacks (the sensitivity
  // or adjoint right-hand side and its quadrature, the Newton matrix): the last point is
  // kept, with the model's linearisation there when it has one, and what was computed there.
  struct Last {
    double t = NAN;
    Eigen::VectorXd x;
    std::unique_ptr<Linearization> linear;
    Eigen::MatrixXd jac, quadrature_jac;
    bool has_jac = false, has_quadrature_jac = false;
  };
  auto last = std::make_shared<Last>();
  // The kept point, moved to (t, x) when it is elsewhere.
  auto at = [run, n, last](double t, const double* x) -> Last& {
    const Eigen::Map<const Eigen::VectorXd> xv(x, n);
    if (t != last->t || xv != last->x) {
      last->t = NAN;  // invalid until the new point is complete
      last->has_jac = last->has_quadrature_jac = false;
      last->linear.reset();  // its storage free for the new point's
      last->linear = run->linearize(t, x);
      last->x = xv;
      last->t = t;
    }
    return *last;
  };
  // The Jacobian at (t, x), kept with the point.
  auto jacobian_at = [this, p, &lc, active, n, na, at](double t, const double* x) -> Last& {
    Last& l = at(t, x);
    if (!l.has_jac) {
      if (l.linear) {
        l.linear->jacobian(l.jac);
      } else {
        std::vector<AD> xs, ps, xdot(n);
        seed_ad(x, n, p, active, xs, ps);
        rhs(t, xs.data(), xdot.data(), ps.data(), lc);
        l.jac.resize(n, n + na);
        for (int i = 0; i < n; ++i) l.jac.row(i) = derivative(xdot[i], n + na).transpose();
      }
      l.has_jac = true;
    }
    return l;
  };
  s.jacobian = [jacobian_at](double t, const double* x, Eigen::MatrixXd& jac) {
    jac = jacobian_at(t, x).jac;
  };
  s.vector_jacobian = [at, jacobian_at, n](double t, const double* x, const double* lambda,
                                           Eigen::VectorXd& out) {
    Last& l = at(t, x);
    if (l.linear) {
      l.linear->vector_jacobian(lambda, out);
    } else {
      out = jacobian_at(t, x).jac.transpose() * Eigen::Map<const Eigen::VectorXd>(lambda, n);
    }
  };
  // The direct method's right-hand sides: from the Jacobian when it is formed at (t, x)
  // anyway, else from the linearisation without it.
  s.sensitivity_rhs = [at, jacobian_at](double t, const double* x, const Eigen::MatrixXd& S,
                                        Eigen::MatrixXd& out) {
    Last& l = at(t, x);
    if (l.linear && !l.has_jac) {
      l.linear->jacobian_times(S, out);
      return;
    }
    sensitivity_rhs_from_jacobian(jacobian_at(t, x).jac, S, out);
  };
  if (run->sparse()) {  // and the shared backward sweep's products without the dense Jacobian
    sparse_newton(run, n, s);
    s.block_vector_jacobian = [at](double t, const double* x, const auto& lambda, auto& out) {
      at(t, x).linear->block_vector_jacobian(lambda, out);
    };
  }
  s.quadrature_jacobian = [run, at](double t, const double* x, Eigen::MatrixXd& jac) {
    Last& l = at(t, x);
    if (!l.has_quadrature_jac) {
      run->integrand_jacobian(t, x, l.quadrature_jac);
      l.has_quadrature_jac = true;
    }
    jac = l.quadrature_jac;
  };
  set_initial_state(*this, p, lc, active, s);
  return s;
}

Eigen::RowVectorXd OdeModel::output_gradient(int k, double t, const Eigen::VectorXd& x,
                                             const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                             const std::vector<int>& active) const {
  std::vector<AD> xs, ps;
  seed_ad(x.data(), static_cast<int>(x.size()), p, active, xs, ps);
  const int size = static_cast<int>(x.size() + active.size());
  return derivative(output(k, t, xs.data(), ps.data(), lc), size).transpose();
}

std::string OdeModel::values(const SystemResult& r, const Eigen::VectorXd& p,
                             const LoadCaseSpec& lc, CaseResult& out) const {
  if (!r.ok) return r.message;
  fill_outputs(r.states, r.integrals, p, lc, out);
  out.integrator_steps = r.steps;
  return "";
}

std::string OdeModel::analyse(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                              const IntegratorSettings& settings, CaseResult& out) const {
  return values(integrate_system(system(p, lc, {}), lc.grid, settings, false), p, lc, out);
}

std::string OdeModel::analyse_keeping(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                      const IntegratorSettings& settings, CaseResult& out,
                                      std::unique_ptr<ForwardPass>& kept) const {
  kept.reset();
  if (differentiates_itself()) return analyse(p, lc, settings, out);
  try {  // a model's set-up failure (the multibody initial assembly) as analyse() reports it
    return values(integrate_keeping(system(p, lc, {}), lc.grid, settings, kept), p, lc, out);
  } catch (const std::runtime_error& e) {
    kept.reset();
    return e.what();
  }
}

void OdeModel::fill_outputs(const Eigen::MatrixXd& states, const Eigen::VectorXd& integrals,
                            const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                            CaseResult& out) const {
  const auto names = history_outputs();
  Eigen::MatrixXd h(static_cast<Eigen::Index>(names.size()), lc.grid.points);
  for (int i = 0; i < lc.grid.points; ++i) {
    const Eigen::VectorXd x = states.row(i).transpose();
    history_outputs_at(lc.grid.at(i), x.data(), p.data(), lc, h.col(i));
  }
  for (size_t k = 0; k < names.size(); ++k) {
    out.histories[names[k]] = h.row(static_cast<Eigen::Index>(k)).transpose();
  }
  const auto integral_names = integral_outputs();
  for (size_t k = 0; k < integral_names.size(); ++k) out.scalars[integral_names[k]] = integrals(k);
  scalars_from_histories(out);
}

std::string OdeModel::analyse_with_derivatives(const Eigen::VectorXd&, const LoadCaseSpec&,
                                               const std::vector<int>&,
                                               const std::vector<OutputPoint>&, bool, CaseResult&,
                                               Eigen::MatrixXd&) const {
  return "model " + name() + " does not differentiate its own responses";
}

double Model::load_parameter(const LoadCaseSpec& lc, const std::string& key) const {
  if (auto it = lc.parameters.find(key); it != lc.parameters.end()) return it->second;
  std::call_once(defaults_once_, [this] { defaults_ = load_parameters(); });
  if (auto it = defaults_.find(key); it != defaults_.end()) return it->second;
  throw std::logic_error("model " + name() + " reads load-case parameter \"" + key +
                         "\" but does not declare it");
}

const Model* find_model(const std::string& name) {
  for (const Model* m : all_models()) {
    if (m->name() == name) return m;
  }
  return nullptr;
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const Model* m : all_models()) names.push_back(m->name());
  return names;
}

}  // namespace sao::sim
