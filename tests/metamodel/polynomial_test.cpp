#include "sao/metamodel/polynomial.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/metamodel/metamodel_support.hpp"

namespace sao::metamodel {
namespace {

using testing::box;
using ::testing::HasSubstr;
using testing::random_points;

// 1 + 2 x0 - 3 x1 + 0.5 x2 + 1.5 x0 x1 - 0.7 x0 x2 + 0.2 x1 x2 + 3 x0^2 - x1^2 + 0.25 x2^2,
// its coefficients in the basis's order (constant, linear, interactions, squares).
const double kCoefficients[] = {1, 2, -3, 0.5, 1.5, -0.7, 0.2, 3, -1, 0.25};

double quadratic(const Eigen::Vector3d& x) {
  const double* c = kCoefficients;
  return c[0] + c[1] * x(0) + c[2] * x(1) + c[3] * x(2) + c[4] * x(0) * x(1) + c[5] * x(0) * x(2) +
         c[6] * x(1) * x(2) + c[7] * x(0) * x(0) + c[8] * x(1) * x(1) + c[9] * x(2) * x(2);
}

TEST(MetamodelPolynomial, BasisTermsAndCounts) {
  const Bounds b = box({0, 0, 0}, {1, 1, 1});
  const PolynomialBasis q(b, PolynomialOrder::quadratic);
  ASSERT_EQ(q.size(), 10);
  EXPECT_EQ(PolynomialBasis::term_count(3, PolynomialOrder::linear), 4);
  EXPECT_EQ(PolynomialBasis::term_count(3, PolynomialOrder::interactions), 7);
  EXPECT_EQ(q.term_name(0), "1");
  EXPECT_EQ(q.term_name(2), "x1");
  EXPECT_EQ(q.term_name(5), "x0*x2");
  EXPECT_EQ(q.term_name(9), "x2^2");
  // The model matrix is in the variables scaled to [-1, 1].
  const Eigen::MatrixXd x = q.model_matrix(Eigen::RowVector3d(1.0, 0.5, 0.0));
  EXPECT_DOUBLE_EQ(x(0, 1), 1.0);
  EXPECT_DOUBLE_EQ(x(0, 2), 0.0);
  EXPECT_DOUBLE_EQ(x(0, 3), -1.0);
  EXPECT_DOUBLE_EQ(x(0, 9), 1.0);
}

TEST(MetamodelPolynomial, QuadraticFitsAQuadraticExactly) {
  const Bounds b = box({-1, -1, -1}, {1, 1, 1});  // scaled variables = own units
  const Eigen::MatrixXd x = random_points(20, b, 7);
  Eigen::VectorXd y(x.rows());
  for (int i = 0; i < x.rows(); ++i) y(i) = quadratic(x.row(i).transpose());
  const PolynomialModel model(x, y, b, PolynomialOrder::quadratic);
  for (int k = 0; k < 10; ++k) EXPECT_NEAR(model.coefficients()(k), kCoefficients[k], 1e-10);
  const Eigen::MatrixXd t = random_points(50, b, 8);
  const Eigen::VectorXd p = model.predict(t);
  for (int i = 0; i < t.rows(); ++i) EXPECT_NEAR(p(i), quadratic(t.row(i).transpose()), 1e-10);
  EXPECT_LT(model.accuracy().press, 1e-18);
  EXPECT_NEAR(model.accuracy().r2, 1.0, 1e-14);
  EXPECT_NEAR(model.accuracy().r2_adjusted, 1.0, 1e-14);
  EXPECT_NEAR(model.accuracy().r2_pred, 1.0, 1e-14);
  EXPECT_TRUE(model.accuracy().note.empty());
}

TEST(MetamodelPolynomial, UnitsDoNotMatter) {
  // The same quadratic of variables x_k = centre_k + half_k s_k with very different units.
  const Eigen::Vector3d centre(5.0, 150.0, 0.0), half(5.0, 50.0, 5e-3);
  const Bounds b{centre - half, centre + half};
  auto f = [&](const Eigen::VectorXd& x) { return quadratic((x - centre).cwiseQuotient(half)); };
  const Eigen::MatrixXd x = random_points(15, b, 3);
  Eigen::VectorXd y(x.rows());
  for (int i = 0; i < x.rows(); ++i) y(i) = f(x.row(i).transpose());
  const PolynomialModel model(x, y, b, PolynomialOrder::quadratic);
  for (int k = 0; k < 10; ++k) EXPECT_NEAR(model.coefficients()(k), kCoefficients[k], 1e-9);
  const Eigen::VectorXd t = (centre + 0.3 * half).eval();
  EXPECT_NEAR(model.value(t), f(t), 1e-10);
  // Gradient in own units against central differences.
  const Eigen::VectorXd g = model.gradient(t);
  for (int k = 0; k < 3; ++k) {
    const double h = 1e-5 * half(k);
    Eigen::VectorXd tp = t, tm = t;
    tp(k) += h;
    tm(k) -= h;
    EXPECT_NEAR(g(k), (f(tp) - f(tm)) / (2 * h), 1e-6 * std::abs(g(k)) + 1e-9);
  }
}

TEST(MetamodelPolynomial, TooFewPointsIsAClearError) {
  const Bounds b = box({0, 0, 0}, {1, 1, 1});
  const Eigen::MatrixXd x = random_points(3, b, 1);
  try {
    PolynomialModel(x, Eigen::Vector3d(1, 2, 3), b, PolynomialOrder::linear);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("3 points for 4 coefficients"));
  }
}

TEST(MetamodelPolynomial, RankDeficiencyIsReportedNotFitted) {
  // Five points on the diagonal of a square: a linear model of two variables sees one
  // direction only.
  const Bounds b = box({0, 0}, {1, 1});
  Eigen::MatrixXd x(5, 2);
  for (int i = 0; i < 5; ++i) x.row(i) << 0.2 * i, 0.2 * i;
  try {
    PolynomialModel(x, Eigen::VectorXd::LinSpaced(5, 0, 1), b, PolynomialOrder::linear);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("5 points for 3 coefficients"));
    EXPECT_THAT(e.what(), HasSubstr("determine only 2"));
  }
}

