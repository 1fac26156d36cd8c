#include "sao/report/evaluate.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sao/study/study_loader.hpp"
#include "tests/support.hpp"

namespace sao {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Study history_study() {
  nlohmann::json d = {
      {"design_variables",
       {{{"name", "b1"}, {"lower", 0.1}, {"upper", 10}, {"initial", 2.0}},
        {{"name", "b2"}, {"lower", 0.1}, {"upper", 10}, {"initial", 0.5}}}},
      {"auxiliary_variables", {{{"name", "b3"}, {"lower", 0.0}, {"initial", 1.0}}}},
      {"load_cases", {{{"name", "road"}, {"time", {{"start", 0}, {"end", 2}, {"points", 3}}}}}},
      {"responses", {{{"name", "h"}, {"kind", "history"}}}},
      {"objective", {{"minimize_max", {{"response", "h"}}}, {"auxiliary", "b3"}}},
      {"constraints", {{{"name", "cap"}, {"of", {{"response", "h"}}}, {"upper", 4.0}}}},
      {"simulator", {{"type", "fake"}}}};
  return load_study(d);
}

Evaluation history(double a, double b, double c) {
  Evaluation e;
  e.cases.resize(1);
  e.cases[0].histories["h"] = Eigen::Vector3d(a, b, c);
  return e;
}

// The bound formulation's objective is the largest value bounded (not the start guess of the
// auxiliary), and each constraint reports its worst point and time.
TEST(Evaluate, SummaryHasTheWorstPointOfEveryConstraint) {
  const Study s = history_study();
  const DesignSummary d = summarise_design(s, history(1.0, 5.0, 2.0), initial_variables(s));
  EXPECT_DOUBLE_EQ(d.objective, 5.0);
  const auto cap = std::find_if(d.constraints.begin(), d.constraints.end(),
                                [](const ConstraintSummary& c) { return c.name == "cap"; });
  ASSERT_NE(cap, d.constraints.end());
  EXPECT_DOUBLE_EQ(cap->worst, 5.0);
  EXPECT_EQ(cap->point, 1);
  EXPECT_DOUBLE_EQ(cap->time, 1.0);
  EXPECT_NEAR(cap->normalised, 0.25, 1e-12);  // (5 - 4) / 4
  EXPECT_NEAR(d.max_violation, 25.0, 1e-9);
  EXPECT_THAT(design_report(s, history(1.0, 5.0, 2.0), initial_variables(s)),
              HasSubstr("objective  F = 5"));
}

TEST(Evaluate, DesignFromAResultFile) {
  const Study s = history_study();
  const auto dir = std::filesystem::temp_directory_path() / "sao-evaluate-test";
  std::filesystem::create_directories(dir);
  const std::string good = (dir / "result.json").string();
  std::ofstream(good) << R"({"design": {"b1": 3.5, "b3": 0.25}, "status": "converged"})";
  const Eigen::VectorXd x = variables_from_result(s, good);
  EXPECT_EQ(x(0), 3.5);
  EXPECT_EQ(x(1), 0.5);  // not in the file: the initial value
  EXPECT_EQ(x(2), 0.25);

  auto error = [&](const std::string& text) {
    const std::string f = (dir / "bad.json").string();
    std::ofstream(f) << text;
    try {
      variables_from_result(s, f);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error(R"({"design": {"b9": 1}})"), HasSubstr("design.b9: not a variable"));
  EXPECT_THAT(error(R"({"design": {"b1": "x"}})"), HasSubstr("design.b1: expected a number"));
  EXPECT_THAT(error(R"({"cycles": 3})"), HasSubstr("no \"design\" object"));
  // The file and the place in it, never the JSON library's exception text.
  EXPECT_THAT(error("{"),
              HasSubstr("bad.json: line 1, column 2 (reading (top level)): not valid JSON"));
  EXPECT_THAT(error(R"({"design": {"b1": 1e5000}})"),
              HasSubstr("bad.json: design.b1 (line 1, column 19): the number 1e5000 is beyond"));
  EXPECT_THAT(error(R"({"design": [1]})"),
              HasSubstr("bad.json: design: expected an object, got an array"));
  EXPECT_THAT(error("{"), Not(HasSubstr("[json.exception")));
  EXPECT_THAT(error("{}"), HasSubstr("bad.json: no \"design\" object"));  // names the file
}

// evaluate --plot: one chart per load case and history, one line per design over the load
// case's times, each design styled apart; the page holds every chart's spec.
TEST(Evaluate, HistoryChartsHaveOneLinePerDesign) {
  const Study s = history_study();
  const std::vector<Plot> charts =
      history_charts(s, {"start", "optimum"}, {history(1, 2, 3), history(3, 2, 1)});
  ASSERT_EQ(charts.size(), 1u);
  const Plot& h = charts[0];
  EXPECT_EQ(h.id, "road-h");
  EXPECT_EQ(h.title, "h @road");
  EXPECT_EQ(h.x_label, "t");  // the study gives the time grid no unit or label
  EXPECT_EQ(h.y_label, "h");
  ASSERT_EQ(h.series.size(), 2u);
  EXPECT_EQ(h.series[0].name, "start");
  EXPECT_EQ(h.series[1].name, "optimum");
  EXPECT_EQ(h.series[0].x, std::vector<double>({0, 1, 2}));
  EXPECT_EQ(h.series[0].y, std::vector<double>({1, 2, 3}));
  EXPECT_EQ(h.series[1].y, std::vector<double>({3, 2, 1}));
  EXPECT_NE(h.series[0].dash, h.series[1].dash);
  EXPECT_NE(h.series[0].color, h.series[1].color);
  // The bound cap puts on h; the bound formulation's h <= b3 is no number and not drawn.
  ASSERT_EQ(h.horizontal_lines.size(), 1u);
  EXPECT_EQ(h.horizontal_lines[0].y, 4.0);
  EXPECT_EQ(h.horizontal_lines[0].label, "upper bound 4 (cap)");
  // A design without the history (its analysis failed there) has no line.
  Evaluation none;
  none.cases.resize(1);
  EXPECT_EQ(history_charts(s, {"start", "failed"}, {history(1, 2, 3), none})[0].series.size(), 1u);

  const auto dir = testing::scratch_directory("test-evaluate") / "plots";
  const std::string file = write_history_page(dir.string(), "study <1>: histories", charts);
  EXPECT_EQ(file, (dir / "histories.html").string());
  ASSERT_TRUE(std::filesystem::exists(file));
  const std::string page = testing::read_file(file);
  EXPECT_THAT(page, HasSubstr("<h1>study &lt;1&gt;: histories</h1>"));
  EXPECT_THAT(page, HasSubstr("sao_charts.draw_all(document)"));
  const std::vector<nlohmann::json> specs = testing::chart_specs(page);
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0], chart_spec(h));
  EXPECT_EQ(specs[0]["series"][1]["y"], nlohmann::json({3.0, 2.0, 1.0}));
}

