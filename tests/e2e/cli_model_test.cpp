// Modelling from the command line (issue 26, item 10; the last review's gaps): `sao simulate`
// of a model file without an objective and of a study, its CSV at full precision and its timing
// (parsed here) against a hand calculation, its exit codes; `sao evaluate` showing the study's
// responses by default and every one with --all; an external study's failed runs kept inside
// the output folder, not in the current folder.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "tests/e2e/store_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace sao::testing;

using json = nlohmann::json;

fs::path scratch(const std::string& name = {}) {
  return scratch_directory("test-cli-model", name);
}

CommandOutput stdout_of(const std::string& args) {
  return run_command(kSao + " " + args + " 2>/dev/null");
}

// A CSV file as its header and rows of numbers.
struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;
  std::vector<std::string> lines;
  int column(const std::string& name) const {
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return static_cast<int>(i);
    }
    ADD_FAILURE() << "no column " << name;
    return 0;
  }
};
Csv read_csv(const fs::path& file) {
  Csv csv;
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  std::istringstream head(line);
  for (std::string cell; std::getline(head, cell, ',');) csv.header.push_back(cell);
  while (std::getline(in, line)) {
    csv.lines.push_back(line);
    std::istringstream row(line);
    std::vector<double> values;
    for (std::string cell; std::getline(row, cell, ',');) values.push_back(std::stod(cell));
    csv.rows.push_back(values);
  }
  return csv;
}

// A crank (centre of mass L/2 from its pivot, the reference point) driven by a motor torque
// T0 (1 - omega / w0), no gravity: omega(t) = w0 (1 - exp(-t / tau)), tau = (m L^2 / 3) w0 / T0.
const char* kCrankModel = R"J({
  "name": "torque-driven crank",
  "load_cases": [{"name": "spin", "time": {"end": 1.0, "points": 11}}],
  "simulator": {"type": "internal", "model": "multibody", "rtol": 1e-10, "atol": 1e-12,
    "multibody": {
      "gravity": [0, 0], "parameters": {"L": 0.4, "m": 3, "T0": 2, "w0": 10},
      "bodies": [{"name": "crank", "mass": "m", "inertia": "m*L^2/12",
                  "centre_of_mass": ["L/2", 0]}],
      "joints": [{"type": "revolute", "bodies": ["ground", "crank"]}],
      "forces": [{"type": "torque", "name": "motor", "body": "crank",
                  "torque": "T0*(1 - crank_omega/w0)"
}]
}
}
})J";

TEST(CliModel, SimulateAModelWithoutObjectiveWritesEveryHistoryAtFullPrecision) {
  const fs::path dir = scratch();
  std::ofstream(dir / "crank.json") << kCrankModel;
  const CommandOutput out = stdout_of("simulate " + (dir / "crank.json").string() +
                                      " --design T0=3 --out " + (dir / "out").string() + " --json");
  ASSERT_EQ(out.code, 0) << out.text;
  const json doc = json::parse(out.text);
  EXPECT_EQ(doc["design"]["T0"], 3.0);
  EXPECT_GE(doc["timing"]["wall_seconds"].get<double>(), 0.0);
  EXPECT_GE(doc["timing"]["cpu_seconds"].get<double>(), 0.0);
  ASSERT_EQ(doc["load_cases"].size(), 1u);
  // CVODES's steps: more than one per output interval is not needed, but some are.
  ASSERT_TRUE(doc["timing"]["integrator_steps"].is_number_integer()) << out.text;
  EXPECT_GE(doc["timing"]["integrator_steps"].get<long>(), 10);
  EXPECT_EQ(doc["timing"]["integrator_steps"], doc["load_cases"][0]["integrator_steps"]);
  const fs::path file = doc["load_cases"][0]["file"].get<std::string>();
  EXPECT_EQ(file, dir / "out" / "spin.csv");
  EXPECT_EQ(read_json(dir / "out" / "simulation.json")["design"], doc["design"]);
  const Csv csv = read_csv(file);
  ASSERT_EQ(csv.rows.size(), 11u);
  EXPECT_EQ(csv.header.front(), "t");
  EXPECT_EQ(csv.header.size(), 1 + doc["load_cases"][0]["histories"].size());
  // %.17g: the grid time 0.1 as the double nearest to it, all 17 digits.
  EXPECT_EQ(csv.lines[1].substr(0, csv.lines[1].find(',')), "0.10000000000000001");
  const double tau = 3 * 0.4 * 0.4 / 3 * 10 / 3.0;
  const int omega = csv.column("crank.omega");
  for (const auto& row : csv.rows) {
    EXPECT_NEAR(row[omega], 10 * (1 - std::exp(-row[0] / tau)), 1e-7) << "t = " << row[0];
  }
}

