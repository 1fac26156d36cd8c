#include "sao/metamodel/rbf.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace sao::metamodel {

namespace {

const char* const kWhat = "radial basis functions";

double kernel_value(RbfKernel kernel, double r, double c) {
  switch (kernel) {
    case RbfKernel::cubic:
      return r * r * r;
    case RbfKernel::thin_plate:
      return r > 0.0 ? r * r * std::log(r) : 0.0;
    case RbfKernel::multiquadric:
      return std::sqrt(r * r + c * c);
    case RbfKernel::gaussian:
      return std::exp(-(r / c) * (r / c));
  }
  return 0.0;
}

RbfTail needed_tail(RbfKernel kernel) {
  switch (kernel) {
    case RbfKernel::cubic:
    case RbfKernel::thin_plate:
      return RbfTail::linear;
    case RbfKernel::multiquadric:
      return RbfTail::constant;
    case RbfKernel::gaussian:
      return RbfTail::none;
  }
  return RbfTail::linear;
}

int tail_terms(RbfTail tail, int n) {
  return tail == RbfTail::linear ? n + 1 : tail == RbfTail::constant ? 1 : 0;
}

// The tail's terms at scaled points: 1, u_1, ..., u_n (as many as the tail has).
Eigen::MatrixXd tail_matrix(const Eigen::MatrixXd& u, RbfTail tail) {
  const int q = tail_terms(tail, static_cast<int>(u.cols()));
  Eigen::MatrixXd p(u.rows(), q);
  if (q > 0) p.col(0).setOnes();
  if (q > 1) p.rightCols(u.cols()) = u;
  return p;
}

Eigen::MatrixXd kernel_matrix(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, RbfKernel kernel,
                              double c) {
  Eigen::MatrixXd k(a.rows(), b.rows());
  for (Eigen::Index j = 0; j < b.rows(); ++j)
    for (Eigen::Index i = 0; i < a.rows(); ++i)
      k(i, j) = kernel_value(kernel, (a.row(i) - b.row(j)).norm(), c);
  return k;
}

struct Solved {
  Eigen::VectorXd weights, tail, loo;
};

// Solves the interpolation system; nullopt when it is numerically singular.
std::optional<Solved> solve(const Eigen::MatrixXd& u, const Eigen::VectorXd& y, RbfKernel kernel,
                            RbfTail tail, double c) {
  const Eigen::Index m = u.rows();
  const Eigen::MatrixXd p = tail_matrix(u, tail);
  const Eigen::Index q = p.cols();
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(m + q, m + q);
  a.topLeftCorner(m, m) = kernel_matrix(u, u, kernel, c);
  a.topRightCorner(m, q) = p;
  a.bottomLeftCorner(q, m) = p.transpose();
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
  qr.setThreshold(1e-13);
  if (qr.rank() < m + q) return std::nullopt;
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(m + q);
  rhs.head(m) = y;
  const Eigen::VectorXd sol = qr.solve(rhs);
  // Interpolation is the point: a system solved no better than 1e-10 of the values counts as
  // singular (a shape too wide for the points).
  if ((a * sol - rhs).lpNorm<Eigen::Infinity>() >
      1e-10 * std::max(y.lpNorm<Eigen::Infinity>(), 1e-300))
    return std::nullopt;
  const Eigen::MatrixXd inv = qr.inverse();
  Solved s;
  s.weights = sol.head(m);
  s.tail = sol.tail(q);
  s.loo = s.weights.array() / inv.diagonal().head(m).array();
  if (!s.loo.allFinite()) return std::nullopt;
  return s;
}

}  // namespace

RbfModel::RbfModel(const Eigen::MatrixXd& points, const Eigen::VectorXd& values,
                   const Bounds& bounds, const RbfSettings& settings)
    : bounds_(bounds), kernel_(settings.kernel) {
  const RbfTail need = needed_tail(kernel_);
  tail_ = settings.tail == RbfTail::automatic ? (need == RbfTail::none ? RbfTail::constant : need)
                                              : settings.tail;
  const int n = bounds.size();
  if (tail_terms(tail_, n) < tail_terms(need, n))
    throw std::invalid_argument(std::string(kWhat) + ": this kernel needs a " +
                                (need == RbfTail::linear ? "linear" : "constant") +
                                " polynomial tail (or none given as automatic)");
  const bool shaped = kernel_ == RbfKernel::multiquadric || kernel_ == RbfKernel::gaussian;
  if (!(settings.shape >= 0.0) || !std::isfinite(settings.shape))
    throw std::invalid_argument(std::string(kWhat) + ": shape must be >= 0 (0: chosen)");
  const int min_points = std::max(2, tail_terms(tail_, n));
  check_training_data(points, values, bounds, min_points, kWhat);
  centres_ = to_scaled(points, bounds, true);
  std::optional<Solved> best;
  if (!shaped || settings.shape > 0.0) {
    shape_ = shaped ? settings.shape : 0.0;
    best = solve(centres_, values, kernel_, tail_, shape_);
  } else {
    for (int k = 0; k < 24; ++k) {
      const double c = 0.02 * std::pow(100.0, k / 23.0);
      auto s = solve(centres_, values, kernel_, tail_, c);
      if (s && (!best || s->loo.squaredNorm() < best->loo.squaredNorm())) {
        best = std::move(s);
        shape_ = c;
      }
    }
  }
  if (!best) {
    std::ostringstream m;
    m << kWhat << ": the interpolation system of " << points.rows()
      << " points is numerically singular (the points do not determine the " << tail_terms(tail_, n)
      << "-term tail, or the shape is too wide for them)";
    throw std::invalid_argument(m.str());
  }
  weights_ = best->weights;
  tail_coefficients_ = best->tail;
  accuracy_ = accuracy_from_loo(values, best->loo);
}

Eigen::VectorXd RbfModel::predict(const Eigen::MatrixXd& points) const {
  return predict_in_blocks(points, bounds_, kWhat, [&](const Eigen::MatrixXd& u) {
    return Eigen::VectorXd(kernel_matrix(u, centres_, kernel_, shape_) * weights_ +
                           tail_matrix(u, tail_) * tail_coefficients_);
  });
}

}  // namespace sao::metamodel
