// The charts of the report, the compromise page, `evaluate --plot` and the workbench: the spec
// sao/web/charts.js draws (gaps as null, dash arrays, marker names, bound lines), its place in
// a page (a <script> element it cannot break out of), the self-contained page, the series'
// distinct styles and the choice of a log axis.
#include "sao/report/chart.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <string>

#include "tests/support.hpp"

namespace sao {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(ChartSpec, HoldsThePlotsTitlesAxesAndSeries) {
  Plot plot{"Objective F", "cycle", "F [J]", {{"proposal", {0, 1, 2}, {3, 2, 1.5}, "#123456"}}, {}};
  plot.id = "plot-objective";
  const json spec = chart_spec(plot);
  EXPECT_EQ(spec["id"], "plot-objective");
  EXPECT_EQ(spec["title"], "Objective F");
  EXPECT_EQ(spec["x_label"], "cycle");
  EXPECT_EQ(spec["y_label"], "F [J]");
  EXPECT_EQ(spec["log_y"], false);
  EXPECT_EQ(spec["x_integer"], false);
  EXPECT_EQ(spec["empty"], "");
  EXPECT_EQ(spec["lines"], json::array());
  ASSERT_EQ(spec["series"].size(), 1u);
  const json& s = spec["series"][0];
  EXPECT_EQ(s["name"], "proposal");
  EXPECT_EQ(s["x"], json({0.0, 1.0, 2.0}));
  EXPECT_EQ(s["y"], json({3.0, 2.0, 1.5}));
  EXPECT_EQ(s["color"], "#123456");
  EXPECT_EQ(s["line"], true);
  EXPECT_EQ(s["markers"], true);
  EXPECT_EQ(s["marker"], "circle");
  EXPECT_EQ(s["dash"], json::array());  // solid

