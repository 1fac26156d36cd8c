// The CVODES boundary of the internal simulator: one call integrates an ODE over a grid.
//
// The InternalSimulator (internal_simulator.hpp) turns a model and a design into a
// right-hand side x' = f(t, x) and calls integrate(), which returns the state at every point
// of the load case's TimeGrid. All SUNDIALS handles live inside that call (RAII), each call
// owns its own SUNContext, so integrations run in parallel threads. CVODES return flags
// become a status value here, never an exception. The right-hand side follows the CVODES
// contract: return 0 when fine, > 0 for a recoverable failure (CVODES retries with a smaller
// step), < 0 to stop; an exception thrown by it counts as < 0.
#pragma once

#include <Eigen/Dense>
#include <functional>
#include <string>

#include "sao/simulator.hpp"

namespace sao::sim {

enum class Multistep {
  kBdf,    // backward differentiation formulas, orders 1-5: stiff problems
  kAdams,  // Adams-Moulton, orders 1-12: non-stiff problems
};

struct IntegratorSettings {
  Multistep method = Multistep::kBdf;  // both use Newton iterations with a dense solver
  double rtol = 1e-8;                  // relative tolerance (> 0)
  double atol = 1e-10;                 // absolute tolerance, in the units of the state (> 0)
  long max_steps = 100000;             // internal steps allowed between two grid points
};

// f(t, x, xdot): x and xdot hold state_size values; returns 0 ok, > 0 recoverable, < 0 fatal.
using RightHandSide = std::function<int(double t, const double* x, double* xdot)>;

struct IntegrationResult {
  bool ok = false;
  std::string message;     // when !ok: the CVODES flag, the time reached and CVODES's text
  Eigen::MatrixXd states;  // when ok: rows = grid points, cols = state components
  long steps = 0;          // internal steps taken
};

// Integrates from grid.start, where x = x0, to grid.end. Throws std::invalid_argument only
// for a caller's mistake (empty x0, grid with fewer than 2 points or end <= start).
IntegrationResult integrate(const RightHandSide& rhs, const Eigen::VectorXd& x0,
                            const TimeGrid& grid, const IntegratorSettings& settings);

const char* to_string(Multistep method);

}  // namespace sao::sim
