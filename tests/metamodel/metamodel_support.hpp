// Helpers of the metamodel tests: boxes, reproducible random points, test functions.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <numbers>
#include <random>
#include <vector>

#include "sao/metamodel/metamodel.hpp"

namespace sao::metamodel::testing {

inline Bounds box(std::initializer_list<double> lower, std::initializer_list<double> upper) {
  Bounds b;
  b.lower.resize(static_cast<Eigen::Index>(lower.size()));
  b.upper.resize(static_cast<Eigen::Index>(upper.size()));
  Eigen::Index i = 0;
  for (double v : lower) b.lower(i++) = v;
  i = 0;
  for (double v : upper) b.upper(i++) = v;
  return b;
}

// Uniform points in the box from the 32-bit Mersenne twister's raw output (the same on every
// platform, unlike the standard distributions).
inline Eigen::MatrixXd random_points(int m, const Bounds& b, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Eigen::MatrixXd x(m, b.size());
  for (int i = 0; i < m; ++i)
    for (int k = 0; k < b.size(); ++k)
      x(i, k) = b.lower(k) + (rng() + 0.5) / 4294967296.0 * (b.upper(k) - b.lower(k));
  return x;
}

// A Latin hypercube: each variable's range cut into m strata, one point per stratum, the strata
// paired at random (reproducible as above).
inline Eigen::MatrixXd latin_hypercube(int m, const Bounds& b, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Eigen::MatrixXd x(m, b.size());
  for (int k = 0; k < b.size(); ++k) {
    std::vector<int> strata(m);
    for (int i = 0; i < m; ++i) strata[i] = i;
    for (int i = m - 1; i > 0; --i) std::swap(strata[i], strata[rng() % (i + 1)]);
    for (int i = 0; i < m; ++i) {
      const double u = (strata[i] + (rng() + 0.5) / 4294967296.0) / m;
      x(i, k) = b.lower(k) + u * (b.upper(k) - b.lower(k));
    }
  }
  return x;
}

template <class F>
Eigen::VectorXd values_of(const Eigen::MatrixXd& x, F f) {
  Eigen::VectorXd y(x.rows());
  for (Eigen::Index i = 0; i < x.rows(); ++i) y(i) = f(Eigen::VectorXd(x.row(i).transpose()));
  return y;
}

// The Ishigami function, a = 7, b = 0.1, on [-pi, pi]^3.
inline double ishigami(const Eigen::VectorXd& x) {
  return std::sin(x(0)) + 7.0 * std::pow(std::sin(x(1)), 2) +
         0.1 * std::pow(x(2), 4) * std::sin(x(0));
}

inline Bounds ishigami_box() {
  const double pi = std::numbers::pi;
  return box({-pi, -pi, -pi}, {pi, pi, pi});
}

// The data set without row i.
inline void drop_row(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, Eigen::Index i,
                     Eigen::MatrixXd& xi, Eigen::VectorXd& yi) {
  xi.resize(x.rows() - 1, x.cols());
  yi.resize(x.rows() - 1);
  for (Eigen::Index r = 0, k = 0; r < x.rows(); ++r) {
    if (r == i) continue;
    xi.row(k) = x.row(r);
    yi(k++) = y(r);
  }
}

}  // namespace sao::metamodel::testing
