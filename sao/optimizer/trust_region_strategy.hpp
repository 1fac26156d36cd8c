// The trust-region move-limit strategy (the default; issue 17): b* judged by the merit function
// of trust_region.hpp (decide_trust_region), the subregion's relative half-widths floored,
// constraints bounded by 0 normalised by their size at the start (or their gradient's there),
// convergence only where b0 is feasible and first-order optimal (or no design of a non-binding
// subregion is predicted to improve on it: decided before b* is analysed), and a stall when every
// factor shrank below min_move_limit.
#pragma once

#include "sao/optimizer/move_limit_strategy.hpp"

namespace sao {

class TrustRegionStrategy final : public MoveLimitStrategy {
 public:
  std::vector<UnsizedConstraint> prepare(Study& study, const Eigen::VectorXd& x0,
                                         const ResponseModel& exact) const override;
  void size_by_gradients(Study& study, std::vector<UnsizedConstraint>& unsized,
                         ApproximateProblem& problem) const override;
  bool floored_subregion() const override { return true; }
  bool converged_at_b0(const Options& noisy, const Optimality& at_b0, double V0) const override;
  std::string converged_on_prediction(const PredictedProposal& proposal) const override;
  StepJudgement judge(const AnalysedProposal& proposal) const override;
  bool stalled(const Options& noisy, const Eigen::VectorXd& factors) const override;
};

}  // namespace sao
