// One study of the service: its folder in the data directory (DIR/study.sqlite, the store of
// the command line), the session (study_session.hpp) that works on it, and the events of its
// cycles. Every cycle, setting and restart goes through StudySession exactly as `sao step`,
// `sao set` and `sao restart` do; the host only serialises them and reports them.
//
// Concurrency: one mutation at a time. A step, a run, a setting change or a restart claims the
// study; a second one while it is claimed is refused (409). A run goes on in a thread of its
// own, one cycle after the other, until the run ends or stop() (after the current cycle).
// Reading (status, analyses, report) never waits for a cycle: the status is a snapshot taken
// after every change, the analyses and the report are read from the store by a read-only
// session of their own (as `sao report` reads it).
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "sao/report/metamodel_report.hpp"
#include "sao/service/api_error.hpp"
#include "sao/service/event_hub.hpp"
#include "sao/store/doe_run.hpp"
#include "sao/store/study_session.hpp"

namespace sao::service {

class StudyHost {
 public:
  StudyHost(std::string id, std::filesystem::path dir);
  ~StudyHost();
  StudyHost(const StudyHost&) = delete;
  StudyHost& operator=(const StudyHost&) = delete;

  // Makes `document` the study of a new store in the folder (StudySession::begin). Throws
  // StudyError (400) when it does not validate; nothing is kept then (the caller removes the
  // folder).
  void create(const nlohmann::json& document, const std::string& source);

  const std::string& id() const { return id_; }
  const std::filesystem::path& dir() const { return dir_; }
  std::string store_path() const { return (dir_ / "study.sqlite").string(); }

  // The state of the study: id, state (idle, stepping, running, ...), status, settings in
  // force, pending settings changes, current design, history (cycle records in their one JSON
  // form), branches, store counts.
  nlohmann::ordered_json status();
  // id, name, state, status, branch and cycles only.
  nlohmann::json summary();

  // One cycle; its record. 409 while another mutation or a run holds the study, or when the
  // run has ended.
  nlohmann::ordered_json step();
  // Cycles on a thread of their own until the run ends or stop().
  void start_run();
  // `sao doe DIR --set doe.KEY=VALUE ...`: {"assignments": ["doe.points=30", ...]}, {"doe.KEY":
  // value, ...} or {} (the store's latest DOE resumed, else the study's own "doe" section). The
  // plan is made (or found) before the answer, {"doe", "resumed", "method", "points"}; its points
  // are analysed on the run's thread (prepare_doe and run_doe, as the command), events "doe",
  // "doe_batch" and "doe_end". 400 for settings that do not validate, 409 while busy.
  nlohmann::json start_doe(const nlohmann::json& body);
  // `sao pareto DIR` (docs/pareto.md) on a study of several objectives: {"algorithm",
  // "population", ...} (pareto_options; {} the defaults). The DOE is made (or found) before the
  // answer, {"doe", "resumed", "points", "settings"}; the rounds run on the run's thread, events
  // "pareto_batch" (each batch of analyses), "pareto_round" and "pareto_end"; pareto.csv,
  // pareto.json and pareto.html are written into the study's folder. 400 for bad settings or a
  // study of one objective, 409 while busy.
  nlohmann::json start_pareto(const nlohmann::json& body);
  // pareto.json with the front's charts (pareto_charts: chart specs): {"pareto", "charts"}; 404
  // when no front was computed.
  nlohmann::json pareto() const;
  // `sao pareto DIR --start-study K [--objective NAME]` on the last front: {"point": K,
  // "objective": NAME (optional: the first)}. {"study": the single-objective study started at
  // point K (front_point_study, the command's), "from": {"study": id, "point": K, "objective":
  // NAME}}; the caller makes it a study of its own (StudyRegistry::create_from). 404 before any
  // front, 400 for a point that is not a number of the front, an unknown objective (the known
  // ones named) or another key, 409 for a front of another study.
  nlohmann::json front_point_study(const nlohmann::json& body) const;
  // `sao robust DIR --json` (docs/robustness.md): {"method", "samples", "points", "verify",
  // "metamodel", "quantiles", "confidence", "seed", "design": {name: value}}, each optional. The
  // design is resolved before the answer, {"design", "design_source", "method"}; the analyses
  // run on the run's thread, events "robust_batch" and "robust_end"; the document is written to
  // robust.json in the study's folder. 400 for bad settings or a study without random
  // variables, 409 while busy.
  nlohmann::json start_robust(const nlohmann::json& body);
  // robust.json; 404 when no estimate was made.
  nlohmann::json robust() const;
  // Ends a run after its current cycle, a DOE, a front or a robustness estimate after its batch
  // under way; false when none is under way.
  bool stop();
  // `sao set`: {"assignments": ["key=value", ...]} or {"key": value, ...}.
  nlohmann::json set(const nlohmann::json& body);
  // `sao restart`: {"from_cycle": K, "branch": B (optional), "study": {...} (optional)};
  // `admitted` is the study as admit_study() leaves it (null: the current study).
  nlohmann::json restart(const nlohmann::json& body, const nlohmann::json& admitted,
                         const std::string& source);
  // Every stored analysis, paged.
  nlohmann::json analyses(long offset, long limit) const;
  // The HTML report of `sao report`.
  std::string report() const;
  // Every branch (id, parent, from_cycle, status, message, created) with its history, the
  // lineage as in status(): per cycle {cycle, accepted, F, V, Ef, Eg}; and the current branch.
  nlohmann::json branches() const;
  // The time-dependent constraints at cycle `cycle`'s start design and proposal
  // (constraint_histories.hpp); `branch` 0: the current branch.
  nlohmann::ordered_json histories(int branch, int cycle) const;
  // The charts of the workbench, the report's (report_plots.hpp) as chart specs: view "cycles"
  // (per cycle), "branches" (every branch), "histories" (the constraint and response
  // histories at the start and the proposal of `cycle`). {"view", "branch", "charts": [...]}.
  // View "analyses": y against x of every stored analysis, by branch or cycle
  // (analysis_charts.hpp), with the "quantities" one may choose.
  // View "histories" with `analysis` >= 0: stored analysis `analysis` (GET .../analyses's
  // index) instead of a cycle's two designs.
  struct ScatterChoice {
    std::string x, y, by = "cycle";
    long analysis = -1;
  };
  nlohmann::json charts(const std::string& view, int branch, int cycle,
                        const ScatterChoice& scatter) const;

