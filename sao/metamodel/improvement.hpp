// Infill criteria from kriging predictions (docs/metamodels.md, "Expected improvement"): the
// prediction at a point is read as a normal distribution of mean mu and standard deviation s
// (the kriging standard error). Minimisation throughout.
#pragma once

#include <vector>

#include "sao/metamodel/kriging.hpp"

namespace sao::metamodel {

// E[max(best - Y, 0)], Y ~ N(mu, s^2): (best - mu) Phi(z) + s phi(z), z = (best - mu) / s;
// max(best - mu, 0) when s = 0. Throws std::invalid_argument for s < 0 or a non-finite input.
double expected_improvement(double mean, double std_error, double best);

// P(G <= upper), G ~ N(mu, s^2): Phi((upper - mu) / s); for s = 0, 1 below the bound, 0 above
// it and 1/2 on it (the limit for s -> 0).
double probability_of_feasibility(double mean, double std_error, double upper);

// A constraint g <= upper predicted by its own kriging model at the same point.
struct ConstraintPrediction {
  double mean = 0.0;
  double std_error = 0.0;
  double upper = 0.0;
};

// Expected improvement times the probability that every constraint holds (the constraints'
// models taken as independent): EI(mu, s, best) prod_j P(g_j <= upper_j).
double constrained_expected_improvement(double mean, double std_error, double best,
                                        const std::vector<ConstraintPrediction>& constraints);

// Expected improvement at each point of a batch prediction.
Eigen::VectorXd expected_improvement(const KrigingPrediction& prediction, double best);

}  // namespace sao::metamodel