TEST(CliModel, SimulateAStudyAtADesignAgainstTheClosedForm) {
  const fs::path dir = scratch();
  // y' = z, z' = -c y, y(0) = 0, z(0) = z0: y(pi/2) = z0 sin(pi/2) = z0 at c = 1.
  const CommandOutput out =
      stdout_of("simulate " + kProblems + "oscillator/psi.json --design z0=0.7 --out " +
                (dir / "out").string() + " --json");
  ASSERT_EQ(out.code, 0) << out.text;
  const json doc = json::parse(out.text);
  EXPECT_EQ(doc["design"]["c"], 1.0);
  EXPECT_EQ(doc["design"]["z0"], 0.7);
  const Csv csv = read_csv(doc["load_cases"][0]["file"].get<std::string>());
  ASSERT_EQ(csv.rows.size(), 3u);
  EXPECT_NEAR(csv.rows[2][csv.column("y")], 0.7, 1e-6);
  // The text form names the file and the timing.
  const CommandOutput text =
      stdout_of("simulate " + kProblems + "oscillator/psi.json --out " + (dir / "text").string());
  EXPECT_EQ(text.code, 0);
  EXPECT_NE(text.text.find("timing       wall"), std::string::npos) << text.text;
  EXPECT_NE(text.text.find(" integrator steps"), std::string::npos) << text.text;
  // The variational integrator's fixed steps: 2 s at h = 1 ms.
  const CommandOutput fixed =
      stdout_of("simulate " + kProblems + "accelerometer-identification/identify.json --out " +
                (dir / "fixed").string() + " --json");
  ASSERT_EQ(fixed.code, 0) << fixed.text;
  EXPECT_EQ(json::parse(fixed.text)["timing"]["integrator_steps"], 2000);
}

TEST(CliModel, SimulateExitCodes) {
  const fs::path dir = scratch();
  const std::string out = " --out " + (dir / "out").string();
  const CommandOutput unknown =
      sao::testing::sao("simulate " + kProblems + "oscillator/psi.json --design q=1" + out);
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.text.find("\"q\" is not a design variable of the study (c, z0)"),
            std::string::npos)
      << unknown.text;
  const CommandOutput nan =
      sao::testing::sao("simulate " + kProblems + "oscillator/psi.json --design c=abc" + out);
  EXPECT_EQ(nan.code, 2);
  EXPECT_NE(nan.text.find("\"abc\" is not a finite number"), std::string::npos) << nan.text;
  std::ofstream(dir / "crank.json") << kCrankModel;
  const CommandOutput parameter =
      sao::testing::sao("simulate " + (dir / "crank.json").string() + " --design T9=1" + out);
  EXPECT_EQ(parameter.code, 2);
  EXPECT_NE(parameter.text.find("--design T9=...: not a parameter of the model (L, T0, m, w0)"),
            std::string::npos)
      << parameter.text;
  std::ofstream(dir / "broken.json") << R"J({"load_cases": [{"name": "a"}]})J";
  const CommandOutput broken =
      sao::testing::sao("simulate " + (dir / "broken.json").string() + out);
  EXPECT_EQ(broken.code, 2);
  EXPECT_NE(broken.text.find("simulator: missing"), std::string::npos) << broken.text;
}

