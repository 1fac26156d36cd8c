// The fast subset of the benchmark suite (problems/suite/optima.json, "ci": true) with the SAO
// driver, in process: each problem must be solved (|f - f*| <= 1e-4 max(1, |f*|), violation
// <= 0.01 %), and a run may say "converged" only when it is (honesty). CTest label "suite"
// (ctest -L suite); the full table is build/sao_suite (docs/benchmarks.md).
#include <gtest/gtest.h>

#include <iostream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

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

Known known(const std::string& problem) {
  sim::register_internal_simulator();
  for (const Known& k : read_optima(SAO_SOURCE_DIR "/problems/suite")) {
    if (k.problem == problem) return k;
  }
  throw std::runtime_error("no problem " + problem + " in problems/suite/optima.json");
}

Outcome run_sao(const std::string& problem, std::vector<std::string> overrides = {}) {
  RunSettings settings;
  settings.overrides = std::move(overrides);
  return run_problem(SAO_SOURCE_DIR "/problems/suite", known(problem), "sao", Path::kInternal,
                     settings);
}

// Issue 47: these ended at the cycle limit of 100 at a solved point, converging linearly with
// ratios near 1.2 (the objective's convex model kept more curvature than the Lagrangian's along
// the active constraints) or creeping along curved active constraints at a region of 1e-3 (each
// growth rejected for the step's second-order violation). With the objective's part in the
// Lagrangian's curvature and the second-order correction they converge.
TEST(SuiteOptimizer, RunsThatEndedAtTheCycleLimitAtASolvedPointConverge) {
  for (const std::string problem : {"spring", "hs-026", "hs-046"}) {
    const Outcome o = run_sao(problem);
    EXPECT_EQ(o.status, "converged") << problem << ": " << o.cycles << " cycles";
    EXPECT_TRUE(o.solved) << problem << ": f " << o.f;
    EXPECT_LT(o.cycles, 100) << problem;
  }
}

// The second-order correction on the spring: without it (the setting false) the run needs more
// analyses to the same optimum; with it, rejections for a step's second-order violation turn
// into accepted corrections.
TEST(SuiteOptimizer, TheSecondOrderCorrectionSavesTheSpringsRuns) {
  const Outcome with = run_sao("spring");
  const Outcome without = run_sao("spring", {"settings.second_order_correction=false"});
  std::cout << "spring: " << with.runs << " runs, " << with.cycles << " cycles (" << with.rejected
            << " rejected) with the correction; " << without.runs << " runs, " << without.cycles
            << " cycles (" << without.rejected << " rejected) without\n";
  EXPECT_TRUE(with.solved);
  EXPECT_LT(with.runs, without.runs);
  EXPECT_LT(with.rejected, without.rejected);
}

// HS 108: its local subproblem solver stayed at b0, a stationary point of the approximate problem
// that is not its minimum (b0's first-order residual 0.95), in cycle after cycle;
// solved again from a descent start it moves on after one such cycle. Since screening keeps the
// constraints a rejected proposal violated (2026-11-30) the run from this start ends at the
// local minimum -0.5 (a degenerate hexagon, listed in optima.json), where COBYLA ends too.
TEST(SuiteOptimizer, TheSubproblemDoesNotStayAtAStationaryPointThatIsNotAMinimum) {
  const Outcome o = run_sao("hs-108");
  EXPECT_TRUE(o.solved || o.local) << "f " << o.f;
  EXPECT_TRUE(o.honest) << o.status << " at f " << o.f;
  EXPECT_LE(o.b0_again, 1);
}

