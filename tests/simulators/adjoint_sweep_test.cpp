// The adjoint method's shared backward sweep (issue 25): one backward problem carrying the
// adjoint vectors of every requested value, against one backward solve per value and against
// the direct method, value by value.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "simulators/integrator/cvodes_integrator.hpp"
#include "simulators/integrator/second_order_solver.hpp"

namespace sao::sim {
namespace {

// A forced, damped oscillator x = (q, v): q' = v, v' = -k q - c v + sin 3t, q(0) = a, with
// parameters p = (k, c, a) and the quadrature integral of q^2.
OdeSystem oscillator(bool second_order) {
  const double k = 4.0, c = 0.3;
  OdeSystem s;
  s.parameters = 3;
  s.quadratures = 1;
  s.rhs = [=](double t, const double* x, double* xdot) {
    xdot[0] = x[1];
    xdot[1] = -k * x[0] - c * x[1] + std::sin(3.0 * t);
    return 0;
  };
  s.jacobian = [=](double, const double* x, Eigen::MatrixXd& jac) {
    jac.setZero(2, 5);
    jac(0, 1) = 1.0;
    jac(1, 0) = -k;
    jac(1, 1) = -c;
    jac(1, 2) = -x[0];
    jac(1, 3) = -x[1];
  };
  s.quadrature = [](double, const double* x, double* qdot) { qdot[0] = x[0] * x[0]; };
  s.quadrature_jacobian = [](double, const double* x, Eigen::MatrixXd& jac) {
    jac.setZero(1, 5);
    jac(0, 0) = 2.0 * x[0];
  };
  s.x0 = Eigen::Vector2d(0.5, 0.0);
  s.x0_p = Eigen::MatrixXd::Zero(2, 3);
  s.x0_p(0, 2) = 1.0;
  s.second_order = second_order;
  return s;
}

// Every grid point of q and of q + 2 v (the states' weights), and the integral, in an order
// that is not the time order.
std::vector<AdjointFunctional> every_value(const TimeGrid& grid) {
  std::vector<AdjointFunctional> out;
  for (int p = 0; p < grid.points; ++p) {
    for (const Eigen::Vector2d& w : {Eigen::Vector2d(1, 0), Eigen::Vector2d(1, 2)}) {
      AdjointFunctional f;
      f.point = (p * 7) % grid.points;  // every point once, shuffled
      f.state_weight = w;
      out.push_back(f);
    }
  }
  AdjointFunctional integral;
  integral.quadrature = 0;
  out.insert(out.begin() + 5, integral);
  return out;
}

// The direct method's rows for the same values.
Eigen::MatrixXd direct_rows(const OdeSystem& system, const TimeGrid& grid,
                            const IntegratorSettings& settings,
                            const std::vector<AdjointFunctional>& values) {
  const SystemResult d = integrate_system(system, grid, settings, true);
  EXPECT_TRUE(d.ok) << d.message;
  Eigen::MatrixXd rows(static_cast<Eigen::Index>(values.size()), system.parameters);
  for (size_t f = 0; f < values.size(); ++f) {
    const auto r = static_cast<Eigen::Index>(f);
    rows.row(r) = values[f].quadrature >= 0
                      ? Eigen::RowVectorXd(d.integral_sensitivities.row(values[f].quadrature))
                      : Eigen::RowVectorXd(values[f].state_weight.transpose() *
                                           d.state_sensitivities[values[f].point]);
  }
  return rows;
}

struct Case {
  Multistep method;
  bool second_order;
  long checkpoint_steps;
};
// For gtest, which otherwise prints the case's bytes, padding included (uninitialised).
void PrintTo(const Case& c, std::ostream* os) {
  *os << to_string(c.method) << (c.second_order ? ", half size" : ", dense")
      << ", checkpoints every " << c.checkpoint_steps;
}

class SharedSweep : public ::testing::TestWithParam<Case> {};

TEST_P(SharedSweep, EveryValuesGradientEqualsPerValueAdjointAndDirect) {
  const OdeSystem system = oscillator(GetParam().second_order);
  const TimeGrid grid{0.0, 4.0, 41};
  IntegratorSettings settings;
  settings.method = GetParam().method;
  settings.rtol = 1e-9;
  settings.atol = 1e-11;
  settings.checkpoint_steps = GetParam().checkpoint_steps;
  const std::vector<AdjointFunctional> values = every_value(grid);
  auto functionals = [&](const Eigen::MatrixXd&) { return values; };
  const AdjointResult shared = adjoint_system(system, grid, settings, functionals);
  ASSERT_TRUE(shared.ok) << shared.message;
  EXPECT_TRUE(shared.shared);
  EXPECT_EQ(shared.backward_solves, 1);
  EXPECT_EQ(shared.sweep_stops, grid.points - 1) << "one (re)start per point after t0";
  settings.shared_sweep = false;
  const AdjointResult per_value = adjoint_system(system, grid, settings, functionals);
  ASSERT_TRUE(per_value.ok) << per_value.message;
  EXPECT_FALSE(per_value.shared);
  EXPECT_EQ(per_value.backward_solves, static_cast<int>(values.size()) - 2)
      << "every value but the two at t0";
  const Eigen::MatrixXd direct = direct_rows(system, grid, settings, values);
  ASSERT_EQ(shared.gradients.rows(), direct.rows());
  double largest = 0.0;
  for (Eigen::Index r = 0; r < direct.rows(); ++r) {
    for (Eigen::Index i = 0; i < direct.cols(); ++i) {
      const double scale = 1.0 + std::abs(direct(r, i));
      EXPECT_NEAR(shared.gradients(r, i), per_value.gradients(r, i), 1e-6 * scale)
          << "value " << r << ", parameter " << i;
      EXPECT_NEAR(shared.gradients(r, i), direct(r, i), 1e-6 * scale)
          << "value " << r << ", parameter " << i;
      largest = std::max(largest, std::abs(direct(r, i)));
    }
  }
  EXPECT_GT(largest, 0.1) << "the gradients are not all trivially small";
  // The values at t0: dq/da = 1 exactly, nothing integrated.
  for (size_t f = 0; f < values.size(); ++f) {
    if (values[f].point != 0) continue;
    EXPECT_EQ(shared.gradients(static_cast<Eigen::Index>(f), 2), 1.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Issue25, SharedSweep,
                         ::testing::Values(Case{Multistep::kBdf, false, 500},
                                           Case{Multistep::kBdf, true, 500},
                                           Case{Multistep::kAdams, false, 500},
                                           Case{Multistep::kBdf, true, 7}),
                         [](const auto& info) {
                           return std::string(to_string(info.param.method)) +
                                  (info.param.second_order ? "_half_size" : "_dense") +
                                  "_checkpoints_every_" +
                                  std::to_string(info.param.checkpoint_steps);
                         });

// Fewer values than states (plus integrals): the sweep carries the values' own adjoint vectors
// (no transition block) and gives the same gradients.
TEST(SharedSweep, TwoValuesCarryTheirOwnVectors) {
  const OdeSystem system = oscillator(true);
  const TimeGrid grid{0.0, 4.0, 41};
  IntegratorSettings settings;
  settings.rtol = 1e-9;
  settings.atol = 1e-11;
  std::vector<AdjointFunctional> values(2);
  values[0].point = 17;
  values[0].state_weight = Eigen::Vector2d(1, 0);
  values[1].point = 33;
  values[1].state_weight = Eigen::Vector2d(0.5, -1);
  auto functionals = [&](const Eigen::MatrixXd&) { return values; };
  const AdjointResult shared = adjoint_system(system, grid, settings, functionals);
  ASSERT_TRUE(shared.ok) << shared.message;
  EXPECT_TRUE(shared.shared);
  EXPECT_EQ(shared.sweep_stops, 2);
  const Eigen::MatrixXd direct = direct_rows(system, grid, settings, values);
  EXPECT_LT((shared.gradients - direct).cwiseAbs().maxCoeff(), 1e-6 * (1 + direct.norm()))
      << shared.gradients << "\n"
      << direct;
}

// A failing Jacobian in the sweep is a message naming the sweep and where it stopped, never an
// exception or a wrong gradient.
TEST(SharedSweep, AFailureNamesTheSweep) {
  OdeSystem system = oscillator(false);
  const auto jacobian = system.jacobian;
  bool backward = false;
  system.jacobian = [&](double t, const double* x, Eigen::MatrixXd& jac) {
    if (backward && t < 1.0) throw std::runtime_error("no Jacobian before t = 1");
    jacobian(t, x, jac);
  };
  const TimeGrid grid{0.0, 2.0, 5};
  auto functionals = [&](const Eigen::MatrixXd&) {
    backward = true;
    std::vector<AdjointFunctional> out = every_value(grid);
    return out;
  };
  const AdjointResult r = adjoint_system(system, grid, IntegratorSettings{}, functionals);
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.message, ::testing::HasSubstr("shared backward sweep"));
  EXPECT_THAT(r.message, ::testing::HasSubstr("no Jacobian before t = 1"));
}

// The block solver: one factorisation of M solves every n-block of the right-hand side, by the
// half-size Schur complement or by the whole matrix's LU.
TEST(SharedSweep, BlockSolverSolvesEveryBlock) {
  SUNContext context = nullptr;
  ASSERT_EQ(SUNContext_Create(nullptr, &context), 0);
  const int n = 4, blocks = 3;
  Eigen::MatrixXd m(n, n);
  m << 1, 0, 0.2, -0.1, 0, 1, 0.3, 0.4, 0.5, -0.2, 2, 0.1, 0.3, 0.6, -0.4, 3;
  for (bool second_order : {true, false}) {
    SUNMatrix a = SUNDenseMatrix(n, n, context);
    Eigen::Map<Eigen::MatrixXd>(SUNDenseMatrix_Data(a), n, n) = m;
    SUNLinearSolver s = block_solver(context, n, blocks, second_order);
    ASSERT_NE(s, nullptr);
    N_Vector b = N_VNew_Serial(n * blocks, context), x = N_VNew_Serial(n * blocks, context);
    Eigen::Map<Eigen::MatrixXd> bm(N_VGetArrayPointer(b), n, blocks);
    bm << 1, 2, 3, -1, 0, 1, 2, 5, 0.5, 4, -3, 2;
    const Eigen::MatrixXd expected = m.lu().solve(Eigen::MatrixXd(bm));
    ASSERT_EQ(SUNLinSolSetup(s, a), 0);
    ASSERT_EQ(SUNLinSolSolve(s, a, x, b, 0.0), 0);
    const Eigen::Map<const Eigen::MatrixXd> xm(N_VGetArrayPointer(x), n, blocks);
    EXPECT_LT((xm - expected).norm(), 1e-12) << second_order;
    EXPECT_EQ(SUNLinSolSolve(s, a, b, b, 0.0), 0) << "x and b the same vector";
    EXPECT_LT((bm - expected).norm(), 1e-12) << second_order;
    N_VDestroy(b);
    N_VDestroy(x);
    SUNLinSolFree(s);
    SUNMatDestroy(a);
  }
  EXPECT_EQ(block_solver(context, 3, 2, true), nullptr) << "odd size, second order";
  EXPECT_EQ(block_solver(context, 4, 0, false), nullptr) << "no blocks";
  SUNContext_Free(&context);
}

}  // namespace
}  // namespace sao::sim
