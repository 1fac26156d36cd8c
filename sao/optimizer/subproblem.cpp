#include "sao/optimizer/subproblem.hpp"

#include <nlopt.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include "sao/optimizer/approximation.hpp"
#include "sao/optimizer/glpk_problem.hpp"

namespace sao {

double ApproximateProblem::approximate_objective(const Eigen::VectorXd& x) const {
  return criterion_value(*study, study->objective.f, 0, x, *model);
}

double ApproximateProblem::objective(const Eigen::VectorXd& x) const {
  const double F = approximate_objective(x);
  if (curvature.size() == 0) return F;
  const Eigen::VectorXd d = (x - x0).head(curvature.rows());
  return F + 0.5 * d.dot(curvature * d);
}

Eigen::VectorXd ApproximateProblem::objective_gradient(const Eigen::VectorXd& x) const {
  Eigen::VectorXd grad = Eigen::VectorXd::Zero(x.size());
  add_criterion_gradient(*study, study->objective.f, 0, x, *model, grad);
  if (curvature.size() > 0) {
    grad.head(curvature.rows()) += curvature * (x - x0).head(curvature.rows());
  }
  return grad;
}

double ApproximateProblem::row_value(size_t row, const Eigen::VectorXd& x) const {
  const RetainedRow& r = rows[row];
  const double value = normalised_constraint(*study, study->constraints[r.constraint], r.point, x,
                                             *model, r.normaliser);
  return shift.size() > 0 ? value + shift(static_cast<Eigen::Index>(row)) : value;
}

Eigen::VectorXd ApproximateProblem::row_values(const Eigen::VectorXd& x,
                                               Eigen::MatrixXd* jacobian) const {
  Eigen::VectorXd values(rows.size());
  if (jacobian) jacobian->resize(static_cast<Eigen::Index>(rows.size()), x.size());
  Eigen::MatrixXd block;
  // Consecutive rows of one constraint (screening emits them together) share an evaluation.
  for (size_t first = 0; first < rows.size();) {
    size_t last = first;
    std::vector<int> points;
    while (last < rows.size() && rows[last].constraint == rows[first].constraint &&
           rows[last].normaliser == rows[first].normaliser) {
      points.push_back(rows[last++].point);
    }
    const auto at = static_cast<Eigen::Index>(first);
    const auto count = static_cast<Eigen::Index>(last - first);
    values.segment(at, count) =
        normalised_constraint_points(*study, study->constraints[rows[first].constraint], points, x,
                                     *model, rows[first].normaliser, jacobian ? &block : nullptr);
    if (jacobian) jacobian->middleRows(at, count) = block;
    first = last;
  }
  if (shift.size() > 0) values += shift;
  return values;
}

bool linear_problem(const Study& study, const std::vector<RetainedRow>& rows) {
  if (!all_identity(study) || !study.objective.f.linear()) return false;
  return std::all_of(rows.begin(), rows.end(), [&](const RetainedRow& row) {
    return study.constraints[row.constraint].g.linear();
  });
}

double move_half_width(const DesignVariable& v, double factor, double b0, bool floored) {
  if (v.range_sizing) return 0.5 * factor * v.span();  // (3.27)
  const double floor = floored ? kRelativeSizeFloor * v.span() : 0.0;
  return factor * std::max(std::abs(b0), floor);  // (3.20)
}

void set_subregion(const Study& study, const Eigen::VectorXd& factors, ApproximateProblem& problem,
                   bool floored) {
  study.variable_bounds(problem.lower, problem.upper);  // auxiliaries keep their bounds
  for (int i = 0; i < study.n_design(); ++i) {
    const DesignVariable& v = study.design[i];
    const double b0 = problem.x0(i);
    const double half = move_half_width(v, factors(i), b0, floored);
    problem.lower(i) = std::clamp(b0 - half, v.lower, v.upper);
    problem.upper(i) = std::clamp(b0 + half, v.lower, v.upper);
  }
}

const char* to_string(SubproblemStatus status) {
  switch (status) {
    case SubproblemStatus::kOptimal:
      return "optimal";
    case SubproblemStatus::kRelaxed:
      return "relaxed";
    case SubproblemStatus::kFailed:
      return "failed";
  }
  return "?";
}

namespace {

constexpr double kFeasibility = 1e-6;  // largest g_hat~ accepted as satisfied (1e-4 %)

// The largest violation of A x (- b_r) <= rhs at GLPK's current primal values, in the units of
// the rows (normalised constraints), measured in double precision from the original data.
double lp_row_violation(glp_prob* lp, const Eigen::MatrixXd& A, const Eigen::VectorXd& rhs,
                        bool relaxed) {
  if (A.rows() == 0) return 0.0;
  const auto nx = A.cols();
  Eigen::VectorXd x(nx);
  for (Eigen::Index j = 0; j < nx; ++j) x(j) = glp_get_col_prim(lp, static_cast<int>(j) + 1);
  Eigen::VectorXd rows = A * x - rhs;
  if (relaxed) rows.array() -= glp_get_col_prim(lp, static_cast<int>(nx) + 1);
  return (rows.array() / (1.0 + rhs.array().abs())).maxCoeff();
}

// The LP of solve_lp in GLPK's form (the columns, then b_r when relaxed; one row per row of A).
GlpkProblem build_lp(const Eigen::VectorXd& c, const Eigen::MatrixXd& A, const Eigen::VectorXd& rhs,
                     const Eigen::VectorXd& lower, const Eigen::VectorXd& upper, bool relaxed,
                     double beta) {
  GlpkProblem lp(glp_create_prob());
  const int nx = static_cast<int>(c.size());
  const int ncols = nx + (relaxed ? 1 : 0);
  const int nrows = static_cast<int>(A.rows());
  glp_set_obj_dir(lp.get(), GLP_MIN);
  glp_add_cols(lp.get(), ncols);
  for (int j = 0; j < nx; ++j) {
    const bool lo = std::isfinite(lower(j)), up = std::isfinite(upper(j));
    int type = GLP_FR;
    if (lo && up)
      type = lower(j) == upper(j) ? GLP_FX : GLP_DB;
    else if (lo)
      type = GLP_LO;
    else if (up)
      type = GLP_UP;
    glp_set_col_bnds(lp.get(), j + 1, type, lo ? lower(j) : 0.0, up ? upper(j) : 0.0);
    glp_set_obj_coef(lp.get(), j + 1, c(j));
  }
  if (relaxed) {
    glp_set_col_bnds(lp.get(), ncols, GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(lp.get(), ncols, beta);
  }
  if (nrows > 0) {
    glp_add_rows(lp.get(), nrows);
    std::vector<int> ia{0}, ja{0};
    std::vector<double> ar{0.0};
    for (int i = 0; i < nrows; ++i) {
      glp_set_row_bnds(lp.get(), i + 1, GLP_UP, 0.0, rhs(i));
      for (int j = 0; j < nx; ++j) {
        if (A(i, j) == 0.0) continue;
        ia.push_back(i + 1);
        ja.push_back(j + 1);
        ar.push_back(A(i, j));
      }
      if (relaxed) {
        ia.push_back(i + 1);
        ja.push_back(ncols);
        ar.push_back(-1.0);
      }
    }
    glpk_call([&] {
      glp_load_matrix(lp.get(), static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
    });
  }
  return lp;
}

// solve_lp's work, GLPK's fatal errors as GlpkError; GLPK's automatic scaling when `scale`.
LpOutcome glpk_lp(const Eigen::VectorXd& c, const Eigen::MatrixXd& A, const Eigen::VectorXd& rhs,
                  const Eigen::VectorXd& lower, const Eigen::VectorXd& upper, bool relaxed,
                  double beta, bool scale, Eigen::VectorXd& x, double& relaxation,
                  std::string& message) {
  glp_term_out(GLP_OFF);
  GlpkProblem lp = build_lp(c, A, rhs, lower, upper, relaxed, beta);
  const int nx = static_cast<int>(c.size());
  const int ncols = nx + (relaxed ? 1 : 0);
  if (scale) glpk_call([&] { glp_scale_prob(lp.get(), GLP_SF_AUTO); });
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_OFF;
  // Numerical trouble, retried (simplex_with_fallbacks: the dual simplex, then exact rational
  // arithmetic; each attempt with an iteration limit far above what these problems need): a
  // simplex failure (GLP_EFAIL on a badly conditioned basis, GLP_EITLIM on a highly degenerate
  // problem: hundreds of time points of one history active at once); "infeasible" for the relaxed
  // problem, feasible by construction (b_r large enough); and an "optimal" answer that violates a
  // row. GLPK judges feasibility in its scaled problem: on a subregion whose box is a few 1e-5 of
  // a variable's value wide, its automatic scaling has been seen to call a design optimal that
  // violates a normalised row by 0.04-0.2 (the truck damper study: an infeasible subproblem taken
  // as feasible, so no feasibility step was ever made and the region shrank to nothing). Test:
  // Subproblem.AnLpGlpkCallsOptimalWhileViolatingARowIsSolvedAgain.
  const int ret = simplex_with_fallbacks(lp.get(), parm, [&](int code) {
    if (code != 0) return true;
    const int status = glp_get_status(lp.get());
    if (relaxed && (status == GLP_NOFEAS || status == GLP_INFEAS)) return true;
    return status == GLP_OPT && lp_row_violation(lp.get(), A, rhs, relaxed) > kFeasibility;
  });
  if (ret != 0) {
    message = (ret == GLP_EITLIM ? "GLPK's simplex reached its iteration limit (" +
                                       std::to_string(parm.it_lim) + ")"
                                 : "GLPK simplex returned code " + std::to_string(ret)) +
              " (also with the dual simplex and in exact arithmetic)";
    return LpOutcome::kError;
  }
  const int status = glp_get_status(lp.get());
  if (status == GLP_NOFEAS || status == GLP_INFEAS) return LpOutcome::kInfeasible;
  if (status == GLP_UNBND) {
    message = "the subproblem is unbounded (an auxiliary variable without bounds is free?)";
    return LpOutcome::kUnbounded;
  }
  if (status != GLP_OPT) {
    message = "GLPK ended with status " + std::to_string(status);
    return LpOutcome::kError;
  }
  if (const double v = lp_row_violation(lp.get(), A, rhs, relaxed); v > kFeasibility) {
    message = "GLPK's optimum violates a row by " + std::to_string(v) +
              " (also with the dual simplex and in exact arithmetic)";
    return LpOutcome::kError;
  }
  x.resize(nx);
  for (int j = 0; j < nx; ++j) x(j) = glp_get_col_prim(lp.get(), j + 1);
  relaxation = relaxed ? glp_get_col_prim(lp.get(), ncols) : 0.0;
  return LpOutcome::kOptimal;
}

}  // namespace

LpOutcome solve_lp(const Eigen::VectorXd& c, const Eigen::MatrixXd& A, const Eigen::VectorXd& rhs,
                   const Eigen::VectorXd& lower, const Eigen::VectorXd& upper, bool relaxed,
                   double beta, Eigen::VectorXd& x, double& relaxation, std::string& message) {
  if (!c.allFinite() || !A.allFinite() || !rhs.allFinite() || lower.hasNaN() || upper.hasNaN()) {
    message =
        "the linear subproblem's data are not finite (a response or gradient of the "
        "approximations beyond the range of double precision)";
    return LpOutcome::kError;
  }
  // GLPK's scaling computes its factors from products of the coefficients, which leave the
  // double range for coefficients near its ends (1e-300 from a study's expression): GLPK then
  // stops, and the LP is solved again unscaled.
  std::string stopped;
  for (const bool scale : {true, false}) {
    try {
      return glpk_lp(c, A, rhs, lower, upper, relaxed, beta, scale, x, relaxation, message);
    } catch (const GlpkError& e) {
      stopped += std::string(stopped.empty() ? "" : "; unscaled: ") + e.what();
    }
  }
  message = stopped +
            " (on the linear subproblem: values near the ends of the double range in "
            "the study or its responses?)";
  return LpOutcome::kError;
}

namespace {

// The NLP path: NLopt (SLSQP or MMA) on the same functions, with exact gradients. With
// `relaxed`, the last variable is b_r: minimise F~ + beta b_r s.t. g_hat~_i - b_r <= 0.
struct NlpContext {
  const ApproximateProblem* problem = nullptr;
  bool relaxed = false;
  double beta = 0.0;  // relaxed: weight of b_r; 0: phase 1, minimise b_r alone
  int nx = 0;
  double level = 0.0;  // phase 1, second stage: rows g_hat~ <= level
  // The variables NLopt sees: x = offset + width (.) z (identity unless scaled), and the
  // objective multiplied by `objective_scale`.
  Eigen::VectorXd offset, width;
  double objective_scale = 1.0;
  Eigen::VectorXd to_x(const double* z) const {
    return offset + width.cwiseProduct(Eigen::Map<const Eigen::VectorXd>(z, nx));
  }
};

double nlp_objective(unsigned, const double* x, double* grad, void* data) {
  const auto& c = *static_cast<const NlpContext*>(data);
  const Eigen::VectorXd X = c.to_x(x);
  // Relaxed: F~/beta + b_r, the same minimiser as F~ + beta b_r, better scaled for NLopt.
  // Phase 1 (beta = 0): b_r alone.
  if (c.relaxed && c.beta == 0.0) {
    if (grad) {
      std::fill(grad, grad + c.nx, 0.0);
      grad[c.nx] = 1.0;
    }
    return x[c.nx];
  }
  const double scale = c.relaxed ? 1.0 / c.beta : c.objective_scale;
  if (grad) {
    Eigen::Map<Eigen::VectorXd>(grad, c.nx) =
        scale * c.width.cwiseProduct(c.problem->objective_gradient(X));
    if (c.relaxed) grad[c.nx] = 1.0;
  }
  return scale * c.problem->objective(X) + (c.relaxed ? x[c.nx] : 0.0);
}

void nlp_rows(unsigned m, double* result, unsigned n, const double* x, double* grad, void* data) {
  const auto& c = *static_cast<const NlpContext*>(data);
  const Eigen::VectorXd X = c.to_x(x);
  Eigen::MatrixXd jacobian;
  const Eigen::VectorXd values = c.problem->row_values(X, grad ? &jacobian : nullptr);
  for (unsigned i = 0; i < m; ++i) {
    result[i] = values(i) - (c.relaxed ? x[c.nx] : c.level);
    if (!grad) continue;
    Eigen::Map<Eigen::VectorXd>(grad + i * n, c.nx) =
        c.width.cwiseProduct(jacobian.row(i).transpose());
    if (c.relaxed) grad[i * n + c.nx] = -1.0;
  }
}

// Scaled (the trust-region strategy): every variable with a finite subregion maps onto [0, 1]
// and the objective is divided by its largest change over the box to first order, so that
// SLSQP's first quasi-Newton steps fit the problem whatever its units.
void scale_nlp(const ApproximateProblem& problem, bool scaled, NlpContext& c) {
  c.offset = Eigen::VectorXd::Zero(c.nx);
  c.width = Eigen::VectorXd::Ones(c.nx);
  if (!scaled) return;
  for (int j = 0; j < c.nx; ++j) {
    const double lo = problem.lower(j), up = problem.upper(j);
    if (std::isfinite(lo) && std::isfinite(up) && up > lo) {
      c.offset(j) = lo;
      c.width(j) = up - lo;
    } else {
      c.offset(j) = problem.x0(j);
      c.width(j) = std::max(std::abs(problem.x0(j)), 1.0);
    }
  }
  const double change =
      c.width.cwiseProduct(problem.objective_gradient(problem.x0)).cwiseAbs().maxCoeff();
  if (change > 0.0 && std::isfinite(change)) c.objective_scale = 1.0 / change;
}

// One NLopt run of the NLP path from `x_start` (clamped into the subregion): its result code,
// objective and design.
struct NlpRun {
  nlopt_result r = NLOPT_FAILURE;
  double f = HUGE_VAL;
  Eigen::VectorXd x;
};

NlpRun solve_nlp_from(const ApproximateProblem& problem, NlpContext& context,
                      const Eigen::VectorXd& x_start, bool mma) {
  const int nx = context.nx;
  const int n = nx + (context.relaxed ? 1 : 0);
  const unsigned m = static_cast<unsigned>(problem.rows.size());
  std::unique_ptr<nlopt_opt_s, decltype(&nlopt_destroy)> opt(
      nlopt_create(mma ? NLOPT_LD_MMA : NLOPT_LD_SLSQP, n), nlopt_destroy);
  std::vector<double> lo(n), up(n), start(n);
  for (int j = 0; j < nx; ++j) {
    lo[j] = problem.lower(j);
    up[j] = problem.upper(j);
    // MMA places its asymptotes from the bounds and crawls without them: an unbounded
    // auxiliary gets a finite box of 10 (1 + |x0|) on each open side.
    const double reach = 10.0 * (1.0 + std::abs(problem.x0(j)));
    if (mma && !std::isfinite(lo[j])) lo[j] = problem.x0(j) - reach;
    if (mma && !std::isfinite(up[j])) up[j] = problem.x0(j) + reach;
    start[j] = std::clamp(x_start(j), lo[j], up[j]);
    lo[j] = (lo[j] - context.offset(j)) / context.width(j);
    up[j] = (up[j] - context.offset(j)) / context.width(j);
    start[j] = std::clamp((start[j] - context.offset(j)) / context.width(j), lo[j], up[j]);
  }
  if (context.relaxed) {
    lo[nx] = 0.0;
    up[nx] = mma ? 1e6 : HUGE_VAL;
    const Eigen::VectorXd X = context.to_x(start.data());
    start[nx] = m > 0 ? std::max(0.0, problem.row_values(X).maxCoeff()) : 0.0;
  }
  nlopt_set_lower_bounds(opt.get(), lo.data());
  nlopt_set_upper_bounds(opt.get(), up.data());
  nlopt_set_min_objective(opt.get(), nlp_objective, &context);
  if (m > 0) {
    const std::vector<double> tol(m, 1e-10);
    nlopt_add_inequality_mconstraint(opt.get(), m, nlp_rows, &context, tol.data());
  }
  nlopt_set_xtol_rel(opt.get(), 1e-10);
  nlopt_set_maxeval(opt.get(), 1000);
  NlpRun run;
  run.r = nlopt_optimize(opt.get(), start.data(), &run.f);
  run.x = context.to_x(start.data());
  return run;
}

LpOutcome solve_nlp_rows(const ApproximateProblem& problem, bool relaxed, double beta, double level,
                         bool mma, bool scaled, Eigen::VectorXd& x, double& relaxation,
                         std::string& message) {
  const int nx = static_cast<int>(problem.x0.size());
  const unsigned m = static_cast<unsigned>(problem.rows.size());
  NlpContext context;
  context.problem = &problem;
  context.relaxed = relaxed;
  context.beta = beta;
  context.nx = nx;
  context.level = level;
  scale_nlp(problem, scaled, context);
  // One local solve from each start: x0, then the other designs where the approximation is
  // exact (ApproximateProblem::starts). The best usable result wins: one that satisfies the
  // rows (always, when relaxed) before one that does not, then the lower objective.
  struct Local : NlpRun {
    double worst = HUGE_VAL;  // largest g_hat~ - level (0 when relaxed)
    double relaxation = 0.0;
    double merit = HUGE_VAL;  // what the solve minimised, recomputed at x
  };
  std::vector<Eigen::VectorXd> from{problem.x0};
  from.insert(from.end(), problem.starts.begin(), problem.starts.end());
  std::optional<Local> best;
  nlopt_result last = NLOPT_FAILURE;
  for (const Eigen::VectorXd& x_start : from) {
    Local local;
    static_cast<NlpRun&>(local) = solve_nlp_from(problem, context, x_start, mma);
    local.worst = m > 0 ? problem.row_values(local.x).maxCoeff() : -HUGE_VAL;
    // The relaxation is what the rows need at x (any b_r above it is feasible by definition).
    local.relaxation = relaxed ? std::max(0.0, local.worst) : 0.0;
    if (relaxed) local.worst = 0.0;
    local.worst -= level;
    local.merit = relaxed
                      ? (beta > 0.0 ? problem.objective(local.x) / beta : 0.0) + local.relaxation
                      : problem.objective(local.x);
    last = local.r;
    const bool usable = local.r > 0 || local.r == NLOPT_ROUNDOFF_LIMITED || std::isfinite(local.f);
    if (!usable) continue;
    auto feasible = [&](const Local& l) { return m == 0 || l.worst <= kFeasibility; };
    if (!best || (feasible(local) && !feasible(*best)) ||
        (feasible(local) == feasible(*best) &&
         (feasible(local) ? local.merit < best->merit : local.worst < best->worst))) {
      best = std::move(local);
    }
  }
  if (!best) {
    message = std::string("NLopt ended with ") + nlopt_result_to_string(last);
    return LpOutcome::kError;
  }
  x = best->x;
  relaxation = best->relaxation;
  if (m > 0 && best->worst > kFeasibility) {
    message = std::string("NLopt ") + (mma ? "MMA" : "SLSQP") + " found no feasible point (" +
              nlopt_result_to_string(best->r) + ", largest g_hat~ " + std::to_string(best->worst) +
              ")";
    return LpOutcome::kInfeasible;
  }
  return LpOutcome::kOptimal;
}

// Gradients at x0 this close to a combination of others' (each scaled to length 1) count as
// dependent (dependent_equality_rows).
constexpr double kDependence = 1e-9;

// The rows, both sides, of the equality constraints whose gradients at x0 are linear
// combinations of other equalities' (a sum a study also writes term by term: HS 55's six
// equalities have rank 5). SLSQP's active set then holds dependent rows, and its steps fail:
// HS 55 from a random start had its proposals stop short of a region's edge or at b0, crawled
// at move limits of 1e-4 and stalled 1.3 % above f*.
std::vector<size_t> dependent_equality_rows(const ApproximateProblem& problem) {
  const Study& study = *problem.study;
  std::map<std::pair<int, int>, size_t> at;  // (constraint, point) -> row
  for (size_t r = 0; r < problem.rows.size(); ++r)
    at[{problem.rows[r].constraint, problem.rows[r].point}] = r;
  std::vector<std::pair<size_t, size_t>> sides;  // per equality row: its two rows
  for (size_t r = 0; r < problem.rows.size(); ++r) {
    const int j = problem.rows[r].constraint;
    const int partner = study.constraints[static_cast<size_t>(j)].equality_partner;
    if (partner <= j) continue;
    if (auto other = at.find({partner, problem.rows[r].point}); other != at.end())
      sides.emplace_back(r, other->second);
  }
  if (sides.size() < 2) return {};
  Eigen::MatrixXd jacobian;
  problem.row_values(problem.x0, &jacobian);
  Eigen::MatrixXd E(jacobian.cols(), static_cast<Eigen::Index>(sides.size()));
  for (size_t e = 0; e < sides.size(); ++e) {
    const Eigen::VectorXd g = jacobian.row(static_cast<Eigen::Index>(sides[e].first));
    const double norm = g.norm();
    E.col(static_cast<Eigen::Index>(e)) = norm > 0.0 && std::isfinite(norm)
                                              ? Eigen::VectorXd(g / norm)
                                              : Eigen::VectorXd::Zero(g.size());
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(E.rows(), E.cols());
  qr.setThreshold(kDependence);
  qr.compute(E);
  std::vector<size_t> dropped;
  for (Eigen::Index k = qr.rank(); k < E.cols(); ++k) {
    const auto e = static_cast<size_t>(qr.colsPermutation().indices()(k));
    dropped.push_back(sides[e].first);
    dropped.push_back(sides[e].second);
  }
  return dropped;
}

// The NLP path: with dependent equalities (dependent_equality_rows), first without them; that
// solution stands when they hold there (they do where the approximations are linear), else
// every row is solved together.
LpOutcome solve_nlp(const ApproximateProblem& problem, bool relaxed, double beta, double level,
                    bool mma, bool scaled, Eigen::VectorXd& x, double& relaxation,
                    std::string& message) {
  const std::vector<size_t> dropped =
      relaxed ? std::vector<size_t>{} : dependent_equality_rows(problem);
  if (!dropped.empty()) {
    ApproximateProblem reduced = problem;
    reduced.rows.clear();
    std::vector<Eigen::Index> kept;
    for (size_t r = 0; r < problem.rows.size(); ++r) {
      if (std::find(dropped.begin(), dropped.end(), r) != dropped.end()) continue;
      reduced.rows.push_back(problem.rows[r]);
      kept.push_back(static_cast<Eigen::Index>(r));
    }
    if (problem.shift.size() > 0) reduced.shift = problem.shift(kept);
    Eigen::VectorXd xr;
    double rr = 0.0;
    std::string mr;
    if (solve_nlp_rows(reduced, false, beta, level, mma, scaled, xr, rr, mr) ==
            LpOutcome::kOptimal &&
        problem.row_values(xr).maxCoeff() <= level + kFeasibility) {
      spdlog::debug("subproblem: {} dependent equality rows set aside", dropped.size());
      x = xr;
      relaxation = rr;
      return LpOutcome::kOptimal;
    }
  }
  return solve_nlp_rows(problem, relaxed, beta, level, mma, scaled, x, relaxation, message);
}

}  // namespace

SubproblemResult solve_subproblem(const ApproximateProblem& problem, const Options& options) {
  SubproblemResult result;
  const double beta =
      options.relaxation_weight * std::max(std::abs(problem.objective(problem.x0)), 1.0);
  // One rule for both solvers: solve; if infeasible, either the seed's relaxed problem
  // (3.5-3.8) with weight beta, or phase 1: the least violation b_r* first (weight 0: b_r
  // alone), then the best objective with every row g_hat~ <= b_r*.
  // solve(relaxed, weight, level): level shifts every row (g_hat~ <= level).
  std::function<LpOutcome(bool, double, double)> solve;
  Eigen::MatrixXd A;
  Eigen::VectorXd c, rhs;
  const bool nlp = !problem.linear || options.subproblem == SubproblemSolver::kNlp;
  const bool mma = options.nlp_algorithm == NlpAlgorithm::kMma;
  result.solver = nlp ? (mma ? "NLopt MMA" : "NLopt SLSQP") : "GLPK simplex";
  if (nlp) {
    solve = [&](bool relaxed, double weight, double level) {
      return solve_nlp(problem, relaxed, weight, level, mma, options.feasibility_first, result.x,
                       result.relaxation, result.message);
    };
  } else {
    // Linear functions: coefficients from one gradient at x0, a.x <= a.x0 - g_hat~(x0).
    const Eigen::VectorXd& x0 = problem.x0;
    c = problem.objective_gradient(x0);
    const Eigen::VectorXd values = problem.row_values(x0, &A);
    rhs = A * x0 - values;
    solve = [&](bool relaxed, double weight, double level) {
      const Eigen::VectorXd cost = relaxed && weight == 0.0 ? Eigen::VectorXd::Zero(c.size()) : c;
      const Eigen::VectorXd shifted = (rhs.array() + level).matrix();
      return solve_lp(cost, A, shifted, problem.lower, problem.upper, relaxed,
                      weight == 0.0 ? 1.0 : weight, result.x, result.relaxation, result.message);
    };
  }
  LpOutcome outcome = solve(false, 0.0, 0.0);
  if (outcome == LpOutcome::kInfeasible && !options.feasibility_first) {
    outcome = solve(true, beta, 0.0);
    if (outcome == LpOutcome::kOptimal) result.status = SubproblemStatus::kRelaxed;
  } else if (outcome == LpOutcome::kInfeasible) {
    outcome = solve(true, 0.0, 0.0);
    if (outcome == LpOutcome::kOptimal) {
      const Eigen::VectorXd least = result.x;
      const double level = result.relaxation;
      // The second stage may fail numerically at the very edge: the first stage's design
      // then stands (it is feasible for the level by construction).
      const double slack = 1e-8 * (1.0 + level);
      if (solve(false, 0.0, level + slack) != LpOutcome::kOptimal) result.x = least;
      result.relaxation = level;
      result.message.clear();
      outcome = LpOutcome::kOptimal;
      result.status = SubproblemStatus::kRelaxed;
    }
  } else if (outcome == LpOutcome::kOptimal) {
    result.status = SubproblemStatus::kOptimal;
  }
  if (outcome == LpOutcome::kInfeasible) result.message = "the relaxed subproblem is infeasible";
  if (result.status != SubproblemStatus::kFailed) result.objective = problem.objective(result.x);
  return result;
}

}  // namespace sao
