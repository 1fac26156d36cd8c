// A branch of a study store as every view shows it (`sao status`, `sao status --json`, the
// service's study and branch listings; docs/interactive.md). The store keeps a branch's status
// as its session last wrote it: "running" there says only that its run had not ended. Only the
// newest branch (the current one) is ever worked on: a branch left by `sao restart` (a newer
// branch was made, from it or from another) is never run again, so one stored as not ended is
// shown as "abandoned", naming the branch that superseded it and its last cycle, never as
// "running".
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sao/store/store.hpp"

namespace sao {

// The status a branch shows for "left by `sao restart` before its run ended".
constexpr const char* kAbandoned = "abandoned";

struct BranchView {
  BranchInfo info;            // its status as shown: as stored, or kAbandoned
  std::string stored_status;  // as the store holds it
  int last_cycle = 0;         // its last stored cycle (its from_cycle when it has none)
  int superseded_by = 0;      // abandoned: the branch made when it was left (0 otherwise)
};

// Whether a stored status is that of a run that has ended (converged, cycle_limit, infeasible,
// failed, stalled).
bool run_has_ended(const std::string& status);

// Every branch of the store, as shown.
std::vector<BranchView> branch_views(const StudyStore& store);

// branch_json (id, parent, from_cycle, status, message, created) of the branch as shown, and
// for an abandoned one "stored_status", "last_cycle" and "superseded_by".
nlohmann::json branch_view_json(const BranchView& view);

}  // namespace sao
