#include "simulators/internal_simulator.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

namespace sao::sim {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// Closed form of PROBLEMS.md: y'' + c y' + k y = 0, y(0) = 0, y'(0) = 1.
double closed_form_y(double k, double c, double t) {
  const double w = std::sqrt(k), zeta = c / (2.0 * w);
  if (std::abs(zeta - 1.0) < 1e-12) return t * std::exp(-w * t);
  if (zeta < 1.0) {
    const double wd = w * std::sqrt(1.0 - zeta * zeta);
    return std::exp(-zeta * w * t) * std::sin(wd * t) / wd;
  }
  const double r1 = -zeta * w + w * std::sqrt(zeta * zeta - 1.0);
  const double r2 = -zeta * w - w * std::sqrt(zeta * zeta - 1.0);
  return (std::exp(r1 * t) - std::exp(r2 * t)) / (r1 - r2);
}

// y'' by the equation of motion, from the closed form of y and of y' (central difference of
// the closed form with a tiny step: the closed form is exact, so this is accurate to ~1e-9).
double closed_form_yddot(double k, double c, double t) {
  const double h = 1e-6;
  const double v = (closed_form_y(k, c, t + h) - closed_form_y(k, c, t - h)) / (2 * h);
  return -c * v - k * closed_form_y(k, c, t);
}

SimulatorSetup setup(json section = json::object()) {
  SimulatorSetup s;
  s.section = {{"type", "internal"},
               {"model", "impact-absorber"},
               {"parameters", {{"k", "b1"}, {"c", "b2"}}}};
  for (auto& [key, value] : section.items()) s.section[key] = value;
  s.design_names = {"b1", "b2"};
  LoadCaseSpec lc;
  lc.name = "impact";
  lc.grid = {0.0, 12.0, 101};
  s.load_cases = {lc};
  return s;
}

Evaluation evaluate(InternalSimulator& sim, double k, double c, bool gradients) {
  EvaluationRequest r;
  r.design = Eigen::Vector2d(k, c);
  if (gradients) r.derivatives = {{0, "y", {}}};
  return sim.evaluate({r}).front();
}

class ClosedForm : public ::testing::TestWithParam<std::pair<double, double>> {};

TEST_P(ClosedForm, HistoriesMatchTheClosedForm) {
  const auto [k, c] = GetParam();
  InternalSimulator sim(setup());
  const Evaluation e = evaluate(sim, k, c, false);
  ASSERT_TRUE(e.ok) << e.message;
  const Eigen::VectorXd& y = e.cases[0].histories.at("y");
  const Eigen::VectorXd& a = e.cases[0].histories.at("yddot");
  ASSERT_EQ(y.size(), 101);
  double err_y = 0, err_a = 0;
  for (int p = 0; p < 101; ++p) {
    const double t = 0.12 * p;
    err_y = std::max(err_y, std::abs(y(p) - closed_form_y(k, c, t)));
    err_a = std::max(err_a, std::abs(a(p) - closed_form_yddot(k, c, t)));
  }
  EXPECT_LT(err_y, 1e-6);
  EXPECT_LT(err_a, 1e-6);
}

INSTANTIATE_TEST_SUITE_P(ImpactAbsorber, ClosedForm,
                         ::testing::Values(std::make_pair(1.0, 0.3),          // underdamped start
                                           std::make_pair(0.36276, 0.48231),  // optimum
                                           std::make_pair(0.25, 1.0),         // critically damped
                                           std::make_pair(0.1, 1.0)));        // overdamped

TEST(InternalSimulator, StartDesignPeaksMatchProblemsMd) {
  InternalSimulator sim(setup());
  const Evaluation e = evaluate(sim, 1.0, 0.3, false);
  ASSERT_TRUE(e.ok) << e.message;
  EXPECT_NEAR(e.cases[0].scalars.at("max_abs_yddot"), 0.8427, 5e-5);
  EXPECT_NEAR(e.cases[0].scalars.at("max_abs_y"), 0.8062, 5e-5);
}

TEST(InternalSimulator, FiniteDifferenceGradientsMatchTheClosedForm) {
  for (const char* method : {"forward", "central"}) {
    InternalSimulator sim(setup(
        {{"rtol", 1e-10}, {"atol", 1e-12}, {"gradients", {{"method", method}, {"step", 1e-5}}}}));
    const double k = 1.0, c = 0.3;
    const Evaluation e = evaluate(sim, k, c, true);
    ASSERT_TRUE(e.ok) << e.message;
    ASSERT_TRUE(e.has_gradients);
    const Eigen::MatrixXd& g = e.cases[0].gradients.at("y");
    ASSERT_EQ(g.rows(), 101);
    ASSERT_EQ(g.cols(), 2);
    const int p = 13;  // t = 1.56 s, near the first maximum of y
    const double t = 0.12 * p, h = 1e-6;
    const double dk = (closed_form_y(k + h, c, t) - closed_form_y(k - h, c, t)) / (2 * h);
    const double dc = (closed_form_y(k, c + h, t) - closed_form_y(k, c - h, t)) / (2 * h);
    EXPECT_NEAR(g(p, 0), dk, 1e-3 * std::abs(dk)) << method;
    EXPECT_NEAR(g(p, 1), dc, 1e-3 * std::abs(dc)) << method;
    EXPECT_EQ(e.cost.runs, std::string(method) == "forward" ? 3 : 5) << method;
  }
}

TEST(InternalSimulator, BatchAndThreadCountDoNotChangeResults) {
  InternalSimulator one(setup({{"threads", 1}}));
  InternalSimulator two(setup({{"threads", 2}}));
  std::vector<EvaluationRequest> batch(3);
  batch[0].design = Eigen::Vector2d(1.0, 0.3);
  batch[1].design = Eigen::Vector2d(0.5, 0.5);
  batch[1].derivatives = {{0, "yddot", {}}};
  batch[2].design = Eigen::Vector2d(0.2, 0.9);
  const auto a = one.evaluate(batch);
  const auto b = two.evaluate(batch);
  ASSERT_EQ(a.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(a[i].ok && b[i].ok);
    EXPECT_EQ(a[i].cases[0].histories.at("yddot"), b[i].cases[0].histories.at("yddot"));
    const Evaluation single = two.evaluate({batch[i]}).front();
    EXPECT_EQ(single.cases[0].histories.at("y"), b[i].cases[0].histories.at("y"));
  }
  EXPECT_EQ(a[1].cases[0].gradients.at("yddot"), b[1].cases[0].gradients.at("yddot"));
  EXPECT_FALSE(a[0].has_gradients);
  EXPECT_EQ(a[0].cost.runs + a[1].cost.runs + a[2].cost.runs, 1 + 3 + 1);
}

TEST(InternalSimulator, FailedIntegrationIsAValueNotAThrow) {
  InternalSimulator sim(setup({{"max_steps", 1}}));
  const Evaluation e = evaluate(sim, 1.0, 0.3, false);
  EXPECT_FALSE(e.ok);
  EXPECT_THAT(e.message, HasSubstr("load case impact"));
  EXPECT_THAT(e.message, HasSubstr("CV_TOO_MUCH_WORK"));
}

std::string construction_error(const SimulatorSetup& s) {
  try {
    InternalSimulator sim(s);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(InternalSimulator, BadSectionsNameTheirPath) {
  EXPECT_THAT(
      construction_error(setup({{"model", "pendulum"}})),
      HasSubstr("simulator.model: unknown model \"pendulum\" (known models: impact-absorber)"));
  EXPECT_THAT(construction_error(setup({{"rtoll", 1e-6}})),
              HasSubstr("simulator.rtoll: unknown key"));
  EXPECT_THAT(construction_error(setup({{"rtol", "tight"}})),
              HasSubstr("simulator.rtol: expected a positive number"));
  EXPECT_THAT(construction_error(setup({{"gradients", {{"method", "adjoint"}}}})),
              HasSubstr("simulator.gradients.method"));
  SimulatorSetup unmapped = setup();
  unmapped.section.erase("parameters");
  EXPECT_THAT(construction_error(unmapped),
              HasSubstr("simulator.parameters.k: model parameter \"k\" is not mapped"));
  unmapped.section["constants"] = {{"k", 1.0}, {"c", 0.3}};
  EXPECT_EQ(construction_error(unmapped), "no error");
  SimulatorSetup bad_case = setup();
  bad_case.load_cases[0].parameters["speed"] = 3.0;
  EXPECT_THAT(construction_error(bad_case), HasSubstr("load_cases[0].parameters.speed"));
}

TEST(SimulatorRegistry, UnknownTypeNamesTheKnownOnes) {
  register_internal_simulator();
  SimulatorSetup s = setup();
  s.section["type"] = "ls-dyna";
  try {
    make_simulator(s);
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("simulator.type: unknown type \"ls-dyna\""));
    EXPECT_THAT(e.what(), HasSubstr("internal"));
  }
  EXPECT_NE(make_simulator(setup()), nullptr);
}

}  // namespace
}  // namespace sao::sim
