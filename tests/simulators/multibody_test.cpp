// The planar multibody models: kinematics against the closed-form slider-crank, dynamics
// against conservation of energy and a spring-mass closed form, sensitivities of seed 002's
// slider-crank by direct, adjoint and central differences, and the failure messages.
#include "simulators/multibody/multibody.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numbers>

#include "sao/seam/json_reader.hpp"
#include "sao/study/study_loader.hpp"
#include "simulators/internal_simulator.hpp"
#include "tests/simulators/multibody_support.hpp"

namespace sao::sim {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

using testing::grid_case;

json study_simulator(const std::string& relative) {
  std::ifstream in(std::string(SAO_SOURCE_DIR) + "/" + relative);
  return json::parse(in).at("simulator");
}

// problems/slider-crank/path-multibody.json against the closed-form model of path.json at
// the start design: the same x2, y2, theta2 at the 8 crank positions.
TEST(Multibody, KinematicSliderCrankMatchesTheClosedForm) {
  const json section = study_simulator("problems/slider-crank/path-multibody.json");
  const auto model = load_multibody_model(section.at("multibody"));
  LoadCaseSpec lc = grid_case({});
  lc.grid.values = {0, 22, 44, 66, 88, 129, 221, 314};
  lc.grid.points = 8;
  lc.grid.start = 0;
  lc.grid.end = 314;
  Eigen::VectorXd p(8);
  p << 6, 25, -4, 11, 3, 4, 2, 2;
  CaseResult mb, closed;
  ASSERT_EQ(model->analyse(p, lc, {}, mb), "");
  ASSERT_EQ(slider_crank_path_model().analyse(p, lc, {}, closed), "");
  EXPECT_TRUE(mb.histories.at("coupler.x").isApprox(closed.histories.at("x2"), 1e-10));
  EXPECT_TRUE(mb.histories.at("coupler.y").isApprox(closed.histories.at("y2"), 1e-10));
  EXPECT_TRUE(mb.histories.at("coupler.theta").isApprox(closed.histories.at("theta2"), 1e-10));
  // The crank turns at 1 degree per unit of t: omega = pi/180 throughout.
  EXPECT_NEAR(mb.histories.at("crank.omega")(3), std::numbers::pi / 180, 1e-7);
}

TEST(Multibody, NoAssemblyNamesTheTimeAndTheJoint) {
  json section = study_simulator("problems/slider-crank/path-multibody.json").at("multibody");
  const auto model = load_multibody_model(section);
  LoadCaseSpec lc = grid_case(TimeGrid(0.0, 300.0, 4));
  Eigen::VectorXd p(8);
  p << 6, 2, -4, 11, 3, 4, 2, 2;  // a coupler of length 2 cannot reach the slider line
  CaseResult out;
  EXPECT_THAT(model->analyse(p, lc, {}, out), HasSubstr("at t = 0"));
}

// A pendulum (uniform rod of length 1, pinned at one end) released horizontally: the
// Baumgarte-stabilised equations conserve energy and keep the joint closed.
TEST(Multibody, PendulumConservesEnergy) {
  const json m = json::parse(R"({
    "analysis": "dynamic", "parameters": {"L": 1.0, "m": 2.0},
    "bodies": [{"name": "rod", "mass": "m", "inertia": "m*L^2/12", "position": ["L/2", 0]}],
    "joints": [{"type": "revolute", "bodies": ["ground", "rod"], "points": [[0, 0], ["-L/2", 0]]}]
  })");
  const auto model = load_multibody_model(m);
  const LoadCaseSpec lc = grid_case(TimeGrid(0.0, 2.0, 41));
  IntegratorSettings settings;
  settings.rtol = 1e-10;
  settings.atol = 1e-12;
  CaseResult out;
  ASSERT_EQ(model->analyse(Eigen::Vector2d(1.0, 2.0), lc, settings, out), "");
  const auto& x = out.histories.at("rod.x");
  const auto& y = out.histories.at("rod.y");
  const auto& vx = out.histories.at("rod.vx");
  const auto& vy = out.histories.at("rod.vy");
  const auto& w = out.histories.at("rod.omega");
  for (int k = 0; k < lc.grid.points; ++k) {
    const double energy = 0.5 * 2.0 * (vx(k) * vx(k) + vy(k) * vy(k)) +
                          0.5 * (2.0 / 12.0) * w(k) * w(k) + 2.0 * 9.81 * y(k);
    EXPECT_NEAR(energy, 0.0, 1e-6) << "t = " << lc.grid.at(k);
    EXPECT_NEAR(x(k) * x(k) + y(k) * y(k), 0.25, 1e-8);  // the centre stays at L/2
  }
  EXPECT_LT(y.minCoeff(), -0.49);  // it swings down through the bottom
}

