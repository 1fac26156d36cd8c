// Applied loads and body reference points of the multibody models: the sign convention of
// every force element (a positive value pushes or turns the way docs/study-format.md says),
// a torque-driven crank with a motor law of its own speed against its closed form, a physical
// pendulum whose reference point is its pivot against 2 pi sqrt(I_pivot / (m g d)), and the
// parser's messages for the new keys.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "sao/seam/json_reader.hpp"
#include "simulators/multibody/multibody.hpp"
#include "tests/simulators/multibody_support.hpp"

namespace sao::sim {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

using testing::defaults;
using testing::grid_case;

// One analysis of a model at its parameter defaults, integrated tightly.
CaseResult analysed(const json& description, const LoadCaseSpec& lc) {
  const auto model = load_multibody_model(description);
  IntegratorSettings settings;
  settings.rtol = 1e-10;
  settings.atol = 1e-12;
  CaseResult out;
  EXPECT_EQ(model->analyse(defaults(*model), lc, settings, out), "");
  return out;
}

// The accelerations (x'', y'', theta'' of every body) of a model at its assembled initial
// state, velocities as given, at t = 0.
Eigen::VectorXd accelerations(const std::string& description) {
  const auto model = load_multibody_model(json::parse(description));
  const OdeModel& ode = *model->ode();
  const Eigen::VectorXd p = defaults(*model);
  const LoadCaseSpec lc = grid_case(TimeGrid(0.0, 1.0, 2));
  Eigen::VectorXd x(ode.state_size()), xdot(ode.state_size());
  ode.initial_state(p.data(), x.data(), lc);
  EXPECT_EQ(ode.rhs(0.0, x.data(), xdot.data(), p.data(), lc), 0);
  return xdot.tail(ode.state_size() / 2);
}

// Two free bodies without gravity along x, a at 0 and b at 1, with a force element between.
std::string pair_with(const std::string& force, double vb = 0.0) {
  return R"J({"gravity": [0, 0],
    "bodies": [{"name": "a", "mass": 1, "inertia": 1},
               {"name": "b", "mass": 2, "inertia": 1, "position": [1, 0],
                "velocity": [)J" +
         std::to_string(vb) + R"J(, 0]}],
    "forces": [)J" +
         force + "]}";
}

// --- sign conventions ------------------------------------------------------------------------

TEST(MultibodySigns, SpringDamperTensionPullsThePointsTogether) {
  // Stretched (length 1 > free length 0.8): tension 100 * 0.2 = 20 N pulls a to +x, b to -x.
  const Eigen::VectorXd k = accelerations(pair_with(
      R"J({"type": "spring_damper", "bodies": ["a", "b"], "stiffness": 100, "length": 0.8})J"));
  EXPECT_NEAR(k(0), 20.0, 1e-9);
  EXPECT_NEAR(k(3), -10.0, 1e-9);
  // A positive "force" (preload) at the free length is a tension too.
  const Eigen::VectorXd f = accelerations(
      pair_with(R"J({"type": "spring_damper", "bodies": ["a", "b"], "length": 1, "force": 6})J"));
  EXPECT_NEAR(f(0), 6.0, 1e-9);
  EXPECT_NEAR(f(3), -3.0, 1e-9);
  // Damping: separating (v = +0.5) with c = 4 gives a tension of 2 N.
  const Eigen::VectorXd c = accelerations(pair_with(
      R"J({"type": "spring_damper", "bodies": ["a", "b"], "length": 1, "damping": 4})J", 0.5));
  EXPECT_NEAR(c(0), 2.0, 1e-9);
  EXPECT_NEAR(c(3), -1.0, 1e-9);
}

TEST(MultibodySigns, LawAndDamperValuesAreTensions) {
  // law = 10 d + 3 v with d = 0.2, v = 0.5: a tension of 3.5 N.
  const Eigen::VectorXd law =
      accelerations(pair_with(R"J({"type": "spring_damper", "bodies": ["a", "b"], "length": 0.8,
                    "law": "10*d + 3*v"})J",
                              0.5));
  EXPECT_NEAR(law(0), 3.5, 1e-9);
  // The staged damper resists the motion: extending (rebound) it pulls the points together,
  // compressing it pushes them apart.
  const std::string damper = R"J({"type": "spring_damper", "bodies": ["a", "b"], "length": 1,
      "damper": {"compression": [1e6, 1000, 0, 0], "rebound": [1e6, 2000, 0, 0]}})J";
  EXPECT_GT(accelerations(pair_with(damper, 0.5))(0), 0.0);
  EXPECT_LT(accelerations(pair_with(damper, -0.5))(0), 0.0);
}

