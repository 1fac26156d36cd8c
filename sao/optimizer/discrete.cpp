#include "sao/optimizer/discrete.hpp"

#include <algorithm>
#include <cmath>

#include "sao/optimizer/subproblem.hpp"

namespace sao {

bool has_discrete(const Study& study) {
  return std::any_of(study.design.begin(), study.design.end(),
                     [](const DesignVariable& v) { return v.discrete(); });
}

Eigen::VectorXd nearest_allowed(const Study& study, const Eigen::VectorXd& x) {
  Eigen::VectorXd y = x;
  for (int i = 0; i < study.n_design(); ++i) y(i) = study.design[i].nearest(x(i));
  return y;
}

std::vector<Eigen::VectorXd> allowed_neighbours(const Study& study, const Eigen::VectorXd& x,
                                                size_t limit) {
  std::vector<Eigen::VectorXd> designs{nearest_allowed(study, x)};
  size_t count = 1;
  for (int i = 0; i < study.n_design() && count <= limit; ++i) {
    const auto [lo, hi] = study.design[i].neighbours(x(i));
    if (lo != hi) count *= 2;
  }
  if (count > limit) return designs;
  for (int i = 0; i < study.n_design(); ++i) {
    const auto [lo, hi] = study.design[i].neighbours(x(i));
    if (lo == hi) continue;
    const size_t before = designs.size();
    for (size_t k = 0; k < before; ++k) {
      Eigen::VectorXd other = designs[k];
      other(i) = other(i) == lo ? hi : lo;
      designs.push_back(other);
    }
  }
  return designs;
}

std::optional<PredictedMerit> predicted_merit(const ApproximateProblem& problem,
                                              const Eigen::VectorXd& x) {
  const Eigen::VectorXd rows = problem.row_values(x);
  PredictedMerit merit{rows.size() > 0 ? std::max(0.0, rows.maxCoeff()) : 0.0,
                       problem.objective(x)};
  if (!std::isfinite(merit.violation) || !std::isfinite(merit.objective)) return std::nullopt;
  return merit;
}

Eigen::VectorXd best_allowed_neighbour(const Study& study, const ApproximateProblem& problem,
                                       const Eigen::VectorXd& x) {
  const std::vector<Eigen::VectorXd> all = allowed_neighbours(study, x, 1024);
  const int n = study.n_design();
  std::vector<Eigen::VectorXd> inside;
  for (const Eigen::VectorXd& y : all) {
    if ((y.head(n).array() >= problem.lower.head(n).array() - 1e-12).all() &&
        (y.head(n).array() <= problem.upper.head(n).array() + 1e-12).all())
      inside.push_back(y);
  }
  const std::vector<Eigen::VectorXd>& candidates = inside.empty() ? all : inside;
  Eigen::VectorXd best = candidates.front();
  std::optional<PredictedMerit> best_merit;
  for (const Eigen::VectorXd& y : candidates) {
    const std::optional<PredictedMerit> merit = predicted_merit(problem, y);
    if (merit && (!best_merit || merit->better_than(*best_merit))) {
      best = y;
      best_merit = merit;
    }
  }
  return best;
}

}  // namespace sao
