// A sweep killed with SIGKILL inside its second member and run again (issue 18): every member that
// had finished is kept (replayed without a simulator run), the others resume from their stores, and
// no stored analysis is run again: over all the member stores, as many analyses were run as in an
// uninterrupted sweep, and no (design, derivatives) twice.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/store_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace sao::testing;  // query(), execute(), kProblems, ...
using sao::testing::sao;       // the function, before the namespace sao

// Three members of the slow multibody impact absorber (about 2 s each), one at a time.
std::vector<std::string> sweep_args(const fs::path& out) {
  return {"sweep",  kProblems + "impact-absorber/max-acceleration-multibody.json",
          "--vary", "constraints.0.upper=0.9,1,1.1",
          "--jobs", "1",
          "--set",  "load_cases.0.time.points=6001",
          "--set",  "settings.strategy=\"seed\"",
          "--out",  out.string()};
}

int exit_code(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

int run_sao(const std::vector<std::string>& args) {
  const pid_t pid = spawn_sao(args);
  int status = 0;
  waitpid(pid, &status, 0);
  return exit_code(status);
}

struct Counts {
  int run = 0;       // analyses run (rows with runs > 0) over every member store
  int finished = 0;  // members whose branch ended
  int stores = 0;
};

Counts count(const fs::path& out) {
  Counts c;
  if (!fs::is_directory(out / "members")) return c;
  for (const auto& member : fs::directory_iterator(out / "members")) {
    const fs::path store = member.path() / "study.sqlite";
    if (!fs::exists(store)) continue;
    ++c.stores;
    c.run += query(store, "SELECT COUNT(*) FROM analyses WHERE runs > 0");
    c.finished += query(store, "SELECT COUNT(*) FROM branches WHERE status != 'running'") > 0;
  }
  return c;
}

// Runs the sweep into `out` and kills it (SIGKILL) `delay` seconds after its first member has
// finished (polled in the member stores, read-only), so that the kill falls inside a later
// member however loaded the machine is. Returns the exit code (-SIGKILL when killed).
int run_sao_killed_after_first_member(const std::vector<std::string>& args, const fs::path& out,
                                      double delay) {
  const pid_t pid = spawn_sao(args);
  int status = 0;
  const auto limit = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  while (count(out).finished < 1 && std::chrono::steady_clock::now() < limit) {
    if (waitpid(pid, &status, WNOHANG) == pid) return exit_code(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(delay));
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return exit_code(status);
}

// (design, derivatives) run more than once over every member store (attached to one
// connection).
int repeated(const fs::path& out) {
  std::vector<fs::path> stores;
  for (const auto& member : fs::directory_iterator(out / "members")) {
    stores.push_back(member.path() / "study.sqlite");
  }
  // Store i is attached as s<i> (store 0 is the connection's own "main").
  auto name = [](size_t i) {
    std::string n = "s";
    n += std::to_string(i);
    return n;
  };
  std::string all = "SELECT COUNT(*) FROM (SELECT 1 FROM (";
  std::string attach;
  for (size_t i = 0; i < stores.size(); ++i) {
    if (i) all += " UNION ALL ";
    all += "SELECT inputs_hash, design, derivatives FROM ";
    all += i ? name(i) + ".analyses" : std::string("analyses");
    all += " WHERE runs > 0";
    if (i) attach += "ATTACH '" + stores[i].string() + "' AS " + name(i) + ";";
  }
  all += ") GROUP BY inputs_hash, design, derivatives HAVING COUNT(*) > 1)";
  return query(stores[0], all, attach);
}

TEST(SweepStore, AKilledSweepResumesKeepingEveryFinishedMemberAndAnalysis) {
  const fs::path dir = scratch_directory("test-sweep-store");
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(run_sao(sweep_args(dir / "reference")), 0);
  const double duration =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const Counts reference = count(dir / "reference");
  ASSERT_EQ(reference.stores, 3);
  ASSERT_EQ(reference.finished, 3);

  // Killed inside the second member: after the first has finished, at a random point of the
  // next quarter of a member's time (one member: a third of the uninterrupted sweep).
  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  const double at = std::uniform_real_distribution<double>(0.0, 0.25)(rng) * duration / 3.0;
  const int killed =
      run_sao_killed_after_first_member(sweep_args(dir / "killed"), dir / "killed", at);
  ASSERT_EQ(killed, -SIGKILL) << "the sweep ended before the kill, " << at
                              << " s after its first member";
  const Counts before = count(dir / "killed");
  std::printf(
      "killed %.2f s after the first member (sweep %.2f s): %d member stores, %d "
      "finished, %d analyses run\n",
      at, duration, before.stores, before.finished, before.run);
  EXPECT_GE(before.finished, 1) << "seed " << seed;

  ASSERT_EQ(run_sao(sweep_args(dir / "killed")), 0);
  const Counts after = count(dir / "killed");
  EXPECT_EQ(after.finished, 3);
  // Nothing stored was run again: as many analyses as the uninterrupted sweep, none twice.
  EXPECT_EQ(after.run, reference.run) << "seed " << seed << ", kill at " << at;
  EXPECT_EQ(repeated(dir / "killed"), 0);
  EXPECT_EQ(repeated(dir / "reference"), 0);
  // The same members' results.
  EXPECT_EQ(read_file(dir / "killed" / "compromise.csv"),
            read_file(dir / "reference" / "compromise.csv"));
}

}  // namespace
