#include "bench/compare/direct_coupling.hpp"

#include <IpStdCInterface.h>

#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "sao/optimizer/approximation.hpp"
#include "sao/optimizer/subproblem.hpp"
#include "sao/report/evaluate.hpp"
#include "sao/study/criteria.hpp"

namespace sao::bench {
namespace {

// The objective (user sign) and the largest violation (%) of the study at x from one analysis.
std::pair<double, double> user_values(const Study& study, const Eigen::VectorXd& x,
                                      const Evaluation& e) {
  const ExactResponses exact(study, e);
  return {user_objective(study, criterion_value(study, study.objective.f, 0, x, exact)),
          max_violation(study, x, exact)};
}

// The study as a nonlinear program over the full variable vector, analysed on demand, in the
// optimizer's variables u = x / s and objective F / f (s = 1, f = 1 unless scaled).
class DirectProblem {
 public:
  DirectProblem(const Study& study, Simulator& simulator) : study_(study), simulator_(simulator) {
    x_start_ = initial_variables(study);
    scaling_.variables = Eigen::VectorXd::Ones(x_start_.size());
    for (size_t j = 0; j < study.constraints.size(); ++j) {
      const Constraint& c = study.constraints[j];
      const double N = constraint_normaliser(study, c, x_start_);
      for (int p = 0; p < criterion_points(study, c.g); ++p) {
        rows_.push_back({static_cast<int>(j), p, N});
      }
    }
    for (size_t c = 0; c < study.load_cases.size(); ++c) {
      for (const auto& r : study.responses) {
        all_derivatives_.push_back({static_cast<int>(c), r.source.empty() ? r.name : r.source, {}});
      }
    }
  }

  // Scales the problem (direct_scaling) from an analysis of the start; unscaled objective when
  // it fails (the optimizer then meets the failure itself).
  void scale() {
    double f = NAN;
    try {
      at(x_start_, false, [&](const ApproximateProblem& p) { f = p.objective(x_start_); });
    } catch (const std::exception&) {
    }
    scaling_ = direct_scaling(study_, x_start_, f);
  }

  const DirectScaling& scaling() const { return scaling_; }
  Eigen::VectorXd start() const { return x_start_.cwiseQuotient(scaling_.variables); }
  Eigen::VectorXd design(const double* u) const {
    const Eigen::Index n = x_start_.size();
    return Eigen::Map<const Eigen::VectorXd>(u, n).cwiseProduct(scaling_.variables);
  }
  size_t rows() const { return rows_.size(); }
  const std::vector<RetainedRow>& row_info() const { return rows_; }
  int analyses() const { return static_cast<int>(values_.size()); }
  int gradients() const { return gradient_count_; }
  int runs() const { return runs_; }
  bool failed() const { return !failure_.empty(); }
  const std::string& failure() const { return failure_; }
  const std::vector<DirectAnalysis>& history() const { return history_; }

  // The optimizer's objective at u, and its gradient into `grad` (n entries) when not null.
  // Throws when the analysis fails.
  double objective(const double* u, double* grad) {
    const Eigen::VectorXd x = design(u);
    double f = 0;
    at(x, grad != nullptr, [&](const ApproximateProblem& p) {
      f = p.objective(x) / scaling_.objective;
      if (grad) {
        Eigen::Map<Eigen::VectorXd>(grad, x.size()) =
            p.objective_gradient(x).cwiseProduct(scaling_.variables) / scaling_.objective;
      }
    });
    return f;
  }

  // Every row's value at u, and their Jacobian in u into J when not null. Throws when the
  // analysis fails.
  Eigen::VectorXd row_values(const double* u, Eigen::MatrixXd* J) {
    const Eigen::VectorXd x = design(u);
    Eigen::VectorXd g;
    at(x, J != nullptr, [&](const ApproximateProblem& p) {
      g = p.row_values(x, J);
      if (J) *J = *J * scaling_.variables.asDiagonal();
    });
    return g;
  }

