#include "simulators/model.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace sao::sim {
namespace {

using ::testing::ElementsAre;

TEST(ModelRegistry, FindsModelsByName) {
  EXPECT_THAT(model_names(), ElementsAre("impact-absorber"));
  EXPECT_EQ(find_model("impact-absorber"), &impact_absorber_model());
  EXPECT_EQ(find_model("pendulum"), nullptr);
}

TEST(ImpactAbsorberModel, DeclaresParametersResponsesAndLoadParameters) {
  const OdeModel& m = impact_absorber_model();
  EXPECT_THAT(m.parameters(), ElementsAre("k", "c"));
  EXPECT_EQ(m.state_size(), 2);
  std::vector<std::string> histories, scalars;
  for (const ResponseInfo& r : m.responses()) (r.history ? histories : scalars).push_back(r.name);
  EXPECT_THAT(histories, ElementsAre("y", "ydot", "yddot"));
  EXPECT_THAT(scalars, ElementsAre("max_abs_y", "max_abs_yddot"));

  LoadCaseSpec lc;
  EXPECT_EQ(m.load_parameters(),
            (std::map<std::string, double>{{"y0", 0.0}, {"v0", 1.0}, {"noise", 0.0}}));
  EXPECT_EQ(m.initial_state(Eigen::Vector2d(1, 0.3), lc), Eigen::Vector2d(0.0, 1.0));
  lc.parameters = {{"y0", 0.1}, {"v0", 2.0}};
  EXPECT_EQ(m.initial_state(Eigen::Vector2d(1, 0.3), lc), Eigen::Vector2d(0.1, 2.0));
  EXPECT_THROW(m.load_parameter(lc, "speed"), std::logic_error);
}

TEST(ImpactAbsorberModel, RightHandSideAndOutputsFollowTheEquationOfMotion) {
  const OdeModel& m = impact_absorber_model();
  const Eigen::Vector2d p(4.0, 0.5);  // k, c
  const double x[2] = {0.2, -1.0};
  double xdot[2];
  ASSERT_EQ(m.rhs(0.0, x, xdot, p, {}), 0);
  EXPECT_DOUBLE_EQ(xdot[0], -1.0);
  EXPECT_DOUBLE_EQ(xdot[1], -0.5 * -1.0 - 4.0 * 0.2);

  Eigen::MatrixXd states(3, 2);
  states << 0.0, 1.0, 0.2, -1.0, -0.3, 0.1;
  CaseResult out;
  m.outputs(states, p, {}, out);
  EXPECT_EQ(out.histories.at("y"), states.col(0));
  EXPECT_EQ(out.histories.at("ydot"), states.col(1));
  EXPECT_TRUE(out.histories.at("yddot").isApprox(Eigen::Vector3d(-0.5, -0.3, 1.15), 1e-15));
  EXPECT_DOUBLE_EQ(out.scalars.at("max_abs_y"), 0.3);
  EXPECT_DOUBLE_EQ(out.scalars.at("max_abs_yddot"), 1.15);

  // Seed 003, 3.7.1: noise (sin(200 pi k) + sin(200 pi c)) on y and y'' only.
  const Eigen::Vector2d q(0.0025, 0.3);  // sin(200 pi k) = 1, sin(200 pi c) = 0
  LoadCaseSpec noisy;
  noisy.parameters = {{"noise", 0.0125}};
  CaseResult clean, with_noise;
  m.outputs(states, q, {}, clean);
  m.outputs(states, q, noisy, with_noise);
  EXPECT_TRUE(with_noise.histories.at("y").isApprox(
      (clean.histories.at("y").array() + 0.0125).matrix(), 1e-12));
  EXPECT_TRUE(with_noise.histories.at("yddot").isApprox(
      (clean.histories.at("yddot").array() + 0.0125).matrix(), 1e-12));
  EXPECT_EQ(with_noise.histories.at("ydot"), clean.histories.at("ydot"));
  EXPECT_NEAR(with_noise.scalars.at("max_abs_y"), 0.3 - 0.0125, 1e-12);
}

}  // namespace
}  // namespace sao::sim
