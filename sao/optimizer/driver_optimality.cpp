// The driver's honest termination (issue 17): the first-order optimality at each cycle's b0
// (and the merit function's penalty from its multipliers), convergence there when the strategy
// says so, the subproblem's debug log and the words a stalled run ends with. The cycle itself is
// in driver.cpp, the judgement of b* in the move-limit strategies (move_limit_strategy.hpp).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "sao/optimizer/cycle_record_json.hpp"
#include "sao/optimizer/difference_error.hpp"
#include "sao/optimizer/driver.hpp"
#include "sao/optimizer/trust_region.hpp"

namespace sao {
namespace {

std::string row_name(const Study& study, const RetainedRow& row) {
  const Constraint& c = study.constraints[row.constraint];
  return c.g.time_dependent() ? c.name + "[" + std::to_string(row.point) + "]" : c.name;
}

// The residual's floor is for an objective falling to 0, which a run approaches by steps its
// approximations predict. An accepted step that alone took |F| down kStaleFall-fold, predicted
// poorly (ratio below kPoorRatio), is not that: the objective changed its scale under a model
// that did not see it coming (HS 57's exponentials from x2 = -2.1: F = 5e60 at the start,
// 1.7e48 one step later at a ratio of 0.035, where 1 % of the start's slope called a slope of
// 3e51 zero). The reference is then taken again at the b0 that step reached (trust region: the
// other strategies' records carry no ratio).
constexpr double kStaleFall = 1e-9;
constexpr double kPoorRatio = 0.25;
// The least share of the last b0's slope a first feasible b0's slope is taken as the reference
// of the residual's floor (measure_optimality).
constexpr double kStationaryShare = 1e-3;
// A secant cycle whose b0 has a residual within this many kkt_tolerance takes the true gradients
// (the trust region converges on a residual within 10 of them: converged_on_prediction).
constexpr double kSecantConfirm = 100.0;

bool stale_reference(const std::vector<CycleRecord>& history) {
  for (auto r = history.rbegin(); r != history.rend(); ++r) {
    if (r->accepted) {
      return r->ratio < kPoorRatio && std::abs(r->F_opt) < kStaleFall * std::abs(r->F0);
    }
  }
  return false;
}

}  // namespace

RowsAtStart Driver::measure_optimality(const ApproximateProblem& problem, double V0,
                                       CycleRecord& rec) {
  OptimalityInput in;
  in.x = x0_;
  study_.variable_bounds(in.lower, in.upper);
  // The approximation is exact in value and gradient at b0: these are the true gradients.
  in.objective_gradient = problem.objective_gradient(x0_);
  in.row_values = problem.row_values(x0_, &in.row_jacobian);
  in.objective = problem.objective(x0_);
  // The residual's floor takes the first feasible b0's slope as its reference: an infeasible
  // start far out makes every later slope look like zero against its own (HS 49 from a
  // 1000-fold violation: 7.6e6 there, 0.70 at f = 0.19, where the run said `converged`; f* = 0).
  // Until a feasible b0, the first measured one's, as convergence needs a feasible b0 anyway.
  // A first feasible b0 that a step from an infeasible one reached at a stationary point has no
  // slope to speak of (differences' noise: 2e-8 where the last b0's was 41 and F is 4.5, on a
  // convex quadratic whose bound went inactive), and with it as the reference the residual stays
  // 1 for ever (D <= reference): the reference is then kStationaryShare of the last b0's slope
  // at least. Stationary: its slope below kStationaryShare of both the last b0's and |F| (HS 57's
  // exponentials fall 20 orders in one step, to a slope 75 times |F|: no stationary point).
  // The merit's scale (the penalty's floor, the curvature's cap) keeps the first measured b0's.
  const double slope =
      scaled_gradient_norm(in.objective_gradient, variable_sizes(in.x, in.lower, in.upper));
  if (merit_.start_reference == 0.0) merit_.start_reference = slope;
  const bool first_feasible = !merit_.reference_feasible && V0 <= noisy_.vioacc;
  if (merit_.gradient_reference == 0.0 || first_feasible ||
      (merit_.reference_feasible && V0 <= noisy_.vioacc &&
       noisy_.strategy == Strategy::kTrustRegion && stale_reference(summary_.history))) {
    if (slope > 0.0) {
      const bool stationary = slope < kStationaryShare * std::abs(in.objective);
      merit_.gradient_reference = first_feasible && stationary
                                      ? std::max(slope, kStationaryShare * merit_.last_slope)
                                      : slope;
      merit_.reference_feasible = V0 <= noisy_.vioacc;
    }
  }
  merit_.last_slope = slope;
  in.reference = merit_.gradient_reference;
  merit_.merit_scale = residual_normaliser(
      slope, in.objective, merit_.start_reference > 0.0 ? merit_.start_reference : slope);
  in.active_tolerance = std::max(1e-3, noisy_.vioacc / 100.0);
  optimality_ = first_order_optimality(in);
  optimality_cycle_ = rec.cycle;
  if (!optimality_.computed) {
    spdlog::warn("cycle {}: first-order optimality not measured: {}", rec.cycle,
                 optimality_.message);
    return {std::move(in.row_values), std::move(in.row_jacobian), std::move(in.objective_gradient)};
  }
  // Complementarity: a multiplier on a row that is not quite active counts in the residual.
  const double D = optimality_.normaliser;
  double sum = 0.0;
  for (size_t a = 0; a < optimality_.active_rows.size(); ++a) {
    const double lambda = optimality_.multipliers[a];
    sum += lambda;
    const double slack = std::abs(in.row_values(optimality_.active_rows[a]));
    if (D > 0.0) optimality_.residual = std::max(optimality_.residual, lambda * slack / D);
  }
  rec.kkt_residual = optimality_.residual;
  // What result.json reports (names, not indices: the rows change from cycle to cycle).
  FinalOptimality& f = summary_.optimality;
  const auto names = variable_names(study_);
  f.computed = true;
  f.residual = optimality_.residual;
  f.tolerance = noisy_.kkt_tolerance;
  f.cycle = rec.cycle;
  f.constraints.clear();
  for (size_t a = 0; a < optimality_.active_rows.size(); ++a) {
    const int r = optimality_.active_rows[a];
    f.constraints.push_back({row_name(study_, problem.rows[r]), problem.rows[r].point,
                             in.row_values(r), optimality_.multipliers[a]});
  }
  f.at_lower.clear();
  f.at_upper.clear();
  for (int i : optimality_.at_lower) f.at_lower.push_back(names[i]);
  for (int i : optimality_.at_upper) f.at_upper.push_back(names[i]);
  // The exact penalty needs mu above the sum of the multipliers (twice it, for a margin). The
  // floor, a share of the merit's scale (D against the first b0's slope: the units of F), penalises
  // violation before any multiplier is known; it is small so that it does not outweigh the
  // multipliers: a penalty far above them judges the second-order violation of each step along an
  // active constraint as a loss and keeps the region small (the truck study crept at ratios of
  // 0.2-0.7 with mu = D). The multipliers of designs before the first feasible b0 are forgotten
  // there: measured far from the feasible set they say nothing of the optimum's (HS 93 from a
  // random start at a violation of 100 %: mu = 3.3e4 from the start on, against 420 at the
  // optimum, and every step along its curved active constraint judged by its second-order
  // violation, to the cycle limit).
  if (!merit_.penalty_feasible && V0 <= noisy_.vioacc) {
    merit_.penalty_feasible = true;
    merit_.penalty = 0.0;
  }
  merit_.penalty = std::max({merit_.penalty, 2.0 * sum, kPenaltyFloor * merit_.merit_scale});
  spdlog::debug(
      "cycle {}: first-order residual at b0 {:.3g} ({} active rows, penalty {:.3g}; F {:.3g}, "
      "slope {:.3g}, normaliser {:.3g})",
      rec.cycle, optimality_.residual, optimality_.active_rows.size(), merit_.penalty, in.objective,
      optimality_.gradient_scale, D);
  return {std::move(in.row_values), std::move(in.row_jacobian), std::move(in.objective_gradient)};
}

void Driver::learn_lagrangian_curvature(ApproximateProblem& problem, const RowsAtStart& rows) {
  if (!noisy_.lagrangian_curvature || noisy_.strategy != Strategy::kTrustRegion ||
      !optimality_.computed) {
    return;
  }
  // A secant cycle's gradients are the last approximation's: no pair to learn from.
  if (!secant_cycle_) {
    lagrangian_.update(problem, rows, optimality_, noisy_.max_curvature * merit_.merit_scale);
  }
  problem.curvature = lagrangian_.matrix();
}

bool Driver::near_first_order() const {
  return !optimality_.computed || optimality_.residual <= kSecantConfirm * noisy_.kkt_tolerance;
}

bool Driver::converged_at_b0(double V0, CycleRecord& rec) {
  if (!strategy_->converged_at_b0(noisy_, optimality_, V0)) return false;
  converge_at_b0(V0,
                 "b0 satisfies the first-order conditions (residual " +
                     three_digits(optimality_.residual) + ")",
                 rec);
  return true;
}

void Driver::converge_at_b0(double V0, const std::string& message, CycleRecord& rec) {
  rec.converged = true;
  rec.x_opt = x0_;
  rec.F_opt = rec.F_approx = rec.F0;
  rec.V = V0;
  rec.next_factors = factors_;
  rec.actions.assign(study_.n_design(), MoveAction::kConverged);
  rec.analyses = summary_.analyses;
  rec.message = message;
}

std::optional<Driver::DifferenceDoubt> Driver::difference_doubt(const ApproximateProblem& problem,
                                                                const CycleRecord& rec) const {
  if (!noisy_.central_differences_to_confirm || !optimality_.computed ||
      raisable_differences(rec) != DifferenceOrder::kForward) {
    return std::nullopt;
  }
  // The relative step of the forward differences that gave the cycle's gradients at b0 (the
  // largest over the load cases).
  const auto at_b0 = gradients_.find(design_key(study_, rec.x0));
  if (at_b0 == gradients_.end()) return std::nullopt;
  DifferenceDoubt doubt;
  for (const CaseResult& c : at_b0->second.cases) {
    if (by_forward_differences(c.gradient_method)) {
      doubt.step = std::max(doubt.step, c.difference_step);
    }
  }
  if (!(doubt.step > 0.0)) return std::nullopt;
  DifferenceErrorInput in;
  in.problem = &problem;
  in.x = rec.x0;  // the cycle's b0 (an accepted step has moved x0_ on)
  in.n_design = study_.n_design();
  study_.variable_bounds(in.lower, in.upper);
  in.relative_step = doubt.step;
  in.at_x = &optimality_;
  in.curvature = lagrangian_.matrix();
  doubt.hidden = hidden_improvement(in);
  doubt.allowed = noisy_.kkt_tolerance * optimality_.normaliser;
  spdlog::debug(
      "cycle {}: forward differences of relative step {:g} may hide an improvement of {:.3g} "
      "(kkt_tolerance D = {:.3g})",
      rec.cycle, doubt.step, doubt.hidden, doubt.allowed);
  return doubt;
}

void Driver::doubt_progress(const ApproximateProblem& problem, double predicted, double V0,
                            CycleRecord& rec) {
  if (rec.relaxed || V0 > noisy_.vioacc) return;
  if (factors_.size() == 0 || factors_.maxCoeff() > kSmallRegion) return;
  const std::optional<DifferenceDoubt> doubt = difference_doubt(problem, rec);
  if (!doubt || !(doubt->hidden > doubt->allowed) || !(doubt->hidden > std::abs(predicted))) {
    return;
  }
  const std::string why = fmt::format(
      "the error of its forward differences (relative step {:g}) may hide an improvement {:.3g} "
      "times the gain its subproblem predicted, in a region within {:g} % of the ranges: central "
      "differences from here on",
      doubt->step, doubt->hidden / std::max(std::abs(predicted), doubt->allowed),
      100.0 * kSmallRegion);
  rec.message += (rec.message.empty() ? "" : "; ") + why;
  begin_differences(rec.cycle, DifferenceOrder::kCentral,
                    "forward differences' error outweighed the predicted gain of cycle " +
                        std::to_string(rec.cycle));
  spdlog::info("cycle {}: {}", rec.cycle, why);
}

void Driver::doubt_convergence(const ApproximateProblem& problem, CycleRecord& rec) {
  const std::optional<DifferenceDoubt> doubt = difference_doubt(problem, rec);
  if (!doubt || !(doubt->hidden > doubt->allowed)) return;
  const double step = doubt->step, hidden = doubt->hidden, allowed = doubt->allowed;
  rec.converged = false;
  for (MoveAction& a : rec.actions) {
    if (a == MoveAction::kConverged) a = MoveAction::kKept;
  }
  rec.message += fmt::format(
      "; not converged: the error of its forward differences (relative step {:g}) may hide an "
      "improvement {:.3g} times what kkt_tolerance allows; central differences from here on",
      step, hidden / allowed);
  begin_differences(rec.cycle, DifferenceOrder::kCentral,
                    "forward differences could not confirm the convergence of cycle " +
                        std::to_string(rec.cycle));
  spdlog::info("cycle {}: {}", rec.cycle, rec.message);
}

void Driver::log_subproblem(const ApproximateProblem& problem, const SubproblemResult& sub,
                            const Eigen::VectorXd& x_opt, CycleRecord& rec) const {
  const int n = study_.n_design();
  const double step = (x_opt - x0_).head(n).cwiseAbs().maxCoeff();
  if (spdlog::should_log(spdlog::level::debug)) {
    std::string active;
    if (!problem.rows.empty()) {
      const Eigen::VectorXd g = problem.row_values(x_opt);
      for (size_t r = 0; r < problem.rows.size(); ++r) {
        if (g(static_cast<Eigen::Index>(r)) < -1e-6) continue;
        active += (active.empty() ? "" : ", ") + row_name(study_, problem.rows[r]);
      }
    }
    spdlog::debug(
        "cycle {}: subproblem {} {}{}, F~ = {:.6g}, step max |b* - b0| = {:.3g}, "
        "active rows: {}",
        rec.cycle, sub.solver, to_string(sub.status),
        sub.status == SubproblemStatus::kRelaxed
            ? " (least violation " + three_digits(sub.relaxation) + ")"
            : std::string(),
        sub.objective, step, active.empty() ? "none" : active);
  }
  if (step == 0.0) {
    rec.message =
        "the subproblem (" + sub.solver + ", " + to_string(sub.status) + ") proposed b0 again";
    spdlog::warn("cycle {}: {}", rec.cycle, rec.message);
  }
}

std::string Driver::describe_optimality() const {
  if (!optimality_.computed) return "first-order optimality not measured";
  std::string text = "first-order residual " + three_digits(optimality_.residual) +
                     " (kkt_tolerance " + three_digits(noisy_.kkt_tolerance) +
                     ") at the start of cycle " + std::to_string(optimality_cycle_);
  // At most kListed names per kind: a history active at hundreds of points would otherwise
  // fill the message (result.json's `optimality` lists them all).
  constexpr size_t kListed = 8;
  auto list = [&](const char* what, const std::vector<std::string>& names) {
    if (names.empty()) return;
    text += std::string("; ") + what + ": ";
    for (size_t i = 0; i < std::min(names.size(), kListed); ++i) text += (i ? ", " : "") + names[i];
    if (names.size() > kListed)
      text += " and " + std::to_string(names.size() - kListed) + " more (result.json: optimality)";
  };
  const FinalOptimality& f = summary_.optimality;
  std::vector<std::string> rows;
  for (const auto& a : f.constraints) {
    rows.push_back(a.name + " (multiplier " + three_digits(a.multiplier) + ")");
  }
  list("active constraints", rows);
  list("on lower bounds", f.at_lower);
  list("on upper bounds", f.at_upper);
  list("on move limits", f.on_move_limit);
  return text;
}

}  // namespace sao
