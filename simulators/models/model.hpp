// Models of the internal simulator: the equations, separate from how they are solved.
//
// A model is constant and shared read-only by every parallel evaluation (the Pinocchio
// model/data split of docs/architecture.md: whatever an evaluation changes lives in that
// evaluation, never in the model). It declares the parameters it needs (the study's simulator
// section maps them onto design variables or constants), the load-case parameters it reads,
// the responses it delivers, and how one analysis computes them. Two kinds exist: an OdeModel
// gives its equations x' = f(t, x; p) and is integrated with CVODES; a closed-form model
// (kinematics without differential equations) computes its responses directly; each says which
// it is (Model::ode()). The InternalSimulator (internal_simulator.hpp) runs and differentiates
// any model: the built-in ones are listed in model.cpp, the multibody models
// (multibody/multibody.hpp) are described in the study.
#pragma once

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unsupported/Eigen/AutoDiff>
#include <vector>

#include "sao/seam/simulator.hpp"
#include "simulators/integrator/cvodes_integrator.hpp"

namespace sao::sim {

// One value of a history output: output index k (history_outputs order) at grid point i.
struct OutputPoint {
  int output = 0;
  int point = 0;
};

class OdeModel;

class Model {
 public:
  virtual ~Model() = default;
  virtual std::string name() const = 0;
  // Model parameter names, in the order of the vector `p` of the functions below.
  virtual std::vector<std::string> parameters() const = 0;
  // Load-case parameters the model reads (LoadCaseSpec::parameters), with their defaults.
  virtual std::map<std::string, double> load_parameters() const = 0;
  // Values of model parameters the study need not map (a multibody model's "parameters").
  virtual std::map<std::string, double> parameter_defaults() const { return {}; }
  // The responses an analysis delivers: histories on the load case's grid, and scalars.
  virtual std::vector<ResponseInfo> responses() const = 0;
  // One analysis for parameters p in load case lc: fills `out` with every response and
  // returns "", or returns why it failed (no assembly, integrator failure, ...).
  virtual std::string analyse(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                              const IntegratorSettings& settings, CaseResult& out) const = 0;

  // The value of a load-case parameter in `lc`, or the model's default for it. Models read
  // them in their right-hand sides and outputs, at every step: the defaults are taken from
  // load_parameters() once, at the first call, not built again per call.
  double load_parameter(const LoadCaseSpec& lc, const std::string& key) const;

  // What the model is: an OdeModel, to which direct and adjoint sensitivities apply, or null
  // for a closed-form model (finite differences only).
  virtual const OdeModel* ode() const { return nullptr; }
  // Why an analysis of load case lc at parameters p took `steps` integrator steps, when the
  // model knows a cause the user can change (a multibody model: an undamped beam whose
  // elements' fastest waves set CVODES's steps); empty otherwise. The internal simulator warns
  // with the first such note of a run.
  virtual std::string step_note(const Eigen::VectorXd& /*p*/, const LoadCaseSpec& /*lc*/,
                                long /*steps*/) const {
    return {};
  }

 private:
  mutable std::once_flag defaults_once_;            // load_parameter's defaults, set once
  mutable std::map<std::string, double> defaults_;  // (a model is shared by threads)
};

using AD = Eigen::AutoDiffScalar<Eigen::VectorXd>;

// AD copies of x (n values; null: zeros) and p seeded for the Jacobian [d/dx | d/dp_active]:
// x_i is direction i, p_active[a] direction n + a, the other parameters constants.
void seed_ad(const double* x, int n, Eigen::Ref<const Eigen::VectorXd> p,
             const std::vector<int>& active, std::vector<AD>& xs, std::vector<AD>& ps);

// A model given by ordinary differential equations x' = f(t, x; p), x(t0) = x0(p), with
// outputs: history outputs h_k(t, x; p) on the grid and integral outputs, the integral of
// g_k(t, x; p) over the grid's span (CVODES quadratures, not a sum on the grid). The equations
// exist on double and on automatic-differentiation scalars (AD): TemplatedOdeModel writes
// both from one template, so Jacobians for direct and adjoint sensitivities are exact and no
// derivative is coded by hand.
class OdeModel : public Model {
 public:
  const OdeModel* ode() const override { return this; }
  std::vector<ResponseInfo> responses() const override;
  std::string analyse(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                      const IntegratorSettings& settings, CaseResult& out) const override;
  // analyse(), keeping the forward pass for an adjoint gradient at this design next
  // (integrate_keeping, cvodes_integrator.hpp): the same responses. A model that is not
  // integrated by CVODES (differentiates_itself) keeps nothing and leaves `kept` empty.
  std::string analyse_keeping(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                              const IntegratorSettings& settings, CaseResult& out,
                              std::unique_ptr<ForwardPass>& kept) const;

