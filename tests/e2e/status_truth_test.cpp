// Statuses and summaries that say exactly what happened (issue 46, item 3), through the `sao`
// command as a user runs it: the converging cycle is marked as such, the start objective of a
// bound-formulation study is the real maximum at the start design, a run whose start was never
// analysed prints no figures, and a run ended by its cycle limit says so (and reports the best
// feasible design analysed) whatever the design it stopped at.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "tests/e2e/store_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace sao::testing;  // kProblems, read_json, contains, ...
using sao::testing::sao;       // the function, before the namespace sao

const std::string kAbsorber = kProblems + "impact-absorber/max-acceleration.json";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> cells(const std::string& line, char separator) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string cell; std::getline(in, cell, separator);) out.push_back(cell);
  return out;
}

// The converging cycle reads `c` in the cycle table, "converged" in `sao status`-like words and
// 1 in history.csv's `converged` column, never `n` / rejected.
TEST(StatusTruth, TheConvergingCycleIsMarkedConverged) {
  const fs::path dir = scratch_directory("test-status-truth");
  const CommandOutput run = sao("run " + kAbsorber + " --out " + (dir / "run").string());
  ASSERT_EQ(run.code, 0) << run.text;
  const nlohmann::json result = read_json(dir / "run" / "result.json");
  ASSERT_EQ(result["status"], "converged");
  const nlohmann::json& last = result["history"].back();
  ASSERT_TRUE(last["converged"].get<bool>());
  // The cycle table: the row of the last cycle.
  const std::string number = std::to_string(last["cycle"].get<int>());
  bool found = false;
  for (const std::string& line : lines_of(run.text)) {
    std::istringstream in(line);
    std::string cycle, acc;
    if (!(in >> cycle >> acc) || cycle != number) continue;
    found = true;
    EXPECT_EQ(acc, "c") << line;
  }
  EXPECT_TRUE(found) << run.text;
  // history.csv: a `converged` column, 1 on the last row only.
  std::ifstream csv(dir / "run" / "history.csv");
  std::stringstream text;
  text << csv.rdbuf();
  const std::vector<std::string> rows = lines_of(text.str());
  ASSERT_GE(rows.size(), 2u);
  const std::vector<std::string> header = cells(rows[0], ',');
  const auto column = std::find(header.begin(), header.end(), "converged") - header.begin();
  ASSERT_LT(static_cast<size_t>(column), header.size()) << rows[0];
  for (size_t r = 1; r < rows.size(); ++r) {
    EXPECT_EQ(cells(rows[r], ',')[column], r + 1 == rows.size() ? "1" : "0") << rows[r];
  }
}

// The impact absorber minimises max |acceleration| through an auxiliary variable b3 whose
// initial guess (0.85) is not the maximum at the start design: the start objective reported is
// the maximum itself, checked against the acceleration history `sao simulate` writes there.
TEST(StatusTruth, TheStartObjectiveOfABoundFormulationIsTheRealMaximum) {
  const fs::path dir = scratch_directory("test-status-truth");
  const CommandOutput run =
      sao("run " + kAbsorber + " --max-cycles 1 --out " + (dir / "run").string());
  ASSERT_TRUE(run.code == 0 || run.code == 1) << run.text;
  const double start = read_json(dir / "run" / "result.json")["start"]["objective"];

  const CommandOutput simulate =
      sao("simulate " + kAbsorber + " --out " + (dir / "simulated").string());
  ASSERT_EQ(simulate.code, 0) << simulate.text;
  std::ifstream csv(dir / "simulated" / "impact.csv");
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  const std::vector<std::string> header = cells(line, ',');
  auto column = std::find(header.begin(), header.end(), "acceleration") - header.begin();
  if (static_cast<size_t>(column) == header.size()) {
    column = std::find(header.begin(), header.end(), "yddot") - header.begin();
  }
  ASSERT_LT(static_cast<size_t>(column), header.size()) << line;
  double largest = 0.0;
  while (std::getline(csv, line)) {
    largest = std::max(largest, std::abs(std::stod(cells(line, ',')[column])));
  }
  ASSERT_GT(largest, 0.0);
  EXPECT_NE(start, 0.85);  // the auxiliary's initial guess
  EXPECT_NEAR(start, largest, 1e-9 * largest);
  // The console says the same.
  std::ostringstream expected;
  expected << "(start " << std::setprecision(6) << largest << ")";
  EXPECT_TRUE(contains(run.text, expected.str())) << run.text;
}

// A run whose start design could not be analysed has no objective or violation: it says so
// instead of printing zeros, and result.json holds null.
TEST(StatusTruth, ARunWithoutAnAnalysisPrintsNoFigures) {
  const fs::path dir = scratch_directory("test-status-truth");
  const CommandOutput run = sao(
      "run " + std::string(SAO_SOURCE_DIR) + "/tests/data/failing-code/study.json --set " +
      "simulator.run_directory=" + (dir / "runs").string() + " --out " + (dir / "run").string());
  EXPECT_EQ(run.code, 3) << run.text;
  EXPECT_FALSE(contains(run.text, "objective  0")) << run.text;
  EXPECT_FALSE(contains(run.text, "(start 0)")) << run.text;
  EXPECT_FALSE(contains(run.text, "violation  0 %")) << run.text;
  EXPECT_TRUE(contains(run.text, "no design was analysed")) << run.text;
  const nlohmann::json result = read_json(dir / "run" / "result.json");
  EXPECT_EQ(result["status"], "failed");
  EXPECT_TRUE(result["objective"].is_null()) << result.dump();
  EXPECT_TRUE(result["max_violation"].is_null());
  EXPECT_TRUE(result["start"].is_null());
}

// The truck damper (bound formulation) stopped by a cycle limit of 2: its start and first cycle
// held every constraint, so the run is `cycle_limit` and reports a feasible design it analysed,
// never "without a feasible design".
TEST(StatusTruth, ACycleLimitIsACycleLimitWithTheBestFeasibleDesign) {
  const fs::path dir = scratch_directory("test-status-truth");
  const std::string study = kProblems + "truck-damper/quarter-car.json";
  const CommandOutput run = sao("run " + study + " --max-cycles 2 --out " + (dir / "run").string());
  ASSERT_EQ(run.code, 1) << run.text;
  const nlohmann::json result = read_json(dir / "run" / "result.json");
  EXPECT_EQ(result["status"], "cycle_limit") << result["message"];
  const std::string message = result["message"];
  EXPECT_FALSE(contains(message, "without a feasible design")) << message;
  EXPECT_FALSE(contains(message, "no feasible design analysed")) << message;
  // The start held the constraints (V < 0), so the reported design does too.
  EXPECT_LE(result["start"]["max_violation"].get<double>(), 0.0);
  EXPECT_LE(result["max_violation"].get<double>(), 0.1) << message;
}

}  // namespace
