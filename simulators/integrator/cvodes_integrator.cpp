#include "simulators/integrator/cvodes_integrator.hpp"

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <spdlog/spdlog.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "simulators/integrator/cvodes_session.hpp"
#include "simulators/integrator/second_order_solver.hpp"

namespace sao::sim {
using namespace detail;  // NOLINT: the session and helpers of cvodes_session.hpp
namespace {

// Error-test failures allowed on one step, forward and backward (CVODES's default: 7). Each
// failure shrinks the step by at most 10, so a step onto a jump of the right-hand side in time
// (a road profile whose curvature jumps where it starts and ends, a switched input) needs about
// log10(h jump / tolerance) of them: 7 took the truck's wave (a jump of 7.8 m/s^2 in a road
// plate's acceleration, its velocity's tolerance 1e-9) from 1e-3 s to 4.7e-9 s, not to the
// 1e-10 s it needed (docs/results.md, truck-vehicle; tests/simulators/road_kink_test.cpp). Only
// the limit changes: a run that passes with 7 takes the same steps with 20.
constexpr int kMaxErrorTestFailures = 20;

int rhs_callback(sunrealtype t, N_Vector x, N_Vector xdot, void* user_data) {
  return guarded(user_data, [&](CvodesSession& s) {
    const int flag = s.system->rhs(t, data(x), data(xdot));
    if (flag == 0) {
      s.rhs_failure.clear();  // CVODES recovered
    } else if (s.system->diagnose) {
      s.rhs_failure = s.system->diagnose(t, data(x));
    }
    return flag;
  });
}

// CVODES's error weights 1 / tolerance, from the system's tolerances.
int weights_callback(N_Vector x, N_Vector weights, void* user_data) {
  return guarded(user_data, [&](CvodesSession& s) {
    double* w = data(weights);
    s.system->tolerances(data(x), s.rtol, s.atol, w);
    for (int i = 0; i < s.n(); ++i) {
      if (!(w[i] > 0.0)) return -1;
      w[i] = 1.0 / w[i];
    }
    return 0;
  });
}

int quad_callback(sunrealtype t, N_Vector x, N_Vector qdot, void* user_data) {
  return guarded(user_data, [&](CvodesSession& s) {
    s.system->quadrature(t, data(x), data(qdot));
    return 0;
  });
}

// J = df/dx from the model's exact Jacobian, for the Newton matrix. A model that wants its
// Jacobian at every step (jacobian_age 1) gets, in a run with direct sensitivities, the one at
// the point where the sensitivity right-hand sides were last formed (the previous step's
// solution, linearised there already) instead of a new linearisation at the predicted point:
// one linearisation per step instead of two. Once: a repeated setup (after a Newton failure)
// linearises where CVODES asks.
int jac_callback(sunrealtype t, N_Vector x, N_Vector, SUNMatrix J, void* user_data, N_Vector,
                 N_Vector, N_Vector) {
  return guarded(user_data, [&](CvodesSession& s) {
    const bool reuse = s.sens_point_fresh && s.system->jacobian_age == 1;
    s.sens_point_fresh = false;
    const Eigen::MatrixXd& jac =
        reuse ? jacobian_at(s, s.sens_t, s.sens_x.data()) : jacobian_at(s, t, data(x));
    const int n = s.n();
    for (int j = 0; j < n; ++j) {
      double* col = SUNDenseMatrix_Column(J, j);
      for (int i = 0; i < n; ++i) col[i] = jac(i, j);
    }
    return 0;
  });
}

// The Newton matrix I - gamma f_x of a system that forms and factors it itself (newton_setup): a
// new linearisation where CVODES would evaluate its Jacobian again (jok false), else the last
// one with the new gamma.
int linsys_callback(sunrealtype t, N_Vector x, N_Vector, SUNMatrix, sunbooleantype jok,
                    sunbooleantype* jcur, sunrealtype gamma, void* user_data, N_Vector, N_Vector,
                    N_Vector) {
  return guarded(user_data, [&](CvodesSession& s) {
    *jcur = jok ? SUNFALSE : SUNTRUE;
    return s.system->newton_setup(t, data(x), gamma, !jok);
  });
}

// s_i' = f_x s_i + f_p e_i for every parameter i.
int sens_callback(int ns, sunrealtype t, N_Vector x, N_Vector, N_Vector* xs, N_Vector* xsdot,
                  void* user_data, N_Vector, N_Vector) {
  return guarded(user_data, [&](CvodesSession& s) {
    const int n = s.n();
    s.sens_t = t;
    s.sens_x = Eigen::Map<const Eigen::VectorXd>(data(x), n);
    s.sens_point_fresh = true;
    s.sens_matrix.resize(n, ns);
    for (int i = 0; i < ns; ++i) {
      s.sens_matrix.col(i) = Eigen::Map<const Eigen::VectorXd>(data(xs[i]), n);
    }
    if (s.system->sensitivity_rhs) {
      s.system->sensitivity_rhs(t, data(x), s.sens_matrix, s.sens_rhs);
    } else {
      sensitivity_rhs_from_jacobian(jacobian_at(s, t, data(x)), s.sens_matrix, s.sens_rhs);
    }
    if (const int flag = finite_derivatives(s, "sensitivity right-hand side", s.sens_rhs.data(),
                                            s.sens_rhs.size(), t)) {
      return flag;
    }
    for (int i = 0; i < ns; ++i) {
      Eigen::Map<Eigen::VectorXd>(data(xsdot[i]), n) = s.sens_rhs.col(i);
    }
    return 0;
  });
}

// dq_k/dp_i' = g_x s_i + g_p e_i.
int quad_sens_callback(int ns, sunrealtype t, N_Vector x, N_Vector* xs, N_Vector, N_Vector* qsdot,
                       void* user_data, N_Vector, N_Vector) {
  return guarded(user_data, [&](CvodesSession& s) {
    s.system->quadrature_jacobian(t, data(x), s.work_q);
    const int n = s.n();
    const int nq = s.system->quadratures;
    for (int i = 0; i < ns; ++i) {
      Eigen::Map<const Eigen::VectorXd> si(data(xs[i]), n);
      Eigen::Map<Eigen::VectorXd> out(data(qsdot[i]), nq);
      out.noalias() = s.work_q.leftCols(n) * si;
      out += s.work_q.col(n + i);
      if (const int flag =
              finite_derivatives(s, "integrals' sensitivity right-hand side", out.data(), nq, t)) {
        return flag;
      }
    }
    return 0;
  });
}

// lambda' [f_x | f_p] at (t, x): from the system's vector-Jacobian product, else from its
// Jacobian.
const Eigen::VectorXd& lambda_jacobian(CvodesSession& s, double t, N_Vector x, N_Vector lambda) {
  if (s.system->vector_jacobian) {
    s.system->vector_jacobian(t, data(x), data(lambda), s.vjp);
  } else {
    s.vjp.noalias() = jacobian_at(s, t, data(x)).transpose() *
                      Eigen::Map<const Eigen::VectorXd>(data(lambda), s.n());
  }
  return s.vjp;
}

// lambda' = -f_x' lambda (- g_x' for an integral functional).
int adjoint_callback(sunrealtype t, N_Vector x, N_Vector lambda, N_Vector lambda_dot,
                     void* user_data) {
  return guarded(user_data, [&](CvodesSession& s) {
    const int n = s.n();
    Eigen::Map<Eigen::VectorXd> out(data(lambda_dot), n);
    out = -lambda_jacobian(s, t, x, lambda).head(n);
    if (s.adjoint_quadrature >= 0) {
      s.system->quadrature_jacobian(t, data(x), s.work_q);
      out -= s.work_q.row(s.adjoint_quadrature).head(n).transpose();
    }
    return finite_derivatives(s, "adjoint right-hand side", out.data(), n, t);
  });
}

// Backward quadrature -(lambda' f_p + g_p): integrated from the functional's time down to t0
// it gives + the integral of lambda' f_p + g_p over [t0, t].
int adjoint_quad_callback(sunrealtype t, N_Vector x, N_Vector lambda, N_Vector qdot,
                          void* user_data) {
  return guarded(user_data, [&](CvodesSession& s) {
    const int np = s.np();
    Eigen::Map<Eigen::VectorXd> out(data(qdot), np);
    out = -lambda_jacobian(s, t, x, lambda).tail(np);
    if (s.adjoint_quadrature >= 0) {
      s.system->quadrature_jacobian(t, data(x), s.work_q);
      out -= s.work_q.row(s.adjoint_quadrature).tail(np).transpose();
    }
    return finite_derivatives(s, "adjoint quadrature (lambda' f_p)", out.data(), np, t);
  });
}

// J_B = d lambda_dot / d lambda = -f_x'.
int adjoint_jac_callback(sunrealtype t, N_Vector x, N_Vector, N_Vector, SUNMatrix J,
                         void* user_data, N_Vector, N_Vector, N_Vector) {
  return guarded(user_data, [&](CvodesSession& s) {
    const Eigen::MatrixXd& jac = jacobian_at(s, t, data(x));
    const int n = s.n();
    for (int j = 0; j < n; ++j) {
      double* col = SUNDenseMatrix_Column(J, j);
      for (int i = 0; i < n; ++i) col[i] = -jac(j, i);
    }
    return 0;
  });
}

// The backward problem's Newton matrix I + gamma f_x' of a system that forms and factors it itself
// (newton_b_setup), at the forward state x: as linsys_callback.
int adjoint_linsys_callback(sunrealtype t, N_Vector x, N_Vector, N_Vector, SUNMatrix,
                            sunbooleantype jok, sunbooleantype* jcur, sunrealtype gamma,
                            void* user_data, N_Vector, N_Vector, N_Vector) {
  return guarded(user_data, [&](CvodesSession& s) {
    *jcur = jok ? SUNFALSE : SUNTRUE;
    return s.system->newton_b_setup(t, data(x), gamma, !jok);
  });
}

// Keeps CVODES's messages in the result instead of printing them on stderr.
void error_callback(int, const char*, const char* function, char* msg, void* user_data) {
  static_cast<CvodesSession*>(user_data)->cvodes_error = std::string(function) + ": " + msg;
}

// CVODES's counters of the forward problem, also logged at debug level.
IntegratorStats statistics(void* memory, const char* what) {
  IntegratorStats st;
  CVodeGetNumSteps(memory, &st.steps);
  CVodeGetNumRhsEvals(memory, &st.rhs);
  CVodeGetNumJacEvals(memory, &st.jacobians);
  CVodeGetNumLinSolvSetups(memory, &st.setups);
  CVodeGetNumNonlinSolvIters(memory, &st.newton);
  CVodeGetNumNonlinSolvConvFails(memory, &st.newton_failures);
  CVodeGetNumErrTestFails(memory, &st.error_failures);
  spdlog::debug(
      "CVODES {}: {} steps, {} right-hand sides, {} Jacobians, {} factorisations, {} Newton "
      "iterations, {} Newton failures, {} error-test failures",
      what, st.steps, st.rhs, st.jacobians, st.setups, st.newton, st.newton_failures,
      st.error_failures);
  return st;
}

// A system whose Jacobian turns with its state (beams in absolute coordinates) has it
// evaluated and the Newton matrix factored every `age` steps instead of CVODES's 51 and 20.
int limit_jacobian_age(void* memory, long age) {
  if (age <= 0) return CV_SUCCESS;
  int flag = CVodeSetJacEvalFrequency(memory, age);
  if (flag == CV_SUCCESS) flag = CVodeSetLSetupFrequency(memory, age);
  return flag;
}

std::string flag_name(int flag) {
  char* name = CVodeGetReturnFlagName(flag);  // malloc'ed by CVODES
  std::string out = name ? name : std::to_string(flag);
  std::free(name);
  return out;
}

}  // namespace

std::string detail::describe(const CvodesSession& s, const std::string& what, int flag) {
  std::string out = "CVODES " + what + ": " + flag_name(flag);
  if (!s.cvodes_error.empty()) out += " (" + s.cvodes_error + ")";
  if (!s.rhs_error.empty()) out += "; " + s.rhs_error;
  if (!s.rhs_failure.empty()) out += "; " + s.rhs_failure;
  return out;
}

namespace {

void check_arguments(const Eigen::VectorXd& x0, const TimeGrid& grid) {
  if (x0.size() == 0 || grid.points < 2 || !(grid.end > grid.start)) {
    std::ostringstream msg;
    msg << "integrate: expected a state and a grid with >= 2 points and end > start, got "
        << x0.size() << " states, " << grid.points << " points on [" << grid.start << ", "
        << grid.end << "]";
    throw std::invalid_argument(msg.str());
  }
}

// Creates the forward problem of `system` in `s` (quadratures included when the system has
// them). Returns a CVODES flag; on failure `what` names the step.
// The largest internal step: the study's, else the model's own limit (0: none).
double largest_step(const OdeSystem& system, const IntegratorSettings& settings) {
  return settings.max_step > 0 ? settings.max_step : system.max_step;
}

// The Newton matrices' solver: for a second-order system (x = (q, v), q' = v) the
// factorisation of the half-size Schur complement (second_order_solver.hpp), else SUNDIALS's
// dense LU.
SUNLinearSolver linear_solver(const OdeSystem& system, N_Vector like, SUNMatrix matrix,
                              SUNContext context) {
  if (system.second_order) return second_order_solver(context, N_VGetLength(like));
  return SUNLinSol_Dense(like, matrix, context);
}

int set_up_forward(CvodesSession& s, const OdeSystem& system, const TimeGrid& grid,
                   const IntegratorSettings& settings, std::string& what) {
  s.system = &system;
  const auto n = static_cast<sunindextype>(system.x0.size());
  what = "set-up";
  if (SUNContext_Create(nullptr, &s.context) != 0) {
    s.cvodes_error = "SUNContext_Create failed";
    return CV_MEM_FAIL;
  }
  s.state = N_VNew_Serial(n, s.context);
  // A system that factors its own Newton matrices: the solves go through the session's system
  // (a kept forward pass changes it, adjoint_system).
  const bool own_newton = static_cast<bool>(system.newton_setup);
  s.matrix = own_newton ? placeholder_matrix(s.context) : SUNDenseMatrix(n, n, s.context);
  s.memory = CVodeCreate(settings.method == Multistep::kBdf ? CV_BDF : CV_ADAMS, s.context);
  if (!s.state || !s.matrix || !s.memory) return CV_MEM_FAIL;
  CvodesSession* session = &s;
  s.solver = own_newton ? callback_solver(
                              s.context, [session](double* b) { session->system->newton_solve(b); })
                        : linear_solver(system, s.state, s.matrix, s.context);
  if (!s.solver) return CV_MEM_FAIL;
  for (sunindextype i = 0; i < n; ++i) NV_Ith_S(s.state, i) = system.x0(i);

  int flag = CVodeSetErrHandlerFn(s.memory, error_callback, &s);
  if (flag == CV_SUCCESS) flag = CVodeInit(s.memory, rhs_callback, grid.start, s.state);
  if (flag == CV_SUCCESS) flag = CVodeSetUserData(s.memory, &s);
  s.rtol = settings.rtol;
  s.atol = settings.atol;
  if (flag == CV_SUCCESS) {
    flag = system.tolerances ? CVodeWFtolerances(s.memory, weights_callback)
                             : CVodeSStolerances(s.memory, settings.rtol, settings.atol);
  }
  if (flag == CV_SUCCESS) flag = CVodeSetMaxNumSteps(s.memory, settings.max_steps);
  if (flag == CV_SUCCESS) flag = CVodeSetMaxErrTestFails(s.memory, kMaxErrorTestFailures);
  if (flag == CV_SUCCESS && largest_step(system, settings) > 0)
    flag = CVodeSetMaxStep(s.memory, largest_step(system, settings));
  if (flag == CV_SUCCESS) flag = CVodeSetLinearSolver(s.memory, s.solver, s.matrix);
  if (flag == CV_SUCCESS && own_newton) {
    flag = CVodeSetLinSysFn(s.memory, linsys_callback);
  } else if (flag == CV_SUCCESS && system.jacobian) {
    flag = CVodeSetJacFn(s.memory, jac_callback);
  }
  if (flag == CV_SUCCESS && (system.jacobian || own_newton))
    flag = limit_jacobian_age(s.memory, system.jacobian_age);
  if (flag == CV_SUCCESS && system.quadratures > 0) {
    s.quad = N_VNew_Serial(system.quadratures, s.context);
    if (!s.quad) return CV_MEM_FAIL;
    N_VConst(0.0, s.quad);
    flag = CVodeQuadInit(s.memory, quad_callback, s.quad);
    if (flag == CV_SUCCESS) flag = CVodeQuadSStolerances(s.memory, settings.rtol, settings.atol);
    if (flag == CV_SUCCESS) flag = CVodeSetQuadErrCon(s.memory, SUNTRUE);
  }
  return flag;
}

}  // namespace

const char* to_string(Multistep method) {
  return method == Multistep::kBdf ? "bdf" : "adams";
}

IntegrationResult integrate(const RightHandSide& rhs, const Eigen::VectorXd& x0,
                            const TimeGrid& grid, const IntegratorSettings& settings) {
  OdeSystem system;
  system.rhs = rhs;
  system.x0 = x0;
  SystemResult r = integrate_system(system, grid, settings, false);
  IntegrationResult result;
  result.ok = r.ok;
  result.message = std::move(r.message);
  result.states = std::move(r.states);
  result.steps = r.steps;
  return result;
}

SystemResult integrate_system(const OdeSystem& system, const TimeGrid& grid,
                              const IntegratorSettings& settings, bool direct,
                              bool integral_sensitivities) {
  check_arguments(system.x0, grid);
  if (direct && (!system.jacobian || system.parameters <= 0)) {
    throw std::invalid_argument(
        "integrate_system: direct sensitivities need a Jacobian and "
        "parameters");
  }
  SystemResult result;
  if (direct && !system.x0_p.allFinite()) {
    result.message =
        "the initial state's derivatives with respect to the parameters are not finite: the "
        "model is not differentiable at this design (an expression such as sqrt or abs at 0)";
    return result;
  }
  CvodesSession s;
  std::string what;
  int flag = set_up_forward(s, system, grid, settings, what);
  const int n = static_cast<int>(system.x0.size()), np = system.parameters, nq = system.quadratures;
  const bool quad_sens = direct && integral_sensitivities && nq > 0;
  if (flag == CV_SUCCESS && direct) {
    s.n_sens = np;
    s.sens = N_VCloneVectorArray(np, s.state);
    if (!s.sens) flag = CV_MEM_FAIL;
    for (int i = 0; flag == CV_SUCCESS && i < np; ++i) {
      Eigen::Map<Eigen::VectorXd>(data(s.sens[i]), n) = system.x0_p.col(i);
    }
    if (flag == CV_SUCCESS) flag = CVodeSensInit(s.memory, np, CV_STAGGERED, sens_callback, s.sens);
    // EE applies the state's weights to the sensitivities; with the system's own tolerances
    // (computed from a state, not from a sensitivity vector) the plain ones, what EE gives
    // otherwise: rtol |s_i| + atol.
    std::vector<double> atols(np, settings.atol);
    if (flag == CV_SUCCESS) {
      flag = system.tolerances ? CVodeSensSStolerances(s.memory, settings.rtol, atols.data())
                               : CVodeSensEEtolerances(s.memory);
    }
    if (flag == CV_SUCCESS) flag = CVodeSetSensErrCon(s.memory, SUNTRUE);
    if (flag == CV_SUCCESS && quad_sens) {
      s.quad_sens = N_VCloneVectorArray(np, s.quad);
      if (!s.quad_sens) flag = CV_MEM_FAIL;
      for (int i = 0; flag == CV_SUCCESS && i < np; ++i) N_VConst(0.0, s.quad_sens[i]);
      if (flag == CV_SUCCESS) flag = CVodeQuadSensInit(s.memory, quad_sens_callback, s.quad_sens);
      if (flag == CV_SUCCESS) flag = CVodeQuadSensEEtolerances(s.memory);
      if (flag == CV_SUCCESS) flag = CVodeSetQuadSensErrCon(s.memory, SUNTRUE);
    }
  }
  if (flag != CV_SUCCESS) {
    result.message = describe(s, what, flag);
    return result;
  }
  result.states.resize(grid.points, n);
  result.states.row(0) = system.x0.transpose();
  if (direct) {
    result.state_sensitivities.assign(grid.points, Eigen::MatrixXd(n, np));
    result.state_sensitivities[0] = system.x0_p;
  }
  for (int p = 1; p < grid.points; ++p) {
    sunrealtype t = grid.at(p - 1);
    flag = CVode(s.memory, grid.at(p), s.state, &t, CV_NORMAL);
    if (flag < 0) {
      std::ostringstream stop;
      stop << "stopped at t = " << t << " on the way to t = " << grid.at(p);
      result.states.resize(0, 0);
      result.message = describe(s, stop.str(), flag);
      return result;
    }
    result.states.row(p) = Eigen::Map<const Eigen::VectorXd>(data(s.state), n).transpose();
    if (direct) {
      flag = CVodeGetSens(s.memory, &t, s.sens);
      for (int i = 0; flag == CV_SUCCESS && i < np; ++i) {
        result.state_sensitivities[p].col(i) =
            Eigen::Map<const Eigen::VectorXd>(data(s.sens[i]), n);
      }
      if (flag != CV_SUCCESS) {
        result.message = describe(s, "CVodeGetSens", flag);
        return result;
      }
    }
  }
  if (nq > 0) {
    sunrealtype t = 0;
    flag = CVodeGetQuad(s.memory, &t, s.quad);
    if (flag == CV_SUCCESS) result.integrals = Eigen::Map<const Eigen::VectorXd>(data(s.quad), nq);
    if (flag == CV_SUCCESS && quad_sens) {
      flag = CVodeGetQuadSens(s.memory, &t, s.quad_sens);
      result.integral_sensitivities.resize(nq, np);
      for (int i = 0; flag == CV_SUCCESS && i < np; ++i) {
        result.integral_sensitivities.col(i) =
            Eigen::Map<const Eigen::VectorXd>(data(s.quad_sens[i]), nq);
      }
    }
    if (flag != CV_SUCCESS) {
      result.message = describe(s, "quadratures", flag);
      return result;
    }
  }
  result.stats = statistics(s.memory, direct ? "forward with direct sensitivities" : "forward");
  result.steps = result.stats.steps;
  result.ok = true;
  return result;
}

bool detail::backward_solver(CvodesSession& s, const OdeSystem& system, int blocks) {
  const auto n = static_cast<sunindextype>(system.x0.size());
  if (system.newton_b_setup) {
    CvodesSession* session = &s;
    s.matrix_b = placeholder_matrix(s.context);
    s.solver_b = callback_solver(
        s.context, [session, blocks](double* b) { session->system->newton_b_solve(b, blocks); });
  } else {
    s.matrix_b = SUNDenseMatrix(n, n, s.context);
    if (s.matrix_b) {
      s.solver_b = blocks == 1 ? linear_solver(system, s.adjoint, s.matrix_b, s.context)
                               : block_solver(s.context, n, blocks, system.second_order);
    }
  }
  return s.matrix_b && s.solver_b;
}

const BackwardCallbacks detail::kOneFunctional{adjoint_callback, adjoint_quad_callback,
                                               adjoint_jac_callback};

// Starts the backward problem (cvodes_session.hpp).
int detail::start_backward(CvodesSession& s, const OdeSystem& system,
                           const IntegratorSettings& settings, double t_start, int& which,
                           const BackwardCallbacks& callbacks, double scale) {
  int flag = CV_SUCCESS;
  const double rtol = settings.rtol * scale, atol = settings.atol * scale;
  if (which < 0) {
    flag = CVodeCreateB(s.memory, settings.method == Multistep::kBdf ? CV_BDF : CV_ADAMS, &which);
    if (flag == CV_SUCCESS) flag = CVodeInitB(s.memory, which, callbacks.rhs, t_start, s.adjoint);
    if (flag == CV_SUCCESS) flag = CVodeSetUserDataB(s.memory, which, &s);
    if (flag == CV_SUCCESS) flag = CVodeSStolerancesB(s.memory, which, rtol, atol);
    if (flag == CV_SUCCESS) flag = CVodeSetMaxNumStepsB(s.memory, which, settings.max_steps);
    if (flag == CV_SUCCESS && largest_step(system, settings) > 0)
      flag = CVodeSetMaxStepB(s.memory, which, largest_step(system, settings));
    if (flag == CV_SUCCESS) flag = CVodeSetLinearSolverB(s.memory, which, s.solver_b, s.matrix_b);
    if (flag == CV_SUCCESS) {
      flag = system.newton_b_setup ? CVodeSetLinSysFnB(s.memory, which, adjoint_linsys_callback)
                                   : CVodeSetJacFnB(s.memory, which, callbacks.jacobian);
    }
    if (flag == CV_SUCCESS)
      flag = limit_jacobian_age(CVodeGetAdjCVodeBmem(s.memory, which), system.jacobian_age);
    if (flag == CV_SUCCESS) {
      flag = CVodeSetMaxErrTestFails(CVodeGetAdjCVodeBmem(s.memory, which), kMaxErrorTestFailures);
    }
    if (flag == CV_SUCCESS)
      flag = CVodeQuadInitB(s.memory, which, callbacks.quadrature, s.adjoint_quad);
    if (flag == CV_SUCCESS) flag = CVodeQuadSStolerancesB(s.memory, which, rtol, atol);
    // The quadratures lambda' f_p under error control: without it the backward steps would not
    // grow with the number of parameters (the 10-link chain: 205 steps for 1 parameter, 227
    // for 50), but seed 000's oscillator misses its 10 x tolerance (docs/performance.md).
    if (flag == CV_SUCCESS) flag = CVodeSetQuadErrConB(s.memory, which, SUNTRUE);
  } else {
    flag = CVodeReInitB(s.memory, which, t_start, s.adjoint);
    if (flag == CV_SUCCESS) flag = CVodeQuadReInitB(s.memory, which, s.adjoint_quad);
    if (flag == CV_SUCCESS && scale != 1.0) flag = CVodeSStolerancesB(s.memory, which, rtol, atol);
    if (flag == CV_SUCCESS && scale != 1.0)
      flag = CVodeQuadSStolerancesB(s.memory, which, rtol, atol);
  }
  return flag;
}

namespace {

// The forward pass of the adjoint method, storing checkpoints: the states on the grid, the
// integrals, the step and checkpoint counts into `result`; false (with its message) on failure.
bool forward_with_checkpoints(CvodesSession& s, const OdeSystem& system, const TimeGrid& grid,
                              const IntegratorSettings& settings, AdjointResult& result,
                              const char* what_stats = "forward pass of the adjoint method") {
  const int n = static_cast<int>(system.x0.size()), nq = system.quadratures;
  std::string what;
  int flag = set_up_forward(s, system, grid, settings, what);
  // A checkpoint every checkpoint_steps steps, Hermite interpolation of the forward solution.
  if (flag == CV_SUCCESS) flag = CVodeAdjInit(s.memory, settings.checkpoint_steps, CV_HERMITE);
  if (flag != CV_SUCCESS) {
    result.message = describe(s, what, flag);
    return false;
  }
  result.states.resize(grid.points, n);
  result.states.row(0) = system.x0.transpose();
  int checkpoints = 0;
  for (int p = 1; p < grid.points; ++p) {
    sunrealtype t = grid.at(p - 1);
    flag = CVodeF(s.memory, grid.at(p), s.state, &t, CV_NORMAL, &checkpoints);
    if (flag < 0) {
      std::ostringstream stop;
      stop << "stopped at t = " << t << " on the way to t = " << grid.at(p);
      result.message = describe(s, stop.str(), flag);
      result.states.resize(0, 0);
      return false;
    }
    result.states.row(p) = Eigen::Map<const Eigen::VectorXd>(data(s.state), n).transpose();
  }
  if (nq > 0) {
    sunrealtype t = 0;
    flag = CVodeGetQuad(s.memory, &t, s.quad);
    if (flag != CV_SUCCESS) {
      result.message = describe(s, "quadratures", flag);
      return false;
    }
    result.integrals = Eigen::Map<const Eigen::VectorXd>(data(s.quad), nq);
  }
  result.forward_stats = statistics(s.memory, what_stats);
  result.forward_steps = result.forward_stats.steps;
  result.checkpoints = checkpoints;
  return true;
}

}  // namespace

namespace {

// One backward solve per functional (per_functional) or the shared sweep (shared_sweep) after
// the forward pass, into result.gradients; false (with the message) on failure.
bool per_functional(CvodesSession& s, const OdeSystem& system, const TimeGrid& grid,
                    const IntegratorSettings& settings,
                    const std::vector<AdjointFunctional>& wanted, AdjointResult& result) {
  const int n = static_cast<int>(system.x0.size()), np = system.parameters;
  int which = -1;
  s.adjoint = N_VNew_Serial(n, s.context);
  s.adjoint_quad = N_VNew_Serial(np, s.context);
  if (!s.adjoint || !s.adjoint_quad || !backward_solver(s, system, 1)) {
    result.message = "CVODES: allocation of the backward problem failed";
    return false;
  }
  for (size_t f = 0; f < wanted.size(); ++f) {
    const AdjointFunctional& fn = wanted[f];
    const auto row = static_cast<Eigen::Index>(f);
    const bool integral = fn.quadrature >= 0;
    // lambda at the functional's time: h_x for a point, 0 for an integral (to the end).
    const int point = integral ? grid.points - 1 : fn.point;
    Eigen::Map<Eigen::VectorXd> lambda(data(s.adjoint), n);
    lambda = integral ? Eigen::VectorXd::Zero(n) : fn.state_weight;
    if (point == 0) {  // nothing to integrate: the state at t0 is x0(p)
      result.gradients.row(row) = (system.x0_p.transpose() * lambda).transpose();
      continue;
    }
    N_VConst(0.0, s.adjoint_quad);
    s.adjoint_quadrature = fn.quadrature;
    const double t_start = grid.at(point);
    int flag = start_backward(s, system, settings, t_start, which, kOneFunctional, 1.0);
    if (flag == CV_SUCCESS) flag = CVodeB(s.memory, grid.start, CV_NORMAL);
    sunrealtype t = 0;
    if (flag >= 0) flag = CVodeGetB(s.memory, which, &t, s.adjoint);
    if (flag >= 0) flag = CVodeGetQuadB(s.memory, which, &t, s.adjoint_quad);
    if (flag < 0) {
      std::ostringstream stop;
      stop << "backward solve " << f + 1 << " of " << wanted.size() << " (from t = " << t_start
           << ")";
      result.message = describe(s, stop.str(), flag);
      return false;
    }
    ++result.backward_solves;
    result.backward_steps +=
        statistics(CVodeGetAdjCVodeBmem(s.memory, which), "backward solve of the adjoint method")
            .steps;
    result.gradients.row(row) =
        (system.x0_p.transpose() * lambda).transpose() +
        Eigen::Map<const Eigen::VectorXd>(data(s.adjoint_quad), np).transpose();
  }
  return true;
}

}  // namespace

ForwardPass::ForwardPass() = default;
ForwardPass::~ForwardPass() = default;

SystemResult integrate_keeping(OdeSystem system, const TimeGrid& grid,
                               const IntegratorSettings& settings,
                               std::unique_ptr<ForwardPass>& kept) {
  check_arguments(system.x0, grid);
  kept.reset();
  auto pass = std::make_unique<ForwardPass>();
  pass->system = std::make_unique<OdeSystem>(std::move(system));
  pass->session = std::make_unique<CvodesSession>();
  AdjointResult forward;
  SystemResult result;
  if (!forward_with_checkpoints(*pass->session, *pass->system, grid, settings, forward,
                                "forward, kept for an adjoint gradient")) {
    result.message = std::move(forward.message);
    return result;
  }
  result.ok = true;
  result.states = forward.states;
  result.integrals = forward.integrals;
  result.stats = forward.forward_stats;
  result.steps = forward.forward_steps;
  pass->states = std::move(forward.states);
  pass->integrals = std::move(forward.integrals);
  pass->stats = forward.forward_stats;
  pass->checkpoints = forward.checkpoints;
  kept = std::move(pass);
  return result;
}

AdjointResult adjoint_system(
    const OdeSystem& system, const TimeGrid& grid, const IntegratorSettings& settings,
    const std::function<std::vector<AdjointFunctional>(const Eigen::MatrixXd& states)>& functionals,
    std::unique_ptr<ForwardPass> kept) {
  check_arguments(system.x0, grid);
  if (!system.jacobian || system.parameters <= 0) {
    throw std::invalid_argument("adjoint_system: needs a Jacobian and parameters");
  }
  AdjointResult result;
  std::unique_ptr<CvodesSession> own;
  CvodesSession* session = nullptr;
  if (kept) {
    // The analysis's pass: its checkpoints, and from now on this system's callbacks (the same
    // model and parameters, with the parameter columns); nothing of the forward's Jacobian kept.
    session = kept->session.get();
    session->system = &system;
    session->jacobian_t = NAN;
    session->cvodes_error.clear();
    session->rhs_error.clear();
    session->rhs_failure.clear();
    result.states = std::move(kept->states);  // the pass is consumed
    result.integrals = std::move(kept->integrals);
    result.forward_stats = kept->stats;
    result.forward_steps = kept->stats.steps;
    result.checkpoints = kept->checkpoints;
    result.forward_kept = true;
  } else {
    own = std::make_unique<CvodesSession>();
    session = own.get();
    if (!forward_with_checkpoints(*session, system, grid, settings, result)) return result;
  }
  CvodesSession& s = *session;
  const std::vector<AdjointFunctional> wanted = functionals(result.states);
  result.gradients.setZero(static_cast<Eigen::Index>(wanted.size()), system.parameters);
  result.shared = settings.shared_sweep && wanted.size() > 1;
  result.ok = result.shared ? shared_sweep(s, system, grid, settings, wanted, result)
                            : per_functional(s, system, grid, settings, wanted, result);
  return result;
}

}  // namespace sao::sim