  // A model whose analysis is not integrated but solved point by point (the kinematic
  // multibody analysis) differentiates its own responses: the values of history output k at
  // grid point i (`wanted`), differentiated with respect to the parameters `active` by the
  // direct or the adjoint method, into `rows` (wanted x active); every response into `out`.
  virtual bool differentiates_itself() const { return false; }
  // A model integrated by a fixed-step discrete map (the multibody variational integrator)
  // that differentiates that map exactly: "auto" sensitivities choose "discrete_adjoint".
  virtual bool discrete_map() const { return false; }
  virtual std::string analyse_with_derivatives(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                               const std::vector<int>& active,
                                               const std::vector<OutputPoint>& wanted, bool adjoint,
                                               CaseResult& out, Eigen::MatrixXd& rows) const;

  virtual int state_size() const = 0;
  // The largest internal step the integrator may take in load case lc (0: no limit): a model
  // driven by short input features (a rail on a road) sets it so that no step jumps over one
  // while the state is at rest. simulator.max_step overrides it.
  virtual double max_step(const LoadCaseSpec&) const { return 0.0; }
  // The oldest Jacobian the implicit integrator may use, in steps (0: the integrator's
  // default). Stiff elements whose stiffness turns with the motion (beams in absolute
  // coordinates) make an older one a bad Newton matrix: Newton fails and the step collapses.
  virtual long jacobian_age() const { return 0; }
  virtual std::vector<std::string> history_outputs() const = 0;
  virtual std::vector<std::string> integral_outputs() const { return {}; }
  // Scalars computed from the histories, without derivatives (e.g. max |y|).
  virtual std::vector<std::string> history_scalars() const { return {}; }
  virtual void scalars_from_histories(CaseResult&) const {}

  // x0(p): parameters().size() values in, state_size() out.
  virtual void initial_state(const double* p, double* x0, const LoadCaseSpec& lc) const = 0;
  virtual void initial_state(const AD* p, AD* x0, const LoadCaseSpec& lc) const = 0;
  // xdot = f(t, x; p). CVODES contract for the double version: 0 ok, > 0 recoverable
  // (CVODES retries with a smaller step), < 0 fatal.
  virtual int rhs(double t, const double* x, double* xdot, const double* p,
                  const LoadCaseSpec& lc) const = 0;
  virtual void rhs(double t, const AD* x, AD* xdot, const AD* p, const LoadCaseSpec& lc) const = 0;
  // The right-hand side linearised at (t, x) by a model that forms its derivatives more
  // cheaply than automatic differentiation through the whole of f can (Multibody: through
  // its augmented system instead of the solve). One linearisation serves the Jacobian and
  // any number of vector-Jacobian products lambda' [df/dx | df/dp_active] (the adjoint's
  // backward right-hand sides at one point differ only in lambda).
  struct Linearization {
    virtual ~Linearization() = default;
    // [df/dx | df/dp_active]: n x (n + na)
    virtual void jacobian(Eigen::MatrixXd& out) const = 0;
    // lambda' [df/dx | df/dp_active]: n + na values
    virtual void vector_jacobian(const double* lambda, Eigen::VectorXd& out) const = 0;
    // Lambda' [df/dx | df/dp_active] for the n x m block Lambda, transposed: (n + na) x m (the
    // shared backward sweep's right-hand sides); by default a vector_jacobian per column.
    virtual void block_vector_jacobian(const Eigen::Ref<const Eigen::MatrixXd>& lambda,
                                       Eigen::MatrixXd& out) const {
      Eigen::VectorXd column, product;
      for (Eigen::Index c = 0; c < lambda.cols(); ++c) {
        column = lambda.col(c);
        vector_jacobian(column.data(), product);
        out.resize(product.size(), lambda.cols());
        out.col(c) = product;
      }
    }
    // df/dx S + df/dp_active for the n x na matrix S: n x na (the direct method's
    // right-hand sides).
    virtual void jacobian_times(const Eigen::MatrixXd& S, Eigen::MatrixXd& out) const = 0;
    // The Newton matrix I - gamma df/dx as a sparse matrix whose Schur complement onto its first
    // n unknowns it is (right-hand side: b and zeros), for an Instance that is `sparse`; false
    // when the model forms none.
    virtual bool newton_matrix(double /*gamma*/, Eigen::SparseMatrix<double>& /*out*/) const {
      return false;
    }
  };
  // The model in one run: at parameters p, in load case lc, differentiated with respect to
  // the parameters `active`. What stays constant over the run is prepared when it is made
  // (a multibody model evaluates its parameter-only expressions and their derivatives once),
  // and its scratch memory is reused from call to call, so one integration (one thread) uses
  // it at a time. The default one calls the model's functions above with p.
  class Instance {
   public:
    virtual ~Instance() = default;
    // x' at (t, x), with the CVODES contract of `rhs`.
    virtual int rhs(double t, const double* x, double* xdot) = 0;
    // The linearisation at (t, x), or null: then the Jacobian is AD through `rhs`. Throws
    // std::runtime_error when the equations are singular there.
    virtual std::unique_ptr<Linearization> linearize(double /*t*/, const double* /*x*/) {
      return nullptr;
    }
    // The state's error tolerances at x (one per component, > 0) for rtol and atol, when the
    // model needs others than rtol |x_i| + atol (`own_tolerances`).
    virtual bool own_tolerances() const { return false; }
    // Whether the state is x = (q, v) with q' = v (OdeSystem::second_order).
    virtual bool second_order() const { return false; }
    // Whether the Newton matrices are formed sparse by the linearisations (newton_matrix) and
    // factored by a sparse LU (OdeSystem::newton_setup) instead of from the dense Jacobian.
    virtual bool sparse() const { return false; }
    virtual void tolerances(const double* /*x*/, double /*rtol*/, double /*atol*/,
                            double* /*tolerance*/) {}
    // The integrands g_k of the integral outputs at (t, x).
    virtual void integrands(double t, const double* x, double* g) = 0;
    // [dg/dx | dg/dp_active] of the integrands at (t, x): nq x (n + na).
    virtual void integrand_jacobian(double t, const double* x, Eigen::MatrixXd& jac) = 0;
  };
  virtual std::unique_ptr<Instance> instance(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                             const std::vector<int>& active) const;
  // Output k: history outputs first, then the integrands of the integral outputs.
  virtual double output(int k, double t, const double* x, const double* p,
                        const LoadCaseSpec& lc) const = 0;
  virtual AD output(int k, double t, const AD* x, const AD* p, const LoadCaseSpec& lc) const = 0;

