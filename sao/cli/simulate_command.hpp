// `sao simulate MODEL_OR_STUDY [--design name=value ...] [--set key=value ...] [--out DIR]
// [--json]`: one analysis of
// a model or a study without an optimisation problem, every history written at full precision.
//
// A study file (with an "objective") is analysed at its initial design, the values given with
// --design replacing those of its design variables. A model file (a study's "simulator",
// "load_cases" and optionally "responses", "constants", ...; no "design_variables" or
// "objective") is analysed at its model's parameter defaults, --design name=value setting a
// model parameter. --set overrides an entry of the file before it is loaded, as on `sao run`
// (e.g. load_cases.0.grid.points=2001 or simulator.tolerance.rtol=1e-8). Writes DIR/<load case>.csv
// (a column t, then one per history, "%.17g") and DIR/simulation.json (design, files, scalars,
// timing: wall and CPU seconds); with --json the same document on stdout. DIR defaults to
// out/<folder>-<file stem>-simulate.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace sao::cli {

struct SimulateRequest {
  std::string file;
  std::vector<std::string> designs;    // name=value
  std::vector<std::string> overrides;  // --set path.to.key=value, applied to the file first
  std::string out_dir;
  bool json = false;
};

CLI::App* add_simulate_command(CLI::App& app, SimulateRequest& request);

// Runs it; the exit code (exit_codes.hpp): 0, 2 bad input, 3 a failed analysis or I/O. Throws
// the errors run_guarded maps.
int simulate(const SimulateRequest& request);

}  // namespace sao::cli
