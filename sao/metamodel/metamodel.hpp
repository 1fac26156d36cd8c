// Global metamodels (issue 50): the pieces every model shares (docs/metamodels.md).
//
// Conventions of the whole folder:
//  - a set of points is an m x n Eigen matrix, one point per row, in the design variables' own
//    units; the values of one response at those points are an m-vector. A model fits one
//    response; fit one model per response.
//  - every model is given the box (Bounds) of its variables and works internally in scaled
//    variables (polynomials on [-1, 1], radial basis functions and kriging on [0, 1]), so that
//    its coefficients' conditioning and its hyperparameters do not depend on the units.
//    Points outside the box are allowed (they scale beyond the unit range: extrapolation).
//  - bad input (a non-finite coordinate or value, two points that coincide, fewer points than
//    the model needs, a box of zero or negative width, sizes that do not agree) is a
//    std::invalid_argument whose message says what is wrong and where; a model is never
//    fitted silently on such data.
//
// This library links Eigen, NLopt and Boost's headers only: nothing of the optimizer or store.
#pragma once

#include <Eigen/Dense>
#include <functional>
#include <string>

namespace sao::metamodel {

// The box of the design variables: lower_i < upper_i, both finite.
struct Bounds {
  Eigen::VectorXd lower;
  Eigen::VectorXd upper;
  int size() const { return static_cast<int>(lower.size()); }
};

// Throws std::invalid_argument unless lower and upper have the same size n >= 1 and
// lower_i < upper_i with both finite. `what` prefixes the message ("kriging", ...).
void check_bounds(const Bounds& bounds, const std::string& what);

// Checks a training set: points m x n with n == bounds.size(), values of size m, every entry
// finite, no two points closer than 1e-12 of the box's width in every variable (coincident
// points), and m >= min_points. Throws std::invalid_argument naming the offending row(s).
void check_training_data(const Eigen::MatrixXd& points, const Eigen::VectorXd& values,
                         const Bounds& bounds, int min_points, const std::string& what);

// Points mapped linearly from the box to [0, 1]^n (unit = true) or [-1, 1]^n (unit = false).
Eigen::MatrixXd to_scaled(const Eigen::MatrixXd& points, const Bounds& bounds, bool unit);

// The predictions of a model that works on [0, 1]^n (radial basis functions, kriging) at the
// rows of `points` (own units): checks that they have bounds.size() columns (else a
// std::invalid_argument prefixed `what`), scales them, and calls `block` on at most 1024 scaled
// rows at a time (which bounds the kernel or correlation matrix of a large batch), each call
// returning one value per row.
Eigen::VectorXd predict_in_blocks(
    const Eigen::MatrixXd& points, const Bounds& bounds, const std::string& what,
    const std::function<Eigen::VectorXd(const Eigen::MatrixXd& scaled)>& block);

// Accuracy of a fitted model on its own training points, from leave-one-out residuals
// e_i = y_i - yhat_{-i}(x_i) (the point's value minus the prediction of the model fitted
// without it). Each model says how it computes them (closed form or refit).
struct Accuracy {
  Eigen::VectorXd loo_residuals;  // e_i per training point; NaN where undefined
  double press = 0.0;             // sum of e_i^2 (prediction error sum of squares)
  double loo_rms = 0.0;           // sqrt(press / m)
  double r2_pred = 0.0;           // 1 - press / SS_tot, SS_tot = sum (y_i - mean y)^2
  double r2 = 1.0;                // least squares only: 1 - SS_res / SS_tot (1 for interpolants)
  double r2_adjusted = 1.0;       // least squares only: 1 - (1 - R^2)(m - 1)/(m - p)
  std::string note;               // why a measure is NaN, empty otherwise
};

// press, loo_rms and r2_pred from the residuals and the values (r2 and r2_adjusted left at 1).
// SS_tot == 0 (all values equal) makes r2_pred NaN, with a note.
Accuracy accuracy_from_loo(const Eigen::VectorXd& values, const Eigen::VectorXd& loo_residuals);

// A fitted global model of one response.
class Metamodel {
 public:
  virtual ~Metamodel() = default;
  // The prediction at each row of points (m x n, the variables' own units).
  virtual Eigen::VectorXd predict(const Eigen::MatrixXd& points) const = 0;
  // The prediction at one point (n-vector).
  double value(const Eigen::VectorXd& x) const;
  // Leave-one-out residuals and the measures built on them (see each model).
  virtual const Accuracy& accuracy() const = 0;
  virtual const Bounds& bounds() const = 0;
  int variables() const { return bounds().size(); }
};

}  // namespace sao::metamodel