  // Why the right-hand side fails at (t, x) ("" when it does not): named in the integrator's
  // error when a step fails there.
  virtual std::string diagnose(double /*t*/, const double* /*x*/, const double* /*p*/,
                               const LoadCaseSpec&) const {
    return "";
  }
  // Every history output at (t, x) into `h` (history_outputs().size() values); a model that
  // shares work between its outputs (one solve for all accelerations and reactions)
  // overrides it.
  virtual void history_outputs_at(double t, const double* x, const double* p,
                                  const LoadCaseSpec& lc, Eigen::Ref<Eigen::VectorXd> h) const {
    for (Eigen::Index k = 0; k < h.size(); ++k) h(k) = output(static_cast<int>(k), t, x, p, lc);
  }
  // The CVODES system for parameters p, with exact Jacobians with respect to the state and
  // to the parameters listed in `active` (indices into p): the callbacks of one Instance,
  // whose scratch memory they share, so the system serves one integration at a time.
  OdeSystem system(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                   const std::vector<int>& active) const;
  // Every response into `out` from the states on the grid and the integral values.
  void fill_outputs(const Eigen::MatrixXd& states, const Eigen::VectorXd& integrals,
                    const Eigen::VectorXd& p, const LoadCaseSpec& lc, CaseResult& out) const;
  // [dh_k/dx | dh_k/dp_active] of output k at (t, x).
  Eigen::RowVectorXd output_gradient(int k, double t, const Eigen::VectorXd& x,
                                     const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                     const std::vector<int>& active) const;

 private:
  // The responses of an integration into `out` (its steps included); "" or its failure.
  std::string values(const SystemResult& r, const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                     CaseResult& out) const;
};

// Writes the double and AD versions of an OdeModel from the templates of `Derived`:
//   template <class S> void initial(const S* p, S* x0, const LoadCaseSpec&) const;
//   template <class S> void equations(double t, const S* x, S* xdot, const S* p,
//                                     const LoadCaseSpec&) const;
//   template <class S> S out(int k, double t, const S* x, const S* p, const LoadCaseSpec&) const;
template <class Derived>
class TemplatedOdeModel : public OdeModel {
 public:
  void initial_state(const double* p, double* x0, const LoadCaseSpec& lc) const override {
    self().template initial<double>(p, x0, lc);
  }
  void initial_state(const AD* p, AD* x0, const LoadCaseSpec& lc) const override {
    self().template initial<AD>(p, x0, lc);
  }
  int rhs(double t, const double* x, double* xdot, const double* p,
          const LoadCaseSpec& lc) const override {
    self().template equations<double>(t, x, xdot, p, lc);
    return 0;
  }
  void rhs(double t, const AD* x, AD* xdot, const AD* p, const LoadCaseSpec& lc) const override {
    self().template equations<AD>(t, x, xdot, p, lc);
  }
  double output(int k, double t, const double* x, const double* p,
                const LoadCaseSpec& lc) const override {
    return self().template out<double>(k, t, x, p, lc);
  }
  AD output(int k, double t, const AD* x, const AD* p, const LoadCaseSpec& lc) const override {
    return self().template out<AD>(k, t, x, p, lc);
  }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
};

// One accessor per model file.
const OdeModel& impact_absorber_model();  // "impact-absorber"
const OdeModel& oscillator_model();       // "oscillator" (seed 000)
const OdeModel& quarter_car_model();      // "quarter-car" (seed 003, chapter 7)
const Model& slider_crank_path_model();   // "slider-crank-path" (closed-form kinematics)

// The models compiled into the internal simulator, by name; nullptr for an unknown name.
const Model* find_model(const std::string& name);
std::vector<std::string> model_names();

}  // namespace sao::sim