// evaluate --plot: the bounds the study's constraints put on a response are drawn and in the
// legend (both signs of an |h| constraint), the y axis reads "label [unit]", the time axis the
// load case's time "label [unit]".
TEST(Evaluate, HistoryChartsDrawTheBoundsOfTheConstraintsOnTheResponse) {
  nlohmann::json d = {
      {"design_variables", {{{"name", "b1"}, {"lower", 0.1}, {"upper", 10}, {"initial", 2.0}}}},
      {"load_cases",
       {{{"name", "road"},
         {"time", {{"start", 0}, {"end", 2}, {"points", 3}, {"unit", "s"}, {"label", "time"}}}}}},
      {"responses",
       {{{"name", "h"}, {"kind", "history"}, {"label", "Height"}, {"unit", "mm"}},
        {{"name", "k"}, {"kind", "history"}}}},
      {"objective", {{"minimize", "b1"}}},
      {"constraints",
       {{{"name", "cap"}, {"of", {{"response", "h"}, {"abs", true}}}, {"upper", 4.0}},
        {{"name", "floor"}, {"of", {{"response", "k"}}}, {"lower", 0.5}}}},
      {"simulator", {{"type", "fake"}}}};
  const Study s = load_study(d);
  Evaluation e = history(1, 2, 3);
  e.cases[0].histories["k"] = Eigen::Vector3d(1, 1, 1);
  e.cases[0].histories["undeclared"] = Eigen::Vector3d(0, 0, 0);  // plotted only with --all
  auto by_id = [](const std::vector<Plot>& charts, const std::string& id) -> const Plot* {
    for (const Plot& p : charts) {
      if (p.id == id) return &p;
    }
    return nullptr;
  };
  auto labels = [](const Plot& p) {
    std::vector<std::string> out;
    for (const ReferenceLine& l : p.horizontal_lines) out.push_back(l.label);
    return out;
  };
  const std::vector<Plot> charts = history_charts(s, {"start"}, {e});
  ASSERT_EQ(charts.size(), 2u);
  EXPECT_EQ(by_id(charts, "road-undeclared"), nullptr);
  const std::vector<Plot> every = history_charts(s, {"start"}, {e}, HistoryChoice::kAll);
  ASSERT_EQ(every.size(), 3u);
  ASSERT_NE(by_id(every, "road-undeclared"), nullptr);
  EXPECT_EQ(by_id(every, "road-undeclared")->horizontal_lines.size(), 0u);
  // Only what the study does not declare (the workbench draws it beneath a constraint).
  const std::vector<Plot> outputs = history_charts(s, {"start"}, {e}, HistoryChoice::kUndeclared);
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].id, "output-road-undeclared");
  EXPECT_THAT(outputs[0].title, HasSubstr("delivered by the simulator"));

  const Plot* h = by_id(charts, "road-h");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->y_label, "Height [mm]");
  EXPECT_EQ(h->title, "Height [mm] @road");
  EXPECT_EQ(h->x_label, "time [s]");
  EXPECT_THAT(labels(*h),
              ::testing::ElementsAre("upper bound 4 (cap[+])", "lower bound -4 (cap[-])"));
  EXPECT_EQ(h->horizontal_lines[0].y, 4.0);
  EXPECT_EQ(h->horizontal_lines[1].y, -4.0);
  EXPECT_NE(h->horizontal_lines[0].dash, h->horizontal_lines[1].dash);  // upper and lower apart
  const Plot* k = by_id(charts, "road-k");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->y_label, "k");
  EXPECT_THAT(labels(*k), ::testing::ElementsAre("lower bound 0.5 (floor)"));

  // The page: one spec per chart, the bounds in each.
  const auto dir = testing::scratch_directory("test-evaluate") / "plots";
  const std::string page = testing::read_file(write_history_page(dir.string(), "histories", every));
  const std::vector<nlohmann::json> specs = testing::chart_specs(page);
  ASSERT_EQ(specs.size(), every.size());
  for (size_t i = 0; i < every.size(); ++i) EXPECT_EQ(specs[i], chart_spec(every[i])) << i;
}

