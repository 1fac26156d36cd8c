#include "sao/optimizer/seed_strategy.hpp"

namespace sao {

StepJudgement SeedStrategy::judge(const AnalysedProposal& p) const {
  // The noise estimate of the fit sets the noise percentage when the user gave none.
  Options decision_options = p.options;
  if (decision_options.noise_from_data && decision_options.noise == 0.0 && p.noise_estimate > 0.0) {
    decision_options.noise = 2.0 * p.noise_estimate;  // a band of +-2 sigma, as users state noise
  }
  const MoveDecision decision =
      decide_move_limits(decision_options.with_noise_applied(), p.facts, p.previous, p.factors);
  StepJudgement j;
  j.accept = decision.accept;
  j.converged = decision.converged;
  j.E = decision.E;
  j.Fchg = decision.Fchg;
  j.factors = decision.factors;
  j.actions = decision.actions;
  return j;
}

}  // namespace sao
