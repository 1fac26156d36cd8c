#include "sao/optimizer/best_design.hpp"

#include <gtest/gtest.h>

#include "sao/optimizer/driver.hpp"
#include "sao/study/study_loader.hpp"

namespace sao {
namespace {

// min b1 + b2 s.t. r <= 1 on [0, 4]^2; each analysis gives r directly.
Study two_variable_study(bool with_auxiliary = false) {
  nlohmann::json d = {{"design_variables",
                       {{{"name", "b1"}, {"lower", 0.0}, {"upper", 4.0}, {"initial", 1.0}},
                        {{"name", "b2"}, {"lower", 0.0}, {"upper", 4.0}, {"initial", 1.0}}}},
                      {"load_cases", {{{"name", "only"}}}},
                      {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
                      {"objective", {{"minimize", "b1 + b2"}}},
                      {"constraints", {{{"of", {{"response", "r"}}}, {"upper", 1.0}}}},
                      {"simulator", {{"type", "fake"}}}};
  if (with_auxiliary) {
    d["auxiliary_variables"] = {
        {{"name", "beta"}, {"lower", -10.0}, {"upper", 10.0}, {"initial", 0.0}}};
  }
  return load_study(d);
}

Evaluation with_r(double r) {
  Evaluation e;
  e.cases.resize(1);
  e.cases[0].scalars["r"] = r;
  return e;
}

TEST(BestDesign, LowestObjectiveAmongTheFeasibleAnalyses) {
  const Study s = two_variable_study();
  std::map<std::vector<double>, Evaluation> analyses;
  analyses[{1.0, 1.0}] = with_r(0.5);     // F 2, V -50 %
  analyses[{0.5, 1.0}] = with_r(1.0);     // F 1.5, V 0: the best feasible
  analyses[{0.2, 0.2}] = with_r(1.02);    // F 0.4 but V 2 %: infeasible
  analyses[{0.5, 0.5}] = with_r(1.0005);  // F 1, V 0.05 %: within vioacc 0.1 %
  Evaluation failed = with_r(0.0);
  failed.ok = false;
  analyses[{0.1, 0.1}] = failed;  // a failed analysis is never a result
  auto best = best_feasible_analysed(s, analyses, 0.1);
  ASSERT_TRUE(best);
  EXPECT_DOUBLE_EQ(best->x(0), 0.5);
  EXPECT_DOUBLE_EQ(best->x(1), 0.5);
  EXPECT_DOUBLE_EQ(best->objective, 1.0);
  EXPECT_NEAR(best->violation, 0.05, 1e-9);
  // With a tighter accuracy the 0.05 % violation is not feasible any more.
  best = best_feasible_analysed(s, analyses, 0.01);
  ASSERT_TRUE(best);
  EXPECT_DOUBLE_EQ(best->objective, 1.5);
}

// Equal objectives: the lower violation, then the earlier analysis, then key order.
TEST(BestDesign, TiesGoToTheLowerViolationThenTheEarlierAnalysis) {
  const Study s = two_variable_study();
  std::map<std::vector<double>, Evaluation> analyses;
  analyses[{0.5, 1.0}] = with_r(1.0005);  // F 1.5, V 0.05 %
  analyses[{1.0, 0.5}] = with_r(1.0);     // F 1.5, V 0
  analyses[{0.75, 0.75}] = with_r(1.0);   // F 1.5, V 0
  std::map<std::vector<double>, int> cycle = {{{0.5, 1.0}, 1}, {{1.0, 0.5}, 7}, {{0.75, 0.75}, 3}};
  auto best = best_feasible_analysed(s, analyses, 0.1, &cycle);
  ASSERT_TRUE(best);
  EXPECT_DOUBLE_EQ(best->x(0), 0.75);  // V 0 and analysed before (1, 0.5)
  cycle[{1.0, 0.5}] = 2;
  best = best_feasible_analysed(s, analyses, 0.1, &cycle);
  EXPECT_DOUBLE_EQ(best->x(0), 1.0);
  best = best_feasible_analysed(s, analyses, 0.1);  // no cycles: the first in key order
  EXPECT_DOUBLE_EQ(best->x(0), 0.75);
}

TEST(BestDesign, NoneWhenNothingFeasibleOrOutsideTheBoundsOrWithAuxiliaries) {
  const Study s = two_variable_study();
  std::map<std::vector<double>, Evaluation> analyses;
  analyses[{1.0, 1.0}] = with_r(3.0);
  EXPECT_FALSE(best_feasible_analysed(s, analyses, 0.1));
  Study narrowed = s;  // bounds narrowed after the analysis (sao set): it is not a result
  analyses[{3.5, 3.5}] = with_r(0.0);
  EXPECT_TRUE(best_feasible_analysed(s, analyses, 0.1));
  narrowed.design[0].upper = 3.0;
  EXPECT_FALSE(best_feasible_analysed(narrowed, analyses, 0.1));
  EXPECT_FALSE(best_feasible_analysed(two_variable_study(true), analyses, 0.1));
}

// The bound formulation: min z subject to r <= z and q <= 1 (z's initial guess 5).
Study bound_formulation_study() {
  const nlohmann::json d = {
      {"design_variables",
       {{{"name", "b1"}, {"lower", 0.0}, {"upper", 4.0}, {"initial", 1.0}},
        {{"name", "b2"}, {"lower", 0.0}, {"upper", 4.0}, {"initial", 1.0}}}},
      {"auxiliary_variables",
       {{{"name", "z"}, {"lower", -10.0}, {"upper", 10.0}, {"initial", 5.0}}}},
      {"load_cases", {{{"name", "only"}}}},
      {"responses", {{{"name", "r"}, {"kind", "scalar"}}, {{"name", "q"}, {"kind", "scalar"}}}},
      {"objective", {{"minimize_max", {{"response", "r"}}}, {"auxiliary", "z"}}},
      {"constraints", {{{"of", {{"response", "q"}}}, {"upper", 1.0}}}},
      {"simulator", {{"type", "fake"}}}};
  return load_study(d);
}

Evaluation with(double r, double q) {
  Evaluation e = with_r(r);
  e.cases[0].scalars["q"] = q;
  return e;
}

// Each analysed design is ranked with z at the maximum it bounds there, its real objective, and
// reported with it.
TEST(BestDesign, BoundFormulationDesignsRankedWithTheirAuxiliaryAtTheMaximum) {
  const Study s = bound_formulation_study();
  ASSERT_TRUE(rankable_by_analysis(s));
  std::map<std::vector<double>, Evaluation> analyses;
  analyses[{1.0, 1.0}] = with(2.0, 0.5);  // F 2 with z = 2
  analyses[{2.0, 2.0}] = with(1.0, 2.0);  // F 1 but q violates its bound by 100 %
  analyses[{3.0, 1.0}] = with(1.5, 1.0);  // F 1.5, q on its bound: the best feasible
  const auto best = best_feasible_analysed(s, analyses, 0.1);
  ASSERT_TRUE(best);
  ASSERT_EQ(best->x.size(), 3);
  EXPECT_DOUBLE_EQ(best->x(0), 3.0);
  EXPECT_DOUBLE_EQ(best->x(2), 1.5);  // z at the maximum it bounds, not its guess 5
  EXPECT_DOUBLE_EQ(best->objective, 1.5);
  EXPECT_LE(best->violation, 0.0);
}

// A run's start figures: z at the maximum it bounds in the start's analysis, not its guess.
TEST(BestDesign, StartFiguresWithTheAuxiliaryAtTheMaximumItBounds) {
  const Study s = bound_formulation_study();
  Eigen::VectorXd x0(3);
  x0 << 1.0, 1.0, 5.0;
  const Evaluation analysis = with(2.0, 1.5);
  const ExactResponses exact(s, analysis);
  const AnalysedDesign start = at_bounded_maxima(s, x0, exact);
  ASSERT_EQ(start.x.size(), 3);
  EXPECT_DOUBLE_EQ(start.x(2), 2.0);
  EXPECT_DOUBLE_EQ(start.objective, 2.0);
  EXPECT_DOUBLE_EQ(start.violation, 50.0);  // q = 1.5 on its bound 1; r <= z holds exactly
  RunSummary summary;
  summary.set_start(s, x0, exact);
  EXPECT_TRUE(summary.start_analysed);
  EXPECT_DOUBLE_EQ(summary.start_objective, 2.0);
  EXPECT_DOUBLE_EQ(summary.start_violation, 50.0);
}

}  // namespace
}  // namespace sao