 private:
  // The problem at x (values; gradients when asked) as an ApproximateProblem whose model is
  // exact at x: the exact responses, or the linearisation at x (exact value and slope there).
  template <class Use>
  void at(const Eigen::VectorXd& x, bool with_gradients, Use use) {
    const Evaluation* e = analyse(x, with_gradients);
    if (!e) throw std::runtime_error(failure_);
    ExactResponses exact(study_, *e);
    std::unique_ptr<LinearApproximation> linear;
    ApproximateProblem p;
    p.study = &study_;
    p.model = &exact;
    if (with_gradients) {
      linear = std::make_unique<LinearApproximation>(study_, *e, x);
      p.model = linear.get();
    }
    p.x0 = x;
    p.rows = rows_;
    use(p);
  }

  const Evaluation* analyse(const Eigen::VectorXd& x, bool with_gradients) {
    const Eigen::VectorXd b = x.head(study_.n_design());
    const std::vector<double> key(b.data(), b.data() + b.size());
    auto& cache = with_gradients ? with_gradients_ : values_;
    if (auto it = cache.find(key); it != cache.end()) return &it->second;
    EvaluationRequest r{b, {}};
    if (with_gradients) {
      r.derivatives = all_derivatives_;
      // The same economy as the driver's: finite differences at a design whose values are
      // cached do not run the nominal again.
      if (auto known = values_.find(key); known != values_.end()) r.values = &known->second;
    }
    Evaluation e = simulator_.evaluate({r}).front();
    runs_ += e.cost.runs;
    if (!e.ok) {
      failure_ = e.message;
      return nullptr;
    }
    if (with_gradients) {
      ++gradient_count_;
      values_.emplace(key, e);  // an analysis with sensitivities is an analysis too
    }
    const Evaluation* stored = &cache.emplace(key, std::move(e)).first->second;
    const auto [objective, violation] = user_values(study_, x, *stored);
    history_.push_back({analyses(), gradient_count_, runs_, objective, violation});
    return stored;
  }

