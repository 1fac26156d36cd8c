// End to end: the four-bar with flexible links (seed 003, chapter 5; docs/four-bar-flexible.md)
// at its start design, the cheap part of the study in CI: the mass (546.14 kg), the peak
// stress ratios against the rigid-link reference of PROBLEMS.md (at E and 1000 E), and the first
// cycle (no constraint within the 50 % cutoff: the move limits take d to 214.08 mm). The full runs
// are scripts/four-bar-table.
#include <gtest/gtest.h>

#include <fstream>
#include <numbers>

#include "simulators/multibody/multibody.hpp"
#include "tests/e2e/run_study.hpp"

namespace sao {
namespace {

TEST(FourBarFlexibleE2E, StartDesignMassAndFirstCycle) {
  const RunSummary r =
      run_study("problems/four-bar-flexible/flexible.json", {"settings.max_cycles=1"});
  EXPECT_NEAR(r.start_objective, 546.14, 0.005);
  ASSERT_EQ(r.x.size(), 3);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(r.x(i), 0.21408, 1e-6);
}

// The peak of |32 M / (pi d^3)| / sigma_a over [0.3, 0.5] s at every node of each link, at the
// start design of `study` (the four-bar's tolerances, rtol 1e-6, atol 1e-9).
class StartDesignPeaks {
 public:
  explicit StartDesignPeaks(const std::string& study) {
    std::ifstream in(std::string(SAO_SOURCE_DIR) + "/problems/four-bar-flexible/" + study);
    const nlohmann::json doc = nlohmann::json::parse(in);
    const auto model = sim::load_multibody_model(doc["simulator"]["multibody"], "multibody");
    const auto names = model->parameters();
    const auto defaults = model->parameter_defaults();
    Eigen::VectorXd p(static_cast<Eigen::Index>(names.size()));
    for (size_t i = 0; i < names.size(); ++i) {
      p(static_cast<Eigen::Index>(i)) = defaults.at(names[i]);
    }
    LoadCaseSpec lc;
    lc.name = "steady";
    lc.grid.values = doc["load_cases"][0]["time"]["values"].get<std::vector<double>>();
    lc.grid.start = lc.grid.values.front();
    lc.grid.end = lc.grid.values.back();
    lc.grid.points = static_cast<int>(lc.grid.values.size());
    sim::IntegratorSettings settings;
    settings.rtol = 1e-6;
    settings.atol = 1e-9;
    error_ = model->analyse(p, lc, settings, out_);
  }
  const std::string& error() const { return error_; }
  double operator()(const std::string& link, int node) const {
    const double d = 0.3568, W = std::numbers::pi * d * d * d / 32, sigma_a = 2.758e7;
    return out_.histories.at(link + ".moment" + std::to_string(node))
               .tail(201)
               .cwiseAbs()
               .maxCoeff() /
           W / sigma_a;
  }

 private:
  CaseResult out_;
  std::string error_;
};

// At E (flexible.json) and at 1000 E (rigid.json: nearly rigid links, whose crank root moment
// was noise before the beams resolved their deformation in the integrator's tolerances).
TEST(FourBarFlexibleE2E, StartDesignStressRatiosMatchTheRigidReference) {
  for (const char* study : {"flexible.json", "rigid.json"}) {
    const StartDesignPeaks peak(study);
    ASSERT_EQ(peak.error(), "") << study;
    // Coupler and rocker at mid-span (node 4 of 7): within 0.5 % of the rigid links' 0.0641
    // and 0.0499 (at this thick design the links are nearly rigid at E).
    EXPECT_NEAR(peak("coupler", 3), 0.0641, 0.005 * 0.0641) << study;
    EXPECT_NEAR(peak("rocker", 3), 0.0499, 0.005 * 0.0499) << study;
    // Crank at its driven node: the rigid links' 0.2548 is for slender links; these solid
    // cylinders (d/l up to 0.39) also carry their sections' rotary inertia m d^2/16, which
    // the beam nodes hold: the rigid-link value with it is 0.25851 (problems/four-bar-flexible/
    // rigid_reference.py, independent of the simulator). Within 0.5 % of that (at 1000 E
    // within 0.05 %), and 1-2 % above the slender value.
    const double tolerance = std::string(study) == "rigid.json" ? 0.0005 : 0.005;
    EXPECT_NEAR(peak("crank", 0), 0.25851, tolerance * 0.25851) << study;
    EXPECT_GT(peak("crank", 0), 1.01 * 0.2548) << study;
    // The critical points are where the seed found them: the crank's root, mid-span elsewhere.
    for (int k = 1; k <= 6; ++k) EXPECT_LT(peak("crank", k), peak("crank", 0)) << study;
    for (int k : {0, 1, 2, 4, 5, 6}) {
      EXPECT_LT(peak("coupler", k), peak("coupler", 3)) << study;
    }
    for (int k : {0, 1, 2, 5, 6}) EXPECT_LT(peak("rocker", k), peak("rocker", 3)) << study;
  }
}

}  // namespace
}  // namespace sao
