// End to end: the noisy impact absorber with multi-point approximations (seed 003, 3.7.1,
// table 3.3), from each of the three starts of PROBLEMS.md, with the plain interpolation and
// with the least-squares re-use of earlier analyses.
#include <gtest/gtest.h>

#include "sao/report/evaluate.hpp"
#include "tests/e2e/run_study.hpp"

namespace sao {
namespace {

RunSummary run_noisy(int start, const std::string& fit, bool noise_from_data = false) {
  std::vector<std::string> overrides = {"settings.fit=\"" + fit + "\""};
  if (noise_from_data) {
    overrides.push_back("settings.noise=0");
    overrides.push_back("settings.noise_from_data=true");
    // The estimate is checked on the study as the seed formulates it (b3 from the subproblem);
    // docs/results.md has the figures with and without the repaired auxiliary.
    overrides.push_back("settings.repair_auxiliary=false");
  }
  return run_study("problems/impact-absorber/noisy.json", overrides, start);
}

// The final design re-evaluated without the artificial noise (as scripts/noisy-table does
// with `sao evaluate --design ... --set load_cases.0.parameters.noise=0`): what it is worth.
DesignSummary smooth_summary(const RunSummary& r) {
  sim::register_internal_simulator();
  nlohmann::json doc =
      read_study_document(std::string(SAO_SOURCE_DIR) + "/problems/impact-absorber/noisy.json");
  apply_override(doc, "load_cases.0.parameters.noise=0");
  const OpenedStudy opened = open_study_document(doc, "noisy.json");
  const Study& study = opened.study;
  Simulator* simulator = opened.simulator.get();
  const std::vector<Evaluation> e = simulator->evaluate({{r.x.head(study.n_design()), {}}});
  EXPECT_TRUE(e.at(0).ok) << e.at(0).message;
  return summarise_design(study, e.at(0), r.x);
}

class NoisyE2E : public ::testing::TestWithParam<std::tuple<int, std::string>> {};

TEST_P(NoisyE2E, EndsNearTheSmoothOptimum) {
  const auto [start, fit] = GetParam();
  const RunSummary r = run_noisy(start, fit);
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  // The limits (seed: 13-17 analyses), for both fits from every start.
  EXPECT_LE(r.analyses, 20);
  EXPECT_NEAR(r.x(0), 0.3628, 0.05);
  EXPECT_NEAR(r.x(1), 0.4823, 0.05);
  EXPECT_LE(r.objective, 0.54);
  EXPECT_LE(r.max_violation, 3.0);
  EXPECT_EQ(r.sensitivity_analyses, 0);  // no derivatives: plan points only
  const DesignSummary smooth = smooth_summary(r);
  EXPECT_LE(smooth.objective, 0.54);
  EXPECT_LE(smooth.max_violation, 3.0);
}

// The issue: with the least-squares re-use the same starts reach the same region with fewer
// analyses or a better final design than the plain scheme. Per start at the study's 5 %:
// fewer analyses, or as many with an objective (without noise) no higher, within 1e-3.
TEST(NoisyE2E, LeastSquaresIsNoWorseThanInterpolationFromEveryStart) {
  for (int start : {1, 2, 3}) {
    const RunSummary plain = run_noisy(start, "interpolation");
    const RunSummary reuse = run_noisy(start, "least_squares");
    ASSERT_EQ(plain.status, RunStatus::kConverged) << "start " << start << ": " << plain.message;
    ASSERT_EQ(reuse.status, RunStatus::kConverged) << "start " << start << ": " << reuse.message;
    EXPECT_LE(reuse.analyses, plain.analyses) << "start " << start;
    if (reuse.analyses == plain.analyses) {
      EXPECT_LE(smooth_summary(reuse).objective, smooth_summary(plain).objective + 1e-3)
          << "start " << start;
    }
  }
}

// Without setting the auxiliary from the analysis, the bound b3 of the bound formulation is
// the subproblem's guess: start 2 then ends with b3 3.5 % below the real maximum (V = 3.5 %)
// after 22 analyses; with it, 13 analyses and V = 0.
TEST(NoisyE2E, RepairingTheAuxiliaryHelpsStartTwo) {
  const RunSummary without =
      run_study("problems/impact-absorber/noisy.json", {"settings.repair_auxiliary=false"}, 2);
  const RunSummary with = run_noisy(2, "interpolation");
  ASSERT_EQ(without.status, RunStatus::kConverged) << without.message;
  EXPECT_GT(without.max_violation, 3.0);
  EXPECT_LE(with.max_violation, 3.0);
  EXPECT_LT(with.analyses, without.analyses);
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
