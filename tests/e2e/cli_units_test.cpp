// Units in the JSON the command writes (issue 49: "JSON: `unit` next to each named value"), as
// docs/study-format.md ("Units in the JSON outputs") describes them: an object that names one
// value carries "unit" where the study declares one (no key otherwise); a map of values by name
// keeps its type beside a "units" map. The studies' units are distinct (the absorber: b1 N/m,
// b2 N s/m, the objective m/s^2, y and the displacement constraint m; the oscillator: c 1/s^2,
// z0 m/s), so that a unit given to the wrong value shows.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/e2e/store_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace sao::testing;
using json = nlohmann::json;

const std::string kAbsorber = kProblems + "impact-absorber/max-acceleration.json";
const json kAbsorberUnits =
    json::parse(R"({"design": {"b1": "N/m", "b2": "N s/m"}, "objective": "m/s^2"})");

fs::path scratch(const std::string& name = {}) {
  return scratch_directory("test-cli-units", name);
}

// The absorber with a scalar response declared under another name than the simulator's
// ("ride", the simulator's "comfort", m^2/s^4), written into `dir`.
std::string absorber_with_a_scalar(const fs::path& dir) {
  json study = read_json(kAbsorber);
  study["responses"].push_back(
      {{"name", "ride"}, {"source", "comfort"}, {"kind", "scalar"}, {"unit", "m^2/s^4"}});
  const fs::path file = dir / "ride.json";
  std::ofstream(file) << study.dump();
  return file.string();
}

