#include "sao/service/study_host.hpp"

#include <spdlog/spdlog.h>

#include "sao/optimizer/cycle_record_json.hpp"
#include "sao/report/analysis_charts.hpp"
#include "sao/report/evaluate.hpp"
#include "sao/report/html_report.hpp"
#include "sao/report/report.hpp"
#include "sao/report/report_plots.hpp"
#include "sao/report/result_file.hpp"
#include "sao/report/units_json.hpp"
#include "sao/service/api_error.hpp"
#include "sao/service/constraint_histories.hpp"
#include "sao/store/branch_state.hpp"
#include "sao/store/doe_run.hpp"
#include "sao/store/pareto_run.hpp"
#include "sao/study/study_loader.hpp"

namespace sao::service {
namespace {

std::vector<double> values(const Eigen::VectorXd& x) {
  return std::vector<double>(x.data(), x.data() + x.size());
}

// The design variables with their units, bounds and initial values.
nlohmann::json design_variables_json(const Study& study) {
  nlohmann::json variables = nlohmann::json::array();
  for (const DesignVariable& v : study.design) {
    nlohmann::json variable = {{"name", v.name}};
    put_unit(variable, v.note.unit);  // of the bounds and the initial value
    variable.update({{"lower", v.lower}, {"upper", v.upper}, {"initial", v.initial}});
    variables.push_back(variable);
  }
  return variables;
}

nlohmann::ordered_json run_snapshot(const std::string& id, StudySession& s);

// The design the next cycle starts from: the last accepted one of the history.
Eigen::VectorXd next_cycle_start(const Study& study, const std::vector<CycleRecord>& history) {
  return history.empty() ? initial_variables(study) : design_after(history.back());
}

// As `sao status` shows them: a branch left by a restart is "abandoned", not "running".
nlohmann::json branches_json(StudyStore& store) {
  nlohmann::json out = nlohmann::json::array();
  for (const BranchView& b : branch_views(store)) out.push_back(branch_view_json(b));
  return out;
}

// {"assignments": [...]} or {"key": value, ...} as `sao set` assignments.
std::vector<std::string> assignments_of(const nlohmann::json& body) {
  std::vector<std::string> out;
  if (body.contains("assignments")) {
    const nlohmann::json& list = body["assignments"];
    if (!list.is_array() || list.empty() || body.size() != 1) {
      throw ApiError(400,
                     "\"assignments\": expected a non-empty list of \"key=value\" strings "
                     "and nothing else");
    }
    for (const nlohmann::json& a : list) {
      if (!a.is_string()) throw ApiError(400, "\"assignments\": expected strings key=value");
      out.push_back(a.get<std::string>());
    }
    return out;
  }
  if (body.empty()) throw ApiError(400, "no setting to change: expected {\"key\": value, ...}");
  for (const auto& [key, value] : body.items()) {
    out.push_back(key + "=" + (value.is_string() ? value.get<std::string>() : value.dump()));
  }
  return out;
}

// Stored study `id` (its variables' and responses' units); none when it does not load.
Study stored_study(const StudyStore& store, int id) {
  try {
    const StoredStudy stored = store.study(id);
    return load_study(stored.document, stored.source);
  } catch (const StudyError&) {
    return Study();
  }
}

// The study of the store's current branch: the units of what the store holds.
Study current_study(const StudyStore& store) {
  const int branch = store.current_branch();
  return branch == 0 ? Study() : stored_study(store, store.branch(branch).study);
}

}  // namespace

StudyHost::StudyHost(std::string id, std::filesystem::path dir)
    : id_(std::move(id)), dir_(std::move(dir)) {}

StudyHost::~StudyHost() {
  shutdown();
}

void StudyHost::shutdown() {
  stop_ = true;
  {
    std::lock_guard<std::mutex> lock(runner_mutex_);
    if (runner_.joinable()) runner_.join();
  }
  hub_.close();
}

void StudyHost::create(const nlohmann::json& document, const std::string& source) {
  std::lock_guard<std::mutex> lock(mutex_);
  {
    StudySession session(store_path(), true);
    session.begin(document, source, 0);
  }
  ensure_open();
  refresh();
}

void StudyHost::ensure_open() {
  if (session_) return;
  auto session = std::make_unique<StudySession>(store_path(), false);
  session->on_batch = [this](const BatchProgress& p) {
    hub_.publish(
        "analyses",
        {{"finished", p.finished}, {"running", p.running}, {"elapsed_seconds", p.elapsed_seconds}});
  };
  // A study of several objectives has no run (the driver optimises one objective): opened for
  // its analyses only (a DOE, a front, a robustness estimate); require_run() refuses the rest.
  objectives_ = stored_objectives(*session);
  if (objectives_ > 1) {
    session->open_for_analyses();
  } else {
    session->open();
  }
  session_ = std::move(session);
}

void StudyHost::require_run() const {
  if (objectives_ > 1) {
    throw ApiError(409, "study " + id_ + " has " + std::to_string(objectives_) +
                            " objectives and no run: POST .../pareto finds its Pareto front "
                            "(docs/pareto.md)");
  }
}

namespace {

// The snapshot of a study of several objectives: no run, its objectives, variables and store.
nlohmann::ordered_json analyses_only_snapshot(const std::string& id, StudySession& s) {
  const Study& study = s.study();
  nlohmann::ordered_json out = {
      {"id", id},
      {"name", study.name},
      {"description", study.description},
      {"branch", s.branch()},
      {"status", "no run"},
      {"message", std::to_string(study.objectives.size()) +
                      " objectives: a Pareto front (POST .../pareto), no run"},
      {"finished", true},
      {"next_cycle", 1},
      {"settings", nlohmann::json::object()}};
  out["move_factors"] = nlohmann::json::array();
  out["variables"] = design_variables_json(study);
  out["constraint_titles"] = nlohmann::json::object();
  out["variable_names"] = variable_names(study);
  out["design"] = values(initial_variables(study).head(study.n_design()));
  out["pending_settings"] = nlohmann::json::array();
  out["history"] = nlohmann::json::array();
  return out;
}

}  // namespace

nlohmann::ordered_json StudyHost::snapshot_of() {
  StudySession& s = *session_;
  const Study& study = s.study();
  nlohmann::ordered_json out;
  if (objectives_ > 1) {
    out = analyses_only_snapshot(id_, s);
  } else {
    out = run_snapshot(id_, s);
  }
  nlohmann::json objectives = nlohmann::json::array();
  for (const Objective& o :
       study.objectives.empty() ? std::vector<Objective>{study.objective} : study.objectives) {
    nlohmann::json objective = {{"name", o.name}, {"sense", o.maximize ? "maximize" : "minimize"}};
    put_unit(objective, o.note.unit);
    objectives.push_back(objective);
  }
  out["objectives"] = objectives;  // one for a study of one "objective"
  out["random_variables"] = s.document().contains("random_variables");
  out["branches"] = branches_json(s.store());
  out["study"] = s.store().study(s.store().branch(s.branch()).study).document;
  out["store"] = {{"analyses", s.store().analysis_count()},
                  {"simulator_runs", s.store().simulator_runs()}};
  return out;
}

namespace {

// The snapshot of a study's run (snapshot_of: the rest).
nlohmann::ordered_json run_snapshot(const std::string& id, StudySession& s) {
  const Study& study = s.study();
  const RunSummary& summary = s.driver().summary();
  const std::vector<CycleRecord> lineage = s.lineage(s.branch());
  nlohmann::ordered_json out = {{"id", id},
                                {"name", study.name},
                                {"description", study.description},
                                {"branch", s.branch()},
                                {"status", to_string(summary.status)},
                                {"message", summary.message},
                                {"finished", s.driver().finished()},
                                {"next_cycle", s.next_cycle()},
                                {"settings", s.settings_in_force()}};
  Eigen::VectorXd factors = s.driver().move_factors();
  if (factors.size() != study.n_design()) {
    factors.resize(study.n_design());
    for (int i = 0; i < study.n_design(); ++i) factors(i) = study.design[i].move_factor;
  }
  out["move_factors"] = values(factors);
  out["variables"] = design_variables_json(study);
  // Each constraint part as every list names it, and the active tolerance (g_hat, percent): the
  // cycle table names the parts active at each proposal (a record's "predictions").
  nlohmann::json titles = nlohmann::json::object();
  for (const Constraint& c : study.constraints) titles[c.name] = report::constraint_display_name(c);
  out["constraint_titles"] = titles;
  out["active_tolerance"] = 100.0 * kActiveTolerance;
  // The accuracies in force (percent; the errors chart draws them as its lines).
  out["accuracies"] = {{"objacc", s.options().objacc}, {"vioacc", s.options().vioacc}};
  out["variable_names"] = variable_names(study);
  out["design"] = values(next_cycle_start(study, lineage));
  // Of design (by variable_names) and of the history's b0, b_opt and F figures.
  out["units"] = units_of(study);
  nlohmann::json pending = nlohmann::json::array();
  for (const SettingChange& c : s.store().setting_changes(s.branch())) {
    if (c.cycle == s.next_cycle()) pending.push_back(c.assignment);
  }
  out["pending_settings"] = pending;
  nlohmann::ordered_json history = nlohmann::ordered_json::array();
  for (const CycleRecord& r : lineage) history.push_back(cycle_to_json(study, r));
  out["history"] = history;
  out["simulator_runs"] = summary.simulator_runs;
  out["reused_analyses"] = summary.reused_analyses;
  return out;
}

}  // namespace

void StudyHost::refresh() {
  nlohmann::ordered_json snapshot = snapshot_of();
  std::lock_guard<std::mutex> lock(snapshot_mutex_);
  snapshot["state"] = state_;
  snapshot_ = std::move(snapshot);
}

void StudyHost::set_state(const std::string& state) {
  {
    std::lock_guard<std::mutex> lock(snapshot_mutex_);
    state_ = state;
    if (snapshot_.is_object()) snapshot_["state"] = state;
  }
  hub_.publish("state", {{"state", state}});
}

nlohmann::ordered_json StudyHost::status() {
  {
    std::lock_guard<std::mutex> lock(snapshot_mutex_);
    if (snapshot_.is_object()) return snapshot_;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ensure_open();
  refresh();
  std::lock_guard<std::mutex> snap(snapshot_mutex_);
  return snapshot_;
}

nlohmann::json StudyHost::summary() {
  nlohmann::json out = {{"id", id_}};
  try {
    const nlohmann::ordered_json s = status();
    for (const char* key : {"name", "state", "status", "message", "branch", "next_cycle"}) {
      out[key] = s[key];
    }
    out["cycles"] = s["history"].size();
  } catch (const std::exception& e) {
    out["state"] = "error";
    out["message"] = e.what();
  }
  return out;
}

nlohmann::ordered_json StudyHost::cycle_step() {
  ensure_open();
  require_run();
  const RunSummary& summary = session_->driver().summary();
  if (session_->driver().finished()) {
    throw ApiError(409, "the run has ended: " + std::string(to_string(summary.status)) + ": " +
                            summary.message +
                            " (change a setting, e.g. max_cycles, or restart from a cycle)");
  }
  const int runs_before = summary.simulator_runs;
  // Until its results are written: SIGTERM now interrupts this cycle (result.json says so).
  const CycleInProgress computing(dir_.string());
  nlohmann::ordered_json out;
  try {
    const CycleRecord& r = session_->step();
    out = {{"branch", session_->branch()},
           {"record", cycle_to_json(session_->study(), r)},
           {"simulator_runs", session_->driver().summary().simulator_runs - runs_before},
           {"status", to_string(session_->driver().summary().status)},
           {"finished", session_->driver().finished()},
           {"units", units_of(session_->study())}};
  } catch (...) {
    session_.reset();  // reopened (replayed from the store) by the next request
    throw;
  }
  // DIR/result.json and DIR/history.csv, as `sao step DIR` writes them. The cycle is stored
  // already: a file that cannot be written is reported with the cycle, not as its failure.
  try {
    out["results_written"] =
        write_run_results(*session_, dir_.string(), session_->driver().finished());
  } catch (const std::exception& e) {
    out["results_written"] = false;
    out["results_error"] = e.what();
    spdlog::warn("study {}: {}", id_, e.what());
  }
  hub_.publish("cycle", out);
  refresh();
  return out;
}

nlohmann::ordered_json StudyHost::step() {
  Claim claim(*this, "stepping");
  std::lock_guard<std::mutex> lock(mutex_);
  return cycle_step();
}

void StudyHost::start_run() {
  Claim claim(*this, "running");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ensure_open();
    require_run();
    if (session_->driver().finished()) {
      const RunSummary& s = session_->driver().summary();
      throw ApiError(409,
                     "the run has ended: " + std::string(to_string(s.status)) + ": " + s.message);
    }
  }
  std::lock_guard<std::mutex> lock(runner_mutex_);
  if (runner_.joinable()) runner_.join();  // the previous run, ended
  stop_ = false;
  runner_ = std::thread([this] { run_cycles(); });
  claim.hand_over();
}

void StudyHost::run_cycles() {
  std::string why = "ended";
  try {
    // At least one cycle: a stop that arrives before the first cycle has begun ends the run
    // after it, as one that arrives during it.
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ensure_open();
        if (session_->driver().finished()) break;
        cycle_step();
      }
      if (stop_) {
        why = "stopped";
        break;
      }
    }
  } catch (...) {
    const auto [status, body] = current_error();
    why = "error";
    hub_.publish("error", body);
    spdlog::warn("study {}: the run stopped: {}", id_, body.value("message", ""));
  }
  nlohmann::json end = {{"reason", why}};
  {
    std::lock_guard<std::mutex> lock(snapshot_mutex_);
    if (snapshot_.is_object()) end["status"] = snapshot_["status"];
  }
  hub_.publish("run_end", end);
  Claim::release(*this);
}

