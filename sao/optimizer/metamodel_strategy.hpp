// The metamodel strategy (`"strategy": "metamodel"`, issue 50; docs/metamodels.md, "Optimisation
// on the metamodel"): a sequential response surface method with domain reduction (pan and zoom,
// Stander and Craig 2002, as LS-OPT's SRSM), on global models of the responses.
//
// Each cycle the driver takes a region (metamodel_region: a box of width m_i (bu_i - bl_i) per
// design variable, centred at b0 and shifted inside the bounds, m the move-limit factors), adds
// plan points so that the region and its surroundings hold `metamodel_points` analyses
// (D-optimal for a polynomial, a maximin Latin hypercube for kriging; the analyses it already
// holds count), fits a metamodel of every response value the cycle needs over them
// (metamodel_responses.hpp), and proposes either the metamodel's constrained optimum in the
// region (infill "optimum", a multi-start search from every analysed point in the region) or
// the point of largest constrained expected improvement (infill "expected_improvement").
// The proposal is analysed, and this strategy judges it:
//
//  - accepted when it improves on b0: feasible (V <= vioacc) and either b0 infeasible or a
//    lower objective; or, from an infeasible b0, a lower violation;
//  - converged when the analysed proposal is feasible, lies inside the region (no move limit
//    active: a step the region holds may be crawling towards an optimum further on), changed F
//    by at most objacc percent and moved no design variable by more than design_tolerance
//    percent of its range: the metamodel's optimum confirmed by an analysis, never the
//    metamodel's word alone;
//  - the region: with d_i = (b*_i - b0_i) / (r_i / 2) in [-1, 1] the normalised move and d'_i
//    the previous accepted cycle's, c = sign(d_i d'_i) sqrt(|d_i d'_i|), the contraction
//      gamma_i = (gamma_pan (1 + c) + gamma_osc (1 - c)) / 2,  lambda_i = eta + |d_i| (gamma_i -
//      eta)
//    with gamma_pan = 1, gamma_osc = 0.6 and eta = 0.6 (the published defaults): a full move
//    in the same direction keeps the size (pan), a move that reverses shrinks it (oscillation),
//    no move zooms by eta; a rejected proposal zooms by eta around b0. The region never grows.
//    With infill "expected_improvement" the region keeps its size (the criterion balances
//    exploring and exploiting by itself; zooming on every worse proposal would end the search).
//  - stalled when every factor is below min_move_limit.
#pragma once

#include "sao/optimizer/move_limit_strategy.hpp"

namespace sao {

class MetamodelStrategy final : public MoveLimitStrategy {
 public:
  StepJudgement judge(const AnalysedProposal& proposal) const override;
  bool stalled(const Options& noisy, const Eigen::VectorXd& factors) const override;
};

// The region of a cycle (design variables): width m_i (upper_i - lower_i) of each variable's
// bounds, centred at b0 and shifted to lie inside them (never wider than they are); a discrete
// variable's out to the allowed values next to its ends, two of them at least.
void metamodel_region(const Study& study, const Eigen::VectorXd& b0, const Eigen::VectorXd& factors,
                      Eigen::VectorXd& lower, Eigen::VectorXd& upper);

}  // namespace sao
