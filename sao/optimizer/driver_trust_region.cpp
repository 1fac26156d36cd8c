// The driver's trust-region strategy and honest termination (issue 17): the first-order
// optimality at each cycle's b0, the merit judgement of b*, the subproblem's debug log and
// the words a stalled run ends with. The cycle itself is in driver.cpp.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "sao/optimizer/cycle_record_json.hpp"
#include "sao/optimizer/driver.hpp"
#include "sao/optimizer/trust_region.hpp"

namespace sao {
namespace {

// With a non-binding subregion that offers no improvement, the residual may exceed
// kkt_tolerance by this factor (rows counted as active within active_tolerance).
constexpr double kModelTolerance = 10.0;

std::string row_name(const Study& study, const RetainedRow& row) {
  const Constraint& c = study.constraints[row.constraint];
  return c.g.time_dependent() ? c.name + "[" + std::to_string(row.point) + "]" : c.name;
}

std::string short_number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

}  // namespace

void Driver::measure_optimality(const ApproximateProblem& problem, CycleRecord& rec) {
  OptimalityInput in;
  in.x = x0_;
  study_.variable_bounds(in.lower, in.upper);
  // The approximation is exact in value and gradient at b0: these are the true gradients.
  in.objective_gradient = problem.objective_gradient(x0_);
  in.row_values = problem.row_values(x0_, &in.row_jacobian);
  in.reference = gradient_reference_;
  in.objective = problem.objective(x0_);
  in.active_tolerance = std::max(1e-3, noisy_.vioacc / 100.0);
  optimality_ = first_order_optimality(in);
  optimality_cycle_ = rec.cycle;
  if (!optimality_.computed) {
    spdlog::warn("cycle {}: first-order optimality not measured: {}", rec.cycle,
                 optimality_.message);
    return;
  }
  if (gradient_reference_ == 0.0) gradient_reference_ = optimality_.gradient_scale;
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
  // floor, a share of D (the units of F), penalises violation before any multiplier is known;
  // it is small so that it does not outweigh the multipliers: a penalty far above them judges
  // the second-order violation of each step along an active constraint as a loss and keeps the
  // region small (the truck study crept at ratios of 0.2-0.7 with mu = D).
  penalty_ = std::max({penalty_, 2.0 * sum, kPenaltyFloor * D});
  spdlog::debug("cycle {}: first-order residual at b0 {:.3g} ({} active rows, penalty {:.3g})",
                rec.cycle, optimality_.residual, optimality_.active_rows.size(), penalty_);
}

bool Driver::converged_at_b0(double V0, CycleRecord& rec) {
  if (noisy_.strategy == Strategy::kSeed || !optimality_.computed || V0 > noisy_.vioacc ||
      optimality_.residual > noisy_.kkt_tolerance) {
    return false;
  }
  rec.converged = true;
  rec.x_opt = x0_;
  rec.F_opt = rec.F_approx = rec.F0;
  rec.V = V0;
  rec.next_factors = factors_;
  rec.actions.assign(study_.n_design(), MoveAction::kConverged);
  rec.analyses = summary_.analyses;
  rec.message = "b0 satisfies the first-order conditions (residual " +
                short_number(optimality_.residual) + ")";
  return true;
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
            ? " (least violation " + short_number(sub.relaxation) + ")"
            : std::string(),
        sub.objective, step, active.empty() ? "none" : active);
  }
  if (step == 0.0) {
    rec.message =
        "the subproblem (" + sub.solver + ", " + to_string(sub.status) + ") proposed b0 again";
    spdlog::warn("cycle {}: {}", rec.cycle, rec.message);
  }
}

