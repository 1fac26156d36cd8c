// The end of a run with discrete variables under a strategy that optimises them as continuous
// ones (Driver::round_to_allowed; docs/study-format.md, "Discrete variables").
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <limits>
#include <optional>

#include "sao/optimizer/discrete.hpp"
#include "sao/optimizer/driver.hpp"
#include "sao/study/criteria.hpp"

namespace sao {
namespace {

// At most this many combinations of the neighbours are analysed (three discrete variables
// between two allowed values); beyond, the nearest allowed design alone.
constexpr size_t kRoundingCandidates = 8;

// "b1 0.3587 -> 0.39, b2 2.4 -> 2.5"
std::string rounded_words(const Study& study, const Eigen::VectorXd& from,
                          const Eigen::VectorXd& to) {
  std::string words;
  for (int i = 0; i < study.n_design(); ++i) {
    if (!study.design[i].discrete() || from(i) == to(i)) continue;
    words += fmt::format("{}{} {:.6g} -> {:.6g}", words.empty() ? "" : ", ", study.design[i].name,
                         from(i), to(i));
  }
  return words;
}

}  // namespace

void Driver::round_to_allowed() {
  const Eigen::VectorXd continuous = summary_.x;
  const std::vector<Eigen::VectorXd> candidates =
      allowed_neighbours(study_, continuous, kRoundingCandidates);
  if (candidates.size() == 1 && candidates.front() == continuous) return;  // already allowed
  RunSummary::Rounding& r = summary_.rounding;
  r.done = true;
  r.continuous = continuous;
  r.continuous_objective = summary_.objective;
  r.continuous_violation = summary_.max_violation;
  r.candidates = static_cast<int>(candidates.size());
  const std::vector<const Evaluation*> results = analyse_batch(candidates, {});
  std::optional<Eigen::VectorXd> best;
  double best_F = 0.0, best_V = std::numeric_limits<double>::infinity();
  for (size_t k = 0; k < candidates.size(); ++k) {
    if (!results[k]) {
      ++r.failed;
      continue;
    }
    const ExactResponses exact(study_, *results[k]);
    const Eigen::VectorXd x = as_reported(candidates[k], exact);
    const double F = criterion_value(study_, study_.objective.f, 0, x, exact);
    const double V = max_violation(study_, x, exact);
    const bool feasible = V <= noisy_.vioacc, best_feasible = best_V <= noisy_.vioacc;
    if (!best || (feasible && (!best_feasible || F < best_F)) ||
        (!feasible && !best_feasible && V < best_V)) {
      best = x;
      best_F = F;
      best_V = V;
    }
  }
  const std::string from = fmt::format("the continuous design (objective {:.6g}, V = {:.3g} %)",
                                       r.continuous_objective, r.continuous_violation);
  if (!best) {
    r.done = false;
    summary_.message += fmt::format(
        "; not rounded to the allowed values: the {} analyses of the allowed designs next to {} "
        "failed (the last: {}); the reported design is continuous",
        candidates.size(), from, message_headline(last_failure_));
    spdlog::warn("{}", summary_.message);
    return;
  }
  summary_.x = *best;
  summary_.objective = user_objective(study_, best_F);
  summary_.max_violation = best_V;
  summary_.optimality.at_final_design = false;
  r.feasible = best_V <= noisy_.vioacc;
  summary_.message += fmt::format(
      "; rounded to allowed values ({}): {} of the {} allowed designs next to {} analysed{}, "
      "reported: {} (objective {:.6g}, V = {:.3g} %)",
      rounded_words(study_, continuous, *best), candidates.size() - static_cast<size_t>(r.failed),
      candidates.size(), from, r.failed > 0 ? fmt::format(" ({} failed)", r.failed) : "",
      r.feasible ? "the best feasible" : "none feasible, the least violation", summary_.objective,
      best_V);
  spdlog::info("{}", summary_.message);
}

}  // namespace sao
