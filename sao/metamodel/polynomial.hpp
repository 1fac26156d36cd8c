// Polynomial response surfaces fitted by least squares, and their basis (docs/metamodels.md).
//
// The variables are scaled to [-1, 1] over the bounds (centred: the model matrix of a
// symmetric design is then nearly orthogonal), and the coefficients belong to the scaled
// variables s_i = 2 (x_i - lower_i) / (upper_i - lower_i) - 1.
#pragma once

#include <string>
#include <vector>

#include "sao/metamodel/metamodel.hpp"

namespace sao::metamodel {

enum class PolynomialOrder {
  linear,        // 1, s_i                             p = 1 + n
  interactions,  // 1, s_i, s_i s_j (i < j)             p = 1 + n + n(n-1)/2
  quadratic,     // 1, s_i, s_i s_j (i < j), s_i^2      p = 1 + n + n(n-1)/2 + n
};

// "linear", "interactions", "quadratic".
std::string to_string(PolynomialOrder order);

// The terms of a polynomial of the given order in the variables of a box, in the order listed
// above (constant, linear terms, interactions by (i, j) with i < j, squares).
class PolynomialBasis {
 public:
  // Throws std::invalid_argument for bad bounds (check_bounds).
  PolynomialBasis(const Bounds& bounds, PolynomialOrder order);

  // The number of terms (coefficients) p, for n variables.
  static int term_count(int variables, PolynomialOrder order);
  int size() const { return static_cast<int>(terms_.size()); }
  PolynomialOrder order() const { return order_; }
  const Bounds& bounds() const { return bounds_; }
  // The exponents of term k, one per variable (e.g. (1, 1, 0) for s_0 s_1).
  const Eigen::VectorXi& exponents(int k) const { return terms_.at(k); }
  // "1", "x0", "x0*x2", "x1^2" (variables by index, scaled).
  std::string term_name(int k) const;
  // The model matrix X (m x p): X(r, k) = term k at the scaled row r of points (own units).
  Eigen::MatrixXd model_matrix(const Eigen::MatrixXd& points) const;
  // The terms at scaled points (m x n, already in [-1, 1]).
  Eigen::MatrixXd model_matrix_scaled(const Eigen::MatrixXd& scaled) const;

 private:
  Bounds bounds_;
  PolynomialOrder order_;
  std::vector<Eigen::VectorXi> terms_;
};

// A polynomial fitted by least squares (Householder QR with column pivoting).
//  - fewer points than coefficients, or points that do not determine every coefficient (rank
//    deficiency: e.g. all points on one line for a linear model of two variables) throw
//    std::invalid_argument saying "N points for M coefficients" and the rank found;
//  - accuracy(): leave-one-out residuals in closed form from the hat matrix H = X (X'X)^-1 X',
//    e_i = r_i / (1 - h_ii) (exactly the residual of the fit without point i); PRESS, LOO RMS,
//    R^2_pred, and R^2 and adjusted R^2. A point of leverage h_ii = 1 (it alone fixes a
//    coefficient, as every point of a saturated design with m == p) has no leave-one-out
//    residual: NaN, and the note says so; adjusted R^2 is NaN when m == p.
class PolynomialModel : public Metamodel {
 public:
  PolynomialModel(const Eigen::MatrixXd& points, const Eigen::VectorXd& values,
                  const Bounds& bounds, PolynomialOrder order);

  Eigen::VectorXd predict(const Eigen::MatrixXd& points) const override;
  const Accuracy& accuracy() const override { return accuracy_; }
  const Bounds& bounds() const override { return basis_.bounds(); }
  const PolynomialBasis& basis() const { return basis_; }
  // One coefficient per basis term, for the scaled variables.
  const Eigen::VectorXd& coefficients() const { return coefficients_; }
  // The gradient of the fitted polynomial at x with respect to the variables in their own units.
  Eigen::VectorXd gradient(const Eigen::VectorXd& x) const;

 private:
  PolynomialBasis basis_;
  Eigen::VectorXd coefficients_;
  Accuracy accuracy_;
};

}  // namespace sao::metamodel
