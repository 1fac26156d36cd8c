// The command line as an engineer uses it (issue 26, items 1, 4, 5, 6 and 9): design variable
// bounds set between cycles and `sao set --undo`, a killed run told from a running one, a store
// path given to `sao run`, quiet output when piped and the cycles in words at --log info, output
// folders that cannot collide, no empty run directory left behind, --json on every command
// (parsed here), result.json's version, design order and active set, `sao export`, the
// check-gradient step hint and constants as bounds.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "tests/e2e/store_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace sao::testing;
using sao::testing::sao;
using json = nlohmann::json;

const std::string kAbsorber = kProblems + "impact-absorber/max-acceleration.json";

fs::path scratch(const std::string& name = {}) {
  return scratch_directory("test-cli-engineer", name);
}

// `sao ARGS` with stdout only (stderr dropped): the output and the exit code.
CommandOutput stdout_of(const std::string& args) {
  return run_command(kSao + " " + args + " 2>/dev/null");
}

// `sao ARGS --json`-style output parsed as one JSON document (a test failure otherwise).
json document_of(const CommandOutput& out) {
  json j = json::parse(out.text, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "not one JSON document:\n" << out.text;
  return j;
}

// Every line of JSON-lines output, parsed.
std::vector<json> lines_of(const CommandOutput& out) {
  std::vector<json> lines;
  std::istringstream in(out.text);
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "not a JSON line: " << line;
    lines.push_back(j);
  }
  return lines;
}

void write_text(const fs::path& file, const std::string& text) {
  std::ofstream(file) << text;
}

// Issue 46: on the studies that ship alternative starts (the truck, the restraint), a bound set
// between cycles is checked against the design the next cycle starts from, not against
// `starts[1].b1 = 0.5`: accepted while that design stays inside, refused naming it otherwise.
TEST(CliEngineer, BoundsBetweenCyclesOnStudiesWithAlternativeStarts) {
  // The restraint study names its crash code without a path: the build folder goes into PATH,
  // as scripts/vehicle-restraint-* do (the commands below inherit it).
  const fs::path build = fs::path(kSao).parent_path();
  ASSERT_TRUE(fs::exists(build / "restraint-sled")) << build;
  const char* path = std::getenv("PATH");
  setenv("PATH", (build.string() + ":" + (path ? path : "")).c_str(), 1);
  const std::vector<std::pair<std::string, std::string>> studies = {
      {"truck", kProblems + "truck-damper/quarter-car.json"},
      {"restraint", kProblems + "vehicle-restraint/two-variables.json"}};
  // b1 of the design the next cycle starts from, as `sao status --json` lists the cycles.
  const auto next_b1 = [](const std::string& d) {
    const json status = document_of(stdout_of("status " + d + " --json"));
    const json& last = status["branches"].back()["cycles"].back();
    return (last["accepted"].get<bool>() ? last["b_opt"] : last["b0"])["b1"].get<double>();
  };
  for (const auto& [name, study] : studies) {
    const std::string d = (scratch(name) / "s").string();
    ASSERT_EQ(sao("step " + d + " --study " + study).code, 0) << name;
    const json variable = json::parse(std::ifstream(study))["design_variables"][0];
    const double lower = variable["lower"], upper = variable["upper"];
    double b1 = next_b1(d);
    // A lower bound between the variable's lower bound and the current b1: taken, although
    // starts[1] lies below it.
    const CommandOutput taken =
        sao("set " + d + " design_variables.b1.lower=" + std::to_string(0.5 * (lower + b1)));
    EXPECT_EQ(taken.code, 0) << name << ": " << taken.text;
    EXPECT_EQ(sao("step " + d).code, 0) << name;
    // One above the design the next cycle starts from: refused, naming that design.
    b1 = next_b1(d);
    const CommandOutput refused =
        sao("set " + d + " design_variables.b1.lower=" + std::to_string(0.5 * (b1 + upper)));
    EXPECT_EQ(refused.code, 2) << name << ": " << refused.text;
    EXPECT_NE(refused.text.find("the design the next cycle starts from ("), std::string::npos)
        << name << ": " << refused.text;
  }
}

