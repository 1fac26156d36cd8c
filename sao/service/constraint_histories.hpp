// The histories of the time-dependent constraints at the two designs of one cycle, its start
// design b0 and its proposal b*, for the workbench's constraint plot
// (GET /api/studies/ID/histories?cycle=K, docs/service.md): g(t) at each design from its
// stored analysis, the bound, and the time points the screening retains at that design (as the
// HTML report marks them at the first and the last design, sao/report/html_report.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include "sao/report/report_plots.hpp"
#include "sao/store/study_session.hpp"

namespace sao::service {

// {"branch", "cycle", "accepted", "constraints": [{"name", "unit" (when declared), "path",
// "expression", "sense", "t": [...], "designs": [{"label" ("start" | "proposal"), "design":
// {name: value}, "analysed", "g": [...], "bound", "retained": [point indices]}]}], "units":
// {"design": {name: unit}}} (units_json.hpp).
// `branch` 0: the session's current branch. The retained points are those of the screening
// with the settings in force on the session's branch now (a cutoff changed later moves them).
// Throws ApiError 400 when `cycle` is not in the branch's history, 404 for an unknown branch.
nlohmann::ordered_json constraint_histories(StudySession& session, int branch, int cycle);

// A cycle's start design b0 and its proposal b* (when it has one), under these labels, each with
// its stored analysis: what /histories and the histories charts draw.
std::vector<report::ShownDesign> cycle_designs(StudySession& session, const CycleRecord& r,
                                               const std::string& start,
                                               const std::string& proposal);

// Cycle `cycle` of branch `branch`'s lineage; ApiError 400 naming both when it has none.
const CycleRecord& lineage_cycle(const std::vector<CycleRecord>& lineage, int branch, int cycle);

}  // namespace sao::service
