// Driver::correct_step (the second-order correction of a rejected step), Driver::extend_step
// (internal doubling of an accepted one) and Driver::retry_from_descent (driver.hpp).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "sao/optimizer/driver.hpp"
#include "sao/optimizer/trust_region.hpp"

namespace sao {

namespace {
// Internal doubling's test of the model (Dennis & Schnabel, A6.4.5): the actual improvement
// within this share of the predicted one.
constexpr double kModelAgreement = 0.1;
// The least cost of a cycle's gradients, in analyses, at which a step is extended (a try costs
// one analysis; it pays where it saves a cycle of that many).
constexpr double kExtensionCost = 10.0;

// `second` takes b*'s place in the cycle: its design, analysis, facts, judgement and record,
// with `message`.
void adopt(const Study& study, const SecondProposal& second, std::string message,
           Eigen::VectorXd& x_opt, const Evaluation*& e_opt, CycleFacts& facts, StepJudgement& j,
           CycleRecord& rec) {
  rec.x_opt = second.x;
  rec.F_approx = user_objective(study, second.F_approx);
  rec.message = std::move(message);
  x_opt = second.x;
  e_opt = second.analysis;
  facts = second.facts;
  j = second.judgement;
}

// rec as it was `before` a second proposal, with the analyses since counted.
void restore_record(CycleRecord& rec, const CycleRecord& before) {
  const int analyses = rec.analyses;
  rec = before;
  rec.analyses = analyses;
}
}  // namespace

bool Driver::correct_step(const ApproximateProblem& problem, Eigen::VectorXd& x_opt,
                          const Evaluation*& e_opt, CycleFacts& facts, CycleRecord& rec,
                          StepJudgement& j) {
  if (!noisy_.second_order_correction || noisy_.strategy != Strategy::kTrustRegion ||
      noisy_.approximation == ApproximationSource::kMultipoint || metamodel_strategy() ||
      problem.rows.empty() || !(facts.V > 0.1 * noisy_.vioacc)) {
    return false;
  }
  // A history's rows: its critical points move between designs, so a row's error at b* is the
  // peak's shift in time, not the second-order change the correction is for.
  for (const RetainedRow& row : problem.rows) {
    if (study_.constraints[row.constraint].g.time_dependent()) return false;
  }
  // The rows' errors at b*: the subproblem again with each row's approximation moved onto the
  // analysed value there (its gradient and curvature kept), so that its proposal corrects the
  // second-order violation of the step.
  const ExactResponses exact(study_, *e_opt);
  ApproximateProblem corrected = problem;
  corrected.shift.resize(static_cast<Eigen::Index>(problem.rows.size()));
  const Eigen::VectorXd predicted = problem.row_values(x_opt);
  for (size_t r = 0; r < problem.rows.size(); ++r) {
    const RetainedRow& row = problem.rows[r];
    const auto k = static_cast<Eigen::Index>(r);
    corrected.shift(k) = normalised_constraint(study_, study_.constraints[row.constraint],
                                               row.point, x_opt, exact, row.normaliser) -
                         predicted(k);
  }
  if (!corrected.shift.allFinite()) return false;
  // Only a violation of a row the subproblem carried is the correction's to remove: b* violating
  // only constraints it did not carry (screened out at b0) would propose b* again (HS 32: one
  // analysis of the same design to the last digits).
  if (!((predicted + corrected.shift).maxCoeff() > 0.1 * noisy_.vioacc / 100.0)) return false;
  const SubproblemResult sub = solve_subproblem(corrected, noisy_);
  if (sub.status != SubproblemStatus::kOptimal) return false;
  Eigen::VectorXd x_soc = sub.x.cwiseMax(corrected.lower).cwiseMin(corrected.upper);
  if ((x_soc - x_opt).cwiseAbs().maxCoeff() <= 0.0) return false;
  const CycleRecord before = rec;
  SecondProposal soc;
  // Judged against the step it corrects (Nocedal & Wright, 18.3): its own subproblem predicts
  // the way back to feasibility, often a loss in F, and with it a correction that gained what the
  // step predicted was rejected with the ratio -1 (the spring: every second cycle of its crawl
  // along two curved active constraints).
  const std::optional<StepPrediction> step =
      j.predicted > 0.0 ? std::optional<StepPrediction>(StepPrediction{j.predicted, j.penalty})
                        : std::nullopt;
  if (judge_second(corrected, sub, x_soc, corrected.approximate_objective(sub.x), factors_, facts,
                   rec, soc, step) &&
      soc.judgement.accept) {
    spdlog::debug(
        "cycle {}: b* rejected (ratio {:.3g}, V {:.3g} %); its second-order "
        "correction accepted (ratio {:.3g}, V {:.3g} %)",
        rec.cycle, j.ratio, facts.V, soc.judgement.ratio, soc.facts.V);
    adopt(study_, soc,
          "b* rejected (ratio " + three_digits(j.ratio) + "): its second-order correction accepted",
          x_opt, e_opt, facts, j, rec);
    return true;
  }
  restore_record(rec, before);
  return false;
}

bool Driver::judge_second(const ApproximateProblem& problem, const SubproblemResult& sub,
                          const Eigen::VectorXd& x, double F_approx, const Eigen::VectorXd& factors,
                          const CycleFacts& first, CycleRecord& rec, SecondProposal& out,
                          const std::optional<StepPrediction>& judged_against) {
  out.x = x;
  out.F_approx = F_approx;
  out.facts = active_limits(problem, x, rec);
  out.facts.F0 = first.F0;
  out.facts.V0 = first.V0;
  out.facts.approximated = first.approximated;
  out.analysis = analyse_proposal(problem, F_approx, out.x, out.facts, rec);
  if (!out.analysis) return false;
  out.judgement = strategy_->judge({study_, options_, noisy_, problem, sub, x, out.x, *out.analysis,
                                    out.facts, factors, previous_, optimality_, merit_.penalty,
                                    rec.noise_estimate, rec.cycle, judged_against});
  return true;
}

int Driver::extend_step(const ApproximateProblem& problem, const SubproblemResult& sub,
                        Eigen::VectorXd& x_opt, const Evaluation*& e_opt, CycleFacts& facts,
                        CycleRecord& rec, StepJudgement& j) {
  if (noisy_.extend_steps <= 0 || noisy_.strategy != Strategy::kTrustRegion ||
      noisy_.approximation == ApproximationSource::kMultipoint || metamodel_strategy() ||
      sub.status != SubproblemStatus::kOptimal || gradient_cost_ < kExtensionCost) {
    return 0;
  }
  const int n = study_.n_design();
  int kept = 0;
  ApproximateProblem wider = problem;
  Eigen::VectorXd held = factors_;  // the factors of the subregion the step kept was found in
  while (kept < noisy_.extend_steps && j.accept && std::abs(j.ratio - 1.0) <= kModelAgreement &&
         std::any_of(j.actions.begin(), j.actions.end(),
                     [](MoveAction a) { return a == MoveAction::kEnlarged; })) {
    set_subregion(study_, j.factors, wider, strategy_->floored_subregion());
    const SubproblemResult again = solve_subproblem(wider, noisy_);
    if (again.status != SubproblemStatus::kOptimal) break;
    const Eigen::VectorXd x_new = again.x.cwiseMax(wider.lower).cwiseMin(wider.upper);
    const Eigen::VectorXd half = 0.5 * (wider.upper - wider.lower).head(n);
    if (!((x_new - x_opt).head(n).cwiseAbs().cwiseQuotient(half).maxCoeff() > 1e-3)) break;
    const double F_approx =
        wider.curvature.size() == 0 ? again.objective : wider.approximate_objective(again.x);
    const CycleRecord before = rec;
    SecondProposal wide;
    if (!judge_second(wider, again, x_new, F_approx, j.factors, facts, rec, wide)) {
      restore_record(rec, before);
      break;
    }
    if (!wide.judgement.accept || !(wide.judgement.actual > j.actual)) {
      // The enlarged subregion was too large for the approximations: the next cycle keeps the
      // one its b* came from.
      spdlog::debug("cycle {}: the step extended to the enlarged subregion: ratio {:.3g}, kept b*",
                    rec.cycle, wide.judgement.ratio);
      restore_record(rec, before);
      j.factors = held;
      j.actions.assign(j.actions.size(), MoveAction::kKept);
      break;
    }
    held = j.factors;
    ++kept;
    spdlog::debug("cycle {}: the step extended to the enlarged subregion (ratio {:.3g})", rec.cycle,
                  wide.judgement.ratio);
    adopt(study_, wide,
          "b* extended " + std::to_string(kept) + (kept == 1 ? " time" : " times") +
              " in an enlarged subregion (ratio " + three_digits(wide.judgement.ratio) + ")",
          x_opt, e_opt, facts, j, rec);
  }
  return kept;
}

void Driver::retry_from_descent(ApproximateProblem& problem, SubproblemResult& sub) const {
  const int n = study_.n_design();
  if (!optimality_.computed || optimality_.residual <= noisy_.kkt_tolerance ||
      (sub.x - problem.x0).head(n).cwiseAbs().maxCoeff() > 0.0) {
    return;
  }
  const Eigen::VectorXd half = 0.5 * (problem.upper - problem.lower).head(n);
  const Eigen::VectorXd descent =
      -problem.objective_gradient(problem.x0).head(n).cwiseProduct(half);
  const double largest = descent.cwiseAbs().maxCoeff();
  if (!(largest > 0.0) || !std::isfinite(largest)) return;
  Eigen::VectorXd start = problem.x0;
  start.head(n) += 0.5 * half.cwiseProduct(descent / largest);
  start = start.cwiseMax(problem.lower).cwiseMin(problem.upper);
  problem.starts.push_back(start);
  SubproblemResult again = solve_subproblem(problem, noisy_);
  problem.starts.pop_back();
  if (again.status == SubproblemStatus::kOptimal &&
      (again.x - problem.x0).head(n).cwiseAbs().maxCoeff() > 0.0) {
    spdlog::debug(
        "the subproblem stayed at b0 (first-order residual {:.3g}); solved again from "
        "a descent start",
        optimality_.residual);
    sub = std::move(again);
  }
}

}  // namespace sao
