// Driver::extend_step: internal doubling of an accepted step that its move limits held
// (settings' extend_steps).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sao/optimizer/driver.hpp"
#include "sao/study/study_loader.hpp"
#include "tests/sao/fake_simulator.hpp"

namespace sao {
namespace {

using testing::FakeSimulator;

constexpr int kVariables = 12;

struct Sized {
  RunStatus status = RunStatus::kFailed;
  double objective = 0.0;
  int cycles = 0;
  int analyses = 0;
  int runs = 0;
  int extended = 0;  // cycles whose message says b* was extended
};

// min w = sum x_i s.t. r = sum 1 / x_i <= 2, from x_i = 90 in [0.1, 100], both responses of
// the simulator: the optimum is x_i = 6, w = 72. w is linear, so a step along it is predicted
// exactly and the default move limits (0.2 of the range each side) hold it for a few cycles.
// r (g_hat = -0.93 at the start) is screened out with the seed's cutoff 0.7, given: carried
// from the start (the trust region's default), its curvature shapes the first steps and the
// extension saves nothing on this study (8 cycles against 7). No secant cycles: after a step
// held by its move limits and predicted well they would take the next cycle's gradients from
// the approximation, and a cycle without analysed gradients is not extended.
Sized sized(int extend_steps, int gradient_runs) {
  nlohmann::json d = {
      {"load_cases", {{{"name", "only"}}}},
      {"responses", {{{"name", "w"}, {"kind", "scalar"}}, {{"name", "r"}, {"kind", "scalar"}}}},
      {"objective", {{"minimize", {{"response", "w"}}}}},
      {"constraints", {{{"name", "r"}, {"of", {{"response", "r"}}}, {"upper", 2.0}}}},
      {"settings",
       {{"extend_steps", extend_steps},
        {"max_cycles", 100},
        {"cutoff", 0.7},
        {"secant_cycles", 0}}},
      {"simulator", {{"type", "fake"}}}};
  for (int k = 0; k < kVariables; ++k) {
    d["design_variables"].push_back({{"name", "x" + std::to_string(k + 1)},
                                     {"lower", 0.1},
                                     {"upper", 100.0},
                                     {"initial", 90.0}});
  }
  const LoadedStudy s = load_study(d);
  using V = Eigen::VectorXd;
  FakeSimulator sim(
      {{"w", [](const V& x) { return x.sum(); }, [](const V& x) { return V(V::Ones(x.size())); }},
       {"r", [](const V& x) { return x.cwiseInverse().sum(); },
        [](const V& x) { return V(-x.cwiseInverse().cwiseAbs2()); }}});
  sim.gradient_runs = gradient_runs;
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  Sized out{r.status, r.objective, r.cycles, r.analyses, r.simulator_runs, 0};
  for (const CycleRecord& c : r.history) {
    out.extended += c.message.find("extended") != std::string::npos;
  }
  return out;
}

TEST(ExtendStep, AStepHeldByItsMoveLimitsGoesOnWithoutNewGradientsWhereTheyAreDear) {
  // Gradients by finite differences in 12 variables: 13 runs each.
  const Sized plain = sized(0, kVariables + 1);
  const Sized extended = sized(3, kVariables + 1);
  ASSERT_EQ(plain.status, RunStatus::kConverged);
  ASSERT_EQ(extended.status, RunStatus::kConverged);
  EXPECT_NEAR(plain.objective, 72.0, 0.05);
  EXPECT_NEAR(extended.objective, 72.0, 0.05);
  EXPECT_EQ(plain.extended, 0);
  EXPECT_GT(extended.extended, 0);
  // Each extension is one analysis without gradients; it saves cycles of 13 runs.
  EXPECT_LT(extended.cycles, plain.cycles);
  EXPECT_LT(extended.runs, plain.runs);
}

TEST(ExtendStep, NotTriedWhereGradientsCostAboutAnAnalysis) {
  // Analytic gradients (one run): a try would cost about what a cycle does.
  const Sized plain = sized(0, 1);
  const Sized extended = sized(3, 1);
  ASSERT_EQ(extended.status, RunStatus::kConverged);
  EXPECT_EQ(extended.extended, 0);
  EXPECT_EQ(extended.cycles, plain.cycles);
  EXPECT_EQ(extended.analyses, plain.analyses);
}

}  // namespace
}  // namespace sao
