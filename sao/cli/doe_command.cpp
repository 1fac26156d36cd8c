#include "sao/cli/doe_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "sao/cli/exit_codes.hpp"
#include "sao/cli/store_commands.hpp"
#include "sao/seam/run_directory.hpp"
#include "sao/store/atomic_file.hpp"
#include "sao/store/doe_run.hpp"
#include "sao/study/study_loader.hpp"

namespace sao::cli {
namespace {

namespace fs = std::filesystem;

// "1:02:03", "2:03" or "4.5 s".
std::string duration(double seconds) {
  if (seconds < 0) return "?";
  if (seconds < 60) return fmt::format("{:.1f} s", seconds);
  const long s = static_cast<long>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

struct Opened {
  std::unique_ptr<StudySession> session;
  std::string dir;
  std::optional<DoeSection> section;  // none: resume the store's latest DOE
};

// The session of the study file's output folder (created with its store when new), or of the
// study directory given; the DOE settings: the file's (or the stored study's) "doe" section with
// the --set overrides.
Opened open_doe(const DoeRequest& request) {
  Opened o;
  const bool store_given = names_a_store(request.target);
  nlohmann::json document = nlohmann::json::object();
  std::string source = request.target;
  if (store_given) {
    if (!request.executor.empty()) {
      throw UsageError("--executor applies to a study file; " + request.target +
                       " analyses with the executor its study was stored with");
    }
    for (const std::string& o_ : request.overrides) {
      if (o_.rfind("doe.", 0) != 0) {
        throw UsageError("--set " + o_ +
                         ": on a study directory only doe.KEY=VALUE (the stored "
                         "study is not changed by sao doe)");
      }
    }
  } else {
    std::vector<std::string> overrides = request.overrides;
    if (!request.executor.empty())
      overrides.push_back("simulator.executor.type=" + request.executor);
    document = read_study_document(request.target, overrides);
  }
  AnalysisSession opened =
      open_analysis_session(request.target, request.out_dir, document, "its DOE");
  o.session = std::move(opened.session);
  o.dir = opened.dir;
  if (store_given) {
    document = o.session->document();
    source = o.session->source();
    if (request.overrides.empty() && !o.session->store().does().empty()) return o;  // resume
    for (const std::string& a : request.overrides) apply_override(document, a);
  }
  LoadedStudy loaded = load_study(document, source);
  if (!loaded.doe) {
    throw UsageError(source +
                     ": the study has no \"doe\" section: add one (docs/doe.md), or give "
                     "it with --set, e.g. --set doe.method=lhs --set doe.points=50");
  }
  o.section = std::move(loaded.doe);
  return o;
}

std::string region_text(const Study& study, const StoredDoe& doe) {
  const nlohmann::json& region = doe.settings["region"];
  std::string out;
  for (int i = 0; i < study.n_design(); ++i) {
    const double lo = exact_number_from(region["lower"][i]),
                 hi = exact_number_from(region["upper"][i]);
    if (lo == study.design[i].lower && hi == study.design[i].upper) continue;
    out += fmt::format("{}{} in [{:.6g}, {:.6g}]", out.empty() ? "" : ", ", study.design[i].name,
                       lo, hi);
  }
  return out.empty() ? "the design bounds" : out;
}

void print_plan(const Study& study, const PreparedDoe& p, const std::string& store) {
  const StoredDoe& d = p.doe;
  const nlohmann::json& n = d.notes;
  std::cout << fmt::format("doe        {} DOE {}: {}, {} points in {}; store {}\n",
                           p.resumed ? "resuming" : "new", d.id, d.settings.value("method", "?"),
                           d.points.rows(), region_text(study, d), store);
  if (n.contains("min_distance") && n["min_distance"].is_number()) {
    std::cout << fmt::format("plan       smallest distance {:.4g} (scaled to the unit cube)",
                             n["min_distance"].get<double>());
    if (n["start_min_distance"].is_number()) {
      std::cout << fmt::format(", plain Latin hypercube {:.4g}",
                               n["start_min_distance"].get<double>());
    }
    std::cout << fmt::format("; {} stored analyses inside the region{}\n", n.value("existing", 0),
                             d.settings.value("method", "") == "lhs" ? " kept away from" : "");
  }
  if (n.contains("resolution")) {
    std::string generators;
    for (const auto& g : n["generators"])
      generators += (generators.empty() ? "" : ", ") + g.get<std::string>();
    std::cout << fmt::format("plan       2^({}-{}) design, resolution {}, generators {}\n",
                             study.n_design(), n["generators"].size(), n["resolution"].get<int>(),
                             generators.empty() ? "none (full factorial)" : generators);
  }
  // The names the plan was made with (stored with it).
  const nlohmann::json names = n.value("explicit_constraints", nlohmann::json::array());
  std::string list;
  for (const auto& c : names) list += (list.empty() ? "" : ", ") + c.get<std::string>();
  std::cout << fmt::format("constraints {} explicit{}: {} points replaced, {} dropped\n",
                           names.size(), list.empty() ? "" : " (" + list + ")",
                           n.value("replaced", 0), n.value("dropped", 0));
}

}  // namespace

CLI::App* add_doe_command(CLI::App& app, DoeRequest& request) {
  CLI::App* cmd = app.add_subcommand(
      "doe",
      "a design of experiments (the study's \"doe\" section) into the study store: its points "
      "analysed as a run's, each stored as its batch returns; resumable (docs/doe.md)");
  cmd->add_option("study", request.target,
                  "study file (JSON), or a study directory (or its study.sqlite) to resume")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--out", request.out_dir,
                  "output folder (default: out/<study folder>-<study file name>, as sao run)");
  cmd->add_option("--set", request.overrides,
                  "override a study entry: path.to.key=value (e.g. doe.points=60; on a study "
                  "directory only doe.KEY)");
  cmd->add_option("--executor", request.executor,
                  "where the analyses run: local (the worker pool) or slurm (batch jobs); "
                  "overrides simulator.executor.type (docs/cluster.md)")
      ->check(CLI::IsMember({"local", "slurm"}));
  cmd->add_flag("--json", request.json,
                "progress as JSON lines: the plan (\"doe\"), each batch, then the \"end\"");
  cmd->add_flag("-q,--quiet", request.quiet, "print only the summary");
  return cmd;
}

int doe(const DoeRequest& request) {
  Opened o = open_doe(request);
  StudySession& session = *o.session;
  const PreparedDoe prepared = prepare_stored_doe(session, o.section);
  const Study& study = session.study();
  const std::string store = session.store().path();
  if (request.json) {
    nlohmann::ordered_json plan = {{"event", "doe"},
                                   {"id", prepared.doe.id},
                                   {"resumed", prepared.resumed},
                                   {"points", prepared.doe.points.rows()},
                                   {"settings", prepared.doe.settings},
                                   {"notes", prepared.doe.notes},
                                   {"store", store}};
    std::cout << plan.dump() << std::endl;
  } else if (!request.quiet) {
    print_plan(study, prepared, store);
    std::cout << std::flush;  // before the first analysis: a kill loses no line
  }
  const int batch = o.section ? o.section->batch : 0;
  const DoeProgress end = run_doe(session, prepared.doe, batch, [&](const DoeProgress& p) {
    if (p.running > 0) return;  // reported when the batch has returned
    if (request.json) {
      std::cout << progress_json("batch", p).dump() << std::endl;
    } else if (!request.quiet) {
      std::cout << fmt::format(
                       "batch      {}/{} done ({} re-used), {} failed, {} elapsed, {} left\n",
                       p.done(), p.total, p.reused, p.failed, duration(p.elapsed_seconds),
                       duration(p.remaining_seconds))
                << std::flush;
    }
  });
  const bool all_failed = end.analysed > 0 && end.failed == end.analysed;
  if (request.json) {
    nlohmann::ordered_json last = progress_json("end", end);
    last["store"] = store;
    std::cout << last.dump() << std::endl;
  } else {
    std::cout << fmt::format(
        "done       DOE {}: {} points, {} analysed now ({} failed), {} re-used "
        "from the store; {}\n",
        prepared.doe.id, end.total, end.analysed, end.failed, end.reused,
        duration(end.elapsed_seconds));
    if (end.failed > 0) {
      std::cout << "           the failed points are analysed again by `sao doe " << o.dir << "`\n";
    }
    std::cout << "export     sao export " << o.dir << " (every stored analysis as CSV)\n";
  }
  if (all_failed) {
    std::cerr << "error: every analysis of this DOE failed (" << end.failed
              << "): the warnings above name why\n";
    return kFailed;
  }
  return kOk;
}

}  // namespace sao::cli
