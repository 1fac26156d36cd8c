// The metamodel strategy's infill by constrained expected improvement (`"infill":
// "expected_improvement"`, metamodel_strategy.hpp; docs/metamodels.md): efficient global
// optimisation (Jones, Schonlau and Welch 1998) with the constraints' probability of feasibility
// (Schonlau 1997).
//
// Kriging models (nugget estimated) of the objective F and of each constraint's largest
// normalised value over its time points, max_p g_hat_j, are fitted on the analysed designs; the
// proposal maximises
//   cEI(b) = EI(mu_F(b), s_F(b), F_best) prod_j P(g_j(b) <= 0)
// over the region, F_best the least F of the feasible analysed designs. Without a feasible one
// the proposal maximises the probability that every constraint holds. The search: a maximin
// Latin hypercube of 100 n + 100 candidates in the region (seeded: deterministic), then NLopt's
// bounded BOBYQA from the five best.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <string>

#include "sao/metamodel/metamodel.hpp"

namespace sao {

struct InfillData {
  Eigen::MatrixXd points;       // m x n analysed designs
  Eigen::VectorXd objective;    // F at each (minimised sign)
  Eigen::MatrixXd constraints;  // m x c: each constraint's largest g_hat at each design
  double feasible_level = 0.0;  // a design is feasible when every g_hat <= this
};

struct InfillProposal {
  Eigen::VectorXd design;       // n design variables
  double criterion = 0.0;       // cEI (or the probability of feasibility) there
  double predicted = 0.0;       // the objective's kriging mean there
  bool feasible_known = false;  // some analysed design was feasible (cEI, else P(feasible))
};

// The proposal inside [lower, upper] (design variables); `box`: the box the models are scaled on.
// Throws std::invalid_argument when the models cannot be fitted (the message says why).
InfillProposal expected_improvement_infill(const InfillData& data, const metamodel::Bounds& box,
                                           const Eigen::VectorXd& lower,
                                           const Eigen::VectorXd& upper, std::uint64_t seed);

}  // namespace sao
