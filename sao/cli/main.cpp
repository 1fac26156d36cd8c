// The `sao` command: runs a study file cycle by cycle and writes its results.
//
//   sao run STUDY.json [--out DIR]   run the SAO loop, print the cycle table, write
//                                    DIR/result.json and DIR/history.csv
//   sao check STUDY.json             validate the study (and its simulator section) only
//   sao run DIR, step, status, set, restart   the study store of DIR (store_commands.hpp)
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
#include "sao/study/open_study.hpp"
#include "sao/optimizer/driver.hpp"
#include "sao/report/evaluate.hpp"
#include "sao/report/gradient_check.hpp"
#include "sao/report/report.hpp"
#include "sao/cli/store_commands.hpp"
#include "sao/study/study_loader.hpp"
#include "sao/store/sweep.hpp"
#include "simulators/internal_simulator.hpp"

namespace {

using Loaded = sao::OpenedStudy;

// Opens the study (open_study); prints every problem and returns nullopt.
std::optional<Loaded> load(const std::string& file, const std::vector<std::string>& overrides = {},
                           int start = 0) {
  try {
    return sao::open_study(file, overrides, start);
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

  std::cout << sao::run_summary_text(study, summary, false);
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

// Analyses the initial design (after --set / --start) and prints where it stands.
int evaluate(const std::string& file, const std::vector<std::string>& overrides, int start,
             const std::vector<std::string>& designs, const std::string& plot_dir) {
  auto loaded = load(file, overrides, start);
  if (!loaded) return 2;
  const sao::Study& study = loaded->study;
  std::vector<Eigen::VectorXd> xs{sao::initial_variables(study)};
  std::vector<std::string> labels{start > 0 ? "start " + std::to_string(start) : "start"};
  try {
    for (const std::string& d : designs) {
      xs.push_back(sao::variables_from_result(study, d));
      labels.push_back(std::filesystem::path(d).parent_path().filename().string());
    }
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  std::vector<sao::EvaluationRequest> batch;
  for (const auto& x : xs) batch.push_back({x.head(study.n_design()), {}});
  const std::vector<sao::Evaluation> e = loaded->simulator->evaluate(batch);
  for (size_t k = 0; k < e.size(); ++k) {
    if (!e[k].ok) {
      std::cerr << "error: the analysis of " << labels[k] << " failed: " << e[k].message << "\n";
      return 3;
    }
    if (xs.size() > 1) std::cout << (k ? "\n" : "") << "== " << labels[k] << "\n";
    std::cout << sao::design_report(study, e[k], xs[k]);
  }
  if (!plot_dir.empty()) {
    const auto files = sao::write_history_plots(plot_dir, study, labels, e);
    std::cout << "\nwritten    " << files.size() << " plots in " << plot_dir << "/\n";
  }
  return 0;
}

// The reference design of a sweep (e.g. the original damper): analysed once, placed on the
// compromise curve at the worst value of the swept constraint (or at the swept entry's value).
std::optional<sao::ReferencePoint> sweep_reference(const sao::SweepOptions& options,
                                                   const std::vector<std::string>& reference_set,
                                                   const std::string& label) {
  std::vector<std::string> all = options.overrides;
  all.insert(all.end(), reference_set.begin(), reference_set.end());
  auto loaded = load(options.study_file, all);
  if (!loaded) return std::nullopt;
  const sao::Study& study = loaded->study;
  const Eigen::VectorXd x = sao::initial_variables(study);
  sao::EvaluationRequest request;
  request.design = x.head(study.n_design());
  const auto e = loaded->simulator->evaluate({request});
  if (e.empty() || !e.front().ok) {
    std::cerr << "error: the reference design's analysis failed: "
              << (e.empty() ? "" : e.front().message) << "\n";
    return std::nullopt;
  }
  const sao::DesignSummary summary = sao::summarise_design(study, e.front(), x);
  sao::ReferencePoint r{label, 0.0, summary.objective};
  // "constraints.K.upper": the worst value of the parts of constraint K (its |.| signs and
  // load cases), found by the JSON path they were defined at.
  const std::string& key = options.range.key;
  const auto dot = key.find('.', 12);
  if (key.rfind("constraints.", 0) == 0 && dot != std::string::npos) {
    const std::string path = "constraints[" + key.substr(12, dot - 12) + "]";
    double worst = -INFINITY;
    for (size_t i = 0; i < study.constraints.size(); ++i) {
      if (study.constraints[i].path == path) worst = std::max(worst, summary.constraints[i].worst);
    }
    r.value = worst;
  } else {
    std::string pointer = "/" + key;
    std::replace(pointer.begin(), pointer.end(), '.', '/');
    r.value = loaded->document.at(nlohmann::json::json_pointer(pointer)).get<double>();
  }
  std::printf("reference  %s: %s = %.6g, objective %.6g\n", label.c_str(), key.c_str(), r.value,
              r.objective);
  return r;
}

int sweep(sao::SweepOptions options, const std::string& vary, const std::string& out_dir,
          const std::vector<std::string>& reference_set, const std::string& reference_label) {
  try {
    options.range = sao::parse_sweep_range(vary);
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  // Every member must load: check the first and the last value before running any.
  for (double v : {options.range.values.front(), options.range.values.back()}) {
    std::vector<std::string> all = options.overrides;
    char buf[64];
    std::snprintf(buf, sizeof buf, "=%.10g", v);
    all.push_back(options.range.key + buf);
    auto loaded = load(options.study_file, all, options.starts > 1 ? options.starts - 1 : 0);
    if (!loaded) return 2;
  }
  std::optional<sao::ReferencePoint> reference;
  if (!reference_set.empty()) {
    reference = sweep_reference(options, reference_set, reference_label);
    if (!reference) return 2;
  }
  const std::string dir =
      out_dir.empty()
          ? "out/" + std::filesystem::path(options.study_file).stem().string() + "-sweep"
          : out_dir;
  std::printf("%-12s %5s %-10s %12s %9s %6s %8s %8s\n", "value", "start", "status", "objective",
              "V[%]", "cycles", "analyses", "runs");
  const sao::SweepResult result =
      sao::run_sweep(options, [](const sao::SweepMember& m, int done, int total) {
        std::printf("%-12.6g %5d %-10s %12.6g %9.3g %6d %8d %8d   (%d/%d)\n", m.value, m.start,
                    m.error.empty() ? sao::to_string(m.summary.status) : "error",
                    m.summary.objective, m.summary.max_violation, m.summary.cycles,
                    m.summary.analyses, m.summary.simulator_runs, done, total);
        if (!m.error.empty()) std::printf("             %s\n", m.error.c_str());
        std::fflush(stdout);
      });
  std::vector<sao::ReferencePoint> references;
  if (reference) references.push_back(*reference);
  const nlohmann::json doc = sao::read_study_document(options.study_file);
  const std::string objective_name =
      doc.contains("objective") ? doc["objective"].value("name", "objective") : "objective";
  sao::write_sweep(dir, options, result, references, objective_name);
  int failed = 0;
  for (const auto& m : result.members) failed += !m.error.empty();
  std::printf("\n%zu members, %d simulator runs, %d analyses shared between members, %.1f s\n",
              result.members.size(), result.simulator_runs, result.cache_hits, result.wall_seconds);
  std::cout << "written    " << dir << "/sweep.csv, " << dir << "/compromise.csv, " << dir
            << "/compromise.svg\n";
  return failed ? 3 : 0;
}

// The options every command on a study file shares: the file, --set and --start.
void add_study_file(CLI::App* cmd, std::string& file) {
  cmd->add_option("study", file, "study file (JSON)")->required()->check(CLI::ExistingFile);
}
void add_study_overrides(CLI::App* cmd, std::vector<std::string>& overrides, int& start) {
  cmd->add_option("--set", overrides,
                  "override a study entry: path.to.key=value (e.g. settings.noise=2.5)");
  cmd->add_option("--start", start, "use start K of the study's \"starts\" (1-based)")
      ->check(CLI::PositiveNumber);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sao: sequential approximate optimization of multibody systems"};
  app.require_subcommand(1);
  app.fallthrough();  // --log after the subcommand too: sao run STUDY.json --log info
  std::string level = "warn";
  app.add_option("--log", level, "log level: trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));

  std::string study_file, out_dir;
  int max_cycles = 0;
  bool quiet = false;
  auto* run_cmd =
      app.add_subcommand("run", "run a study and write DIR/result.json, DIR/history.csv");
  run_cmd->add_option("study", study_file, "study file (JSON), or a study directory to resume")
      ->required()
      ->check(CLI::ExistingPath);
  run_cmd->add_option("--out", out_dir, "output folder (default: out/<study file name>)");
  run_cmd->add_option("--max-cycles", max_cycles, "override settings.max_cycles")
      ->check(CLI::PositiveNumber);
  run_cmd->add_flag("-q,--quiet", quiet, "print only the final result");
  bool no_store = false, json = false;
  run_cmd->add_flag("--no-store", no_store, "keep no study store (DIR/study.sqlite): no resume");
  run_cmd->add_flag("--json", json, "progress and results as JSON lines");
  std::vector<std::string> overrides;
  int start = 0;
  add_study_overrides(run_cmd, overrides, start);

  std::string check_file;
  auto* check_cmd = app.add_subcommand("check", "validate a study file and its simulator section");
  add_study_file(check_cmd, check_file);

  std::string gradient_file;
  sao::GradientCheckOptions gradient_options;
  auto* gradient_cmd = app.add_subcommand(
      "check-gradient",
      "compare the simulator's sensitivities at the initial design with extrapolated finite "
      "differences (seed 000, IV.C)");
  add_study_file(gradient_cmd, gradient_file);
  add_study_overrides(gradient_cmd, overrides, start);
  gradient_cmd->add_option("--point", gradient_options.point,
                           "time point of the histories (default: where |value| is largest)");
  gradient_cmd
      ->add_option("--step", gradient_options.relative_step,
                   "largest relative perturbation dp0 / (1 + |b|)")
      ->check(CLI::PositiveNumber);

  std::string evaluate_file;
  auto* evaluate_cmd = app.add_subcommand(
      "evaluate",
      "analyse the initial design and print the objective, every constraint's worst "
      "point and the range of every response");
  add_study_file(evaluate_cmd, evaluate_file);
  add_study_overrides(evaluate_cmd, overrides, start);
  std::vector<std::string> evaluate_designs;
  std::string plot_dir;
  evaluate_cmd
      ->add_option("--design", evaluate_designs,
                   "also analyse the design of a result file (DIR/result.json of sao run); "
                   "repeatable")
      ->check(CLI::ExistingFile);
  evaluate_cmd->add_option("--plot", plot_dir,
                           "write DIR/<case>-<response>.svg: every history, one line per design");

  sao::SweepOptions sweep_options;
  std::string vary, sweep_out, reference_label = "reference";
  std::vector<std::string> reference_set;
  auto* sweep_cmd = app.add_subcommand(
      "sweep",
      "run a family of studies over one entry (e.g. a constraint bound) from one or "
      "more starts, in parallel, and write the compromise curve (CSV and SVG)");
  add_study_file(sweep_cmd, sweep_options.study_file);
  sweep_cmd
      ->add_option("--vary", vary,
                   "the swept entry: KEY=FIRST:LAST:STEP or KEY=V1,V2,... "
                   "(e.g. constraints.0.upper=15.5:25:0.5)")
      ->required();
  sweep_cmd->add_option("--set", sweep_options.overrides,
                        "override a study entry for every member: path.to.key=value");
  sweep_cmd
      ->add_option("--starts", sweep_options.starts,
                   "starts per value: the initial design and the study's starts 1..N-1")
      ->check(CLI::PositiveNumber);
  sweep_cmd->add_option("--jobs", sweep_options.jobs, "members run at once (default: cores)")
      ->check(CLI::NonNegativeNumber);
  sweep_cmd->add_option("--max-cycles", sweep_options.max_cycles, "override settings.max_cycles")
      ->check(CLI::PositiveNumber);
  sweep_cmd->add_option("--out", sweep_out, "output folder (default: out/<study>-sweep)");
  sweep_cmd->add_option("--reference-set", reference_set,
                        "an override giving the reference design marked on the curve "
                        "(repeatable; e.g. load_cases.0.parameters.extra=0)");
  sweep_cmd->add_option("--reference-label", reference_label, "its label (default: reference)");

  sao::cli::add_store_commands(app);
  CLI11_PARSE(app, argc, argv);
  auto logger = spdlog::stderr_color_mt("sao");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(level));
  spdlog::set_pattern("%^[%l]%$ %v");
  sao::sim::register_internal_simulator();
  sao::adapters::register_external_simulator();

  if (const int rc = sao::cli::run_store_commands(); rc >= 0) return rc;
  if (*run_cmd && !no_store) {
    const auto output = json    ? sao::cli::Output::kJson
                        : quiet ? sao::cli::Output::kQuiet
                                : sao::cli::Output::kTable;
    return sao::cli::run_with_store(study_file, out_dir, max_cycles, output, overrides, start);
  }
  if (*run_cmd) return run(study_file, out_dir, max_cycles, quiet, overrides, start);
  if (*sweep_cmd) return sweep(sweep_options, vary, sweep_out, reference_set, reference_label);
  if (*evaluate_cmd) return evaluate(evaluate_file, overrides, start, evaluate_designs, plot_dir);
  if (*gradient_cmd) return check_gradient(gradient_file, overrides, start, gradient_options);
  auto loaded = load(check_file);
  if (!loaded) return 2;
  std::cout << check_file << ": valid (" << loaded->study.n_design() << " design variables, "
            << loaded->study.constraints.size() << " constraints after expansion)\n";
  return 0;
}
