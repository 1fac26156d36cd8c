#include "sao/metamodel/polynomial.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace sao::metamodel {

namespace {

// s^e for the small exponents of the bases (0, 1, 2).
double power(double s, int e) {
  double v = 1.0;
  for (int k = 0; k < e; ++k) v *= s;
  return v;
}

std::vector<Eigen::VectorXi> make_terms(int n, PolynomialOrder order) {
  std::vector<Eigen::VectorXi> terms;
  terms.push_back(Eigen::VectorXi::Zero(n));
  for (int i = 0; i < n; ++i) {
    terms.push_back(Eigen::VectorXi::Zero(n));
    terms.back()(i) = 1;
  }
  if (order == PolynomialOrder::linear) return terms;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      terms.push_back(Eigen::VectorXi::Zero(n));
      terms.back()(i) = 1;
      terms.back()(j) = 1;
    }
  }
  if (order == PolynomialOrder::interactions) return terms;
  for (int i = 0; i < n; ++i) {
    terms.push_back(Eigen::VectorXi::Zero(n));
    terms.back()(i) = 2;
  }
  return terms;
}

}  // namespace

std::string to_string(PolynomialOrder order) {
  switch (order) {
    case PolynomialOrder::linear:
      return "linear";
    case PolynomialOrder::interactions:
      return "interactions";
    case PolynomialOrder::quadratic:
      return "quadratic";
  }
  return "?";
}

PolynomialBasis::PolynomialBasis(const Bounds& bounds, PolynomialOrder order)
    : bounds_(bounds), order_(order) {
  check_bounds(bounds, "polynomial basis");
  terms_ = make_terms(bounds.size(), order);
}

int PolynomialBasis::term_count(int variables, PolynomialOrder order) {
  const int n = variables;
  switch (order) {
    case PolynomialOrder::linear:
      return 1 + n;
    case PolynomialOrder::interactions:
      return 1 + n + n * (n - 1) / 2;
    case PolynomialOrder::quadratic:
      return 1 + 2 * n + n * (n - 1) / 2;
  }
  return 0;
}

std::string PolynomialBasis::term_name(int k) const {
  const Eigen::VectorXi& e = terms_.at(k);
  std::ostringstream s;
  for (int i = 0; i < e.size(); ++i) {
    if (e(i) == 0) continue;
    if (s.tellp() > 0) s << '*';
    s << 'x' << i;
    if (e(i) > 1) s << '^' << e(i);
  }
  return s.tellp() > 0 ? s.str() : "1";
}

Eigen::MatrixXd PolynomialBasis::model_matrix_scaled(const Eigen::MatrixXd& scaled) const {
  if (scaled.cols() != bounds_.size())
    throw std::invalid_argument("polynomial basis: points have " + std::to_string(scaled.cols()) +
                                " columns for " + std::to_string(bounds_.size()) + " variables");
  Eigen::MatrixXd x(scaled.rows(), size());
  for (Eigen::Index r = 0; r < scaled.rows(); ++r) {
    for (int k = 0; k < size(); ++k) {
      double v = 1.0;
      for (int i = 0; i < terms_[k].size(); ++i) v *= power(scaled(r, i), terms_[k](i));
      x(r, k) = v;
    }
  }
  return x;
}

Eigen::MatrixXd PolynomialBasis::model_matrix(const Eigen::MatrixXd& points) const {
  if (points.cols() != bounds_.size())
    throw std::invalid_argument("polynomial basis: points have " + std::to_string(points.cols()) +
                                " columns for " + std::to_string(bounds_.size()) + " variables");
  return model_matrix_scaled(to_scaled(points, bounds_, false));
}

PolynomialModel::PolynomialModel(const Eigen::MatrixXd& points, const Eigen::VectorXd& values,
                                 const Bounds& bounds, PolynomialOrder order)
    : basis_(bounds, order) {
  const std::string what = to_string(order) + " polynomial";
  check_training_data(points, values, bounds, 1, what);
  const Eigen::Index m = points.rows();
  const int p = basis_.size();
  if (m < p) {
    std::ostringstream s;
    s << what << " in " << bounds.size() << " variable(s): " << m << " points for " << p
      << " coefficients (at least " << p << " points are needed)";
    throw std::invalid_argument(s.str());
  }
  const Eigen::MatrixXd x = basis_.model_matrix(points);
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(x);
  qr.setThreshold(1e-10);
  if (qr.rank() < p) {
    std::ostringstream s;
    s << what << " in " << bounds.size() << " variable(s): " << m << " points for " << p
      << " coefficients, but the points determine only " << qr.rank()
      << " of them (rank-deficient model matrix: the points lie on a curve or surface on "
         "which some terms coincide; spread them over the box)";
    throw std::invalid_argument(s.str());
  }
  coefficients_ = qr.solve(values);
  const Eigen::VectorXd residuals = values - x * coefficients_;
  // Hat diagonal h_ii = |row i of the thin Q|^2.
  const Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(m, p);
  const Eigen::VectorXd leverage = q.rowwise().squaredNorm();
  Eigen::VectorXd loo(m);
  bool undefined = false;
  for (Eigen::Index i = 0; i < m; ++i) {
    const double free = 1.0 - leverage(i);
    undefined = undefined || free < 1e-10;
    loo(i) = free < 1e-10 ? std::nan("") : residuals(i) / free;
  }
  accuracy_ = accuracy_from_loo(values, loo);
  if (undefined)
    accuracy_.note = "a point of leverage 1 (it alone fixes a coefficient: " + std::to_string(m) +
                     " points for " + std::to_string(p) +
                     " coefficients) has no leave-one-out residual";
  const double ss_tot = (values.array() - values.mean()).square().sum();
  const double ss_res = residuals.squaredNorm();
  accuracy_.r2 = ss_tot > 0.0 ? 1.0 - ss_res / ss_tot : std::nan("");
  accuracy_.r2_adjusted =
      m > p ? 1.0 - (1.0 - accuracy_.r2) * static_cast<double>(m - 1) / static_cast<double>(m - p)
            : std::nan("");
}

Eigen::VectorXd PolynomialModel::predict(const Eigen::MatrixXd& points) const {
  return basis_.model_matrix(points) * coefficients_;
}

Eigen::VectorXd PolynomialModel::gradient(const Eigen::VectorXd& x) const {
  const Bounds& b = basis_.bounds();
  if (x.size() != b.size())
    throw std::invalid_argument("polynomial gradient: point of size " + std::to_string(x.size()) +
                                " for " + std::to_string(b.size()) + " variables");
  const Eigen::VectorXd s = to_scaled(x.transpose(), b, false).row(0).transpose();
  Eigen::VectorXd g = Eigen::VectorXd::Zero(b.size());
  for (int k = 0; k < basis_.size(); ++k) {
    const Eigen::VectorXi& e = basis_.exponents(k);
    for (int i = 0; i < e.size(); ++i) {
      if (e(i) == 0) continue;
      double d = coefficients_(k) * e(i) * power(s(i), e(i) - 1);
      for (int j = 0; j < e.size(); ++j)
        if (j != i) d *= power(s(j), e(j));
      g(i) += d;
    }
  }
  return (g.array() * 2.0 / (b.upper - b.lower).array()).matrix();
}

}  // namespace sao::metamodel
