// Driver::correct_step: the second-order correction of a rejected step (driver.hpp).
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

// A second proposal of a cycle (b*'s second-order correction or its extension), analysed and
// judged from b0.
struct Alternative {
  const Eigen::VectorXd& x;
  const Evaluation* analysis;
  const CycleFacts& facts;
  const StepJudgement& judgement;
  double F_approx = 0.0;
};

// The alternative takes b*'s place in the cycle: its design, analysis, facts, judgement and
// record, with `message`.
void adopt(const Study& study, const Alternative& a, std::string message, Eigen::VectorXd& x_opt,
           const Evaluation*& e_opt, CycleFacts& facts, StepJudgement& j, CycleRecord& rec) {
  rec.x_opt = a.x;
  rec.F_approx = user_objective(study, a.F_approx);
  rec.message = std::move(message);
  x_opt = a.x;
  e_opt = a.analysis;
  facts = a.facts;
  j = a.judgement;
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
  const SubproblemResult sub = solve_subproblem(corrected, noisy_);
  if (sub.status != SubproblemStatus::kOptimal) return false;
  Eigen::VectorXd x_soc = sub.x.cwiseMax(corrected.lower).cwiseMin(corrected.upper);
  if ((x_soc - x_opt).cwiseAbs().maxCoeff() <= 0.0) return false;
  const CycleRecord before = rec;
  const Eigen::VectorXd proposed = x_soc;
  const double F_approx = corrected.approximate_objective(sub.x);
  CycleFacts soc_facts = active_limits(corrected, x_soc, rec);
  soc_facts.F0 = facts.F0;
  soc_facts.V0 = facts.V0;
  soc_facts.approximated = facts.approximated;
  const Evaluation* e_soc = analyse_proposal(corrected, F_approx, x_soc, soc_facts, rec);
  if (e_soc) {
    const StepJudgement k = strategy_->judge(
        {study_, options_, noisy_, corrected, sub, proposed, x_soc, *e_soc, soc_facts, factors_,
         previous_, optimality_, penalty_, rec.noise_estimate, rec.cycle});
    if (k.accept) {
      spdlog::debug(
          "cycle {}: b* rejected (ratio {:.3g}, V {:.3g} %); its second-order "
          "correction accepted (ratio {:.3g}, V {:.3g} %)",
          rec.cycle, j.ratio, facts.V, k.ratio, soc_facts.V);
      adopt(
          study_, {x_soc, e_soc, soc_facts, k, F_approx},
          "b* rejected (ratio " + three_digits(j.ratio) + "): its second-order correction accepted",
          x_opt, e_opt, facts, j, rec);
      return true;
    }
  }
  const int analyses = summary_.analyses;
  rec = before;
  rec.analyses = analyses;
  return false;
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
    Eigen::VectorXd x_new = again.x.cwiseMax(wider.lower).cwiseMin(wider.upper);
    const Eigen::VectorXd half = 0.5 * (wider.upper - wider.lower).head(n);
    if (!((x_new - x_opt).head(n).cwiseAbs().cwiseQuotient(half).maxCoeff() > 1e-3)) break;
    const Eigen::VectorXd proposed = x_new;
    const double F_approx =
        wider.curvature.size() == 0 ? again.objective : wider.approximate_objective(again.x);
    const CycleRecord before = rec;
    CycleFacts new_facts = active_limits(wider, x_new, rec);
    new_facts.F0 = facts.F0;
    new_facts.V0 = facts.V0;
    new_facts.approximated = facts.approximated;
    const Evaluation* e_new = analyse_proposal(wider, F_approx, x_new, new_facts, rec);
    if (!e_new) {
      const int analyses = summary_.analyses;
      rec = before;
      rec.analyses = analyses;
      break;
    }
    const StepJudgement k = strategy_->judge(
        {study_, options_, noisy_, wider, again, proposed, x_new, *e_new, new_facts, j.factors,
         previous_, optimality_, penalty_, rec.noise_estimate, rec.cycle});
    if (!k.accept || !(k.actual > j.actual)) {
      // The enlarged subregion was too large for the approximations: the next cycle keeps the
      // one its b* came from.
      spdlog::debug("cycle {}: the step extended to the enlarged subregion: ratio {:.3g}, kept b*",
                    rec.cycle, k.ratio);
      const int analyses = summary_.analyses;
      rec = before;
      rec.analyses = analyses;
      j.factors = held;
      j.actions.assign(j.actions.size(), MoveAction::kKept);
      break;
    }
    held = j.factors;
    ++kept;
    spdlog::debug("cycle {}: the step extended to the enlarged subregion (ratio {:.3g})", rec.cycle,
                  k.ratio);
    adopt(study_, {x_new, e_new, new_facts, k, F_approx},
          "b* extended " + std::to_string(kept) + (kept == 1 ? " time" : " times") +
              " in an enlarged subregion (ratio " + three_digits(k.ratio) + ")",
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
