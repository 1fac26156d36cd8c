// Radial basis function interpolation (docs/metamodels.md, "Radial basis functions").
//
// s(x) = sum_j w_j phi(|u - u_j|) + polynomial tail(u), u the point scaled to [0, 1]^n, with
// the weights orthogonal to the tail (sum_j w_j q(u_j) = 0 for every tail term q): the model
// passes through every training value. Kernels, with r the distance and c the shape:
//   cubic         r^3                   needs a linear tail (default tail: linear)
//   thin_plate    r^2 log r             needs a linear tail (default tail: linear)
//   multiquadric  sqrt(r^2 + c^2)       needs a constant tail (default tail: constant)
//   gaussian      exp(-(r / c)^2)       needs none (default tail: constant)
#pragma once

#include "sao/metamodel/metamodel.hpp"

namespace sao::metamodel {

enum class RbfKernel { cubic, thin_plate, multiquadric, gaussian };
enum class RbfTail { automatic, none, constant, linear };

struct RbfSettings {
  RbfKernel kernel = RbfKernel::cubic;
  RbfTail tail = RbfTail::automatic;  // a tail below the kernel's need is an invalid_argument
  // Shape c of multiquadric and gaussian kernels, in the scaled unit [0, 1] of the variables.
  // 0: chosen among 24 values from 0.02 to 2 (geometric) as the one of least leave-one-out
  // RMS (the closed form below), skipping values whose system is numerically singular.
  double shape = 0.0;
};

// An interpolating radial basis function model. The system [Phi P; P' 0] [w; a] = [y; 0] is
// solved by QR with column pivoting; a numerically singular system (e.g. too few points, or
// points on a line for a linear tail of two variables), or one whose solution reproduces the
// values no better than 1e-10 of their largest magnitude, throws std::invalid_argument.
// accuracy(): the closed-form leave-one-out residuals e_i = w_i / (A^-1)_ii, A the full system
// matrix (Rippa's formula; with the tail refitted without the point, the shape kept fixed).
class RbfModel : public Metamodel {
 public:
  RbfModel(const Eigen::MatrixXd& points, const Eigen::VectorXd& values, const Bounds& bounds,
           const RbfSettings& settings = {});

  Eigen::VectorXd predict(const Eigen::MatrixXd& points) const override;
  const Accuracy& accuracy() const override { return accuracy_; }
  const Bounds& bounds() const override { return bounds_; }
  RbfKernel kernel() const { return kernel_; }
  RbfTail tail() const { return tail_; }   // the tail used (never automatic)
  double shape() const { return shape_; }  // the shape used (0 for cubic and thin plate)
  const Eigen::VectorXd& weights() const { return weights_; }

 private:
  Bounds bounds_;
  RbfKernel kernel_;
  RbfTail tail_;
  double shape_ = 0.0;
  Eigen::MatrixXd centres_;  // scaled training points
  Eigen::VectorXd weights_;
  Eigen::VectorXd tail_coefficients_;
  Accuracy accuracy_;
};

}  // namespace sao::metamodel
