#include "sao/metamodel/metamodel.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace sao::metamodel {

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& message) {
  throw std::invalid_argument(what + ": " + message);
}

// Two rows of the scaled points closer than tol in every variable: sorted by the first
// variable, only neighbours within tol in it can coincide.
void check_distinct(const Eigen::MatrixXd& scaled, const std::string& what) {
  const double tol = 1e-12;
  std::vector<int> order(scaled.rows());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return scaled(a, 0) < scaled(b, 0); });
  for (std::size_t a = 0; a < order.size(); ++a) {
    for (std::size_t b = a + 1; b < order.size(); ++b) {
      if (scaled(order[b], 0) - scaled(order[a], 0) > tol) break;
      const double gap = (scaled.row(order[a]) - scaled.row(order[b])).cwiseAbs().maxCoeff();
      if (gap <= tol) {
        std::ostringstream m;
        m << "points " << std::min(order[a], order[b]) << " and " << std::max(order[a], order[b])
          << " (rows, from 0) coincide: remove one (a model is fitted on distinct points)";
        fail(what, m.str());
      }
    }
  }
}

}  // namespace

void check_bounds(const Bounds& bounds, const std::string& what) {
  if (bounds.lower.size() != bounds.upper.size())
    fail(what, "bounds: " + std::to_string(bounds.lower.size()) + " lower but " +
                   std::to_string(bounds.upper.size()) + " upper values");
  if (bounds.lower.size() == 0) fail(what, "bounds: no variables");
  for (int i = 0; i < bounds.size(); ++i) {
    const double lo = bounds.lower(i), up = bounds.upper(i);
    if (!std::isfinite(lo) || !std::isfinite(up))
      fail(what, "bounds of variable " + std::to_string(i) + " are not finite");
    if (!(lo < up)) {
      std::ostringstream m;
      m << "bounds of variable " << i << ": lower " << lo << " is not below upper " << up
        << " (a box of zero or negative width cannot be scaled)";
      fail(what, m.str());
    }
  }
}

void check_training_data(const Eigen::MatrixXd& points, const Eigen::VectorXd& values,
                         const Bounds& bounds, int min_points, const std::string& what) {
  check_bounds(bounds, what);
  if (points.cols() != bounds.size())
    fail(what, "points have " + std::to_string(points.cols()) + " columns but the bounds " +
                   std::to_string(bounds.size()) + " variables");
  if (points.rows() != values.size())
    fail(what, std::to_string(points.rows()) + " points but " + std::to_string(values.size()) +
                   " values");
  for (Eigen::Index i = 0; i < points.rows(); ++i) {
    if (!points.row(i).allFinite())
      fail(what, "point " + std::to_string(i) + " has a non-finite coordinate");
    if (!std::isfinite(values(i)))
      fail(what, "the value at point " + std::to_string(i) + " is not finite");
  }
  if (points.rows() < min_points)
    fail(what, std::to_string(points.rows()) + " points, but at least " +
                   std::to_string(min_points) + " are needed");
  if (points.rows() > 1) check_distinct(to_scaled(points, bounds, true), what);
}

Eigen::MatrixXd to_scaled(const Eigen::MatrixXd& points, const Bounds& bounds, bool unit) {
  const Eigen::RowVectorXd width = (bounds.upper - bounds.lower).transpose();
  Eigen::MatrixXd s =
      (points.rowwise() - bounds.lower.transpose()).array().rowwise() / width.array();
  if (!unit) s = (2.0 * s.array() - 1.0).matrix();
  return s;
}

Eigen::VectorXd predict_in_blocks(
    const Eigen::MatrixXd& points, const Bounds& bounds, const std::string& what,
    const std::function<Eigen::VectorXd(const Eigen::MatrixXd& scaled)>& block) {
  if (points.cols() != bounds.size())
    fail(what, "points have " + std::to_string(points.cols()) + " columns for " +
                   std::to_string(bounds.size()) + " variables");
  const Eigen::MatrixXd u = to_scaled(points, bounds, true);
  Eigen::VectorXd out(u.rows());
  const Eigen::Index size = 1024;
  for (Eigen::Index start = 0; start < u.rows(); start += size) {
    const Eigen::Index k = std::min(size, u.rows() - start);
    out.segment(start, k) = block(u.middleRows(start, k));
  }
  return out;
}

Accuracy accuracy_from_loo(const Eigen::VectorXd& values, const Eigen::VectorXd& loo_residuals) {
  Accuracy a;
  a.loo_residuals = loo_residuals;
  const double m = static_cast<double>(values.size());
  a.press = loo_residuals.squaredNorm();
  a.loo_rms = std::sqrt(a.press / m);
  const double ss_tot = (values.array() - values.mean()).square().sum();
  if (ss_tot > 0.0) {
    a.r2_pred = 1.0 - a.press / ss_tot;
  } else {
    a.r2_pred = std::nan("");
    a.note = "all values are equal (SS_tot = 0): R^2 measures are undefined";
  }
  return a;
}

double Metamodel::value(const Eigen::VectorXd& x) const {
  return predict(x.transpose())(0);
}

}  // namespace sao::metamodel
