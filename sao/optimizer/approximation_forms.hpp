// Approximation forms beyond linear (issue 17.4): the shape of r~(b) for each response value.
//
// Every form is built per cycle from the analysis of b0 with sensitivities, in the
// intermediate design variables y_k = phi_k(b_k) of the study, for every response value
// (response, load case, point); a_k = dr/db_k (b0) / phi_k'(b0_k) is the slope in y, and
// w_k = |phi_k(upper_k) - phi_k(lower_k)| the range of y_k over the variable's bounds.
//
//  linear        r~ = r0 + sum_k a_k (y_k - y0_k)                 (LinearApproximation)
//  quadratic     r~ = r0 + sum_k a_k dy_k + 1/2 sum_k c_k dy_k^2,  dy_k = y_k - y0_k
//                Curvature from the most recent earlier analysed design y_p (memory):
//                with a finite gradient row at y_p, the diagonal secant
//                  c_k = (a_p,k - a_k) / dy_p,k    (a_p the slope in y at y_p)
//                for every k with |dy_p,k| > 1e-12 w_k; the other k, and every k without a
//                gradient at y_p, take the spherical curvature in the scaled variables y/w:
//                  c_k = C / w_k^2,  C = 2 [r(y_p) - r0 - a.dy_p] / sum_k (dy_p,k / w_k)^2.
//                Clamped: c_k w_k^2 in [min_curvature S, max_curvature S] (settings; default
//                [0, 1000]), S = |r0| + sum_k |a_k| w_k the response's scale; min_curvature
//                >= 0 keeps the approximation convex. A response that constraints bound from
//                both sides (an equality, or a lower and an upper bound) has no conservative
//                side: its floor is -max_curvature, so a concave equality keeps its curvature.
//                No earlier point: c = 0 (the linear form).
//  quasi_newton  r~ = r0 + a.dy + 1/2 dy' H dy: a full curvature matrix, not separable.
//                H is rebuilt every cycle from the path of analysed designs with gradients
//                (memory.path, oldest first, up to 2 n + 2 of them, then b0), so a restart
//                that replays the cycles should rebuild the same H (not tested). In the scaled
//                variables z_k = y_k / w_k: H0 = (s'g / s's) I from the newest pair (the mean
//                curvature along the last step, Oren-Luenberger's scaling), or, when s'g <= 0, the
//                quadratic form's diagonal above; floored at 1e-6 S (S below); then for each
//                consecutive pair of the path (s = z_{i+1} - z_i, g = the slope difference in z)
//                one BFGS update, skipped when s'g <= 1e-6 S s's (a pair without positive
//                curvature: H stays positive definite and holds only curvature the response
//                showed; Powell's damping, used before, blended such pairs in and made a
//                nonconvex objective's H stiff: HS 111; skipping every pair with s'g < 0.2
//                s'Hs, used until 2026-12-01, also dropped the pairs that correct a too stiff
//                start: the suspension). Where the path's gradients
//                overdetermine H (at least (n + 3) / 2 pairs s_i = z_i - z0, g_i = the slope
//                difference to b0's) and one symmetric H fits all their secants H s_i = g_i by
//                least squares within 1 % (the response is a quadratic over the path), that fit
//                replaces BFGS's matrix: a quadratic's Hessian from about n / 2 steps where BFGS
//                needs about n (approximation_forms.cpp, multi_secant_matrix). Then H's eigenvalues
//                are clamped to [max(min_curvature, 0) S, max_curvature S] (only when one is
//                outside), S the largest response scale at the path's designs (at b0 alone it
//                vanishes next to a minimum of small value and would flatten H there). A path of
//                two or more pairs none of which has positive curvature (BFGS skipped them all:
//                the response is concave where the run goes, HS 111's objective) takes the
//                quadratic form's diagonal with the floor -max_curvature instead, of either sign.
//                Value and gradient exact at b0; convex but for that case. Without an earlier
//                gradient point it is the quadratic form. BFGS of mirror-symmetric steps and
//                gradients is symmetric in exact arithmetic, but on the suspension study the
//                designs lost their symmetry from cycle ~16 (docs/variational.md; a rounding-level
//                asymmetry amplified, and the best symmetric design of that study is a saddle of
//                it, so keeping the symmetry is not the right outcome there).
//  conservative  Svanberg's globally convergent MMA (CCSA, 2002; the 2007 GCMMA notes):
//                r~ = r0 + sum_k [p_k (1/(U_k - y_k) - 1/(U_k - y0_k))
//                                 + q_k (1/(y_k - L_k) - 1/(y0_k - L_k))]
//                p_k = (U_k - y0_k)^2 (1.001 a_k+ + 0.001 a_k- + rho / w_k)
//                q_k = (y0_k - L_k)^2 (0.001 a_k+ + 1.001 a_k- + rho / w_k)
//                (a+ = max(a, 0), a- = max(-a, 0)): value and gradient exact at b0, convex in
//                y on L < y < U (p, q >= 0), and the rho terms add exactly rho d(y) with
//                  d(y) = sum_k (U_k - L_k) dy_k^2 / ((U_k - y_k)(y_k - L_k) w_k) >= 0,
//                so r~ grows with rho everywhere but at b0. Outside (L, U) the value is +inf.
//                The form is applied in y, not in b: MMA's reciprocal terms are themselves a
//                choice of intermediate variable, and a study that says r is nearly linear in
//                1/b keeps that (far asymptotes give back the linear form in y).
//
// Asymptotes L, U (one pair per design variable, shared by every response value, as in MMA):
//   first two cycle starts: L = y0 - 0.5 w, U = y0 + 0.5 w;
//   later: gamma_k = 0.7 if (y0_k - y1_k)(y1_k - y2_k) < 0 (oscillation), 1.2 if > 0, 1 if 0
//   (y1, y2 the two previous distinct cycle starts), L = y0 - gamma (y1 - L1),
//   U = y0 + gamma (U1 - y1); clamped to y0 - 10 w <= L <= y0 - 0.01 w and
//   y0 + 0.01 w <= U <= y0 + 10 w;
//   a cycle redone from the same b0 (a rejected step: GCMMA's inner iteration) keeps them.
//   Then they are pushed out of the subproblem's box [lo, hi] (in y) so that the box is
//   GCMMA's: lo >= L + 0.1 (y0 - L) and hi <= U - 0.1 (U - y0). The subproblem can therefore
//   search the box it is given (move limits and bounds) without meeting an asymptote.
//
// Conservatism rho (one per response value):
//   new cycle start: rho = max(0.1/n sum_k |a_k| w_k, 0.1 rho_last, 1e-6 S) (S = 0: 1e-6);
//   the same b0 again: the rho stored by update_conservatism.
//   update after analysing b*: where r(b*) > r~(b*) + 1e-10 (|r(b*)| + |r~(b*)|),
//   delta = (r(b*) - r~(b*)) / d(y*), rho <- min(1.1 (rho + delta), 10 rho) (the paper's
//   rule: 1.1 makes r~(b*) >= r(b*) unless the 10 rho cap binds, when several rejected cycles
//   raise it further). Conservatism is upward (r~ >= r at b*) for responses bounded from
//   above or minimised, the usual case. A response whose increase can only lower the
//   objective and every constraint's g_hat at b0 (bounded by `lower`, or maximised: found by
//   shifting it in the criteria at b0) is approximated from below instead: the same form
//   applied to -r (r~ = r0 - [terms of -a], concave), and rho raised where r(b*) < r~(b*).
//   A response that enters both ways keeps the upward form.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "sao/optimizer/approximation.hpp"

