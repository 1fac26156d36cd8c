#include "sao/metamodel/log_inputs.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "sao/metamodel/kriging.hpp"
#include "tests/metamodel/metamodel_support.hpp"

namespace sao::metamodel {
namespace {

using testing::box;
using ::testing::HasSubstr;
using testing::values_of;

// A response that changes at the small end of a wide range: 1/x1 over [0.1, 30] (log x2 is
// linear on the log scale): the case a log-scaled input is for.
double steep(const Eigen::VectorXd& x) {
  return 1.0 / x(0) + std::log(x(1));
}

const Bounds kBox = box({0.1, 1.0, -1.0}, {30.0, 100.0, 1.0});

TEST(MetamodelLogInputs, MasksTheVariablesWithAPositiveLowerBound) {
  EXPECT_EQ(log_scaled_variables(kBox), (std::vector<bool>{true, true, false}));
  const Bounds b = log_bounds(kBox, log_scaled_variables(kBox));
  EXPECT_DOUBLE_EQ(b.lower(0), std::log(0.1));
  EXPECT_DOUBLE_EQ(b.upper(1), std::log(100.0));
  EXPECT_EQ(b.lower(2), -1.0);
}

TEST(MetamodelLogInputs, FollowsASteepResponseBetterThanTheLinearScaleAndPredictsInOwnUnits) {
  const std::vector<bool> mask = log_scaled_variables(kBox);
  const Eigen::MatrixXd x = testing::latin_hypercube(30, kBox, 3);
  const Eigen::VectorXd y = values_of(x, steep);
  KrigingSettings s;
  s.estimate_nugget = true;
  const KrigingModel plain(x, y, kBox, s);
  const LogInputsModel logged(
      std::make_unique<KrigingModel>(log_points(x, mask), y, log_bounds(kBox, mask), s), kBox,
      mask);
  // Leave-one-out: the log scale's error a fraction of the linear scale's.
  EXPECT_LT(logged.accuracy().loo_rms, 0.5 * plain.accuracy().loo_rms);
  // Predictions at new points in the variables' own units, the box's.
  const Eigen::MatrixXd at = testing::random_points(200, kBox, 7);
  const Eigen::VectorXd truth = values_of(at, steep);
  const double rms_log = std::sqrt((logged.predict(at) - truth).squaredNorm() / 200.0);
  const double rms_plain = std::sqrt((plain.predict(at) - truth).squaredNorm() / 200.0);
  EXPECT_LT(rms_log, 0.5 * rms_plain);
  EXPECT_EQ(logged.bounds().upper(0), 30.0);
  EXPECT_DOUBLE_EQ(logged.value(x.row(4).transpose()),
                   logged.inner().value(log_points(x.row(4), mask).transpose()));
}

TEST(MetamodelLogInputs, RejectsAPointWithoutALogarithmAndAMismatchedMask) {
  const std::vector<bool> mask = log_scaled_variables(kBox);
  Eigen::MatrixXd bad = testing::random_points(3, kBox, 1);
  bad(2, 1) = -0.5;
  EXPECT_THAT([&] { (void)log_points(bad, mask); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("point 2")));
  const Eigen::MatrixXd x = testing::latin_hypercube(12, kBox, 2);
  EXPECT_THROW(LogInputsModel(std::make_unique<KrigingModel>(
                                  log_points(x, mask), values_of(x, steep), log_bounds(kBox, mask)),
                              kBox, std::vector<bool>{true, false}),
               std::invalid_argument);
  EXPECT_THAT([&] { (void)log_bounds(box({0.0}, {1.0}), {true}); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("lower bound <= 0")));
}

}  // namespace
}  // namespace sao::metamodel
