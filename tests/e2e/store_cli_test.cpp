// The study store through the `sao` command, as a user drives it: a run killed with SIGKILL
// at random moments and resumed, an interactive session (step, set, restart, status), and
// foreign files given as the store.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sao/store/store.hpp"
#include "tests/e2e/store_support.hpp"

namespace {

namespace fs = std::filesystem;

using namespace sao::testing;  // query(), execute(), kProblems, ...
using sao::testing::sao;       // the function, before the namespace sao

fs::path scratch(const std::string& name) {
  return scratch_directory("test-store-cli", name);
}

using Output = CommandOutput;

pid_t spawn(const std::vector<std::string>& args) {
  return spawn_sao(args);
}

size_t count_lines(const std::string& text, const std::string& containing) {
  std::istringstream in(text);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) n += line.find(containing) != std::string::npos;
  return n;
}

int simulator_runs_of_step(const std::string& text) {
  std::smatch m;
  static const std::regex runs("simulator runs in this step: (\\d+)");
  return std::regex_search(text, m, runs) ? std::stoi(m[1]) : -1;
}

// A slower variant of the multibody impact absorber (6001 output points, direct
// sensitivities): about 20 cycles that take about two seconds in all.
std::vector<std::string> slow_run(const fs::path& out) {
  return {"run", kProblems + "impact-absorber/max-acceleration-multibody.json", "--out",
          out.string(), "--set", "load_cases.0.time.points=6001",
          // appendix A: with the trust-region strategy this grid ends at the cycle limit
          "--set", "settings.strategy=\"seed\"", "-q"};
}

TEST(StoreCli, KilledRunsResumeToTheSameDesignWithoutRepeatingAnalyses) {
  const fs::path dir = scratch("kill");
  // The uninterrupted reference, timed.
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = spawn(slow_run(dir / "reference"));
  int status = 0;
  waitpid(pid, &status, 0);
  const double duration =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  const int reference_cycles = read_json(dir / "reference" / "result.json")["cycles"];
  const double per_cycle = duration / reference_cycles;
  const fs::path store = dir / "killed" / "study.sqlite";
  int killed_mid_run = 0;
  std::vector<int> cycles_after_kill;
  for (int k = 0; k < 8; ++k) {
    // A random moment within what is left of the run (replaying the stored cycles is quick).
    const int done = fs::exists(store) ? query(store, "SELECT COUNT(*) FROM cycles") : 0;
    const double left = 0.05 + (reference_cycles - done) * per_cycle;
    // At most a quarter of the whole run, so that several kills land before the end.
    const double latest = std::max(0.1, std::min(left, duration / 4));
    const double at = std::uniform_real_distribution<double>(0.05, latest)(rng);
    pid = spawn(slow_run(dir / "killed"));
    std::this_thread::sleep_for(std::chrono::duration<double>(at));
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    if (!WIFSIGNALED(status)) break;  // it finished before the kill
    ++killed_mid_run;
    if (fs::exists(store)) {
      cycles_after_kill.push_back(query(store, "SELECT COUNT(*) FROM cycles"));
      // No design completed before a kill is analysed again: every (design, derivatives) once.
      EXPECT_EQ(query(store,
                      "SELECT COUNT(*) FROM (SELECT 1 FROM analyses GROUP BY inputs_hash, design, "
                      "derivatives HAVING COUNT(*) > 1)"),
                0)
          << "seed " << seed << ", kill " << k << " at " << at << " s";
    }
    std::printf("kill %d at %.3f s: %d cycles, %d analyses stored\n", k, at,
                cycles_after_kill.empty() ? 0 : cycles_after_kill.back(),
                query(store, "SELECT COUNT(*) FROM analyses"));
  }
  EXPECT_GE(killed_mid_run, 3) << "seed " << seed << ": kills should hit a running process";
  const Output final_run = sao("run " + (dir / "killed").string() + " -q");
  ASSERT_EQ(final_run.code, 0) << final_run.text;

  const nlohmann::json reference = read_json(dir / "reference" / "result.json");
  const nlohmann::json resumed = read_json(dir / "killed" / "result.json");
  EXPECT_EQ(resumed["status"], "converged");
  for (const auto& [name, value] : reference["design"].items()) {
    EXPECT_EQ(resumed["design"][name].get<double>(), value.get<double>())
        << name << " (seed " << seed << ")";
  }
  EXPECT_EQ(resumed["cycles"], reference["cycles"]);
  EXPECT_EQ(resumed["objective"].get<double>(), reference["objective"].get<double>());
  // Every analysis exactly once over all the killed processes: the same count as the
  // uninterrupted run, and no (design, derivatives) twice.
  EXPECT_EQ(query(store, "SELECT COUNT(*) FROM analyses"),
            query(dir / "reference" / "study.sqlite", "SELECT COUNT(*) FROM analyses"))
      << "seed " << seed;
  EXPECT_EQ(query(store,
                  "SELECT COUNT(*) FROM (SELECT 1 FROM analyses GROUP BY inputs_hash, design, "
                  "derivatives HAVING COUNT(*) > 1)"),
            0);
  // The kills happened at different stages of the run.
  ASSERT_FALSE(cycles_after_kill.empty());
  EXPECT_LT(cycles_after_kill.front(), reference_cycles) << "seed " << seed;
  // A completed run resumes to the end without a single simulator run.
  const Output again = sao("run " + (dir / "killed").string());
  EXPECT_EQ(again.code, 0);
  EXPECT_NE(again.text.find("0 simulator runs"), std::string::npos) << again.text;
}

