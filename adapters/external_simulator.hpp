// The external-code adapter (SPEC 7, issue 6): a black-box program becomes a Simulator.
// For every run (a design, possibly with one variable perturbed, in one load case) it
//   1. creates a fresh working directory, writes the input templates with their placeholders
//      replaced by values of design variables, explicit relations of them, constants and
//      load-case parameters (templates.hpp), and copies the declared support files;
//   2. runs the command (an argument list, no shell unless "shell": true) with its
//      environment and a time limit that kills the whole process group (process.hpp);
//   3. reads the responses from the files the code wrote (parsers.hpp);
//   4. removes the directory on success unless the study keeps them; failures always keep it.
// A batch (the nominal design with its finite-difference perturbations, plan points) fills a
// pool of `workers` concurrent runs. Finite differences use the step rule (4.10)
// delta_b = (1 + |b|) p, forward or central; a failed perturbed run is retried with half the
// step (`gradients.retries` times) before the evaluation fails.
//
// Every failure is a value (Evaluation::ok == false) whose message names the run directory,
// the design and what went wrong, and is logged; nothing here throws at run time.
// The study section is documented in docs/adapters.md.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "adapters/parsers.hpp"
#include "adapters/process.hpp"
#include "adapters/templates.hpp"
#include "sao/expr/expression.hpp"
#include "sao/seam/difference_batch.hpp"
#include "sao/seam/simulator.hpp"

namespace sao::adapters {

enum class Keep { kFailed, kAll };

struct ExternalSettings {
  std::filesystem::path program;  // resolved at construction
  std::vector<std::string> arguments;
  bool shell = false;
  std::map<std::string, std::string> environment;
  bool inherit_environment = true;
  double timeout_seconds = 3600.0;  // 0: none
  int workers = 1;
  std::filesystem::path run_directory = "sao-runs";  // each sao run gets a subfolder
  Keep keep = Keep::kFailed;
  std::vector<int> exit_codes = {0};
  bool central = false;
  double relative_step = 1e-3;  // p of (4.10)
  int retries = 2;              // halvings of the step of a failed perturbed run
  Delimiters delimiters;
};

class ExternalSimulator final : public Simulator {
 public:
  // Reads and checks the section, the templates (every placeholder known, every value used)
  // and the support files. Throws std::invalid_argument naming the JSON path.
  explicit ExternalSimulator(const SimulatorSetup& setup);
  ~ExternalSimulator() override;
  std::vector<ResponseInfo> responses() const override;
  // Throws std::invalid_argument for a malformed request only.
  std::vector<Evaluation> evaluate(const std::vector<EvaluationRequest>& batch) override;
  // The names and contents of the template and support files, so that a study store does not
  // re-use analyses made with other input files (the command's program is not included).
  std::string fingerprint() const override;

  const ExternalSettings& settings() const { return settings_; }
  // The folder holding this simulator's run directories (created on the first run).
  const std::filesystem::path& session_directory() const { return session_; }

 private:
  struct TemplateFile {
    std::filesystem::path source;
    std::string target;
    std::vector<bool> cases;              // applies to load case c
    Template text;                        // parsed
    std::vector<std::vector<int>> slots;  // per load case: value slot of each placeholder
  };
  struct SupportFile {
    std::filesystem::path source;
    std::string target;
  };
  struct CaseValues {                         // per load case: what placeholders can name
    std::vector<std::string> names;           // slot -> name
    std::vector<expr::ProgramPtr> relations;  // per entry of "values"
  };
  void run(BatchRun& job);
  bool run_once(BatchRun& job, const Eigen::VectorXd& design);
  // The text of every template of load case c for a design ("" for other cases' templates).
  bool render_inputs(size_t c, const Eigen::VectorXd& design, std::vector<std::string>& texts,
                     std::string& error) const;
  std::string label(const BatchRun& job, const Eigen::VectorXd& design) const;

  ExternalSettings settings_;
  std::vector<std::string> design_names_;
  std::vector<LoadCaseSpec> load_cases_;
  std::vector<std::string> value_names_;     // "values", in order
  std::map<std::string, double> constants_;  // "constants"
  std::vector<CaseValues> case_values_;
  std::vector<TemplateFile> templates_;
  std::vector<SupportFile> support_;
  std::vector<OutputSpec> outputs_;
  // [load case][design variable]: the variable reaches a template of the case.
  std::vector<std::vector<bool>> reaches_;
  std::filesystem::path session_;
  std::atomic<long> counter_{0};
};

// Registers the factory of type "external" with sao::register_simulator (idempotent).
void register_external_simulator();

}  // namespace sao::adapters
