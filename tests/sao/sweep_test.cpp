#include "sao/sweep.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/sao/fake_simulator.hpp"

namespace sao {
namespace {

using ::testing::ElementsAre;
using testing::FakeResponse;
using testing::FakeSimulator;
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

FakeResponse quadratic() {
  return {"r", [](const Eigen::VectorXd& b) { return b.squaredNorm(); },
          [](const Eigen::VectorXd& b) -> Eigen::VectorXd { return 2 * b; }};
}

// Two simulators sharing one cache: a design analysed through one is not run by the other;
// values come from a gradient analysis too, but not the other way round; failures are not kept.
TEST(SharedAnalysisCache, SharesAnalysesBetweenSimulators) {
  auto cache = std::make_shared<SharedAnalysisCache>();
  auto fake_a = std::make_unique<FakeSimulator>(std::vector<FakeResponse>{quadratic()});
  auto fake_b = std::make_unique<FakeSimulator>(std::vector<FakeResponse>{quadratic()});
  FakeSimulator* a = fake_a.get();
  FakeSimulator* b = fake_b.get();
  CachedSimulator sa(std::move(fake_a), cache), sb(std::move(fake_b), cache);
  const Eigen::Vector2d x(1.0, 2.0), y(3.0, 1.0);

  const Evaluation first = sa.evaluate({{x, {}}}).front();
  EXPECT_EQ(first.cost.runs, 1);
  const Evaluation again = sb.evaluate({{x, {}}}).front();
  EXPECT_EQ(b->calls, 0);
  EXPECT_EQ(again.cost.runs, 0);  // a hit costs nothing
  EXPECT_EQ(again.cases[0].scalars.at("r"), 5.0);

  // Gradients are not in a values-only analysis: run once, then shared.
  const std::vector<DerivativeRequest> d = {{0, "r", {}}};
  sb.evaluate({{x, d}});
  EXPECT_EQ(b->gradient_calls, 1);
  const Evaluation g = sa.evaluate({{x, d}}).front();
  EXPECT_EQ(a->gradient_calls, 0);
  EXPECT_EQ(g.cases[0].gradients.at("r")(0, 1), 4.0);
  // A batch with a hit and a miss runs only the miss.
  const auto both = sa.evaluate({{x, {}}, {y, {}}});
  EXPECT_EQ(a->calls, 2);
  EXPECT_EQ(both[1].cases[0].scalars.at("r"), 10.0);
  EXPECT_EQ(cache->hits(), 3);

  a->fail_when = [](const Eigen::VectorXd& v) { return v(0) > 5; };
  const Eigen::Vector2d bad(6.0, 0.0);
  EXPECT_FALSE(sa.evaluate({{bad, {}}}).front().ok);
  EXPECT_TRUE(sb.evaluate({{bad, {}}}).front().ok);  // not a cached failure
}

// A gradient analysis covers a request only if every requested row is there.
TEST(SharedAnalysisCache, GradientRowsMustBeCovered) {
  SharedAnalysisCache cache;
  EvaluationRequest r{Eigen::Vector2d(1, 1), {{0, "h", {0, 2}}}};
  Evaluation e;
  e.has_gradients = true;
  e.cases.resize(1);
  e.cases[0].histories["h"] = Eigen::Vector3d(1, 2, 3);
  Eigen::MatrixXd g = Eigen::MatrixXd::Constant(3, 2, NAN);
  g.row(0).setOnes();
  g.row(2).setOnes();
  e.cases[0].gradients["h"] = g;
  cache.store(r, e);
  EXPECT_NE(cache.find(r), nullptr);
  EXPECT_NE(cache.find({r.design, {{0, "h", {2}}}}), nullptr);
  EXPECT_EQ(cache.find({r.design, {{0, "h", {1}}}}), nullptr);  // row 1 was not computed
  EXPECT_EQ(cache.find({r.design, {{0, "other", {}}}}), nullptr);
  EXPECT_NE(cache.find({r.design, {}}), nullptr);  // the values are there
}

TEST(SvgPlot, IsAStandaloneSvgWithEscapedLabels) {
  Plot plot;
  plot.title = "t <1>";
  plot.series = {{"best", {1, 2, 3}, {3, 2, 1}, plot_colour(0)},
                 {"a&b", {2}, {2.5}, plot_colour(1), false, true, false}};
  plot.horizontal_lines = {1.5};
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
