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
// rosenbrock-disk: the curved valley (cycle limit).
const std::set<std::string> kOpen = {"rosenbrock-disk"};

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

INSTANTIATE_TEST_SUITE_P(Suite, SuiteCi, ::testing::ValuesIn(ci_problems()),
                         [](const auto& info) { return identifier(info.param); });

}  // namespace
}  // namespace sao::suite
