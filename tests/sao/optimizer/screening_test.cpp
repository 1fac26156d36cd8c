#include "sao/optimizer/screening.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <initializer_list>
#include <stdexcept>

#include "sao/study/study_loader.hpp"

namespace sao {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Eigen::VectorXd history(std::initializer_list<double> values) {
  Eigen::VectorXd g(static_cast<Eigen::Index>(values.size()));
  Eigen::Index p = 0;
  for (double v : values) g[p++] = v;
  return g;
}

// ---------------------------------------------------------------------------------------
// above_cutoff

TEST(Screening, CutoffBoundaryIsRetained) {
  const double cutoff = 0.7;
  const double boundary = -(1.0 - cutoff);
  EXPECT_TRUE(above_cutoff(boundary, cutoff));
  EXPECT_FALSE(above_cutoff(std::nextafter(boundary, -1.0), cutoff));
  EXPECT_TRUE(above_cutoff(0.5, cutoff));
  EXPECT_FALSE(above_cutoff(-0.5, cutoff));
}

TEST(Screening, CutoffZeroRetainsDownToMinusOne) {
  EXPECT_TRUE(above_cutoff(-1.0, 0.0));
  EXPECT_FALSE(above_cutoff(-1.0001, 0.0));
}

// ---------------------------------------------------------------------------------------
// local_maxima

TEST(Screening, FindsInteriorMaxima) {
  EXPECT_THAT(local_maxima(history({0, 1, 0, 2, 0})), ElementsAre(1, 3));
}

TEST(Screening, FirstAndLastPointAreMaximaWhenAboveTheirNeighbour) {
  EXPECT_THAT(local_maxima(history({3, 1, 2, 1, 4})), ElementsAre(0, 2, 4));
}

TEST(Screening, EndsAreNotMaximaWhenTheirNeighbourIsHigher) {
  EXPECT_THAT(local_maxima(history({1, 2, 1})), ElementsAre(1));
}

TEST(Screening, ReturnsEveryPointOfAPlateauMaximum) {
  EXPECT_THAT(local_maxima(history({0, 1, 1, 1, 0})), ElementsAre(1, 2, 3));
}

TEST(Screening, PlateauWithAHigherNeighbourIsNoMaximum) {
  // A shoulder: the plateau rises to a higher point on its right.
  EXPECT_THAT(local_maxima(history({0, 1, 1, 2, 0})), ElementsAre(3));
  // A shoulder on the way down from the first point.
  EXPECT_THAT(local_maxima(history({2, 1, 1, 0})), ElementsAre(0));
}

TEST(Screening, PlateauAtAnEndNeedsOnlyItsInnerNeighbourLower) {
  EXPECT_THAT(local_maxima(history({0, 1, 2, 2})), ElementsAre(2, 3));
  EXPECT_THAT(local_maxima(history({2, 2, 1, 0})), ElementsAre(0, 1));
}

TEST(Screening, ValleyPlateauIsNoMaximum) {
  EXPECT_THAT(local_maxima(history({1, 0, 0, 1})), ElementsAre(0, 3));
}

TEST(Screening, ConstantHistoryIsOneMaximum) {
  EXPECT_THAT(local_maxima(history({0.5, 0.5, 0.5})), ElementsAre(0, 1, 2));
}

TEST(Screening, SinglePointIsAMaximum) {
  EXPECT_THAT(local_maxima(history({-3.0})), ElementsAre(0));
}

TEST(Screening, EmptyHistoryHasNoMaximum) {
  EXPECT_THAT(local_maxima(Eigen::VectorXd()), IsEmpty());
}

TEST(Screening, MonotoneHistoryHasOnlyItsEndAsMaximum) {
  EXPECT_THAT(local_maxima(history({-0.9, -0.5, 0.0, 0.3})), ElementsAre(3));
  EXPECT_THAT(local_maxima(history({0.3, 0.0, -0.5, -0.9})), ElementsAre(0));
}

// ---------------------------------------------------------------------------------------
// retained_time_points

TEST(Screening, KeepsNeighboursOfEveryMaximumAboveCutoff) {
  // Maxima at 3 (-0.1, above -0.3) and 7 (-0.5, below); the neighbours of 3 are kept even
  // though they are below the cutoff themselves; nothing around 7 is kept.
  const auto g = history({-0.9, -0.6, -0.4, -0.1, -0.5, -0.8, -0.6, -0.5, -0.7, -0.9, -0.95});
  EXPECT_THAT(retained_time_points(g, 0.7, 1, true), ElementsAre(2, 3, 4));
  EXPECT_THAT(retained_time_points(g, 0.7, 2, true), ElementsAre(1, 2, 3, 4, 5));
}

TEST(Screening, KeepsOnlyMaximaAboveCutoffAmongSeveral) {
  // Maxima: 1 (0.2, kept), 4 (-0.6, dropped), 7 (-0.2, kept), 10 (-0.35, dropped).
  const auto g = history({0.0, 0.2, -0.8, -0.9, -0.6, -0.9, -0.8, -0.2, -0.9, -0.95, -0.35});
  EXPECT_THAT(local_maxima(g), ElementsAre(1, 4, 7, 10));
  EXPECT_THAT(retained_time_points(g, 0.7, 1, true), ElementsAre(0, 1, 2, 6, 7, 8));
}

TEST(Screening, OverlappingNeighbourhoodsAreMerged) {
  const auto g = history({-0.9, 0.1, -0.5, 0.2, -0.9, -0.9, -0.9});
  EXPECT_THAT(retained_time_points(g, 0.7, 2, true), ElementsAre(0, 1, 2, 3, 4, 5));
}

TEST(Screening, NeighboursAreClippedAtTheEnds) {
  const auto g = history({0.2, 0.1, 0.0, -0.1, -0.2, -0.1, 0.0, 0.3});
  EXPECT_THAT(retained_time_points(g, 0.7, 2, true), ElementsAre(0, 1, 2, 5, 6, 7));
  EXPECT_THAT(retained_time_points(g, 0.7, 100, true), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
  EXPECT_THAT(retained_time_points(g, 0.7, INT_MAX, true), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
}

TEST(Screening, ZeroNeighboursKeepsOnlyTheMaxima) {
  const auto g = history({-0.9, 0.1, -0.2, 0.2, -0.9});
  EXPECT_THAT(retained_time_points(g, 0.7, 0, true), ElementsAre(1, 3));
}

TEST(Screening, PlateauMaximumKeepsAllItsPointsAndNeighbours) {
  const auto g = history({-0.9, -0.8, -0.5, 0.1, 0.1, 0.1, -0.5, -0.8, -0.9});
  EXPECT_THAT(retained_time_points(g, 0.7, 0, true), ElementsAre(3, 4, 5));
  EXPECT_THAT(retained_time_points(g, 0.7, 1, true), ElementsAre(2, 3, 4, 5, 6));
}

TEST(Screening, PlateauMaximumAtAnEnd) {
  const auto g = history({-0.9, -0.8, -0.5, -0.2, -0.2});
  EXPECT_THAT(retained_time_points(g, 0.7, 2, true), ElementsAre(1, 2, 3, 4));
}

TEST(Screening, RegionalisationOffKeepsEveryPointAboveCutoff) {
  // Points 1, 2, 3 and 5 are above -0.3; only 2 and 5 are maxima.
  const auto g = history({-0.9, -0.2, -0.1, -0.25, -0.5, 0.1});
  EXPECT_THAT(retained_time_points(g, 0.7, 2, false), ElementsAre(1, 2, 3, 5));
  EXPECT_THAT(retained_time_points(g, 0.7, 0, true), ElementsAre(2, 5));
}

TEST(Screening, ConstantHistoryIsRetainedWholeOrNotAtAll) {
  EXPECT_THAT(retained_time_points(history({-0.1, -0.1, -0.1, -0.1}), 0.7, 0, true),
              ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(retained_time_points(history({-0.5, -0.5, -0.5}), 0.7, 2, true), IsEmpty());
}

TEST(Screening, SinglePointHistory) {
  EXPECT_THAT(retained_time_points(history({-0.2}), 0.7, 2, true), ElementsAre(0));
  EXPECT_THAT(retained_time_points(history({-0.4}), 0.7, 2, true), IsEmpty());
  EXPECT_THAT(retained_time_points(history({-0.2}), 0.7, 2, false), ElementsAre(0));
}

TEST(Screening, MonotoneHistoryKeepsTheEndAndItsNeighbours) {
  const auto g = history({-0.6, -0.4, -0.2, 0.0});
  EXPECT_THAT(retained_time_points(g, 0.7, 1, true), ElementsAre(2, 3));
}

TEST(Screening, MaximumExactlyAtTheCutoffIsRetained) {
  const double cutoff = 0.7;
  const double boundary = -(1.0 - cutoff);
  EXPECT_THAT(retained_time_points(history({-0.9, boundary, -0.9}), cutoff, 1, true),
              ElementsAre(0, 1, 2));
  const double just_below = std::nextafter(boundary, -1.0);
  EXPECT_THAT(retained_time_points(history({-0.9, just_below, -0.9}), cutoff, 1, true), IsEmpty());
}

TEST(Screening, EmptyHistoryRetainsNothing) {
  EXPECT_THAT(retained_time_points(Eigen::VectorXd(), 0.7, 2, true), IsEmpty());
  EXPECT_THAT(retained_time_points(Eigen::VectorXd(), 0.7, 2, false), IsEmpty());
}

TEST(Screening, NegativeNeighboursIsAnError) {
  EXPECT_THROW(retained_time_points(history({0.0, 1.0}), 0.7, -1, true), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------
// screen_study

// One scalar response q = x1 + x2 (the value comes from the model, not from x).
class SumModel final : public ResponseModel {
 public:
  double value(int, int, int, const Eigen::VectorXd& x) const override { return x(0) + x(1); }
  void add_gradient(int, int, int, const Eigen::VectorXd&, double coef,
                    Eigen::Ref<Eigen::VectorXd> grad) const override {
    grad(0) += coef;
    grad(1) += coef;
  }
};

LoadedStudy sum_study(const nlohmann::json& constraint,
                      const nlohmann::json& settings = nlohmann::json::object()) {
  nlohmann::json d = {{"load_cases", {{{"name", "only"}}}},
                      {"settings", settings},
                      {"responses", {{{"name", "q"}, {"kind", "scalar"}}}},
                      {"objective", {{"minimize", "q"}}},
                      {"constraints", {constraint}},
                      {"simulator", {{"type", "fake"}}}};
  for (const char* name : {"x1", "x2"}) {
    d["design_variables"].push_back(
        {{"name", name}, {"lower", 0.0}, {"upper", 4.0}, {"initial", 1.0}});
  }
  return load_study(d);
}

// HS 73 from sum x = 4: the side q >= 1 is far inside its bound, q <= 1 far violated. Without
// its other side the subproblem took q = 1 for an inequality and proposed q = 0.48.
TEST(Screening, KeepsBothSidesOfAnEqualityWhenOnlyOneIsNearItsBound) {
  const LoadedStudy s = sum_study({{"name", "h"}, {"of", {{"response", "q"}}}, {"equals", 1.0}});
  ASSERT_EQ(s.constraints.size(), 2u);
  EXPECT_EQ(s.constraints[0].equality_partner, 1);
  EXPECT_EQ(s.constraints[1].equality_partner, 0);
  const SumModel model;
  for (const double x : {2.0, 0.05}) {  // q = 4: the >= side is out; q = 0.1: the <= side is
    const ScreenedStudy screened = screen_study(s, s.options, Eigen::Vector2d(x, x), model);
    ASSERT_EQ(screened.rows.size(), 2u) << "at q = " << 2 * x;
    EXPECT_EQ(screened.rows[0].constraint, 0);
    EXPECT_EQ(screened.rows[1].constraint, 1);
    EXPECT_EQ(screened.retained_constraints, 2);
  }
}

// The same two bounds given as "lower" and "upper" are two inequalities, screened apart.
TEST(Screening, ScreensTheSidesOfARangeApart) {
  const LoadedStudy s =
      sum_study({{"name", "r"}, {"of", {{"response", "q"}}}, {"lower", 1.0}, {"upper", 1.2}});
  ASSERT_EQ(s.constraints.size(), 2u);
  EXPECT_EQ(s.constraints[0].equality_partner, -1);
  const SumModel model;
  const ScreenedStudy screened = screen_study(s, s.options, Eigen::Vector2d(2.0, 2.0), model);
  ASSERT_EQ(screened.rows.size(), 1u);
  EXPECT_EQ(s.constraints[screened.rows[0].constraint].sense, Sense::kLessEqual);
}

// The trust region retains a scalar constraint from its zero on (Options::scalar_cutoff): q <= 4
// at q = 2 (g_hat = -0.5) enters its subproblem; the seed's strategy screens it out at its
// cutoff 0.7 (g_hat >= -0.3), and so does the trust region when that cutoff is given.
TEST(Screening, TheTrustRegionRetainsAScalarConstraintFromItsZeroUnlessACutoffIsGiven) {
  const nlohmann::json c = {{"name", "c"}, {"of", {{"response", "q"}}}, {"upper", 4.0}};
  const SumModel model;
  const Eigen::Vector2d x(1.0, 1.0);
  const LoadedStudy trust_region = sum_study(c);
  EXPECT_EQ(screen_study(trust_region, trust_region.options, x, model).rows.size(), 1u);
  const LoadedStudy seed = sum_study(c, {{"strategy", "seed"}});
  EXPECT_TRUE(screen_study(seed, seed.options, x, model).rows.empty());
  const LoadedStudy given = sum_study(c, {{"cutoff", 0.7}});
  EXPECT_TRUE(screen_study(given, given.options, x, model).rows.empty());
  const LoadedStudy half = sum_study(c, {{"cutoff", 0.5}});  // g_hat >= -0.5: kept
  EXPECT_EQ(screen_study(half, half.options, x, model).rows.size(), 1u);
}

}  // namespace
}  // namespace sao
