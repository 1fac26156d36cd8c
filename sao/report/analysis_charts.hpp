// Every stored analysis at once: a scatter of any quantity against any other (design variables,
// the objective, each constraint part's worst value over time), one point per analysis,
// coloured by branch or by cycle. The report draws the objective against each variable; the
// workbench lets one pick (GET .../charts?view=analyses&x=...&y=...&by=...).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sao/report/chart.hpp"
#include "sao/store/study_session.hpp"

namespace sao::report {

// The stored analyses of a study as columns of values, one row per usable analysis.
struct AnalysisTable {
  std::vector<std::string> columns;  // "label [unit]" of each quantity, as charts show it
  std::vector<std::string> units;    // its unit, as the study declares it ("" for none)
  std::vector<std::string> keys;     // its key in a query: the variable's name, "objective",
                                     // or the constraint part's name
  size_t variables = 0;              // the first columns: the design variables
  std::vector<std::vector<double>> rows;
  std::vector<long> index;  // per row: its index among the store's analyses (GET .../analyses)
  std::vector<int> branch;  // per row: the branch that ran it (0: not recorded)
  // Per row: the cycle whose start (0) or proposal it is on its branch's lineage; another
  // analysis (a plan point, a sweep's member) takes the cycle of the analysis before it.
  std::vector<int> cycle;
};

AnalysisTable analysis_table(StudySession& session);

// y against x of every row, by "branch" (a series per branch) or "cycle" (shaded from the
// first cycle, light, to the last, dark). Throws std::invalid_argument naming an unknown key.
Plot analysis_scatter(const AnalysisTable& table, const std::string& x, const std::string& y,
                      const std::string& by);

// The keys x and y, or where one is empty its default: x the first design variable, y the
// objective (or the first quantity after the variables).
std::pair<std::string, std::string> scatter_keys(const AnalysisTable& table, const std::string& x,
                                                 const std::string& y);

// The report's: the objective (or, in a bound formulation, each objective part) against each
// design variable, by cycle.
std::vector<Plot> analysis_charts(const AnalysisTable& table, const Study& study);

}  // namespace sao::report