namespace sao {

struct ResponseKey {
  int response = 0;
  int load_case = 0;
  int point = 0;
  bool operator<(const ResponseKey& o) const;
};

// An analysed design kept for the next cycles: the design variables and the analysis (with
// gradients where they were computed).
struct AnalysedPoint {
  Eigen::VectorXd b;
  Evaluation evaluation;
};

// What the forms keep between cycles; the driver owns one per run and passes it to
// make_approximation (read only) and to remember (after the analysis of b*).
struct ApproximationMemory {
  // Quadratic: the last analysed designs, newest last (at most 2: the cycle start, with
  // gradients, and the proposal).
  std::vector<AnalysedPoint> points;
  // Quasi-Newton: the analysed cycle starts with gradients along the run, oldest first
  // (distinct consecutive designs, at most 2 n + 2).
  std::vector<AnalysedPoint> path;
  // Conservative: the last distinct cycle starts (design variables, newest last, at most 2),
  // the asymptotes used at the newest (in y), and rho per response value at the newest.
  std::vector<Eigen::VectorXd> starts;
  Eigen::VectorXd lower_asymptote, upper_asymptote;
  std::map<ResponseKey, double> rho;
};

// The form of a response: responses[i].form, else the settings' form (`options`: the settings
// the driver follows, never a copy read from the study file).
ApproximationForm response_form(const Study& study, const Options& options, int response);
// True when every response uses the linear form: only then can the subproblem be an LP
// (together with the other conditions of linear_problem).
bool linear_form(const Study& study, const Options& options);

// The approximation of one cycle: each response in its form (a linear response is exactly
// LinearApproximation). Holds references to `study` and `at_b0`: keep both alive.
class Approximation final : public ResponseModel {
 public:
  // at_b0: the analysis of b0 with gradients for every response value asked later;
  // x0: the full variable vector of the cycle start; lower, upper: the box the subproblem
  // searches (design part used; bounds and move limits); memory: from earlier cycles.
  // options: the settings in force (forms and curvature limits).
  Approximation(const Study& study, const Options& options, const Evaluation& at_b0,
                const Eigen::VectorXd& x0, const Eigen::VectorXd& lower,
                const Eigen::VectorXd& upper, const ApproximationMemory& memory);
  ~Approximation() override;

