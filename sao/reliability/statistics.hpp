// Statistics of a sample of a response, each with a confidence interval (docs/robustness.md):
//  - mean: mean +- t_{N-1, 1-a/2} s / sqrt(N) (Student's t; the central limit theorem for
//    responses that are not normal);
//  - standard deviation: s sqrt((N-1) / chi2_{N-1, 1-a/2}) .. s sqrt((N-1) / chi2_{N-1, a/2})
//    (chi-square; exact for a normal response, approximate otherwise);
//  - quantile q_p: the sample's order statistic x_(ceil(N p)), its interval the order statistics
//    x_(l), x_(u) with l, u from the binomial distribution B(N, p) (distribution-free), open
//    (infinite) on a side the sample is too small for;
//  - probability of failure Pf = k / N of k failures (g <= 0) in N, its interval Clopper and
//    Pearson's (the exact binomial one, from the beta quantiles); for k = 0 the estimate is 0 and
//    only the upper end says something: Pf < 1 - (a/2)^(1/N).
// a = 1 - confidence. Boost.Math's distributions give every quantile.
#pragma once

#include <Eigen/Dense>
#include <vector>

namespace sao::reliability {

struct Interval {
  double value = 0.0;
  double low = 0.0;
  double high = 0.0;
};

struct QuantileEstimate {
  double p = 0.0;
  Interval estimate;
};

struct SampleStatistics {
  int count = 0;
  double confidence = 0.95;
  Interval mean;
  Interval sd;
  std::vector<QuantileEstimate> quantiles;
};

// Of the finite values of `values` (NaN ones are left out; count says how many were used);
// at least 2 values. `probabilities` in (0, 1).
SampleStatistics sample_statistics(const Eigen::VectorXd& values,
                                   const std::vector<double>& probabilities,
                                   double confidence = 0.95);

struct FailureProbability {
  int failures = 0;
  int count = 0;
  double confidence = 0.95;
  Interval pf;  // Clopper-Pearson; with no failure pf.value = 0, pf.high the upper bound
  bool upper_bound_only() const { return failures == 0; }
};

// Clopper-Pearson interval of `failures` in `count` (count >= 1).
FailureProbability failure_probability(int failures, int count, double confidence = 0.95);

}  // namespace sao::reliability