  // `sao metamodel DIR --json`'s document (metamodel_report.hpp) from the store's analyses of
  // the current branch's study, read by a read-only store of its own (a run may go on). 400 for
  // an unknown model or response and bad Sobol settings, 409 when the store holds too few
  // distinct designs (the message says how many are needed and suggests a DOE).
  nlohmann::ordered_json metamodels(const report::MetamodelRequest& request) const;

  EventHub& events() { return hub_; }
  // Stops a run and waits for it; closes the event streams.
  void shutdown();

 private:
  class Claim;
  void ensure_open();                    // with mutex_
  void refresh();                        // with mutex_: the snapshot from the open session
  nlohmann::ordered_json snapshot_of();  // with mutex_
  nlohmann::ordered_json cycle_step();   // with mutex_: one cycle, its event
  void run_cycles();                     // the run's thread
  // A job of analyses (a DOE, a front, a robustness estimate) on the run's thread, with the
  // analyses' session: `work` reports its batches to the progress function it is given (a stop
  // asked ends the job before its next batch), published as "KIND_batch"; its answer (or the
  // last progress) as "KIND_end" with "reason" ended, stopped or error.
  using Progress = std::function<void(const DoeProgress&)>;
  using Job = std::function<nlohmann::json(StudySession&, const Progress&)>;
  void start_job(Claim& claim, std::unique_ptr<StudySession> analyses, const std::string& kind,
                 Job work);
  void run_job(std::unique_ptr<StudySession> analyses, const std::string& kind,
               const Job& work);  // the job's thread
  // The session opened for analyses (the study's session closed: the store's lock), with mutex_.
  std::unique_ptr<StudySession> analyses_session();
  void require_run() const;  // 409 for a study of several objectives (no run)
  void set_state(const std::string& state);

  std::string id_;
  std::filesystem::path dir_;
  std::mutex mutex_;  // the session
  std::unique_ptr<StudySession> session_;
  std::atomic<bool> busy_{false};  // claimed by a mutation or a run
  std::atomic<bool> stop_{false};
  std::thread runner_;
  std::mutex runner_mutex_;  // start_run / shutdown
  mutable std::mutex snapshot_mutex_;
  nlohmann::ordered_json snapshot_;  // ordered: designs in study order
  std::string state_ = "idle";
  size_t objectives_ = 0;  // the stored study's "objectives" (more than one: analyses only)
  EventHub hub_;
};

// A mutation's hold on the study: refused (409) while another one holds it.
class StudyHost::Claim {
 public:
  Claim(StudyHost& host, const std::string& state) : host_(host) {
    bool expected = false;
    if (!host.busy_.compare_exchange_strong(expected, true)) {
      std::string now;
      {
        std::lock_guard<std::mutex> lock(host.snapshot_mutex_);
        now = host.state_;
      }
      throw ApiError(409, "study " + host.id_ + " is busy (" + now +
                              "): one change at a time; try again when it is idle");
    }
    host.set_state(state);
  }
  ~Claim() {
    if (held_) release(host_);
  }
  Claim(const Claim&) = delete;
  Claim& operator=(const Claim&) = delete;
  // The run's thread releases the study when the run ends.
  void hand_over() { held_ = false; }
  static void release(StudyHost& host) {
    host.set_state("idle");
    host.busy_ = false;
  }

 private:
  StudyHost& host_;
  bool held_ = true;
};

}  // namespace sao::service
