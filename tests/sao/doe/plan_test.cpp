// The plans of sao/doe (plan.hpp): their defining properties, determinism, the explicit
// constraints, existing points and the D-optimal hook.
#include "sao/doe/plan.hpp"

#include <gtest/gtest.h>

#include <boost/random/sobol.hpp>
#include <cmath>
#include <set>

#include "sao/metamodel/d_optimal.hpp"

namespace sao::doe {
namespace {

Region box(int d, double lower = 0.0, double upper = 1.0) {
  return {Eigen::VectorXd::Constant(d, lower), Eigen::VectorXd::Constant(d, upper)};
}

Request lhs(int n, int d, std::uint64_t seed = 1) {
  Request r;
  r.settings.method = Method::kLatinHypercube;
  r.settings.points = n;
  r.settings.seed = seed;
  r.region = box(d);
  return r;
}

// Every column holds one point in each of the n strata [k/n, (k+1)/n) of the region.
void expect_one_per_stratum(const Eigen::MatrixXd& x, const Region& region) {
  const int n = static_cast<int>(x.rows());
  for (int j = 0; j < x.cols(); ++j) {
    std::set<int> strata;
    for (int i = 0; i < n; ++i) {
      const double u = (x(i, j) - region.lower(j)) / (region.upper(j) - region.lower(j));
      strata.insert(static_cast<int>(std::floor(u * n)));
    }
    EXPECT_EQ(static_cast<int>(strata.size()), n) << "column " << j;
    EXPECT_EQ(*strata.begin(), 0);
    EXPECT_EQ(*strata.rbegin(), n - 1);
  }
}

TEST(DoePlan, LatinHypercubeHasOnePointPerStratumAndTheMaximinSearchKeepsIt) {
  const Eigen::MatrixXd plain = latin_hypercube(30, 4, 7);
  expect_one_per_stratum(plain, box(4));
  Request r = lhs(30, 4, 7);
  r.region = {Eigen::Vector4d(0.3, 2, 0.7, -5), Eigen::Vector4d(22, 200, 70, 5)};
  const Plan plan = make_plan(r);
  ASSERT_EQ(plan.points.rows(), 30);
  expect_one_per_stratum(plan.points, r.region);  // swaps keep the strata of every column
  for (int i = 0; i < 30; ++i) EXPECT_TRUE(r.region.contains(plan.points.row(i).transpose()));
}

TEST(DoePlan, MaximinRaisesTheSmallestDistanceOverThePlainHypercube) {
  for (std::uint64_t seed : {1, 2, 3}) {
    const Plan plan = make_plan(lhs(50, 6, seed));
    EXPECT_NEAR(plan.start_min_distance, min_distance(latin_hypercube(50, 6, seed)), 1e-15);
    EXPECT_GT(plan.min_distance, 1.3 * plan.start_min_distance) << "seed " << seed;
    std::printf("seed %d: smallest distance %.4f, plain %.4f\n", static_cast<int>(seed),
                plan.min_distance, plan.start_min_distance);
  }
}

TEST(DoePlan, APlanIsTheSameForTheSameSeedAndAnotherForAnother) {
  const Plan a = make_plan(lhs(20, 3, 5)), b = make_plan(lhs(20, 3, 5)),
             c = make_plan(lhs(20, 3, 6));
  EXPECT_EQ(a.points, b.points);  // bit for bit
  EXPECT_NE(a.points, c.points);
}

TEST(DoePlan, SobolPointsAreBoostsSequenceScaledToTheRegion) {
  boost::random::sobol engine(3);
  Request r;
  r.settings.method = Method::kSobol;
  r.settings.points = 16;
  r.region = {Eigen::Vector3d(1, -2, 10), Eigen::Vector3d(3, 2, 20)};
  const Plan plan = make_plan(r);
  ASSERT_EQ(plan.points.rows(), 16);
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 3; ++j) {
      const double u = std::ldexp(static_cast<double>(engine()), -64);
      EXPECT_DOUBLE_EQ(plan.points(i, j),
                       r.region.lower(j) + u * (r.region.upper(j) - r.region.lower(j)));
    }
  }
  // Boost starts at the sequence's point 1, the centre: the origin (a corner) is not a point.
  EXPECT_EQ(plan.points.row(0), Eigen::RowVector3d(2, 0, 15));
}

