// Internal to simulators/integrator/: the SUNDIALS objects of one CVODES integration and the
// helpers that cvodes_integrator.cpp (forward, direct, per-functional adjoint) and
// adjoint_sweep.cpp (the adjoint method's shared backward sweep) have in common.
#pragma once

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>

#include <Eigen/Dense>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "simulators/integrator/cvodes_integrator.hpp"

namespace sao::sim::detail {

// Every SUNDIALS object of one integration, freed in reverse order of creation. It is also
// the user data of the callbacks: they reach the system and record errors here.
struct CvodesSession {
  SUNContext context = nullptr;
  N_Vector state = nullptr;
  N_Vector quad = nullptr;
  N_Vector* sens = nullptr;
  N_Vector* quad_sens = nullptr;
  int n_sens = 0;
  SUNMatrix matrix = nullptr;
  SUNLinearSolver solver = nullptr;
  // Backward problem of the adjoint method.
  N_Vector adjoint = nullptr;
  N_Vector adjoint_quad = nullptr;
  SUNMatrix matrix_b = nullptr;
  SUNLinearSolver solver_b = nullptr;
  void* memory = nullptr;
  const OdeSystem* system = nullptr;
  double rtol = 0.0, atol = 0.0;          // of the forward problem, for system->tolerances
  int adjoint_quadrature = -1;            // the quadrature whose g_x drives the backward problem
  Eigen::MatrixXd work_q;                 // quadrature Jacobian scratch of the callbacks
  Eigen::VectorXd vjp;                    // lambda' [f_x | f_p] of the adjoint callbacks
  Eigen::MatrixXd sens_matrix, sens_rhs;  // S and f_x S + f_p of the sensitivity callback
  // Where the sensitivity callback was last called, and whether no Newton setup came since
  // (jac_callback's reuse).
  double sens_t = NAN;
  Eigen::VectorXd sens_x;
  bool sens_point_fresh = false;
  // Shared backward sweep: `block` adjoint vectors (columns of an n x block matrix), the first
  // `active` of them joined; per column the quadrature of an integral functional (else -1).
  int block = 0, active = 0;
  std::vector<int> block_quadrature;
  Eigen::MatrixXd
      block_vjp;  // Lambda' [f_x | f_p] of the joined columns (system->block_vector_jacobian)
  // [f_x | f_p] at (jacobian_t, jacobian_x), shared by the callbacks: jacobian_at().
  Eigen::MatrixXd jacobian;
  Eigen::VectorXd jacobian_x;
  double jacobian_t = NAN;
  std::string cvodes_error;  // CVODES's text of its last error
  std::string rhs_error;     // what a callback threw, if it did
  std::string rhs_failure;   // why the last right-hand side call failed, if it did