// --set on simulate, check, and step/restart with --study (issue 49): an entry of the file
// overridden before it is loaded, as on `sao run`; a wrong one rejected with the key named.
TEST(CliModel, SimulateCheckAndStepTakeSet) {
  const fs::path dir = scratch();
  const std::string study = kProblems + "oscillator/psi.json";
  // y(pi/2) = z0 at c = 1: the initial value of z0 set through the file, not --design.
  const CommandOutput set =
      stdout_of("simulate " + study + " --set design_variables.z0.initial=0.3 --out " +
                (dir / "set").string() + " --json");
  ASSERT_EQ(set.code, 0) << set.text;
  const json doc = json::parse(set.text);
  EXPECT_EQ(doc["design"]["z0"], 0.3);
  const Csv csv = read_csv(doc["load_cases"][0]["file"].get<std::string>());
  ASSERT_EQ(csv.rows.size(), 3u);
  EXPECT_NEAR(csv.rows[2][csv.column("y")], 0.3, 1e-6);
  // --design still wins over the file's initial value.
  const CommandOutput both = stdout_of("simulate " + study +
                                       " --set design_variables.z0.initial=0.3 --design z0=0.6 "
                                       "--out " +
                                       (dir / "both").string() + " --json");
  ASSERT_EQ(both.code, 0) << both.text;
  EXPECT_EQ(json::parse(both.text)["design"]["z0"], 0.6);
  const CommandOutput bad = sao::testing::sao(
      "simulate " + study + " --set design_variables.q.initial=1 --out " + (dir / "bad").string());
  EXPECT_EQ(bad.code, 2) << bad.text;
  EXPECT_NE(bad.text.find("design_variables.q"), std::string::npos) << bad.text;

  const CommandOutput valid = sao::testing::sao("check " + study + " --set settings.objacc=0.01");
  EXPECT_EQ(valid.code, 0) << valid.text;
  // A value the file would accept, made inconsistent by --set: check sees the override.
  const CommandOutput bounds =
      sao::testing::sao("check " + study + " --set design_variables.c.lower=3");
  EXPECT_EQ(bounds.code, 2) << bounds.text;
  EXPECT_NE(bounds.text.find("design_variables"), std::string::npos) << bounds.text;
  const CommandOutput json_out =
      stdout_of("check " + study + " --json --set design_variables.c.lower=3");
  EXPECT_EQ(json_out.code, 2);
  EXPECT_FALSE(json::parse(json_out.text)["valid"].get<bool>()) << json_out.text;

  // sao step --study creates the store from the overridden study: its first cycle starts there.
  const CommandOutput step = stdout_of("step " + (dir / "store").string() + " --study " + study +
                                       " --set design_variables.z0.initial=0.3 --json");
  ASSERT_EQ(step.code, 0) << step.text;
  EXPECT_EQ(json::parse(step.text)["record"]["b0"]["z0"], 0.3) << step.text;
  // Without --study there is no file to override (the store's settings change with `sao set`).
  for (const std::string command : {"step ", "restart --from-cycle 1 "}) {
    const CommandOutput alone =
        sao::testing::sao(command + (dir / "store").string() + " --set settings.objacc=0.1");
    EXPECT_EQ(alone.code, 2) << command << alone.text;
    EXPECT_NE(alone.text.find("sao set DIR key=value"), std::string::npos) << alone.text;
  }
}

// history.csv holds every figure of result.json's history but its message (issue 49): the
// diagnostic columns of a crawl (ratio, kkt_residual, the move actions) and the cycle start.
TEST(CliModel, HistoryCsvHoldsTheHistorysFigures) {
  const fs::path dir = scratch();
  const CommandOutput run =
      sao::testing::sao("run " + kProblems + "impact-absorber/max-acceleration.json --out " +
                        (dir / "run").string() + " -q");
  ASSERT_EQ(run.code, 0) << run.text;
  const json history = read_json(dir / "run" / "result.json")["history"];
  std::ifstream in(dir / "run" / "history.csv");
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  {
    std::istringstream head(line);
    for (std::string cell; std::getline(head, cell, ',');) header.push_back(cell);
  }
  const auto column = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << name;
    return static_cast<size_t>(it - header.begin());
  };
  size_t row = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) f.push_back(cell);
    if (!line.empty() && line.back() == ',') f.push_back("");
    ASSERT_EQ(f.size(), header.size()) << line;
    ASSERT_LT(row, history.size());
    const json& h = history[row++];
    EXPECT_EQ(std::stoi(f[column("cycle")]), h["cycle"].get<int>());
    EXPECT_EQ(f[column("subproblem")], h["subproblem"].get<std::string>());
    EXPECT_EQ(f[column("gradient_method")], h["gradient_method"].get<std::string>());
    EXPECT_EQ(std::stoi(f[column("fit_points")]), h["fit_points"].get<int>());
    for (const char* key : {"F0", "E", "Fchg", "ratio", "kkt_residual", "noise_estimate"}) {
      if (h[key].is_null()) {
        EXPECT_EQ(f[column(key)], "") << key;
      } else {
        const double v = h[key].get<double>();
        EXPECT_NEAR(std::stod(f[column(key)]), v, 1e-5 * std::max(1.0, std::abs(v))) << key;
      }
    }
    for (const auto& [name, value] : h["b0"].items()) {
      EXPECT_NEAR(std::stod(f[column("b0_" + name)]), value.get<double>(),
                  1e-9 * std::max(1.0, std::abs(value.get<double>())))
          << name;
    }
    const std::vector<std::string> variables = {"b1", "b2"};
    for (size_t i = 0; i < variables.size(); ++i) {
      EXPECT_EQ(f[column("action_" + variables[i])], h["move_actions"][i].get<std::string>());
      EXPECT_NEAR(std::stod(f[column("next_m_" + variables[i])]),
                  h["next_move_factors"][i].get<double>(), 1e-5);
    }
  }
  EXPECT_EQ(row, history.size());
  EXPECT_GE(row, 2u);
}

