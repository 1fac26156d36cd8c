// `sao doe` as a user drives it (docs/doe.md): a DOE killed (SIGKILL, SIGTERM) and resumed
// analyses every point once and ends with the uninterrupted DOE's points; stored points are
// re-used; settings errors and an unfinished DOE of other settings are refused (exit 2).
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <random>
#include <thread>

#include "tests/e2e/store_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace sao::testing;
using sao::testing::sao;

fs::path scratch(const std::string& name) {
  return scratch_directory("test-doe-cli", name);
}

// The multibody impact absorber on a fine grid: about 0.05 s per analysis, one per batch.
std::vector<std::string> lhs_doe(const fs::path& out) {
  return {"doe",   kProblems + "impact-absorber/max-acceleration-multibody.json",
          "--out", out.string(),
          "--set", "load_cases.0.time.points=6001",
          "--set", "doe.method=lhs",
          "--set", "doe.points=24",
          "--set", "doe.batch=1",
          "-q"};
}

std::string joined_args(const std::vector<std::string>& args) {
  std::string s;
  for (const std::string& a : args) s += (s.empty() ? "" : " ") + a;
  return s;
}

// Analyses of a design stored more than once (0: none repeated).
int repeated(const fs::path& store) {
  return query(store, "SELECT COUNT(*) - COUNT(DISTINCT design) FROM analyses");
}

TEST(DoeCli, AKilledDoeResumesWithoutRepeatingAnAnalysisToTheUninterruptedPoints) {
  const fs::path dir = scratch("kill");
  const auto t0 = std::chrono::steady_clock::now();
  const CommandOutput reference = sao(joined_args(lhs_doe(dir / "reference")));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(reference.code, 0) << reference.text;
  const fs::path ref_store = dir / "reference" / "study.sqlite";
  ASSERT_EQ(query(ref_store, "SELECT COUNT(*) FROM analyses"), 24);

  const fs::path store = dir / "killed" / "study.sqlite";
  std::mt19937 rng(11);
  int killed_mid_run = 0;
  for (int k = 0; k < 4; ++k) {
    const double at = std::uniform_real_distribution<double>(0.15, 0.45)(rng) * seconds;
    const pid_t pid = spawn_sao(lhs_doe(dir / "killed"));
    std::this_thread::sleep_for(std::chrono::duration<double>(at));
    kill(pid, k == 2 ? SIGTERM : SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) break;  // it finished first
    ++killed_mid_run;
    if (k == 2 && WIFEXITED(status)) {
      EXPECT_EQ(WEXITSTATUS(status), 3);  // SIGTERM: exit 3
    }
    // Killed before it created its store (a loaded machine): nothing stored, nothing repeated.
    if (!fs::exists(store)) continue;
    EXPECT_EQ(repeated(store), 0) << "kill " << k << " at " << at << " s";
    std::printf("kill %d at %.3f s: %d analyses stored\n", k, at,
                query(store, "SELECT COUNT(*) FROM analyses"));
  }
  EXPECT_GE(killed_mid_run, 2);
  const CommandOutput resumed = sao("doe " + (dir / "killed").string());
  ASSERT_EQ(resumed.code, 0) << resumed.text;
  EXPECT_TRUE(contains(resumed.text, "resuming DOE 1")) << resumed.text;
  EXPECT_EQ(query(store, "SELECT COUNT(*) FROM analyses"), 24);
  EXPECT_EQ(repeated(store), 0);
  EXPECT_EQ(query(store, "SELECT COUNT(*) FROM does"), 1);
  // The same 24 designs, bit for bit, as the uninterrupted DOE.
  EXPECT_EQ(query(store,
                  "SELECT COUNT(*) FROM analyses a WHERE EXISTS (SELECT 1 FROM r.analyses b "
                  "WHERE b.design = a.design)",
                  "ATTACH '" + ref_store.string() + "' AS r;"),
            24);
  // Once more: nothing left to analyse.
  const CommandOutput again = sao("doe " + (dir / "killed").string() + " --json");
  EXPECT_TRUE(contains(again.text, "\"analysed\":0")) << again.text;
  EXPECT_TRUE(contains(again.text, "\"reused\":24")) << again.text;
  // sao export: one row per point.
  const CommandOutput csv = sao("export " + (dir / "killed").string() + " --out - 2>/dev/null");
  EXPECT_EQ(std::count(csv.text.begin(), csv.text.end(), '\n'), 24 + 2);  // header, units
}

