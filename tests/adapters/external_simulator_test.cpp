// The external-code adapter driven with tests/adapters/programs/fake_code, a program that
// computes f = x^2 + y^2, g = x y and the history x sin(pi t) + y t, or fails on purpose.
#include "adapters/external_simulator.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <thread>

#include "tests/adapters/process_helpers.hpp"
#include "tests/support.hpp"

namespace sao::adapters {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

using sao::testing::read_file;
using namespace sao::adapters::tree_helpers;  // NOLINT: the helpers of process_helpers.hpp

// The folder of the run named in a failure message ("run directory /...: ").
fs::path run_directory_of(const std::string& message) {
  const std::string key = "run directory ";
  const size_t a = message.find(key);
  if (a == std::string::npos) return {};
  const size_t b = message.find(": ", a);
  return message.substr(a + key.size(), b - a - key.size());
}

class External : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = sao::testing::scratch_directory("adapter-tests");
    std::ofstream(dir_ / "input.tpl") << "x {{x}}\ny {{y}}\n";
  }

  json section(const std::vector<std::string>& mode, const json& extra = json::object()) {
    json command = json::array({SAO_FAKE_CODE});
    for (const auto& m : mode) command.push_back(m);
    json s = {{"type", "external"},
              {"command", command},
              {"run_directory", (dir_ / "runs").string()},
              {"templates", {{{"file", "input.tpl"}, {"target", "input.txt"}}}},
              {"responses",
               {{{"name", "f"},
                 {"kind", "scalar"},
                 {"file", "result.txt"},
                 {"parser", "regex"},
                 {"pattern", "f = (\\S+)"}},
                {{"name", "g"},
                 {"kind", "scalar"},
                 {"file", "result.txt"},
                 {"parser", "cell"},
                 {"line", 2},
                 {"column", 3}},
                {{"name", "h"},
                 {"kind", "history"},
                 {"file", "table.txt"},
                 {"parser", "columns"},
                 {"time", "time"},
                 {"value", "value"}},
                {{"name", "hj"},
                 {"kind", "history"},
                 {"file", "out.json"},
                 {"parser", "json"},
                 {"pointer", "/h"},
                 {"time_pointer", "/t"}}}}};
    s.update(extra);
    return s;
  }

  SimulatorSetup setup(const json& s) {
    SimulatorSetup out;
    out.section = s;
    out.design_names = {"x", "y"};
    LoadCaseSpec lc;
    lc.name = "only";
    lc.grid = TimeGrid(0.0, 1.0, 11);
    out.load_cases = {lc};
    out.study_directory = dir_.string();
    return out;
  }

  std::string construction_error(const json& s) {
    try {
      ExternalSimulator sim(setup(s));
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "no error";
  }

  static EvaluationRequest request(double x, double y, bool gradients = false) {
    EvaluationRequest r;
    r.design = Eigen::Vector2d(x, y);
    if (gradients) r.derivatives = {{0, "f", {}}};
    return r;
  }

  Evaluation evaluate_one(const json& s, const EvaluationRequest& r) {
    ExternalSimulator sim(setup(s));
    return sim.evaluate({r}).front();
  }

  fs::path dir_;
};

TEST_F(External, ComputesScalarsAndHistoriesOnTheStudyGrid) {
  ExternalSimulator sim(setup(section({"ok"})));
  const Evaluation e = sim.evaluate({request(1.5, -0.5)}).front();
  ASSERT_TRUE(e.ok) << e.message;
  EXPECT_EQ(e.cost.runs, 1);
  const CaseResult& c = e.cases.at(0);
  EXPECT_DOUBLE_EQ(c.scalars.at("f"), 2.5);
  EXPECT_DOUBLE_EQ(c.scalars.at("g"), -0.75);
  ASSERT_EQ(c.histories.at("h").size(), 11);
  for (int p = 0; p < 11; ++p) {
    const double t = 0.1 * p;
    EXPECT_NEAR(c.histories.at("h")(p), 1.5 * std::sin(M_PI * t) - 0.5 * t, 1e-12);
    EXPECT_NEAR(c.histories.at("hj")(p), c.histories.at("h")(p), 1e-12);
  }
  // Successful runs leave nothing behind by default.
  EXPECT_FALSE(fs::exists(sim.session_directory()) && !fs::is_empty(sim.session_directory()));
}

// A code that writes CSV (fake_code's history.csv: time,acc,travel), read by "columns" with the
// delimiter detected, with and without a units row (issue 49).
TEST_F(External, ACodeWritingCsvIsReadByColumnsByName) {
  for (const bool units : {false, true}) {
    json command = json::array({SAO_FAKE_CODE});
    if (units) command.push_back("units");
    json acc = {{"name", "acc"},       {"kind", "history"}, {"file", "history.csv"},
                {"parser", "columns"}, {"time", "time"},    {"value", "acc"}};
    if (units) acc["units"] = true;
    json travel = acc;
    travel["name"] = "travel";
    travel["value"] = "travel";
    const json s = {{"type", "external"},
                    {"command", command},
                    {"run_directory", (dir_ / "runs").string()},
                    {"templates", {{{"file", "input.tpl"}, {"target", "input.txt"}}}},
                    {"responses", {acc, travel}}};
    const Evaluation e = evaluate_one(s, request(1.5, -0.5));
    ASSERT_TRUE(e.ok) << e.message;
    const CaseResult& c = e.cases.at(0);
    ASSERT_EQ(c.histories.at("acc").size(), 11);
    for (int p = 0; p < 11; ++p) {
      const double t = 0.1 * p;
      EXPECT_NEAR(c.histories.at("acc")(p), 1.5 * std::sin(M_PI * t) - 0.5 * t, 1e-12) << p;
      EXPECT_NEAR(c.histories.at("travel")(p), -0.75 * t, 1e-12) << p;
    }
  }
}

