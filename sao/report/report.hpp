// Reports of a run: the cycle table printed while it runs, result.json and history.csv.
//
// The end of the flow: CycleRecords -> log line, history. result.json holds the status, the
// final design, the counts and one object per cycle; history.csv one row per cycle, with
// the start design as cycle 0 (as the seed's tables).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sao/optimizer/driver.hpp"
#include "sao/study/study.hpp"

namespace sao {

// Column titles of the cycle table (each line after the first begins with `indent`: a second
// line gives the units of the design variables and of F, when the study names any), and one row.
std::string cycle_table_header(const Study& study, const std::string& indent = "");
std::string cycle_table_row(const Study& study, const CycleRecord& record);
// The start design as row 0.
std::string cycle_table_start(const Study& study, const RunSummary& summary,
                              const Eigen::VectorXd& x0);

// A run's or a cycle's message on one line (the table, the status line): its first line, and
// how many more the log and result.json hold (message_headline, sao/seam/simulator.hpp).
std::string one_line(const std::string& message);

// The end of a run as `sao run` prints it: status, design, objective, violation, counts
// (with the analyses re-used from the study store when `store`).
std::string run_summary_text(const Study& study, const RunSummary& summary, bool store);

// One cycle in the one JSON form of a record (cycle_record_json.hpp), its designs (b0, b_opt)
// in study order (design variables, then auxiliaries) for every output that shows it.
nlohmann::ordered_json cycle_to_json(const Study& study, const CycleRecord& record);
// A cycle record's JSON (cycle_record_to_json, whose objects sort their keys) with its designs
// in the order of `names` (names it does not know last); the other keys as they are.
nlohmann::ordered_json cycle_json_in_order(const nlohmann::json& record,
                                           const std::vector<std::string>& names);
// The first-order optimality of result.json (null when it was not measured).
nlohmann::json optimality_to_json(const FinalOptimality& optimality);
nlohmann::json result_to_json(const Study& study, const RunSummary& summary);
std::string history_csv(const Study& study, const RunSummary& summary);

}  // namespace sao
