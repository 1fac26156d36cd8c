// The study file's "doe" section (load_doe.cpp): settings, the region, errors naming the key;
// the explicit constraints.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sao/study/study_loader.hpp"

namespace sao {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json study(const json& doe) {
  json d = json::parse(R"({
    "design_variables": [
      {"name": "b1", "lower": 0.0, "upper": 2.0, "initial": 1.0, "sizing": "range"},
      {"name": "b2", "lower": 10.0, "upper": 20.0, "initial": 12.0},
      {"name": "b3", "lower": -1.0, "upper": 1.0, "initial": 0.5}
    ],
    "auxiliary_variables": [{"name": "a", "lower": 0.0, "initial": 1.0}],
    "load_cases": [{"name": "c", "time": {"end": 1.0, "points": 11}}],
    "responses": [{"name": "y", "kind": "history"}],
    "objective": {"minimize_max": {"response": "y"}, "auxiliary": "a"},
    "constraints": [
      {"name": "sum", "of": "b1 + b3", "upper": 2.0},
      {"name": "ratio", "of": "b2 / 10 - b1", "lower": 0.0, "scale": 1},
      {"name": "response", "of": {"response": "y"}, "upper": 1.0}
    ],
    "simulator": {"type": "internal"}
  })");
  if (!doe.is_null()) d["doe"] = doe;
  return d;
}

std::vector<std::string> problems_of(const json& doe) {
  try {
    load_study(study(doe), "t.json");
  } catch (const StudyError& e) {
    return e.problems();
  }
  return {};
}

TEST(DoeSection, ReadsALatinHypercubeWithItsDefaultsAndTheDesignBounds) {
  const LoadedStudy s = load_study(study({{"method", "lhs"}, {"points", 50}}));
  ASSERT_TRUE(s.doe);
  EXPECT_EQ(s.doe->settings.method, doe::Method::kLatinHypercube);
  EXPECT_EQ(s.doe->settings.points, 50);
  EXPECT_EQ(s.doe->settings.seed, 1u);
  EXPECT_EQ(s.doe->region.lower, Eigen::Vector3d(0, 10, -1));
  EXPECT_EQ(s.doe->region.upper, Eigen::Vector3d(2, 20, 1));
  EXPECT_EQ(s.doe->plan["method"], "lhs");
  EXPECT_EQ(s.doe->plan["iterations"], 10000);
  EXPECT_FALSE(load_study(study(nullptr)).doe);
}

TEST(DoeSection, ASubRegionByCentreAndSizeOrByValues) {
  const LoadedStudy s = load_study(study({{"method", "sobol"},
                                          {"points", 8},
                                          {"region", {{"center", 0.5}, {"size", {{"b2", 0.2}}}}}}));
  EXPECT_EQ(s.doe->region.lower, Eigen::Vector3d(0, 14, -1));
  EXPECT_EQ(s.doe->region.upper, Eigen::Vector3d(2, 16, 1));
  const LoadedStudy i = load_study(study(
      {{"method", "sobol"}, {"points", 8}, {"region", {{"center", "initial"}, {"size", 0.5}}}}));
  EXPECT_EQ(i.doe->region.lower, Eigen::Vector3d(0.5, 10, 0));  // 12 - 2.5 cut at 10
  EXPECT_EQ(i.doe->region.upper, Eigen::Vector3d(1.5, 14.5, 1));
  const LoadedStudy v =
      load_study(study({{"method", "sobol"},
                        {"points", 8},
                        {"region", {{"lower", {{"b1", 0.5}}}, {"upper", {{"b3", 0}}}}}}));
  EXPECT_EQ(v.doe->region.lower, Eigen::Vector3d(0.5, 10, -1));
  EXPECT_EQ(v.doe->region.upper, Eigen::Vector3d(2, 20, 0));
}