TEST_F(External, ACodeWritingHdf5IsReadByDatasets) {
  const json acc = {{"name", "acc"},    {"kind", "history"},         {"file", "out.h5"},
                    {"parser", "hdf5"}, {"dataset", "/results/acc"}, {"time_dataset", "/time"}};
  const json f = {{"name", "f"},
                  {"kind", "scalar"},
                  {"file", "out.h5"},
                  {"parser", "hdf5"},
                  {"dataset", "/results/f"}};
  const json s = {{"type", "external"},
                  {"command", json::array({SAO_FAKE_CODE})},
                  {"run_directory", (dir_ / "runs").string()},
                  {"templates", {{{"file", "input.tpl"}, {"target", "input.txt"}}}},
                  {"responses", {acc, f}}};
  const Evaluation e = evaluate_one(s, request(1.5, -0.5));
  ASSERT_TRUE(e.ok) << e.message;
  const CaseResult& c = e.cases.at(0);
  EXPECT_EQ(c.scalars.at("f"), 1.5 * 1.5 + 0.25);
  ASSERT_EQ(c.histories.at("acc").size(), 11);
  for (int p = 0; p < 11; ++p) {
    const double t = 0.1 * p;  // the study's grid; the code's is 0, 0.05, ..., 1
    EXPECT_NEAR(c.histories.at("acc")(p), 1.5 * std::sin(M_PI * t) - 0.5 * t, 1e-12) << p;
  }
}

TEST_F(External, FiniteDifferencesForwardAndCentralAsOneParallelBatch) {
  for (const char* method : {"forward", "central"}) {
    json s = section({"ok"}, {{"workers", 2}, {"gradients", {{"method", method}, {"step", 1e-4}}}});
    ExternalSimulator sim(setup(s));
    const auto out = sim.evaluate({request(1.5, -0.5, true), request(0.5, 2.0, true)});
    for (int r = 0; r < 2; ++r) {
      ASSERT_TRUE(out[r].ok) << out[r].message;
      EXPECT_TRUE(out[r].has_gradients);
      EXPECT_EQ(out[r].cost.runs, std::string(method) == "forward" ? 3 : 5);
    }
    const Eigen::MatrixXd& gf = out[0].cases[0].gradients.at("f");
    const double tol = std::string(method) == "forward" ? 5e-4 : 1e-8;
    EXPECT_NEAR(gf(0, 0), 3.0, tol);  // df/dx = 2x
    EXPECT_NEAR(gf(0, 1), -1.0, tol);
    const Eigen::MatrixXd& gh = out[1].cases[0].gradients.at("h");
    EXPECT_NEAR(gh(5, 0), std::sin(M_PI * 0.5), 1e-8);  // dh/dx = sin(pi t)
    EXPECT_NEAR(gh(5, 1), 0.5, 1e-8);                   // dh/dy = t
  }
}

TEST_F(External, ExplicitRelationsConstantsAndFormatsInTemplates) {
  std::ofstream(dir_ / "input.tpl") << "x {{x2:.6f}}\ny {{y:12.4e}}\nc {{ c :d}}\n";
  json s = section({"ok"}, {{"keep", "all"},
                            {"values", {{"x2", "2*x + offset"}}},
                            {"constants", {{"offset", 0.25}, {"c", 7}}}});
  ExternalSimulator sim(setup(s));
  const Evaluation e = sim.evaluate({request(1.0, 3.0)}).front();
  ASSERT_TRUE(e.ok) << e.message;
  EXPECT_DOUBLE_EQ(e.cases[0].scalars.at("f"), 2.25 * 2.25 + 9.0);
  // "keep": "all" keeps the run directory; the input file is what the code read.
  const fs::path run = sim.session_directory() / "000001-case0";
  EXPECT_EQ(read_file(run / "input.txt"), "x 2.250000\ny   3.0000e+00\nc 7\n");
  EXPECT_THAT(read_file(run / "stdout.txt"), HasSubstr("fake_code: done"));
}