// A response the simulator delivers under another name ("source") is charted under its own
// name, with its label, unit and bounds, as the study declares it.
TEST(Evaluate, HistoryChartsOfAResponseWithASource) {
  nlohmann::json d = {
      {"design_variables", {{{"name", "b1"}, {"lower", 0.1}, {"upper", 10}, {"initial", 2.0}}}},
      {"load_cases", {{{"name", "road"}, {"time", {{"start", 0}, {"end", 2}, {"points", 3}}}}}},
      {"responses",
       {{{"name", "h"},
         {"source", "height"},
         {"kind", "history"},
         {"label", "Height"},
         {"unit", "mm"}}}},
      {"objective", {{"minimize", "b1"}}},
      {"constraints", {{{"name", "cap"}, {"of", {{"response", "h"}}}, {"upper", 4.0}}}},
      {"simulator", {{"type", "fake"}}}};
  const Study s = load_study(d);
  Evaluation e;
  e.cases.resize(1);
  e.cases[0].histories["height"] = Eigen::Vector3d(1, 2, 3);
  for (const bool all : {false, true}) {
    SCOPED_TRACE(all ? "all" : "the study's");
    const std::vector<Plot> charts =
        history_charts(s, {"start"}, {e}, all ? HistoryChoice::kAll : HistoryChoice::kDeclared);
    ASSERT_EQ(charts.size(), 1u);
    EXPECT_EQ(charts[0].id, all ? "road-height" : "road-h");
    EXPECT_EQ(charts[0].y_label, "Height [mm]");
    ASSERT_EQ(charts[0].horizontal_lines.size(), 1u);
    EXPECT_EQ(charts[0].horizontal_lines[0].label, "upper bound 4 (cap)");
  }
}

}  // namespace
}  // namespace sao
