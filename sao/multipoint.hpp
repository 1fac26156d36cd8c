// Multi-point approximations for noisy responses (SPEC 5, seed 003 section 3.6).
//
// Replaces step 3 of a cycle (sensitivities) when the study's settings select
// "approximation": "multipoint": the subregion is sized on the design space (3.27) and
// shifted by the direction d and extrapolation factor alpha (3.25-3.26); plan point k moves
// variable k alone from b0 to the subregion edge on its d_k side; the linear approximation
// comes from a fit through b0 and the plan points (interpolation, 3.23-3.24) or, beyond the
// seed, from a weighted least-squares fit over every analysis inside or near the subregion,
// whose residuals also estimate the noise. The fit is handed to LinearApproximation as an
// Evaluation whose values are the fitted values at b0 and whose gradients are the fitted
// slopes, so subproblem, errors and move limits are the ones of the local concept.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "sao/simulator.hpp"
#include "sao/study.hpp"

namespace sao {

// Subregion (3.25)-(3.27) of the design variables: s_i = m_i (bu_i - bl_i),
// lower_i = b0_i - ((1 - d_i + d_i alpha)/2) s_i, upper_i = b0_i + ((1 + d_i - d_i alpha)/2) s_i,
// intersected with the bounds.
void multipoint_subregion(const Study& study, const Eigen::VectorXd& b0,
                          const Eigen::VectorXd& factors, const Eigen::VectorXi& direction,
                          double alpha, Eigen::VectorXd& lower, Eigen::VectorXd& upper);

// Plan point k = b0 with variable k moved to the subregion edge on its d_k side; where that
// edge coincides with b0 (b0 on a bound), the opposite edge is used so that every plan point
// differs from b0.
std::vector<Eigen::VectorXd> plan_points(const Eigen::VectorXd& b0, const Eigen::VectorXd& lower,
                                         const Eigen::VectorXd& upper,
                                         const Eigen::VectorXi& direction);

// Direction update (3.28): d_i = sign(b*_i - centre_i); unchanged where b*_i is the centre.
Eigen::VectorXi next_direction(const Eigen::VectorXd& b_opt, const Eigen::VectorXd& lower,
                               const Eigen::VectorXd& upper, const Eigen::VectorXi& direction);

// Weight of an analysed design for the least-squares fit: 1 inside the subregion, falling
// linearly to 0 at `radius` subregion widths outside it (largest excess over the variables).
double reuse_weight(const Eigen::VectorXd& b, const Eigen::VectorXd& lower,
                    const Eigen::VectorXd& upper, double radius);

// Weighted least-squares fit of r(b) ~ a + g.(b - b0) for q response values at once.
struct LinearFit {
  Eigen::RowVectorXd intercept;     // a, one per response value (q)
  Eigen::MatrixXd slopes;           // n x q
  Eigen::RowVectorXd residual_rms;  // weighted residual RMS per value; 0 when dof == 0
  int dof = 0;                      // points with weight > 0 minus (n + 1)
};
// points: m x n designs; values: m x q; weights: m. Needs at least n + 1 points of positive
// weight spanning the n directions; throws std::invalid_argument otherwise.
LinearFit fit_linear(const Eigen::MatrixXd& points, const Eigen::MatrixXd& values,
                     const Eigen::VectorXd& weights, const Eigen::VectorXd& b0);

// Fits every response of every load case over analysed designs and returns them as an
// Evaluation at b0 (values = intercepts, gradients = slopes) for LinearApproximation.
// `noise_percent` receives the largest residual RMS relative to the response's magnitude
// (percent), or a negative value when the fit has no residual degrees of freedom.
Evaluation fit_evaluation(const std::vector<Eigen::VectorXd>& designs,
                          const std::vector<const Evaluation*>& analyses,
                          const Eigen::VectorXd& weights, const Eigen::VectorXd& b0,
                          double& noise_percent);

}  // namespace sao
