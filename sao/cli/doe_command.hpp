// `sao doe STUDY|DIR [--out DIR] [--set doe.KEY=VALUE ...] [--executor local|slurm] [--json]`
// (issue 50, docs/doe.md): a design of experiments into the study store. With a study file the
// store of its output folder (as `sao run`'s: out/<folder>-<stem> by default) is opened or
// created; with a study directory (or its study.sqlite) the stored study is used, and without
// --set the store's latest DOE is resumed. The plan (the study's "doe" section) is made once and
// stored; its points are analysed by the study's simulator and executor, each batch stored as
// it returns; the points the store holds are re-used. One line per batch (done/total, failed,
// elapsed, estimated remaining), or JSON lines (events "doe", "batch", "end").
//
// Exit codes: 0 every point analysed or re-used, also when some analyses failed (each named in
// a warning, counted in the output; a resume analyses them again); 2 bad input (the "doe"
// section, --set, a store with an unfinished DOE of other settings); 3 every analysis of this
// process failed, an interruption (SIGINT, SIGTERM, SIGHUP: the analyses finished are stored),
// I/O, a busy store.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace sao::cli {

struct DoeRequest {
  std::string target;  // a study file, a study directory or its store
  std::string out_dir;
  std::vector<std::string> overrides;  // --set
  std::string executor;                // --executor: simulator.executor.type
  bool json = false;
  bool quiet = false;
};

CLI::App* add_doe_command(CLI::App& app, DoeRequest& request);

// Runs it; the exit code (above). Throws the errors run_guarded maps.
int doe(const DoeRequest& request);

}  // namespace sao::cli