TEST(MetamodelPolynomial, LeaveOneOutEqualsRefits) {
  const Bounds b = box({0, -2}, {3, 2});
  const Eigen::MatrixXd x = random_points(14, b, 11);
  Eigen::VectorXd y(x.rows());
  for (int i = 0; i < x.rows(); ++i) y(i) = std::sin(x(i, 0)) * std::exp(0.3 * x(i, 1));
  const PolynomialModel model(x, y, b, PolynomialOrder::quadratic);
  for (int i = 0; i < x.rows(); ++i) {
    Eigen::MatrixXd xi;
    Eigen::VectorXd yi;
    testing::drop_row(x, y, i, xi, yi);
    const PolynomialModel refit(xi, yi, b, PolynomialOrder::quadratic);
    const double e = y(i) - refit.value(x.row(i).transpose());
    EXPECT_NEAR(model.accuracy().loo_residuals(i), e, 1e-10 * (1 + std::abs(e)));
  }
  const Accuracy& a = model.accuracy();
  EXPECT_NEAR(a.press, a.loo_residuals.squaredNorm(), 1e-14);
  EXPECT_NEAR(a.loo_rms, std::sqrt(a.press / 14), 1e-14);
  const double ss_tot = (y.array() - y.mean()).square().sum();
  const double ss_res = (y - model.predict(x)).squaredNorm();
  EXPECT_NEAR(a.r2, 1 - ss_res / ss_tot, 1e-12);
  EXPECT_NEAR(a.r2_adjusted, 1 - (1 - a.r2) * 13.0 / 8.0, 1e-12);
  EXPECT_NEAR(a.r2_pred, 1 - a.press / ss_tot, 1e-12);
  EXPECT_LT(a.r2_pred, a.r2);
}

TEST(MetamodelPolynomial, SaturatedDesignHasNoLeaveOneOut) {
  const Bounds b = box({0, 0}, {1, 1});
  Eigen::MatrixXd x(3, 2);
  x << 0, 0, 1, 0, 0, 1;
  const PolynomialModel model(x, Eigen::Vector3d(1, 2, 3), b, PolynomialOrder::linear);
  EXPECT_TRUE(std::isnan(model.accuracy().press));
  EXPECT_TRUE(std::isnan(model.accuracy().r2_adjusted));
  EXPECT_THAT(model.accuracy().note, HasSubstr("3 points for 3 coefficients"));
  EXPECT_NEAR(model.value(Eigen::Vector2d(1, 1)), 4.0, 1e-12);
}

TEST(MetamodelPolynomial, BadInputIsRejectedWithAReason) {
  const Bounds b = box({0, 0}, {1, 1});
  Eigen::MatrixXd x = random_points(8, b, 5);
  Eigen::VectorXd y = Eigen::VectorXd::Ones(8);
  const auto fit = [&](const Eigen::MatrixXd& px, const Eigen::VectorXd& py, const Bounds& pb) {
    try {
      PolynomialModel(px, py, pb, PolynomialOrder::linear);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  Eigen::VectorXd nan_y = y;
  nan_y(4) = std::nan("");
  EXPECT_THAT(fit(x, nan_y, b), HasSubstr("value at point 4 is not finite"));
  Eigen::MatrixXd dup = x;
  dup.row(6) = dup.row(2);
  EXPECT_THAT(fit(dup, y, b), HasSubstr("points 2 and 6"));
  EXPECT_THAT(fit(x, y, box({0, 1}, {1, 1})), HasSubstr("variable 1: lower 1 is not below"));
  EXPECT_THAT(fit(x, y.head(7), b), HasSubstr("8 points but 7 values"));
  EXPECT_THAT(fit(x, y, box({0, 0, 0}, {1, 1, 1})), HasSubstr("2 columns but the bounds 3"));
}

}  // namespace
}  // namespace sao::metamodel