TEST_F(External, TemplatesPerLoadCaseWithLoadCaseParameters) {
  // Case "a" writes x scaled by its parameter; case "b" has its own deck with y shifted.
  std::ofstream(dir_ / "a.tpl") << "x {{x}}\ny {{scale}}\n";
  std::ofstream(dir_ / "b.tpl") << "x {{x}}\ny {{yb}}\n";
  json s =
      section({"ok"}, {{"values", {{"yb", "y + 10"}}},
                       {"templates",
                        {{{"file", "a.tpl"}, {"target", "input.txt"}, {"load_cases", {"a"}}},
                         {{"file", "b.tpl"}, {"target", "input.txt"}, {"load_cases", {"b"}}}}}});
  SimulatorSetup two = setup(s);
  two.load_cases[0].name = "a";
  two.load_cases[0].parameters = {{"scale", 3.0}};
  LoadCaseSpec b = two.load_cases[0];
  b.name = "b";
  b.parameters.clear();
  two.load_cases.push_back(b);
  ExternalSimulator sim(two);
  const Evaluation e = sim.evaluate({request(1.0, 2.0, true)}).front();
  ASSERT_TRUE(e.ok) << e.message;
  ASSERT_EQ(e.cases.size(), 2u);
  EXPECT_DOUBLE_EQ(e.cases[0].scalars.at("f"), 1.0 + 9.0);    // y = scale
  EXPECT_DOUBLE_EQ(e.cases[1].scalars.at("f"), 1.0 + 144.0);  // y = 2 + 10
  EXPECT_EQ(e.cost.runs, 2 * 3);
  // d f / d y: 0 in case a (y reaches no template there), 2 (y + 10) = 24 in case b.
  EXPECT_EQ(e.cases[0].gradients.at("f")(0, 1), 0.0);
  EXPECT_NEAR(e.cases[1].gradients.at("f")(0, 1), 24.0, 1e-2);
  // A placeholder that is a parameter of one case only is unknown in the other.
  s["templates"][1]["file"] = "a.tpl";
  SimulatorSetup broken = two;
  broken.section = s;
  EXPECT_THROW(
      {
        try {
          ExternalSimulator bad(broken);
        } catch (const std::invalid_argument& e) {
          EXPECT_THAT(e.what(), HasSubstr("simulator.templates[1].file: a.tpl:2:3: unknown "
                                          "placeholder \"scale\" in load case \"b\""));
          throw;
        }
      },
      std::invalid_argument);
}

TEST_F(External, EnvironmentAndSupportFiles) {
  std::ofstream(dir_ / "mesh.dat") << "nodes\n";
  json s = section(
      {"env"}, {{"keep", "all"},
                {"environment", {{"SAO_TEST_VAR", "hello world"}}},
                {"support_files", {"mesh.dat", {{"file", "mesh.dat"}, {"target", "sub/m.dat"}}}}});
  ExternalSimulator sim(setup(s));
  ASSERT_TRUE(sim.evaluate({request(1, 1)}).front().ok);
  const fs::path run = sim.session_directory() / "000001-case0";
  EXPECT_EQ(read_file(run / "env.txt"), "hello world\n");
  EXPECT_EQ(read_file(run / "mesh.dat"), "nodes\n");
  EXPECT_EQ(read_file(run / "sub/m.dat"), "nodes\n");
}

// A study store keys analyses by the simulator inputs: for an external code these include the
// template and support files, so an edited template does not re-use analyses of the old one.
TEST_F(External, FingerprintFollowsTheInputFiles) {
  std::ofstream(dir_ / "mesh.dat") << "nodes\n";
  const json s = section({"ok"}, {{"support_files", {"mesh.dat"}}});
  const std::string before = ExternalSimulator(setup(s)).fingerprint();
  EXPECT_EQ(ExternalSimulator(setup(s)).fingerprint(), before);
  std::ofstream(dir_ / "input.tpl") << "x {{x}}\ny {{y}}\n# edited\n";
  const std::string edited = ExternalSimulator(setup(s)).fingerprint();
  EXPECT_NE(edited, before);
  std::ofstream(dir_ / "mesh.dat") << "other nodes\n";
  EXPECT_NE(ExternalSimulator(setup(s)).fingerprint(), edited);
}

// --- failures: a value with a message naming the directory; the directory is kept --------

struct FailureCase {
  std::vector<std::string> mode;
  std::vector<std::string> expected;  // substrings of the message
};

TEST_F(External, EveryFailureIsAValueNamingTheRunDirectory) {
  const std::vector<FailureCase> cases = {
      {{"crash"}, {"fake_code: killed by signal 6"}},
      {{"exit3"}, {"fake_code: exit status 3; stderr ends: fatal: bad input card 7"}},
      {{"garbage"}, {"response \"f\": file result.txt, line 1: \"1.2.3x\" is not a number"}},
      {{"missing"}, {"response \"f\": file result.txt: missing (not written by the code)"}},
      {{"nan"}, {"response \"f\": file result.txt, line 1: \"nan\" is not finite"}},
      {{"partial"},
       {"response \"h\": file table.txt, line 13: short history: the file covers t "
        "in [0, 0.5] (11 values), the study grid needs [0, 1]"}},
  };
  for (const FailureCase& c : cases) {
    SCOPED_TRACE(c.mode[0]);
    const Evaluation e = evaluate_one(section(c.mode), request(1.0, 2.0));
    EXPECT_FALSE(e.ok);
    for (const auto& m : c.expected) EXPECT_THAT(e.message, HasSubstr(m));
    EXPECT_THAT(e.message, HasSubstr("load case \"only\", design (x = 1, y = 2), run directory "));
    const fs::path run = run_directory_of(e.message);
    ASSERT_FALSE(run.empty()) << e.message;
    EXPECT_TRUE(fs::exists(run / "input.txt")) << "kept for inspection: " << run;
    EXPECT_TRUE(fs::exists(run / "stderr.txt"));
  }
}

