// The `sao` subcommands that work on a study directory and its store (store.hpp,
// study_session.hpp): `run` with resume, `step`, `status`, `set`, `restart`, `report`.
// Kept apart from main.cpp so that the command file only wires them in.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace sao::cli {

// Adds step, status, set, restart and report to `app`.
void add_store_commands(CLI::App& app);
// Runs the store subcommand that was parsed; -1 when none of them was chosen.
int run_store_commands();

// How run prints its progress.
enum class Output { kTable, kQuiet, kJson };

// `sao run STUDY.json --out DIR` / `sao run DIR`: runs with the study store DIR/study.sqlite,
// resuming where an earlier (killed) run stopped. Exit codes as `sao run`.
int run_with_store(const std::string& study_or_dir, const std::string& out_dir, int max_cycles,
                   Output output, const std::vector<std::string>& overrides, int start);

}  // namespace sao::cli
