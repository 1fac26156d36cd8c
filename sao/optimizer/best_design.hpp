// Which design a run that did not converge, or a converged multi-point run, reports: the best
// feasible design it analysed (Driver::reports_best_analysed says for which end).
//
// A sequential approximate optimization that stops on its cycle limit (or stalls) ends at its
// last accepted design. With noisy responses the move-limit strategy accepts proposals whose
// violation lies inside the noise band (seed 003, 3.6.3: viomax + noise), so the last accepted
// design can violate a constraint while an earlier proposal or plan point, analysed by the
// same code, held every constraint with a lower objective. Those analyses are real results of
// the simulator, not predictions: a user expects the run to report the best of them (DAKOTA
// reports its best evaluation, feasibility ranked first). best_feasible_analysed() picks it;
// the driver reports it (summary x, objective, V) and says so in the run's message, while the
// next cycle of a reopened run still continues from the last accepted design. The multi-point
// strategy moves to every proposal within its error bounds, worse ones too, and converges when
// two successive designs agree, so a converged multi-point run reports the best as well.
// `sao restart --from-reported` starts a branch from the reported design.
#pragma once

#include <Eigen/Dense>
#include <map>
#include <optional>
#include <vector>

#include "sao/seam/simulator.hpp"
#include "sao/study/criteria.hpp"
#include "sao/study/study.hpp"

namespace sao {

struct AnalysedDesign {
  // Design variables, then auxiliaries (size n_total), each auxiliary of the bound formulation
  // at the largest value it bounds in the analysis (with_bounded_maxima).
  Eigen::VectorXd x;
  double objective = 0;  // F, internal sign (minimised)
  double violation = 0;  // V, percent
};

// The analysed design with the lowest objective among those with V <= vioacc that lie inside
// the design variables' current bounds; nullopt when none does. `analyses` are keyed by the
// design variables' values (the driver's cache). In a study with auxiliary variables each
// auxiliary is set from the analysis to the largest value it bounds (the bound formulation's
// max: F and V are then the real objective and violation of the design); a study with an
// auxiliary that bounds nothing cannot be ranked so: nullopt (rankable_by_analysis).
// Among designs of equal objective (a variable the objective does not read, a noisy code's
// plateau) the lower violation wins, then the earlier analysis by `analysed_in` (the cycle of
// each design, where given), then the first in key order: a restart that finds nothing better
// reports the design it started from, not an equal plan point beside it.
// x with the bound formulation's auxiliaries at the maxima they bound in the analysis `exact`
// (with_bounded_maxima), and F and V there: the figures of an analysed design whose auxiliaries
// the subproblem did not choose (the start of a run, the best feasible design analysed).
AnalysedDesign at_bounded_maxima(const Study& study, const Eigen::VectorXd& x,
                                 const ResponseModel& exact);

// True when every auxiliary variable bounds a constraint (or there are none): only then is a
// design's objective a function of its analysis alone.
bool rankable_by_analysis(const Study& study);

std::optional<AnalysedDesign> best_feasible_analysed(
    const Study& study, const std::map<std::vector<double>, Evaluation>& analyses, double vioacc,
    const std::map<std::vector<double>, int>* analysed_in = nullptr);

}  // namespace sao
