// The external simulator's configuration: the study's "simulator" section of type "external"
// read and checked into plain values, before anything runs (docs/adapters.md).
//
// read_external_config() reads the command, its environment and limits, the finite
// differences, the constants and values, the templates (every placeholder known in every
// load case it applies to, every value and constant used), the support files and the
// responses. It collects every problem of the section, each with its JSON path
// ("simulator.templates[0].file: cannot read ..."), and throws them together as one
// SectionError (sao/seam/json_reader.hpp).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "adapters/parsers.hpp"
#include "adapters/templates.hpp"
#include "sao/expr/expression.hpp"
#include "sao/seam/executor.hpp"
#include "sao/seam/run_directory.hpp"
#include "sao/seam/simulator.hpp"

namespace sao::adapters {

enum class Keep { kFailed, kAll };

// Where the code's stdout and stderr go in its run directory: no template or support file may
// be written there.
inline constexpr const char* kStdoutFile = "stdout.txt";
inline constexpr const char* kStderrFile = "stderr.txt";

// How the code is run and its derivatives taken.
struct ExternalSettings {
  std::filesystem::path program;  // resolved when the section is read
  std::vector<std::string> arguments;
  bool shell = false;
  std::map<std::string, std::string> environment;
  bool inherit_environment = true;
  // Only these variables of sao's environment reach the code (with `environment`); empty: all
  // of them when inherit_environment, none otherwise.
  std::vector<std::string> environment_allowlist;
  double timeout_seconds = 3600.0;  // 0: none
  int workers = 1;                  // concurrent runs of a batch (0: one per core)
  // Each sao run gets a subfolder. Without "run_directory", sao-runs in the current folder;
  // `sao run` gives its output folder's (run_directory_in, place_run_directory).
  std::filesystem::path run_directory = kRunDirectory;
  Keep keep = Keep::kFailed;
  std::vector<int> exit_codes = {0};
  bool central = false;
  double relative_step = 1e-3;  // p of (4.10)
  int retries = 2;              // halvings of the step of a failed perturbed run
  Delimiters delimiters;
  ExecutorSettings executor;  // "executor": where the runs execute (docs/cluster.md)
};

// An input template written into every run directory of the load cases it applies to.
struct TemplateFile {
  std::filesystem::path source;
  std::string target;                   // inside the run directory
  std::vector<bool> cases;              // applies to load case c
  Template text;                        // parsed
  std::vector<std::vector<int>> slots;  // per load case: value slot of each placeholder
};

// A file copied unchanged into every run directory.
struct SupportFile {
  std::filesystem::path source;
  std::string target;
};

// Per load case: what placeholders can name, by slot: the design variables, the "values",
// the "constants" and the load case's parameters, in this order.
struct CaseValues {
  std::vector<std::string> names;           // slot -> name
  std::vector<expr::ProgramPtr> relations;  // per entry of "values"
};

struct ExternalConfig {
  ExternalSettings settings;
  std::vector<std::string> design_names;
  std::vector<LoadCaseSpec> load_cases;
  std::map<std::string, double> constants;  // "constants"
  std::vector<CaseValues> case_values;      // per load case
  std::vector<TemplateFile> templates;
  std::vector<SupportFile> support;
  std::vector<OutputSpec> outputs;
  // [load case][design variable]: the variable reaches a template of the case.
  std::vector<std::vector<bool>> reaches;
};

// Reads and checks the section of `setup`. Throws a SectionError listing every problem.
ExternalConfig read_external_config(const SimulatorSetup& setup);

}  // namespace sao::adapters