// A mass on a vertical slide held by a spring to the ground: y(t) = -(g/w^2)(1 - cos w t).
TEST(Multibody, SpringMassFollowsTheClosedForm) {
  const json m = json::parse(R"({
    "parameters": {"k": 100.0, "mass": 4.0},
    "bodies": [{"name": "block", "mass": "mass", "inertia": 1}],
    "joints": [{"type": "translational", "bodies": ["ground", "block"], "axis": "pi/2"}],
    "forces": [{"type": "spring_damper", "name": "spring", "bodies": ["ground", "block"],
                "points": [[0, 1], [0, 0]], "stiffness": "k", "length": 1}]
  })");
  const auto model = load_multibody_model(m);
  const LoadCaseSpec lc = grid_case(TimeGrid(0.0, 2.0, 21));
  IntegratorSettings settings;
  settings.rtol = 1e-10;
  settings.atol = 1e-12;
  CaseResult out;
  ASSERT_EQ(model->analyse(Eigen::Vector2d(100.0, 4.0), lc, settings, out), "");
  const double w = std::sqrt(100.0 / 4.0);
  for (int k = 0; k < lc.grid.points; ++k) {
    const double t = lc.grid.at(k);
    EXPECT_NEAR(out.histories.at("block.y")(k), -(9.81 / (w * w)) * (1 - std::cos(w * t)), 1e-7);
    EXPECT_NEAR(out.histories.at("spring.length")(k), 1.0 - out.histories.at("block.y")(k), 1e-9);
  }
}

// Seed 002's slider-crank with gravity (problems/slider-crank-dynamics/psi.json): direct and
// adjoint gradients of psi agree with each other and with central differences.
TEST(Multibody, SliderCrankDynamicsGradientsAgree) {
  SimulatorSetup setup;
  setup.section = study_simulator("problems/slider-crank-dynamics/psi.json");
  setup.design_names = {"l1", "l2", "m1", "m2", "m3"};
  setup.load_cases = {grid_case(TimeGrid(0.0, 1.0, 101))};
  Eigen::VectorXd b(5);
  b << 1.0, std::sqrt(3.0), 1.0, 1.0, 2.0;
  std::map<std::string, Eigen::RowVectorXd> gradients;
  double psi = 0;
  for (const char* method : {"direct", "adjoint", "central"}) {
    setup.section["gradients"] = {{"method", method}, {"step", 1e-5}};
    InternalSimulator sim(setup);
    const Evaluation e = sim.evaluate({{b, {{0, "psi", {}}}}}).front();
    ASSERT_TRUE(e.ok) << method << ": " << e.message;
    gradients[method] = e.cases[0].gradients.at("psi").row(0);
    psi = e.cases[0].scalars.at("psi");
  }
  EXPECT_NEAR(psi, 0.0722690, 1e-6);
  for (int k = 0; k < 5; ++k) {
    const double ref = gradients["direct"](k);
    EXPECT_NEAR(gradients["adjoint"](k), ref, 1e-8 * (1 + std::abs(ref))) << k;
    EXPECT_NEAR(gradients["central"](k), ref, 1e-5 * (1 + std::abs(ref))) << k;
  }
}

