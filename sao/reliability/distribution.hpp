// Random variables (issue 51; docs/robustness.md): the distributions of `sao robust`, each mapped
// to and from a standard normal variable y: x = F^-1(Phi(y)), y = Phi^-1(F(x)) (the Rosenblatt
// transform of one variable). Boost.Math's normal distribution gives Phi and Phi^-1; the maps
// are written so that they stay finite far in the tails (|y| up to about 37).
//
// Conventions of the whole folder (sao/reliability): mathematics on numbers, nothing of the
// study, the store or the simulator; bad input (a standard deviation <= 0, bounds in the wrong
// order, a correlation matrix that is not one) is a std::invalid_argument whose message says
// what is wrong. Links Eigen and Boost's headers only.
#pragma once

#include <string>

namespace sao::reliability {

enum class Kind { kNormal, kLognormal, kUniform, kTruncatedNormal };
// "normal", "lognormal", "uniform", "truncated_normal".
const char* kind_name(Kind kind);

class Distribution {
 public:
  // Normal with mean and standard deviation sd > 0.
  static Distribution normal(double mean, double sd);
  // Lognormal of mean > 0 and standard deviation sd > 0: ln x is normal with
  // sigma^2 = ln(1 + (sd/mean)^2), mu = ln(mean) - sigma^2 / 2.
  static Distribution lognormal(double mean, double sd);
  // Lognormal given by mu and sigma > 0 of ln x.
  static Distribution lognormal_of_log(double mu, double sigma);
  // Uniform on [lower, upper], lower < upper.
  static Distribution uniform(double lower, double upper);
  // The normal of `mean` and `sd` (those of the untruncated normal) cut to [lower, upper]
  // (lower < upper; either may be infinite), with at least 1e-12 of its probability inside.
  static Distribution truncated_normal(double mean, double sd, double lower, double upper);

  Kind kind() const { return kind_; }
  // x of the standard normal value y: F^-1(Phi(y)).
  double from_standard(double y) const;
  // y of x: Phi^-1(F(x)); x outside the support is clipped to it (y finite, |y| <= 37).
  double to_standard(double x) const;
  // dx/dy at y (> 0): phi(y) / f(x(y)).
  double derivative(double y) const;
  double cdf(double x) const;
  double quantile(double p) const;  // p in (0, 1)
  double mean() const;
  double sd() const;
  // The lowest and highest values (-inf, +inf where unbounded).
  double lower() const;
  double upper() const;
  // "normal(mean 2, sd 0.1)", ...
  std::string describe() const;

 private:
  Distribution(Kind kind, double a, double b, double lo, double hi);
  Kind kind_;
  double a_;   // normal, truncated: mean; lognormal: mu; uniform: lower
  double b_;   // normal, truncated: sd; lognormal: sigma; uniform: upper
  double lo_;  // truncated: bounds; else unused
  double hi_;
  double p_lo_ = 0.0, p_hi_ = 1.0;  // truncated: Phi at the bounds (standardised)
  double q_hi_ = 0.0;               // truncated: 1 - Phi at the upper bound, exactly
};

// Phi, Phi^-1 and phi of the standard normal (Boost.Math).
double normal_cdf(double y);
double normal_quantile(double p);
double normal_pdf(double y);

}  // namespace sao::reliability