  const Study& study_;
  Simulator& simulator_;
  Eigen::VectorXd x_start_;
  DirectScaling scaling_;
  std::vector<RetainedRow> rows_;
  std::vector<DerivativeRequest> all_derivatives_;
  std::map<std::vector<double>, Evaluation> values_, with_gradients_;
  int gradient_count_ = 0, runs_ = 0;
  std::string failure_;
  std::vector<DirectAnalysis> history_;
};

double objective(unsigned, const double* u, double* grad, void* data) {
  try {
    return static_cast<DirectProblem*>(data)->objective(u, grad);
  } catch (const std::exception&) {
    return HUGE_VAL;
  }
}

void constraints(unsigned m, double* result, unsigned n, const double* u, double* grad,
                 void* data) {
  try {
    Eigen::MatrixXd J;
    Eigen::Map<Eigen::VectorXd>(result, m) =
        static_cast<DirectProblem*>(data)->row_values(u, grad ? &J : nullptr);
    if (grad) {
      Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(grad, m,
                                                                                         n) = J;
    }
  } catch (const std::exception&) {
    for (unsigned i = 0; i < m; ++i) result[i] = HUGE_VAL;
  }
}

// The optimizer's bounds of the variables (design, then auxiliaries), scaled as it sees them;
// an open side is `open` (NLopt: infinite; IPOPT: its 1e20).
void variable_bounds(const Study& study, const DirectScaling& scaling, double open,
                     std::vector<double>& lower, std::vector<double>& upper) {
  Eigen::VectorXd l, u;
  study.variable_bounds(l, u);
  lower.resize(l.size());
  upper.resize(u.size());
  for (Eigen::Index i = 0; i < l.size(); ++i) {
    lower[i] = std::isfinite(l(i)) ? l(i) / scaling.variables(i) : -open;
    upper[i] = std::isfinite(u(i)) ? u(i) / scaling.variables(i) : open;
  }
}

// Objective and violation at the final design from one more analysis (not counted), and the
// problem's counts.
void finish(const LoadedStudy& study, Simulator& simulator, const DirectProblem& problem,
            const std::vector<double>& u, DirectResult& result) {
  if (problem.failed()) result.status += ", with failed analyses";
  result.x = problem.design(u.data());
  const Evaluation e = simulator.evaluate({{result.x.head(study.n_design()), {}}}).front();
  if (e.ok) std::tie(result.objective, result.violation) = user_values(study, result.x, e);
  result.analyses = problem.analyses();
  result.gradients = problem.gradients();
  result.runs = problem.runs();
  result.history = problem.history();
}

// IPOPT's view of the rows: an equality (the loader's two opposite rows of one constraint, the
// same bound) is one row with g_L = g_U = 0, the other rows g <= 0.
struct IpoptRows {
  std::vector<int> row;  // the DirectProblem row of each IPOPT row
  std::vector<double> lower, upper;
};

IpoptRows ipopt_rows(const Study& study, const DirectProblem& problem) {
  IpoptRows out;
  const std::vector<RetainedRow>& rows = problem.row_info();
  std::vector<bool> partner(rows.size(), false);
  for (size_t r = 0; r < rows.size(); ++r) {
    if (partner[r]) continue;
    const Constraint& c = study.constraints[rows[r].constraint];
    bool equality = false;
    if (rows[r].constraint + 1 < static_cast<int>(study.constraints.size())) {
      const Constraint& next = study.constraints[rows[r].constraint + 1];
      equality = next.path == c.path && next.sense != c.sense && next.bound == c.bound &&
                 next.bound_auxiliary < 0 && c.bound_auxiliary < 0;
    }
    if (equality) {  // its partner: the same point of the next constraint
      for (size_t q = r + 1; q < rows.size(); ++q) {
        if (rows[q].constraint == rows[r].constraint + 1 && rows[q].point == rows[r].point) {
          partner[q] = true;
          break;
        }
      }
    }
    out.row.push_back(static_cast<int>(r));
    out.lower.push_back(equality ? 0.0 : -1e20);
    out.upper.push_back(0.0);
  }
  return out;
}

struct IpoptData {
  DirectProblem* problem;
  const IpoptRows* rows;
  int max_evals;
  double max_time;
  std::chrono::steady_clock::time_point t0;
  bool eval_limit = false, time_limit = false;
};

Bool ipopt_f(Index, Number* u, Bool, Number* f, UserDataPtr data) {
  try {
    *f = static_cast<IpoptData*>(data)->problem->objective(u, nullptr);
  } catch (const std::exception&) {
    return FALSE;
  }
  return TRUE;
}

Bool ipopt_grad_f(Index, Number* u, Bool, Number* grad, UserDataPtr data) {
  try {
    static_cast<IpoptData*>(data)->problem->objective(u, grad);
  } catch (const std::exception&) {
    return FALSE;
  }
  return TRUE;
}

Bool ipopt_g(Index, Number* u, Bool, Index m, Number* g, UserDataPtr data) {
  auto* d = static_cast<IpoptData*>(data);
  try {
    const Eigen::VectorXd all = d->problem->row_values(u, nullptr);
    for (Index i = 0; i < m; ++i) g[i] = all(d->rows->row[i]);
  } catch (const std::exception&) {
    return FALSE;
  }
  return TRUE;
}

// The Jacobian is dense, row by row.
Bool ipopt_jac_g(Index n, Number* u, Bool, Index m, Index, Index* i_row, Index* j_col,
                 Number* values, UserDataPtr data) {
  if (!values) {
    for (Index i = 0, k = 0; i < m; ++i) {
      for (Index j = 0; j < n; ++j, ++k) {
        i_row[k] = i;
        j_col[k] = j;
      }
    }
    return TRUE;
  }
  auto* d = static_cast<IpoptData*>(data);
  try {
    Eigen::MatrixXd J;
    d->problem->row_values(u, &J);
    for (Index i = 0, k = 0; i < m; ++i) {
      for (Index j = 0; j < n; ++j, ++k) values[k] = J(d->rows->row[i], j);
    }
  } catch (const std::exception&) {
    return FALSE;
  }
  return TRUE;
}

// Never called: the Hessian is IPOPT's limited-memory approximation.
Bool ipopt_h(Index, Number*, Bool, Number, Index, Number*, Bool, Index, Index*, Index*, Number*,
             UserDataPtr) {
  return FALSE;
}

// After every iteration: stop at the evaluation or time limit (IPOPT then returns
// User_Requested_Stop with its current iterate).
Bool ipopt_iteration(Index, Index, Number, Number, Number, Number, Number, Number, Number, Number,
                     Index, UserDataPtr data) {
  auto* d = static_cast<IpoptData*>(data);
  d->eval_limit = d->problem->analyses() >= d->max_evals;
  d->time_limit = d->max_time > 0 &&
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - d->t0).count() >=
                      d->max_time;
  return d->eval_limit || d->time_limit ? FALSE : TRUE;
}

// IPOPT's name of its return code (IpReturnCodes_inc.h), for the common ones.
std::string ipopt_reason(ApplicationReturnStatus r) {
  switch (r) {
    case Solve_Succeeded:
      return "Solve_Succeeded";
    case Solved_To_Acceptable_Level:
      return "Solved_To_Acceptable_Level";
    case Feasible_Point_Found:
      return "Feasible_Point_Found";
    case Search_Direction_Becomes_Too_Small:
      return "Search_Direction_Becomes_Too_Small";
    case Restoration_Failed:
      return "Restoration_Failed";
    case Error_In_Step_Computation:
      return "Error_In_Step_Computation";
    case User_Requested_Stop:
      return "User_Requested_Stop";
    default:
      return "ApplicationReturnStatus " + std::to_string(static_cast<int>(r));
  }
}

std::string ipopt_status(ApplicationReturnStatus r, const IpoptData& d) {
  switch (r) {
    case Solve_Succeeded:
    case Solved_To_Acceptable_Level:
    case Feasible_Point_Found:
      return "converged";
    case User_Requested_Stop:
      return d.eval_limit ? "eval limit" : d.time_limit ? "time limit" : "stopped";
    case Maximum_CpuTime_Exceeded:
      return "time limit";
    case Maximum_Iterations_Exceeded:
      return "iteration limit";
    default:
      return "failed (" + std::to_string(static_cast<int>(r)) + ")";
  }
}

}  // namespace

