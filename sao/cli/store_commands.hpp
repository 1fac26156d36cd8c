// The `sao` subcommands that run a study through a StudySession (study_session.hpp): `run`
// (with the store and resume, or --no-store), and the ones on a study directory's store:
// `step`, `status`, `set`, `restart`, `report`. main.cpp wires them in.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sao/cli/run_output.hpp"
#include "sao/store/study_session.hpp"

namespace sao::cli {

// Adds step, status, set, restart, report and export to `app`.
void add_store_commands(CLI::App& app);
// Adds --progress auto|bar|lines|none (run_output.hpp) to a command.
CLI::Option* add_progress_option(CLI::App* cmd, Progress& progress);
// Whether the parsed command is a store command that runs analyses (`sao step`).
bool store_command_analyses();
// Runs the store subcommand that was parsed and returns its exit code (exit_codes.hpp); -1
// when none of them was chosen.
int run_store_commands();

// `sao run`: a study file (overrides applied, start `start`) or a study directory to resume.
struct RunRequest {
  std::string study;
  std::string out_dir;  // "": default_output_folder(study)
  int max_cycles = 0;   // > 0: overrides settings.max_cycles
  Output output = Output::kTable;
  Progress progress = Progress::kAuto;
  std::vector<std::string> overrides;
  int start = 0;
  bool store = true;  // false: --no-store (no DIR/study.sqlite, no resume)
};
// Runs the cycles, prints them (one printer for every form of run), writes DIR/result.json
// and DIR/history.csv after every cycle, and returns the exit code of the run's status.
// Throws StudyError, StoreError or UsageError on bad input (mapped by run_guarded).
int run_study(const RunRequest& request);

// The output folder of a study file when --out is not given: out/<folder>-<file stem>
// (problems/oscillator/psi.json: out/oscillator-psi), so that two studies of the same file
// name in different folders do not share one.
std::string default_output_folder(const std::string& study_file);
// A file that is an SQLite database (a study store, `sao run DIR/study.sqlite`), not a study.
bool is_store_file(const std::string& path);
// The study directory of a store path (results are written beside the store).
std::string directory_of(const std::string& store);

// The session a command that analyses designs without running cycles works in (`sao doe`,
// `sao robust`, `sao pareto`), opened for analyses.
struct AnalysisSession {
  std::unique_ptr<StudySession> session;
  std::string dir;           // the study directory (results are written there)
  bool store_given = false;  // `target` was a study directory or its store
};
// A study directory or its store: its session (--out refused: the store keeps `what`, e.g. "its
// DOE"). A study file: `document` (the caller has read it, with its overrides) begun in the
// store of its output folder (`out_dir`, or default_output_folder), created when new.
AnalysisSession open_analysis_session(const std::string& target, const std::string& out_dir,
                                      const nlohmann::json& document, const std::string& what);
// Whether `target` names a study directory or its store (not a study file).
bool names_a_store(const std::string& target);

}  // namespace sao::cli
