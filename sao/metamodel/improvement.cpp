#include "sao/metamodel/improvement.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace sao::metamodel {

namespace {

double normal_cdf(double z) {
  return 0.5 * std::erfc(-z / std::numbers::sqrt2);
}

double normal_pdf(double z) {
  return std::exp(-0.5 * z * z) / std::sqrt(2.0 * std::numbers::pi);
}

void check(double mean, double std_error, double reference, const char* what,
           const char* reference_name) {
  if (!std::isfinite(mean) || !std::isfinite(std_error) || !std::isfinite(reference))
    throw std::invalid_argument(std::string(what) + ": mean, standard error and " + reference_name +
                                " must be finite");
  if (std_error < 0.0)
    throw std::invalid_argument(std::string(what) + ": standard error " +
                                std::to_string(std_error) + " < 0");
}

}  // namespace

double expected_improvement(double mean, double std_error, double best) {
  check(mean, std_error, best, "expected improvement", "best value");
  const double gain = best - mean;
  if (std_error == 0.0) return std::max(gain, 0.0);
  const double z = gain / std_error;
  return std::max(gain * normal_cdf(z) + std_error * normal_pdf(z), 0.0);
}

double probability_of_feasibility(double mean, double std_error, double upper) {
  check(mean, std_error, upper, "probability of feasibility", "bound");
  if (std_error == 0.0) return mean < upper ? 1.0 : mean > upper ? 0.0 : 0.5;
  return normal_cdf((upper - mean) / std_error);
}

double constrained_expected_improvement(double mean, double std_error, double best,
                                        const std::vector<ConstraintPrediction>& constraints) {
  double value = expected_improvement(mean, std_error, best);
  for (const ConstraintPrediction& c : constraints)
    value *= probability_of_feasibility(c.mean, c.std_error, c.upper);
  return value;
}

Eigen::VectorXd expected_improvement(const KrigingPrediction& prediction, double best) {
  if (prediction.mean.size() != prediction.std_error.size())
    throw std::invalid_argument("expected improvement: " + std::to_string(prediction.mean.size()) +
                                " means but " + std::to_string(prediction.std_error.size()) +
                                " standard errors");
  Eigen::VectorXd ei(prediction.mean.size());
  for (Eigen::Index i = 0; i < ei.size(); ++i)
    ei(i) = expected_improvement(prediction.mean(i), prediction.std_error(i), best);
  return ei;
}

}  // namespace sao::metamodel