TEST(Multibody, BadDescriptionsNameTheirPath) {
  auto error = [](const char* text) {
    try {
      load_multibody_model(json::parse(text));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error(R"({"bodies": [{"name": "a", "mass": 1, "inertia": 1}],
                       "joints": [{"type": "revolute", "bodies": ["ground", "b"]}]})"),
              HasSubstr("simulator.multibody.joints[0].bodies[1]: unknown body \"b\""));
  EXPECT_THAT(error(R"({"bodies": [{"name": "a", "mass": "m*2", "inertia": 1}]})"),
              HasSubstr("simulator.multibody.bodies[0].mass: column 1: unknown name \"m\""));
  EXPECT_THAT(error(R"({"analysis": "kinematic", "bodies": [{"name": "a"}]})"),
              HasSubstr("must be driven"));
  EXPECT_THAT(error(R"({"bodies": [{"name": "a", "mass": 1, "inertia": 1, "colour": 2}]})"),
              HasSubstr("bodies[0].colour: unknown key"));
  EXPECT_THAT(error(R"({"bodies": [{"name": "a", "mass": "1 + t", "inertia": 1}]})"),
              HasSubstr("may not depend on the time t"));
  // Read from the text, not probed at the defaults: m = 0 there hides t.
  EXPECT_THAT(error(R"({"parameters": {"m": 0},
                       "bodies": [{"name": "a", "mass": "1 + m*t", "inertia": 1}]})"),
              HasSubstr("bodies[0].mass: may not depend on the time t"));
}

// Values of another JSON kind where a name or a type is read, and elements nested in an extra
// array: each named at its path, never with the JSON library's exception text (which is what
// a boolean force type or "forces": [[{...}]] gave: "[json.exception.type_error.302] ...").
TEST(Multibody, ValuesOfAnotherKindNameTheirPath) {
  auto error = [](const std::string& text) {
    try {
      load_multibody_model(json::parse(text));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string body = R"("bodies": [{"name": "a", "mass": 1, "inertia": 1}])";
  const std::string spring = R"("bodies": ["ground", "a"], "stiffness": 1)";
  struct Case {
    std::string text, says;
  };
  for (const Case& c : std::vector<Case>{
           {"{" + body + R"(, "forces": [{"type": true, )" + spring + "}]}",
            "simulator.multibody.forces[0].type: expected a string, got true"},
           {"{" + body + R"(, "forces": [[{"type": "spring_damper", )" + spring + "}]]}",
            "simulator.multibody.forces[0]: expected an object, got an array of 1 entry"},
           {"{" + body + R"(, "forces": [{"type": "spring_damper", "name": 3, )" + spring + "}]}",
            "simulator.multibody.forces[0].name: expected a string, got 3"},
           {"{" + body + R"(, "joints": [{"type": ["revolute"], "bodies": ["ground", "a"]}]})",
            "simulator.multibody.joints[0].type: expected a string, got an array of 1 entry"},
           {"{" + body + R"(, "joints": [[{"type": "revolute", "bodies": ["ground", "a"]}]]})",
            "simulator.multibody.joints[0]: expected an object"},
           {"{" + body + R"(, "baumgarte": {"alpha": "fast"}})",
            "simulator.multibody.baumgarte.alpha: expected a finite number, got \"fast\""},
           {"{" + body + R"(, "points": [{"name": false, "body": "a"}]})",
            "simulator.multibody.points[0].name: expected a string, got false"},
           {"{" + body + R"(, "integrals": [{"name": "e", "integrand": 1}]})",
            "simulator.multibody.integrals[0].integrand: expected a string, got 1"},
       }) {
    const std::string what = error(c.text);
    EXPECT_THAT(what, HasSubstr(c.says)) << c.text;
    EXPECT_THAT(what, ::testing::Not(HasSubstr("[json.exception"))) << c.text;
  }
}

TEST(Multibody, ReportsEveryProblemOfTheDescriptionAtOnce) {
  try {
    load_multibody_model(json::parse(R"({"bodies": [{"name": "a", "mass": 1, "inertia": 1,
                                                     "colour": 2}],
                                        "joints": [{"type": "hinge", "bodies": ["ground", "a"]}],
                                        "forces": [{"type": "point_force", "body": "b"}]})"));
    FAIL() << "no error";
  } catch (const SectionError& e) {
    ASSERT_EQ(e.problems().size(), 3u) << e.what();
    EXPECT_THAT(e.problems()[0], HasSubstr("simulator.multibody.bodies[0].colour: unknown key"));
    EXPECT_THAT(e.problems()[1], HasSubstr("simulator.multibody.joints[0].type: expected"));
    EXPECT_THAT(e.problems()[2],
                HasSubstr("simulator.multibody.forces[0].body: unknown body \"b\""));
  }
}

}  // namespace
}  // namespace sao::sim
