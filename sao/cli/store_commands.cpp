#include "sao/cli/store_commands.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "sao/cli/exit_codes.hpp"
#include "sao/cli/export_command.hpp"
#include "sao/cli/run_output.hpp"
#include "sao/cli/validators.hpp"
#include "sao/optimizer/cycle_record_json.hpp"
#include "sao/report/html_report.hpp"
#include "sao/report/report.hpp"
#include "sao/report/result_file.hpp"
#include "sao/report/units_json.hpp"
#include "sao/seam/run_directory.hpp"
#include "sao/store/atomic_file.hpp"
#include "sao/store/branch_state.hpp"
#include "sao/store/doe_run.hpp"
#include "sao/store/pareto_run.hpp"
#include "sao/store/study_session.hpp"
#include "sao/study/study_loader.hpp"

namespace sao::cli {
namespace {

namespace fs = std::filesystem;

struct Commands {
  CLI::App* step = nullptr;
  CLI::App* status = nullptr;
  CLI::App* set = nullptr;
  CLI::App* restart = nullptr;
  CLI::App* report = nullptr;
  CLI::App* export_ = nullptr;
  std::string report_file;
  std::string report_cycles;
  std::string dir;
  std::string study_file;
  std::vector<std::string> overrides;  // --set with --study: applied to the study file
  std::vector<std::string> assignments;
  int from_cycle = 0;
  int from_branch = 0;
  bool reset_region = false;
  bool from_reported = false;
  bool json = false;
  bool undo = false;
  Progress progress = Progress::kAuto;
};
Commands commands;

void print_end(const StudySession& session, const RunSummary& summary, const std::string& dir,
               Output output, bool written) {
  const Study& study = session.study();
  const bool store = session.has_store();
  if (output == Output::kJson) {
    nlohmann::ordered_json end = {{"event", "end"}};
    end.update(result_document(study, summary, final_analysis(session)));
    end.erase("history");
    end["reused_analyses"] = summary.reused_analyses;
    end["replayed_cycles"] = session.replayed_cycles();
    if (store) end["store"] = fs::path(dir) / "study.sqlite";
    std::cout << end.dump() << "\n";
    return;
  }
  std::cout << run_summary_text(study, summary, store);
  if (written) {
    std::cout << "written    " << dir << "/result.json, " << dir << "/history.csv"
              << (store ? ", " + dir + "/study.sqlite" : "") << "\n";
  } else {
    std::cout << "kept       " << dir << "/result.json, " << dir
              << "/history.csv (the converged run's)\n";
  }
}

// The --study file with the --set overrides applied (`command` names it in messages).
nlohmann::json study_document(const std::string& command) {
  if (commands.study_file.empty()) {
    if (!commands.overrides.empty()) {
      throw UsageError(command + ": --set changes the --study file; without one, change the " +
                       "store's settings with `sao set DIR key=value`");
    }
    return nullptr;
  }
  nlohmann::json document = read_study_document(commands.study_file, commands.overrides);
  require_single_objective(document, commands.study_file);
  return document;
}

int step_command() {
  const bool create = !commands.study_file.empty();
  nlohmann::json document = study_document("sao step");
  if (create) make_output_folder(commands.dir);
  StudySession session(store_file(commands.dir), create);
  if (create) session.begin(std::move(document), commands.study_file, 0);
  session.open();
  const Output output = commands.json ? Output::kJson : Output::kTable;
  // --json: the cycle's one document only (no analyses events).
  ProgressPrinter progress(output, commands.json ? Progress::kNone : commands.progress);
  session.on_batch = [&](const BatchProgress& p) { progress(p); };
  if (session.driver().finished()) {
    const RunSummary& s = session.driver().summary();
    if (output == Output::kJson) {
      std::cout << nlohmann::json({{"event", "ended"},
                                   {"branch", session.branch()},
                                   {"status", to_string(s.status)},
                                   {"message", s.message}})
                       .dump()
                << "\n";
    } else {
      std::cout << "run ended: " << to_string(s.status) << ": " << one_line(s.message) << "\n";
    }
    return exit_code(s.status);
  }
  const int runs_before = session.driver().summary().simulator_runs;
  const CycleRecord& r = session.step();
  progress.clear();
  if (spdlog::should_log(spdlog::level::info)) {
    spdlog::info("{}{}", cycle_in_words(session.study(), r), active_constraints(session, r));
  }
  const RunSummary& s = session.driver().summary();
  if (output == Output::kJson) {
    // Its keys in the order they always had (sorted); the record's designs in study order, their
    // units and the objective's beside it (units_json.hpp).
    std::cout << nlohmann::ordered_json({{"branch", session.branch()},
                                         {"event", "cycle"},
                                         {"record", cycle_to_json(session.study(), r)},
                                         {"simulator_runs", s.simulator_runs - runs_before},
                                         {"status", to_string(s.status)},
                                         {"units", units_of(session.study())}})
                     .dump()
              << "\n";
  } else {
    std::cout << cycle_table_header(session.study()) << "\n"
              << cycle_table_row(session.study(), r) << "\n";
    std::cout << fmt::format(
        "branch {}, cycle {}: {}{}; E = {:.3g} %, V = {:.3g} %; next move factors",
        session.branch(), r.cycle, cycle_outcome(r),
        r.converged && r.accepted ? " (proposal accepted)" : "", r.E, r.V);
    for (int i = 0; i < r.next_factors.size(); ++i) {
      std::cout << fmt::format("{}{:.4g}", i ? "," : " ", r.next_factors(i));
    }
    std::cout << fmt::format("\nsimulator runs in this step: {}\n", s.simulator_runs - runs_before);
    if (session.driver().finished()) {
      std::cout << "run ended: " << to_string(s.status) << ": " << one_line(s.message) << "\n";
    }
  }
  write_run_results(session, directory_of(session.store().path()), session.driver().finished());
  return 0;
}

// Names every damaged record of a store opened read-only (status: nothing is removed).
void print_damaged(const StudyStore& store) {
  if (store.unchecked_rows() > 0) {
    std::cout << "store written before checksums (of every table): its " << store.unchecked_rows()
              << " rows are read as they are (a run adds checksums)\n";
  }
  for (const DamagedRecord& d : store.verify()) {
    std::cout << "damaged    " << d.table << " row " << d.row;
    if (d.table == "cycles") std::cout << " of branch " << d.branch;
    if (!d.design.empty()) std::cout << ", design " << d.design.substr(0, 200);
    std::cout << ": " << d.reason << " (not trusted; the next run re-analyses or rebuilds it)\n";
  }
}

// A branch's status as shown (branch_views: "abandoned" for one left by `sao restart`), with
// what the store's lock says of a current one stored as "running": the pid of the live process
// working on it, or that none does (killed, or between `sao step`s).
std::string live_status(const BranchInfo& b, int current, int owner) {
  if (b.status != "running" || b.id != current) return b.status;
  if (owner > 0) return "running (pid " + std::to_string(owner) + ")";
  if (owner < 0) return "running";
  return "stopped: no sao process works on it (killed, or between `sao step`s); `sao run DIR` "
         "resumes it";
}

nlohmann::ordered_json status_json(StudyStore& store) {
  const int current = store.current_branch();
  const int owner = store_owner(store.path());
  nlohmann::ordered_json branches = nlohmann::ordered_json::array();
  for (const BranchView& view : branch_views(store)) {
    const BranchInfo& b = view.info;
    const StoredStudy study_def = store.study(b.study);
    // The branch's study: its variables' names and units (none when it does not load).
    const Study study = [&]() -> Study {
      try {
        return load_study(study_def.document, study_def.source);
      } catch (const StudyError&) {
        return Study();
      }
    }();
    const std::vector<std::string> names = variable_names(study);
    nlohmann::ordered_json cycles = nlohmann::ordered_json::array();
    int last = b.from_cycle;
    for (const StoredCycle& c : store.cycles(b.id)) {
      cycles.push_back(cycle_json_in_order(cycle_record_to_json(c.record, names), names));
      last = c.record.cycle;
    }
    nlohmann::json changes = nlohmann::json::array();
    for (const SettingChange& c : store.setting_changes(b.id)) {
      changes.push_back(
          {{"cycle", c.cycle}, {"assignment", c.assignment}, {"pending", c.cycle > last}});
    }
    nlohmann::ordered_json branch = branch_view_json(view);
    branch["current"] = b.id == current;
    branch["study"] = study_def.source;
    branch["live"] = b.id == current && owner != 0;
    branch["pid"] = b.id == current && owner > 0 ? nlohmann::json(owner) : nullptr;
    branch["cycles"] = cycles;
    branch["units"] = units_of(study);  // of the records' b0, b_opt and F figures
    branch["settings_changes"] = changes;
    branches.push_back(branch);
  }
  nlohmann::ordered_json damaged = nlohmann::ordered_json::array();
  for (const DamagedRecord& d : store.verify()) {
    damaged.push_back({{"table", d.table}, {"row", d.row}, {"reason", d.reason}});
  }
  nlohmann::ordered_json does = nlohmann::ordered_json::array();
  for (const DoeState& d : doe_states(store)) {
    does.push_back({{"id", d.id}, {"method", d.method}, {"points", d.total}, {"done", d.done}});
  }
  return {{"store", store.path()},
          {"current_branch", current},
          {"branches", branches},
          {"does", does},
          {"damaged", damaged},
          {"analyses", store.analysis_count()},
          {"simulator_runs", store.simulator_runs()}};
}

int status_command() {
  StudyStore store(store_file(commands.dir), StoreAccess::kReadOnly);
  if (commands.json) {
    std::cout << status_json(store).dump(2) << "\n";
    return 0;
  }
  print_damaged(store);
  const int current = store.current_branch();
  if (current == 0) {
    std::cout << store.path() << ": no study yet\n";
    return 0;
  }
  const int owner = store_owner(store.path());
  for (const BranchView& view : branch_views(store)) {
    const BranchInfo& b = view.info;
    const StoredStudy study_def = store.study(b.study);
    std::cout << (b.id == current ? "* " : "  ") << "branch " << b.id;
    if (b.parent > 0)
      std::cout << " (from branch " << b.parent << " after cycle " << b.from_cycle << ")";
    std::cout << ": " << study_def.source << ", " << live_status(b, current, owner);
    if (!b.message.empty()) std::cout << ": " << one_line(b.message);
    std::cout << "\n";
    Study study;
    try {
      study = load_study(study_def.document, study_def.source);
    } catch (const StudyError& e) {
      std::cout << "    (stored study does not load: " << e.what() << ")\n";
      continue;
    }
    const std::vector<SettingChange> changes = store.setting_changes(b.id);
    const std::vector<StoredCycle> cycles = store.cycles(b.id);
    std::cout << "    " << cycle_table_header(study, "    ") << "\n";
    auto print_changes = [&](int cycle, bool pending) {
      for (const SettingChange& c : changes) {
        if (c.cycle == cycle) {
          const bool start = c.assignment.rfind("start.", 0) == 0;  // sao restart --from-reported
          std::cout << "          "
                    << (start ? "starts at" : "set before cycle " + std::to_string(cycle) + ":")
                    << " " << c.assignment
                    << (pending && !start ? "   (pending; `sao set --undo DIR` withdraws it)" : "")
                    << "\n";
        }
      }
    };
    for (const StoredCycle& c : cycles) {
      print_changes(c.record.cycle, false);
      std::cout << "    " << cycle_table_row(study, c.record) << "\n";
    }
    const int next = cycles.empty() ? b.from_cycle + 1 : cycles.back().record.cycle + 1;
    print_changes(next, true);
  }
  for (const DoeState& d : doe_states(store)) {
    std::cout << "doe        DOE " << d.id << ": " << d.method << ", " << d.done << " of "
              << d.total << " points analysed"
              << (d.done < d.total ? " (`sao doe DIR` resumes it)" : "") << "\n";
  }
  std::cout << "store: " << store.analysis_count() << " analyses, " << store.simulator_runs()
            << " simulator runs\n";
  return 0;
}

int set_command() {
  StudySession session(store_file(commands.dir), false);
  session.open();
  if (commands.undo) {
    if (!commands.assignments.empty()) {
      throw UsageError("sao set --undo takes no assignments");
    }
    const int cycle = session.next_cycle();
    const std::vector<std::string> removed = session.undo_set();
    if (commands.json) {
      std::cout << nlohmann::json(
                       {{"branch", session.branch()}, {"cycle", cycle}, {"withdrawn", removed}})
                       .dump()
                << "\n";
      return 0;
    }
    std::cout << "branch " << session.branch() << ", cycle " << cycle << ": withdrawn";
    for (const auto& a : removed) std::cout << " " << a;
    std::cout << "\n";
    return 0;
  }
  if (commands.assignments.empty()) throw UsageError("sao set: no key=value given");
  const int cycle = session.set(commands.assignments);
  if (commands.json) {
    std::cout << nlohmann::json({{"branch", session.branch()},
                                 {"cycle", cycle},
                                 {"assignments", commands.assignments}})
                     .dump()
              << "\n";
    return 0;
  }
  std::cout << "branch " << session.branch() << ", from cycle " << cycle << ":";
  for (const auto& a : commands.assignments) std::cout << " " << a;
  std::cout << "\n";
  return 0;
}

int restart_command() {
  if (commands.from_cycle == 0 && !commands.from_reported) {
    throw StudyError("sao restart", {"--from-cycle K or --from-reported is required"});
  }
  StudySession session(store_file(commands.dir), false);
  if (const size_t objectives = stored_objectives(session); objectives > 1) {
    // A front's store: no cycles, and its current branch is the one `sao pareto DIR` resumes.
    throw StudyError(
        "sao restart",
        {commands.dir + " holds a study of " + std::to_string(objectives) +
         " objectives (a Pareto front): it has no cycles to restart from. Start an ordinary "
         "study from front point K with `sao pareto " +
         commands.dir +
         " --start-study K OUT.json [--objective NAME]`, then `sao run OUT.json` "
         "(docs/pareto.md)"});
  }
  session.open();
  std::optional<nlohmann::json> document;
  if (nlohmann::json d = study_document("sao restart"); !d.is_null()) document = std::move(d);
  const int branch =
      session.restart(commands.from_cycle, document, commands.study_file, commands.from_branch,
                      commands.reset_region, commands.from_reported);
  const BranchInfo made = session.store().branch(branch);
  const int from_cycle = made.from_cycle;
  const bool continues = session.continues(branch);
  std::vector<std::string> changes;
  for (const SettingChange& c : session.store().setting_changes(branch)) {
    changes.push_back(c.assignment);
  }
  if (commands.json) {
    std::cout << nlohmann::json({{"branch", branch},
                                 {"parent", made.parent},
                                 {"from_cycle", from_cycle},
                                 {"from_reported", commands.from_reported},
                                 {"study", commands.study_file},
                                 {"reset_region", commands.reset_region},
                                 {"continues", continues},
                                 {"changes", changes}})
                     .dump()
              << "\n";
    return 0;
  }
  std::cout << "branch " << branch << ": from "
            << (commands.from_reported ? "the design branch " + std::to_string(made.parent) +
                                             " reported, after its last cycle "
                                       : "the accepted design of cycle ")
            << from_cycle << " (branch " << made.parent << ")"
            << (commands.study_file.empty() ? "" : ", study " + commands.study_file)
            << (commands.reset_region ? ", a fresh subregion (the study's move-limit factors)" : "")
            << "\n  "
            << (continues ? "continues the run (the same study"
                          : "a driver of its own from there (a reformulated study, or another "
                            "start design")
            << ")";
  if (!changes.empty()) std::cout << "; set before cycle " << from_cycle + 1 << ":";
  for (const std::string& c : changes) std::cout << " " << c;
  std::cout << "\n";
  return 0;
}

int report_command() {
  StudySession session(store_file(commands.dir), StoreAccess::kReadOnly);
  session.open();
  const std::string file =
      commands.report_file.empty()
          ? (fs::path(directory_of(session.store().path())) / "report.html").string()
          : commands.report_file;
  std::string page;
  try {
    ReportOptions options;
    if (!commands.report_cycles.empty())
      options.cycles = parse_report_cycles(commands.report_cycles);
    page = html_report(session, options);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());  // a --cycles entry that is not a cycle of this branch
  }
  write_file_atomically(file, page);
  if (commands.json) {
    std::cout << nlohmann::json({{"written", file}}).dump() << "\n";
    return 0;
  }
  std::cout << "written    " << file << "\n";
  return 0;
}

int export_command() {
  StudyStore store(store_file(commands.dir), StoreAccess::kReadOnly);
  const std::string csv = analyses_csv(store);
  const std::string file = commands.report_file.empty()
                               ? (fs::path(directory_of(store.path())) / "analyses.csv").string()
                               : commands.report_file;
  if (file == "-") {
    std::cout << csv;
    return 0;
  }
  write_file_atomically(file, csv);
  // The lines less the header and the units row.
  const size_t rows = static_cast<size_t>(std::count(csv.begin(), csv.end(), '\n')) - 2;
  if (commands.json) {
    std::cout << nlohmann::json({{"written", file}, {"analyses", rows}}).dump() << "\n";
  } else {
    std::cout << "written    " << file << " (" << rows << " analyses)\n";
  }
  return 0;
}

// --progress auto|bar|lines|none.
CLI::Option* add_progress(CLI::App* cmd, Progress& progress) {
  static const std::map<std::string, Progress> kForms = {{"auto", Progress::kAuto},
                                                         {"bar", Progress::kBar},
                                                         {"lines", Progress::kLines},
                                                         {"none", Progress::kNone}};
  return cmd
      ->add_option("--progress", progress,
                   "progress of the analyses: auto (an updating line on a terminal, nothing "
                   "otherwise), bar, lines (one line per batch), none")
      ->transform(CLI::CheckedTransformer(kForms, CLI::ignore_case));
}

}  // namespace

