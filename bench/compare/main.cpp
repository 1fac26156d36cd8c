// sao_compare: each study with the SAO driver and with the same simulator coupled directly to
// NLopt (SLSQP and MMA with the simulator's gradients, COBYLA without), from the same start,
// measured in one run. Prints a Markdown table (docs/benchmarks.md is its output).
//
//   build/sao_compare problems/impact-absorber/comfort.json [more studies] [--max-evals N]
//
// The direct coupling sees the study as the SAO driver does: the objective and every
// constraint at every time point (normalised at the start as the driver normalises them,
// g_hat = s (g - c) / N), the bounds, the auxiliary variables of the bound formulation as
// ordinary variables. Function values and gradients at a design come from one analysis (cached
// by design, as the driver caches them): `analyses` counts designs analysed, `gradients` the
// analyses with sensitivities, `runs` every simulator execution (finite-difference
// perturbations included). Stopping: relative change of the objective below objacc, of the
// variables below 1e-6, constraint tolerance vioacc (both from the study's settings), or the
// evaluation limit.
#include <nlopt.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "sao/optimizer/approximation.hpp"
#include "sao/optimizer/driver.hpp"
#include "sao/optimizer/subproblem.hpp"
#include "sao/report/evaluate.hpp"
#include "sao/study/criteria.hpp"
#include "sao/study/open_study.hpp"
#include "sao/study/study_loader.hpp"
#include "simulators/internal_simulator.hpp"

