// The one batch of simulator runs behind Simulator::evaluate, shared by the internal
// simulator and the external-code adapter.
//
// A batch of requests becomes a plan of runs: per request and load case the nominal run (not
// run again when the request carries the values at its design, EvaluationRequest::values), then,
// when the request asks for derivatives and they come from finite differences, one run per
// design variable with b_i + h (and b_i - h for central differences; b_i +- h, b_i +- 2 h for
// five-point ones), h = (1 + |b_i|) p, the step rule (4.10) of seed 003. When the simulator
// computes derivatives itself (direct or adjoint), the nominal run carries the request's
// derivatives instead. The runs go to the process's worker pool (worker_pool.hpp); each writes only
// its own slot, so results do not depend on the order of execution. Then every request is assembled
// into one Evaluation: the first failed run fails it, and difference quotients give the gradient
// columns.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "sao/seam/json_reader.hpp"
#include "sao/seam/simulator.hpp"

namespace sao {

// How finite differences are taken.
struct DifferenceSettings {
  DifferenceOrder order = DifferenceOrder::kForward;
  double relative_step = 1e-3;  // p of (4.10)
};

// A simulator's setting "central" (true) or "forward" as an order.
inline DifferenceOrder difference_order(bool central) {
  return central ? DifferenceOrder::kCentral : DifferenceOrder::kForward;
}

// The settings for one request: the higher of the order the request asks for
// (EvaluationRequest::differences) and the settings' own.
inline DifferenceSettings request_differences(const DifferenceSettings& settings,
                                              const EvaluationRequest& request) {
  return {std::max(settings.order, request.differences), settings.relative_step};
}

// The step of a design variable at the value b: h = (1 + |b|) p, the rule (4.10).
inline double difference_step(double b, double relative_step) {
  return (1.0 + std::abs(b)) * relative_step;
}

// Concurrency of a simulator's batches: the section's "workers" (0: one per core).
// Reads the deprecated name `deprecated` too ("threads" of the internal simulator), with a
// warning naming the new one. `fallback` is the simulator's default.
int read_workers(JsonReader& section, int fallback, const char* deprecated = nullptr);

// One run of the plan: a design (with one variable perturbed, or not) in one load case.
struct BatchRun {
  const Eigen::VectorXd* design = nullptr;  // the request's design
  int load_case = 0;
  int variable = -1;  // the perturbed design variable, -1 for the nominal run
  double step = 0.0;  // signed perturbation; a runner that retries may change it (halving)
  // Set when the simulator computes the request's derivatives in this one run: the request (its
  // derivatives, and the order of differences and the bounds a simulator falling back to finite
  // differences in this run takes: the internal simulator's `auto`).
  const EvaluationRequest* request = nullptr;

  // The nominal values came with the request (EvaluationRequest::values): not run.
  bool known = false;

  // Filled by the runner.
  bool ok = false;
  std::string message;  // why it failed
  CaseResult result;
  int runs = 0;  // simulator executions this run took (retries included)
};

// A batch's plan: its runs, and where each request's runs start and how many each load case has.
struct BatchPlan {
  struct Request {
    size_t first = 0;
    int per_case = 1;
  };
  std::vector<BatchRun> runs;
  std::vector<Request> requests;
};
BatchPlan plan_batch(const std::vector<EvaluationRequest>& batch, int load_cases,
                     int design_variables, const DifferenceSettings& differences, bool analytic);
// The evaluations of a plan whose runs have run (`seconds`: the batch's wall time).
std::vector<Evaluation> assemble_batch(const std::vector<EvaluationRequest>& batch,
                                       const BatchPlan& plan, int load_cases, int design_variables,
                                       const DifferenceSettings& differences, double seconds);

// Plans `batch`, runs every run with `run` on at most `workers` threads (0: cores) and
// assembles the evaluations. `analytic`: the runner computes derivatives itself (one run per
// load case, BatchRun::derivatives set); otherwise they come from differences.
std::vector<Evaluation> run_batch(const std::vector<EvaluationRequest>& batch, int load_cases,
                                  int design_variables, const DifferenceSettings& differences,
                                  bool analytic, int workers,
                                  const std::function<void(BatchRun&)>& run);

// Appends the perturbed runs of design `b` in `load_case` as a plan lays them out: per design
// variable i < variables, b_i + h, then b_i - h for central differences, then b_i + 2 h and
// b_i - 2 h for five-point ones (runs hold a pointer to `b`). With bounds (`lower`, `upper`,
// empty: none), a stencil that would leave them and fits on one side is taken there: b_i + h,
// b_i + 2 h (at the lower bound; b_i + 3 h, b_i + 4 h for five points) or the same below b_i
// (at the upper one): the same runs, and a derivative of the same order
// (add_difference_gradients).
void add_difference_runs(std::vector<BatchRun>& runs, const Eigen::VectorXd& b, int variables,
                         int load_case, const DifferenceSettings& differences,
                         const Eigen::VectorXd& lower = {}, const Eigen::VectorXd& upper = {});

// Each variable's perturbed runs after `nominal`, in the order add_difference_runs appended
// them (`per_variable` runs each, difference_runs of the order), for add_difference_gradients.
std::vector<std::vector<const BatchRun*>> stencils(const BatchRun* nominal, int variables,
                                                   int per_variable);

// Fills nominal.gradients for every history and scalar of `nominal` from each variable's
// perturbed runs (`stencils[i]`, 1, 2 or 4 runs): column i is (f(b + s) - f(b)) / s for one
// run, (f(b + s1) - f(b + s2)) / (s1 - s2) for a pair of steps of opposite signs, and otherwise
// (a pair on one side of b, at a bound, or four runs) the slope at b of the polynomial through
// (0, f(b)) and every distinct (s_k, f(b + s_k)) (a retry may halve a step onto another's).
void add_difference_gradients(CaseResult& nominal,
                              const std::vector<std::vector<const BatchRun*>>& stencils);

}  // namespace sao
