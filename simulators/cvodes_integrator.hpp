// A thin RAII boundary around SUNDIALS CVODES for the internal simulator.
//
// Integrates x' = f(t, x) from the first to the last point of a TimeGrid and returns the
// state at every grid point. Each call owns its own SUNContext and solver memory, so
// integrations run in parallel threads. CVODES return flags become a status value here
// (never an exception); the right-hand side follows CVODES's contract: return 0 when fine,
// > 0 for a recoverable failure (CVODES retries with a smaller step), < 0 to stop.
#pragma once

#include <Eigen/Dense>
#include <functional>
#include <string>

#include "sao/simulator.hpp"

namespace sao::sim {

struct IntegratorSettings {
  double rtol = 1e-8;
  double atol = 1e-10;
  long max_steps = 100000;  // per output interval
  bool stiff = true;        // BDF with a dense Newton solver; false: Adams, functional
};

// f(t, x, xdot) -> 0 ok, > 0 recoverable, < 0 fatal.
using RightHandSide = std::function<int(double t, const double* x, double* xdot)>;

struct IntegrationResult {
  bool ok = false;
  std::string message;     // the CVODES flag and the time reached, when !ok
  Eigen::MatrixXd states;  // rows = grid points, cols = state components
  long steps = 0;
};

IntegrationResult integrate(const RightHandSide& rhs, const Eigen::VectorXd& x0,
                            const TimeGrid& grid, const IntegratorSettings& settings);

}  // namespace sao::sim