TEST(CliEngineer, SetBoundsByNameOrIndexBetweenCyclesValidated) {
  const std::string d = (scratch() / "s").string();
  ASSERT_EQ(sao("step " + d + " --study " + kAbsorber).code, 0);  // cycle 1: b1 1 -> 0.6
  // The current design (b1 = 0.6) must stay inside; lower < upper; only lower and upper.
  const CommandOutput outside = sao("set " + d + " design_variables.0.lower=0.95");
  EXPECT_EQ(outside.code, 2);
  EXPECT_NE(outside.text.find("the design the next cycle starts from (b1=0.6, b2=0.42) has b1 = "
                              "0.6, outside the new bounds"),
            std::string::npos)
      << outside.text;
  const CommandOutput crossed = sao("set " + d +
                                    " design_variables.b2.lower=0.5 "
                                    "design_variables.b2.upper=0.4");
  EXPECT_EQ(crossed.code, 2) << crossed.text;
  const CommandOutput initial = sao("set " + d + " design_variables.b2.initial=0.5");
  EXPECT_EQ(initial.code, 2);
  EXPECT_NE(initial.text.find("only a design variable's bounds"), std::string::npos)
      << initial.text;
  const CommandOutput unknown = sao("set " + d + " design_variables.b9.upper=1");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.text.find("its elements: 0 \"b1\", 1 \"b2\""), std::string::npos)
      << unknown.text;
  // Settings are range-checked too; nothing of a refused set is stored.
  const CommandOutput range = sao("set " + d + " noise=-1 move_limit.b1=2");
  EXPECT_EQ(range.code, 2);
  EXPECT_NE(range.text.find("settings.noise: must be >= 0"), std::string::npos) << range.text;
  EXPECT_EQ(query(fs::path(d) / "study.sqlite", "SELECT COUNT(*) FROM settings_changes"), 0);

  // b1 = 0.6 is outside [.., 0.5]: refused for an upper bound too.
  EXPECT_EQ(sao("set " + d + " design_variables.b1.upper=0.5").code, 2);
  // By index, stored by name.
  const json set = document_of(stdout_of("set " + d + " design_variables.0.upper=0.8 --json"));
  EXPECT_EQ(set["cycle"], 2);
  const json status = document_of(stdout_of("status " + d + " --json"));
  EXPECT_EQ(status["branches"][0]["settings_changes"][0]["assignment"],
            "design_variables.b1.upper=0.8");
}

TEST(CliEngineer, BoundSetBetweenCyclesHoldsInTheNextCycles) {
  const std::string d = (scratch() / "s").string();
  ASSERT_EQ(sao("step " + d + " --study " + kAbsorber).code, 0);  // b1 = 0.6, b2 = 0.42
  ASSERT_EQ(sao("set " + d + " design_variables.b2.upper=0.45").code, 0);
  for (int k = 0; k < 3; ++k) {
    const json step = document_of(stdout_of("step " + d + " --json"));
    if (step.value("event", "") != "cycle") break;
    EXPECT_LE(step["record"]["b_opt"]["b2"].get<double>(), 0.45) << step;
  }
  // The bound is on the optimum's active side: the run stays on it.
  const json last = document_of(stdout_of("status " + d + " --json"))["branches"][0]["cycles"];
  ASSERT_FALSE(last.empty());
  EXPECT_EQ(last.back()["b_opt"]["b2"], 0.45) << last.back();
  // result.json between cycles: the design the next cycle starts from, in study order.
  const json result = read_json(fs::path(d) / "result.json");
  EXPECT_EQ(result["status"], "running");
  EXPECT_EQ(result["design"]["b2"], 0.45) << result;
  EXPECT_EQ(result["cycles"], last.size());
  EXPECT_TRUE(result["active_set"].is_array()) << result;
}

