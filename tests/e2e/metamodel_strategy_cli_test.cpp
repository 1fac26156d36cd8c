// The metamodel strategy through the command line (issue 50): a run stopped at its cycle limit
// and continued reaches the uninterrupted run's result without analysing a design twice, the
// strategy can be switched on and off between cycles (sao set), and a setting that cannot work
// with it is refused naming the rule.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/e2e/store_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace sao::testing;  // query(), kProblems, read_json
using sao::testing::sao;       // the function, before the namespace sao
using Output = CommandOutput;

fs::path scratch(const std::string& name) {
  return scratch_directory("test-metamodel-strategy-cli", name);
}

// The noisy impact absorber with kriging and expected improvement over the whole box.
std::string noisy_metamodel_run(const fs::path& out, int max_cycles) {
  return "run " + kProblems + "impact-absorber/noisy.json -q --out " + out.string() +
         " --set settings.approximation=local --set settings.strategy=metamodel"
         " --set settings.metamodel=kriging --set settings.infill=expected_improvement"
         " --set design_variables.0.move_limit=1 --set design_variables.1.move_limit=1"
         " --set settings.max_cycles=" +
         std::to_string(max_cycles);
}

TEST(MetamodelStrategyCli, ContinuedRunReachesTheUninterruptedResult) {
  const fs::path dir = scratch("continued");
  const Output reference = sao(noisy_metamodel_run(dir / "reference", 8));
  ASSERT_LE(reference.code, 1) << reference.text;  // converged or the cycle limit
  const Output limited = sao(noisy_metamodel_run(dir / "limited", 3));
  ASSERT_EQ(limited.code, 1) << limited.text;
  EXPECT_NE(limited.text.find("cycle limit 3 reached"), std::string::npos) << limited.text;
  const Output set = sao("set " + (dir / "limited").string() + " max_cycles=8");
  ASSERT_EQ(set.code, 0) << set.text;
  const Output resumed = sao("run " + (dir / "limited").string() + " -q");
  ASSERT_LE(resumed.code, 1) << resumed.text;
  const nlohmann::json a = read_json(dir / "reference" / "result.json");
  const nlohmann::json b = read_json(dir / "limited" / "result.json");
  EXPECT_EQ(a["status"], b["status"]);
  EXPECT_EQ(a["cycles"], b["cycles"]);
  EXPECT_EQ(a["analyses"], b["analyses"]);
  for (const auto& [name, value] : a["design"].items()) {
    EXPECT_EQ(b["design"][name].get<double>(), value.get<double>()) << name;
  }
  // Every design analysed once in the continued store, as many as in the uninterrupted one.
  const fs::path store = dir / "limited" / "study.sqlite";
  EXPECT_EQ(query(store, "SELECT COUNT(*) FROM analyses"),
            query(dir / "reference" / "study.sqlite", "SELECT COUNT(*) FROM analyses"));
  EXPECT_EQ(query(store,
                  "SELECT COUNT(*) FROM (SELECT 1 FROM analyses GROUP BY inputs_hash, design, "
                  "derivatives HAVING COUNT(*) > 1)"),
            0);
}

TEST(MetamodelStrategyCli, StrategySwitchedBetweenCyclesAndRefusedWhereItCannotWork) {
  const fs::path dir = scratch("switch");
  const std::string d = (dir / "run").string();
  const Output first = sao("run " + kProblems + "impact-absorber/max-acceleration.json -q --out " +
                           d + " --max-cycles 2");
  ASSERT_EQ(first.code, 1) << first.text;
  const Output on = sao("set " + d + " strategy=metamodel max_cycles=30");
  ASSERT_EQ(on.code, 0) << on.text;
  const Output step = sao("step " + d + " --json");
  ASSERT_EQ(step.code, 0) << step.text;
  const nlohmann::json record = nlohmann::json::parse(step.text.substr(step.text.find('{')));
  EXPECT_NE(record.dump().find("\"fit_points\":"), std::string::npos) << record.dump();
  // The multi-point study cannot take the strategy: the rule is named, exit 2.
  const std::string noisy = (dir / "noisy").string();
  ASSERT_EQ(
      sao("run " + kProblems + "impact-absorber/noisy.json -q --out " + noisy + " --max-cycles 1")
          .code,
      1);
  const Output refused = sao("set " + noisy + " strategy=metamodel max_cycles=30");
  EXPECT_EQ(refused.code, 2) << refused.text;
  EXPECT_NE(refused.text.find("cannot be combined with \"approximation\": \"multipoint\""),
            std::string::npos)
      << refused.text;
}

}  // namespace