namespace {

// A stop asked during a job of analyses: thrown before its next batch.
struct JobStopped : std::exception {
  const char* what() const noexcept override { return "stopped"; }
};

}  // namespace

std::unique_ptr<StudySession> StudyHost::analyses_session() {
  // The store's lock goes to the job's session; this one is opened again after it (or by the
  // next request, when the job cannot start).
  session_.reset();
  auto analyses = std::make_unique<StudySession>(store_path(), false);
  analyses->open_for_analyses();
  return analyses;
}

nlohmann::json StudyHost::start_doe(const nlohmann::json& body) {
  std::vector<std::string> overrides;
  if (!body.empty()) overrides = assignments_of(body);
  Claim claim(*this, "doe");
  std::unique_ptr<StudySession> analyses;
  PreparedDoe prepared;
  int batch = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    analyses = analyses_session();
    const std::optional<DoeSection> section = stored_doe_section(*analyses, overrides);
    prepared = prepare_stored_doe(*analyses, section);
    batch = section ? section->batch : 0;
  }
  const nlohmann::json out = {{"doe", prepared.doe.id},
                              {"resumed", prepared.resumed},
                              {"method", prepared.doe.settings.value("method", "")},
                              {"points", prepared.doe.points.rows()}};
  hub_.publish("doe", out);
  start_job(claim, std::move(analyses), "doe",
            [doe = prepared.doe, batch](StudySession& session, const Progress& progress) {
              return nlohmann::json(progress_json(nullptr, run_doe(session, doe, batch, progress)));
            });
  return out;
}