  CvodesSession() = default;
  CvodesSession(const CvodesSession&) = delete;
  CvodesSession& operator=(const CvodesSession&) = delete;
  ~CvodesSession() {
    if (memory) CVodeFree(&memory);
    if (solver_b) SUNLinSolFree(solver_b);
    if (matrix_b) SUNMatDestroy(matrix_b);
    if (adjoint_quad) N_VDestroy(adjoint_quad);
    if (adjoint) N_VDestroy(adjoint);
    if (solver) SUNLinSolFree(solver);
    if (matrix) SUNMatDestroy(matrix);
    if (quad_sens) N_VDestroyVectorArray(quad_sens, n_sens);
    if (sens) N_VDestroyVectorArray(sens, n_sens);
    if (quad) N_VDestroy(quad);
    if (state) N_VDestroy(state);
    if (context) SUNContext_Free(&context);
  }
  int n() const { return static_cast<int>(system->x0.size()); }
  int np() const { return system->parameters; }
};

// Exceptions must not cross the C code of CVODES: they become a fatal return.
template <class Body>
int guarded(void* user_data, Body body) {
  auto& s = *static_cast<CvodesSession*>(user_data);
  try {
    return body(s);
  } catch (const std::exception& e) {
    s.rhs_error = std::string("the model threw: ") + e.what();
  } catch (...) {
    s.rhs_error = "the model threw";
  }
  return -1;
}

inline double* data(N_Vector v) {
  return N_VGetArrayPointer(v);
}

// A derivative callback's result (`what`, `size` values at `out`): 0 when every value is
// finite, else 1, a recoverable failure (CVODES retries with a smaller step, and gives up when
// it persists) whose reason the failure's message carries. An infinite or NaN derivative means
// the model is not differentiable there (sqrt or abs at 0, a kink of a table), and CVODES
// would otherwise fail later with a message about its steps or time, or return NaN.
inline int finite_derivatives(CvodesSession& s, const char* what, const double* out,
                              Eigen::Index size, double t) {
  if (Eigen::Map<const Eigen::VectorXd>(out, size).allFinite()) {
    s.rhs_failure.clear();  // CVODES recovered, or nothing failed
    return 0;
  }
  std::ostringstream msg;
  msg << "the " << what << " is not finite at t = " << t
      << ": the model is not differentiable there (an expression such as sqrt or abs at 0)";
  s.rhs_failure = msg.str();
  return 1;
}

// The system's [f_x | f_p] at (t, x), evaluated again only when (t, x) is not the point of the
// last evaluation: CVODES calls several callbacks at one point (the staggered sensitivity
// corrector calls fS at every iteration of a step with the step's state; the backward sweep's
// right-hand side, quadratures and Newton matrix share a point), and the Jacobian is a function
// of (t, x) alone. The key is dropped before the evaluation, so a throw leaves nothing stale.
inline const Eigen::MatrixXd& jacobian_at(CvodesSession& s, double t, const double* x) {
  const Eigen::Map<const Eigen::VectorXd> xv(x, s.n());
  if (!(t == s.jacobian_t) || s.jacobian_x != xv) {
    s.jacobian_t = NAN;
    s.system->jacobian(t, x, s.jacobian);
    s.jacobian_x = xv;
    s.jacobian_t = t;
  }
  return s.jacobian;
}

// "CVODES <what>: <flag>" with CVODES's text and the model's failure, for a result's message.
std::string describe(const CvodesSession& s, const std::string& what, int flag);

// The callbacks of a backward problem: one adjoint vector, or the shared sweep's block.
struct BackwardCallbacks {
  CVRhsFnB rhs;
  CVQuadRhsFnB quadrature;
  CVLsJacFnB jacobian;
};
// The per-functional callbacks (cvodes_integrator.cpp) and the shared sweep's (adjoint_sweep.cpp).
extern const BackwardCallbacks kOneFunctional;
extern const BackwardCallbacks kSharedSweep;

// The backward problem's Newton matrices for `blocks` adjoint vectors into s.matrix_b and
// s.solver_b: the system's own (newton_b_setup; start_backward then sets its linear system
// function), else dense (the half-size Schur complement's for a second-order system, or the
// shared sweep's block solver); false when out of memory.
bool backward_solver(CvodesSession& s, const OdeSystem& system, int blocks);

// Starts the backward problem at t_start: created and set up the first time (which < 0, then
// set), re-initialised for every further functional or stop. The tolerances are the settings'
// times `scale`. Returns the CVODES flag.
int start_backward(CvodesSession& s, const OdeSystem& system, const IntegratorSettings& settings,
                   double t_start, int& which, const BackwardCallbacks& callbacks, double scale);

// The shared backward sweep after the forward pass (adjoint_system): every functional's
// gradient into result.gradients; false (with the message) on failure.
bool shared_sweep(CvodesSession& s, const OdeSystem& system, const TimeGrid& grid,
                  const IntegratorSettings& settings, const std::vector<AdjointFunctional>& wanted,
                  AdjointResult& result);

}  // namespace sao::sim::detail
