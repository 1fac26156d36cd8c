#include "sao/multipoint.hpp"

#include <gtest/gtest.h>

#include <random>

#include "sao/study_loader.hpp"

namespace sao {
namespace {

Study unit_box_study() {
  nlohmann::json d = {
      {"design_variables",
       {{{"name", "b1"}, {"lower", 0.0}, {"upper", 1.0}, {"initial", 0.5}, {"sizing", "range"}},
        {{"name", "b2"}, {"lower", 0.0}, {"upper", 2.0}, {"initial", 0.5}, {"sizing", "range"}}}},
      {"load_cases", {{{"name", "only"}}}},
      {"objective", {{"minimize", {{"variable", "b1"}}}}},
      {"simulator", {{"type", "none"}}}};
  return load_study(d);
}

TEST(Multipoint, SubregionFollowsDirectionAndExtrapolation) {
  const Study s = unit_box_study();
  Eigen::VectorXd lower(2), upper(2);
  // s = m (bu - bl) = (0.3, 0.6); d = +1 puts (1 - alpha/2) of it ahead, d = -1 behind.
  multipoint_subregion(s, Eigen::Vector2d(0.5, 1.0), Eigen::Vector2d(0.3, 0.3),
                       Eigen::Vector2i(1, -1), 0.2, lower, upper);
  EXPECT_NEAR(lower(0), 0.5 - 0.1 * 0.3, 1e-12);
  EXPECT_NEAR(upper(0), 0.5 + 0.9 * 0.3, 1e-12);
  EXPECT_NEAR(lower(1), 1.0 - 0.9 * 0.6, 1e-12);
  EXPECT_NEAR(upper(1), 1.0 + 0.1 * 0.6, 1e-12);
  EXPECT_NEAR(upper(0) - lower(0), 0.3, 1e-12);  // the size is s whatever alpha
}

TEST(Multipoint, PlanPointsMoveOneVariableToTheEdgeOnItsSide) {
  const Eigen::Vector2d b0(0.5, 1.0), lower(0.47, 0.46), upper(0.77, 1.06);
  const auto plan = plan_points(b0, lower, upper, Eigen::Vector2i(1, -1));
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_DOUBLE_EQ(plan[0](0), 0.77);
  EXPECT_DOUBLE_EQ(plan[0](1), 1.0);
  EXPECT_DOUBLE_EQ(plan[1](0), 0.5);
  EXPECT_DOUBLE_EQ(plan[1](1), 0.46);
}

TEST(Multipoint, PlanPointAtABoundUsesTheOtherEdge) {
  const Study s = unit_box_study();
  Eigen::VectorXd lower(2), upper(2);
  const Eigen::Vector2d b0(1.0, 0.0);  // b1 on its upper bound, b2 on its lower bound
  multipoint_subregion(s, b0, Eigen::Vector2d(0.3, 0.3), Eigen::Vector2i(1, -1), 0.2, lower, upper);
  EXPECT_DOUBLE_EQ(upper(0), 1.0);  // clipped: the d side collapsed onto b0
  EXPECT_DOUBLE_EQ(lower(1), 0.0);
  const auto plan = plan_points(b0, lower, upper, Eigen::Vector2i(1, -1));
  EXPECT_NEAR(plan[0](0), 1.0 - 0.1 * 0.3, 1e-12);
  EXPECT_NEAR(plan[1](1), 0.0 + 0.1 * 0.6, 1e-12);
  EXPECT_THROW(plan_points(b0, b0, b0, Eigen::Vector2i(1, 1)), std::invalid_argument);
}

TEST(Multipoint, DirectionPointsFromTheCentreToTheOptimum) {
  const Eigen::Vector2d lower(0.0, 0.0), upper(1.0, 1.0);
  EXPECT_EQ(next_direction(Eigen::Vector2d(0.9, 0.2), lower, upper, Eigen::Vector2i(-1, 1)),
            Eigen::Vector2i(1, -1));
  EXPECT_EQ(next_direction(Eigen::Vector2d(0.5, 0.5), lower, upper, Eigen::Vector2i(-1, 1)),
            Eigen::Vector2i(-1, 1));  // at the centre: unchanged
}

TEST(Multipoint, InterpolationRecoversALinearFunctionExactly) {
  const Eigen::Vector2d b0(0.4, 0.7);
  const auto plan =
      plan_points(b0, Eigen::Vector2d(0.3, 0.5), Eigen::Vector2d(0.6, 0.8), Eigen::Vector2i(1, -1));
  Eigen::MatrixXd points(3, 2), values(3, 2);
  auto f = [](const Eigen::VectorXd& b) {
    return Eigen::RowVector2d(2 + 3 * b(0) - b(1), -b(0) + 5 * b(1));
  };
  points.row(0) = b0.transpose();
  values.row(0) = f(b0);
  for (int k = 0; k < 2; ++k) {
    points.row(k + 1) = plan[k].transpose();
    values.row(k + 1) = f(plan[k]);
  }
  const LinearFit fit = fit_linear(points, values, Eigen::Vector3d::Ones(), b0);
  EXPECT_EQ(fit.dof, 0);
  EXPECT_NEAR(fit.intercept(0), 2 + 3 * 0.4 - 0.7, 1e-12);
  EXPECT_NEAR(fit.slopes(0, 0), 3.0, 1e-10);
  EXPECT_NEAR(fit.slopes(1, 0), -1.0, 1e-10);
  EXPECT_NEAR(fit.slopes(0, 1), -1.0, 1e-10);
  EXPECT_NEAR(fit.slopes(1, 1), 5.0, 1e-10);
}

TEST(Multipoint, ReuseWeightFallsOffOutsideTheSubregion) {
  const Eigen::Vector2d lower(0.0, 0.0), upper(1.0, 2.0);
  EXPECT_DOUBLE_EQ(reuse_weight(Eigen::Vector2d(0.5, 1.5), lower, upper, 0.5), 1.0);
  EXPECT_NEAR(reuse_weight(Eigen::Vector2d(1.25, 1.0), lower, upper, 0.5), 0.5,
              1e-12);  // 1/4 width out
  EXPECT_NEAR(reuse_weight(Eigen::Vector2d(0.5, -0.5), lower, upper, 0.5), 0.5,
              1e-12);  // 1/4 of 2 out
  EXPECT_DOUBLE_EQ(reuse_weight(Eigen::Vector2d(2.0, 1.0), lower, upper, 0.5), 0.0);
  EXPECT_DOUBLE_EQ(reuse_weight(Eigen::Vector2d(1.01, 1.0), lower, upper, 0.0), 0.0);
}

TEST(Multipoint, LeastSquaresAveragesNoiseAndEstimatesIt) {
  // r = 1 + 2 b1 - b2 + noise with a known standard deviation on 400 points.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> noise(0.0, 0.05);
  const int m = 400;
  Eigen::MatrixXd points(m, 2), values(m, 1);
  for (int j = 0; j < m; ++j) {
    points(j, 0) = u(rng);
    points(j, 1) = u(rng);
    values(j, 0) = 1 + 2 * points(j, 0) - points(j, 1) + noise(rng);
  }
  const Eigen::Vector2d b0(0.5, 0.5);
  const LinearFit fit = fit_linear(points, values, Eigen::VectorXd::Ones(m), b0);
  EXPECT_EQ(fit.dof, m - 3);
  EXPECT_NEAR(fit.intercept(0), 1.5, 0.02);
  EXPECT_NEAR(fit.slopes(0, 0), 2.0, 0.05);
  EXPECT_NEAR(fit.slopes(1, 0), -1.0, 0.05);
  EXPECT_NEAR(fit.residual_rms(0), 0.05, 0.005);
  // Zero weights remove points: the fit over the first 3 is an interpolation again.
  Eigen::VectorXd w = Eigen::VectorXd::Zero(m);
  w.head(3).setOnes();
  EXPECT_EQ(fit_linear(points, values, w, b0).dof, 0);
  w(2) = 0.0;
  EXPECT_THROW(fit_linear(points, values, w, b0), std::invalid_argument);
}

TEST(Multipoint, FitEvaluationCarriesHistoriesSlopesAndNoise) {
  const Eigen::Vector2d b0(1.0, 1.0);
  std::vector<Eigen::VectorXd> designs{b0, Eigen::Vector2d(1.5, 1.0), Eigen::Vector2d(1.0, 0.5),
                                       Eigen::Vector2d(1.5, 0.5)};
  std::vector<Evaluation> evals(4);
  for (int j = 0; j < 4; ++j) {
    evals[j].cases.resize(1);
    const double b1 = designs[j](0), b2 = designs[j](1);
    evals[j].cases[0].histories["h"] = Eigen::Vector3d(b1, b1 + b2, 2 * b2 + (j == 3 ? 0.1 : 0.0));
    evals[j].cases[0].scalars["s"] = 4 * b1;
  }
  std::vector<const Evaluation*> ptrs{&evals[0], &evals[1], &evals[2], &evals[3]};
  double noise = 0;
  const Evaluation e = fit_evaluation(designs, ptrs, Eigen::Vector4d::Ones(), b0, noise);
  ASSERT_TRUE(e.has_gradients);
  const Eigen::MatrixXd& g = e.cases[0].gradients.at("h");
  ASSERT_EQ(g.rows(), 3);
  EXPECT_NEAR(g(1, 0), 1.0, 1e-12);
  EXPECT_NEAR(g(1, 1), 1.0, 1e-12);
  EXPECT_NEAR(e.cases[0].scalars.at("s"), 4.0, 1e-12);
  EXPECT_NEAR(e.cases[0].gradients.at("s")(0, 0), 4.0, 1e-12);
  EXPECT_GT(noise, 0.0);  // the 0.1 outlier on the third point of h leaves a residual
}

}  // namespace
}  // namespace sao