std::string factorial(const fs::path& out, int levels) {
  return "doe " + kProblems + "impact-absorber/max-acceleration.json --out " + out.string() +
         " --set doe.method=full_factorial --set doe.levels=" + std::to_string(levels);
}

TEST(DoeCli, StoredPointsAreReusedAndAnUnfinishedDoeOfOtherSettingsIsRefused) {
  const fs::path dir = scratch("reuse");
  const fs::path store = dir / "study.sqlite";
  ASSERT_EQ(sao(factorial(dir, 3)).code, 0);
  EXPECT_EQ(query(store, "SELECT COUNT(*) FROM analyses"), 9);
  // Two analyses lost: DOE 1 is unfinished, another DOE is refused, naming the difference.
  execute(store, "DELETE FROM analyses WHERE id IN (2, 5)");
  const CommandOutput refused = sao(factorial(dir, 5));
  EXPECT_EQ(refused.code, 2) << refused.text;
  EXPECT_TRUE(
      contains(refused.text, "DOE 1 (full_factorial, 7 of 9 points analysed) is unfinished"))
      << refused.text;
  EXPECT_TRUE(contains(refused.text, "doe.levels [3,3] -> [5,5]")) << refused.text;
  const CommandOutput finished = sao("doe " + dir.string());
  EXPECT_EQ(finished.code, 0) << finished.text;
  EXPECT_TRUE(contains(finished.text, "2 analysed now (0 failed), 7 re-used")) << finished.text;
  // 5 levels hold the 3 levels' points (0, 0.5, 1 of each range) bit for bit: 9 of 25 re-used.
  const CommandOutput five = sao(factorial(dir, 5));
  EXPECT_EQ(five.code, 0) << five.text;
  EXPECT_TRUE(contains(five.text, "new DOE 2")) << five.text;
  EXPECT_TRUE(contains(five.text, "16 analysed now (0 failed), 9 re-used")) << five.text;
  EXPECT_EQ(query(store, "SELECT COUNT(*) FROM analyses"), 25);
  EXPECT_EQ(repeated(store), 0);
  // The store's study is the run's: `sao run DIR` works on it (its analyses are the DOE's too).
  const CommandOutput status = sao("status " + dir.string());
  EXPECT_TRUE(contains(status.text, "doe        DOE 2: full_factorial, 25 of 25 points analysed"))
      << status.text;
}

TEST(DoeCli, BadSettingsAndUsageAreExitCode2NamingTheKey) {
  const fs::path dir = scratch("errors");
  const std::string study = kProblems + "impact-absorber/max-acceleration.json";
  const CommandOutput none = sao("doe " + study + " --out " + (dir / "a").string());
  EXPECT_EQ(none.code, 2);
  EXPECT_TRUE(contains(none.text, "has no \"doe\" section")) << none.text;
  const CommandOutput key = sao("doe " + study + " --out " + (dir / "b").string() +
                                " --set doe.method=lhs --set doe.levels=3");
  EXPECT_EQ(key.code, 2);
  EXPECT_TRUE(contains(key.text, "doe.points: missing")) << key.text;
  EXPECT_TRUE(contains(key.text, "doe.levels: applies to full_factorial")) << key.text;
  ASSERT_EQ(sao("doe " + study + " --out " + (dir / "c").string() +
                " --set doe.method=sobol --set doe.points=3")
                .code,
            0);
  const CommandOutput other = sao("doe " + (dir / "c").string() + " --set settings.cutoff=0.5");
  EXPECT_EQ(other.code, 2);
  EXPECT_TRUE(contains(other.text, "only doe.KEY=VALUE")) << other.text;
  const CommandOutput out = sao("doe " + (dir / "c").string() + " --out " + (dir / "d").string());
  EXPECT_EQ(out.code, 2);
}

}  // namespace
