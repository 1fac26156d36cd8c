// DIR/result.json and DIR/history.csv of `sao run` and `sao step` (issue 26, item 6):
// result_to_json (sao/report/report.hpp) with, in this order first, the program version, the
// design in study order (design variables, then auxiliaries), and, when the final design's
// analysis is at hand, every constraint's worst value at the final design and where it occurs
// (load case, time point and time), and the active set: the constraints whose worst value lies
// within kActiveTolerance of their bound (normalised g_hat >= -kActiveTolerance) or beyond it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "sao/optimizer/driver.hpp"
#include "sao/seam/simulator.hpp"
#include "sao/study/study.hpp"

namespace sao::cli {

// The program's version (CMake's project version).
const char* program_version();

// Within 0.1 % of the bound (normalised), a constraint counts as active.
constexpr double kActiveTolerance = 1e-3;

// The design of the result: the final one, or while the run goes on (`sao step`, a run killed
// between cycles) the design the next cycle starts from.
Eigen::VectorXd current_design(const RunSummary& summary);

// While the run goes on, "design", "cycles", "constraints" and "active_set" are those of
// current_design() (the other figures are filled when the run ends).
nlohmann::ordered_json result_document(const Study& study, const RunSummary& summary,
                                       const std::optional<Evaluation>& final_analysis);

// Writes DIR/result.json (result_document) and DIR/history.csv atomically, creating DIR.
void write_result_files(const std::string& dir, const Study& study, const RunSummary& summary,
                        const std::optional<Evaluation>& final_analysis);

}  // namespace sao::cli