void StudyHost::start_job(Claim& claim, std::unique_ptr<StudySession> analyses,
                          const std::string& kind, Job work) {
  std::lock_guard<std::mutex> lock(runner_mutex_);
  if (runner_.joinable()) runner_.join();  // the previous run or job, ended
  stop_ = false;
  runner_ =
      std::thread([this, session = std::move(analyses), kind, work = std::move(work)]() mutable {
        run_job(std::move(session), kind, work);
      });
  claim.hand_over();
}

void StudyHost::run_job(std::unique_ptr<StudySession> analyses, const std::string& kind,
                        const Job& work) {
  std::string why = "ended";
  DoeProgress last;
  nlohmann::json end;
  try {
    end = work(*analyses, [this, &last, &kind](const DoeProgress& p) {
      last = p;
      if (p.running > 0 && stop_) throw JobStopped();
      if (p.running == 0) hub_.publish(kind + "_batch", nlohmann::json(progress_json(nullptr, p)));
    });
  } catch (const JobStopped&) {
    why = "stopped";
  } catch (...) {
    const auto [status, body] = current_error();
    why = "error";
    hub_.publish("error", body);
    spdlog::warn("study {}: the {} stopped: {}", id_, kind, body.value("message", ""));
  }
  analyses.reset();  // the store's lock, back to the study's session
  try {
    std::lock_guard<std::mutex> lock(mutex_);
    ensure_open();
    refresh();
  } catch (const std::exception& e) {
    spdlog::warn("study {}: after the {}: {}", id_, kind, e.what());
  }
  if (!end.is_object()) end = nlohmann::json(progress_json(nullptr, last));
  end["reason"] = why;
  hub_.publish(kind + "_end", end);
  Claim::release(*this);
}

