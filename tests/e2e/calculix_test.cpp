// End to end with a real external code: problems/cantilever-calculix/mass.json drives CalculiX
// (ccx) through an input template. The optimum is checked against the closed form of
// Euler-Bernoulli beam theory: the tip deflection of a cantilever under a tip force F is
// u = F L^3 / (3 E I) = 4 F L^3 / (E w h^3), so the lightest section with |u| <= u_max puts h
// at its upper bound and w = 4 F L^3 / (E u_max h^3).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "tests/e2e/run_study.hpp"

namespace sao {
namespace {

constexpr double kF = 1000.0, kL = 1000.0, kE = 210000.0, kUmax = 10.0, kHmax = 60.0;

double closed_form_deflection(double w, double h) {
  return 4.0 * kF * kL * kL * kL / (kE * w * h * h * h);
}

std::string run_directory() {
  return std::string(SAO_BINARY_DIR) + "/calculix-runs";
}

// CalculiX is an optional part (scripts/bootstrap --with calculix; scripts/test installs it):
// without it these tests are skipped, not failed.
bool ccx_installed() {
  return std::system("command -v ccx >/dev/null 2>&1") == 0;
}

TEST(CalculixE2E, CcxAgreesWithBeamTheoryAtTheStartDesign) {
  if (!ccx_installed())
    GTEST_SKIP() << "CalculiX (ccx) is not installed (scripts/bootstrap --with calculix)";
  adapters::register_external_simulator();
  nlohmann::json doc =
      read_study_document(std::string(SAO_SOURCE_DIR) + "/problems/cantilever-calculix/mass.json");
  apply_override(doc, "simulator.run_directory=" + run_directory());
  const OpenedStudy opened = open_study_document(doc, "problems/cantilever-calculix/mass.json");
  Simulator* simulator = opened.simulator.get();
  EvaluationRequest request;
  request.design = Eigen::Vector2d(20.0, 40.0);
  const Evaluation e = simulator->evaluate({request}).front();
  ASSERT_TRUE(e.ok) << e.message;
  const Eigen::VectorXd& u = e.cases[0].histories.at("tip_uy");
  ASSERT_EQ(u.size(), 10);
  // The pulse peaks at t = 0.5 (index 4) with F; u follows the amplitude (linear elastic).
  const double peak = closed_form_deflection(20.0, 40.0);
  EXPECT_NEAR(-u(4), peak, 0.015 * peak);
  EXPECT_NEAR(u(9) / u(4), 0.4, 1e-3);  // amplitude 0.4 at t = 1
  EXPECT_NEAR(u(1) / u(4), 0.4, 1e-3);  // and 0.4 at t = 0.2
}

TEST(CalculixE2E, MassStudyConvergesToTheClosedFormOptimum) {
  if (!ccx_installed())
    GTEST_SKIP() << "CalculiX (ccx) is not installed (scripts/bootstrap --with calculix)";
  const RunSummary r = run_study("problems/cantilever-calculix/mass.json",
                                 {"simulator.run_directory=" + run_directory()});
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  const double w_exact = 4.0 * kF * kL * kL * kL / (kE * kUmax * kHmax * kHmax * kHmax);  // 8.818
  EXPECT_NEAR(r.x(1), kHmax, 1e-6);                          // h at its upper bound
  EXPECT_NEAR(r.x(0), w_exact, 0.015 * w_exact);             // beam theory vs ccx's B32R elements
  const double mass_exact = 7.85e-6 * kL * w_exact * kHmax;  // 4.153 kg
  EXPECT_NEAR(r.objective, mass_exact, 0.015 * mass_exact);
  EXPECT_LE(r.max_violation, 0.01);  // vioacc, percent: the deflection constraint is active
  EXPECT_LE(r.cycles, 20);
}

}  // namespace
}  // namespace sao
