// The `sao` command: runs a study file cycle by cycle and writes its results.
//
//   sao run STUDY.json [--out DIR]   run the SAO loop, print the cycle table, write
//                                    DIR/result.json, DIR/history.csv and the study store
//                                    DIR/study.sqlite (--no-store: no store, no resume)
//   sao check STUDY.json             validate the study (and its simulator section) only
//   sao evaluate / check-gradient / sweep STUDY.json   one design, the sensitivities, a family
//   sao simulate MODEL_OR_STUDY      one analysis, every history as CSV (simulate_command.hpp)
//   sao run DIR, step, status, set, restart, report   the study store of DIR (store_commands.hpp)
//   sao serve [--bind A] [--port N] [--data DIR]       the HTTP/JSON API and workbench
//   (sao/service)
//
// Every command opens its study with open_study() and ends through run_guarded(), the one
// mapping of outcomes and errors to exit codes (exit_codes.hpp).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "adapters/external_config.hpp"
#include "adapters/process_tree.hpp"
#include "adapters/sample_output.hpp"
#include "sao/cli/completion.hpp"
#include "sao/cli/doe_command.hpp"
#include "sao/cli/exit_codes.hpp"
#include "sao/cli/metamodel_command.hpp"
#include "sao/cli/robust_command.hpp"
#include "sao/cli/pareto_command.hpp"
#include "sao/cli/simulate_command.hpp"
#include "sao/cli/store_commands.hpp"
#include "sao/cli/study_json.hpp"
#include "sao/cli/validators.hpp"
#include "sao/components/standard_components.hpp"
#include "sao/optimizer/driver.hpp"
#ifdef SAO_EMBED_PYTHON
#include "sao/python/embedded_python.hpp"
#endif
#include "sao/report/evaluate.hpp"
#include "sao/report/gradient_check.hpp"
#include "sao/report/result_file.hpp"
#include "sao/report/sweep_files.hpp"
#include "sao/seam/analysis_request.hpp"
#include "sao/seam/json_text.hpp"
#include "sao/seam/run_directory.hpp"
#include "sao/service/service.hpp"
#include "sao/store/atomic_file.hpp"
#include "sao/store/sweep.hpp"
#include "sao/study/open_study.hpp"
#include "sao/study/study_loader.hpp"
#include "sao/version.hpp"

