// Discrete design variables (issue 51; docs/study-format.md, "Discrete variables"): the allowed
// values next to a design, and the loader's errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sao/study/study_loader.hpp"

namespace sao {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json study_with(const json& variable) {
  return {{"design_variables", {variable}},
          {"load_cases", {{{"name", "only"}}}},
          {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
          {"objective", {{"minimize", {{"response", "r"}}}}},
          {"simulator", {{"type", "internal"}}}};
}

// Every problem of loading `doc`, joined ("" when it loads).
std::string problems_of(const json& doc) {
  try {
    load_study(doc, "test.json");
  } catch (const StudyError& e) {
    return e.what();
  }
  return "";
}

TEST(DiscreteVariables, CatalogueNeighboursAndNearest) {
  DesignVariable v;
  v.values = {0.12, 0.15, 0.18, 0.22};
  v.lower = 0.12;
  v.upper = 0.22;
  EXPECT_EQ(v.neighbours(0.16), std::make_pair(0.15, 0.18));
  EXPECT_EQ(v.neighbours(0.15), std::make_pair(0.15, 0.15));
  EXPECT_EQ(v.neighbours(0.15 + 1e-12), std::make_pair(0.15, 0.15));  // round-off is on it
  EXPECT_EQ(v.neighbours(0.05), std::make_pair(0.12, 0.12));          // beyond the ends
  EXPECT_EQ(v.neighbours(0.3), std::make_pair(0.22, 0.22));
  EXPECT_EQ(v.nearest(0.16), 0.15);
  EXPECT_EQ(v.nearest(0.17), 0.18);
  EXPECT_EQ(v.nearest(0.164), 0.15);
  EXPECT_TRUE(v.allowed(0.18));
  EXPECT_FALSE(v.allowed(0.181));
}

TEST(DiscreteVariables, StepNeighboursStopAtTheLastValueBelowUpper) {
  DesignVariable v;
  v.step = 0.25;
  v.lower = 1.0;
  v.upper = 2.1;  // values 1, 1.25, 1.5, 1.75, 2
  EXPECT_EQ(v.neighbours(1.3), std::make_pair(1.25, 1.5));
  EXPECT_EQ(v.neighbours(2.05), std::make_pair(2.0, 2.0));
  EXPECT_EQ(v.nearest(1.13), 1.25);
  EXPECT_TRUE(v.allowed(1.75));
  EXPECT_FALSE(v.allowed(1.8));
  DesignVariable c;  // continuous
  EXPECT_EQ(c.nearest(0.123), 0.123);
  EXPECT_FALSE(c.discrete());
}

TEST(DiscreteVariables, ACatalogueSetsTheBoundsToItsEnds) {
  const LoadedStudy s = load_study(
      study_with({{"name", "k"}, {"values", {0.12, 0.15, 0.18}}, {"initial", 0.15}}), "t.json");
  ASSERT_EQ(s.design.size(), 1u);
  EXPECT_TRUE(s.design[0].discrete());
  EXPECT_EQ(s.design[0].lower, 0.12);
  EXPECT_EQ(s.design[0].upper, 0.18);
  // Bounds given beside it must be its ends.
  EXPECT_EQ(problems_of(study_with({{"name", "k"},
                                    {"values", {0.12, 0.15, 0.18}},
                                    {"lower", 0.12},
                                    {"upper", 0.18},
                                    {"initial", 0.15}})),
            "");
}

TEST(DiscreteVariables, EveryMistakeIsNamed) {
  EXPECT_THAT(
      problems_of(study_with({{"name", "k"}, {"values", {0.1, 0.3, 0.2}}, {"initial", 0.1}})),
      HasSubstr("design_variables[0].values[2]: 0.2 after 0.3: the values must be strictly "
                "increasing"));
  EXPECT_THAT(problems_of(study_with({{"name", "k"}, {"values", {0.1}}, {"initial", 0.1}})),
              HasSubstr("design_variables[0].values: needs at least two values"));
  EXPECT_THAT(problems_of(study_with({{"name", "k"}, {"values", {0.1, "x"}}, {"initial", 0.1}})),
              HasSubstr("design_variables[0].values[1]: expected a finite number"));
  EXPECT_THAT(
      problems_of(study_with({{"name", "k"}, {"values", {0.1, 0.2, 0.3}}, {"initial", 0.25}})),
      HasSubstr("design_variables[0].initial: 0.25 is not an allowed value (0.2 or 0.3)"));
  EXPECT_THAT(problems_of(study_with(
                  {{"name", "k"}, {"values", {0.1, 0.2}}, {"upper", 0.3}, {"initial", 0.1}})),
              HasSubstr("design_variables[0].upper: 0.3 is not the last value 0.2"));
  EXPECT_THAT(problems_of(study_with({{"name", "k"},
                                      {"values", {0.1, 0.2}},
                                      {"step", 0.1},
                                      {"lower", 0.1},
                                      {"initial", 0.1}})),
              HasSubstr("design_variables[0].step: give \"values\" or \"step\", not both"));
  EXPECT_THAT(problems_of(study_with({{"name", "k"}, {"step", 0.5}, {"initial", 1.0}})),
              HasSubstr("design_variables[0].step: needs a finite lower bound"));
  EXPECT_THAT(problems_of(study_with({{"name", "k"}, {"step", -1}, {"lower", 0}, {"initial", 0}})),
              HasSubstr("design_variables[0].step"));
  EXPECT_THAT(problems_of(study_with(
                  {{"name", "k"}, {"step", 0.5}, {"lower", 0}, {"upper", 3}, {"initial", 0.7}})),
              HasSubstr("design_variables[0].initial: 0.7 is not an allowed value (0.5 or 1)"));
  json with_start = study_with({{"name", "k"},
                                {"step", 0.5},
                                {"lower", 0},
                                {"upper", 3},
                                {"initial", 1},
                                {"sizing", "range"}});
  with_start["starts"] = {{{"k", 1.2}}};
  EXPECT_THAT(problems_of(with_start),
              HasSubstr("starts[0].k: 1.2 is not an allowed value (1 or 1.5)"));
}

}  // namespace
}  // namespace sao
