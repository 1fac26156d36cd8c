#include "sao/store/study_session.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>

#include "sao/optimizer/cycle_record_json.hpp"
#include "sao/seam/number_text.hpp"
#include "sao/store/settings_changes.hpp"
#include "sao/study/open_study.hpp"
#include "sao/study/study_loader.hpp"

namespace sao {
using namespace settings_changes;  // the assignments of `sao set` (settings_changes.hpp)

namespace {

// "b1=0.5, b2=1" for a design's values and the variable names (the values alone when the
// numbers differ).
std::string design_text(const Eigen::VectorXd& x, const std::vector<std::string>& names) {
  std::string out;
  for (int i = 0; i < x.size(); ++i) {
    if (i) out += ", ";
    if (static_cast<size_t>(x.size()) <= names.size()) out += names[i] + "=";
    out += fmt::format("{}", x(i));  // the shortest text that reads back to the same double
  }
  return out;
}

// Reports each batch to the session's on_batch callback; during the replay, names each
// analysis it has to run (the store should have held it).
class ProgressSimulator final : public Simulator {
 public:
  ProgressSimulator(Simulator& inner, const std::function<void(const BatchProgress&)>& report,
                    const bool& replaying, const std::vector<std::string>& names)
      : inner_(inner),
        report_(report),
        replaying_(replaying),
        names_(names),
        started_(std::chrono::steady_clock::now()) {}
  std::vector<ResponseInfo> responses() const override { return inner_.responses(); }
  std::string fingerprint() const override { return inner_.fingerprint(); }
  std::vector<Evaluation> evaluate(const std::vector<EvaluationRequest>& batch) override {
    for (const EvaluationRequest& r : batch) {
      if (!replaying_) break;
      spdlog::warn(
          "replay: the analysis of design ({}){} is not in the store (deleted or "
          "damaged record): analysed again",
          design_text(r.design, names_), r.derivatives.empty() ? "" : " with sensitivities");
    }
    notify(static_cast<int>(batch.size()));
    std::vector<Evaluation> out = inner_.evaluate(batch);
    finished_ += static_cast<int>(batch.size());
    notify(0);
    for (size_t k = 0; keep_values && k < out.size() && k < batch.size(); ++k) {
      if (!out[k].ok) continue;
      Evaluation values = out[k];
      values.has_gradients = false;
      for (CaseResult& c : values.cases) c.gradients.clear();
      const Eigen::VectorXd& d = batch[k].design;
      kept[std::vector<double>(d.data(), d.data() + d.size())] = std::move(values);
    }
    return out;
  }
  // Without a store: every successful analysis's values by design (analysis_of()).
  bool keep_values = false;
  std::map<std::vector<double>, Evaluation> kept;

