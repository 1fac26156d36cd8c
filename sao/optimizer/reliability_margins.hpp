// Reliability-based and robust design in the SAO cycle (docs/robustness.md, "Reliability-based
// design"): a constraint with a reliability target (k standard deviations, or a probability p of
// violation, k = Phi^-1(1 - p)) is held as
//
//     g(b) + k sd_g <= c     (or g(b) - k sd_g >= c),
//
// sd_g the standard deviation of g under the study's random variables, to first order at the
// cycle's start b0 (the mean-value first-order second-moment method): sd_g^2 = a' Sigma a, a the
// gradient of g with respect to the design variables the random variables act on, Sigma = D R D
// with D their standard deviations at b0 and R their correlation (exact for normal variables;
// Nataf's copula coefficient otherwise). For normal variables and g linear in them, g + k sd_g
// <= c is exactly P(violation) <= p; otherwise it is a first-order approximation, which
// `sao robust --method mc-analyses` checks at the final design.
//
// The margin k sd_g is a constant of the cycle, measured at b0 from the gradients of the cycle's
// approximation (exact in value and gradient at b0): the subproblem and the judgement of its
// proposal hold the same constraint, and the next cycle measures it again at its start (a
// sequential shift, as in Du and Chen's SORA). A time-dependent constraint part gets one margin:
// that of its retained point of the largest g_hat + k sd_hat at b0 (the point that becomes the
// critical one under the shift).
#pragma once

#include <string>
#include <vector>

#include "sao/optimizer/subproblem.hpp"
#include "sao/study/study.hpp"

namespace sao {

struct ReliabilityMargin {
  int constraint = -1;  // index into study.constraints
  int point = 0;        // the point whose standard deviation sets the margin
  double sd = 0.0;      // that standard deviation, in the constraint's units
  double margin = 0.0;  // k sd
};

// Whether a constraint of the study has a reliability target.
bool has_reliability_targets(const Study& study);

// The margins at problem.x0 of the constraints with a reliability target that have retained rows
// in `problem` (others get no entry: their margin stays). problem.model must give gradients.
// Throws std::invalid_argument (naming the entry) where a random variable has no distribution at
// b0 (a cov of a zero value).
std::vector<ReliabilityMargin> reliability_margins(const ApproximateProblem& problem,
                                                   const RandomSection& random);

}  // namespace sao
