// A sweep killed with SIGKILL half-way and run again (issue 18): every member that had
// finished is kept (replayed without a simulator run), the others resume from their stores,
// and no stored analysis is run again: over all the member stores, as many analyses were run
// as in an uninterrupted sweep, and no (design, derivatives) twice.
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

int run_sao(const std::vector<std::string>& args, double kill_after = -1) {
  const pid_t pid = spawn_sao(args);
  if (kill_after >= 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(kill_after));
    kill(pid, SIGKILL);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
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

  // Killed between 45 % and 80 % of the way: the first member has finished (usually).
  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  const double at = std::uniform_real_distribution<double>(0.45, 0.8)(rng) * duration;
  const int killed = run_sao(sweep_args(dir / "killed"), at);
  ASSERT_EQ(killed, -SIGKILL) << "the sweep ended before the kill at " << at << " s";
  const Counts before = count(dir / "killed");
  std::printf("killed at %.2f s of %.2f s: %d member stores, %d finished, %d analyses run\n", at,
              duration, before.stores, before.finished, before.run);
  EXPECT_GE(before.stores, 1) << "seed " << seed;

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
