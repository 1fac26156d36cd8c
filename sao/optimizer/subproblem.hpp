// The approximate subproblem of one cycle and its solution (SPEC 2.4-2.5, seed 003 3.5).
//
// One assembly serves every solver: ApproximateProblem holds the subregion (move limits
// intersected with the bounds; auxiliaries only bounded), the approximated objective and the
// retained constraint rows g_hat~_j(x) <= 0, each with a value and a gradient at any x. When
// every function is linear the LP path (GLPK) reads the coefficients from one gradient
// evaluation at x0; the NLP path (NLopt, with explicit relations) calls the same functions.
// If the subproblem is infeasible, it is solved in two stages (options.feasibility_first,
// phase 1): the least b_r with g_hat~_j <= b_r inside the subregion, then the least F~ with
// g_hat~_j <= b_r (plus 1e-8 (1 + b_r)). With the seed's strategy, the relaxed problem
//   minimise F~ + beta b_r  s.t.  g_hat~_j <= b_r,  b_r >= 0
// is solved instead. Either way the result is marked relaxed.
#pragma once

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "sao/study/criteria.hpp"
#include "sao/study/options.hpp"
#include "sao/study/study.hpp"

namespace sao {

// One retained row: constraint j at time point p, normalised by N (fixed for the cycle).
struct RetainedRow {
  int constraint = 0;
  int point = 0;
  double normaliser = 1.0;
};

struct ApproximateProblem {
  const Study* study = nullptr;
  const ResponseModel* model = nullptr;  // the approximation
  Eigen::VectorXd x0;                    // cycle start, full vector
  Eigen::VectorXd lower, upper;          // subregion, full vector (auxiliaries: their bounds)
  std::vector<RetainedRow> rows;
  bool linear = true;  // every function linear in x: the LP path applies
  // Further starts of the NLP path besides x0: designs where the approximation is exact, the
  // multi-point plan points (a nonsmooth relation such as clip3ms can hold a local solver at a
  // stationary point of x0 while a plan point shows a better design; the best result is kept).
  std::vector<Eigen::VectorXd> starts;
  // The Lagrangian's curvature the approximations miss (lagrangian_curvature.hpp), in the
  // design variables: objective() adds 1/2 (b - b0)' C (b - b0). Empty: none.
  Eigen::MatrixXd curvature;
  // Per row, added to its g_hat~: a second-order correction's shift (the approximation's error
  // at a rejected proposal, Driver::correct_step). Empty: none.
  Eigen::VectorXd shift;

  // F~(x) + the curvature term: what the subproblem minimises and the merit predicts.
  double objective(const Eigen::VectorXd& x) const;
  Eigen::VectorXd objective_gradient(const Eigen::VectorXd& x) const;
  // F~(x) alone: the approximation of the objective (its error Ef).
  double approximate_objective(const Eigen::VectorXd& x) const;
  double row_value(size_t row, const Eigen::VectorXd& x) const;  // g_hat~ of the row
  // g_hat~ of every row, and with `jacobian` their exact gradients (one row each); the rows of
  // one constraint share one evaluation of its relation.
  Eigen::VectorXd row_values(const Eigen::VectorXd& x, Eigen::MatrixXd* jacobian = nullptr) const;
};

// True when the approximate problem over these rows is linear in x (the LP path applies):
// identity intermediate variables, and linear explicit relations in the objective and rows.
bool linear_problem(const Study& study, const std::vector<RetainedRow>& rows);

// Half the width of variable v's subregion around b0 for move-limit factor m, before the
// bounds: m |b0| (3.20), or m (upper - lower) / 2 with range sizing (3.27). `floored` (the
// trust-region strategy): m max(|b0|, 0.1 (upper - lower)), so that a relative subregion does
// not vanish as a variable approaches zero (it would crawl there, or across it, geometrically).
constexpr double kRelativeSizeFloor = 0.1;
double move_half_width(const DesignVariable& v, double factor, double b0, bool floored = false);

// Builds the subregion of (3.20)-(3.22) or (3.27) around x0 for design variables with
// move-limit factors m, intersected with the bounds; auxiliaries keep their own bounds.
void set_subregion(const Study& study, const Eigen::VectorXd& factors, ApproximateProblem& problem,
                   bool floored = false);

enum class SubproblemStatus { kOptimal, kRelaxed, kFailed };
const char* to_string(SubproblemStatus status);

struct SubproblemResult {
  SubproblemStatus status = SubproblemStatus::kFailed;
  Eigen::VectorXd x;        // the proposed optimum b* (full vector)
  double objective = 0.0;   // F~(x)
  double relaxation = 0.0;  // b_r when relaxed (phase 1: the least violation of the subregion)
  std::string solver;       // "GLPK simplex", "NLopt SLSQP" or "NLopt MMA"
  std::string message;      // why it failed
};

// The LP path: min c.x s.t. A x <= rhs (relaxed: A x - b_r <= rhs on every row, b_r >= 0 with
// cost beta), lower <= x <= upper, by GLPK's simplex (retried with the dual simplex and in exact
// arithmetic on numerical trouble). kOptimal only when x satisfies every row in double
// precision to 1e-6 (1 + |rhs_i|): GLPK's own test is made in its scaled problem. x (nx values)
// and relaxation (b_r) are set only on kOptimal; message says why on kUnbounded and kError.
enum class LpOutcome { kOptimal, kInfeasible, kUnbounded, kError };
LpOutcome solve_lp(const Eigen::VectorXd& c, const Eigen::MatrixXd& A, const Eigen::VectorXd& rhs,
                   const Eigen::VectorXd& lower, const Eigen::VectorXd& upper, bool relaxed,
                   double beta, Eigen::VectorXd& x, double& relaxation, std::string& message);

// Solves the problem (LP when linear); never throws for solver failures.
SubproblemResult solve_subproblem(const ApproximateProblem& problem, const Options& options);

}  // namespace sao
