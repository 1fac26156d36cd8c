#include "sao/pareto/front.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <pagmo/algorithm.hpp>
#include <pagmo/algorithms/moead.hpp>
#include <pagmo/algorithms/nsga2.hpp>
#include <pagmo/population.hpp>
#include <pagmo/problem.hpp>
#include <random>
#include <stdexcept>
#include <utility>

namespace sao::pareto {
namespace {

// What every copy of the pagmo problem shares: the functions and the penalty's scales.
struct Shared {
  Problem problem;
  Eigen::VectorXd worst;   // per objective, its worst value over the sample
  Eigen::VectorXd spread;  // per objective, its spread over the sample (> 0)
};

double violation(const Eigen::VectorXd& g) {
  return g.cwiseMax(0.0).sum();
}

// The user-defined problem pagmo copies into its `problem`.
struct Udp {
  std::shared_ptr<const Shared> shared;

  pagmo::vector_double fitness(const pagmo::vector_double& v) const {
    const Problem& p = shared->problem;
    const Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(v.data(), v.size());
    Eigen::VectorXd f(p.objectives), g(p.constraints);
    p.evaluate(x, f, g);
    const double viol = violation(g);
    pagmo::vector_double out(f.size());
    for (int i = 0; i < f.size(); ++i) {
      const bool bad = !std::isfinite(f(i)) || !std::isfinite(viol);
      out[i] = bad        ? shared->worst(i) + 1e6 * shared->spread(i)
               : viol > 0 ? shared->worst(i) + viol * shared->spread(i)
                          : f(i);
    }
    return out;
  }
  std::pair<pagmo::vector_double, pagmo::vector_double> get_bounds() const {
    const Problem& p = shared->problem;
    return {pagmo::vector_double(p.lower.data(), p.lower.data() + p.lower.size()),
            pagmo::vector_double(p.upper.data(), p.upper.data() + p.upper.size())};
  }
  pagmo::vector_double::size_type get_nobj() const {
    return static_cast<pagmo::vector_double::size_type>(shared->problem.objectives);
  }
};

void check(const Problem& problem, const Settings& settings) {
  const auto n = problem.lower.size();
  if (n < 1 || problem.upper.size() != n) throw std::invalid_argument("pareto: empty box");
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!(std::isfinite(problem.lower(i)) && std::isfinite(problem.upper(i)) &&
          problem.lower(i) < problem.upper(i))) {
      throw std::invalid_argument("pareto: variable " + std::to_string(i + 1) +
                                  " needs finite bounds, lower < upper");
    }
  }
  if (problem.objectives < 2) throw std::invalid_argument("pareto: needs two objectives or more");
  if (settings.population < 8) throw std::invalid_argument("pareto: population must be >= 8");
  if (settings.generations < 1) throw std::invalid_argument("pareto: generations must be >= 1");
}

// The penalty's scales from 1000 points drawn uniformly in the box (seeded).
void sample_scales(Shared& s, std::uint32_t seed) {
  const Problem& p = s.problem;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  s.worst = Eigen::VectorXd::Constant(p.objectives, -std::numeric_limits<double>::infinity());
  Eigen::VectorXd best =
      Eigen::VectorXd::Constant(p.objectives, std::numeric_limits<double>::infinity());
  Eigen::VectorXd x(p.lower.size()), f(p.objectives), g(p.constraints);
  for (int k = 0; k < 1000; ++k) {
    for (Eigen::Index i = 0; i < x.size(); ++i)
      x(i) = p.lower(i) + u(rng) * (p.upper(i) - p.lower(i));
    p.evaluate(x, f, g);
    for (int i = 0; i < p.objectives; ++i) {
      if (!std::isfinite(f(i))) continue;
      s.worst(i) = std::max(s.worst(i), f(i));
      best(i) = std::min(best(i), f(i));
    }
  }
  s.spread = (s.worst - best).cwiseMax(1e-12);
  for (int i = 0; i < p.objectives; ++i) {
    if (!std::isfinite(s.worst(i))) s.worst(i) = 0.0, s.spread(i) = 1.0;
  }
}

pagmo::population evolve(const Shared& shared, const Settings& settings) {
  pagmo::problem prob{Udp{std::make_shared<const Shared>(shared)}};
  const auto gens = static_cast<unsigned>(settings.generations);
  if (settings.algorithm == Algorithm::kNsga2) {
    const int size = (settings.population + 3) / 4 * 4;  // NSGA-II: a multiple of 4
    pagmo::population pop{prob, static_cast<pagmo::population::size_type>(size), settings.seed};
    pagmo::algorithm algo{pagmo::nsga2(gens, 0.95, 10.0,
                                       1.0 / static_cast<double>(shared.problem.lower.size()), 20.0,
                                       settings.seed)};
    return algo.evolve(pop);
  }
  const auto size = static_cast<pagmo::population::size_type>(settings.population);
  pagmo::population pop{prob, size, settings.seed};
  const auto neighbours = std::min<pagmo::population::size_type>(20u, size - 1);
  pagmo::algorithm algo{pagmo::moead(gens, "low discrepancy", "tchebycheff", neighbours, 1.0, 0.5,
                                     20.0, 0.9, 2u, true, settings.seed)};
  return algo.evolve(pop);
}

}  // namespace