TEST(MultibodySigns, RotationalSpringDamperTurnsBackTheSecondBody) {
  // theta_b - theta_a - angle = 0.1 with k = 20: a moment 2 N m turns b clockwise (its
  // inertia 1: theta'' = -2) and a counter-clockwise; a positive "force" (preload) likewise.
  const Eigen::VectorXd k = accelerations(
      pair_with(R"J({"type": "rotational_spring_damper", "bodies": ["a", "b"], "stiffness": 20,
                    "angle": -0.1})J"));
  EXPECT_NEAR(k(5), -2.0, 1e-9);
  EXPECT_NEAR(k(2), 2.0, 1e-9);
  const Eigen::VectorXd f = accelerations(
      pair_with(R"J({"type": "rotational_spring_damper", "bodies": ["a", "b"], "force": 3})J"));
  EXPECT_NEAR(f(5), -3.0, 1e-9);
  EXPECT_NEAR(f(2), 3.0, 1e-9);
}

TEST(MultibodySigns, PointForceActsAlongTheWorldOrTheBodyAxes) {
  const std::string body = R"J({"gravity": [0, 0],
    "bodies": [{"name": "b", "mass": 2, "inertia": 1, "angle": "pi/2"}], "forces": [)J";
  // World-fixed [4, 0] at the centre: +x; at [0, 1] in the body (global (-1, 0) from the
  // centre, the body turned by 90 degrees) it also turns the body: moment r x F = 0 here
  // since r and F are parallel.
  const Eigen::VectorXd world =
      accelerations(body + R"J({"type": "point_force", "body": "b", "force": [4, 0]}]})J");
  EXPECT_NEAR(world(0), 2.0, 1e-12);
  EXPECT_NEAR(world(1), 0.0, 1e-12);
  // Body-fixed [4, 0] on a body turned by 90 degrees: along the global +y.
  const Eigen::VectorXd fixed = accelerations(
      body + R"J({"type": "point_force", "body": "b", "force": [4, 0], "frame": "body"}]})J");
  EXPECT_NEAR(fixed(0), 0.0, 1e-12);
  EXPECT_NEAR(fixed(1), 2.0, 1e-12);
  // At the point [1, 0] of the body (global (0, 1) from the centre), the body-fixed force
  // (global (0, 4)) has no moment; a world-fixed [4, 0] there turns it clockwise: r x F =
  // 0 * 0 - 1 * 4 = -4.
  const Eigen::VectorXd moment = accelerations(
      body + R"J({"type": "point_force", "body": "b", "point": [1, 0], "force": [4, 0]}]})J");
  EXPECT_NEAR(moment(2), -4.0, 1e-12);
}

TEST(MultibodySigns, TorqueTurnsTheBodyCounterClockwise) {
  const Eigen::VectorXd on_one =
      accelerations(pair_with(R"J({"type": "torque", "body": "b", "torque": 3})J"));
  EXPECT_NEAR(on_one(5), 3.0, 1e-12);
  EXPECT_NEAR(on_one(2), 0.0, 1e-12);
  // Between two bodies: the reaction turns the first clockwise.
  const Eigen::VectorXd between =
      accelerations(pair_with(R"J({"type": "torque", "bodies": ["a", "b"], "torque": 3})J"));
  EXPECT_NEAR(between(5), 3.0, 1e-12);
  EXPECT_NEAR(between(2), -3.0, 1e-12);
}

// --- hand calculations -----------------------------------------------------------------------

// A uniform crank of length L and mass m pinned at one end (its reference point, the centre of
// mass at [L/2, 0]), no gravity, driven by a motor whose torque falls with its speed,
// T = T0 (1 - omega / w0): I_pivot omega' = T0 (1 - omega / w0) with I_pivot = m L^2 / 3, so
// omega(t) = w0 (1 - exp(-t / tau)), tau = I_pivot w0 / T0, and theta(t) = w0 (t - tau (1 -
// exp(-t / tau))).
TEST(MultibodyApplied, TorqueDrivenCrankMatchesTheClosedForm) {
  const json m = json::parse(R"J({
    "gravity": [0, 0], "parameters": {"L": 0.4, "m": 3, "T0": 2, "w0": 10},
    "bodies": [{"name": "crank", "mass": "m", "inertia": "m*L^2/12",
                "centre_of_mass": ["L/2", 0]}],
    "joints": [{"type": "revolute", "bodies": ["ground", "crank"]}],
    "forces": [{"type": "torque", "name": "motor", "body": "crank",
                "torque": "T0*(1 - crank_omega/w0)"}],
    "points": [{"name": "tip", "body": "crank", "at": ["L", 0]}]
})J");
  const LoadCaseSpec lc = grid_case(TimeGrid(0.0, 1.0, 11));
  const CaseResult out = analysed(m, lc);
  ASSERT_EQ(out.histories.count("crank.omega"), 1u);
  const double L = 0.4, mass = 3, T0 = 2, w0 = 10;
  const double tau = mass * L * L / 3 * w0 / T0;
  for (int k = 0; k < lc.grid.points; ++k) {
    const double t = lc.grid.at(k);
    const double theta = w0 * (t - tau * (1 - std::exp(-t / tau)));
    EXPECT_NEAR(out.histories.at("crank.omega")(k), w0 * (1 - std::exp(-t / tau)), 1e-7);
    EXPECT_NEAR(out.histories.at("crank.theta")(k), theta, 1e-7);
    // The body's x, y are its centre's, L/2 from the pivot; the tip is L from it.
    EXPECT_NEAR(out.histories.at("crank.x")(k), L / 2 * std::cos(theta), 1e-7);
    EXPECT_NEAR(out.histories.at("tip.y")(k), L * std::sin(theta), 1e-7);
  }
}

