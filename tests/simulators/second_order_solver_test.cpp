// The Newton matrices' solver of second-order systems (second_order_solver.hpp), issue 25.
#include "simulators/integrator/second_order_solver.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "simulators/integrator/cvodes_integrator.hpp"

namespace sao::sim {
namespace {

// Two masses on springs, stiff (k2 = 1e4), damped: x = (q1, q2, v1, v2), q' = v,
// v' = -K q - c v; parameter p scales the first spring. `coupled_positions`: q1' = v1 - 0.5 q1
// instead, so that the Newton matrix's top-left block is not the identity.
OdeSystem two_masses(bool second_order, bool coupled_positions) {
  OdeSystem s;
  s.parameters = 1;
  s.second_order = second_order;
  const double p = 3.0, k2 = 1e4, c = 0.4;
  const double e = coupled_positions ? 0.5 : 0.0;
  s.rhs = [=](double, const double* x, double* xdot) {
    xdot[0] = x[2] - e * x[0];
    xdot[1] = x[3];
    xdot[2] = -p * x[0] + (x[1] - x[0]) - c * x[2];
    xdot[3] = -k2 * x[1] - (x[1] - x[0]) - c * x[3];
    return 0;
  };
  s.jacobian = [=](double, const double* x, Eigen::MatrixXd& j) {
    j.setZero(4, 5);
    j(0, 0) = -e;
    j(0, 2) = 1.0;
    j(1, 3) = 1.0;
    j(2, 0) = -p - 1.0;
    j(2, 1) = 1.0;
    j(2, 2) = -c;
    j(2, 4) = -x[0];
    j(3, 0) = 1.0;
    j(3, 1) = -k2 - 1.0;
    j(3, 3) = -c;
  };
  s.x0 = Eigen::Vector4d(1.0, 0.01, 0.0, 0.0);
  s.x0_p = Eigen::MatrixXd::Zero(4, 1);
  return s;
}

// The half-size factorisation integrates the forward, direct and adjoint problems to the
// dense LU's results within the tolerances, with the identity in the top-left block or not.
TEST(SecondOrderSolver, MatchesTheDenseSolverForwardDirectAndAdjoint) {
  IntegratorSettings settings;
  settings.rtol = 1e-9;
  settings.atol = 1e-11;
  const TimeGrid grid{0.0, 2.0, 21};
  for (bool coupled : {false, true}) {
    const OdeSystem dense = two_masses(false, coupled), reduced = two_masses(true, coupled);
    const SystemResult a = integrate_system(dense, grid, settings, true);
    const SystemResult b = integrate_system(reduced, grid, settings, true);
    ASSERT_TRUE(a.ok) << a.message;
    ASSERT_TRUE(b.ok) << b.message;
    EXPECT_LT((a.states - b.states).cwiseAbs().maxCoeff(), 1e-7) << "coupled " << coupled;
    EXPECT_GT(a.states.col(1).cwiseAbs().maxCoeff(), 1e-3);  // the stiff mass moves
    const Eigen::MatrixXd& sa = a.state_sensitivities.back();
    const Eigen::MatrixXd& sb = b.state_sensitivities.back();
    EXPECT_LT((sa - sb).cwiseAbs().maxCoeff(), 1e-6 * (1.0 + sa.cwiseAbs().maxCoeff()));
    EXPECT_GT(sa.cwiseAbs().maxCoeff(), 1e-2);
    // d q1(T)/dp by the adjoint against the direct method's.
    auto weights = [](const Eigen::MatrixXd&) {
      AdjointFunctional f;
      f.point = 20;
      f.state_weight = Eigen::Vector4d(1.0, 0.0, 0.0, 0.0);
      return std::vector<AdjointFunctional>{f};
    };
    const AdjointResult r = adjoint_system(reduced, grid, settings, weights);
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_NEAR(r.gradients(0, 0), sa(0, 0), 1e-6 * (1.0 + std::abs(sa(0, 0))));
  }
}

// Only an odd size is refused.
TEST(SecondOrderSolver, NeedsAnEvenSize) {
  SUNContext context = nullptr;
  ASSERT_EQ(SUNContext_Create(nullptr, &context), 0);
  EXPECT_EQ(second_order_solver(context, 3), nullptr);
  SUNLinearSolver s = second_order_solver(context, 4);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(SUNLinSolGetType(s), SUNLINEARSOLVER_DIRECT);
  SUNLinSolFree(s);
  SUNContext_Free(&context);
}

}  // namespace
}  // namespace sao::sim
