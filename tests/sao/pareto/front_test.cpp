// pagmo2's NSGA-II and MOEA/D through sao/pareto/front.hpp on closed-form problems whose fronts
// are known: ZDT1 (f2 = 1 - sqrt(f1)) and a constrained one (the penalty keeps the front
// feasible), and the choice of spread points.
#include "sao/pareto/front.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace {

using sao::pareto::Algorithm;
using sao::pareto::Point;
using sao::pareto::Problem;
using sao::pareto::Settings;

Problem zdt1(int n) {
  Problem p;
  p.lower = Eigen::VectorXd::Zero(n);
  p.upper = Eigen::VectorXd::Ones(n);
  p.objectives = 2;
  p.evaluate = [](const Eigen::VectorXd& x, Eigen::VectorXd& f, Eigen::VectorXd&) {
    const double g = 1.0 + 9.0 * x.tail(x.size() - 1).sum() / static_cast<double>(x.size() - 1);
    f(0) = x(0);
    f(1) = g * (1.0 - std::sqrt(x(0) / g));
  };
  return p;
}

// Mean distance (in f2) of the points from f2 = 1 - sqrt(f1).
double distance_to_zdt1(const std::vector<Point>& front) {
  double sum = 0.0;
  for (const Point& p : front) sum += std::abs(p.f(1) - (1.0 - std::sqrt(p.f(0))));
  return sum / static_cast<double>(front.size());
}

TEST(ParetoFront, Nsga2FindsZdt1sFront) {
  const std::vector<Point> front = sao::pareto::front(zdt1(5), Settings{});
  ASSERT_GE(front.size(), 50u);
  EXPECT_LT(distance_to_zdt1(front), 0.01);
  EXPECT_LT(front.front().f(0), 0.02);  // sorted by f1, spanning [0, 1]
  EXPECT_GT(front.back().f(0), 0.98);
  for (size_t i = 1; i < front.size(); ++i) {
    EXPECT_LE(front[i - 1].f(0), front[i].f(0));
    EXPECT_GT(front[i - 1].f(1), front[i].f(1));  // nondominated: f2 falls as f1 rises
  }
}

TEST(ParetoFront, MoeadFindsZdt1sFrontToo) {
  Settings s;
  s.algorithm = Algorithm::kMoead;
  s.generations = 300;
  const std::vector<Point> front = sao::pareto::front(zdt1(5), s);
  ASSERT_GE(front.size(), 20u);
  EXPECT_LT(distance_to_zdt1(front), 0.02);
}

TEST(ParetoFront, TheSameSeedGivesTheSameFront) {
  const auto a = sao::pareto::front(zdt1(3), Settings{});
  const auto b = sao::pareto::front(zdt1(3), Settings{});
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].x, b[i].x);
}

// min (x, y) over the box [0, 1]^2 subject to x + y >= 1: the front is the segment x + y = 1,
// every point of which violates nothing; unconstrained, the front would be the point (0, 0).
TEST(ParetoFront, ConstraintsKeepTheFrontFeasible) {
  Problem p;
  p.lower = Eigen::VectorXd::Zero(2);
  p.upper = Eigen::VectorXd::Ones(2);
  p.objectives = 2;
  p.constraints = 1;
  p.evaluate = [](const Eigen::VectorXd& x, Eigen::VectorXd& f, Eigen::VectorXd& g) {
    f = x;
    g(0) = 1.0 - x(0) - x(1);
  };
  const std::vector<Point> front = sao::pareto::front(p, Settings{});
  ASSERT_GE(front.size(), 20u);
  for (const Point& q : front) {
    EXPECT_LE(q.g(0), 0.0);
    EXPECT_NEAR(q.f(0) + q.f(1), 1.0, 0.02);
  }
  EXPECT_LT(front.front().f(0), 0.05);
  EXPECT_GT(front.back().f(0), 0.95);
}

TEST(ParetoFront, SpreadTakesTheExtremesThenTheFarthestPoints) {
  std::vector<Eigen::VectorXd> points;
  for (int i = 0; i <= 10; ++i) points.push_back(Eigen::Vector2d(i / 10.0, 1.0 - i / 10.0));
  const std::vector<int> chosen = sao::pareto::spread(points, 3);
  ASSERT_EQ(chosen.size(), 3u);
  EXPECT_EQ(chosen[0], 0);   // least f1
  EXPECT_EQ(chosen[1], 10);  // least f2
  EXPECT_EQ(chosen[2], 5);   // the middle: farthest from both
  EXPECT_EQ(sao::pareto::spread(points, 50).size(), 11u);
}

TEST(ParetoFront, BadSettingsAreRefused) {
  Problem p = zdt1(2);
  p.upper(1) = 0.0;  // upper == lower
  EXPECT_THROW(sao::pareto::front(p, Settings{}), std::invalid_argument);
  Problem one = zdt1(2);
  one.objectives = 1;
  EXPECT_THROW(sao::pareto::front(one, Settings{}), std::invalid_argument);
}

}  // namespace
