// The parts of make_plan (plan.cpp) in the unit cube, internal to sao/doe.
#pragma once

#include <functional>

#include "sao/doe/plan.hpp"

namespace sao::doe {

// The explicit constraints of a point of the unit cube.
using UnitFeasible = std::function<bool(const Eigen::VectorXd&)>;

// Column swaps of the Latin hypercube `x` that lower the number of infeasible points first,
// then the Morris-Mitchell criterion (sum of d^-15 over every pair of points and every pair of a
// point and an existing one): `iterations` tries. Returns the infeasible points left.
int maximin_search(Eigen::MatrixXd& x, const Eigen::MatrixXd& existing, int iterations,
                   std::uint64_t seed, const UnitFeasible& feasible);
// Replaces each infeasible row of `x` by the feasible random point farthest from the others
// (of up to 50 feasible draws). Returns how many were replaced; PlanError when no draw of
// 100000 is feasible.
int replace_infeasible(Eigen::MatrixXd& x, const Eigen::MatrixXd& existing, std::uint64_t seed,
                       const UnitFeasible& feasible);
// The first n feasible Sobol points (sobol_points, the infeasible ones skipped and counted).
Eigen::MatrixXd feasible_sobol(int n, int d, const UnitFeasible& feasible, int& skipped);

}  // namespace sao::doe
