// Reliability-based design as a user drives it (docs/robustness.md, "Reliability-based design"):
// problems/robustness/rbdo-linear.json has a closed-form optimum (responses linear in correlated
// normal tolerances, so the first-order margins are exact): `sao run` reaches it with the
// margins the closed form gives, result.json and the message say which, and `sao robust
// --method mc-analyses` at the run's design finds the target probability inside its interval.
// The loader names every misuse of "reliability".
#include <cmath>
#include <fstream>
#include <functional>

#include "sao/reliability/distribution.hpp"
#include "tests/e2e/store_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace sao::testing;
using nlohmann::json;
using sao::testing::sao;

const std::string kStudy = kProblems + "robustness/rbdo-linear.json";
// sd(x1 + x2) = sqrt(0.09 + 0.16 + 2 0.5 0.3 0.4), sd(x1 - x2) = sqrt(0.09 + 0.16 - 0.12).
const double kSdH = std::sqrt(0.37), kSdG = std::sqrt(0.13);
const double kK = sao::reliability::normal_quantile(0.99);
const double kSum = 4 + kK * kSdH, kDifference = 6 - 2 * kSdG;
const double kX1 = (kSum + kDifference) / 2, kX2 = (kSum - kDifference) / 2;

const json& margin_of(const json& result, const std::string& name) {
  for (const json& m : result["reliability"]) {
    if (m["constraint"] == name) return m;
  }
  static const json none;
  ADD_FAILURE() << "no margin of " << name << " in " << result.dump();
  return none;
}

TEST(RbdoCli, ALinearStudyReachesTheClosedFormOptimumWithTheExactMargins) {
  const fs::path out = scratch_directory("test-rbdo-cli", "linear");
  const CommandOutput run = sao("run " + kStudy + " --out " + out.string() + " -q");
  ASSERT_EQ(run.code, 0) << run.text;
  const json result = read_json(out / "result.json");
  EXPECT_EQ(result["status"], "converged") << result["message"];
  EXPECT_NEAR(result["design"]["x1"].get<double>(), kX1, 1e-4);
  EXPECT_NEAR(result["design"]["x2"].get<double>(), kX2, 1e-4);
  EXPECT_NEAR(result["objective"].get<double>(), kX1 + 2 * kX2, 1e-4);
  // V holds the margins: both shifted constraints active, so V is about 0 (not -26 %, the
  // nominal h's slack at the design).
  EXPECT_NEAR(result["max_violation"].get<double>(), 0.0, 0.1);
  const json& h = margin_of(result, "h");
  EXPECT_NEAR(h["k"].get<double>(), kK, 1e-9);
  EXPECT_EQ(h["probability"].get<double>(), 0.01);
  EXPECT_NEAR(h["sd"].get<double>(), kSdH, 1e-5);
  EXPECT_NEAR(h["margin"].get<double>(), kK * kSdH, 1e-5);
  const json& g = margin_of(result, "g");
  EXPECT_TRUE(g["probability"].is_null());
  EXPECT_NEAR(g["margin"].get<double>(), 2 * kSdG, 1e-5);
  EXPECT_TRUE(contains(result["message"].get<std::string>(),
                       "reliability targets held with first-order margins"))
      << result["message"];

  // Monte Carlo on analyses at the run's design: P(h < 4) = 0.01 lies in the interval.
  const CommandOutput mc =
      sao("robust " + out.string() + " --method mc-analyses --samples 3000 --json -q");
  ASSERT_EQ(mc.code, 0) << mc.text;
  const json robust = json::parse(mc.text);
  bool checked = false;
  for (const json& v : robust["values"]) {
    if (v["name"] != "constraint.h") continue;
    checked = true;
    EXPECT_LE(v["violation"]["low"].get<double>(), 0.01) << v.dump();
    EXPECT_GE(v["violation"]["high"].get<double>(), 0.01) << v.dump();
    EXPECT_EQ(v["target"]["probability"].get<double>(), 0.01);
    EXPECT_TRUE(contains(v["target"]["verdict"].get<std::string>(), "P(violated) <= 0.01"));
  }
  EXPECT_TRUE(checked) << mc.text;
}

fs::path edited(const fs::path& dir, const std::string& name,
                const std::function<void(json&)>& edit) {
  json doc = read_json(kStudy);
  edit(doc);
  const fs::path file = dir / (name + ".json");
  std::ofstream(file) << doc.dump(2);
  return file;
}

TEST(RbdoCli, ReliabilityMisusesAreNamed) {
  const fs::path dir = scratch_directory("test-rbdo-cli", "errors");
  struct Case {
    std::string name;
    std::function<void(json&)> edit;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"both",
       [](json& d) {
         d["constraints"][0]["reliability"] = {{"probability", 0.01}, {"k", 2}};
       },
       "constraints[0].reliability: give only one of \"probability\""},
      {"neither", [](json& d) { d["constraints"][0]["reliability"] = json::object(); },
       "constraints[0].reliability: missing: give one of \"probability\""},
      {"probability",
       [](json& d) {
         d["constraints"][0]["reliability"] = {{"probability", 0.7}};
       },
       "constraints[0].reliability.probability: must be in (0, 0.5), got 0.7"},
      {"k",
       [](json& d) {
         d["constraints"][1]["reliability"] = {{"k", -1}};
       },
       "constraints[1].reliability.k"},
      {"unknown", [](json& d) { d["constraints"][1]["reliability"]["beta"] = 3; },
       "constraints[1].reliability"},
      {"equals",
       [](json& d) {
         d["constraints"][1].erase("upper");
         d["constraints"][1]["equals"] = 6;
       },
       "constraints[1].reliability: not with \"equals\""},
      {"no_random",
       [](json& d) {
         d.erase("random_variables");
         d.erase("correlations");
       },
       "constraints[0].reliability: needs a \"random_variables\" section"},
  };
  for (const Case& c : cases) {
    const CommandOutput out = sao("check " + edited(dir, c.name, c.edit).string());
    EXPECT_EQ(out.code, 2) << c.name << ": " << out.text;
    EXPECT_TRUE(contains(out.text, c.message)) << c.name << ": " << out.text;
  }
}

}  // namespace
