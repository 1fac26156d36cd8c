#include "sao/reliability/statistics.hpp"

#include <algorithm>
#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace sao::reliability {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void check_confidence(double confidence) {
  if (!(confidence > 0.0 && confidence < 1.0)) {
    throw std::invalid_argument("confidence must be in (0, 1)");
  }
}

// Quantile p of the sorted sample with its order-statistic interval.
QuantileEstimate quantile_of(const std::vector<double>& sorted, double p, double alpha) {
  if (!(p > 0.0 && p < 1.0)) throw std::invalid_argument("a quantile's p must be in (0, 1)");
  const int n = static_cast<int>(sorted.size());
  QuantileEstimate q;
  q.p = p;
  const int k = std::max(1, std::min(n, static_cast<int>(std::ceil(n * p))));
  q.estimate.value = sorted[k - 1];
  // P(X_(l) <= q_p <= X_(u)) >= 1 - alpha with l = the binomial's alpha/2 quantile, u = its
  // 1 - alpha/2 quantile + 1 (the number of sample values below q_p is B(n, p)).
  const boost::math::binomial_distribution<double> b(n, p);
  const double lo = std::floor(boost::math::quantile(b, alpha / 2));
  const double hi = std::ceil(boost::math::quantile(boost::math::complement(b, alpha / 2))) + 1;
  q.estimate.low = lo >= 1 ? sorted[static_cast<int>(lo) - 1] : -kInf;
  q.estimate.high = hi <= n ? sorted[static_cast<int>(hi) - 1] : kInf;
  return q;
}

}  // namespace

SampleStatistics sample_statistics(const Eigen::VectorXd& values,
                                   const std::vector<double>& probabilities, double confidence) {
  check_confidence(confidence);
  std::vector<double> finite;
  for (double v : values) {
    if (std::isfinite(v)) finite.push_back(v);
  }
  const int n = static_cast<int>(finite.size());
  if (n < 2)
    throw std::invalid_argument("statistics need at least 2 values, got " + std::to_string(n));
  const double alpha = 1.0 - confidence;
  SampleStatistics s;
  s.count = n;
  s.confidence = confidence;
  double mean = 0.0;
  for (double v : finite) mean += v;
  mean /= n;
  double ss = 0.0;
  for (double v : finite) ss += (v - mean) * (v - mean);
  const double sd = std::sqrt(ss / (n - 1));
  const boost::math::students_t t(n - 1);
  const double half = boost::math::quantile(boost::math::complement(t, alpha / 2)) * sd /
                      std::sqrt(static_cast<double>(n));
  s.mean = {mean, mean - half, mean + half};
  const boost::math::chi_squared chi(n - 1);
  const double upper = boost::math::quantile(boost::math::complement(chi, alpha / 2));
  const double lower = boost::math::quantile(chi, alpha / 2);
  s.sd = {sd, sd * std::sqrt((n - 1) / upper), sd * std::sqrt((n - 1) / lower)};
  std::sort(finite.begin(), finite.end());
  for (double p : probabilities) s.quantiles.push_back(quantile_of(finite, p, alpha));
  return s;
}

FailureProbability failure_probability(int failures, int count, double confidence) {
  check_confidence(confidence);
  if (count < 1 || failures < 0 || failures > count) {
    throw std::invalid_argument("failure probability: needs 0 <= failures <= count, count >= 1");
  }
  const double alpha = 1.0 - confidence;
  FailureProbability f;
  f.failures = failures;
  f.count = count;
  f.confidence = confidence;
  f.pf.value = static_cast<double>(failures) / count;
  f.pf.low =
      failures == 0
          ? 0.0
          : boost::math::quantile(
                boost::math::beta_distribution<double>(failures, count - failures + 1), alpha / 2);
  f.pf.high = failures == count ? 1.0
                                : boost::math::quantile(boost::math::beta_distribution<double>(
                                                            failures + 1, count - failures),
                                                        1 - alpha / 2);
  return f;
}

}  // namespace sao::reliability