CLI::Option* add_progress_option(CLI::App* cmd, Progress& progress) {
  return add_progress(cmd, progress);
}

// The study directory every store command but step takes (it must exist).
static void add_directory(CLI::App* cmd) {
  cmd->add_option("dir", commands.dir, "study directory (or its study.sqlite)")
      ->required()
      ->check(CLI::ExistingPath);
}

void add_store_commands(CLI::App& app) {
  commands.step = app.add_subcommand("step", "run exactly one cycle of the study in DIR");
  commands.step->add_option("dir", commands.dir, "study directory (or its study.sqlite)")
      ->required();
  commands.step
      ->add_option("--study", commands.study_file,
                   "study file: creates the store of DIR when it has none (else must match)")
      ->check(CLI::ExistingFile);
  commands.step->add_option("--set", commands.overrides,
                            "with --study: override an entry of the study file, path.to.key=value "
                            "(as on `sao run`)");
  commands.step->add_flag("--json", commands.json, "print the record as one JSON document");
  add_progress(commands.step, commands.progress);

  commands.status = app.add_subcommand(
      "status",
      "show the history of DIR, with its branches, its `sao set` changes and whether a "
      "process is working on it");
  add_directory(commands.status);
  commands.status->add_flag("--json", commands.json, "the status as one JSON document");

  commands.set = app.add_subcommand(
      "set", "change settings, bounds or move-limit factors for the next cycle (key=value ...)");
  add_directory(commands.set);
  commands.set->add_option("assignments", commands.assignments,
                           "settings key=value (as in the study's \"settings\"; key=null removes "
                           "it), move_limit=m or move_limit.NAME=m (in (0, 1]), "
                           "design_variables.NAME.lower=v or .upper=v, constraints.NAME.lower=v, "
                           ".upper=v or .equals=v (NAME a name or an index)");
  commands.set->add_flag("--undo", commands.undo,
                         "withdraw the changes pending for the next cycle (`sao status` lists "
                         "them)");
  commands.set->add_flag("--json", commands.json, "the outcome as one JSON document");

  commands.restart = app.add_subcommand(
      "restart",
      "start a new branch from the accepted design of a cycle, optionally with a "
      "reformulated study");
  add_directory(commands.restart);
  commands.restart
      ->add_option("--from-cycle", commands.from_cycle, "cycle K (required unless --from-reported)")
      ->check(sao::cli::kPositive);
  commands.restart->add_flag(
      "--from-reported", commands.from_reported,
      "start from the design the ended run reported (its result: the best feasible design it "
      "analysed where that is not its last accepted one), after its last cycle");
  commands.restart->add_option("--study", commands.study_file, "the reformulated study (JSON)")
      ->check(CLI::ExistingFile);
  commands.restart->add_option("--set", commands.overrides,
                               "with --study: override an entry of the study file, "
                               "path.to.key=value (as on `sao run`)");
  commands.restart
      ->add_option("--branch", commands.from_branch,
                   "the branch whose history holds cycle K (default: the current one)")
      ->check(sao::cli::kPositive);
  commands.restart->add_flag("--reset-region", commands.reset_region,
                             "start with a fresh subregion: the study's move-limit factors instead "
                             "of those reached by cycle K");
  commands.restart->add_flag("--json", commands.json, "the new branch as one JSON document");

  commands.report = app.add_subcommand(
      "report", "write a self-contained HTML report with its charts (default DIR/report.html)");
  add_directory(commands.report);
  commands.report->add_option("--out", commands.report_file, "the HTML file to write");
  commands.report->add_option(
      "--cycles", commands.report_cycles,
      "the designs whose histories are drawn, e.g. 0,3,last: cycle numbers (0: the start), "
      "first, best, last (default first,best,last)");
  commands.report->add_flag("--json", commands.json, "the file written as one JSON document");

  commands.export_ = app.add_subcommand(
      "export",
      "write every stored analysis as CSV: design, status, time, responses (histories as max, "
      "min and time of the max); default DIR/analyses.csv");
  add_directory(commands.export_);
  commands.export_->add_option("--out", commands.report_file, "the CSV file to write (-: stdout)");
  commands.export_->add_flag("--json", commands.json, "the file written as one JSON document");
}

