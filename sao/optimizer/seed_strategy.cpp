#include "sao/optimizer/seed_strategy.hpp"

namespace sao {

StepJudgement SeedStrategy::judge(const AnalysedProposal& p) const {
  // The noise estimate of the fit sets the noise percentage when the user gave none.
  Options decision_options = p.options;
  if (decision_options.noise_from_data && decision_options.noise == 0.0 && p.noise_estimate > 0.0) {
    decision_options.noise = 2.0 * p.noise_estimate;  // a band of +-2 sigma, as users state noise
  }
  StepJudgement j;
  static_cast<MoveDecision&>(j) =
      decide_move_limits(decision_options.with_noise_applied(), p.facts, p.previous, p.factors);
  return j;
}

}  // namespace sao
