#include "sao/metamodel/kriging.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "tests/metamodel/metamodel_support.hpp"

namespace sao::metamodel {
namespace {

using testing::box;
using ::testing::HasSubstr;
using testing::values_of;

double wave(const Eigen::VectorXd& x) {
  return std::sin(1.2 * x(0)) + 0.5 * std::cos(3.0 * x(1)) + 0.05 * x(0) * x(1);
}

const Bounds kBox = box({0, -1}, {5, 1});

TEST(MetamodelKriging, InterpolatesWithZeroErrorAtThePointsOnly) {
  const Eigen::MatrixXd x = testing::latin_hypercube(25, kBox, 1);
  const Eigen::VectorXd y = values_of(x, wave);
  // Midpoints of consecutive points: between the points (some of them near a third one).
  Eigen::MatrixXd mid(x.rows() - 1, 2);
  for (Eigen::Index i = 0; i + 1 < x.rows(); ++i) mid.row(i) = 0.5 * (x.row(i) + x.row(i + 1));
  for (Correlation c : {Correlation::matern52, Correlation::gaussian}) {
    KrigingSettings s;
    s.correlation = c;
    const KrigingModel model(x, y, kBox, s);
    const KrigingPrediction at = model.predict_with_error(x);
    const double sigma = std::sqrt(model.process_variance());
    // Matern 5/2 interpolates to rounding; the Gaussian's jitter floor (1e-10 on the diagonal of
    // R) limits it to about 1e-6 (kriging.hpp).
    const double tolerance = c == Correlation::matern52 ? 1e-8 : 1e-5;
    EXPECT_LT((at.mean - y).cwiseAbs().maxCoeff(), tolerance * y.cwiseAbs().maxCoeff())
        << static_cast<int>(c);
    EXPECT_LT(at.std_error.maxCoeff(), 1e-4 * sigma) << static_cast<int>(c);
    const KrigingPrediction between = model.predict_with_error(mid);
    EXPECT_GT(between.std_error.minCoeff(), 10.0 * at.std_error.maxCoeff()) << static_cast<int>(c);
    EXPECT_LT(between.std_error.maxCoeff(), sigma) << static_cast<int>(c);
    // Far from every point the prediction falls back on the trend: sigma, and a little more for
    // the trend's own uncertainty.
    const double far = model.predict_with_error(Eigen::RowVector2d(40.0, 9.0)).std_error(0);
    EXPECT_GT(far, sigma) << static_cast<int>(c);
    EXPECT_LT(far, 1.2 * sigma) << static_cast<int>(c);
    EXPECT_EQ(model.jitter(), c == Correlation::matern52 ? 0.0 : 1e-10);
    EXPECT_GT(model.accuracy().r2_pred, 0.8) << static_cast<int>(c);
  }
}

// The fit's likelihood against a brute-force scan of the concentrated likelihood on a grid of
// length scales (log-spaced over the search box [0.01, 10]).
TEST(MetamodelKriging, LikelihoodOptimumMatchesAOneDimensionalScan) {
  const Bounds b = box({0}, {2});
  const Eigen::MatrixXd x = testing::latin_hypercube(10, b, 3);
  const Eigen::VectorXd y =
      values_of(x, [](const Eigen::VectorXd& v) { return std::sin(3.0 * v(0)) + 0.3 * v(0); });
  for (Correlation c : {Correlation::gaussian, Correlation::matern52}) {
    KrigingSettings s;
    s.correlation = c;
    const KrigingModel model(x, y, b, s);
    double best = -INFINITY, best_length = 0.0;
    const int steps = 300;
    for (int k = 0; k < steps; ++k) {
      const double l = 0.01 * std::pow(1000.0, k / (steps - 1.0));
      const double v =
          concentrated_log_likelihood(x, y, b, s, Eigen::VectorXd::Constant(1, l), 0.0);
      if (v > best) {
        best = v;
        best_length = l;
      }
    }
    EXPECT_GE(model.log_likelihood(), best - 1e-7) << static_cast<int>(c);
    EXPECT_NEAR(std::log(model.length_scales()(0)), std::log(best_length), 0.05)
        << static_cast<int>(c);
  }
}

TEST(MetamodelKriging, LikelihoodOptimumMatchesATwoDimensionalScan) {
  const Eigen::MatrixXd x = testing::latin_hypercube(20, kBox, 7);
  const Eigen::VectorXd y = values_of(x, wave);
  for (Correlation c : {Correlation::gaussian, Correlation::matern52}) {
    KrigingSettings s;
    s.correlation = c;
    const KrigingModel model(x, y, kBox, s);
    double best = -INFINITY;
    Eigen::Vector2d best_lengths;
    const int steps = 50;
    for (int i = 0; i < steps; ++i) {
      for (int j = 0; j < steps; ++j) {
        const Eigen::Vector2d l(0.01 * std::pow(1000.0, i / (steps - 1.0)),
                                0.01 * std::pow(1000.0, j / (steps - 1.0)));
        const double v = concentrated_log_likelihood(x, y, kBox, s, l, 0.0);
        if (v > best) {
          best = v;
          best_lengths = l;
        }
      }
    }
    EXPECT_GE(model.log_likelihood(), best - 1e-7) << static_cast<int>(c);
    const double step = std::log(1000.0) / (steps - 1.0);
    for (int k = 0; k < 2; ++k)
      EXPECT_NEAR(std::log(model.length_scales()(k)), std::log(best_lengths(k)), 1.5 * step)
          << static_cast<int>(c) << " length " << k;
  }
}

TEST(MetamodelKriging, ClosedFormLeaveOneOutEqualsRefitsWithFixedHyperparameters) {
  const Eigen::MatrixXd x = testing::latin_hypercube(16, kBox, 5);
  Eigen::VectorXd y = values_of(x, wave);
  for (KrigingTrend trend : {KrigingTrend::constant, KrigingTrend::linear}) {
    KrigingSettings s;
    s.trend = trend;
    s.estimate_nugget = trend == KrigingTrend::linear;  // and a nugget, for the second
    const KrigingModel model(x, y, kBox, s);
    KrigingSettings fixed = s;
    fixed.length_scales = model.length_scales();
    fixed.estimate_nugget = false;
    fixed.nugget = model.nugget();
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      Eigen::MatrixXd xi;
      Eigen::VectorXd yi;
      testing::drop_row(x, y, i, xi, yi);
      const KrigingModel refit(xi, yi, kBox, fixed);
      ASSERT_EQ(refit.jitter(), model.jitter());
      const double e = y(i) - refit.value(x.row(i).transpose());
      EXPECT_NEAR(model.accuracy().loo_residuals(i), e, 1e-8 * (1.0 + std::abs(e)))
          << static_cast<int>(trend) << " point " << i;
    }
  }
}

TEST(MetamodelKriging, EstimatedNuggetSmoothsNoisyData) {
  const Eigen::MatrixXd x = testing::latin_hypercube(40, kBox, 11);
  Eigen::VectorXd y = values_of(x, wave);
  std::mt19937 rng(2);
  const double noise = 0.1;
  for (Eigen::Index i = 0; i < y.size(); ++i)
    y(i) += noise * ((rng() + 0.5) / 4294967296.0 - 0.5) * std::sqrt(12.0);  // uniform, sd 0.1
  KrigingSettings s;
  s.estimate_nugget = true;
  const KrigingModel model(x, y, kBox, s);
  const double noise_variance = model.nugget() * model.process_variance();
  EXPECT_GT(noise_variance, 0.25 * noise * noise);
  EXPECT_LT(noise_variance, 4.0 * noise * noise);
  const Eigen::VectorXd truth = values_of(x, wave);
  // The smoothed values are nearer the truth than the data are.
  EXPECT_LT((model.predict(x) - truth).norm(), (y - truth).norm());
}

TEST(MetamodelKriging, ConstantValuesAndBadInput) {
  const Eigen::MatrixXd x = testing::latin_hypercube(6, kBox, 2);
  const KrigingModel flat(x, Eigen::VectorXd::Constant(6, 3.5), kBox);
  EXPECT_NEAR(flat.value(Eigen::Vector2d(1.0, 0.2)), 3.5, 1e-12);
  EXPECT_EQ(flat.predict_with_error(x).std_error.maxCoeff(), 0.0);
  EXPECT_THAT(flat.accuracy().note, HasSubstr("trend fits the values exactly"));
  const auto message = [&](const Eigen::MatrixXd& px, const Eigen::VectorXd& py,
                           const KrigingSettings& s) {
    try {
      KrigingModel(px, py, kBox, s);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const Eigen::VectorXd y = values_of(x, wave);
  KrigingSettings linear;
  linear.trend = KrigingTrend::linear;
  EXPECT_THAT(message(x.topRows(3), y.head(3), linear), HasSubstr("3 points, but at least 4"));
  Eigen::MatrixXd dup = x;
  dup.row(4) = dup.row(0);
  EXPECT_THAT(message(dup, y, {}), HasSubstr("points 0 and 4"));
  KrigingSettings wrong;
  wrong.length_scales = Eigen::Vector3d(1, 1, 1);
  EXPECT_THAT(message(x, y, wrong), HasSubstr("3 length scales given for 2 variables"));
}

}  // namespace
}  // namespace sao::metamodel