void Driver::judge_trust_region(const ApproximateProblem& problem, const SubproblemResult& sub,
                                Eigen::VectorXd& x_opt, CycleFacts& facts, CycleRecord& rec) {
  const int n = study_.n_design();
  const double h0 = std::max(0.0, facts.V0 / 100.0);
  const double h_pred =
      problem.rows.empty() ? 0.0 : std::max(0.0, problem.row_values(x_opt).maxCoeff());
  const Eigen::VectorXd b0 = x0_.head(n);
  const Evaluation* e_opt = analyse_proposal(problem, sub.objective, x_opt, facts, rec);
  if (!e_opt) return;
  // b*'s violation in the units of b0's rows: a constraint bounded by an auxiliary (the bound
  // formulation, g <= b7) is normalised by the auxiliary's value; measured each at its own
  // design, the violations of b0 and b* differ by the ratio of the two values (a factor 1e4
  // when phase 1 sets b7 from 0 to 5e-5), and actual / predicted improvement says nothing.
  const double V_opt = max_violation(study_, x_opt, ExactResponses(study_, *e_opt), &x0_);
  const double h_opt = std::max(0.0, V_opt / 100.0);
  TrustRegionFacts t;
  t.phase1 = sub.status == SubproblemStatus::kRelaxed;
  if (t.phase1) {
    t.actual = h0 - h_opt;
    t.predicted = h0 - h_pred;
  } else {
    t.actual = (facts.F0 - facts.Fopt) + penalty_ * (h0 - h_opt);
    t.predicted = (facts.F0 - sub.objective) + penalty_ * (h0 - h_pred);
  }
  t.beyond_violation_limit = !t.phase1 && V_opt > std::max(noisy_.viomax, facts.V0);
  t.move_limit_active = facts.move_limit_active;
  // A factor grows on its move limit unless a bound held the step: a variable resting on a
  // bound and pressing away from it must be able to leave it again (with bound_active, its
  // factor could only shrink: 1e-18 on the linked suspension, issue 24).
  t.held_by_bound = facts.held_by_bound;
  t.used.resize(n);
  Eigen::VectorXd half(n);
  for (int i = 0; i < n; ++i) {
    half(i) = move_half_width(study_.design[i], factors_(i), b0(i), true);
    t.used(i) = half(i) > 0.0 ? std::min(1.0, std::abs(facts.delta_b(i)) / half(i)) : 1.0;
  }
  if (previous_ && !t.phase1) t.reversed = reversed_steps(previous_->delta_b, facts.delta_b, half);
  const TrustRegionDecision d = decide_trust_region(noisy_, t, factors_);
  rec.accepted = d.accept;
  rec.ratio = d.ratio;
  rec.E = std::max(facts.Ef, facts.Eg);
  rec.Fchg = std::abs(facts.Fopt - facts.F0) / std::max(std::abs(facts.F0), 1e-300) * 100.0;
  rec.next_factors = d.factors;
  rec.actions = d.actions;
  factors_ = d.factors;
  const double scale = std::abs(facts.F0) + penalty_ + 1e-300;
  if (!(t.predicted > 1e-12 * scale) && !t.phase1) {
    // No design of the subregion is predicted to be better than b0. The approximations are
    // exact in value and gradient at b0, so when the subregion did not hold the step back
    // (the "non-binding subregion") and the residual is near its tolerance (the
    // multiplier estimate counts rows within active_tolerance of their bound), b0 is a
    // first-order point as far as its gradients tell: converged if b0 is feasible. Otherwise
    // the step is rejected like any other; the region shrinks until min_move_limit.
    const bool free = std::none_of(facts.move_limit_active.begin(), facts.move_limit_active.end(),
                                   [](bool a) { return a; });
    if (free && facts.V0 <= noisy_.vioacc && optimality_.computed &&
        optimality_.residual <= kModelTolerance * noisy_.kkt_tolerance) {
      rec.converged = true;
      rec.message = "no design of the subregion improves on b0 (first-order residual " +
                    short_number(optimality_.residual) + ")";
    }
  }
  spdlog::debug("cycle {}: {} step, actual / predicted improvement {:.4g} / {:.4g} = {:.3g}: {}{}",
                rec.cycle, t.phase1 ? "feasibility" : "merit", t.actual, t.predicted, d.ratio,
                d.accept ? "accepted" : "rejected",
                t.beyond_violation_limit ? " (violation beyond viomax and b0's)" : "");
  if (d.accept) {
    previous_ = PreviousCycle{facts.Fopt - facts.F0, facts.delta_b, facts.V};
    x0_ = x_opt;
  }
  remember_rejection(d.accept, x_opt, *e_opt);
}

std::string Driver::describe_optimality() const {
  if (!optimality_.computed) return "first-order optimality not measured";
  std::string text = "first-order residual " + short_number(optimality_.residual) +
                     " (kkt_tolerance " + short_number(noisy_.kkt_tolerance) +
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
    rows.push_back(a.name + " (multiplier " + short_number(a.multiplier) + ")");
  }
  list("active constraints", rows);
  list("on lower bounds", f.at_lower);
  list("on upper bounds", f.at_upper);
  list("on move limits", f.on_move_limit);
  return text;
}

}  // namespace sao
