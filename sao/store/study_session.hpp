// A run of a study as the commands drive it: its driver, and (usually) the study directory's
// store (store.hpp) that keeps it across processes.
//
// The driver's state is never serialised: it is rebuilt by replay. Opening a session opens the
// current branch's study (open_study.hpp) with its simulator and builds a Driver reading every
// analysis from the store, and re-runs the stored cycles (applying the stored `sao set` changes
// before the cycle they were made for). The driver is deterministic, so the replay reaches the same
// state with no simulator run; a cycle killed half-way re-uses the analyses it had finished.
// Without a store (`sao run --no-store`) the session is the driver of one process only.
// `sao run` (with resume), `sao step`, `sao set`, `sao restart` and `sao report` are thin
// layers over this class.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sao/optimizer/driver.hpp"
#include "sao/store/action_names.hpp"
#include "sao/store/store.hpp"
#include "sao/store/store_lock.hpp"
#include "sao/study/study.hpp"

namespace sao {

// Progress of the analyses of one process: reported before and after each simulator batch.
struct BatchProgress {
  int finished = 0;              // analyses the simulator finished in this process
  int running = 0;               // analyses of the batch under way (0 once it returned)
  double elapsed_seconds = 0.0;  // since the session was opened
};

// DIR/study.sqlite for a directory, the path itself for anything else.
std::string store_file(const std::string& dir_or_file);

class StudySession {
 public:
  // Opens the store (`create`: a missing one is created, empty) and takes its lock (a
  // StoreIoError when another process holds it). The lock is taken before the store is opened,
  // so two processes creating one store do not race. A read-only session (status, report)
  // takes no lock and writes nothing: it reads a store in a read-only file or folder too.
  StudySession(const std::string& store_path, bool create);
  StudySession(const std::string& store_path, StoreAccess access);
  // A session without a store for `document` (overrides applied; `start` as `--start`):
  // open() and run() only, nothing is kept.
  StudySession(const nlohmann::json& document, const std::string& source, int start);
  ~StudySession();
  StudySession(const StudySession&) = delete;
  StudySession& operator=(const StudySession&) = delete;

  // Makes `document` (overrides applied; `start` as `--start`) the root study when the store
  // holds none yet. When it holds one, the document must be the root study's: otherwise a
  // StoreError says so (use `sao restart --study` for a reformulation). The "doe" section is
  // not compared: only `sao doe` reads it, and it keeps each plan's settings itself.
  void begin(const nlohmann::json& document, const std::string& source, int start);
  bool has_study() const { return store_ && store_->current_branch() > 0; }
  bool has_store() const { return store_ != nullptr; }
  // The words of the messages that advise an action: the command line's (default) or the
  // Python package's (its Session calls this before begin or open).
  void use_action_names(ActionNames names) { actions_ = names; }

  // Opens the current branch's study (or the document of a session without a store) and
  // replays its stored cycles; `on_cycle` sees each replayed record. `max_cycles` > 0
  // overrides settings.max_cycles. Throws StudyError / StoreError.
  // Before the replay, every stored record is checked (StudyStore::verify): each damaged one is
  // named in a warning and, in a writable session, removed, so that its analysis is run again or
  // its cycle record rebuilt. An analysis the replay has to run (a record deleted or damaged) is
  // named too, and a missing cycle record ends the replay there: the cycles from it are rebuilt.
  void open(int max_cycles = 0, const std::function<void(const CycleRecord&)>& on_cycle = {});
  // Opens the current branch's study and its simulator for analyses outside the cycles (`sao
  // doe`): no driver and no replay. As open() does, the store's damaged records are named and
  // removed, the analyses are saved with the branch and a batch executor's jobs are recorded in
  // the store (a resumed command re-attaches to them). A session with a store only.
  void open_for_analyses();
  // The study's simulator (after open() or open_for_analyses()).
  Simulator& simulator() { return *inner_simulator_; }
  // The branch's study document as stored (the "doe" section included), after opening.
  const nlohmann::json& document() const { return document_; }
  const std::string& source() const { return source_; }

