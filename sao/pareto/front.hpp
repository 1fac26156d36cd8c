// Pareto fronts of cheap functions (issue 51, docs/pareto.md): a multi-objective evolutionary
// algorithm of pagmo2 (NSGA-II or MOEA/D) run on a box, and the choice of a few points spread
// along a front. Mathematics on points and values only: it knows no study, store or simulator
// (`sao pareto` runs it on the metamodels of a study's responses, sao/store/pareto_run.hpp).
//
// Constraints: pagmo's NSGA-II and MOEA/D take none, so they are handled by Deb's rule as a
// static penalty: a point whose constraint violation v (the sum of the positive parts of the
// constraint values, each g <= 0 and normalised by the caller) is positive gets, in every
// objective, the worst value of that objective over a sample of the box plus v times the
// objective's spread over the sample. Such a point is then dominated by every feasible point of
// the sample's range, and among infeasible points the less violating one is preferred. The
// front returned holds only feasible points (v <= 0), nondominated among themselves.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sao::pareto {

// The functions at x: `objectives` (each minimised) and `constraints` (each g <= 0).
using Functions = std::function<void(const Eigen::VectorXd& x, Eigen::VectorXd& objectives,
                                     Eigen::VectorXd& constraints)>;

struct Problem {
  Eigen::VectorXd lower;  // the box: lower_i < upper_i, finite
  Eigen::VectorXd upper;
  int objectives = 2;  // >= 2
  int constraints = 0;
  Functions evaluate;
};

enum class Algorithm { kNsga2, kMoead };
// "nsga2", "moead"; false for another word.
bool parse_algorithm(const std::string& word, Algorithm& algorithm);
const char* algorithm_name(Algorithm algorithm);

struct Settings {
  Algorithm algorithm = Algorithm::kNsga2;
  int population = 100;  // NSGA-II: rounded up to a multiple of 4
  int generations = 200;
  std::uint32_t seed = 1;
};

struct Point {
  Eigen::VectorXd x;
  Eigen::VectorXd f;  // the objectives
  Eigen::VectorXd g;  // the constraints
};

// The feasible nondominated points of the final population (duplicates in objective space
// removed), sorted by the first objective. Empty when no point of the population is feasible.
// Throws std::invalid_argument for a bad box, fewer than two objectives or a bad setting.
std::vector<Point> front(const Problem& problem, const Settings& settings);

// Indices of at most `k` points of `points` (objective vectors, each minimised) spread along
// the front: the extreme point of each objective first, then repeatedly the point farthest
// (Euclidean, objectives scaled to [0, 1] over the points) from those chosen.
std::vector<int> spread(const std::vector<Eigen::VectorXd>& points, int k);

// Whether a dominates b (each minimised): no worse in every objective, better in one.
bool dominates(const Eigen::VectorXd& a, const Eigen::VectorXd& b);

}  // namespace sao::pareto
