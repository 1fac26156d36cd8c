// Discrete design variables in the driver (docs/study-format.md, "Discrete variables"): the
// allowed designs next to a continuous one, and the choice among them on an approximation.
#pragma once

#include <Eigen/Dense>
#include <optional>
#include <vector>

#include "sao/study/study.hpp"

namespace sao {

struct ApproximateProblem;

bool has_discrete(const Study& study);

// x (design + auxiliaries) with every discrete design variable at its nearest allowed value.
Eigen::VectorXd nearest_allowed(const Study& study, const Eigen::VectorXd& x);

// The designs next to x whose discrete variables take their allowed neighbours (the largest
// value <= and the smallest >= each): every combination when there are at most `limit` of them,
// else the nearest allowed design alone. The other variables as in x. Nearest first.
std::vector<Eigen::VectorXd> allowed_neighbours(const Study& study, const Eigen::VectorXd& x,
                                                size_t limit);

// The approximate problem's verdict on a design: the largest row g_hat~ above 0 (0 when every row
// holds), then the objective; a lower violation is better, then a lower objective.
struct PredictedMerit {
  double violation = 0.0;
  double objective = 0.0;
  bool better_than(const PredictedMerit& other) const {
    return violation < other.violation ||
           (violation == other.violation && objective < other.objective);
  }
};
// Nothing when either is not finite.
std::optional<PredictedMerit> predicted_merit(const ApproximateProblem& problem,
                                              const Eigen::VectorXd& x);

// The allowed neighbour of x (allowed_neighbours, at most 1024) that is best on the
// approximate problem: the least largest row g_hat~ above 0 (feasible rows count 0), then the
// least objective. Within [problem.lower, problem.upper] where such a neighbour exists,
// else within the design bounds.
Eigen::VectorXd best_allowed_neighbour(const Study& study, const ApproximateProblem& problem,
                                       const Eigen::VectorXd& x);

}  // namespace sao