namespace {

// A study opened by a command that analyses without a run's output folder (evaluate,
// check-gradient): an external code's run directories go to OUT/sao-runs when --out is given,
// else to a temporary folder removed at the end unless it keeps a run (nothing is written in
// the current folder; docs/adapters.md, run_directory).
sao::OpenedStudy open_for_analyses(const std::string& file,
                                   const std::vector<std::string>& overrides, int start,
                                   const std::string& out, const std::string& command) {
  nlohmann::json document = sao::read_study_document(file, overrides);
  if (out.empty()) {
    sao::place_scratch_run_directory(document, command);
  } else {
    sao::place_run_directory(document, out);
  }
  return sao::open_study_document(std::move(document), file, start);
}

int check_gradient(const std::string& file, const std::vector<std::string>& overrides, int start,
                   const sao::GradientCheckOptions& options, bool json, const std::string& out) {
  const sao::OpenedStudy opened = open_for_analyses(file, overrides, start, out, "check-gradient");
  const sao::Study& study = opened.study;
  Eigen::VectorXd design(study.n_design());
  for (int i = 0; i < study.n_design(); ++i) design(i) = study.design[i].initial;
  const sao::GradientCheck check = sao::check_gradients(study, *opened.simulator, design, options);
  std::vector<std::string> hints = sao::cli::step_hints(study, opened.document, design);
  for (std::string& h : sao::cli::reference_hints(study, check, options.relative_step))
    hints.push_back(std::move(h));
  if (json) {
    std::cout << sao::cli::gradient_check_json(check, hints).dump(2) << "\n";
    return sao::cli::kOk;
  }
  std::printf("%-14s %-10s %6s %-8s %14s %16s %16s %5s %10s\n", "response", "case", "point",
              "variable", "value", "simulator", "reference", "order", "rel. error");
  for (const auto& r : check.rows) {
    std::printf("%-14s %-10s %6d %-8s %14.8g %16.10g %16.10g %5d %10.2e\n", r.response.c_str(),
                r.load_case.c_str(), r.point, r.variable.c_str(), r.value, r.analytic, r.reference,
                r.order, r.relative_error);
  }
  std::printf("reference: extrapolated forward differences (seed 000, IV.C), %d analyses\n",
              check.analyses);
  for (const std::string& hint : hints) std::printf("hint: %s\n", hint.c_str());
  return sao::cli::kOk;
}

// Analyses the initial design (after --set / --start) and prints where it stands.
int evaluate(const std::string& file, const std::vector<std::string>& overrides, int start,
             const std::vector<std::string>& designs, const std::string& plot_dir, bool json,
             bool all, const std::string& runs_out) {
  const sao::OpenedStudy opened = open_for_analyses(file, overrides, start, runs_out, "evaluate");
  const sao::Study& study = opened.study;
  std::vector<Eigen::VectorXd> xs{sao::initial_variables(study)};
  std::vector<std::string> labels{start > 0 ? "start " + std::to_string(start) : "start"};
  try {
    for (const std::string& d : designs) {
      xs.push_back(sao::variables_from_result(study, d));
      labels.push_back(std::filesystem::path(d).parent_path().filename().string());
    }
  } catch (const std::invalid_argument& e) {
    throw sao::cli::UsageError(e.what());
  }
  std::vector<sao::EvaluationRequest> batch;
  for (const auto& x : xs) batch.push_back({x.head(study.n_design()), {}});
  opened.simulator->expect_no_gradients();  // values only: no forward pass kept for one
  const std::vector<sao::Evaluation> e = opened.simulator->evaluate(batch);
  nlohmann::ordered_json out = {{"study", study.name},
                                {"designs", nlohmann::ordered_json::array()}};
  // A response, the objective or a constraint that is NaN or infinite: shown, and the command
  // ends as for a failed analysis (what `sao run` does with it).
  std::string unusable;
  for (size_t k = 0; k < e.size(); ++k) {
    if (!e[k].ok) {
      throw std::runtime_error("the analysis of " + labels[k] + " failed: " + e[k].message);
    }
    if (const std::string why = sao::unusable_analysis(study, xs[k], e[k]);
        !why.empty() && unusable.empty()) {
      unusable = "the analysis of " + labels[k] + " is unusable: " + why;
    }
    if (json) {
      out["designs"].push_back(sao::cli::design_json(study, e[k], xs[k], labels[k], all));
      continue;
    }
    if (xs.size() > 1) std::cout << (k ? "\n" : "") << "== " << labels[k] << "\n";
    std::cout << sao::design_report(study, e[k], xs[k], all);
  }
  if (!plot_dir.empty()) {
    const auto charts = sao::history_charts(
        study, labels, e, all ? sao::HistoryChoice::kAll : sao::HistoryChoice::kDeclared);
    const std::string file = sao::write_history_page(plot_dir, study.name + ": histories", charts);
    if (json) out["plots"] = {{"file", file}, {"charts", charts.size()}};
    if (!json) std::cout << "\nwritten    " << file << " (" << charts.size() << " charts)\n";
  }
  if (json) std::cout << out.dump(2) << "\n";
  if (!unusable.empty()) {
    std::cerr << "error: " << unusable << "\n";
    return sao::cli::kFailed;
  }
  return sao::cli::kOk;
}

// The reference design of a sweep (e.g. the original damper): analysed once, placed on the
// compromise curve at the worst value of the swept constraint (or at the swept entry's value).
sao::ReferencePoint sweep_reference(const sao::SweepOptions& options,
                                    const std::vector<std::string>& reference_set,
                                    const std::string& label, const std::string& dir, bool json,
                                    const nlohmann::ordered_json& units) {
  std::vector<std::string> all = options.overrides;
  all.insert(all.end(), reference_set.begin(), reference_set.end());
  const sao::OpenedStudy opened =
      open_for_analyses(options.study_file, all, 0, dir + "/reference", "sweep");
  const sao::Study& study = opened.study;
  const Eigen::VectorXd x = sao::initial_variables(study);
  sao::EvaluationRequest request;
  request.design = x.head(study.n_design());
  opened.simulator->expect_no_gradients();  // one analysis, values only
  const auto e = opened.simulator->evaluate({request});
  if (e.empty() || !e.front().ok) {
    throw std::runtime_error("the reference design's analysis failed: " +
                             (e.empty() ? std::string() : e.front().message));
  }
  const sao::DesignSummary summary = sao::summarise_design(study, e.front(), x);
  sao::ReferencePoint r{label, 0.0, summary.objective};
  // "constraints.K.upper" (K an index or a name): the worst value of the parts of constraint
  // K (its |.| signs and load cases), found by the JSON path they were defined at.
  const std::vector<std::string> parts =
      sao::resolve_study_path(opened.document, options.range.key, "--vary");
  if (parts.size() == 3 && parts[0] == "constraints") {
    const std::string path = "constraints[" + parts[1] + "]";
    double worst = -INFINITY;
    for (size_t i = 0; i < study.constraints.size(); ++i) {
      if (study.constraints[i].path == path) worst = std::max(worst, summary.constraints[i].worst);
    }
    r.value = worst;
  } else {
    nlohmann::json::json_pointer pointer;
    for (const std::string& part : parts) pointer /= part;
    if (!opened.document.contains(pointer) || !opened.document.at(pointer).is_number()) {
      throw sao::cli::UsageError("--vary " + options.range.key +
                                 ": the study has no number there to place the reference at");
    }
    r.value = opened.document.at(pointer).get<double>();
  }
  if (json) {
    std::cout << nlohmann::ordered_json({{"event", "reference"},
                                         {"label", label},
                                         {"key", options.range.key},
                                         {"value", r.value},
                                         {"objective", r.objective},
                                         {"units", units}})
                     .dump()
              << std::endl;
  } else {
    std::printf("reference  %s: %s = %.6g, objective %.6g\n", label.c_str(),
                options.range.key.c_str(), r.value, r.objective);
  }
  return r;
}

// The "units" of the sweep's JSON lines (units_json.hpp): of the varied entry's value (the
// study element's unit, for a key in it: study_path_unit) and of the objective, where declared.
nlohmann::ordered_json sweep_units(const nlohmann::json& doc, const std::string& key,
                                   const sao::Annotation& objective_note) {
  nlohmann::ordered_json units = nlohmann::ordered_json::object();
  if (const std::string unit = sao::study_path_unit(doc, key); !unit.empty()) units["value"] = unit;
  if (!objective_note.unit.empty()) units["objective"] = objective_note.unit;
  return units;
}

void print_sweep_member(const sao::SweepMember& m, int done, int total, bool json,
                        const nlohmann::ordered_json& units) {
  if (json) {
    std::cout << nlohmann::ordered_json(
                     {{"event", "member"},
                      {"value", m.value},
                      {"start", m.start},
                      {"status", m.error.empty() ? sao::to_string(m.summary.status) : "error"},
                      {"error", m.error},
                      {"objective", m.summary.objective},
                      {"max_violation", m.summary.max_violation},
                      {"cycles", m.summary.cycles},
                      {"analyses", m.summary.analyses},
                      {"simulator_runs", m.summary.simulator_runs},
                      {"done", done},
                      {"total", total},
                      {"units", units}})
                     .dump()
              << std::endl;
    return;
  }
  std::printf("%-12.6g %5d %-10s %12.6g %9.3g %6d %8d %8d   (%d/%d)\n", m.value, m.start,
              m.error.empty() ? sao::to_string(m.summary.status) : "error", m.summary.objective,
              m.summary.max_violation, m.summary.cycles, m.summary.analyses,
              m.summary.simulator_runs, done, total);
  if (!m.error.empty()) std::printf("             %s\n", m.error.c_str());
  std::fflush(stdout);
}

int sweep(sao::SweepOptions options, const std::string& vary, const std::string& out_dir,
          const std::vector<std::string>& reference_set, const std::string& reference_label,
          bool json) {
  try {
    options.range = sao::parse_sweep_range(vary);
  } catch (const std::invalid_argument& e) {
    throw sao::cli::UsageError(e.what());
  }
  sao::require_single_objective(sao::read_study_document(options.study_file), options.study_file);
  (void)sao::resolve_study_path(sao::read_study_document(options.study_file), options.range.key,
                                "--vary");
  // Every member must open: check the first and the last value before running any.
  for (double v : {options.range.values.front(), options.range.values.back()}) {
    std::vector<std::string> all = options.overrides;
    char buf[64];
    std::snprintf(buf, sizeof buf, "=%.10g", v);
    all.push_back(options.range.key + buf);
    (void)sao::open_study(options.study_file, all, options.starts > 1 ? options.starts - 1 : 0);
  }
  const std::string dir =
      out_dir.empty() ? sao::cli::default_output_folder(options.study_file) + "-sweep" : out_dir;
  const nlohmann::json doc = sao::read_study_document(options.study_file);
  const std::string objective_name =
      doc.contains("objective") ? doc["objective"].value("name", "objective") : "objective";
  // The compromise curve's axes: "label [unit]" of the varied element and of the objective.
  const nlohmann::json objective = doc.value("objective", nlohmann::json::object());
  const sao::Annotation objective_note{objective.value("unit", ""), objective.value("label", "")};
  const nlohmann::ordered_json units = sweep_units(doc, options.range.key, objective_note);
  std::vector<sao::ReferencePoint> references;
  if (!reference_set.empty()) {  // its external runs in DIR/reference/sao-runs
    references.push_back(
        sweep_reference(options, reference_set, reference_label, dir, json, units));
  }
  options.store_dir = dir + "/members";  // one study store per member: a killed sweep resumes
  if (!json) {
    std::printf("%-12s %5s %-10s %12s %9s %6s %8s %8s\n", "value", "start", "status", "objective",
                "V[%]", "cycles", "analyses", "runs");
  }
  const sao::SweepResult result =
      sao::run_sweep(options, [json, &units](const sao::SweepMember& m, int done, int total) {
        print_sweep_member(m, done, total, json, units);
      });
  sao::write_sweep(dir, options, result, references, objective_name,
                   sao::study_path_title(doc, options.range.key),
                   objective_note.title(objective_name));
  int failed = 0;
  for (const auto& m : result.members) {
    failed += !m.error.empty() || m.summary.status == sao::RunStatus::kFailed;
  }
  if (json) {
    std::cout << nlohmann::ordered_json(
                     {{"event", "end"},
                      {"members", result.members.size()},
                      {"failed", failed},
                      {"simulator_runs", result.simulator_runs},
                      {"shared_analyses", result.cache_hits},
                      {"wall_seconds", result.wall_seconds},
                      {"folder", dir},
                      {"files",
                       {dir + "/sweep.csv", dir + "/compromise.csv", dir + "/compromise.html"}}})
                     .dump()
              << "\n";
    return failed ? sao::cli::kFailed : sao::cli::kOk;
  }
  std::printf("\n%zu members, %d simulator runs, %d analyses shared or stored, %.1f s\n",
              result.members.size(), result.simulator_runs, result.cache_hits, result.wall_seconds);
  std::cout << "written    " << dir << "/sweep.csv, " << dir << "/compromise.csv, " << dir
            << "/compromise.html\n";
  return failed ? sao::cli::kFailed : sao::cli::kOk;
}

// `sao serve`: the service of sao/service/ on the data folder, until interrupted.
int serve(const sao::service::ServiceOptions& options) {
  if (const std::string problem = sao::service::check_options(options); !problem.empty()) {
    throw sao::cli::UsageError(problem);
  }
  sao::service::Service service(options);
  service.bind();
  std::cout << "serving " << service.url() << " (data " << options.data << ")" << std::endl;
  service.listen();
  return sao::cli::kOk;
}

// The worker of a batch executor (docs/cluster.md): one request file in, one evaluation file
// out (exact doubles). Exit 0 with a successful evaluation, 3 with a failed one (written too),
// 2 for a request that cannot be read.
int analyse(const std::string& request_file, const std::string& out_file) {
  sao::SimulatorSetup setup;
  sao::EvaluationRequest request;
  sao::Evaluation values;
  std::unique_ptr<sao::Simulator> simulator;
  nlohmann::json document;
  try {
    document = sao::read_json_file(request_file);  // names the file, line and column
  } catch (const std::invalid_argument& e) {
    throw sao::cli::UsageError(e.what());
  }
  try {
    sao::read_request_document(document, setup, request, values);
    simulator = sao::make_simulator(setup);
  } catch (const std::invalid_argument& e) {  // SectionError too
    throw sao::cli::UsageError(request_file + ": " + e.what());
  }
  simulator->expect_no_gradients();  // one request and the process ends: none can follow
  std::vector<sao::Evaluation> e;
  try {
    e = simulator->evaluate({request});
  } catch (const std::invalid_argument& error) {  // a request that does not fit its setup
    throw sao::cli::UsageError(request_file + ": " + error.what());
  }
  sao::write_file_atomically(out_file, sao::evaluation_document(e.front()).dump());
  return e.front().ok ? sao::cli::kOk : sao::cli::kFailed;
}

// The study's output parsers on a sample of the code's output (`check --sample-output DIR`).
std::vector<sao::adapters::SampleReading> sample_readings(const sao::OpenedStudy& opened,
                                                          const std::string& sample) {
  if (sample.empty()) return {};
  const std::string type = opened.study.simulator.value("type", "");
  if (type != "external") {
    throw sao::cli::UsageError("--sample-output " + sample + ": the study's simulator is \"" +
                               type +
                               "\", not an external code: there are no output files to read");
  }
  return sao::adapters::read_sample_output(
      sao::adapters::read_external_config(opened.study.simulator_setup()), sample);
}

int check(const std::string& file, const std::vector<std::string>& overrides, int start,
          const std::string& sample, bool json) {
  if (json) {
    // Every problem in the document, not a message on stderr: {"valid": false, "problems": [..]}.
    try {
      const sao::OpenedStudy opened = sao::open_study(file, overrides, start);
      nlohmann::ordered_json doc = {{"file", file},
                                    {"valid", true},
                                    {"design_variables", opened.study.n_design()},
                                    {"constraints", opened.study.constraints.size()},
                                    {"problems", nlohmann::json::array()}};
      bool read = true;
      if (!sample.empty()) {
        doc["sample_output"] = nlohmann::ordered_json::array();
        for (const auto& r : sample_readings(opened, sample)) {
          doc["sample_output"].push_back({{"load_case", r.load_case},
                                          {"response", r.response},
                                          {"directory", r.directory},
                                          {"read", r.ok},
                                          {"message", r.message}});
          read = read && r.ok;
        }
      }
      std::cout << doc.dump(2) << "\n";
      return read ? sao::cli::kOk : sao::cli::kBadInput;
    } catch (const sao::StudyError& e) {
      std::cout << nlohmann::ordered_json(
                       {{"file", file}, {"valid", false}, {"problems", e.problems()}})
                       .dump(2)
                << "\n";
      throw;  // the message on stderr too, and exit 2
    }
  }
  const sao::OpenedStudy opened = sao::open_study(file, overrides, start);
  std::cout << file << ": valid (" << opened.study.n_design() << " design variables, "
            << opened.study.constraints.size() << " constraints after expansion"
            << (opened.study.multi_objective()
                    ? ", " + std::to_string(opened.study.objectives.size()) +
                          " objectives: sao pareto"
                    : "")
            << ")\n";
  int failed = 0;
  for (const auto& r : sample_readings(opened, sample)) {
    std::cout << (r.ok ? "read       " : "FAILS      ") << r.load_case << " " << r.response << ": "
              << r.message << "\n";
    failed += r.ok ? 0 : 1;
  }
  if (failed > 0) {
    std::cerr << "error: " << failed << " response(s) cannot be read from the sample output in "
              << sample << ": a run would fail the same way\n";
    return sao::cli::kBadInput;
  }
  return sao::cli::kOk;
}

// The options every command on a study file shares: the file, --set and --start.
void add_study_file(CLI::App* cmd, std::string& file) {
  cmd->add_option("study", file, "study file (JSON)")->required()->check(CLI::ExistingFile);
}
void add_analyses_out(CLI::App* cmd, std::string& out) {
  cmd->add_option("--out", out,
                  "external studies: keep the code's run directories in DIR/sao-runs (default: a "
                  "temporary folder, removed unless a failed run is kept there)");
}

void add_study_overrides(CLI::App* cmd, std::vector<std::string>& overrides, int& start) {
  cmd->add_option("--set", overrides,
                  "override a study entry: path.to.key=value (e.g. settings.noise=2.5)");
  cmd->add_option("--start", start, "use start K of the study's \"starts\" (1-based)")
      ->check(sao::cli::kPositive);
}

// Everything the command line can hold, and the subcommands that were defined.
struct Arguments {
  std::string level = "warn";
  sao::cli::RunRequest run;
  bool quiet = false, json = false, no_store = false;
  std::string executor;             // run --executor TYPE: simulator.executor.type overridden
  std::string request, evaluation;  // analyse
  std::string file;                 // check, check-gradient, evaluate
  std::string sample_output;        // check --sample-output DIR
  std::vector<std::string> overrides;
  int start = 0;
  sao::GradientCheckOptions gradient;
  std::vector<std::string> designs;
  std::string plot_dir;
  std::string analyses_out;  // evaluate / check-gradient --out: their run directories
  sao::SweepOptions sweep;
  std::string vary, sweep_out, reference_label = "reference";
  std::vector<std::string> reference_set;
  sao::service::ServiceOptions serve;
  sao::cli::SimulateRequest simulate;
  sao::cli::DoeRequest doe;
  CLI::App* doe_cmd = nullptr;
  sao::cli::MetamodelCommand metamodel;
  CLI::App* metamodel_cmd = nullptr;
  sao::cli::RobustCommand robust;
  CLI::App* robust_cmd = nullptr;
  bool all_responses = false;  // evaluate --all
  CLI::App* simulate_cmd = nullptr;
  CLI::App *run_cmd = nullptr, *check_cmd = nullptr, *gradient_cmd = nullptr,
           *evaluate_cmd = nullptr, *sweep_cmd = nullptr, *serve_cmd = nullptr,
           *analyse_cmd = nullptr;
};

void add_run(CLI::App& app, Arguments& a) {
  a.run_cmd = app.add_subcommand("run", "run a study and write DIR/result.json, DIR/history.csv");
  a.run_cmd->add_option("study", a.run.study, "study file (JSON), or a study directory to resume")
      ->required()
      ->check(CLI::ExistingPath);
  a.run_cmd->add_option("--out", a.run.out_dir,
                        "output folder (default: out/<study folder>-<study file name>)");
  a.run_cmd->add_option("--max-cycles", a.run.max_cycles, "override settings.max_cycles")
      ->check(sao::cli::kPositive);
  a.run_cmd->add_flag("-q,--quiet", a.quiet, "print only the final result");
  a.run_cmd->add_flag("--no-store", a.no_store,
                      "keep no study store (DIR/study.sqlite): no resume");
  a.run_cmd->add_flag("--json", a.json,
                      "progress and results as JSON lines (one document per line; the last is "
                      "the \"end\" event with the result)");
  sao::cli::add_progress_option(a.run_cmd, a.run.progress);
  a.run_cmd
      ->add_option("--executor", a.executor,
                   "where the analyses run: local (the worker pool) or slurm (batch jobs); "
                   "overrides simulator.executor.type (docs/cluster.md)")
      ->check(CLI::IsMember({"local", "slurm"}));
  add_study_overrides(a.run_cmd, a.overrides, a.start);
}

void add_study_commands(CLI::App& app, Arguments& a) {
  a.check_cmd = app.add_subcommand("check", "validate a study file and its simulator section");
  add_study_file(a.check_cmd, a.file);
  a.check_cmd->add_flag("--json", a.json, "the outcome as one JSON document (with the problems)");
  add_study_overrides(a.check_cmd, a.overrides, a.start);
  a.check_cmd
      ->add_option("--sample-output", a.sample_output,
                   "external studies: read every response from the files a run of the code "
                   "wrote in DIR (DIR/<load case> for several load cases, when it exists), as a "
                   "run would; exit 2 when one cannot be read")
      ->check(CLI::ExistingDirectory);

  a.gradient_cmd = app.add_subcommand(
      "check-gradient",
      "compare the simulator's sensitivities at the initial design with extrapolated finite "
      "differences (seed 000, IV.C)");
  add_study_file(a.gradient_cmd, a.file);
  add_study_overrides(a.gradient_cmd, a.overrides, a.start);
  a.gradient_cmd->add_option("--point", a.gradient.point,
                             "time point of the histories (default: where |value| is largest)");
  a.gradient_cmd
      ->add_option("--step", a.gradient.relative_step,
                   "largest relative perturbation dp0 / (1 + |b|)")
      ->check(sao::cli::kPositive);
  a.gradient_cmd->add_flag("--json", a.json, "the rows and hints as one JSON document");
  add_analyses_out(a.gradient_cmd, a.analyses_out);

  a.analyse_cmd = app.add_subcommand(
      "analyse",
      "evaluate one analysis request file and write the evaluation (the worker of a batch "
      "executor, docs/cluster.md)");
  a.analyse_cmd->add_option("request", a.request, "request file (JSON)")
      ->required()
      ->check(CLI::ExistingFile);
  a.analyse_cmd->add_option("evaluation", a.evaluation, "evaluation file to write (JSON)")
      ->required();

  a.evaluate_cmd = app.add_subcommand(
      "evaluate",
      "analyse the initial design and print the objective, every constraint's worst "
      "point and the range of every response");
  add_study_file(a.evaluate_cmd, a.file);
  add_study_overrides(a.evaluate_cmd, a.overrides, a.start);
  a.evaluate_cmd
      ->add_option("--design", a.designs,
                   "also analyse the design of a result file (DIR/result.json of sao run); "
                   "repeatable")
      ->check(CLI::ExistingFile);
  a.evaluate_cmd->add_option("--plot", a.plot_dir,
                             "write DIR/histories.html: a chart of each of the study's histories "
                             "(with --all: every one) per load case, one line per design");
  a.evaluate_cmd->add_flag("--json", a.json, "the designs as one JSON document");
  a.evaluate_cmd->add_flag("--all", a.all_responses,
                           "every response the simulator delivers, not only the study's");
  add_analyses_out(a.evaluate_cmd, a.analyses_out);
  a.simulate_cmd = sao::cli::add_simulate_command(app, a.simulate);
}

void add_sweep(CLI::App& app, Arguments& a) {
  a.sweep_cmd = app.add_subcommand(
      "sweep",
      "run a family of studies over one entry (e.g. a constraint bound) from one or "
      "more starts, in parallel, and write the compromise curve (CSV and a chart page, "
      "compromise.html)");
  add_study_file(a.sweep_cmd, a.sweep.study_file);
  a.sweep_cmd
      ->add_option("--vary", a.vary,
                   "the swept entry: KEY=FIRST:LAST:STEP or KEY=V1,V2,... "
                   "(e.g. constraints.0.upper=15.5:25:0.5)")
      ->required();
  a.sweep_cmd->add_option("--set", a.sweep.overrides,
                          "override a study entry for every member: path.to.key=value");
  a.sweep_cmd
      ->add_option("--starts", a.sweep.starts,
                   "starts per value: the initial design and the study's starts 1..N-1")
      ->check(sao::cli::kPositive);
  a.sweep_cmd->add_option("--jobs", a.sweep.jobs, "members run at once (default: cores)")
      ->check(sao::cli::kNonNegative);
  a.sweep_cmd->add_option("--max-cycles", a.sweep.max_cycles, "override settings.max_cycles")
      ->check(sao::cli::kPositive);
  a.sweep_cmd->add_option("--out", a.sweep_out,
                          "output folder (default: out/<study folder>-<study file name>-sweep)");
  a.sweep_cmd->add_flag("--json", a.json,
                        "progress as JSON lines: the reference, each member, then the end");
  a.sweep_cmd->add_option("--reference-set", a.reference_set,
                          "an override giving the reference design marked on the curve "
                          "(repeatable; e.g. load_cases.0.parameters.extra=0)");
  a.sweep_cmd->add_option("--reference-label", a.reference_label, "its label (default: reference)");
}

void add_serve(CLI::App& app, Arguments& a) {
  a.serve_cmd = app.add_subcommand(
      "serve", "serve the HTTP/JSON API and the workbench page (docs/service.md)");
  a.serve_cmd->add_option("--bind", a.serve.bind, "address to listen on (default 127.0.0.1)");
  a.serve_cmd->add_option("--port", a.serve.port, "port (default 8080; 0: any free port)")
      ->check(CLI::Range(0, 65535));
  a.serve_cmd->add_option("--data", a.serve.data,
                          "folder of the studies, one folder each (default sao-data)");
  a.serve_cmd
      ->add_option("--token", a.serve.token,
                   "require \"Authorization: Bearer TOKEN\" on every API request (needed "
                   "for a non-loopback --bind)")
      ->envname("SAO_SERVICE_TOKEN");
  a.serve_cmd->add_flag("--allow-external", a.serve.allow_external,
                        "accept studies whose simulator is \"external\" (they run commands)");
  a.serve_cmd->add_option("--max-body", a.serve.max_body, "largest request body, bytes")
      ->check(sao::cli::kPositive);
  a.serve_cmd
      ->add_option("--threads", a.serve.threads,
                   "connections served at once (default 256; event streams may hold half)")
      ->check(CLI::Range(4, 4096));
}

// What an interruption leaves of the parsed command's work, the line `sao` adds to its
// message on SIGINT, SIGTERM or SIGHUP (docs/trust.md); "" for a command that keeps nothing.
std::string kept_on_interrupt(const Arguments& a) {
  if (*a.run_cmd && a.no_store) {
    return "--no-store: no study store, so nothing to resume from; the output folder's "
           "result.json and history.csv hold the cycles finished before the signal, if any";
  }
  if (*a.run_cmd) {
    return "the analyses finished so far are stored (resume with `sao run DIR`)";
  }
  if (*a.sweep_cmd) {
    return "the members' analyses finished so far are stored (the same `sao sweep` command "
           "resumes)";
  }
  if (*a.serve_cmd) return "the studies' analyses finished so far are in their study stores";
  if (*a.doe_cmd) {
    return "the DOE's analyses finished so far are stored (resume with `sao doe DIR`)";
  }
  if (*a.robust_cmd)
    return "the analyses finished so far are stored (the same command re-uses them)";
  if (sao::cli::pareto_parsed())
    return "the analyses finished so far are stored (resume: sao pareto DIR)";
  if (sao::cli::store_command_analyses()) {
    return "the analyses finished so far are stored (resume with `sao run DIR` or `sao step DIR`)";
  }
  return "";
}

// The command that was parsed, run and mapped to its exit code.
int dispatch(Arguments& a) {
  if (const std::string kept = kept_on_interrupt(a); !kept.empty()) {
    sao::adapters::add_interrupt_action([kept](int) { return kept; });
  }
  // A run's result.json must not say "running" once the process is gone.
  sao::adapters::add_interrupt_action([](int signal) {
    const std::vector<std::string> marked =
        sao::mark_results_interrupted(std::string("interrupted by SIG") + sigabbrev_np(signal) +
                                      " during the cycle after the last one in history.csv");
    std::string line;
    for (const std::string& file : marked) {
      line += (line.empty() ? "" : "\n") + file + ": status \"interrupted\"";
    }
    return line;
  });
  const int rc = sao::cli::run_store_commands();
  if (rc >= 0) return rc;
  return sao::cli::run_guarded([&] {
    if (*a.run_cmd) {
      a.run.output = a.json    ? sao::cli::Output::kJson
                     : a.quiet ? sao::cli::Output::kQuiet
                               : sao::cli::Output::kTable;
      a.run.overrides = a.overrides;
      if (!a.executor.empty()) a.run.overrides.push_back("simulator.executor.type=" + a.executor);
      a.run.start = a.start;
      a.run.store = !a.no_store;
      return sao::cli::run_study(a.run);
    }
    if (*a.serve_cmd) return serve(a.serve);
    if (*a.sweep_cmd)
      return sweep(a.sweep, a.vary, a.sweep_out, a.reference_set, a.reference_label, a.json);
    if (*a.analyse_cmd) return analyse(a.request, a.evaluation);
    if (*a.simulate_cmd) return sao::cli::simulate(a.simulate);
    if (*a.doe_cmd) return sao::cli::doe(a.doe);
    if (sao::cli::pareto_parsed()) return sao::cli::pareto();
    if (*a.metamodel_cmd) return sao::cli::metamodel(a.metamodel);
    if (*a.robust_cmd) return sao::cli::robust(a.robust);
    if (*a.evaluate_cmd) {
      return evaluate(a.file, a.overrides, a.start, a.designs, a.plot_dir, a.json, a.all_responses,
                      a.analyses_out);
    }
    if (*a.gradient_cmd)
      return check_gradient(a.file, a.overrides, a.start, a.gradient, a.json, a.analyses_out);
    return check(a.file, a.overrides, a.start, a.sample_output, a.json);
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{std::string("sao ") + sao::kVersion +
               ": sequential approximate optimization of multibody systems"};
  app.set_version_flag("--version", std::string("sao ") + sao::kVersion);
  app.require_subcommand(1);
  app.fallthrough();  // --log after the subcommand too: sao run STUDY.json --log info
  Arguments arguments;
  app.add_option("--log", arguments.level, "log level: trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
  add_run(app, arguments);
  add_study_commands(app, arguments);
  add_sweep(app, arguments);
  add_serve(app, arguments);
  arguments.doe_cmd = sao::cli::add_doe_command(app, arguments.doe);
  sao::cli::add_pareto_command(app);
  arguments.metamodel_cmd = sao::cli::add_metamodel_command(app, arguments.metamodel);
  arguments.robust_cmd = sao::cli::add_robust_command(app, arguments.robust);
  sao::cli::add_store_commands(app);
  sao::cli::add_completion_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version print and exit 0; every other command-line error is bad input.
    return app.exit(e) == 0 ? sao::cli::kOk : sao::cli::kBadInput;
  }

  auto logger = spdlog::stderr_color_mt("sao");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(arguments.level));
  spdlog::set_pattern("%^[%l]%$ %v");
  // The Python module registers the same, with its own "python" (docs/python.md).
#ifdef SAO_EMBED_PYTHON
  sao::register_standard_components(&sao::python::embedded_python_simulator);
#else
  sao::register_standard_components();  // "python": refused, this build has no Python
#endif
  // SIGINT, SIGTERM, SIGHUP: every external run's process tree is killed, exit 3 (failed run;
  // the analyses stored so far stay stored, and the message says what is kept). docs/trust.md
  sao::adapters::install_interrupt_handler(sao::cli::kFailed);
  return dispatch(arguments);
}