bool StudyHost::stop() {
  bool running = false;
  {
    std::lock_guard<std::mutex> lock(snapshot_mutex_);
    running = state_ == "running" || state_ == "doe" || state_ == "pareto" || state_ == "robust";
  }
  if (running) stop_ = true;
  return running;
}

nlohmann::json StudyHost::set(const nlohmann::json& body) {
  const std::vector<std::string> assignments = assignments_of(body);
  Claim claim(*this, "setting");
  std::lock_guard<std::mutex> lock(mutex_);
  ensure_open();
  require_run();
  const int cycle = session_->set(assignments);
  // Opened again, as the next `sao step` opens it: the changes for the next cycle apply at
  // the end of open(), so that a raised max_cycles reopens a run that ended on the limit.
  session_.reset();
  ensure_open();
  const nlohmann::json out = {
      {"branch", session_->branch()}, {"from_cycle", cycle}, {"assignments", assignments}};
  hub_.publish("settings", out);
  refresh();
  return out;
}

nlohmann::json StudyHost::restart(const nlohmann::json& body, const nlohmann::json& admitted,
                                  const std::string& source) {
  auto flag = [&](const char* key) {
    if (!body.contains(key) || body[key].is_null()) return false;
    if (!body[key].is_boolean()) throw ApiError(400, std::string(key) + ": expected true or false");
    return body[key].get<bool>();
  };
  const bool from_reported = flag("from_reported"), reset_region = flag("reset_region");
  int from_cycle = 0;  // with from_reported: the branch's last cycle
  if (body.contains("from_cycle") || !from_reported) {
    if (!body.contains("from_cycle") || !body["from_cycle"].is_number_integer() ||
        body["from_cycle"].get<long long>() < 1) {
      throw ApiError(400, "from_cycle: expected a cycle number >= 1 (or \"from_reported\": true)");
    }
    from_cycle = static_cast<int>(
        std::min<long long>(body["from_cycle"].get<long long>(), std::numeric_limits<int>::max()));
  }
  Claim claim(*this, "restarting");
  std::lock_guard<std::mutex> lock(mutex_);
  ensure_open();
  require_run();
  int from_branch = 0;  // the current branch
  if (body.contains("branch") && !body["branch"].is_null()) {
    if (!body["branch"].is_number_integer() || body["branch"].get<long long>() < 1 ||
        body["branch"].get<long long>() > std::numeric_limits<int>::max()) {
      throw ApiError(400, "branch: expected a branch number >= 1");
    }
    from_branch = static_cast<int>(body["branch"].get<long long>());
    try {
      (void)session_->store().branch(from_branch);
    } catch (const StoreError&) {
      throw ApiError(404, "branch: this study has no branch " + std::to_string(from_branch));
    }
  }
  std::optional<nlohmann::json> document;
  if (!admitted.is_null()) document = admitted;
  const int branch =
      session_->restart(from_cycle, document, source, from_branch, reset_region, from_reported);
  from_cycle = session_->store().branch(branch).from_cycle;
  session_.reset();  // the new branch is the current one: opened afresh, as `sao step` would
  ensure_open();
  const nlohmann::json out = {{"branch", branch}, {"from_cycle", from_cycle}};
  hub_.publish("restart", out);
  refresh();
  return out;
}

