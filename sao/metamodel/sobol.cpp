#include "sao/metamodel/sobol.hpp"

#include <algorithm>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/sobol.hpp>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace sao::metamodel {

namespace {

const char* const kWhat = "Sobol indices";

// N points of the 2n-dimensional Sobol sequence, shifted modulo 1 by a seeded random vector.
Eigen::MatrixXd quasi_random(int samples, int dims, std::uint32_t seed) {
  boost::random::sobol sequence(static_cast<std::size_t>(dims));
  boost::random::mt19937 rng(seed);
  boost::random::uniform_01<double> uniform;
  Eigen::VectorXd shift(dims);
  for (int k = 0; k < dims; ++k) shift(k) = uniform(rng);
  const double scale = std::ldexp(1.0, -64);  // the engine's values are 64-bit integers
  Eigen::MatrixXd u(samples, dims);
  for (int i = 0; i < samples; ++i) {
    for (int k = 0; k < dims; ++k) {
      const double v = static_cast<double>(sequence()) * scale + shift(k);
      u(i, k) = v - std::floor(v);
    }
  }
  return u;
}

// The estimates of one sample (rows of fa, fb, fab chosen by rows).
struct Estimate {
  Eigen::VectorXd first, total;
};

Estimate estimate(const Eigen::VectorXd& fa, const Eigen::VectorXd& fb, const Eigen::MatrixXd& fab,
                  const std::vector<int>& rows, double* variance = nullptr) {
  const auto nd = static_cast<double>(rows.size());
  double sum = 0.0;
  for (int r : rows) sum += fa(r) + fb(r);
  const double mean = sum / (2.0 * nd);
  double squares = 0.0;
  for (int r : rows) squares += (fa(r) - mean) * (fa(r) - mean) + (fb(r) - mean) * (fb(r) - mean);
  const double v = squares / (2.0 * nd);
  if (variance) *variance = v;
  const Eigen::Index n = fab.cols();
  Estimate e{Eigen::VectorXd::Zero(n), Eigen::VectorXd::Zero(n)};
  for (Eigen::Index i = 0; i < n; ++i) {
    double first = 0.0, total = 0.0;
    for (int r : rows) {
      first += fb(r) * (fab(r, i) - fa(r));
      total += (fa(r) - fab(r, i)) * (fa(r) - fab(r, i));
    }
    e.first(i) = v > 0.0 ? first / nd / v : 0.0;
    e.total(i) = v > 0.0 ? total / nd / 2.0 / v : 0.0;
  }
  return e;
}

double quantile(std::vector<double> x, double q) {
  std::sort(x.begin(), x.end());
  const double pos = q * static_cast<double>(x.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, x.size() - 1);
  return x[lo] + (pos - static_cast<double>(lo)) * (x[hi] - x[lo]);
}

Eigen::VectorXd evaluate(const BatchFunction& f, const Eigen::MatrixXd& x) {
  Eigen::VectorXd y = f(x);
  if (y.size() != x.rows())
    throw std::invalid_argument(std::string(kWhat) + ": the function returned " +
                                std::to_string(y.size()) + " values for " +
                                std::to_string(x.rows()) + " points");
  for (Eigen::Index r = 0; r < y.size(); ++r)
    if (!std::isfinite(y(r)))
      throw std::invalid_argument(std::string(kWhat) +
                                  ": the function is not finite at a "
                                  "point of the sample (row " +
                                  std::to_string(r) + ")");
  return y;
}

void check(const Bounds& box, const SobolSettings& s) {
  check_bounds(box, kWhat);
  if (s.samples < 64) throw std::invalid_argument(std::string(kWhat) + ": samples must be >= 64");
  if (s.bootstrap < 20)
    throw std::invalid_argument(std::string(kWhat) + ": bootstrap must be >= 20");
  if (!(s.confidence > 0.0 && s.confidence < 1.0))
    throw std::invalid_argument(std::string(kWhat) + ": confidence must be in (0, 1)");
}

}  // namespace

