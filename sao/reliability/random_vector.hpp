// Correlated random variables and their samples (docs/robustness.md).
//
// A RandomVector is n distributions and a correlation matrix R. The correlation is applied in
// standard normal space (a Gaussian copula): independent standard normals z, correlated ones
// y = L z with L L^T = R (Cholesky), then x_i = F_i^-1(Phi(y_i)). The coefficients given are
// therefore those of the normal space: exact for normal variables, Nataf's approximation for the
// others (their correlation in x is slightly smaller in magnitude).
//
// Samples are drawn in z (Boost.Random's Mersenne twister, seeded: the same seed gives the same
// sample on every platform): plain Monte Carlo, or a Latin hypercube (each variable's N values one
// in each of N strata of equal probability, the strata paired at random between variables).
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <vector>

#include "sao/reliability/distribution.hpp"

namespace sao::reliability {

// Checks a correlation matrix of the variables `names` (n x n): symmetric (to 1e-12), ones on
// the diagonal, off-diagonal entries in (-1, 1), positive definite. Throws std::invalid_argument
// naming the variables: the pair of an asymmetric or out-of-range entry, the variable of a
// diagonal entry, and for a matrix that is not positive definite the first variables whose
// correlations together are impossible.
void check_correlation(const Eigen::MatrixXd& r, const std::vector<std::string>& names);

enum class Sampling { kMonteCarlo, kLatinHypercube };

class RandomVector {
 public:
  // `correlation` empty: independent variables. Checks it (check_correlation).
  RandomVector(std::vector<std::string> names, std::vector<Distribution> distributions,
               Eigen::MatrixXd correlation = {});
  int size() const { return static_cast<int>(distributions_.size()); }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<Distribution>& distributions() const { return distributions_; }
  const Eigen::MatrixXd& correlation() const { return correlation_; }
  // x of the independent standard normal point z.
  Eigen::VectorXd to_x(const Eigen::VectorXd& z) const;
  // z of x (x_i clipped to the supports).
  Eigen::VectorXd to_z(const Eigen::VectorXd& x) const;
  // dx/dz at z (n x n): diag(dx_i/dy_i) L.
  Eigen::MatrixXd jacobian(const Eigen::VectorXd& z) const;
  // `count` points x (rows), drawn as `sampling` says with `seed`.
  Eigen::MatrixXd sample(int count, Sampling sampling, std::uint64_t seed) const;

 private:
  std::vector<std::string> names_;
  std::vector<Distribution> distributions_;
  Eigen::MatrixXd correlation_;
  Eigen::MatrixXd l_;  // Cholesky factor of the correlation
};

// `count` independent standard normal points in `n` dimensions (rows).
Eigen::MatrixXd standard_sample(int n, int count, Sampling sampling, std::uint64_t seed);

}  // namespace sao::reliability