TEST_F(External, AHangingCodeIsKilledWithEverythingItStarted) {
  const auto start = std::chrono::steady_clock::now();
  const Evaluation e = evaluate_one(section({"hang"}, {{"timeout", 0.5}}), request(1, 1));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(e.ok);
  EXPECT_THAT(e.message, HasSubstr("fake_code: timed out after 0.5"));
  EXPECT_THAT(e.message, HasSubstr("(process tree killed)"));
  EXPECT_LT(seconds, 10.0);
  // The grandchild (a process the code started) is gone too.
  const fs::path run = run_directory_of(e.message);
  std::ifstream pid_file(run / "child.pid");
  pid_t child = 0;
  ASSERT_TRUE(pid_file >> child);
  bool alive = true;
  for (int i = 0; i < 100 && alive; ++i) {
    const std::string stat = read_file("/proc/" + std::to_string(child) + "/stat");
    // Gone, or a zombie waiting for a parent that does not reap (as PID 1 of some containers).
    alive = !stat.empty() && stat.find(") Z") == std::string::npos;
    if (alive) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(alive) << "process " << child << " survived the time-out";
}

// Issue 18: a token of 30 000+ characters crashed std::regex (SIGSEGV) in a worker thread.
TEST_F(External, ATokenOfFortyThousandCharactersIsReadInAWorkerThread) {
  ExternalSimulator sim(setup(section({"long_token"}, {{"workers", 2}})));
  const auto out = sim.evaluate({request(1.0, 2.0), request(2.0, 2.0)});
  ASSERT_TRUE(out[0].ok) << out[0].message;
  ASSERT_TRUE(out[1].ok) << out[1].message;
  EXPECT_DOUBLE_EQ(out[0].cases[0].scalars.at("f"), 5.0);
  EXPECT_DOUBLE_EQ(out[1].cases[0].scalars.at("f"), 8.0);
}

TEST_F(External, OneFailedDesignLosesNothingElseOfTheBatch) {
  ExternalSimulator sim(setup(section({"fail_above", "2"}, {{"workers", 2}})));
  const auto out = sim.evaluate({request(1.0, 0.0), request(3.0, 0.0), request(1.5, 1.0)});
  EXPECT_TRUE(out[0].ok);
  EXPECT_FALSE(out[1].ok);
  EXPECT_TRUE(out[2].ok);
  EXPECT_DOUBLE_EQ(out[0].cases[0].scalars.at("f"), 1.0);
  EXPECT_DOUBLE_EQ(out[2].cases[0].scalars.at("f"), 3.25);
  EXPECT_THAT(out[1].message, HasSubstr("exit status 2; stderr ends: diverged: x = 3 is above 2"));
}

TEST_F(External, AFailedPerturbationIsRetriedWithHalfTheStep) {
  // x = 1 with p = 1e-3: h = 2e-3 and 1e-3 cross the code's limit 1.0007, h/4 = 5e-4 does not.
  json s = section({"fail_above", "1.0007"}, {{"gradients", {{"step", 1e-3}, {"retries", 2}}}});
  const Evaluation e = evaluate_one(s, request(1.0, 0.0, true));
  ASSERT_TRUE(e.ok) << e.message;
  EXPECT_EQ(e.cost.runs, 1 + 3 + 1);
  EXPECT_NEAR(e.cases[0].gradients.at("f")(0, 0), 2.0 + 5e-4, 1e-9);  // (f(1 + h/4) - f(1))/(h/4)
  s["gradients"]["retries"] = 1;
  const Evaluation failed = evaluate_one(s, request(1.0, 0.0, true));
  EXPECT_FALSE(failed.ok);
  EXPECT_THAT(failed.message, HasSubstr("(finite-difference run, x perturbed by 0.002)"));
  EXPECT_THAT(failed.message, HasSubstr("(and 1 retries with halved steps failed too)"));
  EXPECT_EQ(failed.cost.runs, 1 + 2 + 1);
}

TEST_F(External, APerturbationTheFormatCannotShowIsAnErrorNotAZeroDerivative) {
  // x written with 3 decimals, step (1 + 1) 1e-4 = 2e-4: the input file would not change.
  std::ofstream(dir_ / "input.tpl") << "x {{x:.3f}}\ny {{y}}\n";
  json s = section({"ok"}, {{"gradients", {{"step", 1e-4}}}});
  const Evaluation e = evaluate_one(s, request(1.0, 0.5, true));
  EXPECT_FALSE(e.ok);
  EXPECT_THAT(e.message, HasSubstr("(finite-difference run, x perturbed by 0.0002): the "
                                   "perturbation does not change the input files"));
  s["gradients"]["step"] = 1e-2;  // 0.02 shows with 3 decimals
  const Evaluation fine = evaluate_one(s, request(1.0, 0.5, true));
  ASSERT_TRUE(fine.ok) << fine.message;
  EXPECT_NEAR(fine.cases[0].gradients.at("f")(0, 0), 2.02, 1e-9);
}

TEST_F(External, AValueThatDoesNotFitItsFieldFailsThatRunOnly) {
  std::ofstream(dir_ / "input.tpl") << "x {{x:6.3f}}\ny {{y}}\n";
  ExternalSimulator sim(setup(section({"ok"})));
  const auto out = sim.evaluate({request(1.0, 0.0), request(123.0, 0.0)});
  EXPECT_TRUE(out[0].ok);
  ASSERT_FALSE(out[1].ok);
  EXPECT_THAT(out[1].message,
              HasSubstr("input.tpl:1:3: placeholder \"x\": value 123.000 is wider than its field "
                        "of 6 characters"));
}

// --- nothing reaches a shell -----------------------------------------------------------------

TEST_F(External, ArgumentsWithShellMetacharactersAreInert) {
  const std::vector<std::string> nasty = {
      "args", "; touch pwned1", "$(touch pwned2)", "`touch pwned3`", "a && touch pwned4", "../../x",
      "*"};
  ExternalSimulator sim(setup(section(nasty, {{"keep", "all"}})));
  ASSERT_TRUE(sim.evaluate({request(1, 1)}).front().ok);
  const fs::path run = sim.session_directory() / "000001-case0";
  std::string expected;
  for (const auto& a : nasty) expected += a + "\n";
  EXPECT_EQ(read_file(run / "args.txt"), expected);  // passed verbatim, one argument each
  for (const auto& p : fs::recursive_directory_iterator(dir_)) {
    EXPECT_THAT(p.path().filename().string(), Not(HasSubstr("pwned")));
  }
}

TEST_F(External, NamesAndPathsThatCouldEscapeAreRejected) {
  EXPECT_THAT(construction_error(section({"ok"}, {{"values", {{"a;rm -rf", "x"}}}})),
              HasSubstr("simulator.values.a;rm -rf: expected a name"));
  EXPECT_THAT(construction_error(section({"ok"}, {{"constants", {{"$(id)", 1}}}})),
              HasSubstr("simulator.constants.$(id): expected a name"));
  EXPECT_THAT(
      construction_error(
          section({"ok"}, {{"templates", {{{"file", "input.tpl"}, {"target", "../input.txt"}}}}})),
      HasSubstr(
          "simulator.templates[0].target: expected a relative path inside the run directory"));
  EXPECT_THAT(
      construction_error(section(
          {"ok"}, {{"templates", {{{"file", "input.tpl"}, {"target", "/tmp/input.txt"}}}}})),
      HasSubstr("simulator.templates[0].target: expected a relative path"));
  std::ofstream(dir_ / "s.dat") << "x";
  EXPECT_THAT(construction_error(section(
                  {"ok"}, {{"support_files", {{{"file", "s.dat"}, {"target", "a/../../s.dat"}}}}})),
              HasSubstr("simulator.support_files[0].target: expected a relative path"));
  EXPECT_THAT(construction_error(section({"ok"}, {{"environment", {{"A=B; x", "1"}}}})),
              HasSubstr("simulator.environment.A=B; x: not a variable name"));
  // A load case named like a path: run directories are numbered, so the name is inert.
  SimulatorSetup odd = setup(section({"ok"}, {{"keep", "all"}}));
  odd.load_cases[0].name = "../../escaped";
  ExternalSimulator sim(odd);
  ASSERT_TRUE(sim.evaluate({request(1, 1)}).front().ok);
  EXPECT_TRUE(fs::exists(sim.session_directory() / "000001-case0" / "input.txt"));
  EXPECT_FALSE(fs::exists(dir_.parent_path() / "escaped"));
}

TEST_F(External, AShellOnlyWhenTheStudyAsksAndThenWithoutValues) {
  EXPECT_THAT(construction_error(section({"ok"}, {{"shell", true}})),
              HasSubstr("simulator.command: with \"shell\": true, expected one command line"));
  json s = section({}, {{"shell", true}});
  s["command"] = std::string("'") + SAO_FAKE_CODE + "' ok > shell.txt";
  const Evaluation e = evaluate_one(s, request(2, 0));
  ASSERT_TRUE(e.ok) << e.message;
  EXPECT_DOUBLE_EQ(e.cases[0].scalars.at("f"), 4.0);
}

// Issue 18: a template written over stdout.txt, or a support file over a template, meant that
// the design never reached the code (it "converged in 1 cycle"). Now an error naming both.
TEST_F(External, TargetsThatCollideWithTheCaptureFilesOrEachOtherAreErrors) {
  std::ofstream(dir_ / "s.dat") << "x";
  EXPECT_THAT(
      construction_error(
          section({"ok"}, {{"templates", {{{"file", "input.tpl"}, {"target", "stdout.txt"}}}}})),
      HasSubstr("simulator.templates[0]: target \"stdout.txt\" is also written by the code's "
                "stdout"));
  EXPECT_THAT(construction_error(section(
                  {"ok"}, {{"support_files", {{{"file", "s.dat"}, {"target", "stderr.txt"}}}}})),
              HasSubstr("simulator.support_files[0]: target \"stderr.txt\" is also written by the "
                        "code's stderr"));
  EXPECT_THAT(construction_error(section(
                  {"ok"}, {{"support_files", {{{"file", "s.dat"}, {"target", "input.txt"}}}}})),
              HasSubstr("simulator.support_files[0]: target \"input.txt\" is also written by "
                        "simulator.templates[0]"));
  EXPECT_THAT(construction_error(section({"ok"}, {{"support_files", {"s.dat", "s.dat"}}})),
              HasSubstr("simulator.support_files[1]: target \"s.dat\" is also written by "
                        "simulator.support_files[0]"));
  EXPECT_THAT(
      construction_error(section({"ok"}, {{"support_files",
                                           {{{"file", "s.dat"}, {"target", "sub//s.dat"}},
                                            "s.dat",
                                            {{"file", "s.dat"}, {"target", "sub/s.dat"}}}}})),
      HasSubstr("simulator.support_files[2]: target \"sub/s.dat\" is also written by "
                "simulator.support_files[0]"));
}

// Issue 18: a support file that is not UTF-8 text (a binary) aborted the run before any
// analysis: the fingerprint of the input files, hashed by the store as JSON text, held its raw
// bytes ("invalid UTF-8 byte", an uncaught type_error). It is copied as bytes and fingerprinted.
TEST_F(External, ABinarySupportFileIsCopiedAsBytes) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(255 - i));
  std::ofstream(dir_ / "code.bin", std::ios::binary) << bytes;
  const json s = section({"ok"}, {{"keep", "all"}, {"support_files", {"code.bin"}}});
  ExternalSimulator sim(setup(s));
  const std::string fingerprint = sim.fingerprint();
  EXPECT_NO_THROW((void)json(fingerprint).dump());  // as simulator_inputs_hash uses it
  ASSERT_TRUE(sim.evaluate({request(1, 1)}).front().ok);
  EXPECT_EQ(read_file(sim.session_directory() / "000001-case0" / "code.bin"), bytes);
  bytes[7] = 'x';
  std::ofstream(dir_ / "code.bin", std::ios::binary) << bytes;
  EXPECT_NE(ExternalSimulator(setup(s)).fingerprint(), fingerprint);
}

