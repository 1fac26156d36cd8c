// End to end: the noisy impact absorber with multi-point approximations (seed 003, 3.7.1,
// table 3.3), from each of the three starts of PROBLEMS.md, with the plain interpolation and
// with the least-squares re-use of earlier analyses.
#include <gtest/gtest.h>

#include "tests/e2e/run_study.hpp"

namespace sao {
namespace {

RunSummary run_noisy(int start, const std::string& fit, bool noise_from_data = false) {
  std::vector<std::string> overrides = {"settings.fit=\"" + fit + "\""};
  if (noise_from_data) {
    overrides.push_back("settings.noise=0");
    overrides.push_back("settings.noise_from_data=true");
  }
  return run_study("problems/impact-absorber/noisy.json", overrides, start);
}

class NoisyE2E : public ::testing::TestWithParam<std::tuple<int, std::string>> {};

TEST_P(NoisyE2E, EndsNearTheSmoothOptimum) {
  const auto [start, fit] = GetParam();
  const RunSummary r = run_noisy(start, fit);
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  EXPECT_NEAR(r.x(0), 0.3628, 0.05);
  EXPECT_NEAR(r.x(1), 0.4823, 0.05);
  EXPECT_LE(r.objective, 0.54);
  EXPECT_EQ(r.sensitivity_analyses, 0);  // no derivatives: plan points only
  // Start 2 needs a rejected cycle (the second step overshoots to V = 17 %): 22 analyses
  // with interpolation, 25 with least squares; the others stay within the 20 and 3 %.
  EXPECT_LE(r.analyses, start == 2 ? 25 : 20);
  EXPECT_LE(r.max_violation, start == 2 && fit == "interpolation" ? 3.6 : 3.0);
}

TEST(NoisyE2E, NoiseEstimatedFromTheDataReplacesTheUsersEstimate) {
  for (int start : {1, 2, 3}) {
    const RunSummary r = run_noisy(start, "least_squares", true);
    ASSERT_EQ(r.status, RunStatus::kConverged) << "start " << start << ": " << r.message;
    EXPECT_NEAR(r.x(0), 0.3628, 0.05) << "start " << start;
    EXPECT_NEAR(r.x(1), 0.4823, 0.05) << "start " << start;
    EXPECT_LE(r.objective, 0.54) << "start " << start;
    bool estimated = false;
    for (const auto& c : r.history) estimated |= c.noise_estimate > 0.0;
    EXPECT_TRUE(estimated) << "start " << start;
  }
}

INSTANTIATE_TEST_SUITE_P(ThreeStarts, NoisyE2E,
                         ::testing::Combine(::testing::Values(1, 2, 3),
                                            ::testing::Values("interpolation", "least_squares")));

}  // namespace
}  // namespace sao
