// The first-order reliability method (FORM; docs/robustness.md): the design point of a limit
// state g(x) (failure: g <= 0) in the independent standard normal space z of a RandomVector, by
// the Hasofer-Lind-Rackwitz-Fiessler iteration
//     z' = [(grad G . z - G) / |grad G|^2] grad G,   G(z) = g(x(z)),
// with Zhang and Der Kiureghian's merit m(z) = |z|^2 / 2 + c |G(z)| (c > |z| / |grad G|): the step
// z' - z is halved until the merit decreases (improved HL-RF), so that the iteration does not
// cycle or diverge on a curved limit state. Converged when |G| <= tol_g (relative to |G(0)|, or
// absolute when G(0) = 0) and z is parallel to grad G (|z - (a . z) a| <= tol_z (1 + |z|),
// a = grad G / |grad G|). beta = sign(G(0)) |z*|, Pf = Phi(-beta); alpha = -grad G / |grad G| at
// z* (so that z* = beta alpha; alpha_i^2 is the share of variable i in the variance of the
// linearised G; with correlated variables alpha refers to the independent z_i).
#pragma once

#include <Eigen/Dense>
#include <functional>
#include <string>

#include "sao/reliability/random_vector.hpp"

namespace sao::reliability {

// g(x) and its gradient with respect to x (n-vector): returns g, fills gradient.
using LimitState = std::function<double(const Eigen::VectorXd& x, Eigen::VectorXd& gradient)>;

struct FormSettings {
  int max_iterations = 100;
  double tol_g = 1e-6;
  double tol_z = 1e-6;
};

struct FormResult {
  bool converged = false;
  std::string message;  // why not, when not converged
  int iterations = 0;
  int evaluations = 0;  // calls of g
  double beta = 0.0;
  double pf = 0.0;
  Eigen::VectorXd z;      // the design point in standard normal space
  Eigen::VectorXd x;      // and in the variables' own units
  Eigen::VectorXd alpha;  // sensitivities (unit vector)
  double g = 0.0;         // g at the last point
};

// FORM from the median point z = 0. Throws std::invalid_argument when g or its gradient is not
// finite at z = 0 or the gradient is zero there; a later non-finite value or a failed search
// ends the iteration with converged = false and the message.
FormResult form(const RandomVector& variables, const LimitState& g,
                const FormSettings& settings = {});

}  // namespace sao::reliability
