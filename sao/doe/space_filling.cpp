// Space-filling plans: Latin hypercubes with a maximin search, Sobol points, and the points that
// replace those violating explicit constraints (plan.hpp).
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/sobol.hpp>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <cmath>
#include <numeric>

#include "sao/doe/plan_parts.hpp"

namespace sao::doe {
namespace {

using Rng = boost::random::mt19937_64;

// The Morris-Mitchell criterion's exponent: large enough that lowering the criterion raises the
// smallest distance first, small enough that d^-p stays far inside the double range.
constexpr double kExponent = 15.0;

// Pairwise distances of the rows of `a` (n x n, the diagonal unused) and to the rows of `b`.
struct Distances {
  const Eigen::MatrixXd& a;
  const Eigen::MatrixXd& b;
  Eigen::MatrixXd among, to_existing;

  Distances(const Eigen::MatrixXd& points, const Eigen::MatrixXd& existing)
      : a(points),
        b(existing),
        among(points.rows(), points.rows()),
        to_existing(points.rows(), existing.rows()) {
    for (int i = 0; i < a.rows(); ++i) update(i);
  }
  void update(int i) {
    for (int k = 0; k < a.rows(); ++k) among(i, k) = among(k, i) = (a.row(i) - a.row(k)).norm();
    for (int k = 0; k < b.rows(); ++k) to_existing(i, k) = (a.row(i) - b.row(k)).norm();
  }
  static double term(double distance) { return std::pow(std::max(distance, 1e-12), -kExponent); }
  // sum of d^-p over every pair (and every point-to-existing pair).
  double criterion() const {
    double sum = 0.0;
    for (int i = 0; i < a.rows(); ++i) {
      for (int k = i + 1; k < a.rows(); ++k) sum += term(among(i, k));
      for (int k = 0; k < b.rows(); ++k) sum += term(to_existing(i, k));
    }
    return sum;
  }
  // The terms of the pairs of rows i and r (the pair (i, r) once).
  double terms_of(int i, int r) const {
    double sum = 0.0;
    for (int k = 0; k < a.rows(); ++k) {
      if (k != i) sum += term(among(i, k));
      if (k != r && k != i) sum += term(among(r, k));
    }
    for (int k = 0; k < b.rows(); ++k) sum += term(to_existing(i, k)) + term(to_existing(r, k));
    return sum;
  }
  // The row of `a` in the closest pair.
  int critical_row() const {
    double best = std::numeric_limits<double>::infinity();
    int row = 0;
    for (int i = 0; i < a.rows(); ++i) {
      for (int k = i + 1; k < a.rows(); ++k) {
        if (among(i, k) < best) best = among(i, k), row = i;
      }
      for (int k = 0; k < b.rows(); ++k) {
        if (to_existing(i, k) < best) best = to_existing(i, k), row = i;
      }
    }
    return row;
  }
};

int uniform_int(Rng& rng, int low, int high) {
  return boost::random::uniform_int_distribution<int>(low, high)(rng);
}

}  // namespace

Eigen::MatrixXd latin_hypercube(int n, int d, std::uint64_t seed) {
  Rng rng(seed);
  boost::random::uniform_01<double> unit;
  Eigen::MatrixXd x(n, d);
  std::vector<int> strata(n);
  for (int j = 0; j < d; ++j) {
    std::iota(strata.begin(), strata.end(), 0);
    for (int i = n - 1; i > 0; --i) std::swap(strata[i], strata[uniform_int(rng, 0, i)]);
    for (int i = 0; i < n; ++i) x(i, j) = (strata[i] + unit(rng)) / n;
  }
  return x;
}

Eigen::MatrixXd sobol_points(int n, int d) {
  // Boost's engine starts at the sequence's point 1, (0.5, ..., 0.5): the origin, point 0, is
  // never generated. Each value is an integer over [0, 2^64).
  boost::random::sobol engine(d);
  Eigen::MatrixXd x(n, d);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < d; ++j) x(i, j) = std::ldexp(static_cast<double>(engine()), -64);
  }
  return x;
}

double min_distance(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  double best = std::numeric_limits<double>::quiet_NaN();
  auto take = [&](double d) {
    if (!(best <= d)) best = d;
  };
  for (int i = 0; i < a.rows(); ++i) {
    for (int k = i + 1; k < a.rows(); ++k) take((a.row(i) - a.row(k)).norm());
    for (int k = 0; k < b.rows(); ++k) take((a.row(i) - b.row(k)).norm());
  }
  return best;
}