  double value(int response, int load_case, int point, const Eigen::VectorXd& x) const override;
  void add_gradient(int response, int load_case, int point, const Eigen::VectorXd& x, double coef,
                    Eigen::Ref<Eigen::VectorXd> grad) const override;

  const Study& study() const { return study_; }
  const Evaluation& at_b0() const { return at_b0_; }
  const Eigen::VectorXd& b0() const { return b0_; }
  // Conservative form: the asymptotes in y (empty when no response is conservative), the rho
  // of a response value (NaN when it has none) and d(y) at x.
  const Eigen::VectorXd& lower_asymptote() const { return lower_; }
  const Eigen::VectorXd& upper_asymptote() const { return upper_; }
  double rho(const ResponseKey& key) const;
  // Conservative form: +1 when a response is approximated from above (r~ >= r at the points
  // the rho update has seen), -1 from below: -1 when raising it can only lower (never raise)
  // the objective and every constraint's g_hat at b0 (a response bounded by `lower`, or
  // maximised), +1 otherwise.
  double direction(int response) const;
  double distance(const Eigen::VectorXd& x) const;
  // Quadratic form: the curvatures c (in y) of a response value (empty when it has none).
  Eigen::VectorXd curvature(const ResponseKey& key) const;
  // Quasi-Newton form: the curvature matrix H (in y) of a response value (empty when none).
  Eigen::MatrixXd curvature_matrix(const ResponseKey& key) const;
  // The response values in the conservative form that have a gradient at b0.
  std::vector<ResponseKey> conservative_keys() const;
  // True when some response of the study uses `form`.
  bool uses(ApproximationForm form) const;

 private:
  struct Table;  // per (response, load case): the coefficients of every point
  const Table& table(int response, int load_case, int point) const;
  void place_asymptotes(const ApproximationMemory& memory, const Eigen::VectorXd& box_lo,
                        const Eigen::VectorXd& box_hi);
  void build_tables(const ApproximationMemory& memory);
  void find_directions(const Eigen::VectorXd& x0);
  double initial_rho(const ApproximationMemory& memory, const ResponseKey& key, double r0,
                     const Eigen::RowVectorXd& a, bool same_start) const;
  void conservative_terms(const Eigen::RowVectorXd& a, double rho, Eigen::RowVectorXd& p,
                          Eigen::RowVectorXd& q) const;

  const Study& study_;
  const Options options_;
  const Evaluation& at_b0_;
  LinearApproximation linear_;
  Eigen::VectorXd b0_, y0_, width_;
  Eigen::VectorXd lower_, upper_;                            // asymptotes in y
  std::vector<double> directions_;                           // per response, +1 or -1
  std::vector<std::vector<std::unique_ptr<Table>>> tables_;  // [response][load case]
};

// The cycle's approximation (the one place that builds it).
std::unique_ptr<Approximation> make_approximation(
    const Study& study, const Options& options, const Evaluation& at_b0, const Eigen::VectorXd& x0,
    const Eigen::VectorXd& lower, const Eigen::VectorXd& upper, const ApproximationMemory& memory);

// Conservative form, after the analysis of the proposal x_star (at_star; nothing when it
// failed): stores the asymptotes and the cycle start of `used`, and for every response value
// of `used` in the conservative form its rho, raised where r(b*) > r~(b*). Returns how many
// were raised. Idempotent (it starts from the rho of `used`).
int update_conservatism(ApproximationMemory& memory, const Approximation& used,
                        const Eigen::VectorXd& x_star, const Evaluation& at_star);

// After every cycle (its proposal analysed, or failed: at_star.ok == false): calls
// update_conservatism and keeps the cycle start (with its gradients) and the proposal as the
// earlier points of the quadratic form, and the cycle start on the quasi-Newton form's path.
// start_measured false: the start's gradients were modelled (a secant cycle, Driver::approximate):
// nothing of this cycle is kept but the conservatism, and the earlier points without gradients
// are dropped, so that the next start's curvature comes from the last start analysed with them.
void remember(ApproximationMemory& memory, const Approximation& used, const Eigen::VectorXd& x_star,
              const Evaluation& at_star, bool start_measured = true);

}  // namespace sao
