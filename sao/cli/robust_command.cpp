#include "sao/cli/robust_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "sao/cli/exit_codes.hpp"
#include "sao/cli/store_commands.hpp"
#include "sao/seam/run_directory.hpp"
#include "sao/store/atomic_file.hpp"
#include "sao/study/study_loader.hpp"

namespace sao::cli {
namespace {

namespace fs = std::filesystem;

// The session of the study file's output folder (created with its store when new), or of the
// study directory given, opened for analyses.
AnalysisSession open_robust(const RobustCommand& command) {
  const nlohmann::json document = names_a_store(command.target)
                                      ? nlohmann::json::object()
                                      : read_study_document(command.target);
  return open_analysis_session(command.target, command.out_dir, document, "its analyses");
}

// The design analysed and where it comes from, --design applied.
Eigen::VectorXd chosen_design(const Study& study, const AnalysisSession& o,
                              const RobustCommand& command, std::string& source) {
  Eigen::VectorXd x(study.n_design());
  for (int i = 0; i < study.n_design(); ++i) x(i) = study.design[i].initial;
  source = "initial design";
  if (o.store_given) {
    if (const auto reported = report::reported_design(study, o.dir)) {
      x = *reported;
      source = "design reported in " + (fs::path(o.dir) / "result.json").string();
    } else {
      source = "initial design (no result.json with a design in " + o.dir + ")";
    }
  }
  for (const std::string& a : command.design) {
    const size_t eq = a.find('=');
    int found = -1;
    for (int i = 0; eq != std::string::npos && i < study.n_design(); ++i) {
      if (study.design[i].name == a.substr(0, eq)) found = i;
    }
    double value = 0;
    try {
      if (found < 0) throw std::invalid_argument("name");
      size_t used = 0;
      value = std::stod(a.substr(eq + 1), &used);
      if (used != a.size() - eq - 1) throw std::invalid_argument("value");
    } catch (const std::exception&) {
      std::string names;
      for (const DesignVariable& d : study.design) names += (names.empty() ? "" : ", ") + d.name;
      throw UsageError("--design " + a + ": expected NAME=VALUE of a design variable (" + names +
                       ")");
    }
    x(found) = value;
    source += (source.find("--design") == std::string::npos ? ", with --design " : ", ") + a;
  }
  return x;
}

}  // namespace

CLI::App* add_robust_command(CLI::App& app, RobustCommand& c) {
  CLI::App* cmd = app.add_subcommand(
      "robust",
      "mean, sd, quantiles of every response and the probability of violating each constraint "
      "at a design under the study's random variables, with confidence intervals "
      "(docs/robustness.md)");
  cmd->add_option("study", c.target,
                  "study file (JSON), or a study directory (or its study.sqlite)")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--method", c.method,
                  "lhs or mc: samples on a metamodel of a local DOE (default lhs); mc-analyses: "
                  "Monte Carlo on analyses; form: FORM per constraint on the metamodel")
      ->check(CLI::IsMember({"lhs", "mc", "mc-analyses", "form"}));
  cmd->add_option("--points", c.request.points,
                  "analyses of the local DOE (default max(2k+1, 10) for kriging, quadratic: its "
                  "terms + 2; k random variables)")
      ->check(CLI::Range(2, 100000));
  cmd->add_option("--samples", c.request.samples,
                  "samples (on the metamodel; mc-analyses: analyses); default 10000")
      ->check(CLI::Range(2, 10000000));
  cmd->add_option("--verify", c.request.verify,
                  "samples also analysed, predicted against computed (default 10; 0: none)")
      ->check(CLI::Range(0, 100000));
  cmd->add_option("--metamodel", c.request.metamodel, "kriging (default) or quadratic")
      ->check(CLI::IsMember({"kriging", "quadratic"}));
  cmd->add_option("--design", c.design, "NAME=VALUE: the design's value of a variable; repeatable");
  cmd->add_option("--quantiles", c.request.quantiles,
                  "probabilities of the quantiles, comma-separated (default 0.05,0.5,0.95)")
      ->delimiter(',');
  cmd->add_option("--confidence", c.request.confidence, "of the intervals (default 0.95)")
      ->check(CLI::Range(0.5, 0.9999));
  cmd->add_option("--seed", c.request.seed, "of the samples and the local DOE (default 1)");
  cmd->add_option("--sobol", c.request.sobol,
                  "also Sobol indices of every value over the random variables, on the "
                  "metamodel: N base points (>= 64; N (k + 2) predictions; default 0: none)");
  cmd->add_option("--out", c.out_dir,
                  "output folder of a study file (default out/<study folder>-<study file name>)");
  cmd->add_flag("--json", c.json, "progress as JSON lines, then the result as one JSON document");
  cmd->add_flag("-q,--quiet", c.quiet, "no progress lines");
  return cmd;
}

int robust(const RobustCommand& command) {
  AnalysisSession o = open_robust(command);
  StudySession& session = *o.session;
  const std::optional<RandomSection>& random = session.study().random;
  if (!random) {
    throw UsageError(session.source() +
                     ": the study has no \"random_variables\" section (docs/robustness.md)");
  }
  report::RobustRequest request = command.request;
  report::robust_method_from_name(command.method, request.method);
  std::string source;
  const Eigen::VectorXd design = chosen_design(session.study(), o, command, source);
  report::RobustResult result;
  bool any_failed_all = false;
  try {
    result = report::robust_analysis(session, *random, design, request, [&](const DoeProgress& p) {
      if (p.running > 0 || command.quiet) return;
      if (command.json) {
        std::cout << progress_json("batch", p).dump() << std::endl;
      } else {
        std::cout << fmt::format("batch      {}: {}/{} done ({} re-used), {} failed\n",
                                 report::robust_purpose_title(p.purpose), p.done(), p.total,
                                 p.reused, p.failed)
                  << std::flush;
      }
    });
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());  // settings, too few successful analyses: bad input
  }
  result.design_source = source;
  for (const report::AnalysisSet& s : result.analyses) {
    any_failed_all =
        any_failed_all || (s.progress.analysed > 0 && s.progress.failed == s.progress.analysed);
  }
  if (command.json) {
    std::cout << report::robust_json(result).dump(2) << "\n";
  } else {
    std::cout << report::robust_text(result);
  }
  if (any_failed_all) {
    std::cerr << "error: every analysis of a set failed: the warnings above name why\n";
    return kFailed;
  }
  return kOk;
}

}  // namespace sao::cli