TEST(CliEngineer, SetUndoWithdrawsThePendingChanges) {
  const std::string d = (scratch() / "s").string();
  ASSERT_EQ(sao("step " + d + " --study " + kAbsorber).code, 0);
  ASSERT_EQ(sao("set " + d + " move_limit=0.1 errmax=60").code, 0);
  const CommandOutput text = sao("status " + d);
  EXPECT_NE(text.text.find("set before cycle 2: move_limit=0.1   (pending"), std::string::npos)
      << text.text;
  const json undo = document_of(stdout_of("set --undo " + d + " --json"));
  EXPECT_EQ(undo["cycle"], 2);
  EXPECT_EQ(undo["withdrawn"], json({"move_limit=0.1", "errmax=60"}));
  EXPECT_EQ(query(fs::path(d) / "study.sqlite", "SELECT COUNT(*) FROM settings_changes"), 0);
  const CommandOutput again = sao("set --undo " + d);
  EXPECT_EQ(again.code, 2);
  EXPECT_NE(again.text.find("no change is pending for cycle 2"), std::string::npos) << again.text;
  // A change applied to a cycle is history: not withdrawn.
  ASSERT_EQ(sao("set " + d + " move_limit=0.1").code, 0);
  ASSERT_EQ(sao("step " + d).code, 0);
  EXPECT_EQ(sao("set --undo " + d).code, 2);
  const json status = document_of(stdout_of("status " + d + " --json"));
  EXPECT_EQ(status["branches"][0]["settings_changes"][0]["pending"], false) << status;
}

TEST(CliEngineer, StatusTellsAKilledRunFromARunningOne) {
  const fs::path dir = scratch() / "run";
  // The slower multibody absorber (about two seconds).
  const pid_t pid = spawn_sao({"run", kProblems + "impact-absorber/max-acceleration-multibody.json",
                               "--out", dir.string(), "--set", "load_cases.0.time.points=6001",
                               "--set", "settings.strategy=\"seed\"", "-q"});
  json live;
  for (int i = 0; i < 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!fs::exists(dir / "study.sqlite")) continue;
    const CommandOutput out = stdout_of("status " + dir.string() + " --json");
    if (out.code != 0) continue;
    live = json::parse(out.text, nullptr, false);
    if (live.is_object() && !live["branches"].empty() && live["branches"][0]["live"] == true) {
      break;
    }
  }
  ASSERT_TRUE(live.is_object());
  EXPECT_EQ(live["branches"][0]["status"], "running");
  EXPECT_EQ(live["branches"][0]["live"], true) << live;
  EXPECT_EQ(live["branches"][0]["pid"], pid) << live;
  EXPECT_NE(sao("status " + dir.string()).text.find("running (pid " + std::to_string(pid) + ")"),
            std::string::npos);

  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  const json killed = document_of(stdout_of("status " + dir.string() + " --json"));
  EXPECT_EQ(killed["branches"][0]["status"], "running");  // as stored
  EXPECT_EQ(killed["branches"][0]["live"], false);
  EXPECT_TRUE(killed["branches"][0]["pid"].is_null());
  const CommandOutput text = sao("status " + dir.string());
  EXPECT_NE(text.text.find("stopped: no sao process works on it"), std::string::npos) << text.text;
}

TEST(CliEngineer, RunTakesAStorePathAndResumesBesideIt) {
  const fs::path dir = scratch() / "run";
  ASSERT_EQ(sao("run " + kAbsorber + " --out " + dir.string()).code, 0);
  fs::remove(dir / "result.json");
  const CommandOutput again = sao("run " + (dir / "study.sqlite").string());
  EXPECT_EQ(again.code, 0) << again.text;
  EXPECT_NE(again.text.find("0 simulator runs"), std::string::npos) << again.text;
  EXPECT_TRUE(fs::exists(dir / "result.json"));
  const CommandOutput out = sao("run " + (dir / "study.sqlite").string() + " --out elsewhere");
  EXPECT_EQ(out.code, 2) << out.text;
}

