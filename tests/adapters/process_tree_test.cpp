// Whole process trees of external runs (issue 18): processes found by their SAO_RUN_ID cookie
// and killed, and leftovers of a killed `sao` found from the owner marker of their session
// folder. (The same through the external simulator, with a code whose child calls setsid(), is
// in external_simulator_test.cpp.)
#include "adapters/process_tree.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "tests/adapters/process_helpers.hpp"

namespace sao::adapters {
namespace {

namespace fs = std::filesystem;
using namespace sao::adapters::tree_helpers;  // NOLINT: the helpers of process_helpers.hpp

TEST(ProcessTree, KillRunTreeFindsEveryProcessByItsCookieOnly) {
  const fs::path dir = sao::testing::scratch_directory("adapter-tests");
  const std::string cookie = (dir / "runs" / "s" / "000001-case0").string();
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

TEST(ProcessTree, KillLeftoversReportsSessionAndPids) {
  const fs::path runs = sao::testing::scratch_directory("adapter-tests") / "runs";
  const pid_t orphan = start_marked_sleeper((runs / "old" / "000001-case1").string());
  ASSERT_GT(orphan, 0);
  const std::vector<std::string> report = kill_leftovers(runs.string(), ".owner");
  ASSERT_EQ(report.size(), 1u);
  EXPECT_EQ(report[0],
            (runs / "old").string() + ": pid(s) " + std::to_string(orphan) + " (000001-case1)");
  EXPECT_TRUE(gone(orphan));
}

}  // namespace
}  // namespace sao::adapters
