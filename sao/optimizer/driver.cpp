#include "sao/optimizer/driver.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "sao/optimizer/approximation.hpp"
#include "sao/optimizer/approximation_forms.hpp"
#include "sao/optimizer/discrete.hpp"
#include "sao/optimizer/metamodel_responses.hpp"
#include "sao/optimizer/metamodel_strategy.hpp"
#include "sao/optimizer/multipoint.hpp"
#include "sao/optimizer/reliability_margins.hpp"
#include "sao/optimizer/screening.hpp"
#include "sao/study/criteria.hpp"
#include "sao/study/study_loader.hpp"

namespace sao {
namespace {

bool uses_responses(const Criterion& c) {
  return c.program->uses_responses();
}

}  // namespace

const char* to_string(RunStatus status) {
  switch (status) {
    case RunStatus::kRunning:
      return "running";
    case RunStatus::kConverged:
      return "converged";
    case RunStatus::kCycleLimit:
      return "cycle_limit";
    case RunStatus::kInfeasible:
      return "infeasible";
    case RunStatus::kFailed:
      return "failed";
    case RunStatus::kStalled:
      return "stalled";
  }
  return "?";
}

const char* cycle_outcome(const CycleRecord& r) {
  if (r.x_opt.size() == 0) return "failed";
  if (r.converged) return "converged";
  return r.accepted ? "accepted" : "rejected";
}

Eigen::VectorXd design_after(const CycleRecord& last) {
  return last.accepted && last.x_opt.size() > 0 ? last.x_opt : last.x0;
}

Driver::Driver(const Study& study, Simulator& simulator, const Options& options)
    : study_(study),
      simulator_(simulator),
      options_(options),
      noisy_(options.with_noise_applied()),
      strategy_(&move_limit_strategy(noisy_.strategy)) {
  require_single_objective(study, study.file.empty() ? "<study>" : study.file);
}

void Driver::repair_auxiliaries(Eigen::VectorXd& x, const ResponseModel& exact) const {
  // Each auxiliary that bounds constraints (b3 >= max |acc(t)|) is set to the largest value
  // it bounds at x (with_bounded_maxima), within its own bounds: the analysed objective is then
  // the real maximum and the bound constraints hold exactly, so V measures only the real
  // constraints. The other auxiliaries keep the subproblem's values, which lie inside their
  // bounds already (the subregion keeps them there).
  x = with_bounded_maxima(study_, x, exact);
  for (int a = 0; a < study_.n_aux(); ++a) {
    const AuxiliaryVariable& v = study_.auxiliaries[a];
    x(study_.n_design() + a) = std::clamp(x(study_.n_design() + a), v.lower, v.upper);
  }
}

double Driver::reported_violation() const {
  const Evaluation& e = values_.at(design_key(study_, x0_));
  const ExactResponses exact(study_, e);
  return max_violation(study_, as_reported(x0_, exact), exact);
}

double Driver::violation(const Eigen::VectorXd& x, const Evaluation& evaluation) const {
  return max_violation(study_, x, ExactResponses(study_, evaluation));
}

void Driver::finish(RunStatus status, const std::string& message) {
  summary_.optimality.at_final_design =
      summary_.optimality.computed && summary_.history.size() > 0 &&
      summary_.history.back().cycle == summary_.optimality.cycle &&
      summary_.history.back().x0 == x0_;
  summary_.status = status;
  summary_.message = message;
  summary_.x = x0_;
  summary_.cycles = static_cast<int>(summary_.history.size());
  const std::vector<double> key = design_key(study_, x0_);
  auto it = values_.find(key);
  if (it != values_.end()) {
    const ExactResponses exact(study_, it->second);
    // A converged run reports the design it converged at as it is; one that ends short of
    // convergence reports its design as analysed (report_best_analysed may replace it).
    if (reports_best_analysed(status)) summary_.x = as_reported(x0_, exact);
    summary_.objective =
        user_objective(study_, criterion_value(study_, study_.objective.f, 0, summary_.x, exact));
    summary_.max_violation = max_violation(study_, summary_.x, exact);
  }
  if (reports_best_analysed(status)) report_best_analysed();
  if (status != RunStatus::kFailed && has_discrete(study_)) round_to_allowed();
  if (!summary_.reliability.empty()) note_reliability();
  if (status == RunStatus::kFailed) {
    spdlog::error("{}", message);
  } else {
    spdlog::debug("run ended: {}: {}", to_string(status), message);
  }
}

void Driver::start() {
  started_ = true;
  const int n = study_.n_design();
  x0_.resize(study_.n_total());
  factors_.resize(n);
  direction_.resize(n);
  for (int i = 0; i < n; ++i) {
    x0_(i) = study_.design[i].initial;
    factors_(i) = study_.design[i].move_factor;
    direction_(i) = study_.design[i].direction;
  }
  for (int a = 0; a < study_.n_aux(); ++a) x0_(n + a) = study_.auxiliaries[a].initial;
  if (pending_factors_.size() == n) factors_ = pending_factors_;
  analyse_start();
}

void Driver::analyse_start() {
  const Evaluation* e = analyse(x0_, {});
  if (!e) {
    finish(RunStatus::kFailed, "analysis of the start design failed: " + last_failure_);
    return;
  }
  const ExactResponses exact(study_, *e);
  unsized_ = strategy_->prepare(study_, x0_, exact);
  // The start as it is: with the bound formulation's auxiliaries at the maxima they bound, not
  // at their initial guesses (which only seed the first subproblem).
  summary_.set_start(study_, x0_, exact);
}

const RunSummary& Driver::run(const std::function<void(const CycleRecord&)>& on_cycle) {
  if (!started_) start();
  while (!finished()) {
    const CycleRecord& record = step();
    if (on_cycle) on_cycle(record);
  }
  return summary_;
}

const CycleRecord& Driver::fail_cycle(CycleRecord& record, const std::string& message) {
  record.message = message;
  summary_.history.push_back(record);
  finish(RunStatus::kFailed, message);
  return summary_.history.back();
}

bool Driver::fit_plan_points(ApproximateProblem& problem, const Evaluation& e0, CycleRecord& rec,
                             Evaluation& fitted, std::string& failure) {
  const int n = study_.n_design();
  const Eigen::VectorXd b0 = x0_.head(n);
  std::vector<Eigen::VectorXd> plan;
  try {
    for (const Eigen::VectorXd& p :
         plan_points(b0, problem.lower.head(n), problem.upper.head(n), direction_)) {
      Eigen::VectorXd x = x0_;
      x.head(n) = p;
      plan.push_back(x);
    }
  } catch (const std::invalid_argument& e) {
    failure = e.what();
    return false;
  }
  // A plan point whose analysis fails is replaced by the point halfway to b0, at most twice:
  // the fit needs its n points, and a code that fails there often runs closer to b0.
  constexpr int kPlanRetries = 2;
  for (int attempt = 0;; ++attempt) {
    const std::vector<const Evaluation*> results = analyse_batch(plan, {});
    std::vector<size_t> failed;
    for (size_t i = 0; i < results.size(); ++i) {
      if (!results[i]) failed.push_back(i);
    }
    if (failed.empty()) break;
    if (attempt == kPlanRetries) {
      failure = "analysis of a plan point failed (also after " + std::to_string(kPlanRetries) +
                " retries halfway to b0): " + last_failure_;
      return false;
    }
    for (size_t i : failed) {
      spdlog::warn("cycle {}: plan point {} failed; retrying halfway to b0", rec.cycle, i + 1);
      plan[i].head(n) = b0 + 0.5 * (plan[i].head(n) - b0);
    }
  }
  // The approximation is exact at the plan points (interpolation) or close to them (least
  // squares): the subproblem's local solver starts there too, not only at b0.
  problem.starts = plan;
  // Interpolation: b0 and the plan points. Least squares: also every earlier analysis near
  // the subregion, with the re-use rule of multipoint.hpp (ReuseRule).
  std::vector<Eigen::VectorXd> designs{b0};
  std::vector<const Evaluation*> analyses{&e0};
  std::vector<double> weights{1.0};
  std::set<std::vector<double>> fitted_keys{design_key(study_, x0_)};
  for (const Eigen::VectorXd& p : plan) {
    const std::vector<double> key = design_key(study_, p);
    if (!fitted_keys.insert(key).second) continue;
    designs.push_back(p.head(n));
    analyses.push_back(&values_.at(key));
    weights.push_back(1.0);
  }
  ReuseRule rule;
  if (noisy_.fit == FitMethod::kLeastSquares) {
    rule.plan_points = static_cast<int>(designs.size()) - 1;
    // The noise as a standard deviation: the user's N % is a band of +-2 sigma; without it,
    // the residual RMS of the last fit (noise_from_data); else unknown (0).
    if (noisy_.noise > 0.0) {
      rule.noise = noisy_.noise / 200.0;
    } else if (noisy_.noise_from_data && last_noise_estimate_ > 0.0) {
      rule.noise = last_noise_estimate_ / 100.0;
    }
    for (const auto& [key, e] : values_) {
      if (fitted_keys.count(key)) continue;
      const Eigen::VectorXd b = Eigen::Map<const Eigen::VectorXd>(key.data(), n);
      const double w =
          reuse_weight(b, problem.lower.head(n), problem.upper.head(n), noisy_.reuse_radius);
      if (w <= 0.0) continue;
      designs.push_back(b);
      analyses.push_back(&e);
      weights.push_back(w);
    }
  }
  // Fit in the intermediate variables b' = phi(b), so that a response linear in b' is
  // reproduced exactly; slopes are turned back into dr/db at b0 for LinearApproximation.
  auto to_intermediate = [&](const Eigen::VectorXd& b) {
    Eigen::VectorXd out(n);
    for (int k = 0; k < n; ++k) out(k) = study_.design[k].intermediate.value(b(k));
    return out;
  };
  for (auto& d : designs) d = to_intermediate(d);
  try {
    fitted = fit_evaluation(designs, analyses,
                            Eigen::Map<Eigen::VectorXd>(weights.data(), weights.size()),
                            to_intermediate(b0), rec.noise_estimate, rule);
    if (rec.noise_estimate > 0.0) last_noise_estimate_ = rec.noise_estimate;
    for (auto& c : fitted.cases) {
      for (auto& [name, g] : c.gradients) {
        for (int k = 0; k < n; ++k) g.col(k) *= study_.design[k].intermediate.slope(b0(k));
      }
    }
  } catch (const std::invalid_argument& e) {
    failure = std::string("multi-point fit: ") + e.what();
    return false;
  }
  rec.fit_points = static_cast<int>(designs.size());
  return true;
}

// One cycle: screen at b0, build the approximation inside the subregion, solve the
// subproblem, then analyse b* and let the move-limit strategy judge the step.
const CycleRecord& Driver::step() {
  if (!started_) start();
  if (finished()) {
    no_cycle_.message = summary_.message;
    return no_cycle_;
  }
  CycleRecord rec;
  rec.cycle = cycle_offset_ + static_cast<int>(summary_.history.size()) + 1;
  rec.x0 = x0_;
  rec.factors = factors_;
  const Evaluation& e0 = values_.at(design_key(study_, x0_));
  const ExactResponses exact0(study_, e0);
  const double F0 = criterion_value(study_, study_.objective.f, 0, x0_, exact0);
  rec.F0 = user_objective(study_, F0);

  std::vector<DerivativeRequest> derivatives;
  ApproximateProblem problem = screened_problem(exact0, rec, derivatives);
  const bool approximated = !derivatives.empty();
  std::unique_ptr<Approximation> approximation;
  Evaluation fitted;
  std::string failure;
  const MeritState merit = merit_;
  if (!approximate(problem, e0, exact0, derivatives, rec, approximation, fitted, failure, true)) {
    return fail_cycle(rec, failure);
  }
  if (!size_and_margin(problem, approximated, rec, failure)) return fail_cycle(rec, failure);

  // First-order optimality at b0 (gradients exist unless multi-point): with the trust-region
  // strategy a feasible b0 that satisfies it ends the run, before any further analysis.
  const double V0 = violation(x0_, e0);
  if (noisy_.approximation != ApproximationSource::kMultipoint && !metamodel_strategy()) {
    RowsAtStart rows = measure_optimality(problem, V0, rec);
    if (secant_cycle_ && near_first_order()) {
      // The secant's gradients are a model's: a b0 they call (nearly) first-order is measured.
      merit_ = merit;
      if (!approximate(problem, e0, exact0, derivatives, rec, approximation, fitted, failure,
                       false)) {
        return fail_cycle(rec, failure);
      }
      rows = measure_optimality(problem, V0, rec);
    }
    if (converged_at_b0(V0, rec)) {
      doubt_convergence(problem, rec);
      return close_cycle(rec);
    }
    learn_lagrangian_curvature(problem, rows);
  }

  // Subproblem inside the subregion: an LP unless an intermediate variable or a nonlinear
  // explicit relation makes it nonlinear.
  problem.linear = linear_problem(study_, problem.rows) && linear_form(study_, noisy_) &&
                   problem.curvature.size() == 0;
  SubproblemResult sub =
      metamodel_strategy() && noisy_.infill == Infill::kExpectedImprovement && approximated
          ? propose_by_infill(problem, rec)
          : solve_subproblem(problem, noisy_);
  if (sub.status == SubproblemStatus::kOptimal && !problem.linear && !metamodel_strategy()) {
    retry_from_descent(problem, sub);
  }
  rec.subproblem = to_string(sub.status);
  rec.relaxed = sub.status == SubproblemStatus::kRelaxed;
  if (sub.status == SubproblemStatus::kFailed) {
    return fail_cycle(rec, "subproblem of cycle " + std::to_string(rec.cycle) + ": " + sub.message);
  }
  Eigen::VectorXd x_opt = sub.x.cwiseMax(problem.lower).cwiseMin(problem.upper);
  // The metamodel strategy analyses allowed designs only: the proposal's best allowed
  // neighbour on the metamodel (the other strategies round once, at the end: finish()).
  if (metamodel_strategy() && has_discrete(study_)) x_opt = allowed_proposal(problem, x_opt);
  rec.x_opt = x_opt;
  // The objective's approximation (without the Lagrangian's curvature term).
  const double F_approx =
      problem.curvature.size() == 0 ? sub.objective : problem.approximate_objective(sub.x);
  rec.F_approx = user_objective(study_, F_approx);
  log_subproblem(problem, sub, x_opt, rec);

  CycleFacts facts = active_limits(problem, x_opt, rec);
  summary_.optimality.on_move_limit.clear();
  for (int i = 0; i < study_.n_design(); ++i) {
    if (facts.move_limit_active[i])
      summary_.optimality.on_move_limit.push_back(study_.design[i].name);
  }
  facts.F0 = F0;
  facts.V0 = V0;
  facts.approximated = approximated;
  if (noisy_.approximation == ApproximationSource::kMultipoint) {
    const int n = study_.n_design();
    direction_ =
        next_direction(x_opt.head(n), problem.lower.head(n), problem.upper.head(n), direction_);
  }
  judge(problem, sub, F_approx, x_opt, facts, rec);
  keep_approximation(std::move(approximation), std::move(secant_owned_));
  if (rec.converged) {
    doubt_convergence(problem, rec);
  } else {
    doubt_progress(problem, F0 - F_approx, V0, rec);
  }
  return close_cycle(rec);
}

const CycleRecord& Driver::close_cycle(const CycleRecord& rec) {
  summary_.history.push_back(rec);
  summary_.cycles = static_cast<int>(summary_.history.size());
  end_run_if_done(rec);
  return summary_.history.back();
}

ApproximateProblem Driver::screened_problem(const ExactResponses& exact0, CycleRecord& rec,
                                            std::vector<DerivativeRequest>& derivatives) const {
  // Screening and time-point deletion at b0.
  ScreenedStudy screened = screen_study(study_, noisy_, x0_, exact0, violated_by_rejected_);
  ApproximateProblem problem;
  problem.study = &study_;
  problem.x0 = x0_;
  problem.rows = screened.rows;
  rec.retained_constraints = screened.retained_constraints;
  rec.retained_rows = static_cast<int>(problem.rows.size());
  derivatives = std::move(screened.derivatives);

  // The search subregion: local concept (3.20-3.22) or multi-point (3.25-3.27).
  set_subregion(study_, factors_, problem, strategy_->floored_subregion());
  if (noisy_.approximation == ApproximationSource::kMultipoint) {
    multipoint_subregion(study_, x0_, factors_, direction_, noisy_.alpha, problem.lower,
                         problem.upper);
  }
  if (metamodel_strategy()) {
    const int n = study_.n_design();
    Eigen::VectorXd lower(n), upper(n);
    metamodel_region(study_, x0_.head(n), factors_, lower, upper);
    problem.lower.head(n) = lower;
    problem.upper.head(n) = upper;
  }
  return problem;
}

CycleFacts Driver::active_limits(const ApproximateProblem& problem, const Eigen::VectorXd& x_opt,
                                 CycleRecord& rec) const {
  // Move limits and bounds active at b*.
  const int n = study_.n_design();
  CycleFacts facts;
  facts.relax = rec.relaxed;
  facts.delta_b = (x_opt - x0_).head(n);
  facts.move_limit_active.assign(n, false);
  facts.bound_active.assign(n, false);
  facts.held_by_bound.assign(n, false);
  for (int i = 0; i < n; ++i) {
    const DesignVariable& v = study_.design[i];
    const double tol = 1e-9 * std::max(1.0, v.span());
    const bool at_lower = x_opt(i) <= problem.lower(i) + tol;
    const bool at_upper = x_opt(i) >= problem.upper(i) - tol;
    facts.bound_active[i] = x_opt(i) <= v.lower + tol || x_opt(i) >= v.upper - tol;
    const double step = facts.delta_b(i);
    facts.held_by_bound[i] = (step <= 0.0 && at_lower && problem.lower(i) <= v.lower + tol) ||
                             (step >= 0.0 && at_upper && problem.upper(i) >= v.upper - tol);
    facts.move_limit_active[i] = (at_lower && problem.lower(i) > v.lower + tol) ||
                                 (at_upper && problem.upper(i) < v.upper - tol);
    rec.active_move_limits += facts.move_limit_active[i];
  }
  return facts;
}

const Evaluation* Driver::analyse_proposal(const ApproximateProblem& problem, double F_approx,
                                           Eigen::VectorXd& x_opt, CycleFacts& facts,
                                           CycleRecord& rec) {
  // Analyse b* and measure the approximation.
  const Evaluation* e_opt = analyse(x_opt, {});
  rec.analyses = summary_.analyses;
  if (!e_opt) {
    // A failed analysis at b* rejects the cycle: nothing computed so far is lost.
    rec.message = "analysis of b* failed (" + message_headline(last_failure_) +
                  "): cycle rejected, move limits reduced";
    const std::string details = message_details(last_failure_);  // in the log only
    spdlog::warn("cycle {}: {}{}{}", rec.cycle, rec.message, details.empty() ? "" : "\n", details);
    rec.next_factors = factors_ * noisy_.beta1;
    rec.actions.assign(study_.n_design(), MoveAction::kRejected);
    factors_ = rec.next_factors;
    return nullptr;
  }
  // The forms beyond linear learn from b*: curvature (quadratic), conservatism (rho).
  if (const auto* used = dynamic_cast<const Approximation*>(problem.model)) {
    remember(memory_, *used, x_opt, *e_opt, !secant_cycle_);
  }
  const ExactResponses exact_opt(study_, *e_opt);
  if (noisy_.repair_auxiliary) {
    repair_auxiliaries(x_opt, exact_opt);
    rec.x_opt = x_opt;
  }
  const double F_opt = criterion_value(study_, study_.objective.f, 0, x_opt, exact_opt);
  rec.F_opt = user_objective(study_, F_opt);
  facts.Fopt = F_opt;
  facts.Ef = std::abs(F_approx - F_opt) / std::max(std::abs(F_opt), 1e-300) * 100.0;
  if (!uses_responses(study_.objective.f)) facts.Ef = 0.0;
  std::map<int, size_t> predicted;  // constraint -> its entry of rec.predictions
  for (const RetainedRow& r : problem.rows) {
    const Constraint& c = study_.constraints[r.constraint];
    if (!uses_responses(c.g)) continue;
    const double normaliser = constraint_normaliser(study_, c, x_opt);
    const double diff = criterion_value(study_, c.g, r.point, x_opt, *problem.model) -
                        criterion_value(study_, c.g, r.point, x_opt, exact_opt);
    facts.Eg = std::max(facts.Eg, std::abs(diff) / normaliser * 100.0);
    const CycleRecord::Prediction p{
        c.name, r.point,
        100.0 * normalised_constraint(study_, c, r.point, x_opt, *problem.model, normaliser),
        100.0 * normalised_constraint(study_, c, r.point, x_opt, exact_opt, normaliser)};
    const auto [at, added] = predicted.emplace(r.constraint, rec.predictions.size());
    if (added) {
      rec.predictions.push_back(p);
    } else if (p.computed > rec.predictions[at->second].computed) {
      rec.predictions[at->second] = p;
    }
  }
  facts.V = violation(x_opt, *e_opt);
  rec.Ef = facts.Ef;
  rec.Eg = facts.Eg;
  rec.V = facts.V;
  return e_opt;
}

void Driver::judge(const ApproximateProblem& problem, const SubproblemResult& sub, double F_approx,
                   Eigen::VectorXd& x_opt, CycleFacts& facts, CycleRecord& rec) {
  const Eigen::VectorXd proposed = x_opt;
  const std::string converged = strategy_->converged_on_prediction(
      {noisy_, problem, sub, proposed, facts, optimality_, merit_.penalty});
  if (!converged.empty()) return converge_at_b0(facts.V0, converged, rec);
  const Evaluation* e_opt = analyse_proposal(problem, F_approx, x_opt, facts, rec);
  if (!e_opt) return;
  StepJudgement j = strategy_->judge({study_, options_, noisy_, problem, sub, proposed, x_opt,
                                      *e_opt, facts, factors_, previous_, optimality_,
                                      merit_.penalty, rec.noise_estimate, rec.cycle, std::nullopt});
  if (!j.accept && !j.converged && sub.status == SubproblemStatus::kOptimal) {
    correct_step(problem, x_opt, e_opt, facts, rec, j);
  } else if (j.accept && !j.converged) {
    extend_step(problem, sub, x_opt, e_opt, facts, rec, j);
  }
  rec.accepted = j.accept;
  rec.converged = j.converged;
  rec.ratio = j.ratio;
  rec.E = j.E;
  rec.Fchg = j.Fchg;
  rec.next_factors = j.factors;
  rec.actions = j.actions;
  if (!j.message.empty()) rec.message = j.message;
  factors_ = j.factors;
  if (j.accept) {
    previous_ = PreviousCycle{facts.Fopt - facts.F0, facts.delta_b, facts.V, rec.cycle};
    x0_ = x_opt;
  }
  remember_rejection(j.accept, x_opt, *e_opt);
}

void Driver::remember_rejection(bool accepted, const Eigen::VectorXd& x_opt,
                                const Evaluation& e_opt) {
  if (accepted) {
    // With the trust region, a scalar constraint that a rejected proposal violated stays in the
    // subproblems of the run: screened out again at the next b0, far inside its bound there, it
    // was violated again by the next step (the pressure vessel's thickness limits, every second
    // cycle). A history's points move between designs: they are retained from the same b0 only,
    // and so is everything with the seed's strategy (its tables).
    const bool sticky = noisy_.strategy == Strategy::kTrustRegion;
    for (auto it = violated_by_rejected_.begin(); it != violated_by_rejected_.end();) {
      if (!sticky || study_.constraints[static_cast<size_t>(it->first)].g.time_dependent()) {
        it = violated_by_rejected_.erase(it);
      } else {
        ++it;
      }
    }
    return;
  }
  // Never screen out a constraint the rejected proposal violated: the next subproblem from
  // the same b0 would otherwise propose the same violation again.
  const ExactResponses exact(study_, e_opt);
  for (size_t j = 0; j < study_.constraints.size(); ++j) {
    const Eigen::VectorXd g = normalised_history(study_, study_.constraints[j], x_opt, exact);
    for (Eigen::Index p = 0; p < g.size(); ++p) {
      if (g(p) > 0.0) violated_by_rejected_[static_cast<int>(j)].insert(static_cast<int>(p));
    }
  }
}

void Driver::end_run_if_done(const CycleRecord& rec) {
  if (noisy_.max_failures > 0 && failures_ >= noisy_.max_failures && !rec.converged) {
    finish(RunStatus::kFailed,
           std::to_string(failures_) + " failed analyses (settings.max_failures = " +
               std::to_string(noisy_.max_failures) + "); the last: " + last_failure_);
  } else if (rec.converged) {
    std::string message =
        "converged in " + std::to_string(rec.cycle) + " cycles" + difference_words();
    if (failures_ > 0) {
      // Failed analyses shrink the move limits like rejected steps: the run may have stopped
      // at the edge of a region the simulator cannot analyse rather than at an optimum.
      message += "; " + std::to_string(failures_) +
                 " analyses failed on the way, so the result may be limited by designs the "
                 "simulator could not analyse (last failure: " +
                 message_headline(last_failure_) + ")";
      const std::string details = message_details(last_failure_);  // in the log only
      spdlog::warn("{}{}{}", message, details.empty() ? "" : "\n", details);
    }
    finish(RunStatus::kConverged, message);
  } else if (stalled() && raise_difference_order(rec)) {
    return;
  } else if (stalled()) {
    // A stall at an infeasible design ends "without a feasible design", as the cycle limit does.
    const double v = reported_violation();
    const std::string limits = stall_words();
    if (v > noisy_.vioacc) {
      finish(RunStatus::kInfeasible,
             "no feasible design found: " + limits + " at a design with V = " + std::to_string(v) +
                 " %, the least violation the approximations could reach from there (the "
                 "constraints may have no feasible point within the bounds); " +
                 describe_optimality());
    } else {
      finish(RunStatus::kStalled, limits + difference_words() + "; " + describe_optimality());
    }
  } else if (cycle_offset_ + summary_.cycles >= noisy_.max_cycles) {
    // The cycle limit ends the run whatever the design: its status says so. Where the last
    // accepted design violates a constraint, report_best_analysed reports the best feasible
    // design analysed instead, or the message says that none was.
    const double v = reported_violation();
    finish(RunStatus::kCycleLimit,
           cycle_limit_words() + " before convergence" + difference_words() +
               (v > noisy_.vioacc ? fmt::format(", at an infeasible design (V = {:.3g} %)", v)
                                  : std::string()));
    if (summary_.max_violation > noisy_.vioacc && rankable_by_analysis(study_)) {
      summary_.message += "; no feasible design analysed";
    }
  }
}

std::optional<DifferenceOrder> Driver::raisable_differences(const CycleRecord& rec) const {
  if (noisy_.strategy != Strategy::kTrustRegion ||
      noisy_.approximation == ApproximationSource::kMultipoint || metamodel_strategy()) {
    return std::nullopt;
  }
  // The run's latest gradients (a stall may follow an accepted cycle, before any at its b*).
  std::string method = rec.gradient_method;
  for (auto r = summary_.history.rbegin(); method.empty() && r != summary_.history.rend(); ++r) {
    method = r->gradient_method;
  }
  const std::optional<DifferenceOrder> latest = differences_of(method);
  if (!latest || differences_ > *latest) return std::nullopt;
  return latest;
}

void Driver::begin_differences(int cycle, DifferenceOrder order, std::string reason) {
  differences_ = order;
  raises_.push_back({cycle + 1, order, std::move(reason)});
}

bool Driver::raise_difference_order(const CycleRecord& rec) {
  if (!noisy_.central_differences_on_stall) return false;
  const std::optional<DifferenceOrder> latest = raisable_differences(rec);
  if (!latest || *latest == DifferenceOrder::kFivePoint) return false;
  const bool forward = *latest == DifferenceOrder::kForward;
  const DifferenceOrder next = forward ? DifferenceOrder::kCentral : DifferenceOrder::kFivePoint;
  begin_differences(rec.cycle, next,
                    std::string(difference_method(*latest)) + " had stalled the run");
  for (int i = 0; i < study_.n_design(); ++i) factors_(i) = study_.design[i].move_factor;
  for (auto r = summary_.history.rbegin(); r != summary_.history.rend(); ++r) {
    if (r->accepted && r->next_factors.size() == factors_.size()) {
      factors_ = r->next_factors;
      break;
    }
  }
  spdlog::info(
      "cycle {}: {} with gradients by {} ({}); from here on the gradients are taken by {} ({} "
      "runs per variable), and the move limits are those of the last accepted cycle",
      rec.cycle, stall_words(), difference_method(*latest), describe_optimality(),
      difference_method(next), difference_runs(next));
  return true;
}

std::string Driver::difference_words() const {
  std::string words;
  for (const DifferenceRaise& r : raises_) {
    words += fmt::format("; gradients by {} from cycle {} on ({})", difference_method(r.order),
                         r.from, r.reason);
  }
  return words;
}

std::string Driver::stall_words() const {
  return fmt::format("every move limit shrank below min_move_limit ({:g})", noisy_.min_move_factor);
}

std::string Driver::cycle_limit_words() const {
  return fmt::format("cycle limit {} reached", noisy_.max_cycles);
}

// --- study store and interactive use ---

void Driver::set_options(const Options& options) {
  const bool reopen = reopened_by(options);
  options_ = options;
  noisy_ = options.with_noise_applied();
  strategy_ = &move_limit_strategy(noisy_.strategy);
  if (reopen) {
    summary_.status = RunStatus::kRunning;
    summary_.message.clear();
  }
}

bool Driver::reopened_by(const Options& options) const {
  const bool limit_ended =
      summary_.status == RunStatus::kCycleLimit || summary_.status == RunStatus::kInfeasible;
  return limit_ended && cycle_offset_ + summary_.cycles < options.max_cycles;
}

void Driver::set_move_factors(const Eigen::VectorXd& factors) {
  if (factors.size() != study_.n_design()) {
    throw std::invalid_argument("move factors: expected " + std::to_string(study_.n_design()) +
                                " values, got " + std::to_string(factors.size()));
  }
  // Before the run starts the factors wait for start() (which would otherwise set the study's):
  // setting them analyses nothing, so settings changed together with them apply to the start.
  if (started_) {
    factors_ = factors;
  } else {
    pending_factors_ = factors;
  }
}

void Driver::set_design_bounds(const std::vector<DesignVariable>& design) {
  if (design.size() != study_.design.size()) {
    throw std::invalid_argument("design bounds: expected " + std::to_string(study_.n_design()) +
                                " variables, got " + std::to_string(design.size()));
  }
  for (size_t i = 0; i < design.size(); ++i) {
    study_.design[i].lower = design[i].lower;
    study_.design[i].upper = design[i].upper;
    study_.design[i].initial = design[i].initial;  // the start, before the first cycle
  }
}

void Driver::set_constraint_bounds(const std::vector<Constraint>& constraints) {
  if (constraints.size() != study_.constraints.size()) {
    throw std::invalid_argument("constraint bounds: expected " +
                                std::to_string(study_.constraints.size()) + " constraints, got " +
                                std::to_string(constraints.size()));
  }
  for (size_t j = 0; j < constraints.size(); ++j) {
    if (constraints[j].name != study_.constraints[j].name ||
        constraints[j].bound_auxiliary != study_.constraints[j].bound_auxiliary) {
      throw std::invalid_argument("constraint bounds: constraint " + std::to_string(j) + " is " +
                                  constraints[j].name + ", expected " + study_.constraints[j].name);
    }
    study_.constraints[j].bound = constraints[j].bound;
  }
}

void Driver::reopen() {
  if (!finished()) return;
  if (!started_ || summary_.history.empty()) {
    throw std::logic_error("Driver::reopen: the run ended before its first cycle");
  }
  summary_.status = RunStatus::kRunning;
  summary_.message.clear();
}

Eigen::VectorXd Driver::next_start() const {
  if (started_) return x0_.head(study_.n_design());
  Eigen::VectorXd b(study_.n_design());
  for (int i = 0; i < study_.n_design(); ++i) b(i) = study_.design[i].initial;
  return b;
}

void Driver::start_at(const Eigen::VectorXd& x0, const Eigen::VectorXd& factors, int first_cycle,
                      const std::optional<PreviousCycle>& previous) {
  if (started_) throw std::logic_error("Driver::start_at called after the run started");
  if (x0.size() != study_.n_total() || factors.size() != study_.n_design()) {
    throw std::invalid_argument("start_at: expected " + std::to_string(study_.n_total()) +
                                " variables and " + std::to_string(study_.n_design()) +
                                " factors, got " + std::to_string(x0.size()) + " and " +
                                std::to_string(factors.size()));
  }
  started_ = true;
  x0_ = x0;
  factors_ = factors;
  direction_.resize(study_.n_design());
  for (int i = 0; i < study_.n_design(); ++i) direction_(i) = study_.design[i].direction;
  cycle_offset_ = first_cycle - 1;
  previous_ = previous;
  analyse_start();
}

}  // namespace sao
