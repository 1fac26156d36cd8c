#include "sao/reliability/distribution.hpp"

#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace sao::reliability {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kLargest = 37.5;  // |y| beyond which Phi is 0 or 1 in double precision

[[noreturn]] void fail(const std::string& what) {
  throw std::invalid_argument(what);
}

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// x phi(x), 0 at infinity.
double x_phi(double x) {
  return std::isfinite(x) ? x * normal_pdf(x) : 0.0;
}

}  // namespace

double normal_cdf(double y) {
  if (y <= -kLargest) return 0.0;
  if (y >= kLargest) return 1.0;
  return 0.5 * boost::math::erfc(-y / std::sqrt(2.0));
}

double normal_quantile(double p) {
  if (!(p > 0.0)) return -kLargest;
  if (!(p < 1.0)) return kLargest;
  const double y = -std::sqrt(2.0) * boost::math::erfc_inv(2.0 * p);
  return std::max(-kLargest, std::min(kLargest, y));
}

double normal_pdf(double y) {
  return std::isfinite(y) ? std::exp(-0.5 * y * y) / std::sqrt(2.0 * M_PI) : 0.0;
}

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kNormal:
      return "normal";
    case Kind::kLognormal:
      return "lognormal";
    case Kind::kUniform:
      return "uniform";
    case Kind::kTruncatedNormal:
      return "truncated_normal";
  }
  return "?";
}

Distribution::Distribution(Kind kind, double a, double b, double lo, double hi)
    : kind_(kind), a_(a), b_(b), lo_(lo), hi_(hi) {}

Distribution Distribution::normal(double mean, double sd) {
  if (!std::isfinite(mean)) fail("normal: the mean must be finite, got " + number(mean));
  if (!(sd > 0.0) || !std::isfinite(sd)) fail("normal: sd must be > 0, got " + number(sd));
  return {Kind::kNormal, mean, sd, -kInf, kInf};
}

Distribution Distribution::lognormal(double mean, double sd) {
  if (!(mean > 0.0) || !std::isfinite(mean)) {
    fail("lognormal: the mean must be > 0, got " + number(mean));
  }
  if (!(sd > 0.0) || !std::isfinite(sd)) fail("lognormal: sd must be > 0, got " + number(sd));
  const double cov = sd / mean;
  const double s2 = std::log1p(cov * cov);
  return lognormal_of_log(std::log(mean) - 0.5 * s2, std::sqrt(s2));
}

Distribution Distribution::lognormal_of_log(double mu, double sigma) {
  if (!std::isfinite(mu)) fail("lognormal: mu must be finite, got " + number(mu));
  if (!(sigma > 0.0) || !std::isfinite(sigma)) {
    fail("lognormal: sigma must be > 0, got " + number(sigma));
  }
  return {Kind::kLognormal, mu, sigma, 0.0, kInf};
}

Distribution Distribution::uniform(double lower, double upper) {
  if (!std::isfinite(lower) || !std::isfinite(upper) || !(lower < upper)) {
    fail("uniform: needs finite lower < upper, got [" + number(lower) + ", " + number(upper) + "]");
  }
  return {Kind::kUniform, lower, upper, lower, upper};
}

Distribution Distribution::truncated_normal(double mean, double sd, double lower, double upper) {
  const Distribution parent = normal(mean, sd);  // checks mean and sd
  if (!(lower < upper) || std::isnan(lower) || std::isnan(upper)) {
    fail("truncated_normal: needs lower < upper, got [" + number(lower) + ", " + number(upper) +
         "]");
  }
  Distribution d(Kind::kTruncatedNormal, parent.a_, parent.b_, lower, upper);
  const double a = (lower - mean) / sd, b = (upper - mean) / sd;
  d.p_lo_ = normal_cdf(a);
  d.p_hi_ = normal_cdf(b);
  d.q_hi_ = normal_cdf(-b);
  const double mass = a >= 0 ? normal_cdf(-a) - d.q_hi_ : d.p_hi_ - d.p_lo_;
  if (!(mass >= 1e-12)) {
    fail("truncated_normal: [" + number(lower) + ", " + number(upper) +
         "] holds less than 1e-12 of the normal's probability (mean " + number(mean) + ", sd " +
         number(sd) + ")");
  }
  return d;
}

namespace {
// The probability inside a truncated normal's bounds, computed on the side that keeps digits.
double truncated_mass(double p_lo, double p_hi, double q_hi, double a) {
  return a >= 0 ? normal_cdf(-a) - q_hi : p_hi - p_lo;
}
}  // namespace

double Distribution::from_standard(double y) const {
  switch (kind_) {
    case Kind::kNormal:
      return a_ + b_ * y;
    case Kind::kLognormal:
      return std::exp(a_ + b_ * y);
    case Kind::kUniform:
      return y <= 0 ? a_ + (b_ - a_) * normal_cdf(y) : b_ - (b_ - a_) * normal_cdf(-y);
    case Kind::kTruncatedNormal: {
      const double a = (lo_ - a_) / b_;
      const double mass = truncated_mass(p_lo_, p_hi_, q_hi_, a);
      const double z = y <= 0 ? normal_quantile(p_lo_ + normal_cdf(y) * mass)
                              : -normal_quantile(q_hi_ + normal_cdf(-y) * mass);
      return std::max(lo_, std::min(hi_, a_ + b_ * z));
    }
  }
  return 0.0;
}

