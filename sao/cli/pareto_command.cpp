#include "sao/cli/pareto_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "sao/cli/exit_codes.hpp"
#include "sao/cli/store_commands.hpp"
#include "sao/report/pareto_files.hpp"
#include "sao/seam/json_text.hpp"
#include "sao/seam/run_directory.hpp"
#include "sao/store/atomic_file.hpp"
#include "sao/store/pareto_run.hpp"
#include "sao/study/study_loader.hpp"

namespace sao::cli {
namespace {

namespace fs = std::filesystem;

struct ParetoRequest {
  std::string target;
  std::string out_dir;
  std::vector<std::string> overrides;
  std::string algorithm = "nsga2";
  std::string metamodel = "kriging";
  std::string modelling = "auto";
  ParetoOptions options;
  std::vector<std::string> start_study;  // K OUT.json
  std::string objective;                 // --objective: kept by --start-study
  bool json = false;
  bool quiet = false;
  CLI::App* command = nullptr;
};

ParetoRequest& request() {
  static ParetoRequest r;
  return r;
}

struct Opened {
  std::unique_ptr<StudySession> session;
  std::string dir;
  std::string source;
};

Opened open_pareto(const ParetoRequest& r) {
  Opened o;
  if (names_a_store(r.target) && !r.overrides.empty()) {
    throw UsageError("--set applies to a study file; " + r.target +
                     " keeps its study and analyses in its own store");
  }
  nlohmann::json document = nlohmann::json::object();
  if (!names_a_store(r.target)) {
    document = read_study_document(r.target, r.overrides);
    (void)load_study(document, r.target);  // validated before a folder is made
  }
  AnalysisSession opened =
      open_analysis_session(r.target, r.out_dir, document, "its study and analyses");
  o.session = std::move(opened.session);
  o.dir = opened.dir;
  o.source = opened.store_given ? o.session->source() : r.target;
  return o;
}

std::string objectives_text(const Study& study, const Eigen::VectorXd& f) {
  std::string out;
  for (size_t k = 0; k < study.objectives.size(); ++k) {
    out += fmt::format("{}{} = {:.6g}", out.empty() ? "" : ", ", study.objectives[k].name,
                       f(static_cast<Eigen::Index>(k)));
  }
  return out;
}

void print_round(const ParetoRound& r, bool json) {
  if (json) {
    std::cout << nlohmann::ordered_json({{"event", "round"},
                                         {"round", r.round},
                                         {"front_points", r.points},
                                         {"training", r.training},
                                         {"model", r.model},
                                         {"worst_loo_percent", r.worst_loo},
                                         {"models", model_errors_json(r)},
                                         {"verified", r.verified},
                                         {"faces", r.faces},
                                         {"analysed", r.analysed},
                                         {"failed", r.failed},
                                         {"disagreeing", r.disagreeing},
                                         {"max_error", r.max_error}})
                     .dump()
              << std::endl;
    return;
  }
  std::cout << fmt::format(
      "round {}    {} front points on {} models{} over {} analyses (worst LOO {:.3g} "
      "%); {} verified{} ({} analysed now, {} failed), {} disagree, largest error "
      "{:.3g} % of the front's range\n",
      r.round, r.points, r.model, r.errors.empty() ? "" : " of the criteria", r.training,
      r.worst_loo, r.verified, r.faces > 0 ? fmt::format(" and {} face points", r.faces) : "",
      r.analysed, r.failed, r.disagreeing, 100.0 * r.max_error);
  for (const ParetoModelError& e : r.errors) {
    std::cout << fmt::format("  LOO      {}: {:.4g} ({:.3g} % of its spread){}\n", e.name,
                             e.loo_rms, e.loo_percent, e.log_inputs ? ", log inputs" : "");
  }
  std::cout << std::flush;
}

// --start-study K OUT.json: a single-objective study from point K of DIR/pareto.json.
int start_study(const ParetoRequest& r) {
  std::error_code ec;
  if (!fs::is_directory(r.target, ec)) {
    throw UsageError(
        "--start-study reads DIR/pareto.json: give the study directory of a "
        "`sao pareto` run, not " +
        r.target);
  }
  int k = 0;
  try {
    k = std::stoi(r.start_study[0]);
  } catch (const std::exception&) {
    throw UsageError("--start-study " + r.start_study[0] + ": not a point number");
  }
  StudySession session(store_file(r.target), StoreAccess::kReadOnly);
  session.open_for_analyses();
  const Study& study = session.study();
  FrontPointStudy start;
  try {
    start =
        front_point_study(read_pareto_json(r.target), session.document(), study, k, r.objective);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--start-study: ") + e.what());
  }
  (void)load_study(start.study, r.start_study[1]);  // a study `sao run` takes
  write_file_atomically(r.start_study[1], start.study.dump(2) + "\n");
  std::cout << fmt::format(
                   "start      {}: optimise {} from front point {} ({}), the other "
                   "objectives constraints at its values\n",
                   r.start_study[1], study.objectives[static_cast<size_t>(start.objective)].name, k,
                   start.verified ? "verified" : "predicted")
            << "run        sao run " << r.start_study[1] << "\n";
  return kOk;
}

}  // namespace

CLI::App* add_pareto_command(CLI::App& app) {
  ParetoRequest& r = request();
  CLI::App* cmd = app.add_subcommand(
      "pareto",
      "the Pareto front of a multi-objective study: a DOE, metamodels, NSGA-II or MOEA/D "
      "(pagmo2) on them, front points verified by analyses and refined; resumable "
      "(docs/pareto.md)");
  cmd->add_option("study", r.target, "study file (JSON), or a study directory to resume")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--out", r.out_dir, "output folder (default: out/<study folder>-<file name>)");
  cmd->add_option("--set", r.overrides, "override a study entry: path.to.key=value");
  cmd->add_option("--algorithm", r.algorithm, "nsga2 (default) or moead")
      ->check(CLI::IsMember({"nsga2", "moead"}));
  cmd->add_option("--population", r.options.search.population, "population size (default 100)")
      ->check(CLI::Range(8, 100000));
  cmd->add_option("--generations", r.options.search.generations, "generations (default 200)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--seed", r.options.search.seed, "the search's seed (default 1)");
  cmd->add_option("--metamodel", r.metamodel, "kriging (default), quadratic or linear")
      ->check(CLI::IsMember({"kriging", "quadratic", "linear"}));
  cmd->add_option("--model", r.modelling,
                  "what is modelled: values (every response value), criteria (one model per "
                  "objective and constraint), auto (default: criteria above " +
                      std::to_string(kParetoCriteriaAbove) + " response values)")
      ->check(CLI::IsMember({"auto", "values", "criteria"}));
  cmd->add_option("--verify", r.options.verify, "front points analysed per round (default 10)")
      ->check(CLI::Range(1, 10000));
  cmd->add_option(
         "--rounds", r.options.rounds,
         "rounds of refinement at most (default 10; they end when the verified points agree)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--tolerance", r.options.tolerance,
                  "agreement: |predicted - analysed| <= T x the objective's range over the front, "
                  "and V <= 100 T % (default 0.02)")
      ->check(CLI::Range(1e-9, 10.0));
  cmd->add_option("--faces", r.options.faces,
                  "face points: each verified point with its variables within F of a bound "
                  "(a fraction of the box; log scale for a positive lower bound) moved onto it, "
                  "analysed for the models when a round disagrees (default 0: none)")
      ->check(CLI::Range(0.0, 0.5));
  cmd->add_option("--refine", r.options.refine,
                  "C: each verified point of the final front as the start of C cycles of the "
                  "study's SAO on its epsilon-constraint study (--objective minimised, the others "
                  "bounded at the point); a dominating analysed design replaces it (default 0: "
                  "none)")
      ->check(CLI::Range(0, 100));
  cmd->add_option("--start-study", r.start_study,
                  "K OUT.json: write a single-objective study started at front point K of "
                  "DIR/pareto.json (the other objectives constraints at its values)")
      ->expected(2);
  cmd->add_option("--objective", r.objective,
                  "the objective kept by --start-study, minimised by --refine (default: the "
                  "first)");
  cmd->add_flag("--json", r.json,
                "progress as JSON lines (\"doe\", \"batch\", \"round\", \"end\")");
  cmd->add_flag("-q,--quiet", r.quiet, "print only the summary");
  r.command = cmd;
  return cmd;
}

bool pareto_parsed() {
  return request().command && request().command->parsed();
}

int pareto() {
  ParetoRequest& r = request();
  if (!r.start_study.empty()) return start_study(r);
  (void)parse_metamodel_kind(r.metamodel, r.options.model);
  (void)parse_pareto_modelling(r.modelling, r.options.modelling);
  (void)pareto::parse_algorithm(r.algorithm, r.options.search.algorithm);
  r.options.refine_objective = r.objective;
  Opened o = open_pareto(r);
  StudySession& session = *o.session;
  const Study& study = session.study();
  if (!study.multi_objective()) {
    throw UsageError(o.source +
                     ": sao pareto needs two objectives or more (\"objectives\", "
                     "docs/pareto.md); for one objective use `sao run`");
  }
  const PreparedDoe prepared = prepare_pareto_doe(session);
  const std::string store = session.store().path();
  if (r.json) {
    std::cout << nlohmann::ordered_json({{"event", "doe"},
                                         {"id", prepared.doe.id},
                                         {"resumed", prepared.resumed},
                                         {"points", prepared.doe.points.rows()},
                                         {"store", store}})
                     .dump()
              << std::endl;
  } else if (!r.quiet) {
    std::cout << fmt::format("doe        {} DOE {}: {}, {} points; store {}\n",
                             prepared.resumed ? "resuming" : "new", prepared.doe.id,
                             prepared.doe.settings.value("method", "?"), prepared.doe.points.rows(),
                             store)
              << std::flush;
  }
  const ParetoResult result = run_pareto(
      session, prepared.doe, r.options,
      [&](const DoeProgress& p) {
        if (p.running > 0) return;
        if (r.json) {
          std::cout << progress_json("batch", p).dump() << std::endl;
        } else if (!r.quiet) {
          const std::string round = p.round > 0 ? fmt::format(" (round {})", p.round) : "";
          std::cout << fmt::format("batch      {}{}: {}/{} done ({} re-used), {} failed\n",
                                   p.purpose, round, p.done(), p.total, p.reused, p.failed)
                    << std::flush;
        }
      },
      [&](const ParetoRound& round) {
        if (r.json || !r.quiet) print_round(round, r.json);
      });
  write_pareto(o.dir, study, result, r.options);
  if (result.refinement.started > 0 && !r.json && !r.quiet) {
    const ParetoResult::Refinement& f = result.refinement;
    std::cout << fmt::format(
        "refine     {} verified points, {} cycles each at most ({} in all): {} replaced by a "
        "dominating analysed design; {} analyses and {} sensitivity analyses ({} simulator runs) "
        "now, "
        "{} re-used\n",
        f.started, r.options.refine, f.cycles, f.improved, f.analyses, f.sensitivities,
        f.simulator_runs, f.reused);
    if (f.refused > 0)
      std::cout << fmt::format("refine     {} point(s) not refined: {}\n", f.refused, f.reason);
  }
  const int best = balanced_point(study, result);
  const ParetoPoint& b = result.front[static_cast<size_t>(best)];
  if (r.json) {
    std::cout << nlohmann::ordered_json({{"event", "end"},
                                         {"front_points", result.front.size()},
                                         {"rounds", result.rounds.size()},
                                         {"agreed", result.agreed},
                                         {"analysed", result.analysed},
                                         {"reused", result.reused},
                                         {"refined", result.refinement.improved},
                                         {"balanced", best + 1},
                                         {"files", o.dir + "/pareto.json"}})
                     .dump()
              << std::endl;
  } else {
    std::cout << fmt::format(
        "done       {} front points, {} round(s), {}{}; {} analyses now, {} re-used from the "
        "store\nbalanced   point {} ({}): {}\nstart      sao pareto {} --start-study {} "
        "STUDY.json && sao run STUDY.json (optimises {} with the other objectives as "
        "constraints at this point)\nfiles      {}/pareto.csv, pareto.json, pareto.html\n",
        result.front.size(), result.rounds.size(),
        result.agreed ? "the verified points agree"
                      : "the last round still disagrees (raise --rounds or --verify)",
        result.replaced > 0
            ? fmt::format(" ({} disagreeing point(s) replaced by the nearest nondominated analysed "
                          "designs)",
                          result.replaced)
            : "",
        result.analysed, result.reused, best + 1, b.verified ? "verified" : "predicted",
        objectives_text(study, b.verified ? b.computed.objectives : b.predicted.objectives), o.dir,
        best + 1, study.objectives.front().name, o.dir);
  }
  const bool all_failed =
      result.analysed > 0 && result.doe.failed == result.doe.analysed && result.doe.analysed > 0;
  return all_failed ? kFailed : kOk;
}

}  // namespace sao::cli
