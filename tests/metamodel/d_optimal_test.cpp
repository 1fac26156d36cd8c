#include "sao/metamodel/d_optimal.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace sao::metamodel {
namespace {

using ::testing::HasSubstr;

// The 5 x 5 grid on [0, 10] x [-2, 2] (scaled: -1, -0.5, 0, 0.5, 1 in each variable).
Eigen::MatrixXd grid(const Bounds& b) {
  Eigen::MatrixXd x(25, 2);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j)
      x.row(5 * i + j) << b.lower(0) + 0.25 * i * (b.upper(0) - b.lower(0)),
          b.lower(1) + 0.25 * j * (b.upper(1) - b.lower(1));
  return x;
}

const Bounds kBox{Eigen::Vector2d(0, -2), Eigen::Vector2d(10, 2)};

// The best det(X'X) of a full quadratic in two variables over every subset of 6..9 points of
// the 5 x 5 grid, found by enumerating all C(25, k) subsets (177100 for 6 ... 2042975 for 9)
// with numpy: 256, 960, 2304 and 5184 (the 3 x 3 factorial for 9 points).
const double kOptimalDet[] = {256.0, 960.0, 2304.0, 5184.0};

TEST(MetamodelDOptimal, ReachesTheEnumeratedOptimumOfAQuadraticOnAGrid) {
  const PolynomialBasis basis(kBox, PolynomialOrder::quadratic);
  const Eigen::MatrixXd candidates = grid(kBox);
  for (int count = 6; count <= 9; ++count) {
    const DOptimalDesign d = d_optimal(candidates, basis, count);
    ASSERT_EQ(static_cast<int>(d.chosen.size()), count);
    EXPECT_NEAR(d.log_det, std::log(kOptimalDet[count - 6]), 1e-9) << count << " points";
    Eigen::MatrixXd chosen(count, 2);
    for (int k = 0; k < count; ++k) chosen.row(k) = candidates.row(d.chosen[k]);
    EXPECT_NEAR(log_det_information(basis, chosen), d.log_det, 1e-12);
    for (std::size_t s = 0; s < d.start_log_det.size(); ++s)
      EXPECT_GE(d.final_log_det[s], d.start_log_det[s]);
  }
}

TEST(MetamodelDOptimal, BeatsTheBestOfManyRandomSubsetsAndIsDeterministic) {
  const PolynomialBasis basis(kBox, PolynomialOrder::quadratic);
  const Eigen::MatrixXd candidates = grid(kBox);
  DOptimalSettings settings;
  settings.starts = 2;
  settings.seed = 42;
  const DOptimalDesign d = d_optimal(candidates, basis, 7, Eigen::MatrixXd(), settings);
  std::mt19937 rng(3);
  double best_random = -INFINITY;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<int> all(25);
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng);
    Eigen::MatrixXd x(7, 2);
    for (int k = 0; k < 7; ++k) x.row(k) = candidates.row(all[k]);
    best_random = std::max(best_random, log_det_information(basis, x));
  }
  EXPECT_GE(d.log_det, best_random);
  const DOptimalDesign again = d_optimal(candidates, basis, 7, Eigen::MatrixXd(), settings);
  EXPECT_EQ(again.chosen, d.chosen);
  EXPECT_EQ(again.log_det, d.log_det);
}

TEST(MetamodelDOptimal, ImprovesAGivenStartAndKeepsFixedPoints) {
  const PolynomialBasis basis(kBox, PolynomialOrder::quadratic);
  const Eigen::MatrixXd candidates = grid(kBox);
  DOptimalSettings settings;
  settings.starts = 0;                           // the given start only
  settings.initial = {6, 7, 8, 11, 12, 13, 16};  // the inner 3 x 3 block, less two
  const DOptimalDesign d = d_optimal(candidates, basis, 7, Eigen::MatrixXd(), settings);
  ASSERT_EQ(d.start_log_det.size(), 1u);
  EXPECT_GT(d.log_det, d.start_log_det[0]);
  EXPECT_GT(d.exchanges, 0);
  // Three corners already analysed: the design adds 6 points to them, none of them repeated.
  Eigen::MatrixXd fixed(3, 2);
  fixed << 0, -2, 10, -2, 0, 2;
  const DOptimalDesign f = d_optimal(candidates, basis, 6, fixed);
  Eigen::MatrixXd all(9, 2);
  all.topRows(3) = fixed;
  for (int k = 0; k < 6; ++k) all.row(3 + k) = candidates.row(f.chosen[k]);
  EXPECT_NEAR(f.log_det, log_det_information(basis, all), 1e-12);
  EXPECT_NEAR(f.log_det, std::log(5184.0), 1e-9);  // completes the 3 x 3 factorial
  for (int i : f.chosen)  // the fixed corners are candidates 0, 20 and 4: none chosen again
    EXPECT_TRUE(i != 0 && i != 20 && i != 4) << i;
}

TEST(MetamodelDOptimal, BadRequestsAreRejected) {
  const PolynomialBasis basis(kBox, PolynomialOrder::quadratic);
  const Eigen::MatrixXd candidates = grid(kBox);
  const auto message = [&](int count, const DOptimalSettings& s) {
    try {
      d_optimal(candidates, basis, count, Eigen::MatrixXd(), s);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message(5, {}), HasSubstr("5 points and 0 fixed ones for 6 coefficients"));
  EXPECT_THAT(message(26, {}), HasSubstr("26 points asked of 25 candidates"));
  DOptimalSettings repeated;
  repeated.initial = {1, 1, 2, 3, 4, 5};
  EXPECT_THAT(message(6, repeated), HasSubstr("6 distinct candidate indices"));
  Eigen::MatrixXd twice = candidates;
  twice.row(3) = twice.row(9);
  EXPECT_THROW(d_optimal(twice, basis, 6), std::invalid_argument);
}

}  // namespace
}  // namespace sao::metamodel