bool store_command_analyses() {
  return commands.step && *commands.step;
}

int run_store_commands() {
  const auto chosen = [](const CLI::App* command) { return command && *command; };
  if (chosen(commands.report)) return run_guarded(report_command);
  if (chosen(commands.step)) return run_guarded(step_command);
  if (chosen(commands.status)) return run_guarded(status_command);
  if (chosen(commands.set)) return run_guarded(set_command);
  if (chosen(commands.restart)) return run_guarded(restart_command);
  if (chosen(commands.export_)) return run_guarded(export_command);
  return -1;
}

namespace {

// The session of a run: a study directory's store (resume), a new store in the output folder,
// or none (--no-store). Sets `dir` to the folder the results go to.
std::unique_ptr<StudySession> open_run_session(const RunRequest& request, std::string& dir) {
  std::error_code ec;
  const bool store_given = fs::is_directory(request.study, ec) || is_store_file(request.study);
  if (store_given) {
    if (!request.store) {
      throw UsageError(request.study + ": a study directory resumes from its store; " +
                       "--no-store needs a study file");
    }
    if (!request.out_dir.empty()) {
      throw UsageError("--out applies to a study file; " + request.study +
                       " resumes in its own folder");
    }
    // A store resumes the study it was started with: --set, --executor and --start would be
    // silently ignored, so they are refused (between cycles, `sao set` changes a stored study).
    if (!request.overrides.empty() || request.start != 0) {
      throw UsageError("--set, --executor and --start apply to a study file; " + request.study +
                       " resumes with the study, executor and start it was started with "
                       "(change a setting between cycles with `sao set DIR name=value`)");
    }
    dir = fs::is_directory(request.study, ec) ? request.study : directory_of(request.study);
    return std::make_unique<StudySession>(store_file(request.study), false);
  }
  nlohmann::json document = read_study_document(request.study, request.overrides);
  require_single_objective(document, request.study);
  dir = request.out_dir.empty() ? default_output_folder(request.study) : request.out_dir;
  place_run_directory(document, dir);
  if (!request.store) {
    // Without --out, the default folder may hold another run's results: not overwritten.
    if (request.out_dir.empty() && (fs::exists(fs::path(dir) / "result.json", ec) ||
                                    fs::exists(fs::path(dir) / "study.sqlite", ec))) {
      throw UsageError("--no-store: " + dir +
                       " holds another run's results, which this run would overwrite; "
                       "give the folder for this run's result.json with --out DIR");
    }
    return std::make_unique<StudySession>(document, request.study, request.start);
  }
  fs::create_directories(dir, ec);
  if (ec) throw StoreIoError("cannot create the output folder " + dir + ": " + ec.message());
  auto session = std::make_unique<StudySession>(store_file(dir), true);
  session->begin(document, request.study, request.start);
  return session;
}

}  // namespace

