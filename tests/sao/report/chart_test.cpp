// The SVG plots of the report, the compromise curve and `evaluate --plot`: gaps where data is
// missing, distinct line styles with legend swatches drawn as the lines are, bound lines in the
// legend, log axes with decade ticks.
#include "sao/report/svg_plot.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <regex>
#include <string>

namespace sao {
namespace {

using ::testing::HasSubstr;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The legend entries (<g class="legend-entry">...</g>) of an SVG.
std::vector<std::string> legend_entries(const std::string& svg) {
  std::vector<std::string> out;
  const std::regex entry("<g class=\"legend-entry\">(.*?)</g>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), entry); it != std::sregex_iterator();
       ++it)
    out.push_back((*it)[1]);
  return out;
}

TEST(SvgPlot, AMissingPointBreaksTheLine) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Plot plot{"gaps", "x", "y", {{"s", {1, 2, 3, 4, 5}, {1, 2, nan, 4, 5}, "#000"}}, {}};
  EXPECT_EQ(count(svg_plot(plot), "<polyline"), 2u);  // 1-2 and 4-5, nothing drawn across 3
  plot.series[0].y[2] = 3;
  EXPECT_EQ(count(svg_plot(plot), "<polyline"), 1u);
  plot.series[0].x[0] = nan;  // a missing x is a gap too, at the start: no empty run
  EXPECT_EQ(count(svg_plot(plot), "<polyline"), 1u);
}

TEST(SvgPlot, SeriesGetDistinctStylesAndTheLegendDrawsThemAsTheyAre) {
  Plot plot{"styles", "x", "y", {}, {}};
  for (size_t i = 0; i < 3; ++i) {
    PlotSeries s{"series " + std::to_string(i), {0, 1}, {0.0 + i, 1.0 + i}};
    apply_style(s, i);
    plot.series.push_back(s);
  }
  EXPECT_NE(plot.series[0].dash, plot.series[1].dash);
  EXPECT_NE(plot.series[1].marker, plot.series[2].marker);
  const std::string svg = svg_plot(plot);
  const auto entries = legend_entries(svg);
  ASSERT_EQ(entries.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const PlotSeries& s = plot.series[i];
    // The swatch is a line with the series' dash pattern (none when solid) and its marker.
    EXPECT_THAT(entries[i], HasSubstr("<line"));
    if (s.dash.empty()) {
      EXPECT_THAT(entries[i], ::testing::Not(HasSubstr("stroke-dasharray")));
    } else {
      EXPECT_THAT(entries[i], HasSubstr("stroke-dasharray=\"" + s.dash + "\""));
      EXPECT_THAT(svg, HasSubstr("stroke-dasharray=\"" + s.dash + "\" points="));
    }
    EXPECT_THAT(entries[i], HasSubstr(s.color));
    EXPECT_THAT(entries[i], HasSubstr(">" + s.name + "<"));
  }
  EXPECT_THAT(entries[0], HasSubstr("<circle"));  // 'o'
  EXPECT_THAT(entries[1], HasSubstr("<rect"));    // 's'
  // A marker-only series shows no line in its legend entry.
  plot.series[0].line = false;
  EXPECT_THAT(legend_entries(svg_plot(plot))[0], ::testing::Not(HasSubstr("<line")));
}

TEST(SvgPlot, ABoundLineWithALabelHasALegendEntry) {
  Plot plot{"bounds", "t", "g", {{"g", {0, 1}, {0.5, 2}, "#000"}}, {}};
  plot.horizontal_lines = {{1.0, "upper bound 1"}, {-1.0, ""}};
  const std::string svg = svg_plot(plot);
  EXPECT_EQ(count(svg, "class=\"bound\""), 2u);
  const auto entries = legend_entries(svg);
  ASSERT_EQ(entries.size(), 2u);  // the series and the labelled bound, not the unlabelled one
  EXPECT_THAT(entries[1], HasSubstr("upper bound 1"));
  EXPECT_THAT(entries[1], HasSubstr("stroke-dasharray=\"6 3\""));
}

TEST(SvgPlot, ValuesSpanningDecadesAreDrawnOnALogAxisWithDecadeTicks) {
  Plot plot{"objective", "cycle", "F", {{"F", {0, 1, 2, 3}, {1100, 40, 3.9, 3.75}, "#000"}}, {}};
  EXPECT_TRUE(spans_decades(plot));
  plot.series[0].y[0] = 30;
  EXPECT_FALSE(spans_decades(plot));  // 30 to 3.75: less than two decades
  plot.series[0].y[0] = 1100;
  plot.series[0].y[3] = -1;
  EXPECT_FALSE(spans_decades(plot));  // a value <= 0 cannot go on a log axis
  plot.series[0].y[3] = 3.75;
  plot.log_y = true;
  const std::string svg = svg_plot(plot);
  for (const char* tick : {">10<", ">100<", ">1000<"}) EXPECT_THAT(svg, HasSubstr(tick));
  EXPECT_THAT(svg, ::testing::Not(HasSubstr(">1e")));
}

TEST(SvgPlot, AnIdMakesThePlotALinkTarget) {
  Plot plot{"p", "x", "y", {{"s", {0, 1}, {0, 1}, "#000"}}, {}};
  plot.id = "plot-objective";
  EXPECT_THAT(svg_plot(plot), HasSubstr("<svg class=\"plot\" id=\"plot-objective\""));
}

}  // namespace
}  // namespace sao
