// The `sao` command: runs a study file cycle by cycle and writes its results.
//
//   sao run STUDY.json [--out DIR]   run the SAO loop, print the cycle table, write
//                                    DIR/result.json and DIR/history.csv
//   sao check STUDY.json             validate the study (and its simulator section) only
//
// Exit codes: 0 converged (run) or valid (check); 1 ended without convergence (cycle limit,
// infeasible); 2 bad input (study file, options); 3 the run failed (simulator, subproblem).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "adapters/external_simulator.hpp"
#include "sao/derived_responses.hpp"
#include "sao/driver.hpp"
#include "sao/gradient_check.hpp"
#include "sao/report.hpp"
#include "sao/study_loader.hpp"
#include "simulators/internal_simulator.hpp"

namespace {

struct Loaded {
  sao::Study study;
  std::unique_ptr<sao::Simulator> simulator;
};

// Loads the study and builds its simulator; prints every problem and returns nullopt.
std::optional<Loaded> load(const std::string& file, const std::vector<std::string>& overrides = {},
                           int start = 0) {
  try {
    nlohmann::json document = sao::read_study_document(file);
    for (const auto& assignment : overrides) sao::apply_override(document, assignment);
    Loaded l{sao::load_study(document, file), nullptr};
    if (start > 0) sao::use_start(l.study, start);
    try {
      l.simulator = sao::make_study_simulator(l.study);
    } catch (const std::invalid_argument& e) {
      throw sao::StudyError(file, {e.what()});
    }
    sao::check_against_simulator(l.study, *l.simulator);
    return l;
  } catch (const sao::StudyError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return std::nullopt;
  }
}

int run(const std::string& file, const std::string& out_dir, int max_cycles, bool quiet,
        const std::vector<std::string>& overrides, int start) {
  auto loaded = load(file, overrides, start);
  if (!loaded) return 2;
  sao::Study& study = loaded->study;
  if (max_cycles > 0) study.options.max_cycles = max_cycles;
  const std::string dir =
      out_dir.empty() ? "out/" + std::filesystem::path(file).stem().string() : out_dir;

  std::cout << "study " << study.name << " (" << study.n_design() << " design variables, "
            << study.constraints.size() << " constraints, " << study.load_cases.size()
            << " load case(s))\n";
  sao::Driver driver(study, *loaded->simulator);
  std::cout << sao::cycle_table_header(study) << "\n" << std::flush;
  bool printed_start = false;
  auto on_cycle = [&](const sao::CycleRecord& record) {
    if (!printed_start) {
      std::cout << sao::cycle_table_start(study, driver.summary(), record.x0) << "\n";
      printed_start = true;
    }
    if (!quiet || record.converged)
      std::cout << sao::cycle_table_row(study, record) << "\n" << std::flush;
    // Results are rewritten after every cycle: a killed run keeps what it computed.
    sao::write_results(dir, study, driver.summary());
  };
  const sao::RunSummary& summary = driver.run(on_cycle);
  sao::write_results(dir, study, summary);

  std::cout << "\nstatus     " << sao::to_string(summary.status) << ": " << summary.message << "\n";
  std::cout << "design    ";
  const auto result = sao::result_to_json(study, summary);
  for (const auto& [name, value] : result["design"].items()) {
    std::printf(" %s = %.6g", name.c_str(), value.get<double>());
  }
  std::printf("\nobjective  %.6g   (start %.6g)\n", summary.objective, summary.start_objective);
  std::printf("violation  %.3g %%   (start %.3g %%)\n", summary.max_violation,
              summary.start_violation);
  std::printf(
      "counts     %d cycles, %d analyses, %d sensitivity analyses, %d simulator runs (%.2f s)\n",
      summary.cycles, summary.analyses, summary.sensitivity_analyses, summary.simulator_runs,
      summary.simulator_seconds);
  std::cout << "written    " << dir << "/result.json, " << dir << "/history.csv\n";
  switch (summary.status) {
    case sao::RunStatus::kConverged:
      return 0;
    case sao::RunStatus::kFailed:
      return 3;
    default:
      return 1;
  }
}

int check_gradient(const std::string& file, const std::vector<std::string>& overrides, int start,
                   const sao::GradientCheckOptions& options) {
  auto loaded = load(file, overrides, start);
  if (!loaded) return 2;
  const sao::Study& study = loaded->study;
  Eigen::VectorXd design(study.n_design());
  for (int i = 0; i < study.n_design(); ++i) design(i) = study.design[i].initial;
  try {
    const sao::GradientCheck check =
        sao::check_gradients(study, *loaded->simulator, design, options);
    std::printf("%-14s %-10s %6s %-8s %14s %16s %16s %5s %10s\n", "response", "case", "point",
                "variable", "value", "simulator", "reference", "order", "rel. error");
    for (const auto& r : check.rows) {
      std::printf("%-14s %-10s %6d %-8s %14.8g %16.10g %16.10g %5d %10.2e\n", r.response.c_str(),
                  r.load_case.c_str(), r.point, r.variable.c_str(), r.value, r.analytic,
                  r.reference, r.order, r.relative_error);
    }
    std::printf("reference: extrapolated forward differences (seed 000, IV.C), %d analyses\n",
                check.analyses);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 3;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sao: sequential approximate optimization of multibody systems"};
  app.require_subcommand(1);
  std::string level = "warn";
  app.add_option("--log", level, "log level: trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));

  std::string study_file, out_dir;
  int max_cycles = 0;
  bool quiet = false;
  auto* run_cmd =
      app.add_subcommand("run", "run a study and write DIR/result.json, DIR/history.csv");
  run_cmd->add_option("study", study_file, "study file (JSON)")
      ->required()
      ->check(CLI::ExistingFile);
  run_cmd->add_option("--out", out_dir, "output folder (default: out/<study file name>)");
  run_cmd->add_option("--max-cycles", max_cycles, "override settings.max_cycles")
      ->check(CLI::PositiveNumber);
  run_cmd->add_flag("-q,--quiet", quiet, "print only the final result");
  std::vector<std::string> overrides;
  int start = 0;
  run_cmd->add_option("--set", overrides,
                      "override a study entry: path.to.key=value (e.g. settings.noise=2.5)");
  run_cmd->add_option("--start", start, "use start K of the study's \"starts\" (1-based)")
      ->check(CLI::PositiveNumber);

  std::string check_file;
  auto* check_cmd = app.add_subcommand("check", "validate a study file and its simulator section");
  check_cmd->add_option("study", check_file, "study file (JSON)")
      ->required()
      ->check(CLI::ExistingFile);

  std::string gradient_file;
  sao::GradientCheckOptions gradient_options;
  auto* gradient_cmd = app.add_subcommand(
      "check-gradient",
      "compare the simulator's sensitivities at the initial design with extrapolated finite "
      "differences (seed 000, IV.C)");
  gradient_cmd->add_option("study", gradient_file, "study file (JSON)")
      ->required()
      ->check(CLI::ExistingFile);
  gradient_cmd->add_option("--set", overrides, "override a study entry: path.to.key=value");
  gradient_cmd->add_option("--start", start, "use start K of the study's \"starts\" (1-based)")
      ->check(CLI::PositiveNumber);
  gradient_cmd->add_option("--point", gradient_options.point,
                           "time point of the histories (default: where |value| is largest)");
  gradient_cmd
      ->add_option("--step", gradient_options.relative_step,
                   "largest relative perturbation dp0 / (1 + |b|)")
      ->check(CLI::PositiveNumber);

  CLI11_PARSE(app, argc, argv);
  auto logger = spdlog::stderr_color_mt("sao");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(level));
  spdlog::set_pattern("%^[%l]%$ %v");
  sao::sim::register_internal_simulator();
  sao::adapters::register_external_simulator();

  if (*run_cmd) return run(study_file, out_dir, max_cycles, quiet, overrides, start);
  if (*gradient_cmd) return check_gradient(gradient_file, overrides, start, gradient_options);
  auto loaded = load(check_file);
  if (!loaded) return 2;
  std::cout << check_file << ": valid (" << loaded->study.n_design() << " design variables, "
            << loaded->study.constraints.size() << " constraints after expansion)\n";
  return 0;
}