SobolIndices sobol_indices(const BatchFunction& f, const Bounds& box,
                           const SobolSettings& settings) {
  check(box, settings);
  const int n = box.size();
  const int m = settings.samples;
  const Eigen::MatrixXd u = quasi_random(m, 2 * n, settings.seed);
  const Eigen::RowVectorXd lo = box.lower.transpose();
  const Eigen::RowVectorXd width = (box.upper - box.lower).transpose();
  const Eigen::MatrixXd a =
      (u.leftCols(n).array().rowwise() * width.array()).rowwise() + lo.array();
  const Eigen::MatrixXd b =
      (u.rightCols(n).array().rowwise() * width.array()).rowwise() + lo.array();
  // One call: A, B, then AB_1 ... AB_n.
  Eigen::MatrixXd all(static_cast<Eigen::Index>(m) * (n + 2), n);
  all.topRows(m) = a;
  all.middleRows(m, m) = b;
  for (int i = 0; i < n; ++i) {
    Eigen::MatrixXd abi = a;
    abi.col(i) = b.col(i);
    all.middleRows(static_cast<Eigen::Index>(m) * (2 + i), m) = abi;
  }
  const Eigen::VectorXd y = evaluate(f, all);
  // Centred by the mean of f(A) and f(B): the first-order estimator's products then carry no
  // offset (its expectation does not depend on one, its sampling error would).
  const double centre = y.head(2 * static_cast<Eigen::Index>(m)).mean();
  const Eigen::VectorXd fa = y.head(m).array() - centre, fb = y.segment(m, m).array() - centre;
  Eigen::MatrixXd fab(m, n);
  for (int i = 0; i < n; ++i)
    fab.col(i) = y.segment(static_cast<Eigen::Index>(m) * (2 + i), m).array() - centre;

  std::vector<int> rows(m);
  for (int r = 0; r < m; ++r) rows[r] = r;
  SobolIndices out;
  const Estimate point = estimate(fa, fb, fab, rows, &out.variance);
  if (!(out.variance > 0.0))
    throw std::invalid_argument(std::string(kWhat) +
                                ": the function is constant over the sample (no variance)");
  out.mean = centre;
  out.first = point.first;
  out.total = point.total;
  out.evaluations = static_cast<int>(all.rows());

  boost::random::mt19937 rng(settings.seed ^ 0x5eed5eedu);
  boost::random::uniform_int_distribution<int> pick(0, m - 1);
  std::vector<std::vector<double>> firsts(n), totals(n);
  for (int rep = 0; rep < settings.bootstrap; ++rep) {
    for (int& r : rows) r = pick(rng);
    const Estimate e = estimate(fa, fb, fab, rows);
    for (int i = 0; i < n; ++i) {
      firsts[i].push_back(e.first(i));
      totals[i].push_back(e.total(i));
    }
  }
  const double tail = (1.0 - settings.confidence) / 2.0;
  out.first_low.resize(n), out.first_high.resize(n), out.total_low.resize(n),
      out.total_high.resize(n);
  for (int i = 0; i < n; ++i) {
    out.first_low(i) = quantile(firsts[i], tail);
    out.first_high(i) = quantile(firsts[i], 1.0 - tail);
    out.total_low(i) = quantile(totals[i], tail);
    out.total_high(i) = quantile(totals[i], 1.0 - tail);
  }
  return out;
}

SobolIndices sobol_indices(const Metamodel& model, const Bounds& box,
                           const SobolSettings& settings) {
  if (box.size() != model.variables())
    throw std::invalid_argument(std::string(kWhat) + ": a box of " + std::to_string(box.size()) +
                                " variables for a model of " + std::to_string(model.variables()));
  return sobol_indices([&model](const Eigen::MatrixXd& x) { return model.predict(x); }, box,
                       settings);
}

}  // namespace sao::metamodel