TEST(StoreCli, InteractiveSessionOnTheSliderCrankReusesStoredAnalyses) {
  const fs::path dir = scratch("session");
  const std::string d = (dir / "study").string();
  const std::string study = kProblems + "slider-crank/path.json";
  std::vector<int> runs;
  nlohmann::json record3_next_factors;
  for (int k = 1; k <= 3; ++k) {
    const Output o = sao("step " + d + " --json" + (k == 1 ? " --study " + study : ""));
    ASSERT_EQ(o.code, 0) << o.text;
    const nlohmann::json step = nlohmann::json::parse(o.text.substr(o.text.rfind("{\"branch\"")));
    EXPECT_EQ(step["branch"], 1);
    EXPECT_EQ(step["record"]["cycle"], k);
    runs.push_back(step["simulator_runs"].get<int>());
    EXPECT_GT(runs.back(), 0);
    record3_next_factors = step["record"]["next_move_factors"];
  }

  // Tighten the move limits; invalid settings are refused with their rule, nothing stored.
  const Output bad = sao(
      "set " + d +
      " cutoff=2 cuttoff=0.5 move_limit.b9=0.1 move_limit.b1=5 move_limit.b2=x move_limit.=0.5");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.text.find("settings.cutoff: must be in [0, 1)"), std::string::npos) << bad.text;
  EXPECT_NE(bad.text.find("move_limit.b9: unknown design variable"), std::string::npos) << bad.text;
  EXPECT_NE(bad.text.find("move_limit.b1: must be in (0, 1]"), std::string::npos) << bad.text;
  EXPECT_NE(bad.text.find("move_limit.b2: expected a number, got x"), std::string::npos)
      << bad.text;
  // An empty name is no variable (it used to be taken for every one).
  EXPECT_NE(bad.text.find("move_limit.: unknown design variable \"\""), std::string::npos)
      << bad.text;
  const Output set = sao("set " + d + " move_limit=0.05 errmax=60");
  ASSERT_EQ(set.code, 0) << set.text;
  EXPECT_NE(set.text.find("from cycle 4"), std::string::npos) << set.text;

  const Output step4 = sao("step " + d + " --json");
  ASSERT_EQ(step4.code, 0) << step4.text;
  const std::string last_line = step4.text.substr(step4.text.rfind("{\"branch\""));
  const nlohmann::json record4 = nlohmann::json::parse(last_line)["record"];
  EXPECT_EQ(record4["cycle"], 4);
  for (double m : record4["move_factors"]) EXPECT_EQ(m, 0.05);
  const Output step5 = sao("step " + d);
  ASSERT_EQ(step5.code, 0) << step5.text;
  EXPECT_NE(step5.text.find("branch 1, cycle 5:"), std::string::npos) << step5.text;

  // Restart from cycle 2 with the same study: cycle 3 of the new branch is the stored one,
  // computed without any simulator run.
  const fs::path store = dir / "study" / "study.sqlite";
  const int analyses_before = query(store, "SELECT COUNT(*) FROM analyses");
  ASSERT_EQ(sao("restart " + d + " --from-cycle 2").code, 0);
  const Output same = sao("step " + d + " --json");
  ASSERT_EQ(same.code, 0) << same.text;
  const nlohmann::json branch2 =
      nlohmann::json::parse(same.text.substr(same.text.rfind("{\"branch\"")));
  EXPECT_EQ(branch2["branch"], 2);
  EXPECT_EQ(branch2["record"]["cycle"], 3);
  EXPECT_EQ(branch2["simulator_runs"], 0);
  // The strategy's memory of cycle 2 goes with the branch: the same next factors too.
  EXPECT_EQ(branch2["record"]["next_move_factors"], record3_next_factors);
  EXPECT_EQ(query(store, "SELECT COUNT(*) FROM analyses"), analyses_before);

  // Restart from cycle 2 with a changed bound: the stored start analysis and its
  // sensitivities apply (same simulator inputs), so only b* is new.
  nlohmann::json changed = nlohmann::json::parse(std::ifstream(study));
  changed["constraints"][1]["upper"] = -2.0;  // g2, active after cycle 2
  const fs::path changed_file = dir / "path-tighter-g2.json";
  std::ofstream(changed_file) << changed.dump(2);
  const Output restart = sao("restart " + d + " --from-cycle 2 --study " + changed_file.string());
  ASSERT_EQ(restart.code, 0) << restart.text;
  EXPECT_NE(restart.text.find("branch 3"), std::string::npos) << restart.text;
  // Only a bound changed: the branch continues the run with that change for cycle 3.
  EXPECT_NE(restart.text.find("continues the run (the same study); set before cycle 3: "
                              "constraints.g2.upper=-2.0"),
            std::string::npos)
      << restart.text;
  const Output step_b3 = sao("step " + d);
  ASSERT_EQ(step_b3.code, 0) << step_b3.text;
  EXPECT_NE(step_b3.text.find("branch 3, cycle 3:"), std::string::npos) << step_b3.text;
  EXPECT_LE(simulator_runs_of_step(step_b3.text), 1) << step_b3.text;
  EXPECT_LT(simulator_runs_of_step(step_b3.text), runs[2]);  // branch 1 needed all of them
  EXPECT_LE(query(store, "SELECT COUNT(*) FROM analyses"), analyses_before + 1);
  const Output step_b3_4 = sao("step " + d);
  ASSERT_EQ(step_b3_4.code, 0) << step_b3_4.text;

  // A restart from a cycle of another branch than the current one: cycle 4 of branch 1 (the
  // one with the settings change), not in branch 3's history; a branch the store does not
  // have, or a cycle not in that branch's history, is refused.
  EXPECT_EQ(sao("restart " + d + " --from-cycle 4 --branch 9").code, 2);
  const Output not_in = sao("restart " + d + " --from-cycle 9 --branch 1");
  EXPECT_EQ(not_in.code, 2);
  EXPECT_NE(not_in.text.find("not a cycle of branch 1's history"), std::string::npos)
      << not_in.text;
  const Output other = sao("restart " + d + " --from-cycle 4 --branch 1");
  ASSERT_EQ(other.code, 0) << other.text;
  EXPECT_NE(other.text.find("branch 4: from the accepted design of cycle 4 (branch 1)"),
            std::string::npos)
      << other.text;
  const Output step_b4 = sao("step " + d + " --json");
  ASSERT_EQ(step_b4.code, 0) << step_b4.text;
  const nlohmann::json branch4 =
      nlohmann::json::parse(step_b4.text.substr(step_b4.text.rfind("{\"branch\"")));
  EXPECT_EQ(branch4["branch"], 4);
  EXPECT_EQ(branch4["record"]["cycle"], 5);
  EXPECT_EQ(branch4["simulator_runs"], 0);  // branch 1's cycle 5, stored

  // The history shows the branches and the settings change.
  const Output status = sao("status " + d);
  ASSERT_EQ(status.code, 0) << status.text;
  EXPECT_NE(status.text.find("  branch 1: "), std::string::npos) << status.text;
  EXPECT_NE(status.text.find("  branch 2 (from branch 1 after cycle 2)"), std::string::npos);
  // Branch 3 runs the stored study with the bound changed before its first cycle.
  EXPECT_NE(status.text.find("  branch 3 (from branch 1 after cycle 2): " + study),
            std::string::npos)
      << status.text;
  EXPECT_NE(status.text.find("set before cycle 3: constraints.g2.upper=-2.0"), std::string::npos)
      << status.text;
  EXPECT_NE(status.text.find("* branch 4 (from branch 1 after cycle 4)"), std::string::npos)
      << status.text;
  EXPECT_NE(status.text.find("set before cycle 4: move_limit=0.05"), std::string::npos);
  std::printf("%s", status.text.c_str());
}