  // One new cycle (applies the settings changes made for it, stores the record).
  const CycleRecord& step();
  // Cycles until the run ends; `on_cycle` after each.
  const RunSummary& run(const std::function<void(const CycleRecord&)>& on_cycle = {});

  // Validates `key=value` assignments against the current branch's study (settings keys, as
  // in the study file's "settings", range-checked by the loader, KEY=null removing one;
  // `move_limit=m` or `move_limit.NAME=m` for the move-limit factors, in (0, 1];
  // `design_variables.NAME.lower` or `.upper`, NAME a name or an index, lower < upper and the
  // current design inside; `constraints.NAME.lower`, `.upper` or `.equals`, a bound the
  // constraint has as a number) and stores them for the next cycle (settings_changes.hpp).
  // Returns that cycle's number.
  // Throws StudyError naming every invalid assignment; nothing is stored then.
  int set(const std::vector<std::string>& assignments);
  // `sao set --undo`: withdraws every change pending for the next cycle (not yet applied to a
  // cycle) and returns them. Throws StudyError when none is pending.
  std::vector<std::string> undo_set();

  // The analysis of `design` (design variables only): the store's, or without a store the one
  // this session ran; nullopt when there is none (result.json's constraint values).
  std::optional<Evaluation> analysis_of(const Eigen::VectorXd& design) const;

  // A new branch from the accepted design after cycle K of the history of branch
  // `from_branch` (0: the current branch; any branch of the store otherwise), with `document`
  // as its study (nullopt: that branch's study with the settings in force at K). The new
  // study is validated before anything is stored. The new branch is the current one (the
  // newest). Returns its id. Throws StudyError for a cycle not in that history, StoreError for
  // a branch the store does not have.
  // When `document` differs from the study at K only in what `sao set` changes (settings,
  // numeric bounds of design variables and constraints, move limits), the branch continues the
  // run: it keeps the stored study, the differences are stored as `sao set` changes for its first
  // cycle, and its driver replays the cycles up to K with everything the run had learnt, so that
  // it runs exactly what `sao set` before cycle K + 1 would have run. Otherwise (a reformulation,
  // a design after K outside new bounds, `from_reported`) the branch starts a driver of its own
  // at that design (clipped into the bounds) with the factors the strategy had reached by K.
  // Either way, move limits of `document` that differ from those at K are that cycle's factors.
  // `reset_region`: the new branch starts with a fresh subregion, the move-limit factors of
  // its study's design variables instead of those the parent had reached by cycle K (the
  // seed's second run: restarted at the optimum with a new subregion). Stored as `sao set`
  // move-limit changes for the branch's first cycle, so a replay reaches the same state.
  // `from_reported`: the new branch starts from the design the current branch reported when it
  // ended (RunSummary::x: a multi-point or unconverged run may report the best feasible design
  // it analysed rather than its last accepted one, best_design.hpp), after its last cycle
  // (from_cycle 0, or that cycle); stored as start.NAME=v changes for the branch's first cycle.
  // StudyError for a branch that has not ended or is not the current one.
  int restart(int from_cycle, const std::optional<nlohmann::json>& document,
              const std::string& source, int from_branch = 0, bool reset_region = false,
              bool from_reported = false);

  // The driver's analyses from a store built on this session's (a sweep member's store with
  // the other members' analyses, sweep.cpp) instead of the session's store alone. Before open().
  void share_analyses(std::function<std::unique_ptr<AnalysisStore>(StudyStore&)> make) {
    make_analysis_store_ = std::move(make);
  }

  // Called before and after every simulator batch (not for analyses taken from the store).
  std::function<void(const BatchProgress&)> on_batch;

