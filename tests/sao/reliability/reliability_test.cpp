// The reliability library (sao/reliability, docs/robustness.md): the transforms of each
// distribution against closed forms, rejected correlation matrices, sample statistics of a
// linear function of correlated normals within their intervals of the closed form, and FORM
// against exact reliability indices.
#include <gtest/gtest.h>

#include <boost/math/distributions/lognormal.hpp>
#include <boost/math/distributions/normal.hpp>
#include <cmath>

#include "sao/reliability/form.hpp"
#include "sao/reliability/statistics.hpp"

namespace {

using namespace sao::reliability;

TEST(Reliability, NormalAndLognormalTransformsMatchBoost) {
  const Distribution n = Distribution::normal(3.0, 0.5);
  const boost::math::normal_distribution<double> bn(3.0, 0.5);
  for (double p : {1e-6, 0.01, 0.3, 0.5, 0.9, 0.999}) {
    EXPECT_NEAR(n.quantile(p), boost::math::quantile(bn, p), 1e-12);
  }
  const Distribution ln = Distribution::lognormal(2.0, 0.3);
  EXPECT_NEAR(ln.mean(), 2.0, 1e-12);
  EXPECT_NEAR(ln.sd(), 0.3, 1e-12);
  const double s2 = std::log(1 + 0.15 * 0.15);
  const boost::math::lognormal_distribution<double> bl(std::log(2.0) - s2 / 2, std::sqrt(s2));
  for (double p : {1e-4, 0.2, 0.5, 0.95}) {
    EXPECT_NEAR(ln.quantile(p), boost::math::quantile(bl, p), 1e-12);
    EXPECT_NEAR(ln.to_standard(ln.quantile(p)), normal_quantile(p), 1e-9);
  }
  EXPECT_THROW(Distribution::lognormal(-1.0, 0.1), std::invalid_argument);
  EXPECT_THROW(Distribution::normal(0.0, 0.0), std::invalid_argument);
}

TEST(Reliability, UniformAndTruncatedNormalStayInsideTheirBounds) {
  const Distribution u = Distribution::uniform(-1.0, 3.0);
  EXPECT_NEAR(u.from_standard(0.0), 1.0, 1e-15);
  EXPECT_NEAR(u.quantile(0.25), 0.0, 1e-12);
  EXPECT_NEAR(u.sd(), 4.0 / std::sqrt(12.0), 1e-15);
  const Distribution t = Distribution::truncated_normal(1.0, 2.0, 0.5, 2.0);
  for (double y : {-40.0, -8.0, -1.0, 0.0, 1.0, 8.0, 40.0}) {
    const double x = t.from_standard(y);
    EXPECT_GE(x, 0.5);
    EXPECT_LE(x, 2.0);
  }
  // Its quantile against the closed form Phi^-1(Phi(a) + p (Phi(b) - Phi(a))).
  const double a = normal_cdf(-0.25), b = normal_cdf(0.5);
  for (double p : {0.01, 0.5, 0.99}) {
    EXPECT_NEAR(t.quantile(p), 1.0 + 2.0 * normal_quantile(a + p * (b - a)), 1e-12);
    EXPECT_NEAR(t.cdf(t.quantile(p)), p, 1e-12);
  }
  // Its mean and sd against a numerical integral of the density.
  double m = 0, m2 = 0;
  const int k = 200000;
  for (int i = 0; i < k; ++i) {
    const double x = t.quantile((i + 0.5) / k);
    m += x / k;
    m2 += x * x / k;
  }
  EXPECT_NEAR(t.mean(), m, 1e-6);
  EXPECT_NEAR(t.sd(), std::sqrt(m2 - m * m), 1e-5);
  EXPECT_THROW(Distribution::truncated_normal(0.0, 1.0, 2.0, 1.0), std::invalid_argument);
}

TEST(Reliability, BadCorrelationMatricesAreRefusedNamingTheVariables) {
  const std::vector<std::string> names = {"a", "b", "c"};
  Eigen::Matrix3d r = Eigen::Matrix3d::Identity();
  r(0, 1) = 0.5;
  try {
    check_correlation(r, names);
    FAIL() << "asymmetric accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not symmetric between \"a\" and \"b\""),
              std::string::npos)
        << e.what();
  }
  r = Eigen::Matrix3d::Identity();
  r(2, 2) = 0.9;
  EXPECT_THROW(check_correlation(r, names), std::invalid_argument);
  // Each pair possible, the three together not: rho_ab = rho_bc = 0.9, rho_ac = -0.9.
  r << 1, 0.9, -0.9, 0.9, 1, 0.9, -0.9, 0.9, 1;
  try {
    check_correlation(r, names);
    FAIL() << "indefinite accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not positive definite"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("\"c\""), std::string::npos) << e.what();
  }
  r << 1, 0.3, 0, 0.3, 1, 0, 0, 0, 1;
  EXPECT_NO_THROW(check_correlation(r, names));
}