// `sao restart --reset-region`: the new branch starts at cycle K's accepted design with a fresh
// subregion (the study's move-limit factors), where a plain restart keeps the factors the
// parent had reached; the reset is stored with the branch, so reopening it replays the same.
TEST(StoreCli, RestartWithResetRegionStartsWithTheStudysMoveLimits) {
  const fs::path dir = scratch("reset-region");
  const std::string d = (dir / "study").string();
  const std::string study = kProblems + "slider-crank/path.json";
  const nlohmann::json document = nlohmann::json::parse(std::ifstream(study));
  auto last_record = [](const Output& o) {
    return nlohmann::json::parse(o.text.substr(o.text.rfind("{\"branch\"")));
  };
  for (int k = 1; k <= 2; ++k)
    ASSERT_EQ(sao("step " + d + (k == 1 ? " --study " + study : "")).code, 0);
  ASSERT_EQ(sao("set " + d + " move_limit=0.05").code, 0);  // a collapsed subregion
  const Output step3 = sao("step " + d + " --json");
  ASSERT_EQ(step3.code, 0) << step3.text;
  const nlohmann::json parent_next = last_record(step3)["record"]["next_move_factors"];

  const Output plain = sao("restart " + d + " --from-cycle 3");
  ASSERT_EQ(plain.code, 0) << plain.text;
  const Output plain_step = sao("step " + d + " --json");
  ASSERT_EQ(plain_step.code, 0) << plain_step.text;
  EXPECT_EQ(last_record(plain_step)["record"]["move_factors"], parent_next);

  const Output reset = sao("restart " + d + " --from-cycle 3 --branch 1 --reset-region");
  ASSERT_EQ(reset.code, 0) << reset.text;
  EXPECT_NE(reset.text.find("branch 3: from the accepted design of cycle 3 (branch 1), a fresh "
                            "subregion"),
            std::string::npos)
      << reset.text;
  const Output reset_step = sao("step " + d + " --json");
  ASSERT_EQ(reset_step.code, 0) << reset_step.text;
  const nlohmann::json record = last_record(reset_step)["record"];
  EXPECT_EQ(last_record(reset_step)["branch"], 3);
  EXPECT_EQ(record["cycle"], 4);
  ASSERT_EQ(record["move_factors"].size(), document["design_variables"].size());
  for (size_t i = 0; i < document["design_variables"].size(); ++i) {
    const nlohmann::json& v = document["design_variables"][i];
    EXPECT_EQ(record["move_factors"][i], v.value("move_limit", 0.4)) << v.dump();
  }
  EXPECT_NE(record["move_factors"], parent_next);
  // The reset is part of the branch: a second process replays cycle 4 with it, no new run.
  const Output next = sao("step " + d + " --json");
  ASSERT_EQ(next.code, 0) << next.text;
  EXPECT_EQ(last_record(next)["record"]["cycle"], 5);
  const Output status = sao("status " + d);
  EXPECT_NE(status.text.find("set before cycle 4: move_limit."), std::string::npos) << status.text;
}