bool parse_algorithm(const std::string& word, Algorithm& algorithm) {
  if (word == "nsga2") {
    algorithm = Algorithm::kNsga2;
  } else if (word == "moead") {
    algorithm = Algorithm::kMoead;
  } else {
    return false;
  }
  return true;
}

const char* algorithm_name(Algorithm algorithm) {
  return algorithm == Algorithm::kNsga2 ? "nsga2" : "moead";
}

bool dominates(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a.array() <= b.array()).all() && (a.array() < b.array()).any();
}

std::vector<Point> front(const Problem& problem, const Settings& settings) {
  check(problem, settings);
  Shared shared{problem, {}, {}};
  sample_scales(shared, settings.seed);
  const pagmo::population pop = evolve(shared, settings);
  std::vector<Point> feasible;
  for (pagmo::population::size_type k = 0; k < pop.size(); ++k) {
    const pagmo::vector_double& v = pop.get_x()[k];
    Point p;
    p.x = Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
    p.f.resize(problem.objectives);
    p.g.resize(problem.constraints);
    problem.evaluate(p.x, p.f, p.g);
    if (violation(p.g) <= 0.0 && p.f.allFinite()) feasible.push_back(p);
  }
  // Dominance with a margin of 1e-3 of each objective's range over the feasible points: q
  // dominates p when it is no worse than p + eps in every objective and better than p - eps in
  // one. A model's noise (a prediction of -3e-5 where the function is 0) must not keep a point
  // that is far worse in another objective (ZDT1's weakly dominated points at f1 = 0).
  Eigen::VectorXd lo = Eigen::VectorXd::Zero(problem.objectives), hi = lo;
  if (!feasible.empty()) lo = hi = feasible.front().f;
  for (const Point& p : feasible) lo = lo.cwiseMin(p.f), hi = hi.cwiseMax(p.f);
  const Eigen::VectorXd eps = 1e-3 * (hi - lo);
  std::vector<Point> out;
  for (const Point& p : feasible) {
    bool dominated = false;
    for (const Point& q : feasible)
      dominated = dominated || ((q.f.array() <= p.f.array() + eps.array()).all() &&
                                (q.f.array() < p.f.array() - eps.array()).any());
    for (const Point& q : out) dominated = dominated || (q.f - p.f).cwiseAbs().maxCoeff() == 0.0;
    if (!dominated) out.push_back(p);
  }
  std::sort(out.begin(), out.end(), [](const Point& a, const Point& b) { return a.f(0) < b.f(0); });
  return out;
}

std::vector<int> spread(const std::vector<Eigen::VectorXd>& points, int k) {
  std::vector<int> chosen;
  if (points.empty() || k <= 0) return chosen;
  const Eigen::Index m = points.front().size();
  Eigen::VectorXd lo = points.front(), hi = points.front();
  for (const auto& p : points) lo = lo.cwiseMin(p), hi = hi.cwiseMax(p);
  const Eigen::VectorXd width = (hi - lo).cwiseMax(1e-300);
  auto scaled = [&](int i) { return ((points[i] - lo).array() / width.array()).matrix(); };
  auto take = [&](int i) {
    if (static_cast<int>(chosen.size()) < k &&
        std::find(chosen.begin(), chosen.end(), i) == chosen.end())
      chosen.push_back(i);
  };
  for (Eigen::Index j = 0; j < m; ++j) {
    int best = 0;
    for (size_t i = 1; i < points.size(); ++i) {
      if (points[i](j) < points[best](j)) best = static_cast<int>(i);
    }
    take(best);
  }
  while (static_cast<int>(chosen.size()) < std::min<int>(k, static_cast<int>(points.size()))) {
    int far = -1;
    double far_d = -1.0;
    for (size_t i = 0; i < points.size(); ++i) {
      double d = std::numeric_limits<double>::infinity();
      for (int c : chosen) d = std::min(d, (scaled(static_cast<int>(i)) - scaled(c)).norm());
      if (d > far_d) far_d = d, far = static_cast<int>(i);
    }
    if (far_d <= 0.0) break;  // the rest coincide with chosen points
    take(far);
  }
  return chosen;
}

}  // namespace sao::pareto
