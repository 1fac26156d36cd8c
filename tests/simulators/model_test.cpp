#include "simulators/models/model.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace sao::sim {
namespace {

using ::testing::ElementsAre;

TEST(ModelRegistry, FindsModelsByName) {
  EXPECT_THAT(model_names(),
              ElementsAre("impact-absorber", "oscillator", "quarter-car", "slider-crank-path"));
  EXPECT_EQ(find_model("impact-absorber"), &impact_absorber_model());
  EXPECT_EQ(find_model("slider-crank-path"), &slider_crank_path_model());
  EXPECT_EQ(find_model("pendulum"), nullptr);
}

TEST(ImpactAbsorberModel, DeclaresParametersResponsesAndLoadParameters) {
  const OdeModel& m = impact_absorber_model();
  EXPECT_THAT(m.parameters(), ElementsAre("k", "c"));
  EXPECT_EQ(m.state_size(), 2);
  std::vector<std::string> histories, scalars;
  for (const ResponseInfo& r : m.responses()) (r.history ? histories : scalars).push_back(r.name);
  EXPECT_THAT(histories, ElementsAre("y", "ydot", "yddot"));
  EXPECT_THAT(scalars, ElementsAre("comfort", "max_abs_y", "max_abs_yddot"));

  LoadCaseSpec lc;
  EXPECT_EQ(m.load_parameters(),
            (std::map<std::string, double>{{"y0", 0.0}, {"v0", 1.0}, {"noise", 0.0}}));
  const Eigen::Vector2d p(1, 0.3);
  Eigen::Vector2d x0;
  m.initial_state(p.data(), x0.data(), lc);
  EXPECT_EQ(x0, Eigen::Vector2d(0.0, 1.0));
  lc.parameters = {{"y0", 0.1}, {"v0", 2.0}};
  m.initial_state(p.data(), x0.data(), lc);
  EXPECT_EQ(x0, Eigen::Vector2d(0.1, 2.0));
  EXPECT_THROW(m.load_parameter(lc, "speed"), std::logic_error);
}

TEST(ImpactAbsorberModel, RightHandSideAndOutputsFollowTheEquationOfMotion) {
  const OdeModel& m = impact_absorber_model();
  const Eigen::Vector2d p(4.0, 0.5);  // k, c
  const double x[2] = {0.2, -1.0};
  double xdot[2];
  ASSERT_EQ(m.rhs(0.0, x, xdot, p.data(), {}), 0);
  EXPECT_DOUBLE_EQ(xdot[0], -1.0);
  EXPECT_DOUBLE_EQ(xdot[1], -0.5 * -1.0 - 4.0 * 0.2);

  Eigen::MatrixXd states(3, 2);
  states << 0.0, 1.0, 0.2, -1.0, -0.3, 0.1;
  LoadCaseSpec three;  // a grid of 3 points for the 3 states
  three.grid = TimeGrid(0.0, 2.0, 3);
  const Eigen::VectorXd comfort = Eigen::VectorXd::Constant(1, 0.5);
  CaseResult out;
  m.fill_outputs(states, comfort, p, three, out);
  EXPECT_EQ(out.scalars.at("comfort"), 0.5);
  EXPECT_EQ(out.histories.at("y"), states.col(0));
  EXPECT_EQ(out.histories.at("ydot"), states.col(1));
  EXPECT_TRUE(out.histories.at("yddot").isApprox(Eigen::Vector3d(-0.5, -0.3, 1.15), 1e-15));
  EXPECT_DOUBLE_EQ(out.scalars.at("max_abs_y"), 0.3);
  EXPECT_DOUBLE_EQ(out.scalars.at("max_abs_yddot"), 1.15);

  // Seed 003, 3.7.1: noise (sin(200 pi k) + sin(200 pi c)) on y and y'' only.
  const Eigen::Vector2d q(0.0025, 0.3);  // sin(200 pi k) = 1, sin(200 pi c) = 0
  LoadCaseSpec noisy = three;
  noisy.parameters = {{"noise", 0.0125}};
  CaseResult clean, with_noise;
  m.fill_outputs(states, comfort, q, three, clean);
  m.fill_outputs(states, comfort, q, noisy, with_noise);
  EXPECT_TRUE(with_noise.histories.at("y").isApprox(
      (clean.histories.at("y").array() + 0.0125).matrix(), 1e-12));
  EXPECT_TRUE(with_noise.histories.at("yddot").isApprox(
      (clean.histories.at("yddot").array() + 0.0125).matrix(), 1e-12));
  EXPECT_EQ(with_noise.histories.at("ydot"), clean.histories.at("ydot"));
  EXPECT_NEAR(with_noise.scalars.at("max_abs_y"), 0.3 - 0.0125, 1e-12);
}

}  // namespace
// Slider-crank path synthesis (PROBLEMS.md): at the start b = (6, 25, -4, 11, 3, 4, 2, 2)
// the squared path error over the 8 precision points is F = 3486.1 (verified).
LoadCaseSpec precision_points() {
  LoadCaseSpec lc;
  lc.name = "positions";
  lc.grid.values = {0, 22, 44, 66, 88, 129, 221, 314};
  lc.grid.points = 8;
  lc.grid.start = 0;
  lc.grid.end = 314;
  return lc;
}

TEST(SliderCrankPath, StartDesignHasThePathErrorOfTheSeed) {
  const Model& m = slider_crank_path_model();
  Eigen::VectorXd p(8);
  p << 6, 25, -4, 11, 3, 4, 2, 2;
  CaseResult out;
  ASSERT_EQ(m.analyse(p, precision_points(), {}, out), "");
  const double xg[] = {26, 23, 20, 17, 14, 10, 20, 30}, yg[] = {16, 16, 16, 16, 16, 13, 7, 13};
  double f = 0;
  for (int k = 0; k < 8; ++k) {
    f += std::pow(out.histories["xP"](k) - xg[k], 2) + std::pow(out.histories["yP"](k) - yg[k], 2);
    // The coupler point is the crank pin plus the offset d at angle alpha + theta2.
    EXPECT_NEAR(out.histories["xP"](k),
                out.histories["x2"](k) + 11 * std::cos(2 + out.histories["theta2"](k)), 1e-12);
  }
  EXPECT_NEAR(f, 3486.1, 0.05);
  // Crank pin at dgamma = 0: (6 cos 2 + 3, 6 sin 2 + 4).
  EXPECT_NEAR(out.histories["x2"](0), 6 * std::cos(2.0) + 3, 1e-12);
  EXPECT_NEAR(out.histories["theta2"](0), std::asin((-4 - (6 * std::sin(2.0) + 4)) / 25), 1e-12);
}

TEST(SliderCrankPath, ACouplerTooShortToReachTheSliderLineFailsWithTheAngle) {
  Eigen::VectorXd p(8);
  p << 6, 2, -4, 11, 3, 4, 2, 2;  // coupler of length 2 cannot span 8+ to the slider line
  CaseResult out;
  const std::string why = slider_crank_path_model().analyse(p, precision_points(), {}, out);
  EXPECT_THAT(why, ::testing::HasSubstr("does not assemble at crank rotation 0 deg"));
}

}  // namespace sao::sim