double Distribution::to_standard(double x) const {
  switch (kind_) {
    case Kind::kNormal:
      return (x - a_) / b_;
    case Kind::kLognormal:
      return x > 0 ? std::max(-kLargest, (std::log(x) - a_) / b_) : -kLargest;
    case Kind::kUniform: {
      const double f = (x - a_) / (b_ - a_);
      return f <= 0.5 ? normal_quantile(f) : -normal_quantile((b_ - x) / (b_ - a_));
    }
    case Kind::kTruncatedNormal: {
      const double z = (std::max(lo_, std::min(hi_, x)) - a_) / b_;
      const double mass = truncated_mass(p_lo_, p_hi_, q_hi_, (lo_ - a_) / b_);
      if (z <= 0) return normal_quantile((normal_cdf(z) - p_lo_) / mass);
      return -normal_quantile((normal_cdf(-z) - q_hi_) / mass);
    }
  }
  return 0.0;
}

double Distribution::derivative(double y) const {
  switch (kind_) {
    case Kind::kNormal:
      return b_;
    case Kind::kLognormal:
      return b_ * from_standard(y);
    case Kind::kUniform:
      return (b_ - a_) * normal_pdf(y);
    case Kind::kTruncatedNormal: {
      const double z = (from_standard(y) - a_) / b_;
      const double mass = truncated_mass(p_lo_, p_hi_, q_hi_, (lo_ - a_) / b_);
      const double density = normal_pdf(z);
      return density > 0 ? normal_pdf(y) * mass * b_ / density : 0.0;
    }
  }
  return 0.0;
}

double Distribution::cdf(double x) const {
  switch (kind_) {
    case Kind::kNormal:
      return normal_cdf((x - a_) / b_);
    case Kind::kLognormal:
      return x > 0 ? normal_cdf((std::log(x) - a_) / b_) : 0.0;
    case Kind::kUniform:
      return std::max(0.0, std::min(1.0, (x - a_) / (b_ - a_)));
    case Kind::kTruncatedNormal: {
      if (x <= lo_) return 0.0;
      if (x >= hi_) return 1.0;
      const double mass = truncated_mass(p_lo_, p_hi_, q_hi_, (lo_ - a_) / b_);
      return (normal_cdf((x - a_) / b_) - p_lo_) / mass;
    }
  }
  return 0.0;
}

double Distribution::quantile(double p) const {
  if (!(p > 0.0 && p < 1.0)) fail("quantile: p must be in (0, 1), got " + number(p));
  return from_standard(normal_quantile(p));
}

double Distribution::mean() const {
  switch (kind_) {
    case Kind::kNormal:
      return a_;
    case Kind::kLognormal:
      return std::exp(a_ + 0.5 * b_ * b_);
    case Kind::kUniform:
      return 0.5 * (a_ + b_);
    case Kind::kTruncatedNormal: {
      const double a = (lo_ - a_) / b_, b = (hi_ - a_) / b_;
      const double mass = truncated_mass(p_lo_, p_hi_, q_hi_, a);
      return a_ + b_ * (normal_pdf(a) - normal_pdf(b)) / mass;
    }
  }
  return 0.0;
}

double Distribution::sd() const {
  switch (kind_) {
    case Kind::kNormal:
      return b_;
    case Kind::kLognormal:
      return mean() * std::sqrt(std::expm1(b_ * b_));
    case Kind::kUniform:
      return (b_ - a_) / std::sqrt(12.0);
    case Kind::kTruncatedNormal: {
      const double a = (lo_ - a_) / b_, b = (hi_ - a_) / b_;
      const double mass = truncated_mass(p_lo_, p_hi_, q_hi_, a);
      const double d = (normal_pdf(a) - normal_pdf(b)) / mass;
      return b_ * std::sqrt(std::max(0.0, 1.0 + (x_phi(a) - x_phi(b)) / mass - d * d));
    }
  }
  return 0.0;
}

double Distribution::lower() const {
  return kind_ == Kind::kNormal ? -kInf : lo_;
}
double Distribution::upper() const {
  return kind_ == Kind::kNormal ? kInf : hi_;
}

std::string Distribution::describe() const {
  switch (kind_) {
    case Kind::kNormal:
      return "normal(mean " + number(a_) + ", sd " + number(b_) + ")";
    case Kind::kLognormal:
      return "lognormal(mean " + number(mean()) + ", sd " + number(sd()) + "; mu " + number(a_) +
             ", sigma " + number(b_) + ")";
    case Kind::kUniform:
      return "uniform(" + number(a_) + ", " + number(b_) + ")";
    case Kind::kTruncatedNormal:
      return "truncated_normal(mean " + number(a_) + ", sd " + number(b_) + ", [" + number(lo_) +
             ", " + number(hi_) + "])";
  }
  return "?";
}

}  // namespace sao::reliability
