// Models of the internal simulator: the equations, separate from how they are solved.
//
// A model is constant and shared read-only by every parallel evaluation (the Pinocchio
// model/data split of ARCHITECTURE.md: whatever an evaluation changes lives in that
// evaluation, never in the model). It declares the parameters it needs (the study's simulator
// section maps them onto design variables or constants), the load-case parameters it reads,
// the responses it delivers, and how one analysis computes them. Two kinds exist: an OdeModel
// gives its equations x' = f(t, x; p) and is integrated with CVODES; a closed-form model
// (kinematics without differential equations) computes its responses directly. The
// InternalSimulator (internal_simulator.hpp) runs and differentiates any model; further models
// (the multibody formulation) join the list in model.cpp, not a second simulator.
#pragma once

#include <Eigen/Dense>
#include <map>
#include <string>
#include <vector>

#include "sao/simulator.hpp"
#include "simulators/cvodes_integrator.hpp"

namespace sao::sim {

class Model {
 public:
  virtual ~Model() = default;
  virtual std::string name() const = 0;
  // Model parameter names, in the order of the vector `p` of the functions below.
  virtual std::vector<std::string> parameters() const = 0;
  // Load-case parameters the model reads (LoadCaseSpec::parameters), with their defaults.
  virtual std::map<std::string, double> load_parameters() const = 0;
  // The responses an analysis delivers: histories on the load case's grid, and scalars.
  virtual std::vector<ResponseInfo> responses() const = 0;
  // One analysis for parameters p in load case lc: fills `out` with every response and
  // returns "", or returns why it failed (no assembly, integrator failure, ...).
  virtual std::string analyse(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                              const IntegratorSettings& settings, CaseResult& out) const = 0;

  // The value of a load-case parameter in `lc`, or the model's default for it.
  double load_parameter(const LoadCaseSpec& lc, const std::string& key) const;
};

// A model given by ordinary differential equations, integrated with CVODES.
class OdeModel : public Model {
 public:
  std::string analyse(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                      const IntegratorSettings& settings, CaseResult& out) const override;

  virtual int state_size() const = 0;
  // x(t0), state_size() values, for parameters p (parameters().size() values).
  virtual Eigen::VectorXd initial_state(const Eigen::VectorXd& p, const LoadCaseSpec& lc) const = 0;
  // xdot = f(t, x; p), both arrays of state_size(). CVODES contract: return 0 ok, > 0
  // recoverable (CVODES retries with a smaller step), < 0 fatal.
  virtual int rhs(double t, const double* x, double* xdot, const Eigen::VectorXd& p,
                  const LoadCaseSpec& lc) const = 0;
  // Every response of responses() from the states at the grid points (rows = lc.grid.points,
  // cols = state_size()): histories get one value per grid point, scalars one value.
  virtual void outputs(const Eigen::MatrixXd& states, const Eigen::VectorXd& p,
                       const LoadCaseSpec& lc, CaseResult& out) const = 0;
};

// One accessor per model file.
const OdeModel& impact_absorber_model();  // "impact-absorber"
const Model& slider_crank_path_model();   // "slider-crank-path" (closed-form kinematics)

// The models compiled into the internal simulator, by name; nullptr for an unknown name.
const Model* find_model(const std::string& name);
std::vector<std::string> model_names();

}  // namespace sao::sim