TEST(DoePlan, FullFactorialHasEveryCombinationOfTheLevels) {
  Request r;
  r.settings.method = Method::kFullFactorial;
  r.settings.levels = {3, 2, 4};
  r.region = {Eigen::Vector3d(0, 10, -1), Eigen::Vector3d(1, 20, 2)};
  const Plan plan = make_plan(r);
  ASSERT_EQ(plan.points.rows(), 24);
  std::set<std::vector<double>> rows;
  for (int i = 0; i < 24; ++i)
    rows.insert({plan.points(i, 0), plan.points(i, 1), plan.points(i, 2)});
  EXPECT_EQ(rows.size(), 24u);
  const std::vector<std::set<double>> levels = {{0, 0.5, 1}, {10, 20}, {-1, 0, 1, 2}};
  for (int j = 0; j < 3; ++j) {
    std::set<double> seen;
    for (int i = 0; i < 24; ++i) seen.insert(plan.points(i, j));
    EXPECT_EQ(seen, levels[j]) << "variable " << j;
  }
}

TEST(DoePlan, FractionalFactorialsOfTheTableHaveTheirResolutionAndOrthogonalMainEffects) {
  struct Case {
    int k, p, resolution;
  };
  for (const Case c : {Case{3, 1, 3}, Case{4, 1, 4}, Case{5, 1, 5}, Case{5, 2, 3}, Case{6, 2, 4},
                       Case{7, 3, 4}, Case{7, 4, 3}, Case{8, 2, 5}, Case{10, 3, 5}}) {
    const std::vector<Generator> g = table_generators(c.k, c.p);
    ASSERT_EQ(static_cast<int>(g.size()), c.p) << c.k << "-" << c.p;
    EXPECT_EQ(resolution(g), c.resolution) << c.k << "-" << c.p;
    const Eigen::MatrixXd x = two_level_design(c.k, g);
    ASSERT_EQ(x.rows(), 1L << (c.k - c.p));
    // Main effects orthogonal and balanced: X'X = N I, every column sums to 0.
    const Eigen::MatrixXd xtx = x.transpose() * x;
    EXPECT_TRUE(xtx.isApprox(x.rows() * Eigen::MatrixXd::Identity(c.k, c.k))) << c.k << "-" << c.p;
    EXPECT_TRUE(x.colwise().sum().isZero()) << c.k << "-" << c.p;
  }
}

TEST(DoePlan, FractionalFactorialPlanIsTheRegionsCornersAndPicksTheResolutionAsked) {
  Request r;
  r.settings.method = Method::kFractionalFactorial;
  r.settings.resolution = 4;
  r.region = box(6, -1.0, 3.0);
  const Plan plan = make_plan(r);
  EXPECT_EQ(plan.points.rows(), 16);  // 2^(6-2), resolution IV: E=ABC, F=BCD
  EXPECT_EQ(plan.resolution, 4);
  EXPECT_TRUE(((plan.points.array() == -1.0) || (plan.points.array() == 3.0)).all());
  r.settings.resolution = 5;  // 2^(6-1), resolution VI
  EXPECT_EQ(make_plan(r).points.rows(), 32);
  r.settings.generators = {{2, {0, 1}}};
  r.region = box(3);
  const Plan explicit_plan = make_plan(r);
  EXPECT_EQ(explicit_plan.points.rows(), 4);
  EXPECT_EQ(explicit_plan.resolution, 3);
}

