// StudySession's branches: the records of a branch's lineage, the chain of branches a driver
// runs (a restart that continues its parent's run replays it), the replay of stored cycles, and
// `sao restart` (study_session.hpp). Split from study_session.cpp, which opens sessions and runs
// and changes the current branch.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>

#include "sao/seam/number_text.hpp"
#include "sao/store/settings_changes.hpp"
#include "sao/store/study_session.hpp"
#include "sao/study/open_study.hpp"
#include "sao/study/study_loader.hpp"

namespace sao {
using namespace settings_changes;  // the assignments of `sao set` (settings_changes.hpp)

namespace {

bool same_record(const CycleRecord& a, const CycleRecord& b) {
  if (a.cycle != b.cycle || a.accepted != b.accepted || a.converged != b.converged) return false;
  if (a.x_opt.size() != b.x_opt.size()) return false;
  for (int i = 0; i < a.x_opt.size(); ++i) {
    if (!(a.x_opt(i) == b.x_opt(i))) return false;
  }
  return true;
}

// The design cycle `cycle` of `records` left (design_after), of the design variables and
// auxiliaries; empty when the records do not hold it.
Eigen::VectorXd design_after(const std::vector<CycleRecord>& records, int cycle) {
  for (const CycleRecord& r : records) {
    if (r.cycle == cycle) return design_after(r);
  }
  return {};
}

// Whether a numeric bound `side` of a design variable or constraint entry changed from `before`
// to `after` in a way `sao set` can make: both numbers (an edit, added to `edits` as
// PREFIX.NAME.SIDE=v when they differ) or both absent. False for anything else (a bound added,
// removed, or given by an auxiliary variable: a reformulation).
bool settable_bound(const nlohmann::json& before, const nlohmann::json& after,
                    const std::string& prefix, size_t index, const std::string& side,
                    std::vector<std::string>& edits) {
  const bool in_before = before.contains(side), in_after = after.contains(side);
  if (!in_before && !in_after) return true;
  if (!in_before || !in_after || !before[side].is_number() || !after[side].is_number()) {
    return in_before && in_after && before[side] == after[side];
  }
  if (before[side] != after[side]) {
    const bool named = after.contains("name") && after["name"].is_string();
    edits.push_back(prefix + "." +
                    (named ? after["name"].get<std::string>() : std::to_string(index)) + "." +
                    side + "=" + after[side].dump());
  }
  return true;
}

// The `sao set` assignments that turn the study document `before` into `after` (settings, the
// design variables' and constraints' numeric bounds); nullopt when they differ in anything else
// (a reformulation). Move limits and start values are left out: the caller compares the move
// limits as loaded, and a continued run does not read its start again.
std::optional<std::vector<std::string>> settable_edits(const nlohmann::json& before,
                                                       const nlohmann::json& after) {
  std::vector<std::string> edits;
  const auto settings = [](const nlohmann::json& d) {
    return d.contains("settings") && d["settings"].is_object() ? d["settings"]
                                                               : nlohmann::json::object();
  };
  const nlohmann::json s0 = settings(before), s1 = settings(after);
  for (const auto& [key, value] : s1.items()) {
    if (key != "move_limit" && (!s0.contains(key) || s0[key] != value)) {
      edits.push_back(key + "=" + value.dump());
    }
  }
  for (const auto& [key, value] : s0.items()) {
    if (key != "move_limit" && !s1.contains(key)) edits.push_back(key + "=null");
  }
  // The rest must be equal but for the bounds (and the move limits and start values).
  nlohmann::json rest0 = before, rest1 = after;
  for (nlohmann::json* rest : {&rest0, &rest1}) {
    rest->erase("settings");
    rest->erase("starts");
  }
  const std::pair<const char*, std::vector<std::string>> sections[] = {
      {"design_variables", {"lower", "upper", "move_limit", "initial"}},
      {"constraints", {"lower", "upper", "equals"}}};
  for (const auto& [section, keys] : sections) {
    if (!rest0.contains(section) || !rest1.contains(section) || !rest0[section].is_array() ||
        !rest1[section].is_array() || rest0[section].size() != rest1[section].size()) {
      continue;  // compared whole below
    }
    for (size_t i = 0; i < rest0[section].size(); ++i) {
      nlohmann::json &e0 = rest0[section][i], &e1 = rest1[section][i];
      if (!e0.is_object() || !e1.is_object()) continue;
      for (const std::string& side : keys) {
        if (side == "lower" || side == "upper" || side == "equals") {
          if (!settable_bound(e0, e1, section, i, side, edits)) return std::nullopt;
        }
        e0.erase(side);
        e1.erase(side);
      }
    }
  }
  if (rest0 != rest1) return std::nullopt;
  return edits;
}

// A restarted branch keeps the design variables, by name and in order: StudyError otherwise.
void require_same_variables(const Study& stored, const Study& study, const std::string& source) {
  if (study.n_design() != stored.n_design()) {
    throw StudyError(source, {"design_variables: a restarted branch keeps the " +
                              std::to_string(stored.n_design()) + " design variables, got " +
                              std::to_string(study.n_design())});
  }
  for (int i = 0; i < study.n_design(); ++i) {
    if (study.design[i].name != stored.design[i].name) {
      throw StudyError(source, {"design_variables[" + std::to_string(i) + "].name: expected \"" +
                                stored.design[i].name + "\" as in the stored study, got \"" +
                                study.design[i].name + "\""});
    }
  }
}

}  // namespace

std::vector<CycleRecord> StudySession::lineage(int branch) const {
  require_store();
  const BranchInfo info = store_->branch(branch);
  std::vector<CycleRecord> out;
  if (info.parent > 0) {
    for (CycleRecord& r : lineage(info.parent)) {
      if (r.cycle <= info.from_cycle) out.push_back(std::move(r));
    }
  }
  for (StoredCycle& c : store_->cycles(branch)) out.push_back(std::move(c.record));
  return out;
}

void StudySession::start_restarted_branch(const BranchInfo& info) {
  // A branch that does not continue its parent's run (restarted with another study, or from the
  // design its parent reported) starts a driver of its own at the accepted design after cycle K.
  const CycleRecord* from = nullptr;
  const std::vector<CycleRecord> before = lineage(info.parent);
  for (const CycleRecord& r : before) {
    if (r.cycle == info.from_cycle) from = &r;
  }
  if (!from) {
    throw StoreError(store_->path() + ": branch " + std::to_string(branch_) +
                     " starts after cycle " + std::to_string(info.from_cycle) +
                     ", which its parent does not hold (table cycles: the record of branch " +
                     std::to_string(info.parent) + ", cycle " + std::to_string(info.from_cycle) +
                     " is missing or was damaged and removed; only the current branch's records "
                     "are rebuilt)");
  }
  const int n = study_->n_design();
  const Eigen::VectorXd accepted = design_after(*from);
  Eigen::VectorXd x(study_->n_total());
  for (int i = 0; i < n; ++i) {
    const DesignVariable& v = study_->design[i];
    x(i) = std::clamp(accepted(i), v.lower, v.upper);  // bounds may have changed
  }
  for (int a = 0; a < study_->n_aux(); ++a) {
    x(n + a) =
        accepted.size() == study_->n_total() ? accepted(n + a) : study_->auxiliaries[a].initial;
  }
  // `sao restart --from-reported`: the design the parent reported instead.
  for (const SettingChange& c : changes_) {
    const Assignment a = split(c.assignment);
    if (c.cycle != info.from_cycle + 1 || !is_start(a.key)) continue;
    const std::string name = a.key.substr(6);
    const double value = number_or_nan(a.value);
    const int index = study_->variable_index(name);
    if (index < 0 || !std::isfinite(value)) {
      throw StoreError(store_->path() + ": the stored start \"" + c.assignment + "\" of branch " +
                       std::to_string(info.id) +
                       " names no variable of its study or is not a number (a damaged store?)");
    }
    x(index) = index < n
                   ? std::clamp(value, study_->design[index].lower, study_->design[index].upper)
                   : value;
  }
  // The strategy's memory: the last accepted cycle up to K (user sign turned back).
  std::optional<PreviousCycle> previous;
  for (const CycleRecord& r : before) {
    if (r.cycle > info.from_cycle || !r.accepted || r.x_opt.size() == 0) continue;
    const double sign = study_->objective.maximize ? -1.0 : 1.0;
    previous = PreviousCycle{sign * r.F_opt - sign * r.F0, (r.x_opt - r.x0).head(n), r.V, r.cycle};
  }
  driver_->start_at(x, from->next_factors, info.from_cycle + 1, previous);
}

std::vector<BranchInfo> StudySession::chain(int branch) const {
  std::vector<BranchInfo> out{store_->branch(branch)};
  while (continues_parent(out.front())) {
    out.insert(out.begin(), store_->branch(out.front().parent));
  }
  return out;
}

bool StudySession::continues_parent(const BranchInfo& info) const {
  if (info.parent <= 0 || store_->branch(info.parent).study != info.study) return false;
  for (const SettingChange& c : store_->setting_changes(info.id)) {
    if (c.cycle == info.from_cycle + 1 && is_start(split(c.assignment).key)) return false;
  }
  return true;
}

std::vector<SettingChange> StudySession::chain_changes(const std::vector<BranchInfo>& chain) const {
  std::vector<SettingChange> out;
  for (size_t m = 0; m < chain.size(); ++m) {
    // Each branch's changes for the cycles it ran itself: those it made after the cycle the next
    // branch continues from belong to its own later cycles.
    const int until = m + 1 < chain.size() ? chain[m + 1].from_cycle : INT_MAX;
    for (SettingChange& c : store_->setting_changes(chain[m].id)) {
      if (c.cycle > chain[m].from_cycle && c.cycle <= until) out.push_back(std::move(c));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const SettingChange& a, const SettingChange& b) {
    return a.cycle < b.cycle;
  });
  return out;
}

nlohmann::json StudySession::document_at(int branch, int cycle) const {
  const std::vector<BranchInfo> members = chain(branch);
  nlohmann::json document = store_->study(members.front().study).document;
  for (const SettingChange& c : chain_changes(members)) {
    const Assignment a = split(c.assignment);
    if (c.cycle <= cycle && edits_document(a.key)) apply_to(document, a);
  }
  return document;
}

void StudySession::replay_continued(const BranchInfo& member, int until) {
  std::map<int, CycleRecord> stored;
  for (StoredCycle& c : store_->cycles(member.id)) {
    if (c.record.cycle <= until) stored[c.record.cycle] = std::move(c.record);
  }
  bool warned = false;
  while (next_cycle() <= until) {
    const int cycle = next_cycle();
    apply_changes(cycle);
    if (driver_->finished()) {
      // A lower --max-cycles than the cycles the parent ran ends nothing the parent ran.
      if (driver_->summary().history.empty()) return;  // the start failed: the run says why
      driver_->reopen();
    }
    const CycleRecord& r = driver_->step();
    const auto it = stored.find(cycle);
    if (it == stored.end() && !store_->read_only()) {
      save_record(member.id, r);  // recomputed exactly: the record a damaged row held
    } else if (it != stored.end() && !same_record(r, it->second) && !warned) {
      spdlog::warn(
          "{}: replay of cycle {} of branch {}, which branch {} continues, differs from its "
          "stored record (a changed program or simulator?); branch {} continues the replayed run",
          store_->path(), cycle, member.id, branch_, branch_);
      warned = true;
    }
  }
  // The parent ended with cycle K (converged, stalled, ...): the branch goes on from there.
  if (driver_->finished() && !driver_->summary().history.empty()) driver_->reopen();
}

void StudySession::replay(const std::function<void(const CycleRecord&)>& on_cycle) {
  // The cycles of the branches the current one continues (not stored again, not reported).
  for (size_t m = 0; m + 1 < chain_.size(); ++m)
    replay_continued(chain_[m], chain_[m + 1].from_cycle);
  for (const StoredCycle& stored_cycle : store_->cycles(branch_)) {
    const int expected = next_cycle();
    if (stored_cycle.record.cycle != expected) {
      spdlog::warn(
          "{}: the record of cycle {} of branch {} is missing (deleted or damaged); "
          "cycles {} on are rebuilt from the stored analyses",
          store_->path(), expected, branch_, expected);
      store_->delete_cycles_from(branch_, expected);
      break;
    }
    apply_changes(stored_cycle.record.cycle);
    if (driver_->finished()) break;
    const CycleRecord& r = driver_->step();
    if (!same_record(r, stored_cycle.record)) {
      spdlog::warn(
          "replay of cycle {} differs from the stored record (a changed program or simulator?); "
          "the stored cycles from here on are replaced",
          r.cycle);
      store_->delete_cycles_from(branch_, r.cycle);
      finish_cycle(r);
      ++replayed_;
      if (on_cycle) on_cycle(r);
      break;
    }
    ++replayed_;
    if (on_cycle) on_cycle(r);
  }
}

int StudySession::restart(int from_cycle, const std::optional<nlohmann::json>& document,
                          const std::string& source, int from_branch, bool reset_region,
                          bool from_reported) {
  require_store();
  if (!driver_) throw std::logic_error("StudySession::restart before open");
  const int base = from_branch > 0 ? from_branch : branch_;
  (void)store_->branch(base);  // StoreError naming a branch the store does not have
  const std::vector<CycleRecord> history = lineage(base);
  std::vector<std::string> start;  // --from-reported: start.NAME=v for the new branch
  if (from_reported) {
    // A run that ended on its cycle limit is open again when reopened with a higher limit (the
    // stored status says how it ended).
    const bool ended_on_limit = store_->branch(base).status == to_string(RunStatus::kCycleLimit);
    std::vector<std::string> problems;
    if (base != branch_) {
      problems.push_back(actions_.from_reported() +
                         ": only the current branch's reported design is known "
                         "(branch " +
                         std::to_string(branch_) + "), not branch " + std::to_string(base) + "'s");
    } else if ((!driver_->finished() && !ended_on_limit) || history.empty()) {
      problems.push_back(actions_.from_reported() + ": branch " + std::to_string(base) +
                         " has not ended, so it has reported no design yet (" +
                         actions_.run_advice() + ", or restart from one of its cycles with " +
                         actions_.from_cycle() + " K)");
    } else if (from_cycle > 0 && from_cycle != history.back().cycle) {
      problems.push_back(actions_.from_cycle() + " " + std::to_string(from_cycle) + " with " +
                         actions_.from_reported() +
                         ": the reported design belongs after the branch's "
                         "last cycle, " +
                         std::to_string(history.back().cycle));
    }
    if (!problems.empty()) throw StudyError(actions_.restart(), problems);
    from_cycle = history.back().cycle;
    const Eigen::VectorXd x = driver_->finished()
                                  ? driver_->summary().x
                                  : driver_->reported_design(RunStatus::kCycleLimit);
    for (int i = 0; i < x.size(); ++i) {
      start.push_back(fmt::format("start.{}={}", variables_[i], x(i)));
    }
  }
  bool found = false;
  for (const CycleRecord& r : history) found = found || r.cycle == from_cycle;
  if (!found) {
    std::string range = history.empty() ? "none"
                                        : std::to_string(history.front().cycle) + ".." +
                                              std::to_string(history.back().cycle);
    throw StudyError(
        actions_.restart(),
        {actions_.from_cycle() + " " + std::to_string(from_cycle) + ": not a cycle of " +
         (from_branch > 0 ? "branch " + std::to_string(base) + "'s" : "the current") +
         " history (cycles " + range + ")"});
  }
  // The owner of cycle K: this branch or an ancestor.
  BranchInfo owner = store_->branch(base);
  while (owner.parent > 0 && from_cycle <= owner.from_cycle) owner = store_->branch(owner.parent);
  // The study as cycle K saw it, and the one the new branch runs.
  const nlohmann::json at_k = document_at(owner.id, from_cycle);
  const std::string at_k_source = store_->study(owner.study).source;
  const nlohmann::json new_document = document ? *document : at_k;
  const std::string new_source = document ? source : at_k_source;
  const OpenedStudy opened = open_study_document(new_document, new_source);
  const Study& study = opened.study;
  require_same_variables(*study_, study, new_source);
  store_->use_inputs(simulator_inputs_hash(study, opened.simulator->fingerprint()));
  // The move limits of the new study where they differ from those at K (all of them with
  // --reset-region); the others keep the factors the strategy had reached by cycle K.
  const Study before = load_study(at_k, at_k_source);
  std::vector<std::string> changes;
  for (int i = 0; i < study.n_design(); ++i) {
    const DesignVariable& v = study.design[i];
    if (reset_region || v.move_factor != before.design[i].move_factor) {
      changes.push_back(fmt::format("move_limit.{}={}", v.name, v.move_factor));
    }
  }
  // A study that differs from cycle K's only in what `sao set` changes (settings, numeric
  // bounds) continues the run: the branch keeps the stored study, the differences are stored as
  // `sao set` changes for its first cycle, and its driver replays the cycles up to K, so the
  // branch runs exactly what `sao set` before cycle K + 1 would have run. Anything else (or a
  // design after K outside new bounds, or --from-reported) starts a driver of its own there.
  std::optional<std::vector<std::string>> edits;
  if (!from_reported) edits = settable_edits(at_k, new_document);
  if (edits) {
    const Eigen::VectorXd x = design_after(lineage(owner.id), from_cycle);
    for (int i = 0; i < study.n_design() && i < x.size(); ++i) {
      if (x(i) < study.design[i].lower || x(i) > study.design[i].upper) edits.reset();
      if (!edits) break;
    }
  }
  const int id = edits ? owner.study : store_->add_study(new_document, new_source, 0);
  const int branch = store_->add_branch(owner.id, from_cycle, id);  // the branch that ran cycle K
  if (edits) changes.insert(changes.begin(), edits->begin(), edits->end());
  if (!changes.empty()) store_->add_setting_changes(branch, from_cycle + 1, changes);
  if (!start.empty()) store_->add_setting_changes(branch, from_cycle + 1, start);
  return branch;
}

}  // namespace sao
