// The files of a sweep (`sao sweep`, sao/store/sweep.hpp): every member, the compromise curve
// as CSV and as a chart page. Written here, by the report, from what run_sweep returns: the
// store does not plot (the configure-time link check of the top CMakeLists.txt keeps sao_store
// from linking sao_report).
#pragma once

#include <string>
#include <vector>

#include "sao/store/sweep.hpp"

namespace sao {

// A reference design shown on the curve (e.g. the original damper): at x = `value`, y =
// `objective`.
struct ReferencePoint {
  std::string label;
  double value = 0.0;
  double objective = 0.0;
};

// DIR/sweep.csv (every member), DIR/compromise.csv and DIR/compromise.html (a self-contained
// page with the compromise chart; its axes titled
// `x_title` and `y_title`, "label [unit]" where the study gives them; empty: the varied key
// and the objective's name).
void write_sweep(const std::string& dir, const SweepOptions& options, const SweepResult& result,
                 const std::vector<ReferencePoint>& references, const std::string& objective_name,
                 const std::string& x_title = "", const std::string& y_title = "");

}  // namespace sao