TEST(CliEngineer, QuietWhenPipedAndEachCycleInWordsAtLogInfo) {
  const fs::path dir = scratch();
  const CommandOutput piped = stdout_of("run " + kAbsorber + " --out " + (dir / "a").string());
  ASSERT_EQ(piped.code, 0);
  EXPECT_EQ(piped.text.find("analyses:"), std::string::npos) << piped.text;
  EXPECT_EQ(piped.text.find('\r'), std::string::npos);
  EXPECT_NE(piped.text.find("    1   y"), std::string::npos) << piped.text;  // the cycle rows
  EXPECT_NE(piped.text.find("status     converged"), std::string::npos);
  // On a terminal (script(1) from bsdutils, Debian's essential set, gives it one): the
  // progress is one line rewritten in place, erased before each cycle row.
  const CommandOutput tty =
      run_command("script -qec '" + kSao + " run " + kAbsorber + " --no-store --out " +
                  (dir / "tty").string() + "' /dev/null");
  EXPECT_EQ(tty.code, 0) << tty.text;
  EXPECT_NE(tty.text.find("\r\033[Kanalyses: "), std::string::npos) << tty.text;
  EXPECT_EQ(tty.text.find("\n  analyses:"), std::string::npos) << tty.text;
  EXPECT_NE(tty.text.find("status     converged"), std::string::npos);
  // --progress lines: one line per batch as before.
  const CommandOutput lines = stdout_of("run " + kAbsorber + " --no-store --out " +
                                        (dir / "b").string() + " --progress lines");
  EXPECT_NE(lines.text.find("  analyses: 1 finished, 1 running"), std::string::npos) << lines.text;
  // --log info: what each cycle did, on stderr.
  const CommandOutput info = run_command(kSao + " run " + kAbsorber + " --no-store --out " +
                                         (dir / "c").string() + " --log info 2>&1 >/dev/null");
  EXPECT_TRUE(std::regex_search(
      info.text, std::regex("cycle 1: proposal accepted( \\([^)]*\\))?, F = 0\\.623")))
      << info.text;
  EXPECT_TRUE(std::regex_search(info.text, std::regex("cycle 2: proposal rejected.*move limits "
                                                      "(grown|shrunk) \\(b1 ")))
      << info.text;
  EXPECT_NE(info.text.find("cycle 4: proposal accepted"), std::string::npos) << info.text;
  EXPECT_NE(info.text.find("active constraints: objective:max_acceleration[-], displacement[+]"),
            std::string::npos)
      << info.text;
}

TEST(CliEngineer, OutputFoldersDoNotCollide) {
  const fs::path cwd = scratch();
  const std::string in = "cd " + cwd.string() + " && " + kSao + " ";
  // Two studies named psi.json in different folders get different folders.
  ASSERT_EQ(run_command(in + "run " + kAbsorber + " -q >/dev/null 2>&1").code, 0);
  EXPECT_TRUE(fs::exists(cwd / "out" / "impact-absorber-max-acceleration" / "result.json"));
  // --no-store without --out: another run's results are not overwritten.
  const fs::path result = cwd / "out" / "impact-absorber-max-acceleration" / "result.json";
  const auto before = fs::last_write_time(result);
  const CommandOutput nostore = run_command(in + "run " + kAbsorber + " --no-store 2>&1");
  EXPECT_EQ(nostore.code, 2);
  EXPECT_NE(nostore.text.find("holds another run's results"), std::string::npos) << nostore.text;
  EXPECT_EQ(fs::last_write_time(result), before);
  // A changed study in the same folder: the advice names the folder, a stored cycle and the file.
  const CommandOutput changed =
      run_command(in + "run " + kAbsorber + " --set settings.max_cycles=7 2>&1");
  EXPECT_EQ(changed.code, 2);
  EXPECT_NE(changed.text.find("`sao restart out/impact-absorber-max-acceleration --from-cycle 5 "
                              "--study " +
                              kAbsorber + "`"),
            std::string::npos)
      << changed.text;
  // The restart it advises works.
  EXPECT_EQ(run_command(in +
                        "restart out/impact-absorber-max-acceleration --from-cycle 5 "
                        "--study " +
                        kAbsorber + " >/dev/null 2>&1")
                .code,
            0);
}