// --- process trees (process_tree.hpp): setsid() children, leftovers of a killed sao ---------

TEST_F(External, ACodesChildThatCalledSetsidIsKilledWhenTheRunSucceeds) {
  ExternalSimulator sim(setup(section({"setsid"}, {{"keep", "all"}})));
  const Evaluation e = sim.evaluate({request(1, 2)}).front();
  ASSERT_TRUE(e.ok) << e.message;
  const pid_t escaped = pid_in(sim.session_directory() / "000001-case0" / "setsid.pid");
  ASSERT_GT(escaped, 0);
  // Killed by its cookie, re-parented to this process (a subreaper) and reaped: no zombie.
  EXPECT_TRUE(gone(escaped)) << "process " << escaped << " survived the run";
}

TEST_F(External, ACodesChildThatCalledSetsidIsKilledOnATimeOut) {
  ExternalSimulator sim(setup(
      section({"setsid"},
              {{"keep", "all"}, {"timeout", 0.5}, {"environment", {{"SAO_FAKE_SLEEP", "30"}}}})));
  const auto start = std::chrono::steady_clock::now();
  const Evaluation e = sim.evaluate({request(1, 2)}).front();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_FALSE(e.ok);
  EXPECT_THAT(e.message, HasSubstr("timed out after 0.5"));
  const pid_t escaped = pid_in(sim.session_directory() / "000001-case0" / "setsid.pid");
  ASSERT_GT(escaped, 0);
  EXPECT_TRUE(gone(escaped)) << "process " << escaped << " survived the time-out";
}

