// The fast subset of the benchmark suite (problems/suite/optima.json, "ci": true) with the SAO
// driver, in process: each problem must be solved (|f - f*| <= 1e-4 max(1, |f*|), violation
// <= 0.01 %), and a run may say "converged" only when it is (honesty). CTest label "suite"
// (ctest -L suite); the full table is build/sao_suite (docs/benchmarks.md).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "bench/suite/suite.hpp"
#include "simulators/internal_simulator.hpp"

namespace sao::suite {
namespace {

std::vector<Known> ci_problems() {
  sim::register_internal_simulator();
  std::vector<Known> out;
  for (const Known& k : read_optima(SAO_SOURCE_DIR "/problems/suite")) {
    if (k.ci) out.push_back(k);
  }
  return out;
}

// Problems of the subset the optimizer does not solve yet (issue 17 stays open on them): they
// must still end honestly, with a status that is not "converged", and their entry here is
// removed when they are solved (the test fails then, so the list cannot go stale).
// None since the objective's quasi-Newton form solved rosenbrock-disk (the curved valley).
const std::set<std::string> kOpen = {};

class SuiteCi : public ::testing::TestWithParam<Known> {};

TEST_P(SuiteCi, SaoSolvesAndIsHonest) {
  const Known& k = GetParam();
  const Outcome o = run_problem(SAO_SOURCE_DIR "/problems/suite", k, "sao", Path::kInternal, {});
  const std::string what = k.problem + ": status " + o.status + ", f " + std::to_string(o.f) +
                           " (f* " + std::to_string(k.f) + ", error " +
                           std::to_string(f_error(o.f, k.f)) + "), violation " +
                           std::to_string(o.violation) + " %, " + std::to_string(o.runs) + " runs";
  EXPECT_TRUE(o.honest) << "converged at a point that is not the optimum: " << what;
  if (kOpen.count(k.problem)) {
    EXPECT_FALSE(o.solved) << "solved now: remove it from kOpen: " << what;
    EXPECT_NE(o.status, "converged") << what;
  } else {
    EXPECT_TRUE(o.solved) << what;
  }
}

// From a start violating the constraints 10-fold (or, where the bounds do not allow that, the
// most violating start inside them): feasible at the end, and honest.
TEST_P(SuiteCi, SaoReachesFeasibilityFromAnInfeasibleStart) {
  const Known& k = GetParam();
  RunSettings settings;
  double start_violation = 0.0;
  settings.start = infeasible_start(SAO_SOURCE_DIR "/problems/suite", k, 10.0, &start_violation);
  ASSERT_FALSE(settings.start.empty()) << k.problem << ": no violating start";
  ASSERT_GT(start_violation, 10.0) << k.problem;
  const Outcome o =
      run_problem(SAO_SOURCE_DIR "/problems/suite", k, "sao", Path::kInternal, settings);
  const std::string what = k.problem + " from a start violating " +
                           std::to_string(start_violation) + " %: status " + o.status +
                           ", violation " + std::to_string(o.violation) + " %";
  EXPECT_LE(o.violation, 0.01) << what;
  EXPECT_TRUE(o.honest) << what;
  EXPECT_EQ(o.b0_again, 0) << what;
}

INSTANTIATE_TEST_SUITE_P(Suite, SuiteCi, ::testing::ValuesIn(ci_problems()),
                         [](const auto& info) { return identifier(info.param); });

}  // namespace
}  // namespace sao::suite