TEST(CliEngineer, NoEmptyRunDirectoryLeftBehindByASuccessfulExternalRun) {
  const fs::path dir = scratch();
  json study = read_json(fs::path(SAO_SOURCE_DIR) / "tests/data/failing-code/study.json");
  study["simulator"]["command"] = {
      "sh", "-c",
      "awk '/^x/{x=$2} /^y/{y=$2} END{print \"f = \" (x-1)^2 + (y-1)^2}' input.txt > result.txt"};
  write_text(dir / "study.json", study.dump(2));
  fs::copy_file(fs::path(SAO_SOURCE_DIR) / "tests/data/failing-code/input.tpl", dir / "input.tpl");
  const std::string in = "cd " + dir.string() + " && " + kSao + " ";
  const CommandOutput run = run_command(in + "run study.json --out out 2>&1");
  EXPECT_LE(run.code, 1) << run.text;  // converged or the cycle limit: the analyses succeeded
  EXPECT_TRUE(fs::exists(dir / "out" / "result.json"));
  EXPECT_FALSE(fs::exists(dir / "sao-runs")) << "an empty sao-runs/ was left";
  EXPECT_EQ(run_command(in + "evaluate study.json 2>&1").code, 0);
  EXPECT_FALSE(fs::exists(dir / "sao-runs"));
  // A run directory that existed before is left alone.
  fs::create_directories(dir / "sao-runs");
  EXPECT_EQ(run_command(in + "evaluate study.json 2>&1").code, 0);
  EXPECT_TRUE(fs::exists(dir / "sao-runs"));
}

TEST(CliEngineer, JsonOfTheStudyFileCommands) {
  const json valid = document_of(stdout_of("check " + kAbsorber + " --json"));
  EXPECT_EQ(valid["valid"], true);
  EXPECT_EQ(valid["design_variables"], 2);
  const std::string bad = std::string(SAO_SOURCE_DIR) + "/tests/data/bad-study.json";
  const CommandOutput invalid = stdout_of("check " + bad + " --json");
  EXPECT_EQ(invalid.code, 2);
  const json problems = document_of(invalid);
  EXPECT_EQ(problems["valid"], false);
  EXPECT_EQ(problems["problems"].size(), 3u) << problems;

  const CommandOutput evaluate = stdout_of("evaluate " + kAbsorber + " --json");
  EXPECT_EQ(evaluate.code, 0);
  const json e = document_of(evaluate);
  ASSERT_EQ(e["designs"].size(), 1u);
  EXPECT_EQ(e["designs"][0]["design"]["b1"], 1.0);
  EXPECT_NEAR(e["designs"][0]["objective"].get<double>(), 0.842704, 1e-6);  // max acceleration
  EXPECT_FALSE(e["designs"][0]["constraints"].empty());
  EXPECT_FALSE(e["designs"][0]["responses"].empty());

  const json gradient = document_of(
      stdout_of("check-gradient " + kProblems + "oscillator/psi.json --point 2 --json"));
  EXPECT_FALSE(gradient["rows"].empty());
  EXPECT_GT(gradient["analyses"].get<int>(), 0);
  EXPECT_LT(gradient["rows"][0]["relative_error"].get<double>(), 1e-4) << gradient;
}