// A `sao` killed by SIGKILL leaves the processes its code started; the next run series under
// the same run directory finds them (their owner is dead) and kills them before it runs.
TEST_F(External, LeftoversOfAKilledSaoAreKilledBeforeTheNextRuns) {
  const fs::path runs = dir_ / "runs";
  fs::create_directories(runs / "20260101-000000-1");
  fs::create_directories(runs / "20260101-000000-2");
  std::ofstream(runs / "20260101-000000-1.owner") << "999999999 12345\n";     // dead
  std::ofstream(runs / "20260101-000000-2.owner") << owner_marker() << "\n";  // alive (this)
  const pid_t orphan = start_marked_sleeper((runs / "20260101-000000-1" / "000003-case0").string());
  const pid_t unmarked =
      start_marked_sleeper((runs / "20260101-000000-3" / "000001-case0").string());
  const pid_t owned = start_marked_sleeper((runs / "20260101-000000-2" / "000001-case0").string());
  ASSERT_TRUE(orphan > 0 && unmarked > 0 && owned > 0);
  EXPECT_FALSE(owner_alive("999999999 12345"));
  EXPECT_TRUE(owner_alive(owner_marker()));

  ExternalSimulator sim(setup(section({"ok"})));
  EXPECT_TRUE(sim.evaluate({request(1, 2)}).front().ok);
  EXPECT_TRUE(gone(orphan)) << "the leftover of a dead owner survived";
  EXPECT_TRUE(gone(unmarked)) << "a leftover without an owner marker survived";
  EXPECT_TRUE(exists(owned)) << "a run of a live sao was killed";
  ::kill(owned, SIGKILL);
  ::waitpid(owned, nullptr, 0);
  // The new session names its owner while it lives.
  const std::string marker = sao::testing::read_file(sim.session_directory().string() + ".owner");
  EXPECT_EQ(marker, owner_marker() + "\n");
}