// A uniform rod of length 2 d hanging from its end, the reference point (position, joint
// point [0, 0]) at the pivot and the centre of mass d below it: for small swings the period is
// 2 pi sqrt(I_pivot / (m g d)) with I_pivot = I_centre + m d^2 = m (2 d)^2 / 3.
TEST(MultibodyApplied, PhysicalPendulumAboutItsReferencePointHasTheHandPeriod) {
  const json m = json::parse(R"J({
    "parameters": {"d": 0.3, "m": 2},
    "bodies": [{"name": "rod", "mass": "m", "inertia": "m*(2*d)^2/12",
                "centre_of_mass": [0, "-d"], "angle": 0.01}],
    "joints": [{"type": "revolute", "bodies": ["ground", "rod"]}]
  })J");
  const double d = 0.3, mass = 2, g = 9.81;
  const double period = 2 * std::numbers::pi * std::sqrt(mass * 4 * d * d / 3 / (mass * g * d));
  const LoadCaseSpec lc = grid_case(TimeGrid(0.0, 3.0, 3001));
  const CaseResult out = analysed(m, lc);
  ASSERT_EQ(out.histories.count("rod.theta"), 1u);
  // The downward zero crossings of theta (linear interpolation between grid points).
  const auto& theta = out.histories.at("rod.theta");
  std::vector<double> crossings;
  for (int k = 1; k < lc.grid.points; ++k) {
    if (theta(k - 1) > 0 && theta(k) <= 0) {
      const double t0 = lc.grid.at(k - 1), t1 = lc.grid.at(k);
      crossings.push_back(t0 + (t1 - t0) * theta(k - 1) / (theta(k - 1) - theta(k)));
    }
  }
  ASSERT_GE(crossings.size(), 2u);
  const double measured = (crossings.back() - crossings.front()) / (crossings.size() - 1);
  EXPECT_NEAR(measured, period, 1e-4 * period) << "hand: " << period;
  // The centre starts d below the pivot, turned by 0.01 rad.
  EXPECT_NEAR(out.histories.at("rod.x")(0), d * std::sin(0.01), 1e-9);
  EXPECT_NEAR(out.histories.at("rod.y")(0), -d * std::cos(0.01), 1e-9);
}

// --- the parser ------------------------------------------------------------------------------

std::string problem_of(const std::string& forces) {
  const json m = json::parse(R"J({"bodies": [{"name": "a", "mass": 1, "inertia": 1},
                                            {"name": "b", "mass": 1, "inertia": 1}],
                                 "forces": [)J" +
                             forces + "]}");
  try {
    load_multibody_model(m);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(MultibodyApplied, MessagesNameTheKeyAndTheProblem) {
  EXPECT_THAT(problem_of(R"J({"type": "torque", "body": "a", "torque": "b_omega"})J"),
              HasSubstr("forces[0].torque: reads b_omega, a state of another body"));
  EXPECT_THAT(problem_of(R"J({"type": "torque", "body": "a"})J"),
              HasSubstr("forces[0].torque: missing"));
  EXPECT_THAT(problem_of(R"J({"type": "torque", "body": "a", "bodies": ["a", "b"],
                             "torque": 1})J"),
              HasSubstr("forces[0]: give \"body\""));
  EXPECT_THAT(problem_of(R"J({"type": "point_force", "body": "a", "force": [1, 0],
                             "frame": "local"})J"),
              HasSubstr("forces[0].frame: expected \"world\" or \"body\""));
  EXPECT_THAT(problem_of(R"J({"type": "push", "body": "a"})J"), HasSubstr("\"torque\", got"));
  const json m = json::parse(R"J({"bodies": [{"name": "a", "mass": 1, "inertia": 1,
                                             "centre_of_mass": [1]}]})J");
  EXPECT_THAT([&] { load_multibody_model(m); },
              ::testing::ThrowsMessage<std::exception>(HasSubstr("bodies[0].centre_of_mass")));
}

}  // namespace
}  // namespace sao::sim
