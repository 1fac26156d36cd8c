#include "sao/optimizer/multipoint.hpp"

#include <gtest/gtest.h>

#include <random>

#include "sao/study/study_loader.hpp"

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

// r = 1 + 2 b1 - b2 + normal noise of standard deviation 0.05 at m uniform points of the
// unit square (seeded).
void noisy_plane(int m, unsigned seed, Eigen::MatrixXd& points, Eigen::MatrixXd& values) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> noise(0.0, 0.05);
  points.resize(m, 2);
  values.resize(m, 1);
  for (int j = 0; j < m; ++j) {
    points(j, 0) = u(rng);
    points(j, 1) = u(rng);
    values(j, 0) = 1 + 2 * points(j, 0) - points(j, 1) + noise(rng);
  }
}

TEST(Multipoint, LeastSquaresAveragesNoiseAndEstimatesIt) {
  // r = 1 + 2 b1 - b2 + noise with a known standard deviation on 400 points.
  const int m = 400;
  Eigen::MatrixXd points, values;
  noisy_plane(m, 7, points, values);
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

TEST(Multipoint, FitThroughTheFirstPointKeepsItsValueAndFitsTheSlopes) {
  // r = 1 + 2 b1 - b2 + noise on 200 points; the first point's value is taken as it is.
  const int m = 200;
  Eigen::MatrixXd points, values;
  noisy_plane(m, 11, points, values);
  const Eigen::Vector2d b0 = points.row(0).transpose();
  Eigen::VectorXd w = Eigen::VectorXd::Ones(m);
  w(0) = 0.0;  // its weight does not matter: the fit passes through it
  const LinearFit fit = fit_linear(points, values, w, b0, /*through_first=*/true);
  EXPECT_DOUBLE_EQ(fit.intercept(0), values(0, 0));
  EXPECT_EQ(fit.dof, m - 3);
  EXPECT_NEAR(fit.slopes(0, 0), 2.0, 0.05);
  EXPECT_NEAR(fit.slopes(1, 0), -1.0, 0.05);
  // Elsewhere than at the first point, the intercept follows the slopes.
  const Eigen::Vector2d c(0.5, 0.5);
  const LinearFit at_c = fit_linear(points, values, w, c, true);
  EXPECT_NEAR(at_c.intercept(0), values(0, 0) + fit.slopes.col(0).dot(c - b0), 1e-12);
  // Re-used points of zero weight leave the interpolation through the first three.
  Eigen::VectorXd three = Eigen::VectorXd::Zero(m);
  three.segment(1, 2).setOnes();
  EXPECT_EQ(fit_linear(points, values, three, b0, true).dof, 0);
  three(2) = 0.0;
  EXPECT_THROW(fit_linear(points, values, three, b0, true), std::invalid_argument);
}

TEST(Multipoint, PlanSlopesAreSignificantWhenEveryDifferenceExceedsTheNoise) {
  // Threshold: significance * sqrt(2) * sigma = 2 * 1.414 * 0.01 = 0.0283.
  EXPECT_TRUE(plan_slopes_significant(Eigen::Vector2d(0.1, -0.03), 0.01, 2.0));
  EXPECT_FALSE(plan_slopes_significant(Eigen::Vector2d(0.1, -0.02), 0.01, 2.0));  // one is not
  EXPECT_FALSE(plan_slopes_significant(Eigen::Vector2d(0.1, 0.1), 0.0, 2.0));     // noise unknown
  EXPECT_TRUE(plan_slopes_significant(Eigen::Vector2d(0.1, 0.05), 0.01, 1.0));
}

// Synthetic designs for the re-use rule: b0, the two plan points, then re-used points.
struct ReuseData {
  std::vector<Eigen::VectorXd> designs;
  std::vector<Evaluation> evals;
  std::vector<const Evaluation*> ptrs() const {
    std::vector<const Evaluation*> p;
    for (const auto& e : evals) p.push_back(&e);
    return p;
  }
};

// History "h": value 0 = 10 b1 + 10 b2 (plan differences 1, far above the noise), value 1 =
// 0.1 b1 + 0.1 b2 (differences 0.01, inside it); `offsets` is the noise of each design.
ReuseData reuse_data(const std::vector<Eigen::Vector2d>& designs,
                     const std::vector<double>& offsets) {
  ReuseData d;
  for (size_t j = 0; j < designs.size(); ++j) {
    d.designs.push_back(designs[j]);
    Evaluation e;
    e.cases.resize(1);
    const double b1 = designs[j](0), b2 = designs[j](1);
    e.cases[0].histories["h"] =
        Eigen::Vector2d(10 * b1 + 10 * b2 + offsets[j], 0.1 * b1 + 0.1 * b2 + offsets[j]);
    d.evals.push_back(e);
  }
  return d;
}

TEST(Multipoint, ReuseRuleKeepsThePlansSlopesWhereTheyStandOutOfTheNoise) {
  const Eigen::Vector2d b0(1.0, 1.0);
  // b0 and the plan points carry noise +-0.004; the re-used points: an outlier of 0.5 first.
  const ReuseData d = reuse_data({b0,
                                  {1.1, 1.0},
                                  {1.0, 1.1},
                                  {1.05, 1.05},
                                  {0.95, 1.0},
                                  {1.0, 0.95},
                                  {1.05, 0.95},
                                  {0.95, 1.05}},
                                 {0.004, -0.004, 0.004, 0.5, 0.0, 0.0, 0.0, 0.0});
  ReuseRule rule;
  rule.plan_points = 2;
  rule.noise = 0.005 / 20.0;  // sigma 0.005 on a magnitude of 20 (max |h|)
  double noise = 0;
  const Evaluation e =
      fit_evaluation(d.designs, d.ptrs(), Eigen::VectorXd::Ones(8), b0, noise, rule);
  const Eigen::VectorXd& fitted = e.cases[0].histories.at("h");
  const Eigen::MatrixXd& g = e.cases[0].gradients.at("h");
  // Both values pass through r(b0), whatever the re-used points.
  EXPECT_DOUBLE_EQ(fitted(0), 20.004);
  EXPECT_DOUBLE_EQ(fitted(1), 0.204);
  // Value 0: differences 0.992 and 1.0 >> 2 sqrt(2) sigma: the interpolation, untouched by
  // the outlier: (r(b^k) - r(b0)) / 0.1.
  EXPECT_NEAR(g(0, 0), 9.92, 1e-9);
  EXPECT_NEAR(g(0, 1), 10.0, 1e-9);
  // Value 1: differences 0.002 and 0.01, inside the noise: the least-squares slopes over all 8,
  // pulled by the outlier (the plain interpolation would give 0.02 and 0.1).
  EXPECT_GT(std::abs(g(1, 0) - 0.02), 0.1);
  // Without the rule (plan_points = 0) the plain fit moves value 0 off r(b0) too.
  double noise_plain = 0;
  const Evaluation plain =
      fit_evaluation(d.designs, d.ptrs(), Eigen::VectorXd::Ones(8), b0, noise_plain);
  EXPECT_GT(std::abs(plain.cases[0].histories.at("h")(0) - 20.004), 0.01);
  // The noise estimate comes from the plain fit either way.
  EXPECT_DOUBLE_EQ(noise, noise_plain);
  // Re-used points of weight 0 leave the interpolation for both values.
  Eigen::VectorXd w = Eigen::VectorXd::Zero(8);
  w.head(3).setOnes();
  const Evaluation interp = fit_evaluation(d.designs, d.ptrs(), w, b0, noise, rule);
  EXPECT_NEAR(interp.cases[0].gradients.at("h")(1, 0), (0.206 - 0.204) / 0.1, 1e-9);
  EXPECT_NEAR(interp.cases[0].gradients.at("h")(1, 1), (0.214 - 0.204) / 0.1, 1e-9);
}

TEST(Multipoint, ReuseRuleAveragesNoiseAndStillEstimatesIt) {
  // r = 1 + 0.02 b1 - 0.01 b2 + noise of sigma 0.05: plan differences inside the noise, so the
  // rule fits the slopes over every point; the noise estimate is the plain fit's residual.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> noise(0.0, 0.05);
  const Eigen::Vector2d b0(0.5, 0.5);
  std::vector<Eigen::Vector2d> designs{b0, {0.55, 0.5}, {0.5, 0.45}};
  for (int j = 0; j < 397; ++j) designs.emplace_back(u(rng), u(rng));
  std::vector<double> offsets;
  for (size_t j = 0; j < designs.size(); ++j) offsets.push_back(noise(rng));
  ReuseData d;
  for (size_t j = 0; j < designs.size(); ++j) {
    d.designs.push_back(designs[j]);
    Evaluation e;
    e.cases.resize(1);
    e.cases[0].scalars["s"] = 1 + 0.02 * designs[j](0) - 0.01 * designs[j](1) + offsets[j];
    d.evals.push_back(e);
  }
  ReuseRule rule;
  rule.plan_points = 2;
  rule.noise = 0.05;  // about sigma / magnitude
  double noise_percent = 0;
  const Evaluation e =
      fit_evaluation(d.designs, d.ptrs(), Eigen::VectorXd::Ones(400), b0, noise_percent, rule);
  const double magnitude = [&] {
    double mx = 0;
    for (const auto& ev : d.evals) mx = std::max(mx, std::abs(ev.cases[0].scalars.at("s")));
    return mx;
  }();
  EXPECT_NEAR(noise_percent, 0.05 / magnitude * 100.0, 0.005 / magnitude * 100.0);
  EXPECT_DOUBLE_EQ(e.cases[0].scalars.at("s"), d.evals[0].cases[0].scalars.at("s"));
  EXPECT_NEAR(e.cases[0].gradients.at("s")(0, 0), 0.02, 0.02);
  EXPECT_NEAR(e.cases[0].gradients.at("s")(0, 1), -0.01, 0.02);
}

}  // namespace
}  // namespace sao