int maximin_search(Eigen::MatrixXd& x, const Eigen::MatrixXd& existing, int iterations,
                   std::uint64_t seed, const UnitFeasible& feasible) {
  const int n = static_cast<int>(x.rows()), d = static_cast<int>(x.cols());
  std::vector<char> ok(n, 1);
  int infeasible = 0;
  for (int i = 0; i < n; ++i) infeasible += !(ok[i] = feasible(x.row(i).transpose()));
  if (n < 2) return infeasible;
  Rng rng(seed ^ 0x9e3779b97f4a7c15ULL);  // another stream than the hypercube's
  Distances distances(x, existing);
  double phi = distances.criterion();
  for (int it = 0; it < iterations; ++it) {
    // Half the swaps move a point of the closest pair (or an infeasible one), the others any.
    int i = uniform_int(rng, 0, n - 1);
    if (infeasible > 0 && it % 2 == 0) {
      int pick = uniform_int(rng, 0, infeasible - 1);
      for (int k = 0; k < n; ++k) {
        if (!ok[k] && pick-- == 0) i = k;
      }
    } else if (it % 2 == 0) {
      i = distances.critical_row();
    }
    int r = uniform_int(rng, 0, n - 2);
    if (r >= i) ++r;
    const int j = uniform_int(rng, 0, d - 1);
    std::swap(x(i, j), x(r, j));
    const char ok_i = feasible(x.row(i).transpose()), ok_r = feasible(x.row(r).transpose());
    const int infeasible_after = infeasible - !ok[i] - !ok[r] + !ok_i + !ok_r;
    const double before = distances.terms_of(i, r);
    distances.update(i);
    distances.update(r);
    // Incremental; recomputed in full now and then, so that rounding does not accumulate.
    const double phi_after =
        it % (4 * n) == 0 ? distances.criterion() : phi - before + distances.terms_of(i, r);
    if (infeasible_after < infeasible || (infeasible_after == infeasible && phi_after < phi)) {
      infeasible = infeasible_after;
      phi = phi_after;
      ok[i] = ok_i;
      ok[r] = ok_r;
      continue;
    }
    std::swap(x(i, j), x(r, j));  // undone
    distances.update(i);
    distances.update(r);
  }
  return infeasible;
}

int replace_infeasible(Eigen::MatrixXd& x, const Eigen::MatrixXd& existing, std::uint64_t seed,
                       const UnitFeasible& feasible) {
  Rng rng(seed ^ 0x5851f42d4c957f2dULL);
  boost::random::uniform_01<double> unit;
  constexpr int kCandidates = 50, kDraws = 100000;
  int replaced = 0;
  for (int i = 0; i < x.rows(); ++i) {
    if (feasible(x.row(i).transpose())) continue;
    Eigen::VectorXd best;
    double best_distance = -1.0;
    int found = 0;
    for (int draw = 0; draw < kDraws && found < kCandidates; ++draw) {
      Eigen::VectorXd u(x.cols());
      for (int j = 0; j < x.cols(); ++j) u(j) = unit(rng);
      if (!feasible(u)) continue;
      ++found;
      double nearest = std::numeric_limits<double>::infinity();
      for (int k = 0; k < x.rows(); ++k) {
        if (k != i) nearest = std::min(nearest, (x.row(k).transpose() - u).norm());
      }
      for (int k = 0; k < existing.rows(); ++k) {
        nearest = std::min(nearest, (existing.row(k).transpose() - u).norm());
      }
      if (nearest > best_distance) best_distance = nearest, best = u;
    }
    if (found == 0) {
      throw PlanError("no design of " + std::to_string(kDraws) +
                      " random ones in the region holds the explicit constraints (constraints "
                      "of design variables only): widen doe.region or check the constraints");
    }
    x.row(i) = best.transpose();
    ++replaced;
  }
  return replaced;
}

Eigen::MatrixXd feasible_sobol(int n, int d, const UnitFeasible& feasible, int& skipped) {
  boost::random::sobol engine(d);
  Eigen::MatrixXd x(n, d);
  skipped = 0;
  const long limit = 1000L * n + 100000;
  for (int i = 0; i < n;) {
    Eigen::VectorXd u(d);
    for (int j = 0; j < d; ++j) u(j) = std::ldexp(static_cast<double>(engine()), -64);
    if (feasible(u)) {
      x.row(i++) = u.transpose();
    } else if (++skipped > limit) {
      throw PlanError("doe.points: only " + std::to_string(i) + " of the first " +
                      std::to_string(i + skipped) +
                      " Sobol points hold the explicit constraints (constraints of design "
                      "variables only): widen doe.region or check the constraints");
    }
  }
  return x;
}

}  // namespace sao::doe
