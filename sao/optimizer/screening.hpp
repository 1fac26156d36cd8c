// Constraint screening and time-point deletion (SPEC 2.2, seed 003 section 3.5.2).
//
// Second box of the flow: after b0 is analysed, every constraint is normalised
// (g_hat = (g - c)/|c|, sign flipped for >=, `scale` instead of |c| when c = 0, raised by the
// trust region to the start's largest |g|: TrustRegionStrategy::prepare) and only the ones
// near or beyond their bound enter this cycle's subproblem (above `cutoff`; with the trust
// region, a scalar constraint above `scalar_cutoff`: by default from its zero on). For a
// time-dependent constraint only the time points around its critical local maxima are kept. These
// are pure functions of the normalised values, so they are tested on synthetic histories;
// screen_study applies them to a whole study at b0.
#pragma once

#include <Eigen/Dense>
#include <map>
#include <set>
#include <vector>

#include "sao/optimizer/subproblem.hpp"
#include "sao/study/options.hpp"
#include "sao/study/study.hpp"

namespace sao {

// True when a normalised value is retained: g_hat >= -(1 - cutoff).
bool above_cutoff(double g_hat, double cutoff);

// Indices p (sorted, unique) of the local maxima of g_hat. A maximal run of equal values
// (a plateau, possibly one point long) is a maximum when every neighbour just outside it is
// lower; a run touching the first or last point needs only its one inner neighbour lower, so
// the ends count when they exceed their one neighbour. A constant history is one maximum.
// Every point of a maximal plateau is returned. Values are compared exactly; a NaN equals
// nothing and is lower than nothing, so neither it nor its neighbours are maxima (the caller
// should reject non-finite histories). An empty history has no maximum.
std::vector<int> local_maxima(const Eigen::VectorXd& g_hat);

// Time points retained for one time-dependent constraint (sorted, unique):
//  - regionalisation on: every local maximum above the cutoff plus `neighbours` points
//    before and after it (clipped to the grid);
//  - regionalisation off: every point above the cutoff.
// A plateau maximum is above the cutoff as a whole or not at all; its window runs from
// `neighbours` points before its first point to `neighbours` after its last. Throws
// std::invalid_argument when neighbours < 0.
std::vector<int> retained_time_points(const Eigen::VectorXd& g_hat, double cutoff, int neighbours,
                                      bool regionalisation);

// The screening step of a cycle applied to a whole study at x0 (SPEC 2.2): the retained
// (constraint, time point) rows, and the sensitivities they and the objective need.
struct ScreenedStudy {
  std::vector<RetainedRow> rows;
  int retained_constraints = 0;
  std::vector<DerivativeRequest> derivatives;  // empty: nothing to approximate
};
// `also_retain`: (constraint -> time points) kept whatever their value at x0 (the driver passes
// the points a rejected proposal violated, with either strategy, so that the next subproblem
// sees them even when they are far inside their bound at b0; with the trust region, a scalar
// constraint's for the rest of the run: Driver::remember_rejection).
ScreenedStudy screen_study(const Study& study, const Options& options, const Eigen::VectorXd& x0,
                           const ResponseModel& exact,
                           const std::map<int, std::set<int>>& also_retain = {});

}  // namespace sao
