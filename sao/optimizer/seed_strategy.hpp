// The move-limit strategy of seed 003, appendix A (`"strategy": "seed"`, the default of
// multi-point studies): decide_move_limits (move_limits.hpp) on the errors and the violation of
// b*, with the noise of the fit as the noise percentage when the user gave none
// (noise_from_data). No floor on the subregion, no convergence at b0, no stall.
#pragma once

#include "sao/optimizer/move_limit_strategy.hpp"

namespace sao {

class SeedStrategy final : public MoveLimitStrategy {
 public:
  StepJudgement judge(const AnalysedProposal& proposal) const override;
  bool stalled(const Options&, const Eigen::VectorXd&) const override { return false; }
};

}  // namespace sao