// `sao restart --from-reported` starts the new branch from the design the ended run reported
// (result.json), stored with the branch so that it replays; it refuses a branch that has not
// ended and a cycle other than the last. (That the reported design may differ from the last
// accepted one is checked end to end by restraint.six_variable_restart.)
TEST(StoreCli, RestartFromReportedStartsAtTheReportedDesign) {
  const fs::path dir = scratch("from-reported");
  const std::string d = (dir / "study").string();
  const std::string study = kProblems + "slider-crank/path.json";
  ASSERT_EQ(sao("step " + d + " --study " + study).code, 0);
  const Output early = sao("restart " + d + " --from-reported");
  EXPECT_EQ(early.code, 2) << early.text;
  EXPECT_NE(early.text.find("has not ended"), std::string::npos) << early.text;
  const Output none = sao("restart " + d);
  EXPECT_EQ(none.code, 2) << none.text;
  EXPECT_NE(none.text.find("--from-cycle K or --from-reported is required"), std::string::npos)
      << none.text;

  const Output run = sao("run " + d + " --quiet --max-cycles 2");
  ASSERT_EQ(run.code, 1) << run.text;  // the cycle limit
  const nlohmann::json result = nlohmann::json::parse(std::ifstream(dir / "study" / "result.json"));
  const Output wrong = sao("restart " + d + " --from-reported --from-cycle 1");
  EXPECT_EQ(wrong.code, 2) << wrong.text;
  EXPECT_NE(wrong.text.find("last cycle, 2"), std::string::npos) << wrong.text;

  const Output restart = sao("restart " + d + " --from-reported --json");
  ASSERT_EQ(restart.code, 0) << restart.text;
  const nlohmann::json made = nlohmann::json::parse(restart.text.substr(restart.text.rfind('{')));
  EXPECT_EQ(made["from_cycle"], 2);
  EXPECT_EQ(made["from_reported"], true);
  const Output undo = sao("set " + d + " --undo");  // nothing else pending: the start stays
  EXPECT_EQ(undo.code, 2) << undo.text;
  const Output status = sao("status " + d);
  EXPECT_NE(status.text.find("starts at start."), std::string::npos) << status.text;

  const Output step = sao("step " + d + " --json");
  ASSERT_EQ(step.code, 0) << step.text;
  const nlohmann::json record =
      nlohmann::json::parse(step.text.substr(step.text.rfind("{\"branch\"")))["record"];
  EXPECT_EQ(record["cycle"], 3);
  const nlohmann::json& design = result["design"];
  ASSERT_TRUE(design.is_object()) << result.dump();
  const nlohmann::json variables = nlohmann::json::parse(std::ifstream(study))["design_variables"];
  ASSERT_EQ(record["b0"].size(), variables.size());
  for (const nlohmann::json& v : variables) {
    const std::string name = v["name"];
    EXPECT_EQ(record["b0"].at(name).get<double>(), design.at(name).get<double>()) << name;
  }
}

