// Global sensitivity: Sobol indices of a function over a box (docs/metamodels.md, "Sobol
// indices").
//
// The inputs are independent and uniform over the box. With N base points, two matrices A
// and B (N x n) are taken from one 2n-dimensional Sobol sequence (Boost.Random's
// sobol, its points shifted modulo 1 by a random vector drawn from the seed: a randomised
// quasi-Monte Carlo sample), and AB_i is A with column i taken from B. From the N (n + 2)
// values f(A), f(B), f(AB_i):
//   V     = the variance of the 2N values f(A), f(B)
//   S_i   = mean(f(B) (f(AB_i) - f(A))) / V                 first order (Saltelli, 2010)
//   ST_i  = mean((f(A) - f(AB_i))^2) / 2 / V                total (Jansen, 1999)
// Confidence intervals: the N rows are resampled with replacement `bootstrap` times, every
// estimate recomputed on each resample, and the central `confidence` fraction of the
// resampled estimates kept (percentile bootstrap). Everything is deterministic given the seed.
#pragma once

#include <cstdint>
#include <functional>

#include "sao/metamodel/metamodel.hpp"

namespace sao::metamodel {

// A function of a batch of points: rows of the matrix (own units) -> one value per row.
using BatchFunction = std::function<Eigen::VectorXd(const Eigen::MatrixXd&)>;

struct SobolSettings {
  int samples = 4096;        // N base points (>= 64); the function is called on N (n + 2) points
  int bootstrap = 300;       // resamples for the confidence intervals (>= 20)
  double confidence = 0.95;  // two-sided level of the intervals, in (0, 1)
  std::uint32_t seed = 1;    // the sample's random shift and the resampling
};

struct SobolIndices {
  Eigen::VectorXd first, first_low, first_high;  // S_i and its interval
  Eigen::VectorXd total, total_low, total_high;  // ST_i and its interval
  double mean = 0.0;                             // of f over the box (the 2N values of A and B)
  double variance = 0.0;                         // V
  int evaluations = 0;                           // N (n + 2)
};

// Indices of f over the box. Throws std::invalid_argument for bad bounds or settings, when f
// returns the wrong number of values or a non-finite one, and when f is constant over the
// sample (V = 0: no variance to apportion).
SobolIndices sobol_indices(const BatchFunction& f, const Bounds& box,
                           const SobolSettings& settings = {});

// Indices of a fitted model's prediction over the box (often its own bounds()).
SobolIndices sobol_indices(const Metamodel& model, const Bounds& box,
                           const SobolSettings& settings = {});

}  // namespace sao::metamodel
