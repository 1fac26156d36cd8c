// Multi-point approximations for noisy responses (SPEC 5, seed 003 section 3.6).
//
// Replaces step 3 of a cycle (sensitivities) when the study's settings select
// "approximation": "multipoint": the subregion is sized on the design space (3.27) and
// shifted by the direction d and extrapolation factor alpha (3.25-3.26); plan point k moves
// variable k alone from b0 to the subregion edge on its d_k side; the linear approximation
// comes from a fit through b0 and the plan points (interpolation, 3.23-3.24) or, beyond the
// seed, from a weighted least-squares fit over every analysis inside or near the subregion
// (through r(b0), and the interpolation kept where the plan's own differences stand out of
// the noise: ReuseRule), whose residuals also estimate the noise. The fit is handed to
// LinearApproximation as an Evaluation whose values are the fitted values at b0 and whose
// gradients are the fitted slopes, so subproblem, errors and move limits are the ones of
// the local concept.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "sao/seam/simulator.hpp"
#include "sao/study/study.hpp"

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
  int dof = 0;                      // points with weight > 0 minus the fitted coefficients
};
// points: m x n designs; values: m x q; weights: m. Needs at least n + 1 points of positive
// weight spanning the n directions; throws std::invalid_argument otherwise.
// through_first: the fit passes exactly through the first point (whatever its weight), the
// other points fix the slopes only: r(b) ~ r(p_0) + g.(b - p_0), dof = used - 1 - n, and
// residuals are those of the other points (each carries the first point's noise too).
LinearFit fit_linear(const Eigen::MatrixXd& points, const Eigen::MatrixXd& values,
                     const Eigen::VectorXd& weights, const Eigen::VectorXd& b0,
                     bool through_first = false);

// How a least-squares fit re-uses earlier analyses (fit "least_squares"; docs/study-format.md):
// point 0 is b0, points 1..plan_points this cycle's plan points, the rest earlier analyses
// with their reuse_weight. The fit interpolates r(b0) exactly (slopes only from the others),
// and a response value keeps the plan's own interpolation slopes when every plan difference
// |r(b^k) - r(b0)| exceeds significance * sqrt(2) * sigma, sigma = noise * the response's
// magnitude: the plan already measures that slope above the noise, and older, farther
// points would only add their curvature. plan_points == 0: a plain weighted fit (no rule).
struct ReuseRule {
  int plan_points = 0;
  double noise = 0.0;         // noise standard deviation, fraction of the response's magnitude;
                              // 0: unknown, the least-squares slopes are used everywhere
  double significance = 2.0;  // in standard deviations of a difference of two analyses
};

// True when every plan difference exceeds significance * sqrt(2) * sigma (sigma > 0): the
// interpolation through b0 and the plan points is kept for that response value.
bool plan_slopes_significant(const Eigen::VectorXd& plan_differences, double sigma,
                             double significance);

// Fits every response of every load case over analysed designs and returns them as an
// Evaluation at b0 (values = intercepts, gradients = slopes) for LinearApproximation.
// `noise_percent` receives the largest residual RMS of the plain weighted fit (free
// intercept) relative to the response's magnitude (percent), or a negative value when the
// fit has no residual degrees of freedom. `rule`: see ReuseRule.
Evaluation fit_evaluation(const std::vector<Eigen::VectorXd>& designs,
                          const std::vector<const Evaluation*>& analyses,
                          const Eigen::VectorXd& weights, const Eigen::VectorXd& b0,
                          double& noise_percent, const ReuseRule& rule = {});

}  // namespace sao