// A file that is an SQLite database (a study store, `sao run DIR/study.sqlite`), not a study.
bool is_store_file(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  char header[16] = {};
  in.read(header, sizeof header);
  return in.gcount() == 16 && std::string(header, 16) == std::string("SQLite format 3\0", 16);
}

// The study directory of a store path (results are written beside the store).
std::string directory_of(const std::string& store) {
  const fs::path parent = fs::path(store).parent_path();
  return parent.empty() ? "." : parent.string();
}

bool names_a_store(const std::string& target) {
  std::error_code ec;
  return fs::is_directory(target, ec) || is_store_file(target);
}

AnalysisSession open_analysis_session(const std::string& target, const std::string& out_dir,
                                      const nlohmann::json& document, const std::string& what) {
  AnalysisSession o;
  std::error_code ec;
  o.store_given = names_a_store(target);
  if (o.store_given) {
    if (!out_dir.empty())
      throw UsageError("--out applies to a study file; " + target + " keeps " + what +
                       " in its own store");
    o.dir = fs::is_directory(target, ec) ? target : directory_of(target);
    o.session = std::make_unique<StudySession>(store_file(target), false);
  } else {
    nlohmann::json placed = document;
    o.dir = out_dir.empty() ? default_output_folder(target) : out_dir;
    place_run_directory(placed, o.dir);
    make_output_folder(o.dir);
    o.session = std::make_unique<StudySession>(store_file(o.dir), true);
    o.session->begin(placed, target, 0);
  }
  o.session->open_for_analyses();
  return o;
}