TEST(DoePlan, ExplicitConstraintsReplaceSpaceFillingPointsAndDropFactorialOnes) {
  auto below_diagonal = [](const Eigen::VectorXd& x) { return x(0) + x(1) <= 1.0; };
  for (Method m : {Method::kLatinHypercube, Method::kSobol}) {
    Request r = lhs(40, 3);
    r.settings.method = m;
    r.feasible = below_diagonal;
    const Plan plan = make_plan(r);
    ASSERT_EQ(plan.points.rows(), 40);
    for (int i = 0; i < 40; ++i) EXPECT_TRUE(below_diagonal(plan.points.row(i).transpose()));
    if (m == Method::kSobol) {
      EXPECT_GT(plan.replaced, 0);  // skipped points of the sequence
    }
  }
  Request f;
  f.settings.method = Method::kFullFactorial;
  f.settings.levels = {3, 3};
  f.region = box(2);
  f.feasible = below_diagonal;
  const Plan plan = make_plan(f);
  EXPECT_EQ(plan.points.rows(), 6);  // of 9: (0.5, 1), (1, 0.5), (1, 1) dropped
  EXPECT_EQ(plan.dropped, 3);
  f.feasible = [](const Eigen::VectorXd&) { return false; };
  EXPECT_THROW(make_plan(f), PlanError);
  Request none = lhs(5, 2);
  none.feasible = f.feasible;
  EXPECT_THROW(make_plan(none), PlanError);
}

TEST(DoePlan, ALatinHypercubeKeepsAwayFromExistingPointsInsideTheRegion) {
  Request r = lhs(10, 2, 4);
  // A cluster of stored points in one corner, and one outside the region (ignored).
  r.existing.resize(5, 2);
  r.existing << 0.05, 0.05, 0.1, 0.05, 0.05, 0.1, 0.1, 0.1, 5.0, 5.0;
  const Plan plan = make_plan(r);
  EXPECT_EQ(plan.existing, 4);
  Eigen::MatrixXd inside = r.existing.topRows(4);
  const Plan alone = make_plan(lhs(10, 2, 4));
  EXPECT_GT(min_distance(plan.points, inside), min_distance(alone.points, inside));
}

// D-optimal: the metamodel library's exchange over a Latin hypercube of candidates. For a
// quadratic in 2 variables, 6 points (its 6 terms) chosen that way have a larger det(X'X)
// than the plain Latin hypercube of 6 and than the first 6 candidates; with stored points in
// the region, the plan completes them (none repeated) and the design of both is better still
// than the stored points with a plain hypercube.
TEST(DoePlan, DOptimalMaximisesTheInformationOfTheQuadraticAndCompletesStoredPoints) {
  Request r = lhs(6, 2);
  r.settings.method = Method::kDOptimal;
  r.settings.polynomial = Polynomial::kQuadratic;
  const Plan plan = make_plan(r);
  ASSERT_EQ(plan.points.rows(), 6);
  const metamodel::PolynomialBasis basis({r.region.lower, r.region.upper},
                                         metamodel::PolynomialOrder::quadratic);
  const double chosen = metamodel::log_det_information(basis, plan.points);
  EXPECT_GT(chosen, metamodel::log_det_information(basis, make_plan(lhs(6, 2)).points));
  EXPECT_TRUE(std::isfinite(chosen));
  EXPECT_EQ(make_plan(r).points, plan.points);  // deterministic for its seed

  Request more = r;
  more.settings.points = 4;
  more.existing = plan.points.topRows(3);  // three stored points inside the region
  const Plan completed = make_plan(more);
  ASSERT_EQ(completed.points.rows(), 4);
  Eigen::MatrixXd all(7, 2), plain(7, 2);
  all << more.existing, completed.points;
  plain << more.existing, make_plan(lhs(4, 2)).points;
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 3; ++k) EXPECT_NE(completed.points.row(i), more.existing.row(k));
  }
  EXPECT_GT(metamodel::log_det_information(basis, all),
            metamodel::log_det_information(basis, plain));
}

}  // namespace
}  // namespace sao::doe