TEST(DoeSection, EveryProblemNamesItsKey) {
  auto has = [](const json& doe, const std::string& fragment) {
    const std::vector<std::string> p = problems_of(doe);
    EXPECT_THAT(p, ::testing::Contains(HasSubstr(fragment))) << doe.dump();
  };
  has({{"method", "lhs"}}, "doe.points: missing");
  has({{"method", "lhs"}, {"points", 5}, {"levels", 3}},
      "doe.levels: applies to full_factorial, not to method \"lhs\"");
  has({{"method", "lhs"}, {"points", 5}, {"pionts", 3}}, "doe.pionts: unknown key");
  has({{"method", "latin"}, {"points", 5}}, "doe.method: expected \"lhs\"");
  has({{"points", 5}}, "doe.method");
  has({{"method", "lhs"}, {"points", 0}}, "doe.points");
  has({{"method", "full_factorial"}, {"levels", {{"b1", 1}}}},
      "doe.levels: b1: expected an integer >= 2");
  has({{"method", "full_factorial"}, {"levels", {{"b9", 3}}}},
      "doe.levels.b9: not a design variable");
  has({{"method", "full_factorial"}, {"levels", 100}},
      "doe.levels: 1e+06 points, more than 100000");
  has({{"method", "fractional_factorial"}, {"generators", {"b3=b1*b4"}}},
      "doe.generators[0]: expected \"GENERATED=F1*F2*...\"");
  has({{"method", "fractional_factorial"}, {"generators", {"b3=b1*b2", "b2=b1"}}},
      "b2 is generated itself");
  has({{"method", "fractional_factorial"}, {"fraction", 1}, {"resolution", 3}},
      "give one of generators, fraction and resolution");
  has({{"method", "sobol"}, {"points", 4}, {"region", {{"center", 0.5}, {"lower", {{"b1", 1}}}}}},
      "either center and size");
  has({{"method", "sobol"}, {"points", 4}, {"region", {{"size", 0}}}},
      "doe.region.size: b1: expected a fraction in (0, 1]");
  has({{"method", "sobol"}, {"points", 4}, {"region", {{"lower", {{"b1", -1}}}}}},
      "doe.region: b1: [-1, 2] leaves the variable's range [0, 2]");
  has({{"method", "sobol"},
       {"points", 4},
       {"region", {{"lower", {{"b1", 1.5}}}, {"upper", {{"b1", 1}}}}}},
      "doe.region: b1: an empty range");
  has({{"method", "sobol"}, {"points", 4}, {"region", {{"centre", 0.5}}}},
      "doe.region.centre: unknown key");
  has({{"method", "d_optimal"}, {"points", 4}, {"polynomial", "cubic"}}, "doe.polynomial");
}

TEST(DoeSection, GeneratorsByVariableNames) {
  const LoadedStudy s =
      load_study(study({{"method", "fractional_factorial"}, {"generators", {"b3 = b1 * b2"}}}));
  ASSERT_EQ(s.doe->settings.generators.size(), 1u);
  EXPECT_EQ(s.doe->settings.generators[0].generated, 2);
  EXPECT_EQ(s.doe->settings.generators[0].factors, (std::vector<int>{0, 1}));
  EXPECT_EQ(s.doe->plan["generators"], json({"b3=b1*b2"}));
}

TEST(DoeSection, ExplicitConstraintsAreThoseOfDesignVariablesOnly) {
  const LoadedStudy s = load_study(study(nullptr));
  const std::vector<int> which = explicit_constraints(s);
  std::vector<std::string> names;
  for (int j : which) names.push_back(s.constraints[j].name);
  // Not the response's, nor the bound formulation's (they read the auxiliary a).
  EXPECT_EQ(names, (std::vector<std::string>{"sum", "ratio"}));
  std::vector<std::string> violated;
  EXPECT_TRUE(holds_explicit_constraints(s, which, Eigen::Vector3d(1, 15, 1)));  // on the bound
  EXPECT_FALSE(holds_explicit_constraints(s, which, Eigen::Vector3d(1.8, 15, 0.5), &violated));
  EXPECT_EQ(violated, (std::vector<std::string>{"sum", "ratio"}));
}

}  // namespace
}  // namespace sao
