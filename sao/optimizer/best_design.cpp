#include "sao/optimizer/best_design.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "sao/optimizer/driver.hpp"
#include "sao/study/criteria.hpp"

namespace sao {
namespace {

// x's design variables are `key` (compared in place: no temporary vector).
bool same_design(const Study& study, const Eigen::VectorXd& x, const std::vector<double>& key) {
  const int n = study.n_design();
  return x.size() >= n && static_cast<int>(key.size()) == n &&
         std::equal(key.begin(), key.end(), x.data());
}

}  // namespace

std::optional<AnalysedDesign> best_feasible_analysed(
    const Study& study, const std::map<std::vector<double>, Evaluation>& analyses, double vioacc,
    const std::map<std::vector<double>, int>* analysed_in) {
  if (!rankable_by_analysis(study)) return std::nullopt;
  auto cycle_of = [&](const std::vector<double>& key) {
    if (!analysed_in) return 0;
    const auto it = analysed_in->find(key);
    return it == analysed_in->end() ? std::numeric_limits<int>::max() : it->second;
  };
  std::optional<AnalysedDesign> best;
  int best_cycle = 0;
  for (const auto& [key, evaluation] : analyses) {
    if (static_cast<int>(key.size()) != study.n_design()) continue;
    if (!evaluation.ok || evaluation.cases.size() != study.load_cases.size()) continue;
    Eigen::VectorXd x(study.n_total());
    x.head(study.n_design()) = Eigen::Map<const Eigen::VectorXd>(key.data(), study.n_design());
    bool inside = true;
    for (int i = 0; i < study.n_design(); ++i) {
      inside = inside && x(i) >= study.design[i].lower && x(i) <= study.design[i].upper;
    }
    if (!inside) continue;
    for (int a = 0; a < study.n_aux(); ++a) x(study.n_design() + a) = study.auxiliaries[a].initial;
    AnalysedDesign d = at_bounded_maxima(study, x, ExactResponses(study, evaluation));
    const double F = d.objective, V = d.violation;
    if (!std::isfinite(V) || V > vioacc || !std::isfinite(F)) continue;
    const int cycle = cycle_of(key);
    const bool better = !best || F < best->objective ||
                        (F == best->objective &&
                         (V < best->violation || (V == best->violation && cycle < best_cycle)));
    if (better) {
      best = std::move(d);
      best_cycle = cycle;
    }
  }
  return best;
}

AnalysedDesign at_bounded_maxima(const Study& study, const Eigen::VectorXd& x,
                                 const ResponseModel& exact) {
  AnalysedDesign d;
  d.x = with_bounded_maxima(study, x, exact);
  d.objective = criterion_value(study, study.objective.f, 0, d.x, exact);
  d.violation = max_violation(study, d.x, exact);
  return d;
}

void RunSummary::set_start(const Study& study, const Eigen::VectorXd& x0,
                           const ResponseModel& exact) {
  const AnalysedDesign start = at_bounded_maxima(study, x0, exact);
  start_objective = user_objective(study, start.objective);
  start_violation = start.violation;
  start_analysed = true;
  note_scales(study);
}

void RunSummary::note_scales(const Study& study) {
  constraint_scales.clear();
  for (const Constraint& c : study.constraints) constraint_scales.push_back(c.scale);
}

bool rankable_by_analysis(const Study& study) {
  std::vector<bool> bounds(study.n_aux(), false);
  for (const Constraint& c : study.constraints) {
    if (c.bound_auxiliary >= 0 && c.sense == Sense::kLessEqual) bounds[c.bound_auxiliary] = true;
  }
  return std::all_of(bounds.begin(), bounds.end(), [](bool b) { return b; });
}

// --- the driver's use of it ---

std::string Driver::where_analysed(const std::vector<double>& key) const {
  auto it = analysed_in_.find(key);
  if (it == analysed_in_.end()) return "an earlier analysis";
  const int cycle = it->second;
  for (const CycleRecord& r : summary_.history) {
    if (r.cycle != cycle) continue;
    if (same_design(study_, r.x0, key)) {
      return cycle == cycle_offset_ + 1 ? "the start design"
                                        : "the start of cycle " + std::to_string(cycle);
    }
    if (same_design(study_, r.x_opt, key)) {
      return "the proposal b* of cycle " + std::to_string(cycle);
    }
  }
  if (cycle == cycle_offset_ + 1 && summary_.history.empty()) return "the start design";
  return "a plan point of cycle " + std::to_string(cycle);
}

bool Driver::reports_best_analysed(RunStatus status) const {
  // A converged multi-point run too: its strategy accepts every proposal within the error
  // bounds, worse ones included (move_limits.cpp, "worse"), and its convergence test compares
  // the last two designs, so the last accepted design is not the best the run analysed; a
  // converged run with sensitivities ends at the design whose optimality it tested.
  // A converged multi-point run of a bound formulation keeps its last accepted design (as before
  // the bound formulation could be ranked): its noisy plan points ranked by their own noise
  // would favour the luckiest (docs/study-format.md).
  return status == RunStatus::kCycleLimit || status == RunStatus::kInfeasible ||
         status == RunStatus::kStalled ||
         (status == RunStatus::kConverged &&
          (noisy_.approximation == ApproximationSource::kMultipoint ||
           noisy_.strategy == Strategy::kMetamodel) &&
          study_.n_aux() == 0);
}

std::optional<AnalysedDesign> Driver::better_than_last_accepted() const {
  const std::optional<AnalysedDesign> best =
      best_feasible_analysed(study_, values_, options_.vioacc, &analysed_in_);
  if (!best) return std::nullopt;
  const std::vector<double> last_key = design_key(study_, x0_);
  const std::vector<double> best_key = design_key(study_, best->x);
  if (best_key == last_key) return std::nullopt;
  auto last = values_.find(last_key);
  if (last != values_.end()) {
    const ExactResponses exact(study_, last->second);
    const Eigen::VectorXd x = as_reported(x0_, exact);
    const double F_last = criterion_value(study_, study_.objective.f, 0, x, exact);
    if (max_violation(study_, x, exact) <= options_.vioacc && F_last <= best->objective) {
      return std::nullopt;
    }
  }
  return best;
}

Eigen::VectorXd Driver::as_reported(const Eigen::VectorXd& x, const ResponseModel& exact) const {
  return rankable_by_analysis(study_) ? with_bounded_maxima(study_, x, exact) : x;
}

Eigen::VectorXd Driver::reported_design(RunStatus status) const {
  Eigen::VectorXd x = x0_;
  if (!reports_best_analysed(status)) return x;
  if (auto it = values_.find(design_key(study_, x0_)); it != values_.end()) {
    x = as_reported(x0_, ExactResponses(study_, it->second));
  }
  if (const std::optional<AnalysedDesign> best = better_than_last_accepted()) {
    x = best->x;
  }
  return x;
}

void Driver::report_best_analysed() {
  const std::optional<AnalysedDesign> best = better_than_last_accepted();
  if (!best) return;
  const std::vector<double> best_key = design_key(study_, best->x);
  const double F_last_user = summary_.objective;
  const double V_last = summary_.max_violation;
  summary_.x = best->x;
  summary_.objective = user_objective(study_, best->objective);
  summary_.max_violation = best->violation;
  summary_.optimality.at_final_design = false;
  if (summary_.status == RunStatus::kInfeasible) {
    // "no feasible design found" no longer holds: the reported design is feasible.
    summary_.status = RunStatus::kStalled;
    summary_.message = stall_words() + " at an infeasible design";
  }
  summary_.message += fmt::format(
      "; reported: the best feasible design analysed, {} (objective {:.6g}, V = {:.3g} %), not "
      "the last accepted design (objective {:.6g}, V = {:.3g} %), from which a further cycle "
      "would continue",
      where_analysed(best_key), summary_.objective, summary_.max_violation, F_last_user, V_last);
  spdlog::warn("{}", summary_.message);
}

}  // namespace sao
