#include "sao/store/branch_state.hpp"

#include <algorithm>
#include <array>

namespace sao {

bool run_has_ended(const std::string& status) {
  const std::array<RunStatus, 5> ended = {RunStatus::kConverged, RunStatus::kCycleLimit,
                                          RunStatus::kInfeasible, RunStatus::kFailed,
                                          RunStatus::kStalled};
  return std::any_of(ended.begin(), ended.end(),
                     [&](RunStatus s) { return status == to_string(s); });
}

std::vector<BranchView> branch_views(const StudyStore& store) {
  const int current = store.current_branch();
  std::vector<BranchView> out;
  for (const BranchInfo& b : store.branches()) {
    BranchView& v = out.emplace_back();
    v.info = b;
    v.stored_status = b.status;
    v.last_cycle = b.from_cycle;
    for (const StoredCycle& c : store.cycles(b.id))
      v.last_cycle = std::max(v.last_cycle, c.record.cycle);
    if (b.id == current || run_has_ended(b.status)) continue;
    // Branches are numbered as they are made and the newest is the current one: this one
    // stopped being current when the next one was made.
    v.superseded_by = b.id + 1;
    v.info.status = kAbandoned;
    v.info.message = "left after cycle " + std::to_string(v.last_cycle) + " for branch " +
                     std::to_string(v.superseded_by) +
                     " (sao restart); its run had not ended and no process runs it" +
                     (b.message.empty() ? std::string() : " (stored message: " + b.message + ")");
  }
  return out;
}

nlohmann::json branch_view_json(const BranchView& view) {
  nlohmann::json out = branch_json(view.info);
  if (view.info.status == kAbandoned) {
    out["stored_status"] = view.stored_status;
    out["last_cycle"] = view.last_cycle;
    out["superseded_by"] = view.superseded_by;
  }
  return out;
}

}  // namespace sao
