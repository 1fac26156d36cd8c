// Driver::remember_rejection: a scalar constraint that a rejected proposal violated stays in the
// subproblems of the rest of the run, not only in the next one from the same b0.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "sao/optimizer/driver.hpp"
#include "sao/study/study_loader.hpp"
#include "tests/sao/fake_simulator.hpp"

namespace sao {
namespace {

using testing::FakeSimulator;

bool carries(const CycleRecord& c, const std::string& constraint) {
  return std::any_of(c.predictions.begin(), c.predictions.end(),
                     [&](const CycleRecord::Prediction& p) { return p.constraint == constraint; });
}

// max x in [1, 20] from x = 10 s.t. g = exp(x - 13) <= 1 (x <= 13): at x = 10, g is 5 % of its
// bound (g_hat = -0.95, below -0.3, the seed's cutoff 0.7, given: by default the trust region
// keeps a scalar constraint from its zero on), so the first subproblem does not carry it and
// its step of 4 (the move limit) violates it by 172 %. Every later b0 below about 12.6 has g
// below the cutoff again; screened out there, the next step would violate it again.
TEST(ScreeningRetention, AConstraintARejectedProposalViolatedStaysInLaterSubproblems) {
  const nlohmann::json d = {
      {"design_variables", {{{"name", "x"}, {"lower", 1.0}, {"upper", 20.0}, {"initial", 10.0}}}},
      {"load_cases", {{{"name", "only"}}}},
      {"responses", {{{"name", "f"}, {"kind", "scalar"}}, {{"name", "g"}, {"kind", "scalar"}}}},
      {"objective", {{"maximize", {{"response", "f"}}}}},
      {"constraints", {{{"name", "g"}, {"of", {{"response", "g"}}}, {"upper", 1.0}}}},
      {"settings", {{"max_cycles", 50}, {"cutoff", 0.7}}},
      {"simulator", {{"type", "fake"}}}};
  const LoadedStudy s = load_study(d);
  using V = Eigen::VectorXd;
  FakeSimulator sim({{"f", [](const V& x) { return x(0); }, [](const V&) { return V(V::Ones(1)); }},
                     {"g", [](const V& x) { return std::exp(x(0) - 13.0); },
                      [](const V& x) { return V(V::Constant(1, std::exp(x(0) - 13.0))); }}});
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  EXPECT_NEAR(r.x(0), 13.0, 1e-3);
  ASSERT_GE(r.history.size(), 2u);
  const CycleRecord& first = r.history.front();
  ASSERT_FALSE(first.accepted) << "the first step no longer violates g: the test's premise";
  ASSERT_FALSE(carries(first, "g")) << "the first subproblem carries g: the test's premise";
  for (size_t k = 1; k < r.history.size(); ++k) {
    const CycleRecord& c = r.history[k];
    if (c.converged && !c.accepted && c.x_opt == c.x0) continue;  // converged at b0: no subproblem
    EXPECT_TRUE(carries(c, "g")) << "cycle " << c.cycle << " from x = " << c.x0(0);
  }
}

}  // namespace
}  // namespace sao