// g = 6 - x1 - 2 x2 with x1 ~ N(1, 1), x2 ~ N(0.5, 0.8), rho = 0.4: mean 4, var 1 + 4 0.64 +
// 4 0.4 0.8 = 4.84, sd 2.2; Pf = Phi(-4 / 2.2).
RandomVector correlated_pair() {
  Eigen::Matrix2d r;
  r << 1, 0.4, 0.4, 1;
  return RandomVector({"x1", "x2"},
                      {Distribution::normal(1.0, 1.0), Distribution::normal(0.5, 0.8)}, r);
}

TEST(Reliability, SampleStatisticsOfALinearFunctionHoldTheClosedFormValues) {
  const RandomVector v = correlated_pair();
  for (Sampling s : {Sampling::kMonteCarlo, Sampling::kLatinHypercube}) {
    const Eigen::MatrixXd x = v.sample(20000, s, 7);
    const Eigen::VectorXd g = (6.0 - x.col(0).array() - 2.0 * x.col(1).array()).matrix();
    const SampleStatistics st = sample_statistics(g, {0.05, 0.5, 0.95});
    EXPECT_LE(st.mean.low, 4.0);
    EXPECT_GE(st.mean.high, 4.0);
    EXPECT_LT(st.mean.high - st.mean.low, 0.1);  // 2 x 1.96 x 2.2 / sqrt(20000) = 0.061
    EXPECT_LE(st.sd.low, 2.2);
    EXPECT_GE(st.sd.high, 2.2);
    EXPECT_LT(st.sd.high - st.sd.low, 0.1);
    for (const QuantileEstimate& q : st.quantiles) {
      const double exact = 4.0 + 2.2 * normal_quantile(q.p);
      EXPECT_LE(q.estimate.low, exact) << q.p;
      EXPECT_GE(q.estimate.high, exact) << q.p;
      EXPECT_LT(q.estimate.high - q.estimate.low, 0.3) << q.p;
    }
    int failures = 0;
    for (double gi : g) failures += gi <= 0;
    const FailureProbability f = failure_probability(failures, static_cast<int>(g.size()));
    const double exact = normal_cdf(-4.0 / 2.2);
    EXPECT_LE(f.pf.low, exact);
    EXPECT_GE(f.pf.high, exact);
    EXPECT_LT(f.pf.high - f.pf.low, 0.5 * exact);
  }
  // The same seed gives the same sample.
  EXPECT_EQ(v.sample(10, Sampling::kLatinHypercube, 3), v.sample(10, Sampling::kLatinHypercube, 3));
}

TEST(Reliability, ZeroFailuresAreAnUpperBound) {
  const FailureProbability f = failure_probability(0, 1000, 0.95);
  EXPECT_TRUE(f.upper_bound_only());
  EXPECT_EQ(f.pf.value, 0.0);
  EXPECT_NEAR(f.pf.high, 1.0 - std::pow(0.025, 1.0 / 1000), 1e-12);
}

