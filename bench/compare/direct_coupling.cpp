#include "bench/compare/direct_coupling.hpp"

#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>

#include "sao/optimizer/approximation.hpp"
#include "sao/optimizer/subproblem.hpp"
#include "sao/report/evaluate.hpp"
#include "sao/study/criteria.hpp"

namespace sao::bench {
namespace {

// The study as a nonlinear program over the full variable vector, analysed on demand.
class DirectProblem {
 public:
  DirectProblem(const Study& study, Simulator& simulator) : study_(study), simulator_(simulator) {
    x_start_ = initial_variables(study);
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

  const Eigen::VectorXd& start() const { return x_start_; }
  size_t rows() const { return rows_.size(); }
  int analyses() const { return static_cast<int>(values_.size()); }
  int gradients() const { return gradient_count_; }
  int runs() const { return runs_; }
  bool failed() const { return !failure_.empty(); }
  const std::string& failure() const { return failure_; }

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

 private:
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
    return &cache.emplace(key, std::move(e)).first->second;
  }

  const Study& study_;
  Simulator& simulator_;
  Eigen::VectorXd x_start_;
  std::vector<RetainedRow> rows_;
  std::vector<DerivativeRequest> all_derivatives_;
  std::map<std::vector<double>, Evaluation> values_, with_gradients_;
  int gradient_count_ = 0, runs_ = 0;
  std::string failure_;
};

struct Callback {
  DirectProblem* problem;
  bool gradients;
};

double objective(unsigned n, const double* x, double* grad, void* data) {
  auto* cb = static_cast<Callback*>(data);
  const Eigen::Map<const Eigen::VectorXd> xv(x, n);
  double f = 0;
  try {
    cb->problem->at(xv, grad != nullptr, [&](const ApproximateProblem& p) {
      f = p.objective(xv);
      if (grad) Eigen::Map<Eigen::VectorXd>(grad, n) = p.objective_gradient(xv);
    });
  } catch (const std::exception&) {
    return HUGE_VAL;
  }
  return f;
}

void constraints(unsigned m, double* result, unsigned n, const double* x, double* grad,
                 void* data) {
  auto* cb = static_cast<Callback*>(data);
  const Eigen::Map<const Eigen::VectorXd> xv(x, n);
  try {
    cb->problem->at(xv, grad != nullptr, [&](const ApproximateProblem& p) {
      Eigen::MatrixXd J;
      const Eigen::VectorXd g = p.row_values(xv, grad ? &J : nullptr);
      Eigen::Map<Eigen::VectorXd>(result, m) = g;
      if (grad) {
        Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(grad, m,
                                                                                           n) = J;
      }
    });
  } catch (const std::exception&) {
    for (unsigned i = 0; i < m; ++i) result[i] = HUGE_VAL;
  }
}

}  // namespace

std::vector<Evaluation> CountingSimulator::evaluate(const std::vector<EvaluationRequest>& batch) {
  std::vector<Evaluation> out = inner_.evaluate(batch);
  for (const Evaluation& e : out) runs_ += e.cost.runs;
  return out;
}

DirectResult run_direct(const LoadedStudy& study, Simulator& simulator,
                        const DirectSettings& settings) {
  DirectResult result;
  DirectProblem problem(study, simulator);
  const unsigned n = static_cast<unsigned>(study.n_total());
  nlopt_opt opt = nlopt_create(settings.algorithm, n);
  std::vector<double> lower(n), upper(n);
  for (int i = 0; i < study.n_design(); ++i) {
    lower[i] = study.design[i].lower;
    upper[i] = study.design[i].upper;
  }
  for (int a = 0; a < study.n_aux(); ++a) {
    lower[study.n_design() + a] = study.auxiliaries[a].lower;
    upper[study.n_design() + a] = study.auxiliaries[a].upper;
  }
  nlopt_set_lower_bounds(opt, lower.data());
  nlopt_set_upper_bounds(opt, upper.data());
  Callback cb{&problem, settings.algorithm != NLOPT_LN_COBYLA};
  nlopt_set_min_objective(opt, objective, &cb);
  const std::vector<double> tol(problem.rows(), study.options.vioacc / 100.0);
  if (problem.rows() > 0) {
    nlopt_add_inequality_mconstraint(opt, static_cast<unsigned>(problem.rows()), constraints, &cb,
                                     tol.data());
  }
  nlopt_set_ftol_rel(opt, settings.ftol > 0 ? settings.ftol : study.options.objacc / 100.0);
  nlopt_set_xtol_rel(opt, 1e-6);
  nlopt_set_maxeval(opt, settings.max_evals);
  if (settings.max_time > 0) nlopt_set_maxtime(opt, settings.max_time);
  std::vector<double> x(problem.start().data(), problem.start().data() + n);
  double f = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const nlopt_result r = nlopt_optimize(opt, x.data(), &f);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  nlopt_destroy(opt);
  result.status = r == NLOPT_MAXEVAL_REACHED   ? "eval limit"
                  : r == NLOPT_MAXTIME_REACHED ? "time limit"
                  : r > 0                      ? "converged"
                                               : "failed (" + std::to_string(r) + ")";
  if (problem.failed()) result.status += ", with failed analyses";
  result.x = Eigen::Map<const Eigen::VectorXd>(x.data(), n);
  const Evaluation e = simulator.evaluate({{result.x.head(study.n_design()), {}}}).front();
  if (e.ok) {
    const ExactResponses exact(study, e);
    result.objective =
        user_objective(study, criterion_value(study, study.objective.f, 0, result.x, exact));
    result.violation = max_violation(study, result.x, exact);
  }
  result.analyses = problem.analyses();
  result.gradients = problem.gradients();
  result.runs = problem.runs();
  return result;
}

}  // namespace sao::bench
