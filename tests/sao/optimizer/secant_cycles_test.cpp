// Secant cycles (settings' secant_cycles; Driver::secant_start, Driver::secant_evaluation): a
// cycle after a proposal accepted on its move limits with a ratio near 1 takes its gradients
// from the last approximation instead of a sensitivity analysis.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "sao/optimizer/cycle_record_json.hpp"
#include "sao/optimizer/driver.hpp"
#include "sao/store/study_session.hpp"
#include "sao/study/study_loader.hpp"
#include "tests/e2e/run_study.hpp"
#include "tests/sao/fake_simulator.hpp"
#include "tests/support.hpp"

namespace sao {
namespace {

using testing::FakeSimulator;

constexpr int kVariables = 6;
constexpr const char* kSecant = "secant update";

struct Secant {
  RunSummary summary;
  int secant = 0;       // records whose gradients were a secant update
  int longest_run = 0;  // most such records in a row
  int gradient_calls = 0;
};

// min f = sum (x_i - 1)^2 + sum x_i s.t. q = sum x_i^2 / (i + 1) <= 4, from x_i = 40 in
// [-50, 50], both responses of the simulator: f and q are quadratic, so the approximations
// (their curvature learnt from the first step) predict the long walk in from the start well,
// a walk the move limits hold. The optimum is x_i = 0.5 (f = 4.5), q far inside its bound.
Secant run(int secant_cycles, int gradient_runs) {
  nlohmann::json d = {
      {"load_cases", {{{"name", "only"}}}},
      {"responses", {{{"name", "f"}, {"kind", "scalar"}}, {{"name", "q"}, {"kind", "scalar"}}}},
      {"objective", {{"minimize", {{"response", "f"}}}}},
      {"constraints", {{{"name", "q"}, {"of", {{"response", "q"}}}, {"upper", 4.0}}}},
      {"settings", {{"secant_cycles", secant_cycles}, {"extend_steps", 0}, {"max_cycles", 100}}},
      {"simulator", {{"type", "fake"}}}};
  for (int k = 0; k < kVariables; ++k) {
    d["design_variables"].push_back({{"name", "x" + std::to_string(k + 1)},
                                     {"lower", -50.0},
                                     {"upper", 50.0},
                                     {"initial", 40.0}});
  }
  const LoadedStudy s = load_study(d);
  using V = Eigen::VectorXd;
  const V w = V::LinSpaced(kVariables, 2.0, kVariables + 1.0).cwiseInverse();
  FakeSimulator sim({{"f", [](const V& x) { return (x.array() - 1.0).square().sum() + x.sum(); },
                      [](const V& x) { return V(2.0 * (x.array() - 1.0) + 1.0); }},
                     {"q", [w](const V& x) { return w.dot(x.cwiseAbs2()); },
                      [w](const V& x) { return V(2.0 * w.cwiseProduct(x)); }}});
  sim.gradient_runs = gradient_runs;
  Driver driver(s, sim, s.options);
  Secant out{driver.run(), 0, 0, 0};
  int in_row = 0;
  for (const CycleRecord& c : out.summary.history) {
    const bool secant = c.gradient_method == kSecant;
    out.secant += secant;
    in_row = secant ? in_row + 1 : 0;
    out.longest_run = std::max(out.longest_run, in_row);
  }
  out.gradient_calls = sim.gradient_calls;
  return out;
}

TEST(SecantCycles, AStepOnItsMoveLimitsPredictedWellIsFollowedByOneWithoutASensitivityAnalysis) {
  // Gradients by finite differences in 6 variables: 7 runs each.
  const Secant plain = run(0, kVariables + 1);
  const Secant secant = run(2, kVariables + 1);
  ASSERT_EQ(plain.summary.status, RunStatus::kConverged);
  ASSERT_EQ(secant.summary.status, RunStatus::kConverged);
  // The same optimum.
  EXPECT_NEAR(secant.summary.objective, plain.summary.objective,
              1e-4 * std::abs(plain.summary.objective));
  EXPECT_EQ(plain.secant, 0);
  EXPECT_GT(secant.secant, 0);
  EXPECT_LE(secant.longest_run, 2);
  // A secant cycle runs no sensitivity analysis, and says so in its counts.
  EXPECT_EQ(secant.summary.sensitivity_analyses, secant.gradient_calls);
  EXPECT_LT(secant.gradient_calls, secant.summary.cycles);
  EXPECT_LT(secant.summary.simulator_runs, plain.summary.simulator_runs);
  // Convergence is judged on gradients an analysis gave, never on a model's.
  EXPECT_NE(secant.summary.history.back().gradient_method, kSecant);
}

TEST(SecantCycles, NotTakenWhereGradientsCostAboutAnAnalysis) {
  const Secant analytic = run(2, 1);
  ASSERT_EQ(analytic.summary.status, RunStatus::kConverged);
  EXPECT_EQ(analytic.secant, 0);
}

// The same study without secant cycles: its third step, from an infeasible b0 (slope 41 in the
// variables' sizes), lands on the optimum x_i = 0.5, where q is far inside its bound. That first
// feasible b0 set the reference of the residual's floor with its own slope (2e-8, the forward
// differences' error), the residual stayed 1 there (D <= reference), and the run stalled at the
// optimum after 19 cycles (driver_optimality.cpp, kStationaryShare).
TEST(SecantCycles, AFirstFeasibleDesignAtTheOptimumIsConvergedThere) {
  const Secant plain = run(0, kVariables + 1);
  EXPECT_EQ(plain.summary.status, RunStatus::kConverged) << plain.summary.message;
  EXPECT_NEAR(plain.summary.objective, 4.5, 1e-6);
  EXPECT_LE(plain.summary.cycles, 5);
}

// The driver is never stored but rebuilt by replay (study_session.hpp): a stored run stepped one
// cycle per session takes its secant cycles where one `sao run` does, record for record. The
// 10-segment stepped cantilever takes several (6 of its 15 cycles).
TEST(SecantCycles, AStoredRunSteppedCycleByCycleTakesThemWhereOneRunDoes) {
  sim::register_internal_simulator();
  const std::string study = "problems/suite/stepped-cantilever-10.json";
  const RunSummary whole = run_study(study);
  ASSERT_EQ(whole.status, RunStatus::kConverged) << whole.message;
  int secant = 0;
  for (const CycleRecord& r : whole.history) secant += r.gradient_method == kSecant;
  ASSERT_GT(secant, 0) << "the study's premise: it has secant cycles";
  const nlohmann::json document = read_study_document(std::string(SAO_SOURCE_DIR) + "/" + study);
  std::vector<std::string> names;
  for (const auto& v : document.at("design_variables")) names.push_back(v.at("name"));
  auto text = [&](const std::vector<CycleRecord>& records) {
    std::string out;
    for (const CycleRecord& r : records) out += cycle_record_to_json(r, names).dump() + "\n";
    return out;
  };
  const std::string path =
      (testing::scratch_directory("test-secant-cycles", "steps") / "s.sqlite").string();
  {
    StudySession session(path, true);
    session.begin(document, study, 0);
  }
  EXPECT_EQ(text(step_session_by_session(path, whole.history.size() + 1)), text(whole.history));
}

}  // namespace
}  // namespace sao
