// End to end: problems/accelerometer-identification (seeds 001 and 004), the stiffness, damping
// and tip mass of a pinned bar identified from synthetic accelerometer data with 2 % noise
// (make-data.py: k = 200 N/m, c = 2 N s/m, m = 0.5 kg, sigma = 0.004558 m/s^2 on 201 points),
// the variational integrator and its discrete adjoint. The noise moves the optimum by about 1 %
// and leaves a misfit near 201 sigma^2 = 0.00418; the optimum at half the step is within 1 %.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/e2e/run_study.hpp"

namespace sao {
namespace {

constexpr const char* kStudy = "problems/accelerometer-identification/identify.json";

TEST(AccelerometerIdentificationE2E, RecoversTheParametersWithinTheNoise) {
  const RunSummary r = run_study(kStudy);
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  EXPECT_NEAR(r.x(0), 200.0, 0.03 * 200.0);  // k (identified 198.49)
  EXPECT_NEAR(r.x(1), 2.0, 0.03 * 2.0);      // c (1.9885)
  EXPECT_NEAR(r.x(2), 0.5, 0.03 * 0.5);      // m (0.49234)
  EXPECT_LT(r.objective, 1.5 * 201 * 0.004558 * 0.004558);
  const RunSummary half = run_study(kStudy, {"simulator.multibody.integrator.step=0.0005"});
  ASSERT_EQ(half.status, RunStatus::kConverged) << half.message;
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(half.x(i), r.x(i), 0.01 * std::abs(r.x(i))) << i;
}

}  // namespace
}  // namespace sao