TEST(StoreCli, ForeignOrCorruptedStoreIsRefusedAndNotOverwritten) {
  const fs::path dir = scratch("foreign");
  const fs::path out = dir / "out";
  fs::create_directories(out);
  const fs::path store = out / "study.sqlite";
  std::ofstream(store) << "these are somebody's notes, not a database\n";
  const std::string before = read_file(store);
  const Output run =
      sao("run " + kProblems + "impact-absorber/max-acceleration.json --out " + out.string());
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.text.find("not a study store"), std::string::npos) << run.text;
  EXPECT_EQ(read_file(store), before);
  EXPECT_FALSE(fs::exists(out / "result.json"));
  for (const std::string command : {"status ", "step ", "set ", "report "}) {
    const std::string extra = command == "set " ? " cutoff=0.5" : "";
    const Output o = sao(command + store.string() + extra);
    EXPECT_EQ(o.code, 2) << command << o.text;
    EXPECT_NE(o.text.find("not a study store"), std::string::npos) << command << o.text;
    EXPECT_EQ(read_file(store), before) << command;
  }
  // A store of another study in the output folder is not taken over either.
  const fs::path other = dir / "other";
  ASSERT_EQ(
      sao("run " + kProblems + "impact-absorber/max-acceleration.json -q --out " + other.string())
          .code,
      0);
  const std::string other_before = read_file(other / "study.sqlite");
  const Output mixed =
      sao("run " + kProblems + "impact-absorber/comfort.json -q --out " + other.string());
  EXPECT_EQ(mixed.code, 2);
  EXPECT_NE(mixed.text.find("holds another study"), std::string::npos) << mixed.text;
  EXPECT_EQ(read_file(other / "study.sqlite"), other_before);
}

}  // namespace

