// `sao export DIR [--out FILE]` (issue 26, item 6): every analysis in a study store as one CSV
// row, as DAKOTA's tabular file or OpenMDAO's case reader give them: the analysis number and
// the branch that ran it, the design variables (study order), the status (ok or failed, with
// the message), whether it holds sensitivities (an analysis with sensitivities of a design
// analysed before repeats its values), the wall time and simulator runs, then per load case and
// response its value (a scalar: CASE.NAME) or the summary of its history (CASE.NAME.max,
// CASE.NAME.min and CASE.NAME.t_max, the time of the maximum). Empty cells where an analysis lacks
// a response.
#pragma once

#include <string>

#include "sao/store/store.hpp"

namespace sao::cli {

// The CSV text of every analysis of `store` (its current branch's study names the columns).
std::string analyses_csv(const StudyStore& store);

}  // namespace sao::cli
