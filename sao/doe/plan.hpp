// Designs of experiments (issue 50): the plans of `sao doe`, as points in a box region of the
// design space. A library of its own, on Eigen and Boost.Random only: it knows nothing of
// studies, stores or simulators. The study loader reads a study's "doe" section into Settings
// (sao/study), the DOE run (sao/store/doe_run.hpp) gives the region, the explicit constraints
// (a predicate) and the stored points, and analyses the plan (docs/doe.md).
//
// Every plan is deterministic for its settings and seed (Boost's Mersenne twister and
// distributions, which give the same numbers on every platform). Distances are measured in the
// region scaled to the unit cube [0, 1]^n.
//
//   lhs                    Latin hypercube: n points, one in each of the n strata of every
//                          variable; then a maximin search (column swaps that lower the
//                          Morris-Mitchell criterion, so raise the smallest pairwise distance),
//                          also keeping away from the existing points given
//   sobol                  the first n points of Boost's Sobol sequence, scaled to the region,
//                          the origin (its point 0, a corner) skipped
//   full_factorial         every combination of levels (per variable, equally spaced, ends
//                          included)
//   fractional_factorial   a two-level 2^(k-p) design (the region's corners) given by generators
//                          (each generated variable the product of base variables, in -1/+1);
//                          by default the minimum-aberration designs of Montgomery's table 8.14
//   d_optimal              a subset of candidates (a Latin hypercube) maximising det(X'X) of a
//                          polynomial, completing the existing points inside the region: the
//                          exchange is the metamodel library's (sao/metamodel/d_optimal.hpp)
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace sao::doe {

enum class Method { kLatinHypercube, kSobol, kFullFactorial, kFractionalFactorial, kDOptimal };
enum class Polynomial { kLinear, kInteraction, kQuadratic };

// The words of the study file ("lhs", ...), and back (false for an unknown word).
const char* method_name(Method method);
bool method_from_name(const std::string& name, Method& method);
const char* polynomial_name(Polynomial polynomial);
bool polynomial_from_name(const std::string& name, Polynomial& polynomial);

// A fractional factorial's generator: variable `generated` is the product of `factors`.
struct Generator {
  int generated = 0;
  std::vector<int> factors;
};

struct Settings {
  Method method = Method::kLatinHypercube;
  int points = 0;           // lhs, sobol, d_optimal: points of the plan
  std::uint64_t seed = 1;   // lhs, d_optimal (its candidates)
  int iterations = 10000;   // lhs: column swaps tried by the maximin search
  std::vector<int> levels;  // full_factorial: per variable, >= 2
  // fractional_factorial: explicit generators, or else the table's design of `fraction` p
  // (> 0), or else the table's smallest design of at least `resolution`.
  std::vector<Generator> generators;
  int fraction = 0;
  int resolution = 4;
  Polynomial polynomial = Polynomial::kQuadratic;  // d_optimal
  int candidates = 0;  // d_optimal: candidate points (0: max(20 x points, 500))
};

// The box a plan fills: absolute bounds per variable, lower < upper.
struct Region {
  Eigen::VectorXd lower, upper;
  Eigen::VectorXd to_unit(const Eigen::VectorXd& x) const;
  Eigen::VectorXd from_unit(const Eigen::VectorXd& u) const;
  bool contains(const Eigen::VectorXd& x) const;
};

struct Request {
  Settings settings;
  Region region;
  // Whether a design (absolute values) satisfies the explicit constraints; null: every one.
  std::function<bool(const Eigen::VectorXd&)> feasible;
  // Designs already analysed (rows, absolute values): those inside the region are points a
  // Latin hypercube keeps away from and a D-optimal plan completes (not part of the plan).
  Eigen::MatrixXd existing;
};

struct Plan {
  Eigen::MatrixXd points;  // rows: the designs (absolute values), in the order analysed
  // The smallest distance (unit cube) between two points of the plan or from one to an
  // existing point inside the region; NaN with fewer than two points.
  double min_distance = std::numeric_limits<double>::quiet_NaN();
  // lhs: the same for the plain Latin hypercube the maximin search started from.
  double start_min_distance = std::numeric_limits<double>::quiet_NaN();
  int replaced = 0;    // lhs, sobol, d_optimal candidates: points replaced (explicit constraints)
  int dropped = 0;     // factorials: points dropped (explicit constraints)
  int existing = 0;    // existing points inside the region (lhs: kept away from)
  int resolution = 0;  // fractional_factorial: the shortest word of the defining relation (0: full)
  std::vector<Generator> generators;  // fractional_factorial: those used
};

// A plan that cannot be made (its settings, the region, the constraints leave no room): the
// message says why, in the words of the study file's "doe" section.
class PlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The plan of `request`. Throws PlanError.
Plan make_plan(const Request& request);

// The building blocks, in the unit cube (rows: points).
// n points of a random Latin hypercube in d dimensions: column j holds (pi_j(i) + u_ij) / n.
Eigen::MatrixXd latin_hypercube(int n, int d, std::uint64_t seed);
// The first n points of Boost's Sobol sequence in d dimensions, its point 0 (the origin)
// skipped, as doubles in [0, 1).
Eigen::MatrixXd sobol_points(int n, int d);
// The smallest distance between two rows of `a`, or from a row of `a` to one of `b`.
double min_distance(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b = {});
// Full factorial levels (per variable) as fractions 0..1, the first variable varying slowest.
Eigen::MatrixXd full_factorial(const std::vector<int>& levels);
// A 2^(k-p) design in -1/+1 (rows in standard order of the base variables).
Eigen::MatrixXd two_level_design(int k, const std::vector<Generator>& generators);
// The table's generators of the 2^(k-p) design (Montgomery, table 8.14); empty when the table
// has none for (k, p).
std::vector<Generator> table_generators(int k, int p);
// The resolution of a design with these generators: the shortest word of its defining
// relation (0 for none: a full factorial).
int resolution(const std::vector<Generator>& generators);

}  // namespace sao::doe