// The console's cycle table gives the study's units (issue 49) on a line under the column
// titles, each under its column: the design variables' and F's (the objective's); so does
// evaluate, next to each value.
TEST(CliModel, TheCycleTableAndEvaluateShowUnits) {
  const fs::path dir = scratch();
  const CommandOutput run =
      stdout_of("run " + kProblems + "oscillator/psi.json --out " + (dir / "run").string());
  ASSERT_EQ(run.code, 0) << run.text;
  std::istringstream lines(run.text);
  std::string line, header, units;
  while (std::getline(lines, line)) {
    if (line.rfind("cycle acc", 0) == 0) {
      header = line;
      std::getline(lines, units);
      break;
    }
  }
  ASSERT_FALSE(header.empty()) << run.text;
  // The end of a title and of its unit line up.
  const auto end_of = [](const std::string& text, const std::string& token) {
    const size_t at = text.find(token);
    EXPECT_NE(at, std::string::npos) << token << " in " << text;
    return at == std::string::npos ? at : at + token.size();
  };
  EXPECT_EQ(end_of(units, "[1/s^2]"), end_of(header, " c"));
  EXPECT_EQ(end_of(units, "[m/s]"), end_of(header, " z0"));
  EXPECT_EQ(end_of(units, "[m]"), end_of(header, " F"));
  // result.json: the units of the design variables and of the objective.
  const json declared = read_json(dir / "run" / "result.json")["units"];
  EXPECT_EQ(declared, json::parse(R"({"design": {"c": "1/s^2", "z0": "m/s"}, "objective": "m"})"))
      << declared;
  // evaluate: the design and objective with their units, a unit column for the responses.
  const CommandOutput evaluate = stdout_of("evaluate " + kProblems + "oscillator/psi.json");
  ASSERT_EQ(evaluate.code, 0) << evaluate.text;
  EXPECT_NE(evaluate.text.find("design     c = 1 [1/s^2] z0 = 0.5 [m/s]"), std::string::npos)
      << evaluate.text;
  EXPECT_NE(evaluate.text.find("objective  psi = 0.5 [m]"), std::string::npos) << evaluate.text;
  EXPECT_TRUE(std::regex_search(evaluate.text, std::regex("\n  y +free( +[0-9.e-]+){4}  m\n")))
      << evaluate.text;
  // The next line is the start design's row: no units line where the study gives none.
  const fs::path bare = dir / "bare.json";
  json study = read_json(kProblems + "oscillator/psi.json");
  for (json& v : study["design_variables"]) v.erase("unit");
  study["objective"].erase("unit");
  std::ofstream(bare) << study.dump();
  const CommandOutput plain =
      stdout_of("run " + bare.string() + " --out " + (dir / "bare").string());
  ASSERT_EQ(plain.code, 0) << plain.text;
  EXPECT_EQ(plain.text.find("[m/s]"), std::string::npos) << plain.text;
  const size_t title = plain.text.find("cycle acc");
  ASSERT_NE(title, std::string::npos);
  const size_t next = plain.text.find('\n', title) + 1;
  EXPECT_EQ(plain.text.substr(next, 5), "    0") << plain.text;
}