std::vector<Evaluation> CountingSimulator::evaluate(const std::vector<EvaluationRequest>& batch) {
  std::vector<Evaluation> out = inner_.evaluate(batch);
  for (const Evaluation& e : out) runs_ += e.cost.runs;
  return out;
}

DirectScaling direct_scaling(const Study& study, const Eigen::VectorXd& x_start, double f_start) {
  DirectScaling scaling;
  Eigen::VectorXd lower, upper;
  study.variable_bounds(lower, upper);
  scaling.variables.resize(x_start.size());
  for (Eigen::Index i = 0; i < x_start.size(); ++i) {
    const double range = upper(i) - lower(i);
    scaling.variables(i) =
        std::isfinite(range) && range > 0 ? range : std::max(std::abs(x_start(i)), 1.0);
  }
  if (std::isfinite(f_start) && f_start != 0) scaling.objective = std::abs(f_start);
  return scaling;
}

DirectResult run_direct(const LoadedStudy& study, Simulator& simulator,
                        const DirectSettings& settings) {
  DirectResult result;
  DirectProblem problem(study, simulator);
  if (settings.scaled) problem.scale();
  const unsigned n = static_cast<unsigned>(study.n_total());
  nlopt_opt opt = nlopt_create(settings.algorithm, n);
  std::vector<double> lower, upper;
  variable_bounds(study, problem.scaling(), HUGE_VAL, lower, upper);
  nlopt_set_lower_bounds(opt, lower.data());
  nlopt_set_upper_bounds(opt, upper.data());
  nlopt_set_min_objective(opt, objective, &problem);
  const std::vector<double> tol(problem.rows(), study.options.vioacc / 100.0);
  if (problem.rows() > 0) {
    nlopt_add_inequality_mconstraint(opt, static_cast<unsigned>(problem.rows()), constraints,
                                     &problem, tol.data());
  }
  nlopt_set_ftol_rel(opt, settings.ftol > 0 ? settings.ftol : study.options.objacc / 100.0);
  nlopt_set_xtol_rel(opt, 1e-6);
  nlopt_set_maxeval(opt, settings.max_evals);
  if (settings.max_time > 0) nlopt_set_maxtime(opt, settings.max_time);
  const Eigen::VectorXd start = problem.start();
  std::vector<double> x(start.data(), start.data() + n);
  double f = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const nlopt_result r = nlopt_optimize(opt, x.data(), &f);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  nlopt_destroy(opt);
  result.status = r == NLOPT_MAXEVAL_REACHED   ? "eval limit"
                  : r == NLOPT_MAXTIME_REACHED ? "time limit"
                  : r > 0                      ? "converged"
                                               : "failed (" + std::to_string(r) + ")";
  result.reason = std::string("NLOPT_") + nlopt_result_to_string(r);
  finish(study, simulator, problem, x, result);
  return result;
}

