#include "sao/metamodel/rbf.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "tests/metamodel/metamodel_support.hpp"

namespace sao::metamodel {
namespace {

using testing::box;
using ::testing::HasSubstr;
using testing::values_of;

double smooth(const Eigen::VectorXd& x) {
  return std::sin(0.8 * x(0)) + x(1) * x(1) * std::cos(1.5 * x(1)) + 0.1 * x(0) * x(1);
}

const Bounds kBox = box({0, -1}, {5, 1});

TEST(MetamodelRbf, EveryKernelInterpolatesItsPoints) {
  const Eigen::MatrixXd x = testing::latin_hypercube(30, kBox, 4);
  const Eigen::VectorXd y = values_of(x, smooth);
  const Eigen::MatrixXd t = testing::random_points(200, kBox, 5);
  const Eigen::VectorXd yt = values_of(t, smooth);
  const double spread = std::sqrt((yt.array() - yt.mean()).square().mean());
  for (RbfKernel kernel :
       {RbfKernel::cubic, RbfKernel::thin_plate, RbfKernel::multiquadric, RbfKernel::gaussian}) {
    RbfSettings s;
    s.kernel = kernel;
    const RbfModel model(x, y, kBox, s);
    const Eigen::VectorXd p = model.predict(x);
    EXPECT_LT((p - y).cwiseAbs().maxCoeff(), 1e-8 * y.cwiseAbs().maxCoeff())
        << static_cast<int>(kernel);
    // Between the points: far better than the mean (30 points for a smooth function).
    const double rms = std::sqrt((model.predict(t) - yt).squaredNorm() / t.rows());
    EXPECT_LT(rms, 0.1 * spread) << static_cast<int>(kernel);
    EXPECT_GT(model.accuracy().r2_pred, 0.9) << static_cast<int>(kernel);
    const bool shaped = kernel == RbfKernel::multiquadric || kernel == RbfKernel::gaussian;
    EXPECT_EQ(model.shape() > 0.0, shaped);
  }
}

TEST(MetamodelRbf, ClosedFormLeaveOneOutEqualsRefits) {
  const Eigen::MatrixXd x = testing::latin_hypercube(15, kBox, 9);
  const Eigen::VectorXd y = values_of(x, smooth);
  for (RbfKernel kernel : {RbfKernel::cubic, RbfKernel::multiquadric, RbfKernel::gaussian}) {
    RbfSettings s;
    s.kernel = kernel;
    const RbfModel model(x, y, kBox, s);
    s.shape = model.shape();  // kept fixed in the refits, as the closed form keeps it
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      Eigen::MatrixXd xi;
      Eigen::VectorXd yi;
      testing::drop_row(x, y, i, xi, yi);
      const RbfModel refit(xi, yi, kBox, s);
      const double e = y(i) - refit.value(x.row(i).transpose());
      EXPECT_NEAR(model.accuracy().loo_residuals(i), e, 1e-7 * (1.0 + std::abs(e)))
          << static_cast<int>(kernel) << " point " << i;
    }
  }
}

TEST(MetamodelRbf, TailsAndBadInput) {
  const Eigen::MatrixXd x = testing::latin_hypercube(10, kBox, 2);
  const Eigen::VectorXd y = values_of(x, smooth);
  RbfSettings s;
  s.kernel = RbfKernel::cubic;
  s.tail = RbfTail::constant;
  EXPECT_THROW(RbfModel(x, y, kBox, s), std::invalid_argument);
  s.kernel = RbfKernel::gaussian;
  s.tail = RbfTail::none;
  s.shape = 0.5;
  const RbfModel g(x, y, kBox, s);
  EXPECT_EQ(g.tail(), RbfTail::none);
  EXPECT_NEAR(g.value(x.row(3).transpose()), y(3), 1e-8);
  // Three points on a line cannot carry a linear tail in two variables.
  Eigen::MatrixXd line(3, 2);
  line << 0, 0, 1, 0, 2, 0;
  try {
    RbfModel(line, Eigen::Vector3d(1, 2, 4), kBox);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("numerically singular"));
  }
  Eigen::MatrixXd dup = x;
  dup.row(7) = dup.row(1);
  EXPECT_THROW(RbfModel(dup, y, kBox), std::invalid_argument);
}

}  // namespace
}  // namespace sao::metamodel
