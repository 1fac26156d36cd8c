// One analysis of one design, summarised for the engineer: `sao evaluate STUDY`.
//
// Before (or between) optimisation runs an engineer wants to see where a design stands: the
// objective, every constraint's worst value against its bound (with the time and load case
// where it occurs), and the range of every response. Used for the start design, a design
// given with --set, and the reference designs of studies (e.g. the original truck damper).
#pragma once

#include <string>
#include <vector>

#include "sao/report/chart.hpp"
#include "sao/seam/simulator.hpp"
#include "sao/study/study.hpp"

namespace sao {

// The study's initial design with its auxiliaries (the full variable vector x).
Eigen::VectorXd initial_variables(const Study& study);

struct ConstraintSummary {
  std::string name;
  double worst = 0.0;       // the criterion at its worst point (largest g for <=, smallest for >=)
  double bound = 0.0;       // c at x
  double normalised = 0.0;  // largest g_hat = s (g - c) / N over the points
  double normaliser = 0.0;  // N: |c|, or for a zero bound the constraint's scale
  int point = 0;            // where (0 for a scalar)
  double time = 0.0;        // time of that point (0 for a scalar)
  Annotation note;          // the constraint entry's unit and label (study.hpp)
};

struct DesignSummary {
  double objective = 0.0;  // F as the user sees it; for the bound formulation, the max bounded
  std::vector<double> objectives;  // a multi-objective study's, in study.objectives' order
  std::vector<ConstraintSummary> constraints;
  double max_violation = 0.0;  // largest g_hat, percent (negative: all hold)
};

// The range of a response history of load case `load_case`: its largest and smallest value,
// and the time of the largest on the load case's grid (NaN when the history is not on that
// grid). The history must not be empty.
struct HistoryRange {
  double max = 0.0;
  double min = 0.0;
  double time_of_max = 0.0;
};
HistoryRange history_range(const Study& study, size_t load_case, const Eigen::VectorXd& history);

// The time of point `point` of a series criterion on its load case's grid; for a series
// without a time grid (over a data array), the point's index.
double point_time(const Study& study, const expr::Program& program, int point);

// `study` with each constraint's `scale` as a run measured it (RunSummary::constraint_scales:
// the trust region sizes a zero bound at its start), so that a report's `normalised` figures are
// in the units of the run's V and `vioacc`. `scales` of another length (none recorded) leave the
// study's.
Study as_measured(const Study& study, const std::vector<double>& scales);

DesignSummary summarise_design(const Study& study, const Evaluation& evaluation,
                               const Eigen::VectorXd& x);

// The key an analysis holds response `r` under (CaseResult's scalars and histories): its source,
// or a derived response's name.
std::string response_key(const ResponseDef& r);
// The name the study gives a response the simulator delivers as `key` (its source, or a
// derived response's name); "" when the study does not declare it.
std::string declared_name(const Study& study, const std::string& key);
// The unit the study declares for that response ("" when none, or not declared).
std::string declared_unit(const Study& study, const std::string& key);

// The summary as text: objective, constraints, and per load case the range of every response
// the study declares (with `all`, of every response the simulator delivers); each value with
// the unit the study declares for it.
std::string design_report(const Study& study, const Evaluation& evaluation,
                          const Eigen::VectorXd& x, bool all = false);

// The variables of a result file (DIR/result.json of `sao run`: "design" maps names to
// values) as the study's full variable vector; names the study lacks are errors, variables the
// file lacks keep their initial value. Throws std::invalid_argument naming the file and key.
Eigen::VectorXd variables_from_result(const Study& study, const std::string& result_file);

// One chart per load case and history response (id "<case>-<response>"), with one line per
// labelled design (e.g. start and optimum) and the bounds the study's constraints put on it:
// the study's responses under their names, or with `all` every history the simulator delivers
// (as design_report).
// kUndeclared: only the histories the study does not declare (the road a simulator delivers
// beside its responses), titled as such, ids "output-<case>-<name>".
enum class HistoryChoice { kDeclared, kAll, kUndeclared };
std::vector<Plot> history_charts(const Study& study, const std::vector<std::string>& labels,
                                 const std::vector<Evaluation>& evaluations,
                                 HistoryChoice which = HistoryChoice::kDeclared);
// DIR/histories.html: a self-contained page holding the charts. Returns the file written.
std::string write_history_page(const std::string& dir, const std::string& title,
                               const std::vector<Plot>& charts);

}  // namespace sao