DirectResult run_ipopt(const LoadedStudy& study, Simulator& simulator,
                       const DirectSettings& settings) {
  DirectResult result;
  DirectProblem problem(study, simulator);
  if (settings.scaled) problem.scale();
  const IpoptRows rows = ipopt_rows(study, problem);
  const Index n = study.n_total();
  const auto m = static_cast<Index>(rows.row.size());
  std::vector<double> lower, upper;
  variable_bounds(study, problem.scaling(), 1e20, lower, upper);
  std::vector<double> g_lower = rows.lower, g_upper = rows.upper;
  IpoptProblem ipopt =
      CreateIpoptProblem(n, lower.data(), upper.data(), m, g_lower.data(), g_upper.data(), m * n, 0,
                         0, ipopt_f, ipopt_g, ipopt_grad_f, ipopt_jac_g, ipopt_h);
  const auto text = [&](const char* key, const char* value) {
    AddIpoptStrOption(ipopt, const_cast<char*>(key), const_cast<char*>(value));
  };
  const auto number = [&](const char* key, double value) {
    AddIpoptNumOption(ipopt, const_cast<char*>(key), value);
  };
  text("hessian_approximation", "limited-memory");
  text("sb", "yes");  // no banner on stdout
  AddIpoptIntOption(ipopt, const_cast<char*>("print_level"), 0);
  AddIpoptIntOption(ipopt, const_cast<char*>("max_iter"), 100000);  // the limits: below
  number("tol", settings.ftol > 0 ? settings.ftol : study.options.objacc / 100.0);
  number("constr_viol_tol", study.options.vioacc / 100.0);
  if (!settings.log_file.empty()) {
    AddIpoptStrOption(ipopt, const_cast<char*>("output_file"),
                      const_cast<char*>(settings.log_file.c_str()));
    AddIpoptIntOption(ipopt, const_cast<char*>("file_print_level"), 5);
  }
  SetIntermediateCallback(ipopt, ipopt_iteration);
  IpoptData data{&problem, &rows, settings.max_evals, settings.max_time,
                 std::chrono::steady_clock::now()};
  const Eigen::VectorXd start = problem.start();
  std::vector<double> x(start.data(), start.data() + n);
  double f = 0;
  const ApplicationReturnStatus r =
      IpoptSolve(ipopt, x.data(), nullptr, &f, nullptr, nullptr, nullptr, &data);
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - data.t0).count();
  FreeIpoptProblem(ipopt);
  result.status = ipopt_status(r, data);
  result.reason = ipopt_reason(r);
  finish(study, simulator, problem, x, result);
  return result;
}

}  // namespace sao::bench
