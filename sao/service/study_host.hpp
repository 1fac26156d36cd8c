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
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "sao/report/metamodel_report.hpp"
#include "sao/service/event_hub.hpp"
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
  // Ends a run after its current cycle, a DOE after its batch under way; false when neither is
  // under way.
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
  void analyse_doe(std::unique_ptr<StudySession> analyses, const StoredDoe& doe,
                   int batch);  // a DOE's thread
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
  EventHub hub_;
};

}  // namespace sao::service
