#include "sao/cli/store_commands.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "sao/cli/exit_codes.hpp"
#include "sao/report/html_report.hpp"
#include "sao/report/report.hpp"
#include "sao/store/atomic_file.hpp"
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
  std::string report_file;
  std::string report_cycles;
  std::string dir;
  std::string study_file;
  std::vector<std::string> assignments;
  int from_cycle = 0;
  int from_branch = 0;
  bool json = false;
};
Commands commands;

// The one printer of a run's cycles: the study line and the table header before the first
// record, the start design as row 0 (when the run starts at cycle 1), then one row per cycle
// (only the converged one when quiet), or one JSON line per cycle.
class CyclePrinter {
 public:
  CyclePrinter(const StudySession& session, Output output) : session_(session), output_(output) {}
  void operator()(const CycleRecord& record) {
    const Study& study = session_.study();
    if (output_ == Output::kJson) {
      std::cout << nlohmann::json({{"event", "cycle"},
                                   {"branch", session_.branch()},
                                   {"record", cycle_to_json(study, record)}})
                       .dump()
                << "\n"
                << std::flush;
      return;
    }
    if (!header_) {
      std::cout << "study " << study.name << " (" << study.n_design() << " design variables, "
                << study.constraints.size() << " constraints, " << study.load_cases.size()
                << " load case(s))\n";
      std::cout << cycle_table_header(study) << "\n";
      if (record.cycle == 1) {
        std::cout << cycle_table_start(study, session_.driver().summary(), record.x0) << "\n";
      }
      header_ = true;
    }
    if (output_ == Output::kTable || record.converged) {
      std::cout << cycle_table_row(study, record) << "\n" << std::flush;
    }
  }

 private:
  const StudySession& session_;
  Output output_;
  bool header_ = false;
};

void print_progress(const BatchProgress& p, Output output) {
  // Table output: one line as each batch starts (its end shows in the next line or the cycle).
  if (output == Output::kQuiet || (output == Output::kTable && p.running == 0)) return;
  if (output == Output::kJson) {
    std::cout << nlohmann::json({{"event", "analyses"},
                                 {"finished", p.finished},
                                 {"running", p.running},
                                 {"elapsed_seconds", p.elapsed_seconds}})
                     .dump()
              << "\n"
              << std::flush;
    return;
  }
  std::cout << fmt::format("  analyses: {} finished, {} running, {:.1f} s\n", p.finished, p.running,
                           p.elapsed_seconds)
            << std::flush;
}