  plot.log_y = true;
  plot.x_integer = true;
  plot.empty_message = "No member converged";
  const json changed = chart_spec(plot);
  EXPECT_EQ(changed["log_y"], true);
  EXPECT_EQ(changed["x_integer"], true);
  EXPECT_EQ(changed["empty"], "No member converged");
}

// A point whose x or y is not finite stays in place as null: the renderer leaves a gap there,
// and the points after it keep their index (a cycle's value stays at its cycle).
TEST(ChartSpec, AValueThatIsNotFiniteIsNull) {
  Plot plot{"gaps", "x", "y", {{"s", {1, 2, 3, 4, kNaN}, {1, kNaN, kInf, -kInf, 5}, "#000"}}, {}};
  plot.horizontal_lines = {{kNaN, "unknown bound"}, {2.5, "bound"}};
  const json spec = chart_spec(plot);
  const json& s = spec["series"][0];
  ASSERT_EQ(s["x"].size(), 5u);
  ASSERT_EQ(s["y"].size(), 5u);
  EXPECT_EQ(s["x"], json({1.0, 2.0, 3.0, 4.0, nullptr}));
  EXPECT_EQ(s["y"], json({1.0, nullptr, nullptr, nullptr, 5.0}));
  EXPECT_TRUE(spec["lines"][0]["y"].is_null());
  EXPECT_EQ(spec["lines"][1]["y"], 2.5);
  // The JSON text itself is valid (NaN is no JSON number) and reads back the same.
  EXPECT_EQ(json::parse(spec.dump()), spec);
}

TEST(ChartSpec, DashPatternsAreArraysOfLengths) {
  Plot plot{"dashes", "x", "y", {}, {}};
  PlotSeries solid{"solid", {0, 1}, {0, 1}};
  PlotSeries pattern{"pattern", {0, 1}, {0, 1}};
  pattern.dash = "8 3 2 3";
  PlotSeries dashed{"dashed", {0, 1}, {0, 1}};
  dashed.dashed = true;  // no pattern given: the default one
  plot.series = {solid, pattern, dashed};
  plot.horizontal_lines = {{1.0, "upper bound"}, {0.0, "lower bound", "#555", "2 4"}};
  const json spec = chart_spec(plot);
  EXPECT_EQ(spec["series"][0]["dash"], json::array());
  EXPECT_EQ(spec["series"][1]["dash"], json({8.0, 3.0, 2.0, 3.0}));
  EXPECT_EQ(spec["series"][2]["dash"], json({5.0, 3.0}));
  ASSERT_EQ(spec["lines"].size(), 2u);
  EXPECT_EQ(spec["lines"][0],
            json({{"y", 1.0}, {"label", "upper bound"}, {"color", "#000"}, {"dash", {6.0, 3.0}}}));
  EXPECT_EQ(spec["lines"][1]["dash"], json({2.0, 4.0}));
  EXPECT_EQ(spec["lines"][1]["color"], "#555");
  EXPECT_EQ(spec["lines"][1]["label"], "lower bound");
}

TEST(ChartSpec, MarkersAreNamedAsChartJsNamesThem) {
  const std::vector<std::pair<char, std::string>> names = {
      {'o', "circle"},  {'s', "rect"},     {'^', "triangle"}, {'v', "triangle-down"},
      {'d', "rectRot"}, {'x', "crossRot"}, {'+', "cross"},    {'r', "ring"}};
  Plot plot{"markers", "x", "y", {}, {}};
  for (const auto& [marker, name] : names) {
    PlotSeries s{name, {0}, {0}};
    s.marker = marker;
    plot.series.push_back(s);
  }
  const json spec = chart_spec(plot);
  ASSERT_EQ(spec["series"].size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(spec["series"][i]["marker"], names[i].second) << names[i].first;
  }
}

// A marker-only series (retained points, a branch point) has no line; a line-only series no
// markers; a series without a colour gets the palette's colour of its place.
TEST(ChartSpec, LinesMarkersAndColours) {
  PlotSeries marks{"retained points", {1, 2}, {3, 4}, "#d62728"};
  marks.line = false;
  PlotSeries line{"history", {1, 2}, {3, 4}, "#1f77b4"};
  line.markers = false;
  PlotSeries plain{"plain", {1, 2}, {3, 4}};  // no colour
  const json spec = chart_spec(Plot{"p", "x", "y", {marks, line, plain}, {}});
  EXPECT_EQ(spec["series"][0]["line"], false);
  EXPECT_EQ(spec["series"][0]["markers"], true);
  EXPECT_EQ(spec["series"][1]["line"], true);
  EXPECT_EQ(spec["series"][1]["markers"], false);
  EXPECT_EQ(spec["series"][2]["color"], plot_colour(2));
  EXPECT_NE(plot_colour(0), plot_colour(1));
}

TEST(ChartStyle, SeriesGetDistinctColoursDashesAndMarkers) {
  std::vector<PlotSeries> series(5);
  for (size_t i = 0; i < series.size(); ++i) apply_style(series[i], i);
  EXPECT_TRUE(series[0].dash.empty());  // the first solid
  EXPECT_FALSE(series[0].dashed);
  for (size_t i = 0; i < series.size(); ++i) {
    if (i > 0) {
      EXPECT_TRUE(series[i].dashed) << i;
      EXPECT_FALSE(series[i].dash.empty()) << i;
    }
    for (size_t j = 0; j < i; ++j) {
      EXPECT_NE(series[i].color, series[j].color) << i << " " << j;
      EXPECT_NE(series[i].dash, series[j].dash) << i << " " << j;
      EXPECT_NE(series[i].marker, series[j].marker) << i << " " << j;
    }
  }
  EXPECT_EQ(series[0].marker, 'o');
  EXPECT_EQ(series[1].marker, 's');
  // The spec carries the style: series 1's dash pattern as lengths, its marker by name.
  series[1].x = {0, 1};
  series[1].y = {0, 1};
  const json spec = chart_spec(Plot{"p", "x", "y", {series[1]}, {}});
  EXPECT_EQ(spec["series"][0]["dash"], json({6.0, 3.0}));
  EXPECT_EQ(spec["series"][0]["marker"], "rect");
  EXPECT_EQ(spec["series"][0]["color"], series[1].color);
}

TEST(ChartStyle, ValuesSpanningDecadesAskForALogAxis) {
  Plot plot{"objective", "cycle", "F", {{"F", {0, 1, 2, 3}, {1100, 40, 3.9, 3.75}, "#000"}}, {}};
  EXPECT_TRUE(spans_decades(plot));
  EXPECT_FALSE(spans_decades(plot, 3.0));  // 1100 / 3.75: fewer than three decades
  plot.series[0].y[0] = 30;
  EXPECT_FALSE(spans_decades(plot));  // 30 to 3.75: less than two decades
  plot.series[0].y[0] = 1100;
  plot.series[0].y[3] = -1;
  EXPECT_FALSE(spans_decades(plot));  // a value <= 0 cannot go on a log axis
  plot.series[0].y[3] = kNaN;
  EXPECT_TRUE(spans_decades(plot));  // a gap is no value: 1100 to 3.9
  plot.horizontal_lines = {{0.0, "V = 0"}};
  EXPECT_FALSE(spans_decades(plot));  // a bound at 0 cannot be drawn on a log axis either
  EXPECT_FALSE(spans_decades(Plot{"empty", "x", "y", {}, {}}));
}

std::string figure_for(const std::string& title) {
  Plot plot{title, "t [s]", "y", {{"s", {0, 1}, {2, kNaN}, "#000"}}, {}};
  plot.id = "constraint-displacement";
  return chart_html(plot);
}

// The figure holds the spec in a <script type="application/json"> element that the page's
// renderer reads back as it was written.
TEST(ChartHtml, TheSpecRoundTripsThroughItsScriptElement) {
  Plot plot{"Displacement |y| [m] @impact", "t [s]", "y", {{"s", {0, 1}, {2, kNaN}, "#000"}}, {}};
  plot.id = "constraint-displacement";
  plot.horizontal_lines = {{1.0, "upper bound 1"}};
  const std::string html = chart_html(plot);
  EXPECT_THAT(html, HasSubstr("<figure class=\"chart\" id=\"constraint-displacement\">"));
  const std::vector<json> specs = testing::chart_specs(html);
  ASSERT_EQ(specs.size(), 1u) << html;
  EXPECT_EQ(specs[0], chart_spec(plot));
  plot.id.clear();
  EXPECT_THAT(chart_html(plot), Not(HasSubstr(" id=")));
}

// A title (a study's label, name or description) that holds "</script>" cannot close the
// element early: the browser would end the spec there and read the rest as HTML.
TEST(ChartHtml, AClosingScriptTagInATitleCannotEndTheElement) {
  const std::string title = "a </script><script>alert(1)</script> and </SCRIPT > b";
  const std::string html = figure_for(title);
  // The spec element ends at the first "</script" a browser sees (case-insensitively): the
  // one chart_html closes it with, right before </figure>.
  std::string lower = html;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const size_t open = lower.find("<script");
  ASSERT_NE(open, std::string::npos);
  const size_t close = lower.find("</script", open);
  ASSERT_NE(close, std::string::npos);
  EXPECT_EQ(html.substr(close), "</script></figure>\n");
  const std::vector<json> specs = testing::chart_specs(html);
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0]["title"], title);  // and the title reads back whole
}

