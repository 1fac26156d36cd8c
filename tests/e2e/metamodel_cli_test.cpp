// `sao metamodel DIR` as a user runs it (docs/metamodels.md): after a DOE of the impact
// absorber, the text report and the --json document with its keys and units (the histories'
// maxima and their times, the objective and the constraint); bad input exits 2 with a message
// naming it.
#include <algorithm>
#include <cmath>

#include "tests/e2e/store_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace sao::testing;
using sao::testing::sao;

TEST(MetamodelCli, TextAndJsonReportsOfADoe) {
  const fs::path dir = scratch_directory("test-metamodel-cli");
  const CommandOutput doe =
      sao("doe " + kProblems + "impact-absorber/max-acceleration.json --out " + dir.string() +
          " --set doe.method=lhs --set doe.points=12 -q");
  ASSERT_EQ(doe.code, 0) << doe.text;

  const CommandOutput text = sao("metamodel " + dir.string() + " --sobol-samples 256");
  ASSERT_EQ(text.code, 0) << text.text;
  EXPECT_TRUE(contains(text.text, "points     12 distinct designs of 12 successful analyses"))
      << text.text;
  EXPECT_TRUE(contains(text.text, "impact.acceleration.max [m/s^2] (history max, 12 points"))
      << text.text;
  EXPECT_TRUE(contains(text.text, "objective.max_acceleration [m/s^2] (objective"));
  EXPECT_TRUE(contains(text.text, "Sobol indices of")) << text.text;

  const CommandOutput out = run_command(kSao + " metamodel " + dir.string() +
                                        " --json --models linear,kriging --sobol-samples 256 "
                                        "--response acceleration --response displacement "
                                        "2>/dev/null");
  ASSERT_EQ(out.code, 0) << out.text;
  const nlohmann::json j = nlohmann::json::parse(out.text);
  for (const char* key :
       {"store", "analyses", "points", "variables", "models", "sobol_settings", "values"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["points"], 12);
  EXPECT_EQ(j["models"], nlohmann::json::array({"linear", "kriging"}));
  EXPECT_EQ(j["variables"][0]["name"], "b1");
  EXPECT_EQ(j["variables"][0]["unit"], "N/m");
  EXPECT_EQ(j["variables"][0]["input"], true);
  // acceleration: its maximum and the time of it; displacement (|y| <= 1): the constraint's two
  // parts, y <= 1 and -y <= 1.
  ASSERT_EQ(j["values"].size(), 4u) << j.dump(1);
  EXPECT_EQ(j["values"][0]["name"], "impact.acceleration.max");
  EXPECT_EQ(j["values"][0]["unit"], "m/s^2");
  EXPECT_EQ(j["values"][1]["name"], "impact.acceleration.t_max");
  EXPECT_EQ(j["values"][1]["kind"], "time of history max");
  EXPECT_EQ(j["values"][2]["name"], "constraint.displacement[+]");
  EXPECT_EQ(j["values"][2]["unit"], "m");
  EXPECT_EQ(j["values"][3]["name"], "constraint.displacement[-]");
  for (const auto& v : j["values"]) {
    for (const char* key :
         {"kind", "response", "load_case", "points", "models", "best", "loo_points", "sobol"})
      EXPECT_TRUE(v.contains(key)) << key;
    ASSERT_EQ(v["models"].size(), 2u);
    const auto& m = v["models"][0];
    for (const char* key :
         {"model", "needs", "fitted", "press", "loo_rms", "r2_pred", "r2", "r2_adjusted"}) {
      EXPECT_TRUE(m.contains(key)) << key << " " << m.dump();
    }
  }
  // Predicted against computed: one point per design, each the LOO prediction of the best
  // model; the best model's LOO RMS is the RMS of computed minus predicted.
  for (const auto& v : j["values"]) {
    ASSERT_TRUE(v["loo_points"].is_array()) << v.dump(1);
    ASSERT_EQ(v["loo_points"].size(), v["points"].get<size_t>()) << v["name"];
    double press = 0.0;
    for (const auto& p : v["loo_points"]) {
      ASSERT_TRUE(p["design"].contains("b1") && p["design"].contains("b2")) << p.dump();
      const double e = p["computed"].get<double>() - p["predicted_loo"].get<double>();
      press += e * e;
    }
    double loo_rms = 0.0;
    for (const auto& m : v["models"]) {
      if (m["model"] == v["best"]) loo_rms = m["loo_rms"].get<double>();
    }
    EXPECT_NEAR(std::sqrt(press / static_cast<double>(v["loo_points"].size())), loo_rms,
                1e-9 * std::max(1.0, loo_rms))
        << v["name"];
  }
  const auto& sobol = j["values"][0]["sobol"];
  ASSERT_TRUE(sobol.is_object()) << j["values"][0].dump(1);
  EXPECT_EQ(sobol["variables"].size(), 2u);
  for (const char* key : {"name", "S", "S_low", "S_high", "ST", "ST_low", "ST_high"})
    EXPECT_TRUE(sobol["variables"][0].contains(key)) << key;
}

TEST(MetamodelCli, BadInputExitsTwo) {
  const fs::path dir = scratch_directory("test-metamodel-cli");
  ASSERT_EQ(sao("doe " + kProblems + "impact-absorber/max-acceleration.json --out " + dir.string() +
                " --set doe.method=lhs --set doe.points=3 -q")
                .code,
            0);
  const CommandOutput few = sao("metamodel " + dir.string());
  EXPECT_EQ(few.code, 2) << few.text;
  EXPECT_TRUE(contains(few.text, "error: metamodel: the store holds 3 successful analyses"))
      << few.text;
  EXPECT_TRUE(contains(few.text, "(linear) needs at least 4")) << few.text;
  const CommandOutput model = sao("metamodel " + dir.string() + " --models quartic");
  EXPECT_EQ(model.code, 2) << model.text;
  EXPECT_TRUE(contains(model.text, "unknown model \"quartic\"")) << model.text;
  const CommandOutput response = sao("metamodel " + dir.string() + " --response speed");
  EXPECT_EQ(response.code, 2) << response.text;
  EXPECT_TRUE(contains(response.text, "unknown response \"speed\"")) << response.text;
  const CommandOutput empty = sao("metamodel " + dir.parent_path().string());
  EXPECT_EQ(empty.code, 2) << empty.text;
}

}  // namespace