void print_end(const StudySession& session, const RunSummary& summary, const std::string& dir,
               Output output, bool written) {
  const Study& study = session.study();
  const bool store = session.has_store();
  if (output == Output::kJson) {
    nlohmann::json end = result_to_json(study, summary);
    end.erase("history");
    end["event"] = "end";
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

// The study directory of a store path (results are written beside the store).
std::string directory_of(const std::string& store) {
  const fs::path parent = fs::path(store).parent_path();
  return parent.empty() ? "." : parent.string();
}

// Writes DIR/result.json and DIR/history.csv (atomically, write_results) for the session's run,
// except over the results of a converged run (the branch was converged when the session
// opened) by a run that is not (yet) converged: a resume that failed, or one still rebuilding
// damaged records. `final`: the run has ended. Returns whether the files were written.
bool write_run_results(const StudySession& session, const std::string& dir, bool final) {
  const RunSummary& s = session.driver().summary();
  const bool keep = session.status_at_open() == "converged" && s.status != RunStatus::kConverged;
  if (keep) {
    if (final) {
      spdlog::warn(
          "{}/result.json and history.csv of the converged run are kept: this run "
          "ended {}: {}",
          dir, to_string(s.status), s.message);
    }
    return false;
  }
  write_results(dir, session.study(), s);
  return true;
}

int step_command() {
  const bool create = !commands.study_file.empty();
  if (create) fs::create_directories(commands.dir);
  StudySession session(store_file(commands.dir), create);
  if (create) {
    session.begin(read_study_document(commands.study_file), commands.study_file, 0);
  }
  session.open();
  const Output output = commands.json ? Output::kJson : Output::kTable;
  session.on_batch = [&](const BatchProgress& p) { print_progress(p, output); };
  if (session.driver().finished()) {
    std::cout << "run ended: " << to_string(session.driver().summary().status) << ": "
              << session.driver().summary().message << "\n";
    return exit_code(session.driver().summary().status);
  }
  const int runs_before = session.driver().summary().simulator_runs;
  const CycleRecord& r = session.step();
  const RunSummary& s = session.driver().summary();
  if (output == Output::kJson) {
    std::cout << nlohmann::json({{"event", "cycle"},
                                 {"branch", session.branch()},
                                 {"record", cycle_to_json(session.study(), r)},
                                 {"simulator_runs", s.simulator_runs - runs_before},
                                 {"status", to_string(s.status)}})
                     .dump()
              << "\n";
  } else {
    std::cout << cycle_table_header(session.study()) << "\n"
              << cycle_table_row(session.study(), r) << "\n";
    std::cout << fmt::format(
        "branch {}, cycle {}: {}{}; E = {:.3g} %, V = {:.3g} %; next move factors",
        session.branch(), r.cycle, r.accepted ? "accepted" : "rejected",
        r.converged ? ", converged" : "", r.E, r.V);
    for (int i = 0; i < r.next_factors.size(); ++i) {
      std::cout << fmt::format("{}{:.4g}", i ? "," : " ", r.next_factors(i));
    }
    std::cout << fmt::format("\nsimulator runs in this step: {}\n", s.simulator_runs - runs_before);
    if (session.driver().finished()) {
      std::cout << "run ended: " << to_string(s.status) << ": " << s.message << "\n";
    }
  }
  write_run_results(session, directory_of(session.store().path()), session.driver().finished());
  return 0;
}

// Names every damaged record of a store opened read-only (status: nothing is removed).
void print_damaged(const StudyStore& store) {
  if (store.unchecked_rows() > 0) {
    std::cout << "store written before checksums: its " << store.unchecked_rows()
              << " records are read as they are (a run adds checksums)\n";
  }
  for (const DamagedRecord& d : store.verify()) {
    std::cout << "damaged    " << d.table << " row " << d.row;
    if (d.table == "cycles") std::cout << " of branch " << d.branch;
    if (!d.design.empty()) std::cout << ", design " << d.design.substr(0, 200);
    std::cout << ": " << d.reason << " (not trusted; the next run re-analyses or rebuilds it)\n";
  }
}

int status_command() {
  StudyStore store(store_file(commands.dir), StoreAccess::kReadOnly);
  print_damaged(store);
  const int current = store.current_branch();
  if (current == 0) {
    std::cout << store.path() << ": no study yet\n";
    return 0;
  }
  for (const BranchInfo& b : store.branches()) {
    const StoredStudy study_def = store.study(b.study);
    std::cout << (b.id == current ? "* " : "  ") << "branch " << b.id;
    if (b.parent > 0)
      std::cout << " (from branch " << b.parent << " after cycle " << b.from_cycle << ")";
    std::cout << ": " << study_def.source << ", " << b.status;
    if (!b.message.empty()) std::cout << ": " << b.message;
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
    std::cout << "    " << cycle_table_header(study) << "\n";
    auto print_changes = [&](int cycle) {
      for (const SettingChange& c : changes) {
        if (c.cycle == cycle)
          std::cout << "          set before cycle " << cycle << ": " << c.assignment << "\n";
      }
    };
    for (const StoredCycle& c : cycles) {
      print_changes(c.record.cycle);
      std::cout << "    " << cycle_table_row(study, c.record) << "\n";
    }
    const int next = cycles.empty() ? b.from_cycle + 1 : cycles.back().record.cycle + 1;
    print_changes(next);
  }
  std::cout << "store: " << store.analysis_count() << " analyses, " << store.simulator_runs()
            << " simulator runs\n";
  return 0;
}

int set_command() {
  StudySession session(store_file(commands.dir), false);
  session.open();
  const int cycle = session.set(commands.assignments);
  std::cout << "branch " << session.branch() << ", from cycle " << cycle << ":";
  for (const auto& a : commands.assignments) std::cout << " " << a;
  std::cout << "\n";
  return 0;
}

int restart_command() {
  StudySession session(store_file(commands.dir), false);
  session.open();
  std::optional<nlohmann::json> document;
  if (!commands.study_file.empty()) document = read_study_document(commands.study_file);
  const int branch =
      session.restart(commands.from_cycle, document, commands.study_file, commands.from_branch);
  std::cout << "branch " << branch << ": from the accepted design of cycle " << commands.from_cycle
            << " (branch " << session.store().branch(branch).parent << ")"
            << (commands.study_file.empty() ? "" : ", study " + commands.study_file) << "\n";
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
  std::cout << "written    " << file << "\n";
  return 0;
}

}  // namespace

void add_store_commands(CLI::App& app) {
  commands.step = app.add_subcommand("step", "run exactly one cycle of the study in DIR");
  commands.step->add_option("dir", commands.dir, "study directory (or its study.sqlite)")
      ->required();
  commands.step
      ->add_option("--study", commands.study_file,
                   "study file: creates the store of DIR when it has none (else must match)")
      ->check(CLI::ExistingFile);
  commands.step->add_flag("--json", commands.json, "print the record as JSON");

  commands.status = app.add_subcommand("status", "show the history of DIR, with its branches");
  commands.status->add_option("dir", commands.dir, "study directory (or its study.sqlite)")
      ->required()
      ->check(CLI::ExistingPath);

  commands.set = app.add_subcommand(
      "set", "change settings or move-limit factors for the next cycle (key=value ...)");
  commands.set->add_option("dir", commands.dir, "study directory (or its study.sqlite)")
      ->required()
      ->check(CLI::ExistingPath);
  commands.set
      ->add_option("assignments", commands.assignments,
                   "settings key=value (as in the study's \"settings\"), move_limit=m or "
                   "move_limit.NAME=m")
      ->required();

  commands.restart = app.add_subcommand(
      "restart",
      "start a new branch from the accepted design of a cycle, optionally with a "
      "reformulated study");
  commands.restart->add_option("dir", commands.dir, "study directory (or its study.sqlite)")
      ->required()
      ->check(CLI::ExistingPath);
  commands.restart->add_option("--from-cycle", commands.from_cycle, "cycle K")
      ->required()
      ->check(CLI::PositiveNumber);
  commands.restart->add_option("--study", commands.study_file, "the reformulated study (JSON)")
      ->check(CLI::ExistingFile);
  commands.restart
      ->add_option("--branch", commands.from_branch,
                   "the branch whose history holds cycle K (default: the current one)")
      ->check(CLI::PositiveNumber);

  commands.report = app.add_subcommand(
      "report", "write a self-contained HTML report with SVG plots (default DIR/report.html)");
  commands.report->add_option("dir", commands.dir, "study directory (or its study.sqlite)")
      ->required()
      ->check(CLI::ExistingPath);
  commands.report->add_option("--out", commands.report_file, "the HTML file to write");
  commands.report->add_option(
      "--cycles", commands.report_cycles,
      "the designs whose histories are drawn, e.g. 0,3,last: cycle numbers (0: the start), "
      "first, best, last (default first,best,last)");
}

int run_store_commands() {
  const auto chosen = [](const CLI::App* command) { return command && *command; };
  if (chosen(commands.report)) return run_guarded(report_command);
  if (chosen(commands.step)) return run_guarded(step_command);
  if (chosen(commands.status)) return run_guarded(status_command);
  if (chosen(commands.set)) return run_guarded(set_command);
  if (chosen(commands.restart)) return run_guarded(restart_command);
  return -1;
}

namespace {

// The session of a run: a study directory's store (resume), a new store in the output folder,
// or none (--no-store). Sets `dir` to the folder the results go to.
std::unique_ptr<StudySession> open_run_session(const RunRequest& request, std::string& dir) {
  std::error_code ec;
  if (fs::is_directory(request.study, ec)) {
    if (!request.store) {
      throw UsageError(request.study + ": a study directory resumes from its store; " +
                       "--no-store needs a study file");
    }
    dir = request.study;
    return std::make_unique<StudySession>(store_file(dir), false);
  }
  nlohmann::json document = read_study_document(request.study);
  for (const auto& assignment : request.overrides) apply_override(document, assignment);
  dir =
      request.out_dir.empty() ? "out/" + fs::path(request.study).stem().string() : request.out_dir;
  if (!request.store) {
    return std::make_unique<StudySession>(document, request.study, request.start);
  }
  fs::create_directories(dir, ec);
  if (ec) throw StoreIoError("cannot create the output folder " + dir + ": " + ec.message());
  auto session = std::make_unique<StudySession>(store_file(dir), true);
  session->begin(document, request.study, request.start);
  return session;
}

}  // namespace

int run_study(const RunRequest& request) {
  std::string dir;
  const std::unique_ptr<StudySession> session = open_run_session(request, dir);
  CyclePrinter printer(*session, request.output);
  // The replay prints its cycles but writes nothing: the results are written once it has
  // succeeded, then after every new cycle (a killed run keeps what it computed).
  session->open(request.max_cycles, [&](const CycleRecord& record) { printer(record); });
  auto on_cycle = [&](const CycleRecord& record) {
    printer(record);
    write_run_results(*session, dir, false);
  };
  session->on_batch = [&](const BatchProgress& p) { print_progress(p, request.output); };
  if (request.output != Output::kJson && session->replayed_cycles() > 0) {
    std::cout << "resumed: " << session->replayed_cycles()
              << " cycle(s) replayed from the store with "
              << session->driver().summary().simulator_runs << " simulator run(s)\n";
  }
  const RunSummary& summary = session->run(on_cycle);
  const bool written = write_run_results(*session, dir, true);
  print_end(*session, summary, dir, request.output, written);
  return exit_code(summary.status);
}

}  // namespace sao::cli
