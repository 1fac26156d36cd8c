// The `sao` subcommands that run a study through a StudySession (study_session.hpp): `run`
// (with the store and resume, or --no-store), and the ones on a study directory's store:
// `step`, `status`, `set`, `restart`, `report`. main.cpp wires them in.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace sao::cli {

// Adds step, status, set, restart and report to `app`.
void add_store_commands(CLI::App& app);
// Runs the store subcommand that was parsed and returns its exit code (exit_codes.hpp); -1
// when none of them was chosen.
int run_store_commands();

// How run prints its progress.
enum class Output { kTable, kQuiet, kJson };

// `sao run`: a study file (overrides applied, start `start`) or a study directory to resume.
struct RunRequest {
  std::string study;
  std::string out_dir;  // "": out/<study file name>
  int max_cycles = 0;   // > 0: overrides settings.max_cycles
  Output output = Output::kTable;
  std::vector<std::string> overrides;
  int start = 0;
  bool store = true;  // false: --no-store (no DIR/study.sqlite, no resume)
};
// Runs the cycles, prints them (one printer for every form of run), writes DIR/result.json
// and DIR/history.csv after every cycle, and returns the exit code of the run's status.
// Throws StudyError, StoreError or UsageError on bad input (mapped by run_guarded).
int run_study(const RunRequest& request);

}  // namespace sao::cli
