// The "functions" model (simulators/models/functions.hpp): responses as expressions of named
// parameters, mapped like any model's, differentiated by finite differences, failures named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "simulators/internal_simulator.hpp"
#include "simulators/models/functions.hpp"

namespace sao::sim {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

SimulatorSetup setup(const json& functions, const json& extra = json::object()) {
  SimulatorSetup s;
  s.section = {{"type", "internal"}, {"model", "functions"}, {"functions", functions}};
  s.section.update(extra);
  s.design_names = {"x1", "x2"};
  s.load_cases = {LoadCaseSpec{"main", {}, {}}};
  return s;
}

// The message of the section's construction error.
::testing::Matcher<std::function<void()>> fails_with(const std::string& text) {
  return ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr(text));
}

void construct(const SimulatorSetup& s) {
  InternalSimulator sim(s);
}

TEST(FunctionsModel, ParametersAreTheNamesTheExpressionsRead) {
  const InternalSimulator sim(setup({{"f", "(x1-10)^3 + (x2-20)^3"}, {"c1", "x1*pi + x2"}}));
  EXPECT_EQ(sim.model().name(), "functions");
  EXPECT_THAT(sim.model().parameters(), ElementsAre("x1", "x2"));
  ASSERT_EQ(sim.responses().size(), 2u);
  EXPECT_EQ(sim.responses()[0].name, "c1");
  EXPECT_FALSE(sim.responses()[0].history);
  EXPECT_EQ(expr::names_read(expr::parse("a*sin(b) + a^c@k")),
            (std::vector<std::string>{"a", "b", "c"}));
}

TEST(FunctionsModel, ValuesAndForwardDifferences) {
  InternalSimulator sim(setup({{"f", "(x1-10)^3 + (x2-20)^3"}, {"c1", "(x1-5)^2 + (x2-5)^2"}},
                              {{"gradients", {{"method", "central"}, {"step", 1e-6}}}}));
  EvaluationRequest r;
  r.design = Eigen::Vector2d(14.0, 1.0);
  r.derivatives = {{0, "f", {}}, {0, "c1", {}}};
  const Evaluation e = sim.evaluate({r}).front();
  ASSERT_TRUE(e.ok) << e.message;
  EXPECT_DOUBLE_EQ(e.cases[0].scalars.at("f"), 64.0 - 6859.0);
  EXPECT_DOUBLE_EQ(e.cases[0].scalars.at("c1"), 81.0 + 16.0);
  const Eigen::MatrixXd& g = e.cases[0].gradients.at("f");
  EXPECT_NEAR(g(0, 0), 3 * 16.0, 1e-5);
  EXPECT_NEAR(g(0, 1), 3 * 361.0, 1e-4);
  EXPECT_NEAR(e.cases[0].gradients.at("c1")(0, 1), -8.0, 1e-5);
  EXPECT_EQ(e.cost.runs, 5);  // nominal and two runs per variable
}

TEST(FunctionsModel, ParametersMapOntoDesignVariablesOrConstants) {
  SimulatorSetup s = setup({{"f", "a + 10*b + 100*c"}},
                           {{"parameters", {{"a", "x2"}, {"b", "x1"}}}, {"constants", {{"c", 3}}}});
  InternalSimulator sim(s);
  const Evaluation e = sim.evaluate({{Eigen::Vector2d(1.0, 2.0), {}}}).front();
  ASSERT_TRUE(e.ok) << e.message;
  EXPECT_DOUBLE_EQ(e.cases[0].scalars.at("f"), 2.0 + 10.0 + 300.0);
}

TEST(FunctionsModel, ANonFiniteValueIsAFailedAnalysisNamingTheFunction) {
  InternalSimulator sim(setup({{"f", "x1 + x2"}, {"root", "sqrt(x1 - x2)"}}));
  const Evaluation e = sim.evaluate({{Eigen::Vector2d(1.0, 2.0), {}}}).front();
  EXPECT_FALSE(e.ok);
  EXPECT_THAT(e.message, HasSubstr("function \"root\" is not finite"));
  EXPECT_THAT(e.message, HasSubstr("x1 = 1, x2 = 2"));
}

TEST(FunctionsModel, SectionProblemsNameTheirPath) {
  const SimulatorSetup bad = setup({{"f", "x1 +"}, {"g", 3}});
  EXPECT_THAT([&] { construct(bad); }, fails_with("simulator.functions.f: column"));
  EXPECT_THAT([&] { construct(bad); }, fails_with("simulator.functions.g: expected an expression"));
  const SimulatorSetup empty = setup(json::object());
  EXPECT_THAT([&] { construct(empty); }, fails_with("simulator.functions: missing or empty"));
  const SimulatorSetup unmapped = setup({{"f", "x1 + y"}});
  EXPECT_THAT([&] { construct(unmapped); }, fails_with("model parameter \"y\" is not mapped"));
  const SimulatorSetup adjoint = setup({{"f", "x1"}}, {{"gradients", {{"method", "adjoint"}}}});
  EXPECT_THAT([&] { construct(adjoint); }, fails_with("closed-form"));
  SimulatorSetup other = setup({{"f", "x1"}});
  other.section["model"] = "oscillator";
  EXPECT_THAT([&] { construct(other); }, fails_with("simulator.functions: only with"));
}

}  // namespace
}  // namespace sao::sim
