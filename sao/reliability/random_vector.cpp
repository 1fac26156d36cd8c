#include "sao/reliability/random_vector.hpp"

#include <algorithm>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <cmath>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace sao::reliability {
namespace {

std::string pair_text(const std::vector<std::string>& names, Eigen::Index i, Eigen::Index j) {
  return "\"" + names[i] + "\" and \"" + names[j] + "\"";
}

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

void check_correlation(const Eigen::MatrixXd& r, const std::vector<std::string>& names) {
  const Eigen::Index n = static_cast<Eigen::Index>(names.size());
  if (r.rows() != n || r.cols() != n) {
    throw std::invalid_argument("correlation: a " + std::to_string(r.rows()) + " x " +
                                std::to_string(r.cols()) + " matrix for " + std::to_string(n) +
                                " variables");
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!(r(i, i) == 1.0)) {
      throw std::invalid_argument("correlation: the diagonal entry of \"" + names[i] + "\" is " +
                                  number(r(i, i)) + ", not 1");
    }
    for (Eigen::Index j = i + 1; j < n; ++j) {
      if (!std::isfinite(r(i, j)) || std::abs(r(i, j) - r(j, i)) > 1e-12) {
        throw std::invalid_argument("correlation: not symmetric between " + pair_text(names, i, j) +
                                    " (" + number(r(i, j)) + " and " + number(r(j, i)) + ")");
      }
      if (!(std::abs(r(i, j)) < 1.0)) {
        throw std::invalid_argument("correlation: " + pair_text(names, i, j) + " have rho " +
                                    number(r(i, j)) + "; it must be in (-1, 1)");
      }
    }
  }
  // The first leading block that is not positive definite names the variables involved.
  for (Eigen::Index k = 2; k <= n; ++k) {
    Eigen::LLT<Eigen::MatrixXd> llt(r.topLeftCorner(k, k));
    const bool ok =
        llt.info() == Eigen::Success && llt.matrixL().toDenseMatrix().diagonal().minCoeff() > 1e-10;
    if (ok) continue;
    std::string list;
    for (Eigen::Index i = 0; i < k; ++i) {
      bool correlated = false;
      for (Eigen::Index j = 0; j < k; ++j) correlated = correlated || (j != i && r(i, j) != 0.0);
      if (correlated) list += (list.empty() ? "\"" : ", \"") + names[i] + "\"";
    }
    throw std::invalid_argument("correlation: not positive definite: the correlations among " +
                                list +
                                " cannot hold together (some pairs are too strongly "
                                "correlated for the others)");
  }
}

RandomVector::RandomVector(std::vector<std::string> names, std::vector<Distribution> distributions,
                           Eigen::MatrixXd correlation)
    : names_(std::move(names)), distributions_(std::move(distributions)) {
  const int n = size();
  if (static_cast<int>(names_.size()) != n) {
    throw std::invalid_argument("random variables: " + std::to_string(names_.size()) +
                                " names for " + std::to_string(n) + " distributions");
  }
  correlation_ = correlation.size() == 0 ? Eigen::MatrixXd::Identity(n, n) : std::move(correlation);
  check_correlation(correlation_, names_);
  l_ = Eigen::LLT<Eigen::MatrixXd>(correlation_).matrixL();
}

Eigen::VectorXd RandomVector::to_x(const Eigen::VectorXd& z) const {
  const Eigen::VectorXd y = l_ * z;
  Eigen::VectorXd x(size());
  for (int i = 0; i < size(); ++i) x(i) = distributions_[i].from_standard(y(i));
  return x;
}

Eigen::VectorXd RandomVector::to_z(const Eigen::VectorXd& x) const {
  Eigen::VectorXd y(size());
  for (int i = 0; i < size(); ++i) y(i) = distributions_[i].to_standard(x(i));
  return l_.triangularView<Eigen::Lower>().solve(y);
}

Eigen::MatrixXd RandomVector::jacobian(const Eigen::VectorXd& z) const {
  const Eigen::VectorXd y = l_ * z;
  Eigen::VectorXd d(size());
  for (int i = 0; i < size(); ++i) d(i) = distributions_[i].derivative(y(i));
  return d.asDiagonal() * l_;
}

Eigen::MatrixXd RandomVector::sample(int count, Sampling sampling, std::uint64_t seed) const {
  const Eigen::MatrixXd z = standard_sample(size(), count, sampling, seed);
  Eigen::MatrixXd x(count, size());
  for (int k = 0; k < count; ++k) x.row(k) = to_x(z.row(k).transpose()).transpose();
  return x;
}

Eigen::MatrixXd standard_sample(int n, int count, Sampling sampling, std::uint64_t seed) {
  if (n < 1 || count < 1) throw std::invalid_argument("sample: needs n >= 1 and count >= 1");
  boost::random::mt19937_64 rng(seed);
  Eigen::MatrixXd z(count, n);
  if (sampling == Sampling::kMonteCarlo) {
    boost::random::normal_distribution<double> normal;
    for (int k = 0; k < count; ++k) {
      for (int i = 0; i < n; ++i) z(k, i) = normal(rng);
    }
    return z;
  }
  boost::random::uniform_01<double> uniform;
  std::vector<int> order(count);
  for (int i = 0; i < n; ++i) {
    std::iota(order.begin(), order.end(), 0);
    for (int k = count - 1; k > 0; --k) {  // Fisher-Yates with the seeded generator
      const int j = static_cast<int>(uniform(rng) * (k + 1));
      std::swap(order[k], order[std::min(j, k)]);
    }
    for (int k = 0; k < count; ++k) {
      const double u = (order[k] + uniform(rng)) / count;
      z(k, i) = normal_quantile(u);
    }
  }
  return z;
}

}  // namespace sao::reliability