  StudyStore& store() { return *store_; }  // has_store() only
  const Study& study() const { return *study_; }
  // The settings the driver follows: the study's, with the `sao set` changes and max_cycles.
  const Options& options() const { return options_; }
  Driver& driver() { return *driver_; }
  const Driver& driver() const { return *driver_; }
  int branch() const { return branch_; }
  int replayed_cycles() const { return replayed_; }
  // The status of the branch as stored before open() (converged, cycle limit, ...; "" for a
  // session without a store): a resume of a converged run must not replace its results with
  // those of a run that failed.
  const std::string& status_at_open() const { return status_at_open_; }
  // Whether `branch` continues its parent's run (restart(): same study, `sao set` changes)
  // rather than starting a driver of its own.
  bool continues(int branch) const { return continues_parent(store_->branch(branch)); }
  // Records of `branch` with its ancestors' cycles up to where it branched off.
  std::vector<CycleRecord> lineage(int branch) const;
  // The number of the cycle step() runs next, and the study's "settings" with the changes
  // applied so far (those set for the next cycle apply when it starts). After open().
  int next_cycle() const;
  nlohmann::json settings_in_force() const;

 private:
  void require_store() const;  // std::logic_error without one
  void start_restarted_branch(const BranchInfo& info);
  void replay(const std::function<void(const CycleRecord&)>& on_cycle);
  // The branches whose cycles the driver of `branch` runs, oldest first, `branch` last: the
  // first one starts the driver (the root from its study's start; a branch restarted with
  // another study or from another design, at the design after its parent's cycle K), and each
  // later one continues the run of the one before (continues_parent).
  std::vector<BranchInfo> chain(int branch) const;
  // The branch keeps its parent's study (settings changes aside) and starts where the parent's
  // cycle K left it: its driver replays the parent's cycles up to K and goes on.
  bool continues_parent(const BranchInfo& info) const;
  // The settings changes of a chain's branches, each for the cycles that branch ran itself.
  std::vector<SettingChange> chain_changes(const std::vector<BranchInfo>& chain) const;
  // The study document of `branch` as its cycle `cycle` saw it (the changes up to it applied).
  nlohmann::json document_at(int branch, int cycle) const;
  // Replays the cycles of `member`, a branch the current one continues, up to cycle `until`
  // (compared with its stored records, which stay as they are; one that is missing, damaged and
  // removed, is stored again as replayed), and reopens the run if it ended there.
  void replay_continued(const BranchInfo& member, int until);
  void check_records();  // StudyStore::verify, each damaged record named and removed
  std::string named_design(const std::string& values) const;
  void apply_changes(int cycle);
  void finish_cycle(const CycleRecord& record);
  // Stores `record` as a cycle of `branch`, with the settings in force (writable store).
  void save_record(int branch, const CycleRecord& record);
  Options settings_with_limit(Options options) const;  // max_cycles_ applied

  // Declared before the store: released after the store is closed.
  std::unique_ptr<StoreLock> lock_;  // STORE.lock while this session lives (not read-only)
  std::unique_ptr<StudyStore> store_;
  int branch_ = 0;
  nlohmann::json document_;  // the branch's study document, settings changes applied so far
  std::string source_;
  ActionNames actions_;
  int start_ = 0;
  int max_cycles_ = 0;
  std::unique_ptr<Study> study_;  // as loaded: the settings in force are options_
  std::vector<std::string> variables_;
  Options options_;
  std::unique_ptr<Simulator> inner_simulator_;  // the study's simulator
  std::unique_ptr<Simulator> simulator_;        // inner_simulator_ with progress reports
  std::unique_ptr<Driver> driver_;
  std::function<std::unique_ptr<AnalysisStore>(StudyStore&)> make_analysis_store_;
  std::unique_ptr<AnalysisStore> analysis_store_;  // made by make_analysis_store_
  std::vector<BranchInfo> chain_;                  // chain(branch_)
  int first_cycle_ = 1;                            // the number of the driver's first cycle
  std::vector<SettingChange> changes_;             // chain_changes(chain_)
  int replayed_ = 0;
  bool replaying_ = false;  // the replay is running: a simulator run means a missing record
  std::string status_at_open_;
  int stored_last_cycle_ = 0;  // the branch's last cycle record when the session opened
};

}  // namespace sao