std::string default_output_folder(const std::string& study_file) {
  const fs::path file = fs::absolute(study_file).lexically_normal();
  const std::string folder = file.parent_path().filename().string();
  return "out/" + (folder.empty() ? "" : folder + "-") + file.stem().string();
}

int run_study(const RunRequest& request) {
  std::string dir;
  const std::unique_ptr<StudySession> session = open_run_session(request, dir);
  const CycleInProgress computing(dir);  // one cycle after the other until the run ends
  ProgressPrinter progress(request.output, request.progress);
  CyclePrinter printer(*session, request.output, &progress);
  // The replay prints its cycles but writes nothing: the results are written once it has
  // succeeded, then after every new cycle (a killed run keeps what it computed).
  session->open(request.max_cycles, [&](const CycleRecord& record) { printer(record); });
  auto on_cycle = [&](const CycleRecord& record) {
    printer(record);
    write_run_results(*session, dir, false);
  };
  session->on_batch = [&](const BatchProgress& p) { progress(p); };
  if (request.output != Output::kJson && session->replayed_cycles() > 0) {
    std::cout << "resumed: " << session->replayed_cycles()
              << " cycle(s) replayed from the store with "
              << session->driver().summary().simulator_runs << " simulator run(s)\n";
  }
  const RunSummary& summary = session->run(on_cycle);
  progress.clear();
  const bool written = write_run_results(*session, dir, true);
  print_end(*session, summary, dir, request.output, written);
  return exit_code(summary.status);
}

}  // namespace sao::cli
