#include "sao/store/sweep.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "sao/report/sweep_files.hpp"
#include "sao/store/shared_cache.hpp"
#include "tests/support.hpp"

namespace sao {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

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

SweepMember member(double value, int start, RunStatus status, double objective,
                   const std::string& error = {}) {
  SweepMember m;
  m.value = value;
  m.start = start;
  m.summary.status = status;
  m.summary.objective = objective;
  m.error = error;
  return m;
}

SweepOptions two_starts() {
  SweepOptions options;
  options.range = parse_sweep_range("constraints.0.upper=1:3:1");
  options.starts = 2;
  return options;
}

// The spec of the one chart of DIR/compromise.html.
nlohmann::json compromise_spec(const std::filesystem::path& dir) {
  const std::vector<nlohmann::json> specs =
      testing::chart_specs(testing::read_file(dir / "compromise.html"));
  EXPECT_EQ(specs.size(), 1u);
  return specs.empty() ? nlohmann::json() : specs[0];
}

// DIR/compromise.html: a self-contained page with the compromise chart, the best converged
// member of each value joined (a value without one: a gap), every converged member as a
// marker, the reference designs as markers of their own.
TEST(SweepFiles, TheCompromisePageHoldsTheCurve) {
  SweepResult result;
  result.members = {member(1, 0, RunStatus::kConverged, 5.0),
                    member(1, 1, RunStatus::kConverged, 4.0),
                    member(2, 0, RunStatus::kCycleLimit, 1.0),  // better, but not converged
                    member(2, 1, RunStatus::kConverged, 0.5, "bad override"),
                    member(3, 0, RunStatus::kConverged, 3.0),
                    member(3, 1, RunStatus::kConverged, 3.5)};
  const auto dir = testing::scratch_directory("test-sweep");
  write_sweep(dir.string(), two_starts(), result, {{"original & old", 2.5, 4.2}}, "F",
              "Bound <a> [m]", "F [J]");
  EXPECT_TRUE(std::filesystem::exists(dir / "sweep.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir / "compromise.csv"));
  EXPECT_FALSE(std::filesystem::exists(dir / "compromise.svg"));
  const std::string page = testing::read_file(dir / "compromise.html");
  EXPECT_THAT(page, HasSubstr("<h1>Compromise curve</h1>"));
  EXPECT_THAT(page, HasSubstr("F [J] against Bound &lt;a&gt; [m]: 6 members, 4 converged"));
  EXPECT_THAT(page, HasSubstr("sao_charts.draw_all(document)"));
  const nlohmann::json spec = compromise_spec(dir);
  EXPECT_EQ(spec["id"], "compromise");
  EXPECT_EQ(spec["x_label"], "Bound <a> [m]");
  EXPECT_EQ(spec["y_label"], "F [J]");
  ASSERT_EQ(spec["series"].size(), 3u) << spec.dump();
  const nlohmann::json& members = spec["series"][0];
  EXPECT_EQ(members["name"], "every converged member");
  EXPECT_EQ(members["line"], false);
  EXPECT_EQ(members["x"], nlohmann::json({1.0, 1.0, 3.0, 3.0}));
  EXPECT_EQ(members["y"], nlohmann::json({5.0, 4.0, 3.0, 3.5}));
  const nlohmann::json& best = spec["series"][1];
  EXPECT_EQ(best["name"], "best of 2 start(s)");
  EXPECT_EQ(best["line"], true);
  EXPECT_EQ(best["x"], nlohmann::json({1.0, 2.0, 3.0}));
  EXPECT_EQ(best["y"], nlohmann::json({4.0, nullptr, 3.0}));  // value 2: no converged member
  const nlohmann::json& reference = spec["series"][2];
  EXPECT_EQ(reference["name"], "original & old");
  EXPECT_EQ(reference["line"], false);
  EXPECT_EQ(reference["x"], nlohmann::json({2.5}));
  EXPECT_EQ(reference["y"], nlohmann::json({4.2}));
}

// No member converged: the chart has no point to draw, and its empty message (which the page
// shows in the chart's place) says so and where to look.
TEST(SweepFiles, TheCompromisePageSaysWhenNoMemberConverged) {
  SweepResult result;
  result.members = {member(1, 0, RunStatus::kFailed, 0.0),
                    member(1, 1, RunStatus::kConverged, 1.0, "cannot start"),
                    member(2, 0, RunStatus::kInfeasible, 2.0),
                    member(2, 1, RunStatus::kStalled, 3.0),
                    member(3, 0, RunStatus::kCycleLimit, 4.0),
                    member(3, 1, RunStatus::kFailed, 5.0)};
  const auto dir = testing::scratch_directory("test-sweep");
  write_sweep(dir.string(), two_starts(), result, {}, "F");
  EXPECT_THAT(testing::read_file(dir / "compromise.html"), HasSubstr("6 members, 0 converged"));
  const nlohmann::json spec = compromise_spec(dir);
  EXPECT_EQ(spec["x_label"], "constraints.0.upper");  // no titles given: the key and the name
  EXPECT_EQ(spec["y_label"], "F");
  // What the renderer draws: no series has a point with both coordinates.
  for (const nlohmann::json& s : spec["series"]) {
    for (size_t i = 0; i < s["x"].size(); ++i) {
      EXPECT_TRUE(s["x"][i].is_null() || s["y"][i].is_null()) << s.dump();
    }
  }
  const std::string empty = spec["empty"];
  EXPECT_THAT(empty, HasSubstr("No member converged"));
  EXPECT_THAT(empty, HasSubstr((dir / "sweep.csv").string()));
  EXPECT_THAT(empty, Not(HasSubstr("DIR")));
}

}  // namespace
}  // namespace sao
