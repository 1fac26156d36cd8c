// The internal simulator: models of simulators/models/model.hpp integrated with CVODES, with
// sensitivities by finite differences (seed 003, 4.1 and 4.7; step (4.10):
// delta_b_i = (1 + |b_i|) p). It implements the Simulator seam of sao/seam/simulator.hpp and is
// built by make_simulator from a study section such as
//   {"type": "internal", "model": "impact-absorber", "parameters": {"k": "b1", "c": "b2"},
//    "constants": {}, "rtol": 1e-8, "atol": 1e-10, "max_steps": 100000,
//    "gradients": {"method": "forward", "step": 1e-3}, "workers": 0}
// The driver never sees this class.
//
// A batch is split by the seam's run_batch into independent jobs (one integration per
// request, load case and perturbation) that run on the process's worker pool; each job writes
// only its own slot, so the results do not depend on the number of workers. For ODE models,
// "direct" and "adjoint" sensitivities (simulators/sensitivities/: CVODES forward
// sensitivities, CVODES adjoint with checkpointing) use the exact Jacobians of the model's
// templated equations; "auto" picks the one the costs measured on the model's runs make cheaper.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sao/seam/difference_batch.hpp"
#include "sao/seam/executor.hpp"
#include "sao/seam/json_reader.hpp"
#include "sao/seam/simulator.hpp"
#include "simulators/integrator/cvodes_integrator.hpp"
#include "simulators/models/model.hpp"
#include "simulators/sensitivities/method_choice.hpp"

namespace sao::sim {

struct SensitivityProblem;  // simulators/sensitivities/sensitivities.hpp

// How sensitivities are computed (gradients.method).
enum class GradientMethod {
  kForward,  // forward differences: n perturbed runs
  kCentral,  // central differences: 2n perturbed runs
  kDirect,   // direct differentiation: CVODES forward sensitivities, one run
  kAdjoint,  // adjoint: one forward run, one backward solve per requested value
  kAuto,     // direct or adjoint, whichever the costs measured in the load case make cheaper
             // (method_choice.hpp); the discrete adjoint for a model integrated by the
             // variational integrator
  kDiscreteAdjoint,  // the adjoint of the variational integrator's discrete map
};
const char* to_string(GradientMethod method);

// The section's settings, parsed once; defaults in class.
struct InternalSettings {
  IntegratorSettings integrator;  // rtol, atol, max_steps (BDF)
  GradientMethod method = GradientMethod::kForward;
  bool central = false;         // method == kCentral
  double relative_step = 1e-3;  // gradients.step: p of (4.10)
  // gradients.keep_forward: an analysis of a design (not a finite-difference run) keeps its
  // forward pass when an adjoint gradient may follow (method adjoint, or auto before its first
  // run in the load case and while it takes the adjoint), and a gradient at that very design
  // integrates the backward problem only.
  bool keep_forward = true;
  int workers = 0;            // concurrent runs of a batch; 0: one per core
  ExecutorSettings executor;  // "executor": local, or each request a job (docs/cluster.md)
};

// Where the value of one model parameter comes from.
struct ParameterSource {
  int design_index = -1;  // index into the design vector, or -1 for a constant
  double constant = 0.0;  // the value when design_index < 0
};

class InternalSimulator final : public Simulator {
 public:
  // Throws a SectionError with every problem of a bad section or load case, each naming its
  // JSON path ("simulator.<key>", "load_cases[i].<key>").
  explicit InternalSimulator(const SimulatorSetup& setup);
  std::vector<ResponseInfo> responses() const override;
  // Throws std::invalid_argument for a malformed request (design size, derivative request
  // naming an unknown load case, response or time index); a failed integration is a value.
  std::vector<Evaluation> evaluate(const std::vector<EvaluationRequest>& batch) override;
  void use_job_ledger(JobLedger* ledger) override { ledger_ = ledger; }
  // keep_forward off from now on, and any kept pass freed (between evaluations).
  void expect_no_gradients() override;

  const InternalSettings& settings() const { return settings_; }
  const Model& model() const { return *model_; }
  // One per model parameter, in the order of model().parameters().
  const std::vector<ParameterSource>& parameter_sources() const { return sources_; }

 private:
  // The model named by simulator.model (and described by simulator.multibody), or null with
  // the problem recorded.
  const Model* read_model(JsonReader& section);
  // The model of "model": "functions" from simulator.functions, or null with the problems.
  const Model* read_functions(JsonReader& section);
  void run(BatchRun& job) const;
  // The analysis of job (its design, or a finite-difference run's), keeping its forward pass
  // for an adjoint gradient next when `keep`.
  void analyse(BatchRun& job, bool keep) const;
  // The model's step_note on an analysis of `steps` integrator steps (-1: none counted), warned
  // with the first note of the simulator's life only.
  void note_steps(const Eigen::VectorXd& p, const LoadCaseSpec& lc, long steps) const;
  // A run with direct or adjoint derivatives (simulators/sensitivities/).
  void run_sensitivities(BatchRun& job) const;
  // auto's last resort when both the direct and the adjoint method failed: finite differences
  // of every design variable (the gradients' step) in this job, of the order the request asks
  // for (forward unless the driver raised it) and inside its bounds; returns "" or why they
  // failed.
  // `first` and `second` failed, the second for `why`: logged as a warning. On success the job
  // is done (its method names the differences and both failures).
  std::string fallback_differences(BatchRun& job, GradientMethod first, GradientMethod second,
                                   const std::string& why) const;
  // The order of those differences: the request's (forward unless the driver raised it). Both
  // for a job with derivatives (job.request set: run_sensitivities' jobs).
  DifferenceOrder fallback_order(const BatchRun& job) const;
  // "" when every row of a direct or adjoint run is finite, else which value and variable is
  // not.
  std::string non_finite(const Eigen::MatrixXd& rows, const SensitivityProblem& problem) const;
  // The derivatives of `problem` by `method` into job.result and `rows`, the cost recorded for
  // auto's choice; returns "" or why it failed.
  std::string differentiate(BatchRun& job, const SensitivityProblem& problem, GradientMethod method,
                            Eigen::MatrixXd& rows) const;
  // Whether an analysis in the load case keeps its forward pass (keep_forward).
  bool keeps_forward(int load_case) const;
  // The load case's kept forward pass if it ran at parameters p, else null; the load case
  // keeps none afterwards.
  std::unique_ptr<ForwardPass> take_kept(int load_case, const Eigen::VectorXd& p) const;

  const Model* model_ = nullptr;
  std::unique_ptr<Model> owned_model_;  // a model described in the section (multibody, functions)
  InternalSettings settings_;
  std::vector<std::string> design_names_;
  std::vector<LoadCaseSpec> load_cases_;
  std::vector<ParameterSource> sources_;
  // With a batch executor: each request is a job running `sao analyse` (analysis_request.hpp).
  SimulatorSetup setup_;
  std::unique_ptr<BatchExecutor> executor_;
  JobLedger* ledger_ = nullptr;
  // The costs of analyses and of direct and adjoint runs, per load case, for "auto".
  std::unique_ptr<MethodChooser> chooser_;
  // Per load case, the latest analysis's kept forward pass and the parameters it ran at.
  struct KeptPass {
    Eigen::VectorXd p;
    std::unique_ptr<ForwardPass> pass;
  };
  mutable std::atomic<bool> steps_noted_{false};  // a model's step_note warned once
  mutable std::mutex kept_mutex_;
  mutable std::vector<KeptPass> kept_;
};

// Registers the factory of type "internal" with sao::register_simulator (idempotent).
void register_internal_simulator();

}  // namespace sao::sim
