#include "simulators/cvodes_integrator.hpp"

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace sao::sim {
namespace {

// Every SUNDIALS object of one integration, freed in reverse order of creation. It is also
// the user data of the callbacks: they reach the right-hand side and record errors here.
struct CvodesSession {
  SUNContext context = nullptr;
  N_Vector state = nullptr;
  SUNMatrix matrix = nullptr;
  SUNLinearSolver solver = nullptr;
  void* memory = nullptr;
  const RightHandSide* rhs = nullptr;
  std::string cvodes_error;  // CVODES's text of its last error
  std::string rhs_error;     // what the right-hand side threw, if it did

  CvodesSession() = default;
  CvodesSession(const CvodesSession&) = delete;
  CvodesSession& operator=(const CvodesSession&) = delete;
  ~CvodesSession() {
    if (memory) CVodeFree(&memory);
    if (solver) SUNLinSolFree(solver);
    if (matrix) SUNMatDestroy(matrix);
    if (state) N_VDestroy(state);
    if (context) SUNContext_Free(&context);
  }
};

// Exceptions must not cross the C code of CVODES: they become a fatal return.
int rhs_callback(sunrealtype t, N_Vector x, N_Vector xdot, void* user_data) {
  auto& s = *static_cast<CvodesSession*>(user_data);
  try {
    return (*s.rhs)(t, N_VGetArrayPointer(x), N_VGetArrayPointer(xdot));
  } catch (const std::exception& e) {
    s.rhs_error = std::string("the right-hand side threw: ") + e.what();
  } catch (...) {
    s.rhs_error = "the right-hand side threw";
  }
  return -1;
}

// Keeps CVODES's messages in the result instead of printing them on stderr.
void error_callback(int, const char*, const char* function, char* msg, void* user_data) {
  static_cast<CvodesSession*>(user_data)->cvodes_error = std::string(function) + ": " + msg;
}

std::string flag_name(int flag) {
  char* name = CVodeGetReturnFlagName(flag);  // malloc'ed by CVODES
  std::string out = name ? name : std::to_string(flag);
  std::free(name);
  return out;
}

std::string describe(const CvodesSession& s, const std::string& what, int flag) {
  std::string out = "CVODES " + what + ": " + flag_name(flag);
  if (!s.cvodes_error.empty()) out += " (" + s.cvodes_error + ")";
  if (!s.rhs_error.empty()) out += "; " + s.rhs_error;
  return out;
}

}  // namespace

const char* to_string(Multistep method) {
  return method == Multistep::kBdf ? "bdf" : "adams";
}

IntegrationResult integrate(const RightHandSide& rhs, const Eigen::VectorXd& x0,
                            const TimeGrid& grid, const IntegratorSettings& settings) {
  if (x0.size() == 0 || grid.points < 2 || !(grid.end > grid.start)) {
    std::ostringstream msg;
    msg << "integrate: expected a state and a grid with >= 2 points and end > start, got "
        << x0.size() << " states, " << grid.points << " points on [" << grid.start << ", "
        << grid.end << "]";
    throw std::invalid_argument(msg.str());
  }
  IntegrationResult result;
  const auto n = static_cast<sunindextype>(x0.size());
  CvodesSession s;
  s.rhs = &rhs;
  auto failed = [&](const std::string& what, int flag) {
    result.message = describe(s, what, flag);
    return result;
  };
  if (SUNContext_Create(nullptr, &s.context) != 0) {
    result.message = "CVODES: SUNContext_Create failed";
    return result;
  }
  s.state = N_VNew_Serial(n, s.context);
  s.matrix = SUNDenseMatrix(n, n, s.context);
  s.memory = CVodeCreate(settings.method == Multistep::kBdf ? CV_BDF : CV_ADAMS, s.context);
  if (!s.state || !s.matrix || !s.memory) return failed("allocation", CV_MEM_FAIL);
  s.solver = SUNLinSol_Dense(s.state, s.matrix, s.context);
  if (!s.solver) return failed("SUNLinSol_Dense", CV_MEM_FAIL);
  for (sunindextype i = 0; i < n; ++i) NV_Ith_S(s.state, i) = x0(i);

  int flag = CVodeSetErrHandlerFn(s.memory, error_callback, &s);
  if (flag == CV_SUCCESS) flag = CVodeInit(s.memory, rhs_callback, grid.start, s.state);
  if (flag == CV_SUCCESS) flag = CVodeSetUserData(s.memory, &s);
  if (flag == CV_SUCCESS) flag = CVodeSStolerances(s.memory, settings.rtol, settings.atol);
  if (flag == CV_SUCCESS) flag = CVodeSetMaxNumSteps(s.memory, settings.max_steps);
  if (flag == CV_SUCCESS) flag = CVodeSetLinearSolver(s.memory, s.solver, s.matrix);
  if (flag != CV_SUCCESS) return failed("set-up", flag);

  result.states.resize(grid.points, n);
  result.states.row(0) = x0.transpose();
  for (int p = 1; p < grid.points; ++p) {
    sunrealtype t = grid.at(p - 1);
    flag = CVode(s.memory, grid.at(p), s.state, &t, CV_NORMAL);
    if (flag < 0) {
      std::ostringstream what;
      what << "stopped at t = " << t << " on the way to t = " << grid.at(p);
      result.states.resize(0, 0);
      return failed(what.str(), flag);
    }
    for (sunindextype i = 0; i < n; ++i) result.states(p, i) = NV_Ith_S(s.state, i);
  }
  CVodeGetNumSteps(s.memory, &result.steps);
  result.ok = true;
  return result;
}

}  // namespace sao::sim
