// Kriging (Gaussian process regression) with a constant or linear trend
// (docs/metamodels.md, "Kriging").
//
// y(x) = f(x)' beta + Z(x): f the trend's terms (1, or 1 and the scaled variables), Z a
// stationary Gaussian process of variance sigma^2 and correlation
//   gaussian   R(d) = exp(-1/2 sum_k (d_k / l_k)^2)
//   matern52   R(d) = (1 + sqrt(5) r + 5 r^2 / 3) exp(-sqrt(5) r),  r^2 = sum_k (d_k / l_k)^2
// between points d apart in the variables scaled to [0, 1] (one length scale l_k per variable,
// in that scaled unit). A nugget tau (noise variance / sigma^2) is added to the correlation
// matrix's diagonal for noisy data; with tau = 0 the model interpolates.
//
// beta (generalised least squares) and sigma^2 are in closed form given the length scales and
// the nugget; those are chosen by maximising the concentrated likelihood (below) with NLopt's
// BOBYQA (derivative-free, bounded) over their logarithms, from several starts: the centre of
// the log box, then points drawn uniformly in it (seeded: deterministic).
//
// Numerical safeguards: the correlation matrix R is factorised by Cholesky. A Gaussian
// correlation matrix approaches singularity smoothly as the length scales grow, and maximum
// likelihood on smooth data tends to go there: a jitter of 1e-10 is always added to its diagonal
// (a tiny nugget), which keeps the likelihood continuous and the factorisation stable, and limits
// interpolation to about 1e-6 of the values in that regime (Matern 5/2 needs no jitter and
// interpolates to rounding). When the factorisation fails or its reciprocal condition estimate is
// below 1e-13, the jitter is raised to 1e-12, 1e-10, 1e-8, then 1e-6 (jitter() reports the one
// used); if none helps, fitting with those hyperparameters fails (std::runtime_error naming
// them: the points are too close for the length scales; give a nugget or shorter length scales).
#pragma once

#include <cstdint>

#include "sao/metamodel/metamodel.hpp"

namespace sao::metamodel {

namespace detail {
struct Factorisation;
}

enum class KrigingTrend { constant, linear };
enum class Correlation { gaussian, matern52 };

struct KrigingSettings {
  KrigingTrend trend = KrigingTrend::constant;
  Correlation correlation = Correlation::matern52;
  // Length scales: given (n values > 0, scaled unit) or estimated within [length_min, length_max].
  Eigen::VectorXd length_scales;
  double length_min = 0.01;
  double length_max = 10.0;
  // Nugget: the given value, or (estimate_nugget) estimated within [nugget_min, nugget_max].
  double nugget = 0.0;
  bool estimate_nugget = false;
  double nugget_min = 1e-8;
  double nugget_max = 0.1;
  int starts = 4;           // local searches of the likelihood (>= 1)
  std::uint32_t seed = 1;   // their random starts
  int max_evaluations = 0;  // likelihood evaluations per start; 0: 50 (d + 1), d estimated
};

// Mean and standard error (the square root of the kriging variance: the variance of the
// process given the data, with the trend's estimation included) at each point.
struct KrigingPrediction {
  Eigen::VectorXd mean;
  Eigen::VectorXd std_error;
};

// The concentrated log likelihood of the data for given length scales (n, scaled unit) and
// nugget, the trend and correlation of settings:
//   -1/2 (m log(2 pi sigma^2) + m + log det R),  sigma^2 = (y - F beta)' R^-1 (y - F beta) / m
// (maximum likelihood, beta by generalised least squares). -infinity when R cannot be factorised
// even with the jitter, +infinity when the trend fits the values exactly (sigma^2 = 0).
// Throws std::invalid_argument for bad data or hyperparameters.
double concentrated_log_likelihood(const Eigen::MatrixXd& points, const Eigen::VectorXd& values,
                                   const Bounds& bounds, const KrigingSettings& settings,
                                   const Eigen::VectorXd& length_scales, double nugget);

// A kriging model. Needs more points than trend terms (2 for constant, n + 2 for linear).
// accuracy(): leave-one-out residuals in closed form with the hyperparameters (length scales,
// nugget) kept fixed and the trend re-estimated without the point: e_i = [Q y]_i / Q_ii,
// Q = R^-1 - R^-1 F (F' R^-1 F)^-1 F' R^-1 (Dubrule's formula; R with nugget and jitter).
// Values that the trend alone fits exactly (constant values for a constant trend) give a model
// with sigma^2 = 0: the trend, a zero standard error, no likelihood search (NaN likelihood).
class KrigingModel : public Metamodel {
 public:
  KrigingModel(const Eigen::MatrixXd& points, const Eigen::VectorXd& values, const Bounds& bounds,
               const KrigingSettings& settings = {});

  Eigen::VectorXd predict(const Eigen::MatrixXd& points) const override;
  KrigingPrediction predict_with_error(const Eigen::MatrixXd& points) const;
  const Accuracy& accuracy() const override { return accuracy_; }
  const Bounds& bounds() const override { return bounds_; }

  const Eigen::VectorXd& length_scales() const { return lengths_; }  // scaled unit
  double nugget() const { return nugget_; }
  double jitter() const { return jitter_; }
  double process_variance() const { return sigma2_; }  // sigma^2, the values' unit squared
  const Eigen::VectorXd& trend_coefficients() const { return beta_; }  // 1, u_1, ..., u_n
  double log_likelihood() const { return log_likelihood_; }
  int likelihood_evaluations() const { return evaluations_; }
  // Leave-one-out standard errors sigma / sqrt(Q_ii), to standardise the LOO residuals.
  const Eigen::VectorXd& loo_std_errors() const { return loo_std_errors_; }

 private:
  void finish(const detail::Factorisation& fac, const Eigen::VectorXd& values);

  Bounds bounds_;
  KrigingSettings settings_;
  Eigen::MatrixXd centres_;  // scaled training points
  Eigen::VectorXd lengths_;
  double nugget_ = 0.0;
  double jitter_ = 0.0;
  double sigma2_ = 0.0;
  double log_likelihood_ = 0.0;
  int evaluations_ = 0;
  Eigen::VectorXd beta_;
  Eigen::MatrixXd chol_;      // lower Cholesky factor L of R
  Eigen::MatrixXd linv_f_;    // L^-1 F
  Eigen::MatrixXd gls_chol_;  // lower Cholesky factor of F' R^-1 F
  Eigen::VectorXd alpha_;     // R^-1 (y - F beta)
  Eigen::VectorXd loo_std_errors_;
  Accuracy accuracy_;
};

}  // namespace sao::metamodel
