// Models of the internal simulator.
//
// A model is constant and shared read-only by every parallel evaluation (the Pinocchio
// split of ARCHITECTURE.md): it declares its parameters (mapped from design variables or
// constants by the study's simulator section), the load-case parameters it reads, the
// responses it delivers, and its equations x' = f(t, x; p). The InternalSimulator
// (internal_simulator.hpp) integrates any model with CVODES and differentiates it; the
// multibody formulation becomes further models here, not a second simulator.
#pragma once

#include <Eigen/Dense>
#include <map>
#include <string>
#include <vector>

#include "sao/simulator.hpp"

namespace sao::sim {

class OdeModel {
 public:
  virtual ~OdeModel() = default;
  virtual std::string name() const = 0;
  // Model parameter names, in the order of the vector `p` below.
  virtual std::vector<std::string> parameters() const = 0;
  // Load-case parameters the model reads, with their defaults.
  virtual std::map<std::string, double> load_parameters() const = 0;
  virtual std::vector<ResponseInfo> responses() const = 0;
  virtual int state_size() const = 0;
  virtual Eigen::VectorXd initial_state(const Eigen::VectorXd& p, const LoadCaseSpec& lc) const = 0;
  // CVODES contract: 0 ok, > 0 recoverable, < 0 fatal.
  virtual int rhs(double t, const double* x, double* xdot, const Eigen::VectorXd& p,
                  const LoadCaseSpec& lc) const = 0;
  // Fills the histories (on lc.grid) and scalars from the states at the grid points.
  virtual void outputs(const Eigen::MatrixXd& states, const Eigen::VectorXd& p,
                       const LoadCaseSpec& lc, CaseResult& out) const = 0;

  // A load-case parameter, or the model's default for it.
  double load_parameter(const LoadCaseSpec& lc, const std::string& key) const;
};

// One function per model file.
const OdeModel& impact_absorber_model();

// The models compiled into the internal simulator; nullptr for an unknown name.
const OdeModel* find_model(const std::string& name);
std::vector<std::string> model_names();

}  // namespace sao::sim
