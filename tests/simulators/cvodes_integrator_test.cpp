#include "simulators/integrator/cvodes_integrator.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>

namespace sao::sim {
namespace {

using ::testing::HasSubstr;

// x' = -r x, x(0) = 1: x = exp(-r t).
RightHandSide decay(double rate) {
  return [rate](double, const double* x, double* xdot) {
    xdot[0] = -rate * x[0];
    return 0;
  };
}

class BothMethods : public ::testing::TestWithParam<Multistep> {};

TEST_P(BothMethods, MatchExponentialDecayAndHarmonicOscillator) {
  IntegratorSettings settings;
  settings.method = GetParam();
  const TimeGrid grid{0.0, 5.0, 51};
  const IntegrationResult d = integrate(decay(2.0), Eigen::VectorXd::Ones(1), grid, settings);
  ASSERT_TRUE(d.ok) << d.message;
  ASSERT_EQ(d.states.rows(), 51);
  ASSERT_EQ(d.states.cols(), 1);
  EXPECT_GT(d.steps, 0);
  // x'' = -x, x(0) = 0, x'(0) = 1: x = sin t.
  const RightHandSide oscillator = [](double, const double* x, double* xdot) {
    xdot[0] = x[1];
    xdot[1] = -x[0];
    return 0;
  };
  const IntegrationResult o = integrate(oscillator, Eigen::Vector2d(0, 1), grid, settings);
  ASSERT_TRUE(o.ok) << o.message;
  for (int p = 0; p < grid.points; ++p) {
    EXPECT_NEAR(d.states(p, 0), std::exp(-2.0 * grid.at(p)), 1e-6) << "t = " << grid.at(p);
    EXPECT_NEAR(o.states(p, 0), std::sin(grid.at(p)), 1e-6) << "t = " << grid.at(p);
    EXPECT_NEAR(o.states(p, 1), std::cos(grid.at(p)), 1e-6) << "t = " << grid.at(p);
  }
}

INSTANTIATE_TEST_SUITE_P(CvodesIntegrator, BothMethods,
                         ::testing::Values(Multistep::kBdf, Multistep::kAdams),
                         [](const auto& info) { return std::string(to_string(info.param)); });

// x' = -p x, x(0) = 1: d x(T)/dp = -T exp(-p T), whether the forward steps fit between two
// checkpoints or the backward solve integrates the forward problem again between them.
TEST(CvodesIntegrator, AdjointGradientDoesNotDependOnTheCheckpoints) {
  OdeSystem system;
  system.parameters = 1;
  const double p = 2.0;
  system.rhs = [p](double, const double* x, double* xdot) {
    xdot[0] = -p * x[0];
    return 0;
  };
  system.jacobian = [p](double, const double* x, Eigen::MatrixXd& jac) {
    jac.resize(1, 2);
    jac << -p, -x[0];
  };
  system.x0 = Eigen::VectorXd::Ones(1);
  system.x0_p = Eigen::MatrixXd::Zero(1, 1);
  const TimeGrid grid{0.0, 1.0, 3};
  auto functional = [](const Eigen::MatrixXd&) {
    AdjointFunctional f;
    f.point = 2;
    f.state_weight = Eigen::VectorXd::Ones(1);
    return std::vector<AdjointFunctional>{f};
  };
  IntegratorSettings settings;
  settings.rtol = settings.atol = 1e-10;
  std::vector<int> checkpoints;
  for (long steps : {10L, 5000L}) {
    settings.checkpoint_steps = steps;
    const AdjointResult r = adjoint_system(system, grid, settings, functional);
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_NEAR(r.gradients(0, 0), -std::exp(-p), 1e-8) << steps;
    EXPECT_GT(r.forward_steps, 10) << "the run must be longer than the short interval";
    checkpoints.push_back(r.checkpoints);
  }
  EXPECT_GE(checkpoints[0], 1);
  EXPECT_EQ(checkpoints[1], 0) << "the whole run fits in one interval of 5000 steps";
}

// A rotating stiff spring (a beam's axial stiffness in absolute coordinates): x' = -k R(wt) x
// with R projecting onto the direction (cos wt, sin wt). The counters of the run are reported,
// and a system with jacobian_age 1 gets a Jacobian at every step (CVODES's default keeps one
// for up to 51 steps), which here takes fewer steps with fewer Newton failures.
TEST(CvodesIntegrator, JacobianAgeAndTheRunsCounters) {
  const double k = 1e6, w = 30.0;
  auto matrix = [=](double t) {
    const Eigen::Vector2d e(std::cos(w * t), std::sin(w * t));
    return Eigen::Matrix2d(-k * e * e.transpose() - Eigen::Matrix2d::Identity());
  };
  OdeSystem system;
  system.rhs = [&](double t, const double* x, double* xdot) {
    const Eigen::Vector2d rate = matrix(t) * Eigen::Map<const Eigen::Vector2d>(x);
    xdot[0] = rate(0);
    xdot[1] = rate(1);
    return 0;
  };
  system.jacobian = [&](double t, const double*, Eigen::MatrixXd& jac) { jac = matrix(t); };
  system.x0 = Eigen::Vector2d(1.0, 1.0);
  IntegratorSettings settings;
  settings.rtol = 1e-6;
  settings.atol = 1e-9;
  const TimeGrid grid{0.0, 1.0, 11};
  const SystemResult stale = integrate_system(system, grid, settings, false);
  system.jacobian_age = 1;
  const SystemResult fresh = integrate_system(system, grid, settings, false);
  ASSERT_TRUE(stale.ok) << stale.message;
  ASSERT_TRUE(fresh.ok) << fresh.message;
  EXPECT_EQ(fresh.steps, fresh.stats.steps);
  EXPECT_GE(fresh.stats.jacobians, fresh.stats.steps);
  EXPECT_LT(stale.stats.jacobians, stale.stats.steps);
  EXPECT_GE(stale.stats.newton, stale.stats.steps);
  EXPECT_GE(stale.stats.rhs, stale.stats.newton);
  EXPECT_LE(fresh.stats.newton_failures, stale.stats.newton_failures);
  EXPECT_LT(fresh.stats.steps, stale.stats.steps);
  // The same solution within the global error (about 10 rtol).
  EXPECT_NEAR((fresh.states.bottomRows(1) - stale.states.bottomRows(1)).norm(), 0.0, 1e-5);
}

// The same rotating spring, its stiffness scaled by a parameter p, with direct sensitivities:
// with jacobian_age 1 the Newton matrix takes the Jacobian where the sensitivity right-hand
// sides were last formed (the previous step's solution) instead of one at the predicted point,
// so nearly every Jacobian is asked for at such a point; with CVODES's defaults it is not. The
// sensitivities match central differences either way.
TEST(CvodesIntegrator, DirectRunsReuseTheSensitivityPointsJacobianWhenEveryStepWantsOne) {
  const double k = 1e3, w = 30.0;
  double p = 1.0;
  auto matrix = [&](double t) {
    const Eigen::Vector2d e(std::cos(w * t), std::sin(w * t));
    return Eigen::Matrix2d(-p * k * e * e.transpose() - Eigen::Matrix2d::Identity());
  };
  auto stiffness = [&](double t) {
    const Eigen::Vector2d e(std::cos(w * t), std::sin(w * t));
    return Eigen::Matrix2d(-k * e * e.transpose());
  };
  // The points (t, x) the Jacobian and the sensitivity right-hand sides were asked for.
  using Point = std::array<double, 3>;
  std::vector<Point> jacobian_points, sensitivity_points;
  OdeSystem system;
  system.parameters = 1;
  system.rhs = [&](double t, const double* x, double* xdot) {
    Eigen::Map<Eigen::Vector2d> rate(xdot);
    rate = matrix(t) * Eigen::Map<const Eigen::Vector2d>(x);
    return 0;
  };
  system.jacobian = [&](double t, const double* x, Eigen::MatrixXd& jac) {
    jacobian_points.push_back({t, x[0], x[1]});
    jac.resize(2, 3);
    jac.leftCols(2) = matrix(t);
    jac.col(2) = stiffness(t) * Eigen::Map<const Eigen::Vector2d>(x);
  };
  system.sensitivity_rhs = [&](double t, const double* x, const Eigen::MatrixXd& S,
                               Eigen::MatrixXd& out) {
    sensitivity_points.push_back({t, x[0], x[1]});
    out = matrix(t) * S + stiffness(t) * Eigen::Map<const Eigen::Vector2d>(x);
  };
  system.x0 = Eigen::Vector2d(1.0, 1.0);
  system.x0_p = Eigen::MatrixXd::Zero(2, 1);
  IntegratorSettings settings;
  settings.rtol = 1e-10;
  settings.atol = 1e-12;
  const TimeGrid grid{0.0, 0.5, 6};
  // The share of the Jacobians asked for at a point where the sensitivities were formed.
  auto at_sensitivity_points = [&] {
    const std::set<Point> points(sensitivity_points.begin(), sensitivity_points.end());
    const auto hits = std::count_if(jacobian_points.begin(), jacobian_points.end(),
                                    [&](const Point& x) { return points.count(x) > 0; });
    return double(hits) / double(jacobian_points.size());
  };
  auto final_state = [&](double p_value) {
    p = p_value;
    const SystemResult r = integrate_system(system, grid, settings, false);
    p = 1.0;
    EXPECT_TRUE(r.ok) << r.message;
    return Eigen::Vector2d(r.states.bottomRows(1).transpose());
  };
  const double h = 1e-4;
  const Eigen::Vector2d difference = (final_state(1.0 + h) - final_state(1.0 - h)) / (2.0 * h);
  for (const long age : {1L, 0L}) {
    system.jacobian_age = age;
    jacobian_points.clear();
    sensitivity_points.clear();
    const SystemResult r = integrate_system(system, grid, settings, true);
    ASSERT_TRUE(r.ok) << r.message;
    ASSERT_FALSE(jacobian_points.empty());
    if (age == 1) {
      EXPECT_GE(r.stats.jacobians, r.stats.steps);
      EXPECT_GT(at_sensitivity_points(), 0.9) << jacobian_points.size() << " Jacobians";
    } else {
      EXPECT_LT(at_sensitivity_points(), 0.1) << jacobian_points.size() << " Jacobians";
    }
    const Eigen::Vector2d direct = r.state_sensitivities.back().col(0);
    EXPECT_LT((direct - difference).norm(), 1e-5 * (1.0 + difference.norm()))
        << "jacobian_age " << age << ": " << direct.transpose() << " against "
        << difference.transpose();
  }
}

// A system's own tolerances (OdeSystem::tolerances, what beams use) replace rtol |x| + atol:
// the oscillator x1' = x2, x2' = -w^2 x1 (x1 = sin(w t) / w) at loose settings, then with a
// tolerance of 1e-11 on x1 at any state, is integrated far more accurately (values and, with
// the direct method, dx1/dw = t cos(w t) / w - sin(w t) / w^2), and a non-positive tolerance
// fails the run instead of dividing by zero.
TEST(CvodesIntegrator, TheSystemsOwnTolerancesReplaceTheScalarOnes) {
  OdeSystem system;
  const double w = 2.0;
  system.parameters = 1;
  system.rhs = [&](double, const double* x, double* xdot) {
    xdot[0] = x[1];
    xdot[1] = -w * w * x[0];
    return 0;
  };
  system.jacobian = [&](double, const double* x, Eigen::MatrixXd& jac) {
    jac.setZero(2, 3);
    jac(0, 1) = 1.0;
    jac(1, 0) = -w * w;
    jac(1, 2) = -2 * w * x[0];
  };
  system.x0 = Eigen::Vector2d(0.0, 1.0);
  system.x0_p = Eigen::MatrixXd::Zero(2, 1);
  IntegratorSettings settings;
  settings.rtol = 1e-4;
  settings.atol = 1e-6;
  const TimeGrid grid{0.0, 10.0, 11};
  auto errors = [&](const SystemResult& r) {
    double value = 0.0, slope = 0.0;
    for (int k = 0; k < grid.points; ++k) {
      const double t = grid.at(k);
      value = std::max(value, std::abs(r.states(k, 0) - std::sin(w * t) / w));
      slope = std::max(slope, std::abs(r.state_sensitivities[k](0, 0) -
                                       (t * std::cos(w * t) / w - std::sin(w * t) / (w * w))));
    }
    return std::make_pair(value, slope);
  };
  const SystemResult plain = integrate_system(system, grid, settings, true);
  double tight = 1e-11;
  system.tolerances = [&](const double* x, double rtol, double atol, double* tolerance) {
    tolerance[0] = tight;
    tolerance[1] = rtol * std::abs(x[1]) + atol;
  };
  const SystemResult own = integrate_system(system, grid, settings, true);
  ASSERT_TRUE(plain.ok) << plain.message;
  ASSERT_TRUE(own.ok) << own.message;
  const auto [plain_value, plain_slope] = errors(plain);
  const auto [own_value, own_slope] = errors(own);
  EXPECT_GT(plain_value, 1e-5);
  EXPECT_LT(own_value, 1e-6);
  EXPECT_LT(own_value, 0.01 * plain_value);
  EXPECT_LT(own_slope, 0.01 * plain_slope);
  EXPECT_GT(own.steps, 2 * plain.steps);
  tight = 0.0;
  const SystemResult bad = integrate_system(system, grid, settings, false);
  EXPECT_FALSE(bad.ok);
}

// x' = -p x, x(0) = 1, q = integral of x over [0, T]: the direct method integrates the
// quadrature's sensitivity dq/dp only when asked; without it the integrands' Jacobian is never
// evaluated, the value q is still integrated and the states' sensitivities stay exact.
TEST(CvodesIntegrator, DirectSensitivitiesLeaveTheIntegralsOutWhenNotWanted) {
  const double p = 2.0, T = 1.0;
  int quadrature_jacobians = 0;
  OdeSystem system;
  system.parameters = 1;
  system.quadratures = 1;
  system.rhs = [&](double, const double* x, double* xdot) {
    xdot[0] = -p * x[0];
    return 0;
  };
  system.jacobian = [&](double, const double* x, Eigen::MatrixXd& jac) {
    jac.resize(1, 2);
    jac << -p, -x[0];
  };
  system.quadrature = [](double, const double* x, double* qdot) { qdot[0] = x[0]; };
  system.quadrature_jacobian = [&](double, const double*, Eigen::MatrixXd& jac) {
    ++quadrature_jacobians;
    jac.resize(1, 2);
    jac << 1.0, 0.0;
  };
  system.x0 = Eigen::VectorXd::Ones(1);
  system.x0_p = Eigen::MatrixXd::Zero(1, 1);
  IntegratorSettings settings;
  settings.rtol = 1e-10;
  settings.atol = 1e-12;
  const TimeGrid grid{0.0, T, 11};
  const double q = (1.0 - std::exp(-p * T)) / p;
  const double dq = T * std::exp(-p * T) / p - (1.0 - std::exp(-p * T)) / (p * p);
  const SystemResult both = integrate_system(system, grid, settings, true, true);
  ASSERT_TRUE(both.ok) << both.message;
  EXPECT_GT(quadrature_jacobians, 0);
  ASSERT_EQ(both.integral_sensitivities.size(), 1);
  EXPECT_NEAR(both.integral_sensitivities(0, 0), dq, 1e-8);
  quadrature_jacobians = 0;
  const SystemResult states = integrate_system(system, grid, settings, true, false);
  ASSERT_TRUE(states.ok) << states.message;
  EXPECT_EQ(quadrature_jacobians, 0);
  EXPECT_EQ(states.integral_sensitivities.size(), 0);
  ASSERT_EQ(states.integrals.size(), 1);
  EXPECT_NEAR(states.integrals(0), q, 1e-8);
  for (int k = 0; k < grid.points; ++k) {
    const double t = grid.at(k);
    EXPECT_NEAR(states.state_sensitivities[k](0, 0), -t * std::exp(-p * t), 1e-8) << "t = " << t;
  }
}

TEST(CvodesIntegrator, FatalRightHandSideIsAFailureNamingFlagAndTime) {
  const RightHandSide rhs = [](double t, const double* x, double* xdot) {
    xdot[0] = -x[0];
    return t > 0.5 ? -1 : 0;
  };
  const IntegrationResult r = integrate(rhs, Eigen::VectorXd::Ones(1), {0.0, 1.0, 11}, {});
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.message, HasSubstr("CV_RHSFUNC_FAIL"));
  EXPECT_THAT(r.message, HasSubstr("stopped at t = 0.4"));  // the last step that succeeded
  EXPECT_THAT(r.message, HasSubstr("on the way to t = 0.5"));
}

TEST(CvodesIntegrator, RecoverableRightHandSideFailureIsRetried) {
  // Refuses the first evaluation beyond t = 0.3 only: CVODES retries with a smaller step.
  bool refused = false;
  const RightHandSide rhs = [&](double t, const double* x, double* xdot) {
    xdot[0] = -x[0];
    if (t > 0.3 && !refused) return refused = true, 1;
    return 0;
  };
  const IntegrationResult r = integrate(rhs, Eigen::VectorXd::Ones(1), {0.0, 1.0, 11}, {});
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_TRUE(refused);
  EXPECT_NEAR(r.states(10, 0), std::exp(-1.0), 1e-7);

  // Refusing every evaluation fails at once.
  const RightHandSide always = [](double, const double*, double*) { return 1; };
  const IntegrationResult f = integrate(always, Eigen::VectorXd::Ones(1), {0.0, 1.0, 11}, {});
  EXPECT_FALSE(f.ok);
  EXPECT_THAT(f.message, HasSubstr("CV_FIRST_RHSFUNC_ERR"));
}

TEST(CvodesIntegrator, ThrowingRightHandSideIsAFailureNotAThrow) {
  const RightHandSide rhs = [](double t, const double*, double* xdot) -> int {
    if (t > 0.2) throw std::runtime_error("table lookup out of range");
    xdot[0] = 1.0;
    return 0;
  };
  IntegrationResult r;
  EXPECT_NO_THROW(r = integrate(rhs, Eigen::VectorXd::Zero(1), {0.0, 1.0, 3}, {}));
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.message, HasSubstr("CV_RHSFUNC_FAIL"));
  EXPECT_THAT(r.message, HasSubstr("table lookup out of range"));
}