// `sao ARGS` (stderr dropped) parsed as one JSON document.
json document_of(const std::string& args) {
  const CommandOutput out = run_command(kSao + " " + args + " 2>/dev/null");
  EXPECT_EQ(out.code, 0) << args << "\n" << out.text;
  json j = json::parse(out.text, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "not one JSON document:\n" << out.text;
  return j;
}

// `sao ARGS` (stderr dropped) as JSON lines.
std::vector<json> lines_of(const std::string& args) {
  const CommandOutput out = run_command(kSao + " " + args + " 2>/dev/null");
  EXPECT_LE(out.code, 1) << args << "\n" << out.text;
  std::vector<json> lines;
  std::istringstream in(out.text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(json::parse(line, nullptr, false));
    EXPECT_FALSE(lines.back().is_discarded()) << "not a JSON line: " << line;
  }
  return lines;
}

// The entry of `list` whose `key` is `value` (null when none is).
json entry(const json& list, const std::string& key, const std::string& value) {
  for (const json& e : list) {
    if (e.value(key, "") == value) return e;
  }
  ADD_FAILURE() << "no " << key << " " << value << " in " << list.dump().substr(0, 400);
  return nullptr;
}

// The records of a run (run --json, step --json, status --json) carry b0 and b_opt by
// variable name and F figures: the units of both beside them, as result.json gives them.
TEST(CliUnits, CycleRecordsCarryTheUnitsOfTheirDesignsAndObjective) {
  const fs::path dir = scratch();
  const std::string d = (dir / "s").string();
  const json step = document_of("step " + d + " --study " + kAbsorber + " --json");
  ASSERT_EQ(step["event"], "cycle");
  EXPECT_EQ(step["units"], kAbsorberUnits) << step;
  EXPECT_TRUE(step["record"]["b0"].is_object());  // the map kept as it was
  const json status = document_of("status " + d + " --json");
  ASSERT_EQ(status["branches"].size(), 1u);
  EXPECT_EQ(status["branches"][0]["units"], kAbsorberUnits) << status;

  const std::vector<json> run =
      lines_of("run " + kAbsorber + " --no-store --json --out " + (dir / "r").string());
  int cycles = 0;
  for (const json& line : run) {
    if (line.value("event", "") != "cycle") continue;
    ++cycles;
    EXPECT_EQ(line["units"], kAbsorberUnits) << line;
  }
  EXPECT_GT(cycles, 0);
  ASSERT_FALSE(run.empty());
  EXPECT_EQ(run.back()["units"], kAbsorberUnits);  // the end: result.json's
}

// evaluate --json: each design's variables and objective ("units"), each constraint and each
// response with its unit; a response the study does not declare (--all) has no "unit".
TEST(CliUnits, EvaluateGivesEveryValueItsUnit) {
  const std::string study = absorber_with_a_scalar(scratch());
  const json e = document_of("evaluate " + study + " --json");
  ASSERT_EQ(e["designs"].size(), 1u);
  const json& design = e["designs"][0];
  EXPECT_EQ(design["units"], kAbsorberUnits);
  EXPECT_EQ(design["design"]["b1"], 1.0);  // the map kept as it was
  EXPECT_EQ(entry(design["constraints"], "name", "displacement[+]")["unit"], "m");
  EXPECT_EQ(entry(design["responses"], "name", "y")["unit"], "m");
  EXPECT_EQ(entry(design["responses"], "name", "acceleration")["unit"], "m/s^2");
  EXPECT_EQ(entry(design["responses"], "name", "ride")["unit"], "m^2/s^4");

  const json all = document_of("evaluate " + study + " --json --all");
  const json& responses = all["designs"][0]["responses"];
  EXPECT_EQ(entry(responses, "name", "yddot")["unit"], "m/s^2");  // the simulator's names
  EXPECT_EQ(entry(responses, "name", "comfort")["unit"], "m^2/s^4");
  const json ydot = entry(responses, "name", "ydot");  // not declared
  EXPECT_FALSE(ydot.contains("unit")) << ydot;
}

// check-gradient --json: each row with its response's unit (of value) and its variable's (the
// derivatives are in unit / variable_unit).
TEST(CliUnits, GradientRowsNameTheResponsesAndTheVariablesUnits) {
  const json g =
      document_of("check-gradient " + kProblems + "oscillator/psi.json --point 2 --json");
  ASSERT_EQ(g["rows"].size(), 2u) << g;
  for (const json& row : g["rows"]) {
    EXPECT_EQ(row["unit"], "m") << row;
    EXPECT_EQ(row["variable_unit"], row["variable"] == "c" ? "1/s^2" : "m/s") << row;
  }
}

// simulate --json and simulation.json: the design's units, and per load case the units of
// its histories and scalars by the simulator's names.
TEST(CliUnits, SimulationJsonGivesTheUnitsOfItsDesignAndResponses) {
  const fs::path root = scratch(), dir = root / "sim";
  const json s =
      document_of("simulate " + absorber_with_a_scalar(root) + " --json --out " + dir.string());
  EXPECT_EQ(s["units"], json::parse(R"({"design": {"b1": "N/m", "b2": "N s/m"}})"));
  ASSERT_EQ(s["load_cases"].size(), 1u);
  EXPECT_EQ(s["load_cases"][0]["units"], json::parse(R"({"histories": {"y": "m", "yddot": "m/s^2"},
                            "scalars": {"comfort": "m^2/s^4"}})"));
  EXPECT_EQ(read_json(dir / "simulation.json"), s);
}

// sweep --json: the reference and each member with the units of the varied entry's value
// (only for a key in its element's quantity) and of the objective.
TEST(CliUnits, SweepLinesGiveTheUnitsOfTheVariedValueAndTheObjective) {
  const fs::path dir = scratch();
  const std::vector<json> sweep = lines_of(
      "sweep " + kAbsorber + " --vary constraints.displacement.upper=0.9,1 --jobs 1 --json --out " +
      (dir / "bound").string() + " --reference-set design_variables.b1.initial=0.8");
  ASSERT_EQ(sweep.size(), 4u);  // the reference, two members, the end
  const json units = json::parse(R"({"value": "m", "objective": "m/s^2"})");
  for (int k : {0, 1, 2}) EXPECT_EQ(sweep[k]["units"], units) << sweep[k];
  EXPECT_EQ(sweep[0]["event"], "reference");

  const std::vector<json> variable =
      lines_of("sweep " + kAbsorber + " --vary design_variables.b2.upper=1 --jobs 1 --json --out " +
               (dir / "variable").string());
  ASSERT_EQ(variable.size(), 2u);
  EXPECT_EQ(variable[0]["units"], json::parse(R"({"value": "N s/m", "objective": "m/s^2"})"));
  const std::vector<json> factor = lines_of(
      "sweep " + kAbsorber + " --vary design_variables.b2.move_limit=0.3 --jobs 1 --json --out " +
      (dir / "factor").string());
  ASSERT_EQ(factor.size(), 2u);
  EXPECT_EQ(factor[0]["units"], json::parse(R"({"objective": "m/s^2"})"));  // a fraction
}

}  // namespace
