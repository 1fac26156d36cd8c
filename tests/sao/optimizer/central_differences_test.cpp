// Driver::raise_difference_order ("central_differences_on_stall"): a run whose forward-difference
// gradients stall it takes them by central differences from then on, and one whose central
// differences stall it by five-point differences.
// Driver::doubt_convergence ("central_differences_to_confirm"): a run whose forward
// differences may hide an improvement where it would converge goes on with central ones.
#include <gtest/gtest.h>

#include <string>

#include "sao/optimizer/cycle_record_json.hpp"
#include "sao/optimizer/driver.hpp"
#include "sao/store/study_session.hpp"
#include "tests/e2e/run_study.hpp"
#include "tests/support.hpp"

namespace sao {
namespace {

// HS 28 (a convex quadratic along a linear equality, f* = 0) with forward differences of the
// documented default step, p = 1e-3: their error (f'' h / 2 per variable, h = (1 + |b|) p) keeps
// the first-order residual above kkt_tolerance, the proposals from b0 are rejected until every
// move limit is below min_move_limit, and the run ends `stalled`. Central differences are exact
// on a quadratic: after the switch the run converges at the optimum.
const char* kStudy = "problems/suite/hs-028.json";
const std::string kStep = "simulator.gradients.step=1e-3";
// Every run here takes its gradients by differences at every cycle: no secant cycle (settings'
// secant_cycles, secant_cycles_test.cpp) stands between a stall and the switch it causes.
const std::string kNoSecant = "settings.secant_cycles=0";

// The index of the first cycle record whose message contains `words`, or the history's size.
size_t first_cycle_saying(const RunSummary& run, const std::string& words) {
  for (size_t c = 0; c < run.history.size(); ++c) {
    if (run.history[c].message.find(words) != std::string::npos) return c;
  }
  return run.history.size();
}

// The run `with` a switch follows the run `without` it cycle for cycle up to the stall that
// ended `without`, and takes its gradients by `method` from there on, and only there.
void expect_the_same_path_then(const RunSummary& with, const RunSummary& without,
                               const std::string& method) {
  ASSERT_GT(with.history.size(), without.history.size());
  for (size_t c = 0; c < without.history.size(); ++c) {
    EXPECT_EQ(with.history[c].accepted, without.history[c].accepted) << "cycle " << c + 1;
    EXPECT_EQ(with.history[c].F_opt, without.history[c].F_opt) << "cycle " << c + 1;
    EXPECT_NE(with.history[c].gradient_method, method) << "cycle " << c + 1;
  }
  bool switched = false;
  for (size_t c = without.history.size(); c < with.history.size(); ++c) {
    const std::string& taken = with.history[c].gradient_method;
    if (taken.empty()) continue;
    EXPECT_EQ(taken, method) << "cycle " << c + 1;
    switched = true;
  }
  EXPECT_TRUE(switched);
}

TEST(CentralDifferences, AForwardDifferenceStallSwitchesAndTheRunConverges) {
  const RunSummary without =
      run_study(kStudy, {kNoSecant, kStep, "settings.central_differences_on_stall=false"});
  ASSERT_EQ(without.status, RunStatus::kStalled)
      << "forward differences of step 1e-3 no longer stall HS 28: the test's premise; "
      << without.message;
  for (const CycleRecord& r : without.history) {
    if (!r.gradient_method.empty()) {
      EXPECT_EQ(r.gradient_method, "forward differences");
    }
  }

  const RunSummary with = run_study(kStudy, {kNoSecant, kStep});
  ASSERT_EQ(with.status, RunStatus::kConverged) << with.message;
  EXPECT_NEAR(with.objective, 0.0, 1e-8);
  EXPECT_NE(with.message.find("gradients by central differences from cycle"), std::string::npos)
      << with.message;
  // The cycles before the switch are the run without it, cycle for cycle; from the switch on
  // the gradients are central, and the stalled run's last cycle is where it switched.
  expect_the_same_path_then(with, without, "central differences");
  // Central differences cost two runs per variable where forward ones cost one: more runs,
  // and the switch is counted in them.
  EXPECT_GT(with.simulator_runs, without.simulator_runs);
}

TEST(CentralDifferences, ARunThatDoesNotStallKeepsItsForwardDifferences) {
  // The suite's step (1e-6): HS 28 converges with forward differences, nothing switches.
  const RunSummary run = run_study(kStudy, {kNoSecant});
  ASSERT_EQ(run.status, RunStatus::kConverged) << run.message;
  EXPECT_EQ(run.message.find("central"), std::string::npos) << run.message;
  for (const CycleRecord& r : run.history) {
    if (!r.gradient_method.empty()) {
      EXPECT_EQ(r.gradient_method, "forward differences");
    }
  }
}

// Rosenbrock's valley cut by the unit disk (f* = 0.0456748 at (0.786, 0.618) on the disk's
// edge), from (-1.2, 1), with forward differences of step 2.5e-3: at (0.563, 0.315), inside the
// disk, their error (f_ii h / 2: 0.500 and 0.329) cancels the true gradient (-0.504, -0.329),
// the residual falls below kkt_tolerance and the run would say `converged` at f = 0.191. (At
// step 1e-3 the same happened at f = 0.0812 until the objective's quasi-Newton matrix stopped
// damping pairs of little curvature, and at step 2e-3 at f = 0.159 until it kept the pairs of
// small positive curvature (2026-12-01): those paths now reach the optimum or stall and switch.)
const char* kValley = "problems/suite/rosenbrock-disk.json";
constexpr double kValleyOptimum = 0.0456748087196;
const std::string kValleyStep = "simulator.gradients.step=2.5e-3";

TEST(CentralDifferences, AConvergenceForwardDifferencesCannotConfirmGoesOnWithCentralOnes) {
  const RunSummary without =
      run_study(kValley, {kNoSecant, kValleyStep, "settings.central_differences_to_confirm=false"});
  ASSERT_EQ(without.status, RunStatus::kConverged) << without.message;
  ASSERT_GT(without.objective, kValleyOptimum + 0.01)
      << "forward differences of step 2.5e-3 no longer converge short of the optimum: the "
         "test's premise";

  const RunSummary with = run_study(kValley, {kNoSecant, kValleyStep});
  // Honest: converged only at the optimum, else a status that does not claim it.
  if (with.status == RunStatus::kConverged) {
    EXPECT_NEAR(with.objective, kValleyOptimum, 1e-4) << with.message;
  }
  EXPECT_LT(with.objective, without.objective - 0.01) << with.message;
  EXPECT_NE(with.message.find("could not confirm the convergence of cycle"), std::string::npos)
      << with.message;
  // The cycle that would have converged says why it did not; the later ones are central.
  const size_t doubted =
      first_cycle_saying(with, "not converged: the error of its forward differences");
  ASSERT_LT(doubted, with.history.size());
  EXPECT_FALSE(with.history[doubted].converged);
  EXPECT_EQ(with.history[doubted].gradient_method, "forward differences");
  for (size_t c = doubted + 1; c < with.history.size(); ++c) {
    const std::string& method = with.history[c].gradient_method;
    if (!method.empty()) {
      EXPECT_EQ(method, "central differences") << "cycle " << c + 1;
    }
  }
}

TEST(CentralDifferences, AConvergenceAtTheSuitesStepNeedsNoConfirmation) {
  // Step 1e-6: the error hides nothing worth a cycle, the run converges as before.
  const RunSummary run = run_study(kValley, {kNoSecant});
  ASSERT_EQ(run.status, RunStatus::kConverged) << run.message;
  EXPECT_NEAR(run.objective, kValleyOptimum, 1e-6);
  EXPECT_EQ(run.message.find("central"), std::string::npos) << run.message;
}

// HS 81 (three equalities in five variables, f* = 0.0539498) with forward differences of step
// 5e-3: they cannot confirm a convergence (cycle 9), central ones take over, and their error
// (f''' h^2 / 6, with h = (1 + |b|) 5e-3 and the cubes of -(x1^3 + x2^3 + 1)^2 / 2) keeps the
// measured residual near 3e-2 against kkt_tolerance 1e-5: the run stalls at a solved point.
// Five-point differences at the same step err by f^(5) h^4 / 30, and the run converges. (At the
// default step 1e-3 central differences stalled too until the objective's quasi-Newton matrix
// kept the pairs of small positive curvature, 2026-12-01: that path now converges.)
const char* kHs81 = "problems/suite/hs-081.json";
constexpr double kHs81Optimum = 0.0539498477706;
const std::string kHs81Step = "simulator.gradients.step=5e-3";

TEST(CentralDifferences, ACentralDifferenceStallGoesOnWithFivePointDifferences) {
  const RunSummary without =
      run_study(kHs81, {kNoSecant, kHs81Step, "settings.central_differences_on_stall=false"});
  ASSERT_EQ(without.status, RunStatus::kStalled)
      << "central differences of step 5e-3 no longer stall HS 81: the test's premise; "
      << without.message;
  ASSERT_NE(without.message.find("gradients by central differences from cycle"), std::string::npos)
      << without.message;

  const RunSummary with = run_study(kHs81, {kNoSecant, kHs81Step});
  ASSERT_EQ(with.status, RunStatus::kConverged) << with.message;
  EXPECT_NEAR(with.objective, kHs81Optimum, 1e-6);
  EXPECT_NE(with.message.find("gradients by five-point differences from cycle"), std::string::npos)
      << with.message;
  EXPECT_NE(with.message.find("(central differences had stalled the run)"), std::string::npos)
      << with.message;
  // The same path up to the stall, then five-point gradients, and only those.
  expect_the_same_path_then(with, without, "five-point differences");
}

// HS 46 (two equalities in five variables, f* = 0 at (1, 1, 1, 1, 1), quartic and sextic terms)
// with the default step 1e-3: from cycle 14 on the move limits are within 1 % of the ranges and
// every cycle gains a little, for 100 cycles (the cycle limit): the forward differences' error
// (f'' h / 2) may hide more than each cycle's subproblem predicts. Asked after such a cycle, the
// run goes on with central differences and converges.
TEST(CentralDifferences, ACrawlTheForwardDifferencesHoldBackGoesOnWithCentralOnes) {
  const char* hs46 = "problems/suite/hs-046.json";
  const RunSummary without =
      run_study(hs46, {kNoSecant, kStep, "settings.central_differences_to_confirm=false"});
  ASSERT_EQ(without.status, RunStatus::kCycleLimit)
      << "HS 46 no longer crawls with forward differences of step 1e-3: the test's premise; "
      << without.message;

  const RunSummary with = run_study(hs46, {kNoSecant, kStep});
  ASSERT_EQ(with.status, RunStatus::kConverged) << with.message;
  EXPECT_NEAR(with.objective, 0.0, 1e-8);
  EXPECT_NE(with.message.find("(forward differences' error outweighed the predicted gain of cycle"),
            std::string::npos)
      << with.message;
  const size_t switched = first_cycle_saying(with, "times the gain its subproblem predicted");
  ASSERT_LT(switched, with.history.size());
  ASSERT_LT(switched, without.history.size());
  EXPECT_FALSE(with.history[switched].converged);
  EXPECT_LE(with.history[switched].next_factors.maxCoeff(), 0.01);  // a small region
  for (size_t c = 0; c <= switched; ++c) {  // the same path up to the switch
    EXPECT_EQ(with.history[c].accepted, without.history[c].accepted) << "cycle " << c + 1;
    EXPECT_EQ(with.history[c].F_opt, without.history[c].F_opt) << "cycle " << c + 1;
  }
  for (size_t c = switched + 1; c < with.history.size(); ++c) {
    const std::string& method = with.history[c].gradient_method;
    if (!method.empty()) {
      EXPECT_EQ(method, "central differences") << "cycle " << c + 1;
    }
  }
}

// The switch is not stored: a stored run rebuilds it by replay (study_session.hpp). `sao step`,
// one cycle per process, and `sao restart --from-cycle K` after the switch run the same cycles
// as one `sao run`, bit for bit, the restarted branch without a simulator run until it goes past
// the parent's end.
TEST(CentralDifferences, AStoredRunReplaysTheSwitchCycleByCycleAndAfterARestart) {
  sim::register_internal_simulator();
  nlohmann::json document =
      read_study_document(std::string(SAO_SOURCE_DIR) + "/problems/suite/hs-046.json");
  apply_override(document, kStep);
  apply_override(document, kNoSecant);
  const RunSummary whole = run_study("problems/suite/hs-046.json", {kNoSecant, kStep});
  ASSERT_EQ(whole.status, RunStatus::kConverged) << whole.message;
  const size_t switched = first_cycle_saying(whole, "central differences from here on");
  ASSERT_LT(switched + 2, whole.history.size()) << whole.message;
  const std::vector<std::string> names = {"x1", "x2", "x3", "x4", "x5"};
  auto text = [&](const std::vector<CycleRecord>& records, int from) {
    std::string out;
    for (const CycleRecord& r : records) {
      if (r.cycle >= from) out += cycle_record_to_json(r, names).dump() + "\n";
    }
    return out;
  };

  const std::string path =
      (testing::scratch_directory("test-central-differences", "steps") / "s.sqlite").string();
  {
    StudySession session(path, true);
    session.begin(document, "hs-046.json", 0);
  }
  const std::vector<CycleRecord> stepped = step_session_by_session(path, whole.history.size() + 1);
  EXPECT_EQ(text(stepped, 1), text(whole.history, 1));

  size_t after = switched + 1;  // the first accepted cycle after the switch
  while (after < whole.history.size() && !whole.history[after].accepted) ++after;
  ASSERT_LT(after + 1, whole.history.size());
  const int from = whole.history[after].cycle;
  {
    StudySession session(path, false);
    session.open();
    session.restart(from, std::nullopt, "");
  }
  StudySession restarted(path, false);
  restarted.open();
  const RunSummary& branch = restarted.run();
  EXPECT_EQ(branch.status, RunStatus::kConverged) << branch.message;
  EXPECT_EQ(branch.message, whole.message);
  EXPECT_EQ(text(branch.history, from + 1), text(whole.history, from + 1));
  EXPECT_EQ(branch.simulator_runs, 0);
}

}  // namespace
}  // namespace sao