// check --sample-output (issue 49): the study's parsers tried on what a run of the code wrote,
// before any run. fake_code writes history.csv (time,acc,travel) and result.txt (f = ...).
TEST(CliModel, CheckReadsASampleOutputAsARunWould) {
  const fs::path dir = scratch();
  const json study = {
      {"design_variables",
       {{{"name", "x"}, {"lower", 0.2}, {"upper", 3.0}, {"initial", 1.5}},
        {{"name", "y"}, {"lower", -1.0}, {"upper", 3.0}, {"initial", -0.5}}}},
      {"load_cases", {{{"name", "main"}, {"time", {{"end", 1.0}, {"points", 11}}}}}},
      {"responses", {{{"name", "f"}, {"kind", "scalar"}}, {{"name", "acc"}, {"kind", "history"}}}},
      {"objective", {{"minimize", "f"}}},
      {"constraints", {{{"name", "acc"}, {"of", "acc"}, {"upper", 5.0}}}},
      {"simulator",
       {{"type", "external"},
        {"command", {SAO_FAKE_CODE}},
        {"templates", {{{"file", "input.tpl"}, {"target", "input.txt"}}}},
        {"responses",
         {{{"name", "f"},
           {"kind", "scalar"},
           {"file", "result.txt"},
           {"parser", "regex"},
           {"pattern", "f = (\\S+)"}},
          {{"name", "acc"},
           {"kind", "history"},
           {"file", "history.csv"},
           {"parser", "columns"},
           {"time", "time"},
           {"value", "acc"}}}}}}};
  std::ofstream(dir / "study.json") << study.dump(2);
  std::ofstream(dir / "input.tpl") << "x {{x}}\ny {{y}}\n";
  // The sample: one run of the code by hand, in a folder of its own.
  fs::create_directories(dir / "sample");
  std::ofstream(dir / "sample" / "input.txt") << "x 1.5\ny -0.5\n";
  ASSERT_EQ(run_command("cd " + (dir / "sample").string() + " && " + SAO_FAKE_CODE).code, 0);
  const std::string check =
      "check " + (dir / "study.json").string() + " --sample-output " + (dir / "sample").string();
  const CommandOutput good = sao::testing::sao(check);
  EXPECT_EQ(good.code, 0) << good.text;
  EXPECT_NE(good.text.find("read       main f: 2.5"), std::string::npos) << good.text;
  EXPECT_NE(good.text.find("read       main acc: 11 points on the grid"), std::string::npos)
      << good.text;
  // A column the header does not have: exit 2, the parser's message with what it read.
  const CommandOutput bad = sao::testing::sao(check + " --set simulator.responses.1.time=t");
  EXPECT_EQ(bad.code, 2) << bad.text;
  EXPECT_NE(bad.text.find("FAILS      main acc: response \"acc\": file history.csv, line 1: "
                          "header has no column \"t\" (columns read with delimiter \",\": "
                          "\"time\", \"acc\", \"travel\")"),
            std::string::npos)
      << bad.text;
  EXPECT_NE(bad.text.find("a run would fail the same way"), std::string::npos) << bad.text;
  const CommandOutput as_json = stdout_of(check + " --json --set simulator.responses.1.time=t");
  EXPECT_EQ(as_json.code, 2);
  const json doc = json::parse(as_json.text);
  ASSERT_EQ(doc["sample_output"].size(), 2u) << as_json.text;
  EXPECT_TRUE(doc["sample_output"][0]["read"].get<bool>());
  EXPECT_FALSE(doc["sample_output"][1]["read"].get<bool>());
  // A study of the internal simulator has no output files: a usage error.
  const CommandOutput internal = sao::testing::sao(
      "check " + kProblems + "oscillator/psi.json --sample-output " + (dir / "sample").string());
  EXPECT_EQ(internal.code, 2) << internal.text;
  EXPECT_NE(internal.text.find("not an external code"), std::string::npos) << internal.text;
}