// HS 49 from its infeasible start (a 1000-fold violation): the residual's floor, 1 % of the
// start's slope (7.6e6), made the slope of 0.70 at f = 0.19 look like zero (f* = 0), and the run
// said `converged` there. The floor's reference is now the first feasible design's slope.
TEST(SuiteOptimizer, AFarInfeasibleStartDoesNotSetTheScaleOfTheResidual) {
  const Known k = known("hs-049");
  RunSettings settings;
  double start_violation = 0.0;
  settings.start = infeasible_start(SAO_SOURCE_DIR "/problems/suite", k, 10.0, &start_violation);
  ASSERT_GT(start_violation, 100.0);
  const Outcome o =
      run_problem(SAO_SOURCE_DIR "/problems/suite", k, "sao", Path::kInternal, settings);
  EXPECT_TRUE(o.honest) << o.status << " at f = " << o.f;
  EXPECT_LE(o.violation, 0.01);
}

// HS 57 from a random start (`sao_suite --starts random --seed 7`), feasible, where its
// exponentials make F = 5e60: one step, predicted at a ratio of 0.035, took F to 1.7e48, and the
// residual's floor, 1 % of the start's slope, called the slope of 3e51 there zero: `converged`
// with f - f* = 1.7e48. The floor's reference is taken again after such a fall.
TEST(SuiteOptimizer, AnObjectiveThatChangesItsScaleInOneStepIsNotConvergedByTheStartsScale) {
  const Outcome o = run_sao(
      "hs-057", {"design_variables.0.initial=0.658944", "design_variables.1.initial=-2.108002"});
  EXPECT_TRUE(o.honest) << o.status << " at f = " << o.f;
  EXPECT_TRUE(o.status != "converged" || o.solved) << o.status << " at f = " << o.f;
}

// HS 55 from a random start (`sao_suite --starts random --seed 7`): its six linear equalities
// have rank 5, SLSQP's subproblem held dependent rows in its active set and stopped short, and
// the run crawled at move limits of 1e-4 and stalled 1.3 % above f* after 172 runs. The NLP path
// now solves without the dependent equalities first.
TEST(SuiteOptimizer, DependentEqualitiesDoNotHoldTheSubproblemBack) {
  const Outcome o = run_sao(
      "hs-055", {"design_variables.0.initial=0.340848", "design_variables.1.initial=4.865579",
                 "design_variables.2.initial=5.394569", "design_variables.3.initial=0.809088",
                 "design_variables.4.initial=0", "design_variables.5.initial=0.1"});
  EXPECT_EQ(o.status, "converged");
  EXPECT_TRUE(o.solved) << "f " << o.f;
  EXPECT_LT(o.runs, 60);
}

// HS 93 from a random start (`sao_suite --starts random --seed 17`, every digit from its
// stderr) at a violation of 100 %: the multipliers measured there set the merit's penalty to
// 3.3e4 for the whole run, 80 times the 2 (148 + 62) the optimum needs, and every step along the
// curved active constraint c1 (a product of the six variables) was judged by its second-order
// violation: rejected, or corrected at a region of 1e-3 of the ranges, to the cycle limit of
// 100 at a solved point (594 runs). The penalty is taken anew at the first feasible b0.
TEST(SuiteOptimizer, TheMultipliersOfAFarInfeasibleStartDoNotSetThePenaltyForTheRun) {
  const char* start[] = {"0.5", "10.111109975610471",  "0.5",
                         "0.5", "0.60034725439307302", "0.24951096138295348"};
  std::vector<std::string> sets;
  for (int i = 0; i < 6; ++i) {
    sets.push_back("design_variables." + std::to_string(i) + ".initial=" + start[i]);
  }
  const Outcome o = run_sao("hs-093", sets);
  EXPECT_EQ(o.status, "converged") << o.cycles << " cycles, " << o.runs << " runs";
  EXPECT_TRUE(o.solved) << "f " << o.f;
  EXPECT_LT(o.cycles, 80);
}

INSTANTIATE_TEST_SUITE_P(Suite, SuiteCi, ::testing::ValuesIn(ci_problems()),
                         [](const auto& info) { return identifier(info.param); });

}  // namespace
}  // namespace sao::suite