nlohmann::json StudyHost::analyses(long offset, long limit) const {
  const StudyStore store(store_path(), StoreAccess::kReadOnly);
  const Study study = current_study(store);
  const std::vector<StoredAnalysis> all = store.analyses();
  nlohmann::json items = nlohmann::json::array();
  const long total = static_cast<long>(all.size());
  for (long i = std::max(0L, offset); i < total && i < offset + limit; ++i) {
    const StoredAnalysis& a = all[static_cast<size_t>(i)];
    nlohmann::json cases = nlohmann::json::array();
    for (const CaseResult& c : a.evaluation.cases) {
      nlohmann::json scalars = nlohmann::json::object();
      for (const auto& [name, value] : c.scalars) scalars[name] = exact_number(value);
      nlohmann::json histories = nlohmann::json::object();
      for (const auto& [name, h] : c.histories) histories[name] = h.size();
      cases.push_back({{"scalars", scalars}, {"history_points", histories}});
    }
    nlohmann::json design = nlohmann::json::array();
    for (int k = 0; k < a.design.size(); ++k) design.push_back(exact_number(a.design(k)));
    items.push_back({{"index", i},
                     {"design", design},
                     {"inputs_hash", a.inputs_hash},
                     {"ok", a.evaluation.ok},
                     {"message", a.evaluation.message},
                     {"gradients", a.evaluation.has_gradients},
                     {"runs", a.evaluation.cost.runs},
                     {"wall_seconds", a.evaluation.cost.wall_seconds},
                     {"cases", cases}});
  }
  // Of the designs (by the study's design variables, in order) and of the cases' scalars.
  const nlohmann::ordered_json units = {{"design", design_units(study)},
                                        {"scalars", response_units(study, false)}};
  return {{"total", total},
          {"offset", offset},
          {"limit", limit},
          {"analyses", items},
          {"units", nlohmann::json(units)}};
}

