// A study coupled directly to NLopt or IPOPT, without SAO: the benchmark baselines of
// sao_compare (bench/compare/main.cpp) and sao_suite (bench/suite/).
//
// The direct coupling sees the study as the SAO driver does: the objective and every
// constraint at every time point (normalised at the start as the driver normalises them,
// g_hat = s (g - c) / N), the bounds, the auxiliary variables of the bound formulation as
// ordinary variables. Function values and gradients at a design come from one analysis (cached
// by design, as the driver caches them): `analyses` counts designs analysed, `gradients` the
// analyses with sensitivities, `runs` every simulator execution (finite-difference
// perturbations included). Stopping: relative change of the objective below `ftol` (the
// study's objacc when 0), of the variables below 1e-6, constraint tolerance vioacc (from the
// study's settings), the evaluation limit or the time limit.
//
// Scaling (DirectSettings::scaled, what sao_compare uses): the optimizer sees the variables
// divided by their ranges and the objective divided by its magnitude at the start
// (direct_scaling below), as one would hand any badly scaled problem to NLopt or IPOPT; the
// rows are normalised either way. Unscaled, SLSQP's first quasi-Newton step is the raw
// gradient (a spring stiffness of 1e4 N/m moves by its derivative, 1e-7) and IPOPT's
// tolerances are absolute in the objective's units.
#pragma once

#include <nlopt.h>

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "sao/seam/simulator.hpp"
#include "sao/study/study.hpp"

namespace sao::bench {

struct DirectSettings {
  nlopt_algorithm algorithm = NLOPT_LD_SLSQP;  // gradients from the simulator unless COBYLA
  int max_evals = 300;
  double ftol = 0;         // relative objective tolerance; 0: the study's objacc
  double max_time = 0;     // seconds; 0: no limit
  bool scaled = false;     // the problem as direct_scaling scales it
  std::string log_file{};  // IPOPT: its iteration log (file_print_level 5) into this file
};

// The optimizer's view of a scaled problem: u = x / variables (element-wise), f = F / objective.
struct DirectScaling {
  Eigen::VectorXd variables;  // each variable's range; max(|x_start|, 1) without two bounds
  double objective = 1.0;     // |F| at the start; 1 when it is 0 or not finite
};
DirectScaling direct_scaling(const Study& study, const Eigen::VectorXd& x_start, double f_start);

// One analysis of a direct run, in the order the optimizer asked for it (a gradient analysis
// at a design already analysed counts in `gradients`, not in `analyses`).
struct DirectAnalysis {
  int analyses = 0, gradients = 0, runs = 0;  // the counts after it
  double objective = NAN, violation = NAN;    // user sign; max violation in %
};

struct DirectResult {
  std::string status;  // "converged", "eval limit", "time limit", "failed (code)", with a
                       // note when analyses failed on the way
  Eigen::VectorXd x;   // the final design (design and auxiliary variables)
  double objective = NAN, violation = NAN, seconds = 0;  // user sign; max violation in %
  int analyses = 0, gradients = 0, runs = 0;
  std::string reason;                   // the library's return code, e.g. "NLOPT_FTOL_REACHED"
  std::vector<DirectAnalysis> history;  // every analysis, in order
};

// Minimises the study from its start with NLopt on `simulator` (the study's own or a
// wrapper of it); objective and violation at the final design from one more analysis,
// which is not counted.
DirectResult run_direct(const LoadedStudy& study, Simulator& simulator,
                        const DirectSettings& settings);

// The same problem with IPOPT (its C interface; `settings.algorithm` is not used): the rows and
// finite-difference gradients as above, an equality's two opposite rows given to IPOPT as one
// equality row, the Hessian of the Lagrangian replaced by IPOPT's limited-memory quasi-Newton
// approximation. Stopping: IPOPT's tolerance `tol` = `ftol` (the study's objacc when 0),
// `constr_viol_tol` = vioacc (the study's, on the normalised rows), the evaluation limit (designs
// analysed, checked after every iteration: "eval limit") or the time limit ("time limit").
DirectResult run_ipopt(const LoadedStudy& study, Simulator& simulator,
                       const DirectSettings& settings);

// A simulator that counts what another one runs: every execution of every batch (the
// Evaluation's cost.runs, perturbations included), whoever asks. The benchmarks give it to
// SAO and to the direct couplings alike, so runs are counted the same way for every method.
class CountingSimulator final : public Simulator {
 public:
  explicit CountingSimulator(Simulator& inner) : inner_(inner) {}
  std::vector<ResponseInfo> responses() const override { return inner_.responses(); }
  std::vector<Evaluation> evaluate(const std::vector<EvaluationRequest>& batch) override;
  std::string fingerprint() const override { return inner_.fingerprint(); }
  int runs() const { return runs_; }

 private:
  Simulator& inner_;
  int runs_ = 0;
};

}  // namespace sao::bench