namespace {

TEST(StoreCli, ProgressLinesTableQuietAndJson) {
  const fs::path dir = scratch("progress");
  const std::string study = kProblems + "impact-absorber/max-acceleration.json --out ";
  // Piped, the default shows no progress (cli_engineer_test.cpp); --progress lines does.
  const Output table = sao("run " + study + (dir / "table").string() + " --progress lines");
  ASSERT_EQ(table.code, 0) << table.text;
  const nlohmann::json result = read_json(dir / "table" / "result.json");
  const size_t batches = count_lines(table.text, "  analyses: ");
  EXPECT_GE(batches, result["cycles"].get<size_t>()) << table.text;
  EXPECT_TRUE(std::regex_search(table.text, std::regex("analyses: \\d+ finished, 1 running, "
                                                       "[0-9.]+ s")))
      << table.text;

  const Output quiet = sao("run " + study + (dir / "quiet").string() + " --quiet");
  ASSERT_EQ(quiet.code, 0);
  EXPECT_EQ(count_lines(quiet.text, "analyses:"), 0u) << quiet.text;
  EXPECT_NE(quiet.text.find("status     converged"), std::string::npos);

  const Output json = sao("run " + study + (dir / "json").string() + " --json");
  ASSERT_EQ(json.code, 0);
  std::map<std::string, int> events;
  std::istringstream lines(json.text);
  nlohmann::json last;
  for (std::string line; std::getline(lines, line);) {
    ASSERT_NO_THROW(last = nlohmann::json::parse(line)) << line;
    ++events[last["event"].get<std::string>()];
    if (last["event"] == "analyses") {
      EXPECT_TRUE(last.contains("finished") && last.contains("running") &&
                  last.contains("elapsed_seconds"));
    }
  }
  EXPECT_EQ(events["cycle"], result["cycles"].get<int>());
  EXPECT_EQ(static_cast<size_t>(events["analyses"]), 2 * batches);  // start and end of each
  EXPECT_EQ(last["event"], "end");
  EXPECT_EQ(last["status"], "converged");
}

TEST(StoreCli, OneProcessAtATimeWorksOnAStudy) {
  const fs::path dir = scratch("lock");
  ASSERT_EQ(sao("step " + (dir / "s").string() + " --study " + kProblems +
                "impact-absorber/max-acceleration.json")
                .code,
            0);
  const std::string lock = (dir / "s" / "study.sqlite.lock").string();
  const int fd = ::open(lock.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
  const Output busy = sao("step " + (dir / "s").string());
  EXPECT_EQ(busy.code, 3);  // busy: I/O, try again later
  EXPECT_NE(busy.text.find("in use by another sao process"), std::string::npos) << busy.text;
  ::close(fd);
  EXPECT_EQ(sao("step " + (dir / "s").string()).code, 0);
}

}  // namespace

namespace {

TEST(StoreCli, RaisedCycleLimitReopensTheRunAndReachesTheUninterruptedResult) {
  const fs::path dir = scratch("limit");
  const std::string study = kProblems + "impact-absorber/max-acceleration.json -q --out ";
  ASSERT_EQ(sao("run " + study + (dir / "reference").string()).code, 0);
  const Output limited =
      sao("run " + study + (dir / "limited").string() + " --set settings.max_cycles=2");
  EXPECT_EQ(limited.code, 1) << limited.text;
  EXPECT_NE(limited.text.find("cycle limit 2 reached"), std::string::npos) << limited.text;
  const Output set = sao("set " + (dir / "limited").string() + " max_cycles=30");
  ASSERT_EQ(set.code, 0) << set.text;
  EXPECT_NE(set.text.find("from cycle 3"), std::string::npos) << set.text;
  const Output resumed = sao("run " + (dir / "limited").string() + " -q");
  ASSERT_EQ(resumed.code, 0) << resumed.text;
  const nlohmann::json a = read_json(dir / "reference" / "result.json");
  const nlohmann::json b = read_json(dir / "limited" / "result.json");
  EXPECT_EQ(a["cycles"], b["cycles"]);
  for (const auto& [name, value] : a["design"].items()) {
    EXPECT_EQ(b["design"][name].get<double>(), value.get<double>()) << name;
  }
}

TEST(StoreCli, ReplayDifferingFromTheStoredRecordIsReportedAndRepaired) {
  const fs::path dir = scratch("tampered");
  const fs::path store = dir / "x" / "study.sqlite";
  ASSERT_EQ(sao("run " + kProblems + "impact-absorber/max-acceleration.json -q --out " +
                (dir / "x").string())
                .code,
            0);
  const nlohmann::json before = read_json(dir / "x" / "result.json");
  {
    // A record written with a valid checksum but another b* (as by a changed program): the
    // checksum holds, the replay tells the difference.
    ::sao::StudyStore writer(store.string(), false);
    for (::sao::StoredCycle c : writer.cycles(1)) {
      if (c.record.cycle != 3) continue;
      c.record.x_opt(0) = 0.123;
      writer.save_cycle(1, c.record, {"b1", "b2", "b3"}, c.settings);
    }
  }
  ASSERT_EQ(query(store,
                  "SELECT COUNT(*) FROM cycles WHERE json_extract(record, '$.record.b_opt.b1') = "
                  "0.123"),
            1);
  const Output resumed = sao("run " + (dir / "x").string());
  ASSERT_EQ(resumed.code, 0) << resumed.text;
  EXPECT_NE(resumed.text.find("replay of cycle 3 differs from the stored record"),
            std::string::npos)
      << resumed.text;
  EXPECT_NE(resumed.text.find("0 simulator runs"), std::string::npos) << resumed.text;
  EXPECT_EQ(query(store,
                  "SELECT COUNT(*) FROM cycles WHERE json_extract(record, '$.record.b_opt.b1') = "
                  "0.123"),
            0);
  const nlohmann::json after = read_json(dir / "x" / "result.json");
  EXPECT_EQ(after["design"], before["design"]);
  EXPECT_EQ(after["cycles"], before["cycles"]);
}

}  // namespace

namespace {

// A branch left by `sao restart` before its run ended is "abandoned", not "running", in
// `sao status` and its --json (issue 46).
TEST(StoreCli, BranchLeftByARestartReadsAbandoned) {
  const fs::path dir = scratch("abandoned");
  const std::string d = (dir / "study").string();
  const std::string study = kProblems + "slider-crank/path.json";
  for (int k = 1; k <= 2; ++k)
    ASSERT_EQ(sao("step " + d + (k == 1 ? " --study " + study : "")).code, 0);
  ASSERT_EQ(sao("restart " + d + " --from-cycle 1").code, 0);
  ASSERT_EQ(sao("step " + d).code, 0);
  const Output json_out = run_command(kSao + " status " + d + " --json 2>/dev/null");
  ASSERT_EQ(json_out.code, 0) << json_out.text;
  const nlohmann::json status = nlohmann::json::parse(json_out.text);
  const nlohmann::json& left = status["branches"][0];
  EXPECT_EQ(left["id"], 1);
  EXPECT_EQ(left["status"], "abandoned") << left.dump(1);
  EXPECT_EQ(left["stored_status"], "running");
  EXPECT_EQ(left["last_cycle"], 2);
  EXPECT_EQ(left["superseded_by"], 2);
  EXPECT_NE(left["message"].get<std::string>().find("left after cycle 2 for branch 2"),
            std::string::npos)
      << left.dump(1);
  const nlohmann::json& current = status["branches"][1];
  EXPECT_EQ(current["status"], "running");  // as stored; "live" says no process runs it
  EXPECT_EQ(current["live"], false);
  EXPECT_FALSE(current.contains("superseded_by"));

  const Output text = sao("status " + d);
  ASSERT_EQ(text.code, 0) << text.text;
  EXPECT_NE(text.text.find("branch 1: " + study + ", abandoned: left after cycle 2 for branch 2"),
            std::string::npos)
      << text.text;
  EXPECT_EQ(text.text.find("running (not the current branch)"), std::string::npos) << text.text;
}

}  // namespace
