// `sao pareto STUDY|DIR [--out DIR] [--set KEY=VALUE ...] [--algorithm nsga2|moead]
// [--population P] [--generations G] [--seed S] [--metamodel kriging|quadratic|linear]
// [--verify K] [--rounds R] [--tolerance T] [--json] [-q]` (issue 51, docs/pareto.md): the
// Pareto front of a multi-objective study. With a study file the store of its output folder (as
// `sao doe`'s: out/<folder>-<stem> by default) is opened or created; with a study directory the
// stored study is used. A DOE (the study's "doe" section, else a Latin hypercube of
// max(10 n, 20) points) is run into the store, the front is searched on metamodels by pagmo2,
// K front points are verified by analyses per round (run_pareto, sao/store/pareto_run.hpp), and
// pareto.csv, pareto.json and pareto.html are written into the folder. A second run on the same
// folder re-uses every stored analysis.
//
// `sao pareto DIR --start-study K OUT.json [--objective NAME]` instead writes a single-objective
// study started at front point K of DIR/pareto.json, the other objectives constraints at their
// values there (single_objective_study), to be run by `sao run OUT.json`.
//
// Exit codes: 0 the front written (also when the last round still disagrees: said, and counted
// in pareto.json); 2 bad input (a study of one objective, an unbounded variable, the "doe"
// section, an option); 3 every analysis failed, the models could not be fitted, no feasible
// front point, an interruption (the analyses finished are stored), I/O, a busy store.
#pragma once

#include <CLI/CLI.hpp>

namespace sao::cli {

// Adds the subcommand; its options are kept in this file's request.
CLI::App* add_pareto_command(CLI::App& app);
// Whether `sao pareto` was parsed.
bool pareto_parsed();
// Runs it; the exit code (above). Throws the errors run_guarded maps.
int pareto();

}  // namespace sao::cli