 private:
  void notify(int running) const {
    if (!report_) return;
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - started_;
    report_({finished_, running, elapsed.count()});
  }
  Simulator& inner_;
  const std::function<void(const BatchProgress&)>& report_;
  const bool& replaying_;
  const std::vector<std::string>& names_;
  std::chrono::steady_clock::time_point started_;
  int finished_ = 0;
};

}  // namespace

std::string store_file(const std::string& dir_or_file) {
  std::error_code ec;
  if (std::filesystem::is_directory(dir_or_file, ec)) {
    return (std::filesystem::path(dir_or_file) / "study.sqlite").string();
  }
  return dir_or_file;
}

StudySession::StudySession(const std::string& store_path, bool create)
    : StudySession(store_path, create ? StoreAccess::kCreate : StoreAccess::kReadWrite) {}

StudySession::StudySession(const std::string& store_path, StoreAccess access) {
  if (access != StoreAccess::kReadOnly) {
    std::error_code ec;
    if (access != StoreAccess::kCreate && !std::filesystem::exists(store_path, ec)) {
      throw StoreError(store_path + ": no study store here");
    }
    // One process at a time works on a study: two would both run the next cycle (or both
    // create the store). Taken before the store is opened.
    lock_ = std::make_unique<StoreLock>(store_path);
  }
  store_ = std::make_unique<StudyStore>(store_path, access);
}

StudySession::StudySession(const nlohmann::json& document, const std::string& source, int start)
    : document_(document), source_(source), start_(start) {}

StudySession::~StudySession() = default;

void StudySession::begin(const nlohmann::json& document, const std::string& source, int start) {
  require_store();
  const int current = store_->current_branch();
  if (current == 0) {
    // Validate before storing anything.
    const OpenedStudy opened = open_study_document(document, source, start);
    store_->use_inputs(simulator_inputs_hash(opened.study, opened.simulator->fingerprint()));
    store_->add_branch(0, 0, store_->add_study(document, source, start));
    return;
  }
  const StoredStudy root = store_->study(store_->branch(1).study);
  auto without_doe = [](nlohmann::json d) {
    if (d.is_object()) d.erase("doe");
    return d;
  };
  if (without_doe(root.document) != without_doe(document) || root.start != start) {
    const std::string dir = std::filesystem::path(store_->path()).parent_path().string();
    const int last = store_->last_cycle(current);
    std::string advice = "run it in another folder " + actions_.other_folder();
    if (last > 0) {
      // A reformulation continues the stored run from one of its cycles; --set overrides and
      // --start are not applied by restart: they go into the file given with --study.
      advice += fmt::format(
          ", or continue this run with the changed study as a new branch: {} (or an earlier "
          "cycle of 1..{}; restart does not apply {}: write such changes into that file)",
          actions_.restart_advice(std::to_string(last), source, dir.empty() ? "." : dir), last,
          actions_.options_restart_ignores());
    }
    throw StoreError(
        store_->path() + " holds another study (" + root.source +
        (root.source == source ? " with other contents, --set overrides or --start" : "") + "); " +
        advice);
  }
}

void StudySession::require_store() const {
  if (!store_) throw std::logic_error("StudySession: no study store in this session");
}

void StudySession::open(int max_cycles, const std::function<void(const CycleRecord&)>& on_cycle) {
  BranchInfo info;
  if (store_) {
    branch_ = store_->current_branch();
    if (branch_ == 0) throw StoreError(store_->path() + ": the store holds no study yet");
    info = store_->branch(branch_);
    status_at_open_ = info.status;
    chain_ = chain(branch_);
    const StoredStudy stored = store_->study(chain_.front().study);
    document_ = stored.document;
    source_ = stored.source;
    start_ = stored.start;
  }
  max_cycles_ = max_cycles;
  OpenedStudy opened = open_study_document(document_, source_, start_);
  options_ = settings_with_limit(opened.study.options);
  study_ = std::make_unique<Study>(std::move(opened.study));  // the problem: no settings
  inner_simulator_ = std::move(opened.simulator);
  variables_ = variable_names(*study_);
  auto progress =
      std::make_unique<ProgressSimulator>(*inner_simulator_, on_batch, replaying_, variables_);
  progress->keep_values = !store_;
  simulator_ = std::move(progress);
  driver_ = std::make_unique<Driver>(*study_, *simulator_, options_);
  replayed_ = 0;
  if (!store_) return;
  store_->use_inputs(simulator_inputs_hash(*study_, inner_simulator_->fingerprint()));
  store_->branch_for_saves = branch_;
  if (!store_->read_only()) inner_simulator_->use_job_ledger(store_.get());
  if (make_analysis_store_) analysis_store_ = make_analysis_store_(*store_);
  driver_->set_store(analysis_store_ ? analysis_store_.get() : store_.get());
  changes_ = chain_changes(chain_);
  stored_last_cycle_ = store_->last_cycle(branch_);
  check_records();
  first_cycle_ = chain_.front().from_cycle + 1;
  if (chain_.front().parent > 0) start_restarted_branch(chain_.front());
  replaying_ = true;
  try {
    replay(on_cycle);
  } catch (...) {
    replaying_ = false;
    throw;
  }
  replaying_ = false;
  // A converged branch replays to its end; when it does not, records are missing (a branch
  // that ended on a cycle limit may be reopened by a higher limit).
  if (status_at_open_ == "converged" && !driver_->finished()) {
    spdlog::warn(
        "{}: branch {} ended ({}) but its stored cycle records stop after cycle {}: "
        "the later records are missing (deleted or damaged) and are rebuilt from the "
        "stored analyses",
        store_->path(), branch_, status_at_open_, next_cycle() - 1);
  }
  // Ready for the next cycle: changes made for it apply now (a raised max_cycles reopens a
  // run that ended on the cycle limit).
  apply_changes(next_cycle());
  if (driver_->finished()) {
    store_->set_branch_status(branch_, to_string(driver_->summary().status),
                              driver_->summary().message);
  }
}

void StudySession::open_for_analyses() {
  require_store();
  branch_ = store_->current_branch();
  if (branch_ == 0) throw StoreError(store_->path() + ": the store holds no study yet");
  const StoredStudy stored = store_->study(chain(branch_).front().study);
  document_ = stored.document;
  source_ = stored.source;
  start_ = stored.start;
  OpenedStudy opened = open_study_document(document_, source_, start_);
  options_ = opened.study.options;
  study_ = std::make_unique<Study>(std::move(opened.study));
  inner_simulator_ = std::move(opened.simulator);
  variables_ = variable_names(*study_);
  store_->use_inputs(simulator_inputs_hash(*study_, inner_simulator_->fingerprint()));
  store_->branch_for_saves = branch_;
  if (!store_->read_only()) inner_simulator_->use_job_ledger(store_.get());
  check_records();
}

void StudySession::check_records() {
  if (store_->unchecked_rows() > 0) {
    spdlog::warn(
        "{}: a store written before checksums (of every table): its {} rows are read "
        "as they are{}",
        store_->path(), store_->unchecked_rows(),
        store_->read_only() ? "" : "; checksums added to them now");
  }
  const std::vector<DamagedRecord> damaged = store_->verify();
  for (const DamagedRecord& d : damaged) {
    const std::string what =
        d.table == "analyses"
            ? fmt::format("analyses row {} (design {})", d.row, named_design(d.design))
            : fmt::format("cycles row of branch {}, cycle {}{}", d.branch, d.row,
                          d.design.empty() ? "" : " (start design " + named_design(d.design) + ")");
    spdlog::warn("{}: {}: {}; not trusted{}", store_->path(), what, d.reason,
                 store_->read_only()     ? ""
                 : d.table == "analyses" ? ", removed: the design is analysed again when needed"
                                         : ", removed: the replay rebuilds it");
  }
  store_->remove(damaged);
}

std::string StudySession::named_design(const std::string& values) const {
  try {
    const Eigen::VectorXd x = exact_numbers_from(nlohmann::json::parse(values));
    return design_text(x, variables_);
  } catch (const std::exception&) {
    return values.substr(0, 200);  // as stored, when it does not read back
  }
}

void StudySession::apply_changes(int cycle) {
  // The study document's changes (settings, bounds) first, as one new Options through the
  // loader (the same validation and dependent defaults as a study file), then the move-limit
  // factors: the order in which they were set does not matter.
  bool settings_changed = false, bounds_changed = false, constraints_changed = false;
  for (const SettingChange& c : changes_) {
    if (c.cycle != cycle) continue;
    const Assignment a = split(c.assignment);
    // start.NAME: read once, by start_restarted_branch.
    if (is_move_limit(a.key) || is_start(a.key)) continue;
    apply_to(document_, a);
    settings_changed = true;
    bounds_changed = bounds_changed || is_bound(a.key);
    constraints_changed = constraints_changed || is_constraint_bound(a.key);
  }
  if (settings_changed) {
    const LoadedStudy changed = load_study(document_, source_);
    options_ = settings_with_limit(changed.options);
    driver_->set_options(options_);
    if (bounds_changed) {
      for (int i = 0; i < study_->n_design(); ++i) {
        DesignVariable& v = study_->design[i];
        v.lower = changed.design[i].lower;
        v.upper = changed.design[i].upper;
        // `sao set` refuses bounds the next start design leaves; a store written before that
        // rule may hold one that excluded the start: clipped, as it was then.
        const double inside = std::clamp(v.initial, v.lower, v.upper);
        if (inside != v.initial && driver_->summary().history.empty()) {
          spdlog::warn(
              "{}: the initial value {} lies outside the new bounds [{}, {}]: the run "
              "starts from {}",
              v.name, v.initial, v.lower, v.upper, inside);
        }
        v.initial = inside;
      }
      driver_->set_design_bounds(study_->design);
    }
    if (constraints_changed) {
      for (size_t j = 0; j < study_->constraints.size(); ++j) {
        study_->constraints[j].bound = changed.constraints.at(j).bound;
      }
      driver_->set_constraint_bounds(changed.constraints);
    }
  }
  for (const SettingChange& c : changes_) {
    if (c.cycle != cycle) continue;
    const Assignment a = split(c.assignment);
    if (!is_move_limit(a.key)) continue;
    Eigen::VectorXd m = driver_->move_factors();
    if (m.size() != study_->n_design()) {  // not started yet: the study's initial factors
      m.resize(study_->n_design());
      for (int i = 0; i < study_->n_design(); ++i) m(i) = study_->design[i].move_factor;
    }
    const double value = number_or_nan(a.value);
    if (std::isnan(value)) {
      throw StoreError(store_->path() + ": the stored settings change \"" + c.assignment +
                       "\" before cycle " + std::to_string(cycle) + " of branch " +
                       std::to_string(branch_) + " is not a number (a damaged store?)");
    }
    for (int i = 0; i < study_->n_design(); ++i) {
      if (a.key == "move_limit" || a.key == "move_limit." + study_->design[i].name) m(i) = value;
    }
    driver_->set_move_factors(m);
  }
}

nlohmann::json StudySession::settings_in_force() const {
  return document_.contains("settings") ? document_["settings"] : nlohmann::json::object();
}

void StudySession::save_record(int branch, const CycleRecord& record) {
  nlohmann::json settings = {
      {"settings", settings_in_force()},
      {"move_factors",
       std::vector<double>(record.factors.data(), record.factors.data() + record.factors.size())}};
  store_->save_cycle(branch, record, variables_, settings);
}

void StudySession::finish_cycle(const CycleRecord& record) {
  if (!store_ || store_->read_only()) return;
  save_record(branch_, record);
  const RunSummary& s = driver_->summary();
  store_->set_branch_status(branch_, to_string(s.status), s.message);
}

Options StudySession::settings_with_limit(Options options) const {
  if (max_cycles_ > 0) options.max_cycles = max_cycles_;
  return options;
}

int StudySession::next_cycle() const {
  if (!store_) return static_cast<int>(driver_->summary().history.size()) + 1;
  return first_cycle_ + static_cast<int>(driver_->summary().history.size());
}

const CycleRecord& StudySession::step() {
  if (!driver_) throw std::logic_error("StudySession::step before open");
  apply_changes(next_cycle());                      // again: set() may have added some since open()
  if (driver_->finished()) return driver_->step();  // the record that says why nothing ran
  // Until the run is back where it was (cycle records deleted or damaged are rebuilt), an
  // analysis the simulator runs is one the store should have held: named.
  replaying_ = store_ && (next_cycle() <= stored_last_cycle_ || status_at_open_ == "converged");
  const CycleRecord& r = driver_->step();
  replaying_ = false;
  finish_cycle(r);
  return r;
}

const RunSummary& StudySession::run(const std::function<void(const CycleRecord&)>& on_cycle) {
  while (!driver_->finished()) {
    const CycleRecord& r = step();
    if (on_cycle) on_cycle(r);
  }
  return driver_->summary();
}

int StudySession::set(const std::vector<std::string>& assignments) {
  require_store();
  if (!driver_) throw std::logic_error("StudySession::set before open");
  const int next = next_cycle();
  // Validate on the document as it will be in the next cycle: the earlier changes for that
  // cycle first, then these.
  nlohmann::json document = document_;
  std::vector<std::string> problems;
  for (const SettingChange& c : changes_) {
    const Assignment a = split(c.assignment);
    if (c.cycle == next && edits_document(a.key)) apply_to(document, a);
  }
  std::vector<std::string> normalised;
  for (const std::string& text : assignments) {
    check_assignment(document, *study_, text, actions_, problems, normalised);
  }
  try {
    const LoadedStudy changed = load_study(document, source_);
    // A change for a run that has ended applies to no cycle, unless it reopens the run (a
    // higher cycle limit): refused rather than stored and ignored.
    // (A run whose start failed has no cycle: a new session starts it again, with the change.)
    if (driver_->finished() && !driver_->summary().history.empty() &&
        !driver_->reopened_by(settings_with_limit(changed.options))) {
      const int last = next - 1;
      problems.push_back(fmt::format(
          "branch {} has ended ({}: {}) after cycle {}, so a change for cycle {} would apply to "
          "no cycle; to go on from there with it, continue the run as a new branch: {}, then {} "
          "(the same as setting it before cycle {}), or {} with the change in FILE",
          branch_, to_string(driver_->summary().status), driver_->summary().message, last, next,
          actions_.restart_advice(std::to_string(last)), actions_.set_advice(), next,
          actions_.restart_advice(std::to_string(last), "FILE")));
    }
    // New bounds must hold the design the next cycle starts from (the last accepted one; before
    // the first cycle, the start the run was opened with): clipping it would move the run to a
    // design nobody analysed (`sao restart --study` starts a branch from a clipped design
    // instead). Alternative starts the run does not use are not checked (apply_bound keeps them
    // inside the bounds).
    const Eigen::VectorXd x = driver_->next_start();
    for (int i = 0; i < changed.n_design() && i < x.size(); ++i) {
      const DesignVariable& v = changed.design[i];
      if (x(i) < v.lower || x(i) > v.upper) {
        problems.push_back(fmt::format(
            "design_variables.{}: the design the next cycle starts from ({}) has {} = {}, "
            "outside the new bounds [{}, {}]; keep it inside, or use {} to start a branch from "
            "the clipped design",
            v.name,
            design_text(x, {variables_.begin(),
                            variables_.begin() + std::min<size_t>(x.size(), variables_.size())}),
            v.name, x(i), v.lower, v.upper, actions_.restart_advice("K", "FILE")));
      }
    }
  } catch (const StudyError& e) {
    problems.insert(problems.end(), e.problems().begin(), e.problems().end());
  }
  if (!problems.empty()) throw StudyError(actions_.set(), problems);
  store_->add_setting_changes(branch_, next, normalised);
  changes_ = chain_changes(chain_);
  return next;
}

std::optional<Evaluation> StudySession::analysis_of(const Eigen::VectorXd& design) const {
  if (store_) {
    std::vector<Evaluation> found = store_->lookup(design, false);
    if (found.empty()) return std::nullopt;
    return std::move(found.front());
  }
  const auto* progress = dynamic_cast<const ProgressSimulator*>(simulator_.get());
  if (!progress) return std::nullopt;
  const auto it =
      progress->kept.find(std::vector<double>(design.data(), design.data() + design.size()));
  if (it == progress->kept.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> StudySession::undo_set() {
  require_store();
  if (!driver_) throw std::logic_error("StudySession::undo_set before open");
  const int next = next_cycle();
  std::vector<std::string> removed, starts;
  for (const SettingChange& c : changes_) {
    if (c.cycle != next) continue;
    (is_start(split(c.assignment).key) ? starts : removed).push_back(c.assignment);
  }
  if (removed.empty()) {
    throw StudyError(
        actions_.undo_set(),
        {"no change is pending for cycle " + std::to_string(next) + " of branch " +
         std::to_string(branch_) + " (changes already applied to a cycle are history: " +
         actions_.restart_advice("K") + " goes back to before them)"});
  }
  store_->remove_setting_changes(branch_, next);
  if (!starts.empty()) store_->add_setting_changes(branch_, next, starts);  // where it starts
  changes_ = chain_changes(chain_);
  return removed;
}

}  // namespace sao
