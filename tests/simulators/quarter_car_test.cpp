// The quarter truck of seed 003, chapter 7 (simulators/quarter_car.hpp) against hand
// calculation: equilibrium, free-vibration frequencies, road profiles and their timing, the
// damper law's stages, the stroke-dependent weight of the extra damper, and its sensitivities.
#include "simulators/models/quarter_car.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "simulators/internal_simulator.hpp"
#include "simulators/models/model.hpp"

namespace sao::sim {
namespace {

using namespace quarter_car;

const Eigen::VectorXd kStart = (Eigen::VectorXd(6) << 10, 20, 0.7, 10, 20, 0.7).finished();

LoadCaseSpec road_case(int road, int points = 601) {
  LoadCaseSpec lc;
  lc.name = "road" + std::to_string(road);
  lc.grid = TimeGrid(0.0, 3.0, points);
  lc.parameters = {{"road", road}};
  return lc;
}

// On a flat road (before the obstacle) the origin is an equilibrium: the coordinates are
// measured from the static position, where gravity and the spring preload cancel.
TEST(QuarterCar, TheOriginIsAnEquilibrium) {
  const OdeModel& m = quarter_car_model();
  const LoadCaseSpec lc = road_case(kHump);
  double x[4] = {0, 0, 0, 0}, xdot[4];
  EXPECT_EQ(m.rhs(0.1, x, xdot, kStart.data(), lc), 0);  // the hump starts at 1 m: t = 0.24 s
  for (double v : xdot) EXPECT_EQ(v, 0.0);
  // Displaced statically by 1 cm, the spring pushes back with k_s * 0.01 on the chassis.
  x[0] = 0.01;
  m.rhs(0.1, x, xdot, kStart.data(), lc);
  EXPECT_NEAR(xdot[1], -kSpring * 0.01 / kChassis, 1e-12);
  EXPECT_NEAR(xdot[3], kSpring * 0.01 / kAxle, 1e-12);
}

// Linearised at rest the dampers vanish (their force grows with v^2), so the Jacobian's
// eigenvalues are +-i omega of the undamped two-mass system: omega^2 solves
// m_c m_a w^4 - (k_s m_a + (k_s + k_t) m_c) w^2 + k_s k_t = 0, by hand 1.512 Hz (body) and
// 9.421 Hz (wheel hop).
TEST(QuarterCar, FreeVibrationFrequenciesMatchTheHandCalculation) {
  const double a = kChassis * kAxle, b = kSpring * kAxle + (kSpring + kTyre) * kChassis,
               c = kSpring * kTyre;
  const double root = std::sqrt(b * b - 4 * a * c);
  const double f1 = std::sqrt((b - root) / (2 * a)) / (2 * std::numbers::pi);
  const double f2 = std::sqrt((b + root) / (2 * a)) / (2 * std::numbers::pi);
  EXPECT_NEAR(f1, 1.512, 1e-3);
  EXPECT_NEAR(f2, 9.421, 1e-3);

  const OdeModel& m = quarter_car_model();
  const OdeSystem system = m.system(kStart, road_case(kHump), {});
  Eigen::MatrixXd jacobian(4, 4);
  const double x[4] = {0, 0, 0, 0};
  system.jacobian(0.1, x, jacobian);
  const Eigen::VectorXcd eigen = Eigen::EigenSolver<Eigen::MatrixXd>(jacobian).eigenvalues();
  std::vector<double> frequencies;
  for (const auto& e : eigen) {
    EXPECT_NEAR(e.real(), 0.0, 1e-9);
    if (e.imag() > 0) frequencies.push_back(e.imag() / (2 * std::numbers::pi));
  }
  std::sort(frequencies.begin(), frequencies.end());
  ASSERT_EQ(frequencies.size(), 2u);
  EXPECT_NEAR(frequencies[0], f1, 1e-9);
  EXPECT_NEAR(frequencies[1], f2, 1e-9);
}

TEST(QuarterCar, RoadProfilesHaveTheirHeightsAndLengths) {
  // Hump: 4.25 m long, 0.25 m over its middle 2.25 m, 1 m ramps.
  EXPECT_EQ(road_height(kHump, -0.01), 0.0);
  EXPECT_NEAR(road_height(kHump, 0.5), 0.125, 1e-12);
  EXPECT_EQ(road_height(kHump, 1.0), 0.25);
  EXPECT_EQ(road_height(kHump, 3.25), 0.25);
  EXPECT_NEAR(road_height(kHump, 3.75), 0.125, 1e-12);
  EXPECT_NEAR(road_height(kHump, 4.25), 0.0, 1e-15);
  EXPECT_EQ(road_height(kHump, 5.0), 0.0);
  // Wave: 0.5 sin^2(pi x / 25) over 25 m.
  EXPECT_NEAR(road_height(kWave, 12.5), 0.5, 1e-12);
  EXPECT_NEAR(road_height(kWave, 6.25), 0.25, 1e-12);
  EXPECT_EQ(road_height(kWave, 25.0), 0.0);
  EXPECT_EQ(road_height(kWave, 30.0), 0.0);
  // Crossing: a 1 cm plank of 3 m with two 3 cm rails 1.5 m apart (at 0.75 m and 2.25 m).
  EXPECT_NEAR(road_height(kCrossing, 0.75), 0.04, 1e-12);
  EXPECT_NEAR(road_height(kCrossing, 2.25), 0.04, 1e-12);
  EXPECT_NEAR(road_height(kCrossing, 1.5), 0.01, 1e-12);
  EXPECT_EQ(road_height(kCrossing, 3.1), 0.0);
  EXPECT_EQ(default_speed(kHump), 15.0);
  EXPECT_EQ(default_speed(kWave), 80.0);
  EXPECT_EQ(default_speed(kCrossing), 25.0);
}

// The road under the tyre in an analysis: the obstacle starts 1 m ahead, so the hump at
// 15 km/h begins at t = 1 / (15 / 3.6) = 0.24 s and ends 4.25 m later, at 1.26 s.
TEST(QuarterCar, RoadTimingFollowsSpeedAndStart) {
  const OdeModel& m = quarter_car_model();
  CaseResult out;
  ASSERT_EQ(m.analyse(kStart, road_case(kHump), {}, out), "");
  const Eigen::VectorXd& road = out.histories.at("road");
  const TimeGrid grid(0.0, 3.0, 601);
  int first = -1, last = -1;
  for (int k = 0; k < road.size(); ++k) {
    if (road(k) > 1e-12) {
      if (first < 0) first = k;
      last = k;
    }
  }
  EXPECT_NEAR(grid.at(first), 0.245, 1e-9);  // first grid point after 0.24 s
  EXPECT_NEAR(grid.at(last), 1.255, 1e-9);   // last one before 1.26 s
  EXPECT_NEAR(road.maxCoeff(), 0.25, 1e-12);

  LoadCaseSpec faster = road_case(kHump);
  faster.parameters["speed"] = 30.0;
  faster.parameters["start"] = 2.5;
  ASSERT_EQ(m.analyse(kStart, faster, {}, out), "");
  for (int k = 0; k < 601; ++k) {
    EXPECT_DOUBLE_EQ(out.histories.at("road")(k),
                     road_height(kHump, grid.at(k) * 30.0 / 3.6 - 2.5));
  }
}

TEST(QuarterCar, DamperLawStages) {
  const double* B = kCompression;
  auto F = [&](double v) { return damper_stage(v, B[0], B[1], B[2], B[3]); };
  // Bleed: at small |v| the force is B0 v^2.
  for (double v : {1e-4, 1e-3}) EXPECT_NEAR(F(v) / (B[0] * v * v), 1.0, 5e-3) << v;
  // Blow-off: at large |v| it is B1 + B2 |v| (plus the port's B3 v^2).
  for (double v : {2.0, 5.0}) {
    EXPECT_NEAR((F(v) - B[3] * v * v) / (B[1] + B[2] * v), 1.0, 1e-3) << v;
  }
  // In between it stays below both asymptotes, and it grows with |v|.
  EXPECT_LT(F(0.02), B[0] * 0.02 * 0.02);
  EXPECT_LT(F(0.02) - B[3] * 4e-4, B[1] + B[2] * 0.02);
  double previous = 0;
  for (double v = 0.01; v < 3; v += 0.01) {
    EXPECT_GT(F(v), previous);
    previous = F(v);
  }
  // The formula is odd in v: rebound and compression differ only by their parameters.
  for (double v : {1e-3, 0.1, 1.0, 4.0}) EXPECT_EQ(F(-v), -F(v));
  EXPECT_EQ(F(0.0), 0.0);
}

TEST(QuarterCar, ExtraDamperWeightDependsOnTheStroke) {
  EXPECT_EQ(extra_weight(0.1), 0.0);
  EXPECT_EQ(extra_weight(-0.03), 0.0);
  EXPECT_EQ(extra_weight(-0.04), 0.0);
  EXPECT_NEAR(extra_weight(-0.045), 0.5, 1e-12);
  EXPECT_EQ(extra_weight(-0.05), 1.0);
  EXPECT_EQ(extra_weight(-0.2), 1.0);
}

// On the crossing the suspension never compresses beyond 4 cm, so the extra damper never
// acts: the histories equal those of the original truck (`extra` = 0). On the hump it does.
TEST(QuarterCar, ExtraDamperActsOnlyBeyondFourCentimetres) {
  const OdeModel& m = quarter_car_model();
  for (int road : {kCrossing, kHump}) {
    LoadCaseSpec with = road_case(road), without = road_case(road);
    without.parameters["extra"] = 0.0;
    CaseResult a, b;
    ASSERT_EQ(m.analyse(kStart, with, {}, a), "");
    ASSERT_EQ(m.analyse(kStart, without, {}, b), "");
    const double difference =
        (a.histories.at("deflection") - b.histories.at("deflection")).cwiseAbs().maxCoeff();
    if (road == kCrossing) {
      EXPECT_LT(b.histories.at("deflection").minCoeff(), 0.0);
      EXPECT_GT(b.histories.at("deflection").minCoeff(), -0.04);
      EXPECT_EQ(difference, 0.0);
    } else {
      EXPECT_LT(b.histories.at("deflection").minCoeff(), -0.05);
      EXPECT_GT(difference, 1e-3);
    }
  }
}

// Direct sensitivities of the deflection agree with central differences of the analysis.
TEST(QuarterCar, DirectSensitivitiesAgreeWithCentralDifferences) {
  SimulatorSetup setup;
  setup.section = {{"type", "internal"},
                   {"model", "quarter-car"},
                   {"parameters",
                    {{"bleed_c", "b1"},
                     {"preload_c", "b2"},
                     {"blowoff_c", "b3"},
                     {"bleed_r", "b4"},
                     {"preload_r", "b5"},
                     {"blowoff_r", "b6"}}},
                   {"rtol", 1e-10},
                   {"atol", 1e-12},
                   {"max_step", 0.005},
                   {"gradients", {{"method", "direct"}}}};
  setup.design_names = {"b1", "b2", "b3", "b4", "b5", "b6"};
  setup.load_cases = {road_case(kHump)};
  InternalSimulator sim(setup);
  // The largest inward deflection of the start design is near t = 1.475 s (point 295).
  const int point = 295;
  const Evaluation e = sim.evaluate({{kStart, {{0, "deflection", {point}}}}}).front();
  ASSERT_TRUE(e.ok) << e.message;
  const Eigen::RowVectorXd direct = e.cases[0].gradients.at("deflection").row(point);
  for (int i = 0; i < 6; ++i) {
    const double h = 1e-3 * kStart(i);  // the seed's step; smaller ones meet the integrator's noise
    Eigen::VectorXd up = kStart, down = kStart;
    up(i) += h;
    down(i) -= h;
    const auto r = sim.evaluate({{up, {}}, {down, {}}});
    const double central = (r[0].cases[0].histories.at("deflection")(point) -
                            r[1].cases[0].histories.at("deflection")(point)) /
                           (2 * h);
    EXPECT_NEAR(direct(i), central, 1e-5 * direct.cwiseAbs().maxCoeff() + 1e-9) << i;
  }
}

}  // namespace
}  // namespace sao::sim