namespace {

using sao::Evaluation;
using sao::Study;

struct Row {
  std::string study, method, status;
  double objective = NAN, violation = NAN, seconds = 0;
  int analyses = 0, gradients = 0, runs = 0;
};

// The study as a nonlinear program over the full variable vector, analysed on demand.
class DirectProblem {
 public:
  DirectProblem(const Study& study, sao::Simulator& simulator)
      : study_(study), simulator_(simulator) {
    x_start_ = sao::initial_variables(study);
    for (size_t j = 0; j < study.constraints.size(); ++j) {
      const sao::Constraint& c = study.constraints[j];
      const double N = sao::constraint_normaliser(study, c, x_start_);
      for (int p = 0; p < sao::criterion_points(study, c.g); ++p) {
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
    sao::ExactResponses exact(study_, *e);
    std::unique_ptr<sao::LinearApproximation> linear;
    sao::ApproximateProblem p;
    p.study = &study_;
    p.model = &exact;
    if (with_gradients) {
      linear = std::make_unique<sao::LinearApproximation>(study_, *e, x);
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
    sao::EvaluationRequest r{b, {}};
    if (with_gradients) r.derivatives = all_derivatives_;
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
  sao::Simulator& simulator_;
  Eigen::VectorXd x_start_;
  std::vector<sao::RetainedRow> rows_;
  std::vector<sao::DerivativeRequest> all_derivatives_;
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
    cb->problem->at(xv, grad != nullptr, [&](const sao::ApproximateProblem& p) {
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
    cb->problem->at(xv, grad != nullptr, [&](const sao::ApproximateProblem& p) {
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

Row run_direct(const std::string& file, nlopt_algorithm algorithm, const char* name, int max_evals,
               double ftol, double max_time) {
  Row row;
  row.study = file;
  row.method = name;
  const Study study = sao::load_study(sao::read_study_document(file), file);
  auto simulator = sao::make_study_simulator(study);
  DirectProblem problem(study, *simulator);
  const unsigned n = static_cast<unsigned>(study.n_total());
  nlopt_opt opt = nlopt_create(algorithm, n);
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
  Callback cb{&problem, algorithm != NLOPT_LN_COBYLA};
  nlopt_set_min_objective(opt, objective, &cb);
  const std::vector<double> tol(problem.rows(), study.options.vioacc / 100.0);
  if (problem.rows() > 0) {
    nlopt_add_inequality_mconstraint(opt, static_cast<unsigned>(problem.rows()), constraints, &cb,
                                     tol.data());
  }
  nlopt_set_ftol_rel(opt, ftol > 0 ? ftol : study.options.objacc / 100.0);
  nlopt_set_xtol_rel(opt, 1e-6);
  nlopt_set_maxeval(opt, max_evals);
  if (max_time > 0) nlopt_set_maxtime(opt, max_time);
  std::vector<double> x(problem.start().data(), problem.start().data() + n);
  double f = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const nlopt_result r = nlopt_optimize(opt, x.data(), &f);
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  nlopt_destroy(opt);
  row.status = r == NLOPT_MAXEVAL_REACHED   ? "eval limit"
               : r == NLOPT_MAXTIME_REACHED ? "time limit"
               : r > 0                      ? "converged"
                                            : "failed (" + std::to_string(r) + ")";
  if (problem.failed())
    row.status += ", with failed analyses";  // e.g. a mechanism that does not assemble
  const Eigen::Map<const Eigen::VectorXd> xv(x.data(), n);
  sao::EvaluationRequest req{xv.head(study.n_design()), {}};
  const Evaluation e = simulator->evaluate({req}).front();
  if (e.ok) {
    const sao::ExactResponses exact(study, e);
    row.objective =
        sao::user_objective(study, sao::criterion_value(study, study.objective.f, 0, xv, exact));
    row.violation = sao::max_violation(study, xv, exact);
  }
  row.analyses = problem.analyses();
  row.gradients = problem.gradients();
  row.runs = problem.runs();
  return row;
}

Row run_sao(const std::string& file) {
  Row row;
  row.study = file;
  row.method = "SAO";
  const sao::OpenedStudy opened = sao::open_study(file);
  const sao::Study& study = opened.study;
  sao::Driver driver(study, *opened.simulator, study.options);
  const auto t0 = std::chrono::steady_clock::now();
  const sao::RunSummary& s = driver.run();
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  row.status = sao::to_string(s.status);
  row.objective = s.objective;
  row.violation = s.max_violation;
  row.analyses = s.analyses;
  row.gradients = s.sensitivity_analyses;
  row.runs = s.simulator_runs;
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  int max_evals = 300;
  double ftol = 0, max_time = 120;
  std::string methods = "sao,slsqp,slsqp-tight,mma,cobyla";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--max-evals" && i + 1 < argc) {
      max_evals = std::stoi(argv[++i]);
    } else if (a == "--max-time" && i + 1 < argc) {
      max_time = std::stod(argv[++i]);
    } else if (a == "--ftol" && i + 1 < argc) {
      ftol = std::stod(argv[++i]);
    } else if (a == "--methods" && i + 1 < argc) {
      methods = argv[++i];
    } else if (a == "-h" || a == "--help") {
      std::cout << "usage: sao_compare STUDY.json... [--max-evals N] [--max-time S] [--ftol REL] "
                   "[--methods sao,slsqp,slsqp-tight,mma,cobyla]\n"
                   "  --max-evals: NLopt evaluation limit per run (300)\n"
                   "  --max-time: NLopt wall-time limit per run, s (120; 0: none)\n"
                   "  --ftol: NLopt's relative objective tolerance (default: the study's "
                   "objacc; slsqp-tight uses 1e-6)\n";
      return 0;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    std::cerr << "usage: sao_compare STUDY.json... [options]; see --help\n";
    return 2;
  }
  sao::sim::register_internal_simulator();
  std::printf(
      "| study | method | status | objective | max violation [%%] | analyses | gradients "
      "| simulator runs | wall [s] |\n|---|---|---|---|---|---|---|---|---|\n");
  try {
    for (const std::string& file : files) {
      auto wanted = [&](const char* m) {
        return ("," + methods + ",").find(std::string(",") + m + ",") != std::string::npos;
      };
      std::vector<Row> rows;
      if (wanted("sao")) rows.push_back(run_sao(file));
      if (wanted("slsqp"))
        rows.push_back(run_direct(file, NLOPT_LD_SLSQP, "NLopt SLSQP", max_evals, ftol, max_time));
      if (wanted("slsqp-tight"))
        rows.push_back(
            run_direct(file, NLOPT_LD_SLSQP, "NLopt SLSQP, ftol 1e-6", max_evals, 1e-6, max_time));
      if (wanted("mma"))
        rows.push_back(run_direct(file, NLOPT_LD_MMA, "NLopt MMA", max_evals, ftol, max_time));
      if (wanted("cobyla"))
        rows.push_back(
            run_direct(file, NLOPT_LN_COBYLA, "NLopt COBYLA", max_evals, ftol, max_time));
      for (const Row& r : rows) {
        std::printf("| %s | %s | %s | %.6g | %.3g | %d | %d | %d | %.2f |\n", r.study.c_str(),
                    r.method.c_str(), r.status.c_str(), r.objective, r.violation, r.analyses,
                    r.gradients, r.runs, r.seconds);
        std::fflush(stdout);
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