// An external code that writes CSV (issue 49), optimised by `sao run`: fake_code writes
// history.csv (time,acc,travel; in mode semicolon ";"-separated with a units row) and
// result.txt (g = x y). Maximise x y subject to acc(t) = x sin(pi t) + y t <= 2 at every time
// of the grid: both files converge, to the same design (the same numbers, however separated).
TEST(CliModel, AnExternalCodeWritingCsvIsOptimised) {
  const fs::path dir = scratch();
  std::ofstream(dir / "input.tpl") << "x {{x}}\ny {{y}}\n";
  json designs = json::array();
  for (const std::string mode : {"ok", "semicolon"}) {
    json acc = {{"name", "acc"},       {"kind", "history"}, {"file", "history.csv"},
                {"parser", "columns"}, {"time", "time"},    {"value", "acc"}};
    if (mode == "semicolon") acc["units"] = true;
    const json study = {
        {"design_variables",
         {{{"name", "x"}, {"lower", 0.2}, {"upper", 3.0}, {"initial", 0.5}},
          {{"name", "y"}, {"lower", 0.2}, {"upper", 3.0}, {"initial", 0.5}}}},
        {"load_cases", {{{"name", "main"}, {"time", {{"end", 1.0}, {"points", 21}}}}}},
        {"responses",
         {{{"name", "g"}, {"kind", "scalar"}}, {{"name", "acc"}, {"kind", "history"}}}},
        {"objective", {{"maximize", "g"}}},
        {"constraints", {{{"name", "acc"}, {"of", "acc"}, {"upper", 2.0}}}},
        {"settings", {{"max_cycles", 40}}},
        {"simulator",
         {{"type", "external"},
          {"command", {SAO_FAKE_CODE, mode}},
          {"templates", {{{"file", "input.tpl"}, {"target", "input.txt"}}}},
          {"responses",
           {{{"name", "g"},
             {"kind", "scalar"},
             {"file", "result.txt"},
             {"parser", "regex"},
             {"pattern", "g = (\\S+)"}},
            acc}},
          {"gradients", {{"method", "forward"}, {"step", 1e-6}}}}}};
    std::ofstream(dir / (mode + ".json")) << study.dump(2);
    const CommandOutput run = sao::testing::sao("run " + (dir / (mode + ".json")).string() +
                                                " --out " + (dir / mode).string() + " -q");
    ASSERT_EQ(run.code, 0) << mode << ": " << run.text;
    const json result = read_json(dir / mode / "result.json");
    EXPECT_EQ(result["status"], "converged") << mode;
    EXPECT_LE(result["max_violation"].get<double>(), 0.01) << mode;
    // scipy's SLSQP on the same grid (21 points): x y = 1.72665575 at (1.12233, 1.53846).
    EXPECT_NEAR(result["objective"].get<double>(), 1.72665575, 1e-4 * 1.72665575) << mode;
    designs.push_back(result["design"]);
  }
  EXPECT_EQ(designs[0], designs[1]);
}

// The failing code's study (exit 7): the analysis fails (exit 3), and its run directory is
// kept inside the output folder, nothing in the current folder.
TEST(CliModel, FailedExternalRunsStayInsideTheOutputFolder) {
  const fs::path dir = scratch();
  fs::copy_file(fs::path(SAO_SOURCE_DIR) / "tests/data/failing-code/study.json",
                dir / "study.json");
  fs::copy_file(fs::path(SAO_SOURCE_DIR) / "tests/data/failing-code/input.tpl", dir / "input.tpl");
  const std::string in = "cd " + dir.string() + " && " + kSao + " ";
  const CommandOutput run = run_command(in + "run study.json --out out 2>&1");
  EXPECT_EQ(run.code, 3) << run.text;
  EXPECT_FALSE(fs::exists(dir / "sao-runs")) << "runs written outside the output folder";
  ASSERT_TRUE(fs::is_directory(dir / "out" / "sao-runs")) << run.text;
  EXPECT_FALSE(fs::is_empty(dir / "out" / "sao-runs")) << "the failed run was not kept";
  const CommandOutput simulate = run_command(in + "simulate study.json --out sim 2>&1");
  EXPECT_EQ(simulate.code, 3) << simulate.text;
  EXPECT_NE(simulate.text.find("the analysis failed"), std::string::npos) << simulate.text;
  EXPECT_TRUE(fs::is_directory(dir / "sim" / "sao-runs"));
  EXPECT_FALSE(fs::exists(dir / "sao-runs"));
  // A run directory the study names keeps working.
  const CommandOutput named =
      run_command(in + "run study.json --out named --set simulator.run_directory=mine 2>&1");
  EXPECT_EQ(named.code, 3) << named.text;
  EXPECT_TRUE(fs::is_directory(dir / "mine"));
  EXPECT_FALSE(fs::exists(dir / "named" / "sao-runs"));
  // evaluate and check-gradient have no output folder: a temporary folder ($TMPDIR) keeps the
  // failed run, and the message names it; with --out, DIR/sao-runs does.
  fs::create_directories(dir / "tmp");
  const std::string tmp =
      "cd " + dir.string() + " && TMPDIR=" + (dir / "tmp").string() + " " + kSao + " ";
  for (const std::string command : {"evaluate", "check-gradient"}) {
    const CommandOutput analysed = run_command(tmp + command + " study.json 2>&1");
    EXPECT_EQ(analysed.code, 3) << command << ": " << analysed.text;
    EXPECT_NE(analysed.text.find((dir / "tmp" / ("sao-" + command + "-")).string()),
              std::string::npos)
        << command << ": the kept run's folder is not named: " << analysed.text;
    EXPECT_FALSE(fs::exists(dir / "sao-runs")) << command << " wrote in the current folder";
    const CommandOutput kept = run_command(tmp + command + " study.json --out " + command);
    EXPECT_EQ(kept.code, 3) << command;
    EXPECT_FALSE(fs::is_empty(dir / command / "sao-runs")) << command;
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "tmp"), fs::directory_iterator()), 2)
      << "one temporary folder per command without --out";
}

