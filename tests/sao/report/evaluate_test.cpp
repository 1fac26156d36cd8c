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

TEST(Evaluate, HistoryPlotsHaveOneLinePerDesign) {
  const Study s = history_study();
  const auto dir = (std::filesystem::temp_directory_path() / "sao-evaluate-plots").string();
  const auto files =
      write_history_plots(dir, s, {"start", "optimum"}, {history(1, 2, 3), history(3, 2, 1)});
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(std::filesystem::path(files[0]).filename(), "road-h.svg");
  const std::string svg = testing::read_file(files[0]);
  EXPECT_THAT(svg, HasSubstr(">start</text>"));
  EXPECT_THAT(svg, HasSubstr(">optimum</text>"));
  size_t lines = 0;
  for (size_t p = svg.find("<polyline"); p != std::string::npos; p = svg.find("<polyline", p + 1))
    ++lines;
  EXPECT_EQ(lines, 2u);
}

// evaluate --plot: the bounds the study's constraints put on a response are drawn and in the
// legend (both signs of an |h| constraint), and the y axis reads "label [unit]".
TEST(Evaluate, HistoryPlotsDrawTheBoundsOfTheConstraintsOnTheResponse) {
  nlohmann::json d = {
      {"design_variables", {{{"name", "b1"}, {"lower", 0.1}, {"upper", 10}, {"initial", 2.0}}}},
      {"load_cases", {{{"name", "road"}, {"time", {{"start", 0}, {"end", 2}, {"points", 3}}}}}},
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
  const auto dir = (std::filesystem::temp_directory_path() / "sao-evaluate-bounds").string();
  std::filesystem::remove_all(dir);
  const auto files = write_history_plots(dir, s, {"start"}, {e});
  ASSERT_EQ(files.size(), 2u);
  EXPECT_FALSE(std::filesystem::exists(dir + "/road-undeclared.svg"));
  EXPECT_EQ(write_history_plots(dir, s, {"start"}, {e}, true).size(), 3u);
  const std::string h = testing::read_file(dir + "/road-h.svg");
  EXPECT_THAT(h, HasSubstr(">upper bound 4 (cap[+])<"));
  EXPECT_THAT(h, HasSubstr(">lower bound -4 (cap[-])<"));
  EXPECT_THAT(h, HasSubstr(">Height [mm]<"));
  const std::string k = testing::read_file(dir + "/road-k.svg");
  EXPECT_THAT(k, HasSubstr(">lower bound 0.5 (floor)<"));
  EXPECT_THAT(k, ::testing::Not(HasSubstr("cap")));
  size_t bounds = 0;
  for (size_t p = h.find("class=\"bound\""); p != std::string::npos;
       p = h.find("class=\"bound\"", p + 1))
    ++bounds;
  EXPECT_EQ(bounds, 2u);
}

}  // namespace
}  // namespace sao
