// Evaluating criteria (objective and constraints) on a response model.
//
// The same criterion is evaluated on the exact responses of an analysis (screening, errors,
// violation) and on their approximation (the subproblem). A ResponseModel hides which one:
// the exact model reads an Evaluation; the approximation (approximation.hpp) also gives
// gradients. x is the full variable vector: design variables first, then auxiliaries.
#pragma once

#include <Eigen/Dense>

#include "sao/seam/simulator.hpp"
#include "sao/study/study.hpp"

namespace sao {

class ResponseModel {
 public:
  virtual ~ResponseModel() = default;
  // Value of `response` in `load_case` at time point `point` (0 for a scalar) at x.
  virtual double value(int response, int load_case, int point, const Eigen::VectorXd& x) const = 0;
  // grad += coef * d value / dx.
  virtual void add_gradient(int response, int load_case, int point, const Eigen::VectorXd& x,
                            double coef, Eigen::Ref<Eigen::VectorXd> grad) const = 0;
};

// The responses of one analysis. Has no gradient (calling add_gradient is a logic error).
class ExactResponses final : public ResponseModel {
 public:
  ExactResponses(const Study& study, const Evaluation& evaluation);
  double value(int response, int load_case, int point, const Eigen::VectorXd& x) const override;
  void add_gradient(int, int, int, const Eigen::VectorXd&, double,
                    Eigen::Ref<Eigen::VectorXd>) const override;

 private:
  const Study& study_;
  const Evaluation& evaluation_;
};

// Number of points a criterion is evaluated on: the points of its series, or 1.
int criterion_points(const Study& study, const Criterion& criterion);

double criterion_value(const Study& study, const Criterion& criterion, int point,
                       const Eigen::VectorXd& x, const ResponseModel& model);
// The criterion at every one of its points (one evaluation pass: shared reductions once).
Eigen::VectorXd criterion_values(const Study& study, const Criterion& criterion,
                                 const Eigen::VectorXd& x, const ResponseModel& model);
// The largest |term| of the criterion's outermost sum over all its points at x
// (expr::Evaluator::term_magnitude): its size where its value cancels to about 0.
double largest_term(const Study& study, const Criterion& criterion, const Eigen::VectorXd& x,
                    const ResponseModel& model);
// grad (size n_total) += d criterion / dx, exact (automatic differentiation of the relation).
void add_criterion_gradient(const Study& study, const Criterion& criterion, int point,
                            const Eigen::VectorXd& x, const ResponseModel& model,
                            Eigen::Ref<Eigen::VectorXd> grad);

// The bound c of a constraint at x (a number, or an auxiliary variable).
double constraint_bound(const Study& study, const Constraint& constraint, const Eigen::VectorXd& x);
// A bound of at most this magnitude is zero: the constraint is normalised by `scale`.
constexpr double kZeroBound = 1e-12;
// The normaliser N of g_hat = s (g - c) / N at x: |c|, or `scale` when c is (near) zero.
double constraint_normaliser(const Study& study, const Constraint& constraint,
                             const Eigen::VectorXd& x);
// g_hat = (s (g - c) + margin) / N at one point with a given normaliser (s = +1 for <=, -1 for
// >=; margin: the constraint's reliability margin, 0 unless the driver set one).
double normalised_constraint(const Study& study, const Constraint& constraint, int point,
                             const Eigen::VectorXd& x, const ResponseModel& model,
                             double normaliser);
// g_hat at the given points, with one evaluation of the relation (shared reductions once);
// with `gradients`, also d g_hat / dx as one row per point (exact).
Eigen::VectorXd normalised_constraint_points(const Study& study, const Constraint& constraint,
                                             const std::vector<int>& points,
                                             const Eigen::VectorXd& x, const ResponseModel& model,
                                             double normaliser, Eigen::MatrixXd* gradients);
// g_hat at every point of the constraint, normalised at `normalise_at` (x when null).
Eigen::VectorXd normalised_history(const Study& study, const Constraint& constraint,
                                   const Eigen::VectorXd& x, const ResponseModel& model,
                                   const Eigen::VectorXd* normalise_at = nullptr);

// V: the largest g_hat over every constraint and point at x, in percent (negative when all
// hold with margin; -100 without constraints). With `normalise_at`, every constraint is
// normalised as at that design (the trust region judges b* in the units of b0's rows: a
// constraint bounded by an auxiliary is normalised by the auxiliary's value).
double max_violation(const Study& study, const Eigen::VectorXd& x, const ResponseModel& model,
                     const Eigen::VectorXd* normalise_at = nullptr);

// Per auxiliary variable, the largest value it bounds at x (the maximum over the points of
// the constraints `q <= b_aux`: the bound formulation's max); -infinity where it bounds none.
Eigen::VectorXd bounded_maxima(const Study& study, const Eigen::VectorXd& x,
                               const ResponseModel& model);
// x with each auxiliary variable that bounds constraints set to the largest value it bounds
// there (bounded_maxima; the others as in x): the design as the bound formulation means it, whose
// objective is the real maximum and whose bound constraints hold exactly. What a run reports as
// the objective of an analysed design whose auxiliaries the subproblem did not choose (the start
// design, the best feasible design analysed).
Eigen::VectorXd with_bounded_maxima(const Study& study, const Eigen::VectorXd& x,
                                    const ResponseModel& model);

// The objective as the user sees it (sign restored for maximisation).
double user_objective(const Study& study, double internal_value);
// One objective of a study (study.objective or an entry of study.objectives) at x as the user
// sees it (sign restored for maximisation); not for the bound formulation.
double objective_value(const Study& study, const Objective& objective, const Eigen::VectorXd& x,
                       const ResponseModel& model);

}  // namespace sao