TEST(CliModel, EvaluateShowsTheStudysResponsesAndEverythingWithAll) {
  const std::string study = kProblems + "impact-absorber/max-acceleration.json";
  auto names = [](const json& doc) {
    std::set<std::string> out;
    for (const json& r : doc["designs"][0]["responses"]) out.insert(r["name"].get<std::string>());
    return out;
  };
  const CommandOutput declared = stdout_of("evaluate " + study + " --json");
  ASSERT_EQ(declared.code, 0) << declared.text;
  EXPECT_EQ(names(json::parse(declared.text)), (std::set<std::string>{"acceleration", "y"}));
  const CommandOutput all = stdout_of("evaluate " + study + " --all --json");
  ASSERT_EQ(all.code, 0) << all.text;
  const std::set<std::string> every = names(json::parse(all.text));
  EXPECT_TRUE(every.count("yddot")) << "the simulator's own name with --all";
  EXPECT_GT(every.size(), 2u);
  const CommandOutput text = stdout_of("evaluate " + study);
  EXPECT_NE(text.text.find("responses (the study's; --all"), std::string::npos) << text.text;
  EXPECT_NE(text.text.find("  acceleration "), std::string::npos) << text.text;
  EXPECT_EQ(text.text.find("  yddot "), std::string::npos) << text.text;
}

// One definition of an active constraint (is_active, 0.1 %): the report's summary lists exactly
// result.json's active set, and --log info names the same constraints.
TEST(CliModel, ReportAndResultJsonAgreeOnTheActiveConstraints) {
  const fs::path dir = scratch() / "run";
  const CommandOutput run =
      sao::testing::sao("run " + kProblems + "suite/three-bar.json --out " + dir.string());
  ASSERT_LE(run.code, 1) << run.text;
  const json result = read_json(dir / "result.json");
  std::set<std::string> in_result;
  for (const json& name : result["active_set"]) in_result.insert(name.get<std::string>());
  ASSERT_FALSE(in_result.empty()) << result.dump(2);
  ASSERT_EQ(sao::testing::sao("report " + dir.string()).code, 0);
  std::ifstream in(dir / "report.html");
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t table = html.find("<table class=\"active-constraints\">");
  ASSERT_NE(table, std::string::npos) << "no active constraints in the report";
  const std::string rows = html.substr(table, html.find("</table>", table) - table);
  std::set<std::string> in_report;
  const std::regex row(R"(<tr><td class="name">[^<]*</td><td>([^<]*)</td>)");
  for (std::sregex_iterator it(rows.begin(), rows.end(), row), end; it != end; ++it) {
    in_report.insert((*it)[1].str());
  }
  EXPECT_EQ(in_report, in_result);
  for (const json& c : result["constraints"]) {
    EXPECT_EQ(c["active"].get<bool>(), in_result.count(c["name"].get<std::string>()) == 1);
    EXPECT_EQ(c["active"].get<bool>(), c["normalised"].get<double>() >= -1e-3) << c;
  }
}

}  // namespace
