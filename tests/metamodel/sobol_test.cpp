#include "sao/metamodel/sobol.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "sao/metamodel/kriging.hpp"
#include "tests/metamodel/metamodel_support.hpp"

namespace sao::metamodel {
namespace {

using testing::box;

// The exact indices of Ishigami (a = 7, b = 0.1, independent uniform inputs on [-pi, pi]):
//   V = a^2/8 + b pi^4/5 + b^2 pi^8/18 + 1/2 = 13.8445879...
//   V1 = (1 + b pi^4/5)^2 / 2, V2 = a^2/8, V3 = 0, V13 = b^2 pi^8 (1/18 - 1/50), the only
//   interaction; so S = (0.3139052, 0.4424111, 0) and ST = (V1 + V13, V2, V13) / V =
//   (0.5575889, 0.4424111, 0.2436837).
struct Exact {
  Eigen::Vector3d first, total;
};

Exact ishigami_exact() {
  const double a = 7.0, b = 0.1, pi = std::numbers::pi;
  const double v = a * a / 8 + b * std::pow(pi, 4) / 5 + b * b * std::pow(pi, 8) / 18 + 0.5;
  const double v1 = 0.5 * std::pow(1 + b * std::pow(pi, 4) / 5, 2);
  const double v2 = a * a / 8;
  const double v13 = b * b * std::pow(pi, 8) * (1.0 / 18 - 1.0 / 50);
  return {Eigen::Vector3d(v1, v2, 0) / v, Eigen::Vector3d(v1 + v13, v2, v13) / v};
}

Eigen::VectorXd ishigami_batch(const Eigen::MatrixXd& x) {
  return testing::values_of(x, testing::ishigami);
}

TEST(MetamodelSobol, IshigamiExactIndicesLieInTheirIntervals) {
  const Exact exact = ishigami_exact();
  EXPECT_NEAR(exact.first(0), 0.3139, 1e-4);
  EXPECT_NEAR(exact.total(2), 0.2437, 1e-4);
  SobolSettings s;
  s.samples = 8192;
  const SobolIndices r = sobol_indices(ishigami_batch, testing::ishigami_box(), s);
  EXPECT_EQ(r.evaluations, 8192 * 5);
  EXPECT_NEAR(r.variance, 13.8446, 0.1);
  EXPECT_NEAR(r.mean, 3.5, 0.02);  // a / 2
  for (int i = 0; i < 3; ++i) {
    EXPECT_LE(r.first_low(i), exact.first(i)) << i;
    EXPECT_GE(r.first_high(i), exact.first(i)) << i;
    EXPECT_LE(r.total_low(i), exact.total(i)) << i;
    EXPECT_GE(r.total_high(i), exact.total(i)) << i;
    EXPECT_LE(r.first_low(i), r.first(i));
    EXPECT_GE(r.first_high(i), r.first(i));
    // Honest intervals: not absurdly wide.
    EXPECT_LT(r.first_high(i) - r.first_low(i), 0.1) << i;
    EXPECT_LT(r.total_high(i) - r.total_low(i), 0.1) << i;
  }
  // Deterministic for a seed.
  const SobolIndices again = sobol_indices(ishigami_batch, testing::ishigami_box(), s);
  EXPECT_EQ(again.first, r.first);
  EXPECT_EQ(again.total_high, r.total_high);
}

TEST(MetamodelSobol, LinearFunctionHasAdditiveIndices) {
  // f = 1 x0 + 2 x1 + 0 x2 on [0, 1]^2 x [0, 5]: S_i = ST_i = c_i^2 / (c_0^2 + c_1^2).
  const SobolIndices r = sobol_indices(
      [](const Eigen::MatrixXd& x) -> Eigen::VectorXd { return x.col(0) + 2.0 * x.col(1); },
      box({0, 0, 0}, {1, 1, 5}), {4096, 50, 0.95, 3});
  EXPECT_NEAR(r.first(0), 0.2, 0.01);
  EXPECT_NEAR(r.first(1), 0.8, 0.01);
  EXPECT_NEAR(r.total(0), 0.2, 0.01);
  EXPECT_NEAR(r.total(1), 0.8, 0.01);
  EXPECT_EQ(r.total(2), 0.0);
  EXPECT_LE(r.first_low(1), 0.8);
  EXPECT_GE(r.first_high(1), 0.8);
}

TEST(MetamodelSobol, IshigamiFromAKrigingModel) {
  const Bounds b = testing::ishigami_box();
  const Eigen::MatrixXd x = testing::latin_hypercube(150, b, 17);
  KrigingSettings k;
  k.correlation = Correlation::gaussian;  // R^2_pred 0.95 here, against 0.92 for Matern 5/2
  k.starts = 2;
  const KrigingModel model(x, testing::values_of(x, testing::ishigami), b, k);
  EXPECT_GT(model.accuracy().r2_pred, 0.9);
  SobolSettings s;
  s.samples = 2048;
  s.bootstrap = 100;
  const SobolIndices r = sobol_indices(model, b, s);
  const Exact exact = ishigami_exact();
  // Tolerance 0.05 per index: the model's error (LOO R^2_pred 0.95) plus the sample's.
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(r.first(i), exact.first(i), 0.05) << i;
    EXPECT_NEAR(r.total(i), exact.total(i), 0.05) << i;
  }
}

TEST(MetamodelSobol, BadInputIsRejected) {
  const auto constant = [](const Eigen::MatrixXd& x) -> Eigen::VectorXd {
    return Eigen::VectorXd::Ones(x.rows());
  };
  EXPECT_THROW(sobol_indices(constant, box({0}, {1})), std::invalid_argument);
  const auto short_f = [](const Eigen::MatrixXd&) -> Eigen::VectorXd {
    return Eigen::VectorXd::Ones(3);
  };
  EXPECT_THROW(sobol_indices(short_f, box({0}, {1})), std::invalid_argument);
  EXPECT_THROW(sobol_indices(ishigami_batch, box({0, 0, 0}, {1, 0, 1})), std::invalid_argument);
  SobolSettings few;
  few.samples = 10;
  EXPECT_THROW(sobol_indices(ishigami_batch, testing::ishigami_box(), few), std::invalid_argument);
}

}  // namespace
}  // namespace sao::metamodel
