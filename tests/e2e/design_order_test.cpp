// Designs are listed in the study's order (design variables in file order, then auxiliaries),
// never alphabetically (issue 46): the console's summary, result.json (the design and every
// cycle's b0 and b_opt), `sao run --json` and `sao status --json`, on the impact absorber with
// its variables named k, c (design) and amax (auxiliary), which sort as amax, c, k.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/e2e/store_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace sao::testing;
using sao::testing::sao;
using ordered = nlohmann::ordered_json;

const std::vector<std::string> kOrder = {"k", "c", "amax"};

// The impact absorber (max acceleration, bound formulation) with its variables renamed.
fs::path renamed_study(const fs::path& dir) {
  nlohmann::json doc = read_json(kProblems + "impact-absorber/max-acceleration.json");
  doc["design_variables"][0]["name"] = "k";
  doc["design_variables"][1]["name"] = "c";
  doc["auxiliary_variables"][0]["name"] = "amax";
  doc["objective"]["auxiliary"] = "amax";
  doc["simulator"]["parameters"] = {{"k", "k"}, {"c", "c"}};
  doc["settings"]["max_cycles"] = 3;
  fs::create_directories(dir);
  const fs::path file = dir / "absorber-kc.json";
  std::ofstream(file) << doc.dump(2);
  return file;
}

std::vector<std::string> keys_of(const ordered& object) {
  std::vector<std::string> out;
  for (const auto& [key, value] : object.items()) out.push_back(key);
  return out;
}

TEST(DesignOrder, ConsoleResultJsonAndJsonOutputsFollowTheStudy) {
  const fs::path dir = scratch_directory("test-design-order");
  const fs::path study = renamed_study(dir);

  const CommandOutput run = sao("run " + study.string() + " --out " + (dir / "run").string());
  ASSERT_NE(run.text.find("status "), std::string::npos) << run.text;
  const size_t line = run.text.find("\ndesign ");
  ASSERT_NE(line, std::string::npos) << run.text;
  const std::string design = run.text.substr(line, run.text.find('\n', line + 1) - line);
  const size_t k = design.find(" k = "), c = design.find(" c = "), a = design.find(" amax = ");
  ASSERT_TRUE(k != std::string::npos && c != std::string::npos && a != std::string::npos) << design;
  EXPECT_LT(k, c) << design;
  EXPECT_LT(c, a) << design;

  std::ifstream in(dir / "run" / "result.json");
  const ordered result = ordered::parse(in);
  EXPECT_EQ(keys_of(result["design"]), kOrder);
  ASSERT_FALSE(result["history"].empty());
  for (const ordered& cycle : result["history"]) {
    EXPECT_EQ(keys_of(cycle["b0"]), kOrder) << cycle.dump();
    EXPECT_EQ(keys_of(cycle["b_opt"]), kOrder) << cycle.dump();
  }

  const CommandOutput json_run = run_command(kSao + " run " + study.string() + " --out " +
                                             (dir / "json").string() + " --json 2>/dev/null");
  std::istringstream lines(json_run.text);
  int cycles = 0, ends = 0;
  for (std::string text; std::getline(lines, text);) {
    const ordered event = ordered::parse(text, nullptr, false);
    if (!event.is_object()) continue;
    if (event.value("event", "") == "cycle") {
      ++cycles;
      EXPECT_EQ(keys_of(event["record"]["b0"]), kOrder) << text;
      EXPECT_EQ(keys_of(event["record"]["b_opt"]), kOrder) << text;
    } else if (event.value("event", "") == "end") {
      ++ends;
      EXPECT_EQ(keys_of(event["design"]), kOrder) << text;
    }
  }
  EXPECT_GT(cycles, 0) << json_run.text;
  EXPECT_EQ(ends, 1) << json_run.text;

  const CommandOutput status =
      run_command(kSao + " status " + (dir / "run").string() + " --json 2>/dev/null");
  ASSERT_EQ(status.code, 0) << status.text;
  const ordered doc = ordered::parse(status.text);
  ASSERT_FALSE(doc["branches"][0]["cycles"].empty());
  for (const ordered& cycle : doc["branches"][0]["cycles"]) {
    EXPECT_EQ(keys_of(cycle["b0"]), kOrder) << cycle.dump();
  }
}

}  // namespace