// --- trust (docs/trust.md): where a study may read and write, what the code inherits --------

TEST_F(External, ARunDirectoryOutsideTheStudyFolderNeedsTheOptIn) {
  // Outside the study's folder and the current folder (the source tree or the build folder).
  const fs::path outside =
      fs::temp_directory_path() / ("sao-outside-runs-" + std::to_string(::getpid()));
  fs::remove_all(outside);
  EXPECT_THAT(construction_error(section({"ok"}, {{"run_directory", outside.string()}})),
              HasSubstr("simulator.run_directory: \"" + outside.string() +
                        "\" lies outside the study's folder"));
  const std::string climbing =
      fs::relative(fs::path("/") / "sao-nowhere", fs::current_path()).string();  // ../../..
  EXPECT_THAT(construction_error(section({"ok"}, {{"run_directory", climbing}})),
              HasSubstr("set \"allow_outside_run_directory\": true"));
  // Inside the study's folder (absolute or not) and plain relative names need nothing.
  EXPECT_EQ(construction_error(section({"ok"}, {{"run_directory", (dir_ / "a/../b").string()}})),
            "no error");
  EXPECT_EQ(construction_error(section({"ok"}, {{"run_directory", "sao-runs"}})), "no error");
  const Evaluation e = evaluate_one(section({"ok"}, {{"run_directory", outside.string()},
                                                     {"allow_outside_run_directory", true},
                                                     {"keep", "all"}}),
                                    request(1, 1));
  EXPECT_TRUE(e.ok) << e.message;
  EXPECT_TRUE(fs::exists(outside));
  fs::remove_all(outside);
}

TEST_F(External, InputFilesOutsideTheStudyFolderNeedTheOptIn) {
  const fs::path outside = dir_.parent_path() / (dir_.filename().string() + "-outside.dat");
  std::ofstream(outside) << "secret\n";
  fs::create_symlink(outside, dir_ / "link.dat");
  for (const std::string& file :
       {outside.string(), "../" + outside.filename().string(), std::string("link.dat")}) {
    SCOPED_TRACE(file);
    EXPECT_THAT(construction_error(section({"ok"}, {{"support_files", {file}}})),
                HasSubstr("simulator.support_files[0]: \""));
    EXPECT_THAT(construction_error(section({"ok"}, {{"support_files", {file}}})),
                HasSubstr("lies outside the study's folder"));
  }
  EXPECT_THAT(
      construction_error(section({"ok"}, {{"templates",
                                           {{{"file", outside.string()}, {"target", "a.txt"}},
                                            {{"file", "input.tpl"}, {"target", "input.txt"}}}}})),
      HasSubstr("simulator.templates[0].file: \"" + outside.string() +
                "\" lies outside the study's folder"));
  const json allowed =
      section({"ok"}, {{"support_files", {"link.dat"}}, {"allow_outside_input_files", true}});
  EXPECT_EQ(construction_error(allowed), "no error");
  EXPECT_TRUE(evaluate_one(allowed, request(1, 1)).ok);
  fs::remove(outside);
}

TEST_F(External, AnEnvironmentAllowlistPassesOnlyTheNamedVariables) {
  ::setenv("SAO_TEST_VAR", "from sao", 1);
  json s = section({"env"}, {{"keep", "all"}, {"environment_allowlist", {"PATH"}}});
  ExternalSimulator sim(setup(s));
  ASSERT_TRUE(sim.evaluate({request(1, 1)}).front().ok);
  EXPECT_EQ(read_file(sim.session_directory() / "000001-case0" / "env.txt"), "(unset)\n");
  s["environment_allowlist"] = {"PATH", "SAO_TEST_VAR"};
  ExternalSimulator listed(setup(s));
  ASSERT_TRUE(listed.evaluate({request(1, 1)}).front().ok);
  EXPECT_EQ(read_file(listed.session_directory() / "000001-case0" / "env.txt"), "from sao\n");
  ::unsetenv("SAO_TEST_VAR");
  EXPECT_THAT(construction_error(section({"ok"}, {{"environment_allowlist", {"A B"}}})),
              HasSubstr("simulator.environment_allowlist[0]: expected a variable name"));
  EXPECT_THAT(construction_error(section(
                  {"ok"}, {{"environment_allowlist", {"PATH"}}, {"inherit_environment", false}})),
              HasSubstr("simulator.environment_allowlist: with \"inherit_environment\": false"));
}

// --- the section is checked before any run ---------------------------------------------------