TEST(CliEngineer, JsonOfTheStoreCommands) {
  const fs::path dir = scratch();
  const std::string d = (dir / "s").string();
  const json step = document_of(stdout_of("step " + d + " --study " + kAbsorber + " --json"));
  EXPECT_EQ(step["event"], "cycle");
  EXPECT_EQ(step["record"]["cycle"], 1);
  const json set = document_of(stdout_of("set " + d + " move_limit=0.2 --json"));
  EXPECT_EQ(set["cycle"], 2);
  ASSERT_EQ(stdout_of("step " + d).code, 0);
  const json restart = document_of(stdout_of("restart " + d + " --from-cycle 1 --json"));
  EXPECT_EQ(restart["branch"], 2);
  EXPECT_EQ(restart["parent"], 1);
  const json status = document_of(stdout_of("status " + d + " --json"));
  EXPECT_EQ(status["current_branch"], 2);
  EXPECT_EQ(status["branches"].size(), 2u);
  EXPECT_EQ(status["branches"][0]["cycles"].size(), 2u);
  EXPECT_GT(status["analyses"].get<int>(), 0);
  const json report = document_of(stdout_of("report " + d + " --json"));
  EXPECT_TRUE(fs::exists(report["written"].get<std::string>()));
  const json exported = document_of(stdout_of("export " + d + " --json"));
  EXPECT_EQ(exported["analyses"], status["analyses"]);

  // run --json: one document per line, the last the end with the result.
  const std::vector<json> run =
      lines_of(stdout_of("run " + kAbsorber + " --out " + (dir / "r").string() + " --json"));
  ASSERT_FALSE(run.empty());
  EXPECT_EQ(run.back()["event"], "end");
  EXPECT_EQ(run.back()["status"], "converged");
  EXPECT_TRUE(run.back()["active_set"].is_array());

  // sweep --json: the members, then the end.
  const std::vector<json> sweep =
      lines_of(stdout_of("sweep " + kAbsorber +
                         " --vary constraints.displacement.upper=0.9,1 --json "
                         "--jobs 1 --out " +
                         (dir / "sweep").string()));
  ASSERT_EQ(sweep.size(), 3u);
  EXPECT_EQ(sweep[0]["event"], "member");
  EXPECT_EQ(sweep[2]["event"], "end");
  EXPECT_EQ(sweep[2]["members"], 2);
}

TEST(CliEngineer, ResultJsonHasVersionStudyOrderConstraintsAndActiveSet) {
  const fs::path dir = scratch();
  // Variables y1, x2: alphabetical order would put x2 first.
  ASSERT_LE(
      sao("run " + kProblems + "suite/three-bar-scaled.json --no-store --out " + dir.string()).code,
      1);
  std::ifstream in(dir / "result.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const json result = json::parse(text);
  EXPECT_TRUE(std::regex_match(result["version"].get<std::string>(),
                               std::regex("[0-9]+\\.[0-9]+\\.[0-9]+")));
  const size_t design = text.find("\"design\": {");
  ASSERT_NE(design, std::string::npos);
  EXPECT_LT(text.find("\"y1\"", design), text.find("\"x2\"", design)) << text.substr(design, 200);
  ASSERT_TRUE(result["constraints"].is_array()) << text;
  ASSERT_FALSE(result["constraints"].empty());
  for (const json& c : result["constraints"]) {
    EXPECT_TRUE(c.contains("worst") && c.contains("time") && c.contains("point"));
    const bool listed = std::find(result["active_set"].begin(), result["active_set"].end(),
                                  c["name"]) != result["active_set"].end();
    EXPECT_EQ(c["active"].get<bool>(), listed);
  }
  EXPECT_FALSE(result["active_set"].empty()) << text;  // the optimum is on a constraint
}

TEST(CliEngineer, ExportWritesEveryStoredAnalysisAsCsv) {
  const fs::path dir = scratch() / "run";
  ASSERT_EQ(sao("run " + kAbsorber + " --out " + dir.string()).code, 0);
  const CommandOutput csv = stdout_of("export " + dir.string() + " --out -");
  ASSERT_EQ(csv.code, 0);
  std::istringstream lines(csv.text);
  std::string header;
  std::getline(lines, header);
  EXPECT_EQ(header.rfind("analysis,branch,b1,b2,status,message,sensitivities,seconds,runs", 0), 0u)
      << header;
  EXPECT_NE(header.find("impact.yddot.max,impact.yddot.min,impact.yddot.t_max"), std::string::npos)
      << header;
  // The units row (issue 49): the study's units under the variables and responses, seconds.
  std::string units;
  std::getline(lines, units);
  const auto fields = [](const std::string& line) {
    std::vector<std::string> f;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) f.push_back(cell);
    if (!line.empty() && line.back() == ',') f.push_back("");
    return f;
  };
  const std::vector<std::string> names = fields(header), unit = fields(units);
  ASSERT_EQ(unit.size(), names.size()) << units;
  const auto unit_of = [&](const std::string& name) {
    const auto it = std::find(names.begin(), names.end(), name);
    EXPECT_NE(it, names.end()) << name;
    return it == names.end() ? std::string("?") : unit[static_cast<size_t>(it - names.begin())];
  };
  EXPECT_EQ(unit_of("analysis"), "unit");
  EXPECT_EQ(unit_of("b1"), "N/m");
  EXPECT_EQ(unit_of("b2"), "N s/m");
  EXPECT_EQ(unit_of("seconds"), "s");
  EXPECT_EQ(unit_of("runs"), "");
  EXPECT_EQ(unit_of("impact.yddot.max"), "m/s^2");
  EXPECT_EQ(unit_of("impact.yddot.min"), "m/s^2");
  EXPECT_EQ(unit_of("impact.yddot.t_max"), "");
  int rows = 0;
  for (std::string line; std::getline(lines, line);) {
    ++rows;
    EXPECT_NE(line.find(",ok,"), std::string::npos) << line;
    EXPECT_EQ(fields(line).size(), names.size()) << line;
  }
  EXPECT_EQ(rows, query(dir / "study.sqlite", "SELECT COUNT(*) FROM analyses"));
  ASSERT_EQ(sao("export " + dir.string()).code, 0);
  EXPECT_TRUE(fs::exists(dir / "analyses.csv"));
}

