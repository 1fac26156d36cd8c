#include "sao/store/sweep.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "sao/report/svg_plot.hpp"
#include "sao/store/shared_cache.hpp"

namespace sao {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(SweepRange, RangesAndLists) {
  const SweepRange r = parse_sweep_range("constraints.0.upper=15.5:25:0.5");
  EXPECT_EQ(r.key, "constraints.0.upper");
  ASSERT_EQ(r.values.size(), 20u);  // 15.5, 16, ..., 25 (rounding does not drop the last)
  EXPECT_DOUBLE_EQ(r.values.front(), 15.5);
  EXPECT_DOUBLE_EQ(r.values.back(), 25.0);
  EXPECT_THAT(parse_sweep_range("a.b=1,2.5,-3").values, ElementsAre(1.0, 2.5, -3.0));
  EXPECT_THAT(parse_sweep_range("a=0.1:0.3:0.1").values.size(), 3u);
}

TEST(SweepRange, ErrorsNameTheProblem) {
  auto message = [](const std::string& text) {
    try {
      parse_sweep_range(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message("constraints.0.upper"), HasSubstr("expected KEY=FIRST:LAST:STEP"));
  EXPECT_THAT(message("k=1:2"), HasSubstr("sweep k: expected FIRST:LAST:STEP"));
  EXPECT_THAT(message("k=1:2:0"), HasSubstr("STEP must be positive"));
  EXPECT_THAT(message("k=3:2:1"), HasSubstr("LAST is below FIRST"));
  EXPECT_THAT(message("k=1,x"), HasSubstr("\"x\" is not a number"));
  EXPECT_THAT(message("k=0:1e9:1"), HasSubstr("more than 10000 values"));
}

Evaluation history_evaluation(bool gradients_rows_0_and_2) {
  Evaluation e;
  e.cases.resize(1);
  e.cases[0].histories["h"] = Eigen::Vector3d(1, 2, 3);
  if (gradients_rows_0_and_2) {
    e.has_gradients = true;
    Eigen::MatrixXd g = Eigen::MatrixXd::Constant(3, 2, NAN);
    g.row(0).setOnes();
    g.row(2).setConstant(2.0);
    e.cases[0].gradients["h"] = g;
  }
  return e;
}

// Values are found from a values-only or a gradient analysis; gradient lookups only find
// analyses with sensitivities; failures are not kept; other designs (bitwise) miss.
TEST(SharedAnalysisCache, KeepsValuesAndGradientsByDesign) {
  SharedAnalysisCache cache;
  const Eigen::Vector2d x(1.0, 2.0);
  EXPECT_TRUE(cache.lookup(x, false).empty());
  cache.save(x, {}, history_evaluation(false));
  ASSERT_EQ(cache.lookup(x, false).size(), 1u);
  EXPECT_TRUE(cache.lookup(x, true).empty());
  cache.save(x, {{0, "h", {0, 2}}}, history_evaluation(true));
  ASSERT_EQ(cache.lookup(x, true).size(), 1u);
  EXPECT_EQ(cache.lookup(x, true)[0].cases[0].gradients.at("h")(2, 1), 2.0);
  EXPECT_TRUE(cache.lookup(Eigen::Vector2d(1.0, std::nextafter(2.0, 3.0)), false).empty());

  Evaluation failed = history_evaluation(false);
  failed.ok = false;
  const Eigen::Vector2d y(3.0, 3.0);
  cache.save(y, {}, failed);
  EXPECT_TRUE(cache.lookup(y, false).empty());
}

// Sensitivity rows computed by different members are merged, not replaced.
TEST(SharedAnalysisCache, MergesGradientRows) {
  SharedAnalysisCache cache;
  const Eigen::Vector2d x(1.0, 2.0);
  cache.save(x, {{0, "h", {0, 2}}}, history_evaluation(true));
  Evaluation row1 = history_evaluation(false);
  row1.has_gradients = true;
  Eigen::MatrixXd g = Eigen::MatrixXd::Constant(3, 2, NAN);
  g.row(1).setConstant(5.0);
  row1.cases[0].gradients["h"] = g;
  cache.save(x, {{0, "h", {1}}}, row1);
  const Eigen::MatrixXd merged = cache.lookup(x, true).at(0).cases[0].gradients.at("h");
  EXPECT_TRUE(merged.allFinite()) << merged;
  EXPECT_EQ(merged(0, 0), 1.0);
  EXPECT_EQ(merged(1, 0), 5.0);
  EXPECT_EQ(merged(2, 0), 2.0);
}

TEST(SvgPlot, IsAStandaloneSvgWithEscapedLabels) {
  Plot plot;
  plot.title = "t <1>";
  plot.series = {{"best", {1, 2, 3}, {3, 2, 1}, plot_colour(0)},
                 {"a&b", {2}, {2.5}, plot_colour(1), false, true, false}};
  plot.horizontal_lines = {ReferenceLine{1.5, "bound"}};
  const std::string svg = svg_file(plot);
  EXPECT_THAT(svg, HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\""));
  EXPECT_EQ(svg_plot(plot).find("http"), std::string::npos);  // inline: nothing to fetch
  EXPECT_THAT(svg, HasSubstr("t &lt;1&gt;"));
  EXPECT_THAT(svg, HasSubstr(">a&amp;b<"));
  EXPECT_THAT(svg, HasSubstr("class=\"bound\""));
  size_t lines = 0;
  for (size_t p = svg.find("<polyline"); p != std::string::npos; p = svg.find("<polyline", p + 1))
    ++lines;
  EXPECT_EQ(lines, 1u);  // the marker-only series draws no line
}

}  // namespace
}  // namespace sao