TEST_F(External, SectionErrorsNameTheirJsonPath) {
  EXPECT_THAT(construction_error(section({"ok"}, {{"workrs", 2}})),
              HasSubstr("simulator.workrs: unknown key"));
  EXPECT_THAT(construction_error(section({"ok"}, {{"templates", {{{"fiel", "input.tpl"}}}}})),
              HasSubstr("simulator.templates[0].fiel: unknown key"));
  EXPECT_THAT(construction_error(section({"ok"}, {{"templates", {{{"file", "nope.tpl"}}}}})),
              HasSubstr("simulator.templates[0].file: cannot read"));
  json s = section({"ok"});
  s["command"] = json::array({"no-such-program-sao"});
  EXPECT_THAT(
      construction_error(s),
      HasSubstr("simulator.command[0]: no executable \"no-such-program-sao\" (searched in PATH)"));
  EXPECT_THAT(construction_error(section({"ok"}, {{"gradients", {{"method", "adjoint"}}}})),
              HasSubstr("simulator.gradients.method: expected \"forward\" or \"central\""));
  EXPECT_THAT(construction_error(section({"ok"}, {{"keep", "some"}})), HasSubstr("simulator.keep"));
  EXPECT_THAT(construction_error(section({"ok"}, {{"workers", -1}})),
              HasSubstr("simulator.workers: expected an integer >= 0, got -1"));
  EXPECT_EQ(construction_error(json::array()), "simulator: expected an object, got an array");
  // "workers": 0 is one run per core, as for the internal simulator.
  EXPECT_EQ(ExternalSimulator(setup(section({"ok"}, {{"workers", 0}}))).settings().workers, 0);
}

TEST_F(External, EveryProblemOfTheSectionIsReportedAtOnce) {
  json s = section({"ok"}, {{"workrs", 2}, {"timeout", -1}});
  s.erase("command");
  try {
    ExternalSimulator sim(setup(s));
    FAIL() << "no error";
  } catch (const SectionError& e) {
    ASSERT_EQ(e.problems().size(), 3u) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("simulator.command: missing: the program and its arguments"));
    EXPECT_THAT(e.what(), HasSubstr("simulator.timeout: expected a number >= 0, got -1"));
    EXPECT_THAT(e.what(), HasSubstr("simulator.workrs: unknown key (known: "));
    EXPECT_EQ(std::string(e.what()),
              e.problems()[0] + "\n" + e.problems()[1] + "\n" + e.problems()[2]);
  }
  // Problems in nested entries (a template, a response) join those of the section.
  s = section({"ok"}, {{"templates", {{{"file", "nope.tpl"}}}}, {"exit_codes", {0, 300}}});
  s["responses"][1]["line"] = 0;
  try {
    ExternalSimulator sim(setup(s));
    FAIL() << "no error";
  } catch (const SectionError& e) {
    ASSERT_EQ(e.problems().size(), 3u) << e.what();
    EXPECT_THAT(e.problems()[0], HasSubstr("simulator.exit_codes[1]: expected an integer in "
                                           "[0, 255], got 300"));
    EXPECT_THAT(e.problems()[1], HasSubstr("simulator.templates[0].file: cannot read"));
    EXPECT_EQ(e.problems()[2], "simulator.responses[1].line: expected a non-zero integer, got 0");
  }
  // A problem is not followed by the ones it causes: a value naming a bad constant is not
  // reported as unbindable, and neither is unused.
  s = section({"ok"}, {{"constants", {{"c", "abc"}}}, {"values", {{"x2", "x*c"}}}});
  try {
    ExternalSimulator sim(setup(s));
    FAIL() << "no error";
  } catch (const SectionError& e) {
    EXPECT_EQ(e.what(), std::string("simulator.constants.c: expected a number, got \"abc\""));
  }
}

TEST_F(External, UnknownAndUnusedPlaceholdersAreErrorsBeforeAnyRun) {
  std::ofstream(dir_ / "input.tpl") << "x {{x}}\ny {{y}}\nz {{zz}}\n";
  EXPECT_THAT(construction_error(section({"ok"})),
              HasSubstr("simulator.templates[0].file: input.tpl:3:3: unknown placeholder \"zz\" "
                        "in load case \"only\" (known: x, y)"));
  std::ofstream(dir_ / "input.tpl") << "x {{x}}\ny {{y}}\n";
  EXPECT_THAT(construction_error(section({"ok"}, {{"values", {{"area", "x*y"}}}})),
              HasSubstr("simulator.values.area: not used by any template"));
  EXPECT_THAT(construction_error(section({"ok"}, {{"constants", {{"E", 2e11}}}})),
              HasSubstr("simulator.constants.E: not used by any template"));
  EXPECT_THAT(construction_error(section({"ok"}, {{"values", {{"area", "x*"}}}})),
              HasSubstr("simulator.values.area: column"));
  EXPECT_FALSE(fs::exists(dir_ / "runs"));  // nothing ran
}

TEST_F(External, MalformedRequestsAreCallerErrors) {
  ExternalSimulator sim(setup(section({"ok"})));
  EvaluationRequest r;
  r.design = Eigen::Vector3d(1, 2, 3);
  EXPECT_THROW(sim.evaluate({r}), std::invalid_argument);
  r = request(1, 1);
  r.derivatives = {{0, "nope", {}}};
  EXPECT_THROW(sim.evaluate({r}), std::invalid_argument);
}

}  // namespace
}  // namespace sao::adapters