std::string StudyHost::report() const {
  StudySession session(store_path(), StoreAccess::kReadOnly);
  session.open();
  return html_report(session);
}

nlohmann::json StudyHost::branches() const {
  StudySession session(store_path(), StoreAccess::kReadOnly);  // lineage needs no replay
  nlohmann::json list = branches_json(session.store());
  std::map<int, nlohmann::json> units;  // stored study id -> the units of its figures
  for (nlohmann::json& b : list) {
    const int study = session.store().branch(b["id"].get<int>()).study;
    if (units.count(study) == 0)
      units[study] = nlohmann::json(units_of(stored_study(session.store(), study)));
    nlohmann::json history = nlohmann::json::array();
    for (const CycleRecord& r : session.lineage(b["id"].get<int>())) {
      history.push_back({{"cycle", r.cycle},
                         {"accepted", r.accepted},
                         {"F", exact_number(r.F_opt)},
                         {"V", exact_number(r.V)},
                         {"Ef", exact_number(r.Ef)},
                         {"Eg", exact_number(r.Eg)}});
    }
    b["history"] = history;
    b["units"] = units[study];  // of F (the objective's), by the branch's study
  }
  return {{"current", session.store().current_branch()}, {"branches", list}};
}

namespace {

// Stored analysis `index` (as GET .../analyses numbers them) as the one design drawn: any
// analysed design, a plan point of a multi-point cycle included (auxiliaries at their initial
// values: a bound formulation's bound is drawn where the study starts it).
std::vector<report::ShownDesign> stored_design(StudySession& session, long index) {
  const std::vector<StoredAnalysis> all = session.store().analyses();
  if (index >= static_cast<long>(all.size())) {
    throw ApiError(400, "analysis: the store has " + std::to_string(all.size()) +
                            " analyses (0 to " + std::to_string(all.size() - 1) + ")");
  }
  const StoredAnalysis& a = all[static_cast<size_t>(index)];
  const Study& study = session.study();
  if (a.design.size() != study.n_design()) {
    throw ApiError(400, "analysis: analysis " + std::to_string(index) +
                            " is of a design of another size than this study's");
  }
  Eigen::VectorXd x = initial_variables(study);
  x.head(study.n_design()) = a.design;
  return {{"stored analysis " + std::to_string(index), x, a.evaluation}};
}

}  // namespace