// Nor can a "<!--" followed by "<script>": an HTML parser would then take the element's real
// end for the end of that inner script and read the rest of the page as script text (every
// chart after it, and the script that draws them, lost). The spec holds no "<" at all.
TEST(ChartHtml, ACommentOpeningInATitleCannotHoldTheElementOpen) {
  const std::string title = "a <!--<script> b -->";
  const std::string html = figure_for(title);
  const std::string open = "<script type=\"application/json\" class=\"chart-spec\">";
  ASSERT_EQ(html.rfind("<figure", 0), 0u);
  const size_t from = html.find(open);
  ASSERT_NE(from, std::string::npos);
  const size_t to = html.find("</script></figure>\n", from);
  ASSERT_NE(to, std::string::npos);
  const std::string text = html.substr(from + open.size(), to - from - open.size());
  EXPECT_EQ(text.find("<!--"), std::string::npos) << text;
  EXPECT_EQ(text.find('<'), std::string::npos) << text;
  const std::vector<json> specs = testing::chart_specs(html);
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0]["title"], title);
}

TEST(ChartPage, IsSelfContainedAndDrawsEveryChart) {
  const std::string body = figure_for("first") + figure_for("second");
  const std::string page = chart_page("histories <&>", body);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_THAT(page, HasSubstr("<title>histories &lt;&amp;&gt;</title>"));
  EXPECT_THAT(page, HasSubstr(body));
  EXPECT_EQ(testing::chart_specs(page).size(), 2u);
  // Chart.js and the renderer inline, whole; the renderer draws every figure on load.
  for (const char* path : {"/chart.min.js", "/charts.js", "/style.css"}) {
    const WebFile* file = web_file(path);
    ASSERT_NE(file, nullptr) << path;
    const std::string text(reinterpret_cast<const char*>(file->data), file->size);
    EXPECT_GT(text.size(), 100u) << path;
    EXPECT_THAT(page, HasSubstr(text)) << path;
  }
  EXPECT_THAT(page, HasSubstr("const sao_charts"));
  EXPECT_THAT(page, HasSubstr("sao_charts.draw_all(document)"));
  EXPECT_GT(page.find("sao_charts.draw_all(document)"), page.rfind("</figure>"));
  testing::expect_self_contained(page);
}

TEST(ChartPage, WebFilesAreTheWorkbenchsAndChartJs) {
  for (const char* path : {"/index.html", "/app.js", "/charts.js", "/style.css", "/chart.min.js"}) {
    const WebFile* file = web_file(path);
    ASSERT_NE(file, nullptr) << path;
    EXPECT_EQ(std::string(file->path), path);
    EXPECT_GT(file->size, 0u) << path;
  }
  EXPECT_EQ(web_file("/plots.js"), nullptr);  // the SVG plots' script is gone
  EXPECT_EQ(web_file("chart.min.js"), nullptr);
  EXPECT_EQ(web_file("/nothing"), nullptr);
}

}  // namespace
}  // namespace sao