TEST(CvodesIntegrator, MaxStepsLimitsTheStepsBetweenGridPoints) {
  IntegratorSettings settings;
  settings.max_steps = 1;
  const IntegrationResult r = integrate(decay(1.0), Eigen::VectorXd::Ones(1), {0, 1, 2}, settings);
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.message, HasSubstr("CV_TOO_MUCH_WORK"));
  EXPECT_EQ(r.states.size(), 0);
  settings.max_steps = 500;  // per interval: 100 short intervals need far more in total
  EXPECT_TRUE(integrate(decay(1.0), Eigen::VectorXd::Ones(1), {0, 10, 101}, settings).ok);
}

TEST(CvodesIntegrator, ParallelIntegrationsMatchSerialOnes) {
  const TimeGrid grid{0.0, 3.0, 31};
  std::vector<Eigen::MatrixXd> serial(8), parallel(8);
  for (int i = 0; i < 8; ++i) {
    serial[i] = integrate(decay(0.5 + i), Eigen::VectorXd::Ones(1), grid, {}).states;
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      parallel[i] = integrate(decay(0.5 + i), Eigen::VectorXd::Ones(1), grid, {}).states;
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(serial[i], parallel[i]) << "rate " << 0.5 + i;
}

TEST(CvodesIntegrator, BadInputIsACallersMistake) {
  EXPECT_THROW(integrate(decay(1), Eigen::VectorXd(), {0, 1, 2}, {}), std::invalid_argument);
  EXPECT_THROW(integrate(decay(1), Eigen::VectorXd::Ones(1), {0, 1, 1}, {}), std::invalid_argument);
  EXPECT_THROW(integrate(decay(1), Eigen::VectorXd::Ones(1), {1, 1, 5}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace sao::sim
