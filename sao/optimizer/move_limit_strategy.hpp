// The move-limit strategy behind one interface (settings.strategy): what the driver asks of it
// in a cycle. Two implementations: the trust region (the default; trust_region_strategy.hpp,
// its rules in trust_region.hpp) and appendix A of seed 003 (seed_strategy.hpp, its rules in
// move_limits.hpp).
//
// The driver owns the run: b0, the factors, the previous accepted cycle, the optimality measured
// at b0 and the merit function's penalty (both strategies' cycles measure it), and it analyses
// b* (Ef, Eg, V) and applies the judgement (record, factors, b0). A strategy keeps no state of
// a run: it judges from what the driver passes, so a strategy changed between cycles
// (`sao set strategy=...`) takes the run over as it stands.
#pragma once

#include <Eigen/Dense>
#include <optional>
#include <string>
#include <vector>

#include "sao/optimizer/move_limits.hpp"
#include "sao/optimizer/optimality.hpp"
#include "sao/optimizer/subproblem.hpp"
#include "sao/seam/simulator.hpp"
#include "sao/study/options.hpp"
#include "sao/study/study.hpp"

namespace sao {

// The predicted merit improvement a proposal is judged against, and the penalty mu it was
// predicted with, when not its own subproblem's: a second-order correction is judged against
// the step it corrects (Nocedal & Wright, 18.3), since its own subproblem, which moved the rows
// onto their values at the rejected b*, predicts the cost of the way back to feasibility.
struct StepPrediction {
  double predicted = 0.0;
  double penalty = 0.0;
};

// A proposal b* before its analysis: what its subproblem predicts, at b0.
struct PredictedProposal {
  const Options& noisy;               // the driver's settings with the noise applied
  const ApproximateProblem& problem;  // b0 (x0), the subregion, the rows and the approximations
  const SubproblemResult& sub;        // the subproblem's status and objective F~(b*)
  const Eigen::VectorXd& proposed;    // b* as the subproblem proposed it (inside the subregion)
  const CycleFacts& facts;            // F0, V0, the step and its active limits (nothing of b*'s)
  const Optimality& at_b0;            // measured at b0 (not with multi-point fits)
  double penalty = 0.0;               // mu of the merit function (trust_region.hpp)
};

// A proposal b*, analysed, as a strategy judges it.
struct AnalysedProposal {
  const Study& study;
  const Options& options;             // the driver's settings, as given
  const Options& noisy;               // the same with the noise applied
  const ApproximateProblem& problem;  // b0 (x0), the subregion, the rows and the approximations
  const SubproblemResult& sub;        // the subproblem's status and objective F~(b*)
  const Eigen::VectorXd& proposed;    // b* as the subproblem proposed it (inside the subregion)
  const Eigen::VectorXd& x_opt;       // b* as analysed (auxiliaries repaired: repair_auxiliary)
  const Evaluation& analysis;         // of b*
  const CycleFacts& facts;            // F0, F(b*), Ef, Eg, V, V0, the step and its active limits
  const Eigen::VectorXd& factors;     // this cycle's move-limit factors
  const std::optional<PreviousCycle>& previous;  // the last accepted cycle
  const Optimality& at_b0;                       // measured at b0 (not with multi-point fits)
  double penalty = 0.0;                          // mu of the merit function (trust_region.hpp)
  double noise_estimate = -1.0;  // multi-point: the fit's noise estimate, %; < 0: none
  int cycle = 0;                 // the cycle's number, for the log
  // Trust region: judged against this prediction instead of the subproblem's (a second-order
  // correction: the step it corrects); none: the subproblem's.
  std::optional<StepPrediction> judged_against;
};

// What becomes of the proposal: accepted, converged, E, Fchg, the next cycle's factors and the
// action per design variable (MoveDecision, the seed's decision), and:
struct StepJudgement : MoveDecision {
  double ratio = 0.0;      // trust region: actual / predicted merit improvement; else 0
  double actual = 0.0;     // trust region: the actual merit improvement (phase 1: of h); else 0
  double predicted = 0.0;  // trust region: the predicted merit improvement; else 0
  double penalty = 0.0;    // trust region: the penalty mu the merit was judged with; else 0
  std::string message;     // why the run converged, when the strategy says; else ""
};

// A constraint bounded by 0 that its start did not size beyond its `scale` (prepare).
struct UnsizedConstraint {
  int constraint = 0;
  double start_size = 0.0;  // the largest |g| or |term of g| at the start
};

class MoveLimitStrategy {
 public:
  virtual ~MoveLimitStrategy() = default;
  // Once, at the analysed start design x0 (before the first cycle): the trust region normalises
  // each constraint bounded by 0 by its largest |g| there where that exceeds its `scale`, else
  // by its largest |term of g| where that exceeds it tenfold. Returns the constraints whose start
  // says nothing of their size (g and its terms about 0 there): size_by_gradients sizes them once
  // gradients exist. By default (the seed's and the metamodel strategy): nothing.
  virtual std::vector<UnsizedConstraint> prepare(Study&, const Eigen::VectorXd&,
                                                 const ResponseModel&) const {
    return {};
  }
  // At the first cycle's approximation (problem.model, gradients at x0): each of `unsized`
  // (prepare's) normalised by what a step of one characteristic size in one variable changes it
  // by (max_i |dg/db_i| s_i, optimality.hpp's sizes) where that is over ten times its `scale`,
  // the rows of `problem` with it; a warning names each `scale` that was a guess. `unsized` is
  // emptied.
  virtual void size_by_gradients(Study&, std::vector<UnsizedConstraint>& unsized,
                                 ApproximateProblem&) const {
    unsized.clear();
  }
  // Whether the subregion's relative half-widths have a floor (move_half_width's `floored`;
  // only the trust region's).
  virtual bool floored_subregion() const { return false; }
  // Whether the run converges at b0 before proposing anything: b0 feasible (V0, percent) and
  // its first-order residual below kkt_tolerance (only the trust region).
  virtual bool converged_at_b0(const Options&, const Optimality&, double) const { return false; }
  // Whether the run converges at b0 on what the subproblem proposes, before b* is analysed (an
  // analysis the decision would not read): the message that says why, or "" (only the trust
  // region: no design of a subregion that did not hold the step back is predicted better than
  // b0, b0 feasible and its residual within kModelTolerance of kkt_tolerance).
  virtual std::string converged_on_prediction(const PredictedProposal&) const { return {}; }
  // Accept or reject b*, converged or not, and the next factors.
  virtual StepJudgement judge(const AnalysedProposal& proposal) const = 0;
  // Whether the run cannot go on usefully with these factors (the seed's strategy never stalls).
  virtual bool stalled(const Options& noisy, const Eigen::VectorXd& factors) const = 0;
};

// The strategy of settings.strategy (one instance each, shared: the strategies keep no state).
const MoveLimitStrategy& move_limit_strategy(Strategy strategy);

// v with three significant digits (printf's %.3g), as the run's messages give residuals.
std::string three_digits(double v);

}  // namespace sao