nlohmann::json StudyHost::charts(const std::string& view, int branch, int cycle,
                                 const ScatterChoice& scatter) const {
  StudySession session(store_path(), StoreAccess::kReadOnly);
  session.open();
  const int b = branch == 0 ? session.branch() : branch;
  if (b != session.branch() && view != "branches") {
    throw ApiError(400, "branch: the charts of the current branch only (branch " +
                            std::to_string(session.branch()) + ")");
  }
  const std::vector<CycleRecord> lineage = session.lineage(b);
  std::vector<Plot> charts;
  nlohmann::json out = {{"view", view}, {"branch", b}};
  if (view == "cycles") {
    charts = report::cycle_charts(session.study(), session.options(), lineage,
                                  with_lineage_start(session, lineage));
  } else if (view == "branches") {
    charts = report::branch_charts(session);
  } else if (view == "histories") {
    std::vector<report::ShownDesign> designs;
    if (scatter.analysis >= 0) {
      designs = stored_design(session, scatter.analysis);
    } else {
      const CycleRecord& r = lineage_cycle(lineage, b, cycle);
      designs = cycle_designs(
          session, r, "start of cycle " + std::to_string(cycle),
          "proposal of cycle " + std::to_string(cycle) + " (" + cycle_outcome(r) + ")");
    }
    const Study study = report::measured_study(session, b);  // screened as the run screens
    charts = report::constraint_charts(study, session.options(), designs);
    for (const std::vector<Plot>& more :
         {report::response_charts(study, designs), report::output_charts(study, designs)}) {
      charts.insert(charts.end(), more.begin(), more.end());
    }
    if (scatter.analysis >= 0) {
      out["analysis"] = scatter.analysis;
    } else {
      out["cycle"] = cycle;
    }
  } else if (view == "analyses") {
    const report::AnalysisTable table = report::analysis_table(session);
    out["quantities"] = nlohmann::json::array();
    for (size_t k = 0; k < table.keys.size(); ++k) {
      nlohmann::json quantity = {{"key", table.keys[k]}, {"title", table.columns[k]}};
      put_unit(quantity, table.units[k]);
      out["quantities"].push_back(quantity);
    }
    try {
      const auto [x, y] = report::scatter_keys(table, scatter.x, scatter.y);
      charts = {report::analysis_scatter(table, x, y, scatter.by)};
      out["x"] = x;
      out["y"] = y;
    } catch (const std::invalid_argument& e) {
      throw ApiError(400, e.what());
    }
  } else {
    throw ApiError(400, "view: expected cycles, branches, histories or analyses, got \"" +
                            view.substr(0, 40) + "\"");
  }
  out["charts"] = nlohmann::json::array();
  for (const Plot& p : charts) out["charts"].push_back(chart_spec(p));
  return out;
}

nlohmann::ordered_json StudyHost::metamodels(const report::MetamodelRequest& request) const {
  try {
    return report::metamodel_report_json(report::metamodel_report(store_path(), request));
  } catch (const report::TooFewDesigns& e) {
    throw ApiError(409, e.what());  // the study's state: a DOE adds the analyses it needs
  } catch (const std::invalid_argument& e) {
    throw ApiError(400, e.what());  // an unknown model or response, bad Sobol settings
  }
}

nlohmann::ordered_json StudyHost::histories(int branch, int cycle) const {
  StudySession session(store_path(), StoreAccess::kReadOnly);
  session.open();
  return constraint_histories(session, branch, cycle);
}

}  // namespace sao::service
