// The study file's "random_variables" and "correlations" sections (load_random.cpp,
// docs/robustness.md): good entries read, every problem naming the entry and its key.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sao/study/study_loader.hpp"

namespace sao {
namespace {

using nlohmann::json;
using ::testing::Contains;
using ::testing::HasSubstr;

json study(const json& random, const json& correlations = nullptr) {
  json d = json::parse(R"({
    "design_variables": [
      {"name": "x1", "lower": -5.0, "upper": 5.0, "initial": 1.0},
      {"name": "x2", "lower": 0.5, "upper": 5.0, "initial": 2.0},
      {"name": "p", "lower": 3.0, "upper": 3.0, "initial": 3.0}
    ],
    "load_cases": [{"name": "main"}],
    "responses": [{"name": "f", "kind": "scalar"}],
    "objective": {"minimize": "f"},
    "simulator": {"type": "internal", "model": "functions", "functions": {"f": "x1 + x2 + p"}}
  })");
  d["random_variables"] = random;
  if (!correlations.is_null()) d["correlations"] = correlations;
  return d;
}

std::vector<std::string> problems_of(const json& random, const json& correlations = nullptr) {
  try {
    load_study(study(random, correlations), "t.json");
  } catch (const StudyError& e) {
    return e.problems();
  }
  return {};
}

TEST(RandomSection, ReadsEachDistributionAndTheCorrelations) {
  const LoadedStudy s = load_study(study(json::parse(R"([
        {"name": "a", "of": "x1", "distribution": "normal", "sd": 0.1},
        {"name": "b", "of": "x2", "distribution": "lognormal", "cov": 0.05},
        {"name": "c", "of": "p", "distribution": "uniform", "lower": -0.5, "upper": 0.5}
      ])"),
                                         json::parse(R"([{"between": ["a", "b"], "rho": 0.3}])")));
  ASSERT_TRUE(s.random);
  ASSERT_EQ(s.random->variables.size(), 3u);
  EXPECT_EQ(s.random->variables[0].variable, 0);
  EXPECT_EQ(s.random->variables[0].sd, 0.1);
  EXPECT_EQ(s.random->variables[1].distribution, "lognormal");
  EXPECT_EQ(s.random->variables[1].cov, 0.05);
  EXPECT_EQ(s.random->variables[2].variable, 2);  // a frozen design variable: a model parameter
  EXPECT_EQ(s.random->correlation(0, 1), 0.3);
  EXPECT_EQ(s.random->correlation(1, 0), 0.3);
  EXPECT_EQ(s.random->correlation(0, 2), 0.0);
  EXPECT_FALSE(load_study(study(json::array({{{"name", "t"},
                                              {"of", "x1"},
                                              {"distribution", "truncated_normal"},
                                              {"sd", 1},
                                              {"lower", -1}}})))
                   .random->correlation.isZero());
}

TEST(RandomSection, EveryProblemNamesTheEntryAndTheKey) {
  auto has = [](const json& random, const std::string& fragment, const json& corr = nullptr) {
    EXPECT_THAT(problems_of(random, corr), Contains(HasSubstr(fragment))) << random.dump();
  };
  const json normal = {{"name", "a"}, {"of", "x1"}, {"distribution", "normal"}, {"sd", 0.1}};
  auto with = [&](const char* key, const json& value) {
    json e = normal;
    e[key] = value;
    return json::array({e});
  };
  has(with("of", "nope"), "random_variables[0].of: \"nope\" is not a design variable");
  has(with("distribution", "gamma"), "random_variables[0].distribution");
  has(with("sd", -1), "random_variables[0].sd");
  has(with("cov", 0.1), "random_variables[0]: give only one of \"sd\"");
  has(with("lower", -1), "random_variables[0].lower: does not apply to distribution \"normal\"");
  has(with("colour", "red"), "random_variables[0].colour: unknown key");
  json no_spread = normal;
  no_spread.erase("sd");
  has(json::array({no_spread}), "random_variables[0]: missing the spread");
  has(json::array({{{"name", "u"}, {"of", "x1"}, {"distribution", "uniform"}, {"lower", 1}}}),
      "random_variables[0]: uniform needs \"lower\" and \"upper\"");
  has(json::array(
          {{{"name", "u"}, {"of", "x1"}, {"distribution", "uniform"}, {"lower", 1}, {"upper", 0}}}),
      "random_variables[0]: lower 1 must be below upper 0");
  has(json::array({normal, normal}), "random_variables[1].name: \"a\" is used twice");
  json other = normal;
  other["name"] = "b";
  has(json::array({normal, other}),
      "random_variables[1].of: \"x1\" already has random variable \"a\"");
  json second = {{"name", "b"}, {"of", "x2"}, {"distribution", "normal"}, {"sd", 0.1}};
  has(json::array({normal, second}), "correlations[0].between: \"c\" is not a random variable",
      json::parse(R"([{"between": ["a", "c"], "rho": 0.3}])"));
  has(json::array({normal, second}), "correlations[0].rho: must be in (-1, 1)",
      json::parse(R"([{"between": ["a", "b"], "rho": 1.5}])"));
  has(json::array({normal, second}), "correlations[0].r: unknown key",
      json::parse(R"([{"between": ["a", "b"], "rho": 0.5, "r": 1}])"));
}

TEST(RandomSection, AnImpossibleCorrelationMatrixIsRefusedNamingTheVariables) {
  const json random = json::parse(R"([
    {"name": "a", "of": "x1", "distribution": "normal", "sd": 0.1},
    {"name": "b", "of": "x2", "distribution": "normal", "sd": 0.1},
    {"name": "c", "of": "p", "distribution": "normal", "sd": 0.1}
  ])");
  const json corr = json::parse(R"([
    {"between": ["a", "b"], "rho": 0.9}, {"between": ["b", "c"], "rho": 0.9},
    {"between": ["a", "c"], "rho": -0.9}
  ])");
  EXPECT_THAT(
      problems_of(random, corr),
      Contains(::testing::AllOf(HasSubstr("correlations: "), HasSubstr("not positive definite"),
                                HasSubstr("\"a\", \"b\", \"c\""))));
  EXPECT_THAT(problems_of(json::array()), Contains(HasSubstr("random_variables: empty")));
}

}  // namespace
}  // namespace sao
