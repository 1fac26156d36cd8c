// The Simulator seam: the one door through which the SAO driver obtains analyses.
//
// In the flow of ARCHITECTURE.md the driver hands a batch of EvaluationRequests (designs,
// plus the derivatives it needs) to a Simulator and gets one Evaluation back per request.
// The driver never names a concrete simulator: the internal simulator (simulators/) and
// the external-code adapters (adapters/) both implement this interface, and a factory
// (make_simulator) picks one from the study's "simulator" section.
//
// Expected run-time failures (a diverged integration, a crashed external code) are values:
// Evaluation::ok == false with a message. Exceptions are for caller mistakes only.
#pragma once

#include <Eigen/Dense>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sao/seam/time_grid.hpp"

namespace sao {

// One load case as the simulator sees it: a name, the output grid and free parameters.
struct LoadCaseSpec {
  std::string name;
  TimeGrid grid;
  std::map<std::string, double> parameters;
};

// What a simulator can compute: response names and whether each is a history.
struct ResponseInfo {
  std::string name;
  bool history = false;
};

// Derivatives of one response in one load case. An empty `time_indices` means all of
// them (or the single value of a scalar).
struct DerivativeRequest {
  int load_case = 0;
  std::string response;
  std::vector<int> time_indices;
};

struct Evaluation;
class JobLedger;  // executor.hpp

// Finite differences by their order of accuracy, the value their runs per design variable:
// forward (b + h; error about f'' h / 2), central (b +- h; f''' h^2 / 6) and five-point
// (b +- h, b +- 2 h; f^(5) h^4 / 30).
enum class DifferenceOrder { kForward = 1, kCentral = 2, kFivePoint = 4 };

struct EvaluationRequest {
  Eigen::VectorXd design;                      // design variables only (never auxiliaries)
  std::vector<DerivativeRequest> derivatives;  // empty: values only
  // The values at `design` when the caller already holds them (an earlier analysis of the same
  // design): a simulator taking derivatives by finite differences then runs only the
  // perturbed designs, and returns these values as the nominal ones. Null: none.
  const Evaluation* values = nullptr;
  // Derivatives by finite differences: of at least this order for this request, even where the
  // simulator's settings ask for a lower one (the driver's switches when the differences limit
  // the run: Driver::raise_difference_order). No effect on derivatives computed otherwise, but
  // a simulator that falls back to differences (the internal one's `auto`) takes this order.
  DifferenceOrder differences = DifferenceOrder::kForward;
  // The design variables' bounds (empty: none): a central or five-point stencil that would
  // leave them is taken one-sided instead (b + h, b + 2 h, ...; or b - h, b - 2 h, ...), with
  // the same number of runs and of the same order (add_difference_runs).
  Eigen::VectorXd lower{}, upper{};
};

// CaseResult::gradient_method of finite differences (a simulator may add words after them).
inline constexpr const char* kForwardDifferences = "forward differences";
inline constexpr const char* kCentralDifferences = "central differences";
inline constexpr const char* kFivePointDifferences = "five-point differences";

// The runs per design variable of differences of this order (1, 2 or 4).
inline int difference_runs(DifferenceOrder order) {
  return static_cast<int>(order);
}

// CaseResult::gradient_method of differences of this order.
inline const char* difference_method(DifferenceOrder order) {
  switch (order) {
    case DifferenceOrder::kCentral:
      return kCentralDifferences;
    case DifferenceOrder::kFivePoint:
      return kFivePointDifferences;
    case DifferenceOrder::kForward:
      break;
  }
  return kForwardDifferences;
}

// Results for one load case.
struct CaseResult {
  std::map<std::string, double> scalars;
  std::map<std::string, Eigen::VectorXd> histories;  // values on the load case's grid
  // d(response)/d(design): rows = grid points (1 for a scalar), cols = design variables.
  // Rows that were not requested may be NaN.
  std::map<std::string, Eigen::MatrixXd> gradients;
  // How the simulator computed `gradients` ("direct (auto)", "adjoint", kForwardDifferences,
  // kCentralDifferences, ...); "" when it has none or does not say.
  std::string gradient_method;
  // The relative step p of the finite differences that gave `gradients` (h = (1 + |b|) p,
  // difference_batch.hpp); 0 when they are not finite differences or the simulator does not say.
  double difference_step = 0.0;
  // Time steps the simulator's integrator took in this load case (the forward integration);
  // -1 when it has none or does not say (external codes, explicit functions).
  long integrator_steps = -1;
};

struct EvaluationCost {
  double wall_seconds = 0.0;
  int runs = 0;  // simulator executions, perturbed ones included
};

struct Evaluation {
  bool ok = true;
  std::string message;  // why it failed, when !ok
  bool has_gradients = false;
  std::vector<CaseResult> cases;  // one per load case, in study order
  EvaluationCost cost;
};

// A failed analysis' message may span lines (and so may a run's or a cycle's message quoting
// it): its first line says what failed in brief, for the places of one line (a sentence, the
// cycle table, the status line); the lines after it detail it (a Python simulator's traceback)
// where the message is shown whole (the log, the store, result.json).
std::string message_headline(const std::string& message);
// The lines after the first; "" for a message of one line.
std::string message_details(const std::string& message);

class Simulator {
 public:
  virtual ~Simulator() = default;
  // Responses this simulator can deliver (used to validate studies).
  virtual std::vector<ResponseInfo> responses() const = 0;
  // Evaluates a batch of independent requests (may run them in parallel).
  virtual std::vector<Evaluation> evaluate(const std::vector<EvaluationRequest>& batch) = 0;
  // What the simulator's results depend on beyond its study section and the load cases:
  // the contents of files it reads (an external code's templates and support files). Stored
  // analyses are re-used only under the same fingerprint; "" when there is nothing more.
  virtual std::string fingerprint() const { return {}; }
  // Where a simulator that submits its runs as batch jobs (executor.hpp) keeps their ids, so
  // that a resumed run re-attaches to them (the study store); null: nowhere. Decorators forward.
  virtual void use_job_ledger(JobLedger* /*ledger*/) {}
  // No later request will ask for the gradients at a design analysed now (a command that only
  // analyses: evaluate, simulate; a cluster worker, one request per process): the simulator
  // need not prepare for them (an internal simulator keeps no forward pass for a later adjoint
  // gradient). The gradients a request asks for itself are computed as ever. Called between
  // evaluations. Decorators forward.
  virtual void expect_no_gradients() {}
};

// Checks that `request` fits a simulator with `design_variables` design variables, these load
// cases and responses: the design's length, and per derivative its load case, response and
// time indices. Throws std::invalid_argument("<who>::evaluate: ...") otherwise (a caller's
// mistake, not a failed analysis).
void check_request(const EvaluationRequest& request, const std::string& who,
                   size_t design_variables, const std::vector<LoadCaseSpec>& load_cases,
                   const std::vector<ResponseInfo>& responses);

// Everything a simulator factory needs from the study.
struct SimulatorSetup {
  nlohmann::json section;                 // the study's "simulator" object
  std::vector<std::string> design_names;  // design variable names, in order
  std::vector<LoadCaseSpec> load_cases;
  // Folder of the study file ("" for in-memory studies): relative paths in the section
  // (templates, support files, programs of external codes) are resolved against it.
  std::string study_directory;
};

// Simulator kinds are registered by name ("internal", "external") by the program that links
// them; the driver and the study loader only see this registry.
using SimulatorFactory = std::unique_ptr<Simulator> (*)(const SimulatorSetup& setup);
void register_simulator(const std::string& type, SimulatorFactory factory);
std::vector<std::string> registered_simulators();

// Builds the simulator named by setup.section["type"]. Throws std::invalid_argument with a
// message naming the JSON path ("simulator.type", "simulator.model", ...) when the section
// is wrong.
std::unique_ptr<Simulator> make_simulator(const SimulatorSetup& setup);

}  // namespace sao
