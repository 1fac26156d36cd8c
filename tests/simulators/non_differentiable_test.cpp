// A design where the model is not differentiable (an expression such as sqrt at 0): the
// direct and adjoint methods name the non-finite derivative instead of failing with CVODES's
// text about its steps or returning NaN gradients, and `auto` then takes forward differences
// rather than giving no gradient.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "simulators/internal_simulator.hpp"

namespace sao::sim {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The impact absorber as a multibody model (problems/impact-absorber/max-acceleration-
// multibody.json): one body on a vertical guide, held by a spring-damper to the ground, hit at
// 1 m/s. `damping` and the body's initial height are expressions of b1 and b2.
SimulatorSetup absorber(const std::string& method, const std::string& damping,
                        const std::string& height = "0") {
  SimulatorSetup s;
  s.section = {{"type", "internal"},
               {"model", "multibody"},
               {"rtol", 1e-8},
               {"atol", 1e-10},
               {"workers", 1},
               {"gradients", {{"method", method}}},
               {"multibody",
                {{"analysis", "dynamic"},
                 {"parameters", {{"b1", 1.0}, {"b2", 0.3}}},
                 {"gravity", {0, 0}},
                 {"bodies",
                  {{{"name", "mass"},
                    {"mass", 1},
                    {"inertia", 1},
                    {"position", {"0", height}},
                    {"velocity", {0, 1}}}}},
                 {"joints",
                  {{{"type", "translational"},
                    {"name", "guide"},
                    {"bodies", {"ground", "mass"}},
                    {"axis", "pi/2"}}}},
                 {"forces",
                  {{{"type", "spring_damper"},
                    {"name", "absorber"},
                    {"bodies", {"ground", "mass"}},
                    {"points", {{0, -1}, {0, 0}}},
                    {"stiffness", "b1"},
                    {"damping", damping},
                    {"length", 1}}}}}}};
  s.design_names = {"b1", "b2"};
  s.load_cases = {{"impact", {0.0, 12.0, 101}, {}}};
  return s;
}

// c = 0.3 + sqrt(b2 - 0.3): at b2 = 0.3 the damping is 0.3 and dc/db2 is infinite.
const std::string kKink = "0.3 + sqrt(b2 - 0.3)";
const std::vector<DerivativeRequest> kHeight = {{0, "mass.y", {10, 20, 50}}};

Evaluation at(const std::string& method, const Eigen::Vector2d& b,
              const std::string& damping = kKink, const std::string& height = "0") {
  InternalSimulator sim(absorber(method, damping, height));
  return sim.evaluate({{b, kHeight}}).front();
}

TEST(NonDifferentiableDesign, DirectAndAdjointNameTheNonFiniteDerivative) {
  const Eigen::Vector2d kink(1.0, 0.3);
  const Evaluation direct = at("direct", kink);
  EXPECT_FALSE(direct.ok);
  EXPECT_THAT(direct.message, HasSubstr("the sensitivity right-hand side is not finite at t = 0"));
  EXPECT_THAT(direct.message, HasSubstr("not differentiable"));
  const Evaluation adjoint = at("adjoint", kink);
  EXPECT_FALSE(adjoint.ok);
  EXPECT_THAT(adjoint.message, HasSubstr("the adjoint quadrature (lambda' f_p) is not finite"));
  // Away from the kink both work.
  EXPECT_TRUE(at("direct", Eigen::Vector2d(1.0, 0.4)).ok);
  EXPECT_TRUE(at("adjoint", Eigen::Vector2d(1.0, 0.4)).ok);
}

// The initial height sqrt(b2 - 0.3): dx0/db2 is infinite. The adjoint's backward solve does
// not see it (x0_p enters only its last product), so the rows it returns are checked.
TEST(NonDifferentiableDesign, ANonFiniteGradientIsAFailureNamingValueAndVariable) {
  const Eigen::Vector2d kink(1.0, 0.3);
  const Evaluation adjoint = at("adjoint", kink, "b2", "sqrt(b2 - 0.3)");
  EXPECT_FALSE(adjoint.ok);
  EXPECT_THAT(adjoint.message, HasSubstr("the derivative of \"mass.y\" at t = "));
  EXPECT_THAT(adjoint.message, HasSubstr("not differentiable at this design"));
  const Evaluation direct = at("direct", kink, "b2", "sqrt(b2 - 0.3)");
  EXPECT_FALSE(direct.ok);
  EXPECT_THAT(direct.message, HasSubstr("the initial state's derivatives with respect to the "
                                        "parameters are not finite"));
}

TEST(NonDifferentiableDesign, AutoTakesForwardDifferencesWhenBothMethodsFail) {
  const Eigen::Vector2d kink(1.0, 0.3);
  const Evaluation by_auto = at("auto", kink);
  ASSERT_TRUE(by_auto.ok) << by_auto.message;
  ASSERT_EQ(by_auto.cases.size(), 1u);
  EXPECT_THAT(by_auto.cases[0].gradient_method, HasSubstr("forward differences (auto, after "));
  EXPECT_EQ(by_auto.cost.runs, 4);  // the failed attempt, the analysis and one per variable
  // The same differences as the study's forward method: same step, same runs.
  const Evaluation forward = at("forward", kink);
  ASSERT_TRUE(forward.ok) << forward.message;
  const Eigen::MatrixXd& g = by_auto.cases[0].gradients.at("mass.y");
  const Eigen::MatrixXd& h = forward.cases[0].gradients.at("mass.y");
  for (int point : kHeight[0].time_indices) {
    ASSERT_TRUE(g.row(point).allFinite()) << point;
    EXPECT_EQ(g.row(point), h.row(point)) << point;
  }
  EXPECT_EQ(by_auto.cases[0].histories.at("mass.y"), forward.cases[0].histories.at("mass.y"));

  // Where the model is differentiable, auto keeps to the analytic methods.
  const Evaluation smooth = at("auto", Eigen::Vector2d(1.0, 0.4));
  ASSERT_TRUE(smooth.ok) << smooth.message;
  EXPECT_THAT(smooth.cases[0].gradient_method, Not(HasSubstr("differences")));
}

// A run whose differences stalled asks for central ones (Driver::raise_difference_order):
// auto's fallback takes them too, one-sided at the kink's bound, and says so. Before, it took
// forward differences whatever the request, and the run's message named central ones.
TEST(NonDifferentiableDesign, AutoFallsBackToTheDifferencesTheRequestAsksFor) {
  const Eigen::Vector2d kink(1.0, 0.3);
  EvaluationRequest request{kink, kHeight};
  request.differences = DifferenceOrder::kCentral;
  request.lower = Eigen::Vector2d(0.5, 0.3);  // b2 - h would leave the model's domain
  request.upper = Eigen::Vector2d(2.0, 1.0);
  const Evaluation by_auto = InternalSimulator(absorber("auto", kKink)).evaluate({request}).front();
  ASSERT_TRUE(by_auto.ok) << by_auto.message;
  EXPECT_THAT(by_auto.cases[0].gradient_method, HasSubstr("central differences (auto, after "));
  EXPECT_EQ(by_auto.cost.runs, 6);  // the failed attempt, the analysis and two per variable
  const Evaluation central =
      InternalSimulator(absorber("central", kKink)).evaluate({request}).front();
  ASSERT_TRUE(central.ok) << central.message;
  const Eigen::MatrixXd& g = by_auto.cases[0].gradients.at("mass.y");
  const Eigen::MatrixXd& h = central.cases[0].gradients.at("mass.y");
  const Eigen::MatrixXd& f = at("forward", kink).cases[0].gradients.at("mass.y");
  for (int point : kHeight[0].time_indices) {
    ASSERT_TRUE(g.row(point).allFinite()) << point;
    EXPECT_EQ(g.row(point), h.row(point)) << point;
    EXPECT_NE(g.row(point), f.row(point)) << point;
  }
}

TEST(NonDifferentiableDesign, WhenTheDifferencesFailTooEveryReasonIsInTheMessage) {
  // A step limit of 1: every run fails, each method's reason is kept.
  SimulatorSetup s = absorber("auto", kKink);
  s.section["max_steps"] = 1;
  InternalSimulator sim(s);
  const Evaluation e = sim.evaluate({{Eigen::Vector2d(1.0, 0.3), kHeight}}).front();
  EXPECT_FALSE(e.ok);
  EXPECT_THAT(e.message, HasSubstr("direct: "));
  EXPECT_THAT(e.message, HasSubstr("; adjoint: "));
  EXPECT_THAT(e.message, HasSubstr("; forward differences: "));
  EXPECT_THAT(e.message, HasSubstr("CV_TOO_MUCH_WORK"));
}

}  // namespace
}  // namespace sao::sim
