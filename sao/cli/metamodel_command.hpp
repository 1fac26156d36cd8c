// `sao metamodel DIR [--models linear,quadratic,rbf,kriging] [--response NAME ...]
// [--sobol-model NAME|none] [--sobol-samples N] [--seed K] [--json]` (issue 50,
// docs/metamodels.md): global metamodels of every response of the study in DIR from the
// analyses its store holds (sao/report/metamodel_report.hpp): per value (a scalar per load case,
// a history's maximum and its time, the objective, each constraint's worst value) the models'
// leave-one-out accuracy, the best marked, and Sobol indices from the best model. Reads the
// store only (it may be read-only, and a run may be working on it).
//
// Exit codes: 0 the report printed (also when some models were skipped: each says why); 2 bad
// input (a folder without a study store, an unknown model or response, a store with too few
// analyses for the cheapest model asked, a stored study that no longer loads); 3 I/O (a store
// that cannot be read).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "sao/report/metamodel_report.hpp"

namespace sao::cli {

struct MetamodelCommand {
  std::string dir;
  std::vector<std::string> models;  // --models a,b (or repeated)
  report::MetamodelRequest request;
  bool json = false;
};

CLI::App* add_metamodel_command(CLI::App& app, MetamodelCommand& command);

// Prints the report; the exit code (above). Throws the errors run_guarded maps (an
// std::invalid_argument of the report becomes a UsageError: exit 2).
int metamodel(const MetamodelCommand& command);

}  // namespace sao::cli
