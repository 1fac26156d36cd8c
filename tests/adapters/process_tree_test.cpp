// Whole process trees of external runs (issue 18): a child that called setsid() leaves the
// process group but keeps its SAO_RUN_ID cookie, and is killed when the run ends or times out;
// orphans are re-parented to the test process (a subreaper) and reaped; processes left over by a
// killed `sao` are found from the owner marker of their session folder and killed.
#include "adapters/process_tree.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "adapters/external_simulator.hpp"
#include "tests/support.hpp"

namespace sao::adapters {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;

// True while /proc/<pid> exists (a zombie counts: it has not been reaped).
bool exists(pid_t pid) {
  return fs::exists("/proc/" + std::to_string(pid));
}

// Waits up to 5 s for the process to be gone (killed and reaped).
bool gone(pid_t pid) {
  for (int i = 0; i < 250 && exists(pid); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !exists(pid);
}

pid_t pid_in(const fs::path& file) {
  std::ifstream in(file);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

// `sleep 100` with SAO_RUN_ID=cookie, as a run of another `sao` would leave it.
pid_t start_marked_sleeper(const std::string& cookie) {
  const std::string env = std::string(kRunCookie) + "=" + cookie;
  char* const argv[] = {const_cast<char*>("sleep"), const_cast<char*>("100"), nullptr};
  char* const envp[] = {const_cast<char*>(env.c_str()), nullptr};
  pid_t pid = 0;
  if (::posix_spawn(&pid, "/bin/sleep", nullptr, nullptr, argv, envp) != 0) return 0;
  // The new environment shows in /proc once the exec has completed (posix_spawn returns a
  // little earlier).
  const std::string environ = "/proc/" + std::to_string(pid) + "/environ";
  for (int i = 0; i < 500 && sao::testing::read_file(environ).empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return pid;
}

class ProcessTree : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = sao::testing::scratch_directory("adapter-tests");
    std::ofstream(dir_ / "input.tpl") << "x {{x}}\ny {{y}}\n";
  }
  SimulatorSetup setup(const json& extra) {
    json s = {{"type", "external"},
              {"command", {SAO_FAKE_CODE, "setsid"}},
              {"run_directory", (dir_ / "runs").string()},
              {"keep", "all"},
              {"templates", {{{"file", "input.tpl"}, {"target", "input.txt"}}}},
              {"responses",
               {{{"name", "f"},
                 {"kind", "scalar"},
                 {"file", "result.txt"},
                 {"parser", "regex"},
                 {"pattern", "f = (\\S+)"}}}}};
    s.update(extra);
    SimulatorSetup out;
    out.section = s;
    out.design_names = {"x", "y"};
    LoadCaseSpec lc;
    lc.name = "only";
    out.load_cases = {lc};
    out.study_directory = dir_.string();
    return out;
  }
  static EvaluationRequest request() {
    EvaluationRequest r;
    r.design = Eigen::Vector2d(1.0, 2.0);
    return r;
  }
  fs::path dir_;
};

TEST_F(ProcessTree, AChildThatCalledSetsidIsKilledWhenTheRunSucceeds) {
  ExternalSimulator sim(setup(json::object()));
  const Evaluation e = sim.evaluate({request()}).front();
  ASSERT_TRUE(e.ok) << e.message;
  const pid_t escaped = pid_in(sim.session_directory() / "000001-case0" / "setsid.pid");
  ASSERT_GT(escaped, 0);
  // Killed by its cookie, re-parented to this process (a subreaper) and reaped: no zombie.
  EXPECT_TRUE(gone(escaped)) << "process " << escaped << " survived the run";
}

TEST_F(ProcessTree, AChildThatCalledSetsidIsKilledOnATimeOut) {
  ExternalSimulator sim(setup({{"timeout", 0.5}, {"environment", {{"SAO_FAKE_SLEEP", "30"}}}}));
  const auto start = std::chrono::steady_clock::now();
  const Evaluation e = sim.evaluate({request()}).front();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_FALSE(e.ok);
  EXPECT_THAT(e.message, HasSubstr("timed out after 0.5"));
  const pid_t escaped = pid_in(sim.session_directory() / "000001-case0" / "setsid.pid");
  ASSERT_GT(escaped, 0);
  EXPECT_TRUE(gone(escaped)) << "process " << escaped << " survived the time-out";
}

TEST_F(ProcessTree, KillRunTreeFindsEveryProcessByItsCookieOnly) {
  const std::string cookie = (dir_ / "runs" / "s" / "000001-case0").string();
  const pid_t a = start_marked_sleeper(cookie);
  const pid_t b = start_marked_sleeper(cookie);
  const pid_t other = start_marked_sleeper(cookie + "0");  // another run: a longer name
  ASSERT_TRUE(a > 0 && b > 0 && other > 0);
  EXPECT_EQ(find_marked(kRunCookie, cookie, false).size(), 2u);
  EXPECT_EQ(kill_run_tree(cookie), 2);
  EXPECT_TRUE(gone(a));
  EXPECT_TRUE(gone(b));
  EXPECT_TRUE(exists(other));
  ::kill(other, SIGKILL);
  ::waitpid(other, nullptr, 0);
}

// A `sao` killed by SIGKILL leaves the processes its code started; the next run series under
// the same run directory finds them (their owner is dead) and kills them before it runs.
TEST_F(ProcessTree, LeftoversOfAKilledSaoAreKilledBeforeTheNextRuns) {
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

  ExternalSimulator sim(setup({{"command", {SAO_FAKE_CODE, "ok"}}}));
  EXPECT_TRUE(sim.evaluate({request()}).front().ok);
  EXPECT_TRUE(gone(orphan)) << "the leftover of a dead owner survived";
  EXPECT_TRUE(gone(unmarked)) << "a leftover without an owner marker survived";
  EXPECT_TRUE(exists(owned)) << "a run of a live sao was killed";
  ::kill(owned, SIGKILL);
  ::waitpid(owned, nullptr, 0);
  // The new session names its owner while it lives.
  const std::string marker = sao::testing::read_file(sim.session_directory().string() + ".owner");
  EXPECT_EQ(marker, owner_marker() + "\n");
}

TEST_F(ProcessTree, KillLeftoversReportsSessionAndPids) {
  const fs::path runs = dir_ / "runs";
  const pid_t orphan = start_marked_sleeper((runs / "old" / "000001-case1").string());
  ASSERT_GT(orphan, 0);
  const std::vector<std::string> report = kill_leftovers(runs.string(), ".owner");
  ASSERT_EQ(report.size(), 1u);
  EXPECT_EQ(report[0], (runs / "old").string() + ": pid(s) " + std::to_string(orphan));
  EXPECT_TRUE(gone(orphan));
}

}  // namespace
}  // namespace sao::adapters
