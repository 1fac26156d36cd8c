// Derived responses that read other derived responses (chained): computed in dependency order
// whatever the order of the study, values and chain-rule gradients against a hand calculation,
// and a cycle refused with a message naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sao/study/derived_responses.hpp"
#include "sao/study/study_loader.hpp"
#include "tests/sao/fake_simulator.hpp"

namespace sao {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// s (the simulator's) = b1 + 2 b2; total = inner^2 + b2 is declared before inner = s b1.
json chained_study() {
  return json::parse(R"({
    "name": "chain",
    "design_variables": [{"name": "b1", "lower": 0.1, "upper": 1, "initial": 0.5},
                         {"name": "b2", "lower": 0.1, "upper": 1, "initial": 0.3}],
    "load_cases": [{"name": "only", "time": {"end": 1.0, "points": 3}}],
    "responses": [{"name": "s", "kind": "scalar"},
                  {"name": "total", "kind": "scalar", "expression": "inner^2 + b2",
                   "unit": "m^2", "label": "total"},
                  {"name": "inner", "kind": "scalar", "expression": "s*b1", "unit": "m"}],
    "objective": {"minimize": "total"},
    "simulator": {"type": "internal"}
  })");
}

std::unique_ptr<Simulator> fake() {
  return std::make_unique<testing::FakeSimulator>(std::vector<testing::FakeResponse>{
      {"s", [](const Eigen::VectorXd& b) { return b(0) + 2 * b(1); },
       [](const Eigen::VectorXd&) { return Eigen::Vector2d(1, 2).eval(); }}});
}

TEST(DerivedChain, OrderFollowsWhatEachReads) {
  const Study study = load_study(chained_study(), "chain.json");
  EXPECT_EQ(derived_order(study), (std::vector<int>{2, 1}));  // inner before total
}

// At b = (0.5, 0.3): s = 1.1, inner = 0.55, total = 0.3025 + 0.3 = 0.6025;
// d inner / db = (s + b1, 2 b1) = (1.6, 1.0); d total / db = 2 inner (1.6, 1.0) + (0, 1)
// = (1.76, 2.1).
TEST(DerivedChain, ValuesAndGradientsGoThroughTheChain) {
  const Study study = load_study(chained_study(), "chain.json");
  auto simulator = with_derived_responses(study, fake());
  EvaluationRequest request{Eigen::Vector2d(0.5, 0.3), {{0, "total", {}}}};
  const auto results = simulator->evaluate({request});
  ASSERT_EQ(results.size(), 1u);
  ASSERT_TRUE(results[0].ok) << results[0].message;
  const CaseResult& c = results[0].cases[0];
  EXPECT_NEAR(c.scalars.at("inner"), 0.55, 1e-15);
  EXPECT_NEAR(c.scalars.at("total"), 0.6025, 1e-15);
  ASSERT_EQ(c.gradients.count("total"), 1u);
  EXPECT_NEAR(c.gradients.at("total")(0, 0), 1.76, 1e-14);
  EXPECT_NEAR(c.gradients.at("total")(0, 1), 2.1, 1e-14);
  EXPECT_NEAR(c.gradients.at("inner")(0, 0), 1.6, 1e-14);  // computed on the way
}

// The problems of loading `d`, "" when it loads.
std::string problems_of(const json& d) {
  try {
    load_study(d, "chain.json");
  } catch (const StudyError& e) {
    return e.what();
  }
  return "";
}

TEST(DerivedChain, ACycleIsRefusedNamingIt) {
  json d = chained_study();
  d["responses"][2]["expression"] = "s*b1 + total";
  EXPECT_THAT(problems_of(d),
              HasSubstr("derived responses read one another in a cycle: total -> inner -> total"));
  d["responses"][2]["expression"] = "inner + 1";
  EXPECT_THAT(problems_of(d), HasSubstr("responses[2].expression: derived responses read one "
                                        "another in a cycle: inner -> inner"));
}

}  // namespace
}  // namespace sao
