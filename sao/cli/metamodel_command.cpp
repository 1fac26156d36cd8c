#include "sao/cli/metamodel_command.hpp"

#include <iostream>
#include <stdexcept>

#include "sao/cli/exit_codes.hpp"
#include "sao/store/study_session.hpp"

namespace sao::cli {

CLI::App* add_metamodel_command(CLI::App& app, MetamodelCommand& command) {
  CLI::App* cmd = app.add_subcommand(
      "metamodel",
      "global metamodels (polynomials, RBF, kriging) of every response from the analyses of "
      "DIR's store: leave-one-out accuracy and Sobol indices (docs/metamodels.md)");
  cmd->add_option("dir", command.dir, "study directory (or its study.sqlite)")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--models", command.models,
                  "the models, comma-separated: linear, interactions, quadratic, rbf, kriging "
                  "(default linear,quadratic,rbf,kriging)")
      ->delimiter(',');
  cmd->add_option("--response", command.request.responses,
                  "only this response, objective or constraint (or one value, e.g. "
                  "hump.deflection.max); repeatable");
  cmd->add_option("--sobol-model", command.request.sobol_model,
                  "the model the Sobol indices come from (default: each value's best; none: no "
                  "indices)");
  cmd->add_option("--sobol-samples", command.request.sobol_samples,
                  "base points N of the Sobol estimate (>= 64; N (n + 2) predictions per value; "
                  "default 4096)")
      ->check(CLI::Range(64, 1 << 22));
  cmd->add_option("--seed", command.request.seed,
                  "the seed of kriging's likelihood starts and of the Sobol sample (default 1)");
  cmd->add_flag("--json", command.json, "the report as one JSON document");
  return cmd;
}

int metamodel(const MetamodelCommand& command) {
  report::MetamodelRequest request = command.request;
  request.models = command.models;
  report::MetamodelReport r;
  try {
    r = report::metamodel_report(store_file(command.dir), request);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());  // an unknown name, too few analyses: bad input
  }
  if (command.json) {
    std::cout << report::metamodel_report_json(r).dump(2) << "\n";
  } else {
    std::cout << report::metamodel_report_text(r);
  }
  return kOk;
}

}  // namespace sao::cli
