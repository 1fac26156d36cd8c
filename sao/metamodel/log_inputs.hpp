// A model fitted on the logarithms of the positive variables (docs/metamodels.md, "Log-scaled
// inputs"): a variable whose lower bound is positive enters the inner model as log(x), the
// others as they are. A response that changes most at the small end of a wide range (a damper
// coefficient over 1:30, a stiffness over decades) is then spread evenly over the inner model's
// scaled box, where a stationary kriging process with one length scale per variable can follow
// it. The inner model is any Metamodel (fitted by the caller on the transformed points and box,
// log_points and log_bounds); predictions, accuracy and bounds are in the variables' own units
// (the leave-one-out residuals are the inner model's: the values are not transformed).
#pragma once

#include <memory>
#include <vector>

#include "sao/metamodel/metamodel.hpp"

namespace sao::metamodel {

// Per variable: whether it is modelled on a log scale (lower bound > 0). None: no variable has
// a positive lower bound, and a log-scaled model is not a candidate.
std::vector<bool> log_scaled_variables(const Bounds& bounds);

// The box and points with the masked variables replaced by their logarithms. Points must lie in
// (0, infinity) in those variables (a design in the box does); throws std::invalid_argument
// naming the row and variable otherwise.
Bounds log_bounds(const Bounds& bounds, const std::vector<bool>& mask);
Eigen::MatrixXd log_points(const Eigen::MatrixXd& points, const std::vector<bool>& mask);

class LogInputsModel final : public Metamodel {
 public:
  // inner: fitted on log_points(points, mask) in log_bounds(bounds, mask).
  LogInputsModel(std::unique_ptr<Metamodel> inner, const Bounds& bounds, std::vector<bool> mask);
  Eigen::VectorXd predict(const Eigen::MatrixXd& points) const override;
  const Accuracy& accuracy() const override { return inner_->accuracy(); }
  const Bounds& bounds() const override { return bounds_; }
  const Metamodel& inner() const { return *inner_; }

 private:
  std::unique_ptr<Metamodel> inner_;
  Bounds bounds_;
  std::vector<bool> mask_;
};

}  // namespace sao::metamodel
