// In-process simulators: a function called with a batch of designs of one load case, as a C
// plug-in (plugin_simulator.hpp, sao/plugin/sao_plugin.h) and a Python callable
// (sao/python/python_simulator.hpp) are. One implementation of what they share: the section's
// "gradients" and "workers", the seam's plan of runs (difference_batch.hpp: nominal and
// perturbed designs), one call per load case with every run of the batch (or, for a thread-safe
// function, one call per worker's share), and the assembly into evaluations. The values cross
// in one flat layout (FunctionLayout), the C interface's.
#pragma once

#include <string>
#include <vector>

#include "sao/seam/difference_batch.hpp"
#include "sao/seam/json_reader.hpp"
#include "sao/seam/simulator.hpp"

namespace sao::adapters {

// The section's keys shared by in-process simulators.
struct FunctionSettings {
  // "gradients": {"method": "forward" | "central" | "provided", "step": p}. "provided": the
  // function computes them (it must be able to); otherwise differences with step (4.10).
  DifferenceSettings differences{DifferenceOrder::kForward, 1e-3};
  bool provided = false;
  // "workers": concurrent calls of a thread-safe function (0: one per core); a function that is
  // not thread-safe is called from one thread at a time whatever this says.
  int workers = 0;
};
// Reads "gradients" and "workers" of `section`; `can_provide`: the function can compute
// gradients (otherwise "provided" is a problem naming `who`).
FunctionSettings read_function_settings(JsonReader& section, bool can_provide,
                                        const std::string& who);

// Where each response's values sit in a run's row of values: a scalar takes one, a history one
// per time point of the load case.
struct FunctionLayout {
  std::vector<int> offsets;  // per response
  int value_count = 0;
};
FunctionLayout function_layout(const std::vector<ResponseInfo>& responses, int points);
// A run's results from its row of values (and gradients, [value][design], or null).
CaseResult case_from_values(const std::vector<ResponseInfo>& responses,
                            const FunctionLayout& layout, const double* values,
                            const double* gradients, int design_count);

// One call of the function: the designs of some runs of one load case.
struct FunctionCall {
  int load_case = 0;
  Eigen::MatrixXd designs;      // rows: runs
  bool gradients = false;       // asked for (only when the function provides them)
  std::vector<BatchRun*> runs;  // to fill: ok, message, result (runs is set by the base)
};

class FunctionSimulator : public Simulator {
 public:
  std::vector<ResponseInfo> responses() const override { return responses_; }
  std::vector<Evaluation> evaluate(const std::vector<EvaluationRequest>& batch) override;

 protected:
  // `who` names the simulator in request errors ("plugin", "python").
  FunctionSimulator(const SimulatorSetup& setup, std::string who);
  // After the subclass knows them.
  void set_responses(std::vector<ResponseInfo> responses) { responses_ = std::move(responses); }
  void set_settings(const FunctionSettings& settings) { settings_ = settings; }
  // Evaluates one call: fills every run's ok, message and result. A failure of the call as a
  // whole fails each of its runs with the message. Must not throw.
  virtual void call(FunctionCall& call) = 0;
  // Whether call() may run concurrently.
  virtual bool thread_safe() const = 0;

  const std::vector<LoadCaseSpec>& load_cases() const { return load_cases_; }
  const std::vector<std::string>& design_names() const { return design_names_; }

 private:
  std::string who_;
  std::vector<std::string> design_names_;
  std::vector<LoadCaseSpec> load_cases_;
  std::vector<ResponseInfo> responses_;
  FunctionSettings settings_;
};

}  // namespace sao::adapters
