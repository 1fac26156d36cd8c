// Reference gradients (seed 000, IV.C): check the simulator's sensitivities against an
// extrapolated finite-difference scheme that does not share any of their computations.
//
// For each value psi (a scalar response, or a history at one time point) and design variable
// b_k, forward differences D(dp_i) = (psi(b + dp_i e_k) - psi(b)) / dp_i on the mesh
// dp_i = dp_0 / (i + 1) are extrapolated to dp = 0 with the Aitken-Neville scheme (67); the
// order n grows until |P_nn - P_n,n-1| <= eps* (68), or until that change grows (the
// analyses' numerical noise then dominates), or reaches max_order. Every perturbed
// analysis of one order is one simulator batch. `sao check-gradient` prints the table.
#pragma once

#include <string>
#include <vector>

#include "sao/seam/simulator.hpp"
#include "sao/study/study.hpp"

namespace sao {

struct GradientCheckOptions {
  double relative_step = 1e-2;  // dp_0 = relative_step (1 + |b_k|)
  double tolerance = 1e-8;      // eps* of (68), relative to 1 + |P| (seed 000: 1e-8)
  int max_order = 6;
  int point = -1;  // time point of the histories; -1: where |value| is largest at b
};

struct GradientCheckRow {
  std::string response;
  std::string load_case;
  int point = 0;  // 0 for a scalar
  std::string variable;
  std::string unit;           // the response's, as the study declares it ("" for none)
  std::string variable_unit;  // the variable's: the derivatives are in unit / variable_unit
  double value = 0.0;         // psi(b)
  double analytic = 0.0;      // the simulator's derivative
  double reference = 0.0;     // the extrapolated one
  int order = 0;              // n reached
  // true when (68) held at order n; false when a higher order changed the estimate more
  // than the previous one did (noise, or a first step beyond the response's Taylor range:
  // then at a low order the reference can be far from the derivative) or max_order ended it
  bool settled = false;
  double first_step = 0.0;  // dp_0
  // |analytic - reference| / max(|reference|, 1e-6 x the largest |reference| of the same
  // response value, 1e-12)
  double relative_error = 0.0;
};

struct GradientCheck {
  std::vector<GradientCheckRow> rows;
  int analyses = 0;  // simulator evaluations used by the reference
};

// Throws std::runtime_error when an analysis fails.
GradientCheck check_gradients(const Study& study, Simulator& simulator,
                              const Eigen::VectorXd& design, const GradientCheckOptions& options);

}  // namespace sao
