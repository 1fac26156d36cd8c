#include "sao/reliability/form.hpp"

#include <cmath>
#include <stdexcept>

namespace sao::reliability {
namespace {

struct Point {
  Eigen::VectorXd z;
  double g = 0.0;
  Eigen::VectorXd grad;  // of G with respect to z
  bool finite = false;
};

Point evaluate(const RandomVector& v, const LimitState& g, const Eigen::VectorXd& z, int& calls) {
  Point p;
  p.z = z;
  const Eigen::VectorXd x = v.to_x(z);
  Eigen::VectorXd gx = Eigen::VectorXd::Zero(v.size());
  p.g = g(x, gx);
  ++calls;
  p.grad = v.jacobian(z).transpose() * gx;
  p.finite = std::isfinite(p.g) && p.grad.allFinite();
  return p;
}

// The HL-RF step's direction at p: the projection point minus z.
Eigen::VectorXd direction(const Point& p) {
  const double n2 = p.grad.squaredNorm();
  return ((p.grad.dot(p.z) - p.g) / n2) * p.grad - p.z;
}

void finish(const RandomVector& v, const Point& p, double sign, FormResult& r) {
  r.z = p.z;
  r.x = v.to_x(p.z);
  r.g = p.g;
  r.alpha = -p.grad / p.grad.norm();
  r.beta = sign * p.z.norm();
  r.pf = normal_cdf(-r.beta);
}

}  // namespace

FormResult form(const RandomVector& variables, const LimitState& g, const FormSettings& settings) {
  FormResult r;
  Point p = evaluate(variables, g, Eigen::VectorXd::Zero(variables.size()), r.evaluations);
  if (!p.finite) throw std::invalid_argument("FORM: g or its gradient is not finite at the median");
  if (!(p.grad.norm() > 0))
    throw std::invalid_argument("FORM: the gradient of g is zero at the median");
  const double g0 = std::abs(p.g) > 0 ? std::abs(p.g) : 1.0;
  const double sign = p.g >= 0 ? 1.0 : -1.0;
  for (r.iterations = 0; r.iterations < settings.max_iterations; ++r.iterations) {
    const double gn = p.grad.norm();
    const Eigen::VectorXd a = p.grad / gn;
    const bool on_surface = std::abs(p.g) <= settings.tol_g * g0;
    const bool parallel = (p.z - a.dot(p.z) * a).norm() <= settings.tol_z * (1.0 + p.z.norm());
    if (on_surface && parallel) {
      r.converged = true;
      finish(variables, p, sign, r);
      return r;
    }
    const Eigen::VectorXd d = direction(p);
    const double c = 2.0 * p.z.norm() / gn + 10.0;
    const double merit = 0.5 * p.z.squaredNorm() + c * std::abs(p.g);
    // Descent of the merit along d: its slope is z.d - c |G|-decrease (Zhang & Der Kiureghian).
    double step = 1.0;
    Point next;
    bool accepted = false;
    for (int halving = 0; halving < 30 && !accepted; ++halving, step *= 0.5) {
      next = evaluate(variables, g, p.z + step * d, r.evaluations);
      if (!next.finite || !(next.grad.norm() > 0)) continue;
      const double m = 0.5 * next.z.squaredNorm() + c * std::abs(next.g);
      accepted = m < merit || (step * d).norm() <= settings.tol_z * (1.0 + p.z.norm());
    }
    if (!accepted) {
      finish(variables, p, sign, r);
      r.message = "the merit function did not decrease along the HL-RF direction (iteration " +
                  std::to_string(r.iterations + 1) + ")";
      return r;
    }
    p = next;
  }
  finish(variables, p, sign, r);
  r.message = "not converged in " + std::to_string(settings.max_iterations) + " iterations (|g| " +
              std::to_string(std::abs(p.g)) + ")";
  return r;
}

}  // namespace sao::reliability
