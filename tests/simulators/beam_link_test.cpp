// A pinned beam of many co-rotational elements (issue 52, bench/pendulum_chain_model.hpp's
// beam_link) by the two documented ways of making it cheaper than CVODES with a Newton matrix
// at every step: the variational integrator at a fixed step (its steps do not grow with the
// elements; its Newton matrices of 130 unknowns go through the sparse LU whose symbolic
// analysis is kept from step to step) follows CVODES's tip to second order in the step, and
// its discrete adjoint equals its discrete direct derivatives on that sparse path; CVODES with
// "jacobian_age" 0 (its own Jacobian re-use) gives the same trajectory and gradients as the
// default age of a beam model (1). Bad "jacobian_age" values name the key. An undamped beam's
// steps in CVODES are said once, with the damping that removes them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "bench/pendulum_chain_model.hpp"
#include "simulators/internal_simulator.hpp"
#include "simulators/multibody/multibody.hpp"
#include "tests/support.hpp"

namespace sao::sim {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

const std::vector<DerivativeRequest> kTip = {{0, "tip", {}}};

// One analysis of the beam of `elements` elements with the multibody settings `settings`
// merged in, 0.02 s in 5 points, w and E design variables, gradients of the tip's integral by
// `method` (none when empty); `end` s instead of 0.02.
Evaluation beam(int elements, const json& settings, const std::string& method, double end = 0.02) {
  json model = bench::beam_link(elements);
  model.update(settings);
  json section = {{"type", "internal"}, {"model", "multibody"}, {"workers", 1}};
  if (!method.empty()) section["gradients"] = {{"method", method}};
  Eigen::VectorXd b;
  SimulatorSetup setup = bench::chain_setup(model, section, 2, b);
  setup.load_cases[0].grid = TimeGrid(0.0, end, 5);
  InternalSimulator sim(setup);
  Evaluation e =
      sim.evaluate({{b, method.empty() ? std::vector<DerivativeRequest>{} : kTip}}).front();
  EXPECT_TRUE(e.ok) << e.message;
  return e;
}

// The largest difference of the last node's (x, y) between two analyses of a beam of
// `elements` elements.
double tip_difference(const Evaluation& a, const Evaluation& b, int elements) {
  double worst = 0.0;
  for (const char* c : {".x", ".y"}) {
    const std::string name = "b_" + std::to_string(elements) + c;
    worst = std::max(
        worst,
        (a.cases[0].histories.at(name) - b.cases[0].histories.at(name)).cwiseAbs().maxCoeff());
  }
  return worst;
}

// The gradients of the tip's integral in w and E of two analyses, nonzero and equal within
// `tolerance` relative.
void expect_same_tip_gradient(const Evaluation& a, const Evaluation& b, double tolerance) {
  const Eigen::MatrixXd& g = a.cases[0].gradients.at("tip");
  const Eigen::MatrixXd& h = b.cases[0].gradients.at("tip");
  ASSERT_EQ(g.cols(), 2);
  ASSERT_EQ(h.cols(), 2);
  for (Eigen::Index j = 0; j < 2; ++j) {
    EXPECT_GT(std::abs(h(0, j)), 0.0) << "column " << j;
    EXPECT_NEAR(g(0, j), h(0, j), tolerance * std::abs(h(0, j))) << "column " << j;
  }
}

// Measured: 4.5e-6 m at h = 1e-3 s, 8.8e-7 m at 5e-4 s (the tip falls 2 mm in 0.02 s), CVODES
// taking about 5000 steps.
TEST(BeamLink, TheVariationalIntegratorFollowsCvodesToSecondOrderInItsStep) {
  const int elements = 20;  // 63 coordinates: 130 unknowns per step, the sparse LU
  const Evaluation cvodes = beam(elements, {{"jacobian_age", 0}}, "");
  auto variational = [&](double h) {
    return beam(elements, {{"integrator", {{"type", "variational"}, {"step", h}}}}, "");
  };
  const Evaluation coarse = variational(1e-3), fine = variational(5e-4);
  ASSERT_TRUE(cvodes.ok && coarse.ok && fine.ok);
  EXPECT_LT(cvodes.cases[0].histories.at("b_20.y")(4), -1e-3);  // it has fallen
  EXPECT_EQ(coarse.cases[0].integrator_steps, 20);
  EXPECT_GT(cvodes.cases[0].integrator_steps, 50 * coarse.cases[0].integrator_steps);
  const double e1 = tip_difference(coarse, cvodes, elements);
  const double e2 = tip_difference(fine, cvodes, elements);
  EXPECT_LT(e1, 1e-5);
  EXPECT_LT(e2, e1 / 3.0) << "halving the step should divide the error by about 4";
}

// The discrete adjoint and the discrete direct method on the 20-element beam: the same
// derivatives of the discrete map (the adjoint solves with the stored Newton matrices'
// transposes through the same sparse LU).
TEST(BeamLink, TheVariationalDiscreteAdjointEqualsItsDirectMethodOnTheSparsePath) {
  const json settings = {{"integrator", {{"type", "variational"}, {"step", 1e-3}}}};
  const Evaluation adjoint = beam(20, settings, "discrete_adjoint");
  const Evaluation direct = beam(20, settings, "direct");
  ASSERT_TRUE(adjoint.ok && direct.ok);
  expect_same_tip_gradient(adjoint, direct, 1e-8);
}

// CVODES's own Jacobian age (0) against a beam model's default (a Newton matrix every step):
// the same tip to the integration tolerance and the same direct gradients.
TEST(BeamLink, JacobianAgeZeroKeepsTheTrajectoryAndTheGradients) {
  const Evaluation every_step = beam(10, {{"linear_algebra", "sparse"}}, "direct");
  const Evaluation reused = beam(10, {{"linear_algebra", "sparse"}, {"jacobian_age", 0}}, "direct");
  ASSERT_TRUE(every_step.ok && reused.ok);
  EXPECT_LT(tip_difference(reused, every_step, 10), 1e-9);
  expect_same_tip_gradient(reused, every_step, 1e-6);
}

// What the model asks CVODES for: a beam model a Newton matrix every step ("auto"), the
// setting's age otherwise; a model without beams CVODES's defaults.
TEST(BeamLink, TheModelAsksForTheSettingsJacobianAge) {
  json model = bench::beam_link(3);
  EXPECT_EQ(load_multibody_model(model)->ode()->jacobian_age(), 1);
  model["jacobian_age"] = 0;
  EXPECT_EQ(load_multibody_model(model)->ode()->jacobian_age(), 0);
  model["jacobian_age"] = 7;
  EXPECT_EQ(load_multibody_model(model)->ode()->jacobian_age(), 7);
  EXPECT_EQ(load_multibody_model(bench::pendulum_chain(3))->ode()->jacobian_age(), 0);
}

// Over 0.1 s a pinned beam of 5 elements released from rest takes about 7,400 steps of CVODES,
// its mean step resolving its elements' fastest waves (2 sqrt(3 E / rho) / L0 = 8,770 rad/s);
// with the least damping the note names (2 / that frequency, 0.23 ms) it takes about a tenth of
// them and its tip stays within 3e-4 m (measured 1.2e-4 m; it falls 50 mm; the damping is a change
// of the model: 0.2 % of critical on the first bending mode, about 19 rad/s).
TEST(BeamLink, AnUndampedBeamsStepsAreSaidOnceWithTheDampingThatRemovesThem) {
  const int elements = 5;
  Evaluation undamped;
  const std::string said = sao::testing::captured_log(
      spdlog::level::warn, [&] { undamped = beam(elements, json::object(), "forward", 0.1); });
  ASSERT_TRUE(undamped.ok);
  const std::string note = "beam \"b\" has no damping";
  const size_t at = said.find(note);
  ASSERT_NE(at, std::string::npos) << said;
  EXPECT_EQ(said.find(note, at + 1), std::string::npos) << "said once for 3 analyses: " << said;
  const double fastest = 2.0 * std::sqrt(3.0 * 1e9 / 2700.0) / (1.2 / elements);
  const size_t mu_at = said.find("mu >= ");
  ASSERT_NE(mu_at, std::string::npos) << said;
  const double mu = std::stod(said.substr(mu_at + 6));
  EXPECT_NEAR(mu, 2.0 / fastest, 0.02 * mu);  // said to 2 digits

  json beams = bench::beam_link(elements)["beams"];
  beams[0]["damping"] = mu;
  Evaluation damped;
  const std::string quiet = sao::testing::captured_log(spdlog::level::warn, [&] {
    damped = beam(elements, {{"beams", beams}}, "forward", 0.1);
  });
  ASSERT_TRUE(damped.ok);
  EXPECT_EQ(quiet.find("has no damping"), std::string::npos) << quiet;
  EXPECT_GT(undamped.cases[0].integrator_steps, 5 * damped.cases[0].integrator_steps);
  EXPECT_LT(undamped.cases[0].histories.at("b_5.y")(4), -0.03);  // it has fallen
  EXPECT_LT(tip_difference(damped, undamped, elements), 3e-4);
}

TEST(BeamLink, BadJacobianAgesNameTheKey) {
  for (const json& age : {json(-1), json(2.5), json("often")}) {
    json model = bench::beam_link(3);
    model["jacobian_age"] = age;
    try {
      load_multibody_model(model);
      FAIL() << "accepted " << age.dump();
    } catch (const SectionError& e) {
      ASSERT_FALSE(e.problems().empty());
      EXPECT_THAT(e.problems().at(0), HasSubstr("simulator.multibody.jacobian_age"));
      EXPECT_THAT(e.problems().at(0), HasSubstr(age.dump()));
    }
  }
}

}  // namespace
}  // namespace sao::sim
