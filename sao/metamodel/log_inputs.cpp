#include "sao/metamodel/log_inputs.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace sao::metamodel {

std::vector<bool> log_scaled_variables(const Bounds& bounds) {
  std::vector<bool> mask(static_cast<size_t>(bounds.size()), false);
  for (int i = 0; i < bounds.size(); ++i) mask[static_cast<size_t>(i)] = bounds.lower(i) > 0.0;
  return mask;
}

Bounds log_bounds(const Bounds& bounds, const std::vector<bool>& mask) {
  check_bounds(bounds, "log-scaled inputs");
  Bounds out = bounds;
  for (int i = 0; i < bounds.size(); ++i) {
    if (!mask[static_cast<size_t>(i)]) continue;
    if (!(bounds.lower(i) > 0.0)) {
      throw std::invalid_argument("log-scaled inputs: variable " + std::to_string(i) +
                                  " has a lower bound <= 0");
    }
    out.lower(i) = std::log(bounds.lower(i));
    out.upper(i) = std::log(bounds.upper(i));
  }
  return out;
}

Eigen::MatrixXd log_points(const Eigen::MatrixXd& points, const std::vector<bool>& mask) {
  Eigen::MatrixXd out = points;
  for (Eigen::Index j = 0; j < points.cols(); ++j) {
    if (j >= static_cast<Eigen::Index>(mask.size()) || !mask[static_cast<size_t>(j)]) continue;
    for (Eigen::Index r = 0; r < points.rows(); ++r) {
      if (!(points(r, j) > 0.0)) {
        throw std::invalid_argument("log-scaled inputs: point " + std::to_string(r) +
                                    " (row, from 0) has variable " + std::to_string(j) +
                                    " <= 0, which has no logarithm");
      }
      out(r, j) = std::log(points(r, j));
    }
  }
  return out;
}

LogInputsModel::LogInputsModel(std::unique_ptr<Metamodel> inner, const Bounds& bounds,
                               std::vector<bool> mask)
    : inner_(std::move(inner)), bounds_(bounds), mask_(std::move(mask)) {
  if (!inner_) throw std::invalid_argument("log-scaled inputs: no inner model");
  if (static_cast<int>(mask_.size()) != bounds_.size() || inner_->variables() != bounds_.size()) {
    throw std::invalid_argument(
        "log-scaled inputs: the mask, the box and the inner model "
        "disagree in the number of variables");
  }
}

Eigen::VectorXd LogInputsModel::predict(const Eigen::MatrixXd& points) const {
  if (points.cols() != bounds_.size()) {
    throw std::invalid_argument("log-scaled inputs: points have " + std::to_string(points.cols()) +
                                " columns, the model " + std::to_string(bounds_.size()) +
                                " variables");
  }
  return inner_->predict(log_points(points, mask_));
}

}  // namespace sao::metamodel
