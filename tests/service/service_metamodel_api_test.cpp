// GET /api/studies/ID/metamodels (docs/service.md): `sao metamodel DIR --json`'s document of a
// study the service holds, with the command's options as query parameters; bad names and too
// few analyses answered with the service's error shape.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "tests/service/service_support.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace sao::testing;

const std::string kAbsorber = problem_file("impact-absorber/max-acceleration.json");
const std::string kId = "00000000000000d0";  // a study id the service takes from its data folder

// A data folder whose one study holds a 12-point DOE of the impact absorber, made by `sao doe`
// before the server starts (it takes the studies it finds).
fs::path doe_data(const fs::path& root) {
  const fs::path data = root / "data";
  const CommandOutput doe = sao_command("doe " + kAbsorber + " --out " + (data / kId).string() +
                                        " --set doe.method=lhs --set doe.points=12 -q");
  EXPECT_EQ(doe.code, 0) << doe.text;
  return data;
}

TEST(ServiceMetamodelApi, TheReportOfADoeIsTheCommands) {
  const fs::path root = scratch_directory("test-service");
  const fs::path data = doe_data(root);
  ServerProcess server(data);
  httplib::Client c = server.client();
  const std::string base = "/api/studies/" + kId;
  json api = get(c, base + "/metamodels?models=linear,kriging&sobol_samples=256", 200);
  const CommandOutput cli = sao_command("metamodel " + (data / kId).string() +
                                        " --json --models linear,kriging --sobol-samples 256");
  ASSERT_EQ(cli.code, 0) << cli.text;
  json expected = json::parse(cli.text);
  ASSERT_TRUE(api.is_object());
  EXPECT_TRUE(api["store"].get<std::string>().ends_with(kId + "/study.sqlite")) << api["store"];
  api.erase("store");
  expected.erase("store");
  EXPECT_EQ(api, expected);
  EXPECT_EQ(api["points"], 12);

  // response repeated (or comma-separated), the Sobol model, the seed.
  const json some = get(c,
                        base +
                            "/metamodels?response=acceleration&response=displacement&models="
                            "quadratic,rbf&sobol_model=rbf&sobol_samples=128&seed=3",
                        200);
  ASSERT_EQ(some["values"].size(), 4u) << some.dump(1);
  EXPECT_EQ(some["sobol_settings"]["model"], "rbf");
  EXPECT_EQ(some["sobol_settings"]["seed"], 3);
  for (const json& v : some["values"]) {
    EXPECT_EQ(v["sobol"]["model"], "rbf") << v["name"];
    // Predicted against computed: a point per design, each with its design by name.
    ASSERT_EQ(v["loo_points"].size(), 12u) << v["name"];
    for (const json& p : v["loo_points"]) {
      EXPECT_TRUE(p["design"].contains("b1")) << p.dump();
      EXPECT_TRUE(std::isfinite(p["predicted_loo"].get<double>())) << p.dump();
    }
  }
}

// POST /api/studies/ID/doe: `sao doe DIR --set doe.KEY=VALUE`'s plan and analyses, so the same
// metamodels as the command's; again with no settings: resumed, every point re-used; then the
// study steps from its store; bad settings are 400.
TEST(ServiceMetamodelApi, ADoeThroughTheServiceIsTheCommands) {
  ServedStudy served(kAbsorber);
  httplib::Client& c = served.client;
  const json started =
      post(c, served.base + "/doe",
           {{"assignments", {"doe.method=lhs", "doe.points=12", "doe.seed=5"}}}, 202);
  EXPECT_EQ(started["points"], 12);
  EXPECT_EQ(started["resumed"], false);
  EXPECT_EQ(started["method"], "lhs");
  EXPECT_EQ(when_idle(c, served.base)["store"]["analyses"], 12);
  const json api = get(c, served.base + "/metamodels?models=linear,rbf&sobol_model=none", 200);
  const fs::path cli = served.root / "cli";
  ASSERT_EQ(sao_command("doe " + kAbsorber + " --out " + cli.string() +
                        " --set doe.method=lhs --set doe.points=12 --set doe.seed=5 -q")
                .code,
            0);
  const CommandOutput theirs =
      sao_command("metamodel " + cli.string() + " --json --models linear,rbf --sobol-model none");
  ASSERT_EQ(theirs.code, 0) << theirs.text;
  EXPECT_EQ(api["values"], json::parse(theirs.text)["values"]);

  const json again = post(c, served.base + "/doe", json::object(), 202);
  EXPECT_EQ(again["resumed"], true);
  EXPECT_EQ(again["doe"], started["doe"]);
  EXPECT_EQ(when_idle(c, served.base)["store"]["analyses"], 12);
  EXPECT_EQ(post(c, served.base + "/step")["record"]["cycle"], 1);

  const json bad = post(c, served.base + "/doe", {{"doe.method", "random"}}, 400);
  EXPECT_TRUE(bad.contains("errors")) << bad.dump();
  EXPECT_NE(bad.dump().find("doe.method"), std::string::npos) << bad.dump();
  const json other = post(c, served.base + "/doe", {{"max_cycles", 3}}, 400);
  EXPECT_NE(other.dump().find("only doe.KEY=VALUE"), std::string::npos) << other.dump();
  EXPECT_EQ(post(c, served.base + "/step")["record"]["cycle"], 2);  // the study still steps
}

TEST(ServiceMetamodelApi, BadNamesAndTooFewAnalysesAreTold) {
  const fs::path root = scratch_directory("test-service");
  ServerProcess server(doe_data(root));
  httplib::Client c = server.client();
  const std::string base = "/api/studies/" + kId;
  const auto message = [](const json& j) { return j.value("message", std::string()); };
  EXPECT_NE(
      message(get(c, base + "/metamodels?models=quartic", 400)).find("unknown model \"quartic\""),
      std::string::npos);
  EXPECT_NE(
      message(get(c, base + "/metamodels?response=speed", 400)).find("unknown response \"speed\""),
      std::string::npos);
  EXPECT_NE(message(get(c, base + "/metamodels?models=linear&sobol_model=rbf", 400))
                .find("the Sobol model \"rbf\" is not among the models asked"),
            std::string::npos);
  EXPECT_NE(message(get(c, base + "/metamodels?sobol_samples=10", 400)).find("sobol_samples"),
            std::string::npos);
  get(c, "/api/studies/0000000000000bad/metamodels", 404);
  // A study without analyses: 409 saying how many it needs and how to get them.
  const std::string fresh =
      post(c, "/api/studies", json::parse(read_file(kAbsorber)), 201).value("id", "");
  const json few = get(c, "/api/studies/" + fresh + "/metamodels", 409);
  EXPECT_NE(message(few).find("the store holds 0 successful analyses"), std::string::npos)
      << few.dump();
  EXPECT_NE(message(few).find("sao doe"), std::string::npos) << few.dump();
}

}  // namespace