TEST(Reliability, FormIsExactOnALinearLimitStateOfCorrelatedNormals) {
  const RandomVector v = correlated_pair();
  const FormResult r = form(v, [](const Eigen::VectorXd& x, Eigen::VectorXd& grad) {
    grad = Eigen::Vector2d(-1.0, -2.0);
    return 6.0 - x(0) - 2.0 * x(1);
  });
  ASSERT_TRUE(r.converged) << r.message;
  EXPECT_NEAR(r.beta, 4.0 / 2.2, 1e-8);
  EXPECT_NEAR(r.pf, normal_cdf(-4.0 / 2.2), 1e-10);
  EXPECT_NEAR(6.0 - r.x(0) - 2.0 * r.x(1), 0.0, 1e-8);
  EXPECT_NEAR(r.alpha.norm(), 1.0, 1e-12);
}

TEST(Reliability, FormOnAProductOfLognormalsFindsTheExactIndex) {
  // g = x1 x2 - 1.5: failure when ln x1 + ln x2 <= ln 1.5, linear in the normal space, so
  // beta = (mu1 + mu2 - ln 1.5) / sqrt(s1^2 + s2^2) exactly; nonlinear in x.
  const RandomVector v({"x1", "x2"},
                       {Distribution::lognormal(2.0, 0.4), Distribution::lognormal(1.5, 0.3)});
  auto musigma = [](double m, double s) {
    const double s2 = std::log(1 + s * s / (m * m));
    return std::pair(std::log(m) - s2 / 2, std::sqrt(s2));
  };
  const auto [mu1, s1] = musigma(2.0, 0.4);
  const auto [mu2, s2] = musigma(1.5, 0.3);
  const double exact = (mu1 + mu2 - std::log(1.5)) / std::sqrt(s1 * s1 + s2 * s2);
  const FormResult r = form(v, [](const Eigen::VectorXd& x, Eigen::VectorXd& grad) {
    grad = Eigen::Vector2d(x(1), x(0));
    return x(0) * x(1) - 1.5;
  });
  ASSERT_TRUE(r.converged) << r.message;
  EXPECT_NEAR(r.beta, exact, 1e-6);
  EXPECT_GT(r.iterations, 1);  // not one linear step
}

TEST(Reliability, FormOnACurvedLimitStateAgreesWithTheNumericalDesignPoint) {
  // g = 3 - z1 - 0.2 (z2 + 0.5)^2 of standard normals: the nearest point of the surface to the
  // origin, by scipy.optimize.minimize_scalar of the distance along the surface (xatol 1e-12):
  // z2 = 1.787427924, distance 2.6478663866861525.
  const RandomVector v({"z1", "z2"}, {Distribution::normal(0, 1), Distribution::normal(0, 1)});
  const FormResult r = form(v, [](const Eigen::VectorXd& x, Eigen::VectorXd& grad) {
    grad = Eigen::Vector2d(-1.0, -0.4 * (x(1) + 0.5));
    return 3.0 - x(0) - 0.2 * (x(1) + 0.5) * (x(1) + 0.5);
  });
  ASSERT_TRUE(r.converged) << r.message;
  EXPECT_NEAR(r.beta, 2.6478663866861525, 1e-6);
  EXPECT_NEAR(r.z(1), 1.787427924, 1e-5);
}

TEST(Reliability, FormSaysWhenItDoesNotConverge) {
  const RandomVector v({"z"}, {Distribution::normal(0, 1)});
  FormSettings s;
  s.max_iterations = 2;
  const FormResult r = form(
      v,
      [](const Eigen::VectorXd& x, Eigen::VectorXd& grad) {
        grad = Eigen::VectorXd::Constant(1, -std::cos(x(0)) - 0.01);
        return 3.0 - std::sin(x(0)) - 0.01 * x(0);  // oscillating, never zero near the start
      },
      s);
  EXPECT_FALSE(r.converged);
  EXPECT_FALSE(r.message.empty());
}

}  // namespace
