// End to end: problems/flexible-pendulum (seed 004), the 1.2 m beam of 5 elements released
// horizontally, 4 s, variational integrator: the study evaluates (the tip swings down and
// bends visibly) and its discrete adjoint gradients of every response (the tip's position,
// the tangent angle at the pin and the derived tip deflection) with respect to the width, the
// modulus and the density equal `sao check-gradient`'s extrapolated differences (at its
// relative step 1e-4: at the default 1e-2 the 4 s swing is too nonlinear for the reference).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "adapters/external_simulator.hpp"
#include "sao/report/gradient_check.hpp"
#include "sao/study/open_study.hpp"
#include "sao/study/study_loader.hpp"
#include "simulators/internal_simulator.hpp"

namespace sao {
namespace {

constexpr const char* kStudy = "problems/flexible-pendulum/tip-deflection.json";

TEST(FlexiblePendulumE2E, EvaluatesAndItsDiscreteAdjointMatchesCheckGradient) {
  sim::register_internal_simulator();
  adapters::register_external_simulator();
  OpenedStudy opened =
      open_study_document(read_study_document(std::string(SAO_SOURCE_DIR) + "/" + kStudy), kStudy);
  const Study& study = opened.study;
  ASSERT_EQ(study.design.size(), 3u);
  Eigen::VectorXd x(3);
  for (int i = 0; i < 3; ++i) x(i) = study.design[i].initial;

  EvaluationRequest request;
  request.design = x;
  request.derivatives.push_back({0, "tip_deflection", {}});
  const Evaluation e = opened.simulator->evaluate({request}).at(0);
  ASSERT_TRUE(e.ok) << e.message;
  const CaseResult& c = e.cases.at(0);
  EXPECT_NE(c.gradient_method.find("discrete"), std::string::npos) << c.gradient_method;
  // Released along +x from the pin: the tip starts at (1.2, 0) and swings below the pin (the
  // simulator's histories by their sources' names, the derived one by its own).
  EXPECT_NEAR(c.histories.at("b_5.x")(0), 1.2, 1e-12);
  EXPECT_LT(c.histories.at("b_5.y").minCoeff(), -1.1);
  // It bends visibly (evaluate: -0.1486 m at t = 1.15 s, 0.1482 m at 2.15 s).
  EXPECT_GT(c.histories.at("tip_deflection").cwiseAbs().maxCoeff(), 0.1);

  GradientCheckOptions options;
  options.relative_step = 1e-4;
  const GradientCheck check = check_gradients(study, *opened.simulator, x, options);
  ASSERT_EQ(check.rows.size(), 12u);  // 4 responses x 3 variables
  for (const GradientCheckRow& row : check.rows) {
    EXPECT_LT(row.relative_error, 1e-5)
        << row.response << "[" << row.point << "] d/d" << row.variable << ": " << row.analytic
        << " against " << row.reference;
  }
}

}  // namespace
}  // namespace sao