TEST(CliEngineer, CheckGradientHintsAStepLargeNextToAVariable) {
  // p = 1e-6 (the study's): no hint. p = 1e-2: (1 + 0.3) 1e-2 is 4.3 % of b2 = 0.3.
  const CommandOutput quiet = sao("check-gradient " + kAbsorber);
  EXPECT_EQ(quiet.code, 0);
  EXPECT_EQ(quiet.text.find("hint:"), std::string::npos) << quiet.text;
  const CommandOutput large =
      sao("check-gradient " + kAbsorber + " --set simulator.gradients.step=0.01");
  EXPECT_EQ(large.code, 0);
  EXPECT_NE(large.text.find("hint: b2 = 0.3: the finite-difference step (1 + |b|) p = 0.013 "
                            "(p = 0.01) is 4.3 % of its value"),
            std::string::npos)
      << large.text;
  const json j = document_of(
      stdout_of("check-gradient " + kAbsorber + " --set simulator.gradients.step=0.01 --json"));
  EXPECT_EQ(j["hints"].size(), 2u) << j;  // b1 = 1: 2 % of its value too
}

TEST(CliEngineer, ConstantsAsBounds) {
  const fs::path dir = scratch();
  json study = read_json(kAbsorber);
  study["constants"] = {{"b_max", 0.8}, {"d_max", 1.0}};
  study["design_variables"][0]["upper"] = "b_max";
  study["design_variables"][0]["initial"] = 0.8;
  study["constraints"][0]["upper"] = "d_max";
  write_text(dir / "study.json", study.dump(2));
  const json evaluated =
      document_of(stdout_of("evaluate " + (dir / "study.json").string() + " --json"));
  EXPECT_EQ(evaluated["designs"][0]["design"]["b1"], 0.8);
  EXPECT_EQ(evaluated["designs"][0]["constraints"].back()["bound"], 1.0) << evaluated;
  const CommandOutput run =
      sao("run " + (dir / "study.json").string() + " --no-store --out " + (dir / "out").string());
  EXPECT_LE(run.code, 1) << run.text;
  EXPECT_LE(read_json(dir / "out" / "result.json")["design"]["b1"].get<double>(), 0.8);
  study["design_variables"][0]["upper"] = "b_mx";
  write_text(dir / "bad.json", study.dump(2));
  const CommandOutput bad = sao("check " + (dir / "bad.json").string());
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.text.find("design_variables[0].upper: expected a number, got a string "
                          "(\"b_mx\"): a bound may also name one of the study's constants "
                          "(b_max, d_max)"),
            std::string::npos)
      << bad.text;
}

}  // namespace
