#include "simulators/cvodes_integrator.hpp"

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <cstdlib>
#include <memory>

namespace sao::sim {
namespace {

// Owns every CVODES object of one integration.
struct CvodesSession {
  SUNContext context = nullptr;
  N_Vector state = nullptr;
  SUNMatrix matrix = nullptr;
  SUNLinearSolver solver = nullptr;
  void* memory = nullptr;
  ~CvodesSession() {
    if (memory) CVodeFree(&memory);
    if (solver) SUNLinSolFree(solver);
    if (matrix) SUNMatDestroy(matrix);
    if (state) N_VDestroy(state);
    if (context) SUNContext_Free(&context);
  }
};

int rhs_trampoline(sunrealtype t, N_Vector x, N_Vector xdot, void* user_data) {
  const auto& rhs = *static_cast<const RightHandSide*>(user_data);
  return rhs(t, N_VGetArrayPointer(x), N_VGetArrayPointer(xdot));
}

std::string flag_name(int flag) {
  char* name = CVodeGetReturnFlagName(flag);
  std::string out = name ? name : std::to_string(flag);
  std::free(name);
  return out;
}

}  // namespace

IntegrationResult integrate(const RightHandSide& rhs, const Eigen::VectorXd& x0,
                            const TimeGrid& grid, const IntegratorSettings& settings) {
  IntegrationResult result;
  const auto n = static_cast<sunindextype>(x0.size());
  CvodesSession s;
  auto fail = [&](const std::string& what, int flag) {
    result.ok = false;
    result.message = "CVODES " + what + " failed: " + flag_name(flag);
    return result;
  };
  if (SUNContext_Create(nullptr, &s.context) != 0) {
    result.message = "CVODES: cannot create a SUNContext";
    return result;
  }
  s.state = N_VNew_Serial(n, s.context);
  for (sunindextype i = 0; i < n; ++i) NV_Ith_S(s.state, i) = x0(i);
  s.memory = CVodeCreate(settings.stiff ? CV_BDF : CV_ADAMS, s.context);
  if (!s.memory) {
    result.message = "CVODES: CVodeCreate failed";
    return result;
  }
  int flag = CVodeInit(s.memory, rhs_trampoline, grid.start, s.state);
  if (flag != CV_SUCCESS) return fail("CVodeInit", flag);
  flag = CVodeSStolerances(s.memory, settings.rtol, settings.atol);
  if (flag != CV_SUCCESS) return fail("CVodeSStolerances", flag);
  CVodeSetUserData(s.memory, const_cast<RightHandSide*>(&rhs));
  CVodeSetMaxNumSteps(s.memory, settings.max_steps);
  s.matrix = SUNDenseMatrix(n, n, s.context);
  s.solver = SUNLinSol_Dense(s.state, s.matrix, s.context);
  flag = CVodeSetLinearSolver(s.memory, s.solver, s.matrix);
  if (flag != CV_SUCCESS) return fail("CVodeSetLinearSolver", flag);

  result.states.resize(grid.points, n);
  result.states.row(0) = x0.transpose();
  for (int p = 1; p < grid.points; ++p) {
    sunrealtype t = grid.at(p - 1);
    flag = CVode(s.memory, grid.at(p), s.state, &t, CV_NORMAL);
    if (flag < 0) {
      result.message = "CVODES stopped at t = " + std::to_string(t) + ": " + flag_name(flag);
      return result;
    }
    for (sunindextype i = 0; i < n; ++i) result.states(p, i) = NV_Ith_S(s.state, i);
  }
  CVodeGetNumSteps(s.memory, &result.steps);
  result.ok = true;
  return result;
}

}  // namespace sao::sim
