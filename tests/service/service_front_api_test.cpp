// POST and GET /api/studies/ID/pareto and /robust (docs/service.md): `sao pareto DIR` and `sao
// robust DIR --json` on a hosted study, on the run's thread, their results the command's; a
// study of several objectives is hosted without a run; bad settings are 400.
#include <gtest/gtest.h>

#include "tests/service/service_support.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace sao::testing;

const std::string kSrn = problem_file("pareto/srn.json");
const std::string kLinear = problem_file("robustness/linear.json");

std::string message(const json& j) {
  return j.value("message", std::string());
}

// A front of SRN through the service is the command's (the same DOE, search and verification):
// the same points; the charts tell the verified points apart; again: every analysis re-used.
TEST(ServiceFrontApi, AFrontThroughTheServiceIsTheCommands) {
  ServedStudy served(kSrn);
  httplib::Client& c = served.client;
  const json status = get(c, served.base);
  ASSERT_EQ(status["objectives"].size(), 2u) << status.dump();
  EXPECT_EQ(status["status"], "no run");
  EXPECT_TRUE(status["history"].empty());
  EXPECT_NE(message(post(c, served.base + "/step", json::object(), 409)).find("2 objectives"),
            std::string::npos);
  EXPECT_NE(message(get(c, served.base + "/pareto", 404)).find("no Pareto front"),
            std::string::npos);

  const json settings = {{"population", 40}, {"generations", 60}, {"verify", 5}};
  const json started = post(c, served.base + "/pareto", settings, 202);
  EXPECT_EQ(started["points"], 20);  // max(10 n, 20)
  EXPECT_EQ(started["settings"]["verify"], 5);
  when_idle(c, served.base);
  const json api = get(c, served.base + "/pareto");
  const json& front = api["pareto"]["front"];
  ASSERT_FALSE(front.empty()) << api.dump();
  EXPECT_GT(api["pareto"]["analysed"].get<int>(), 20);  // the DOE and the verified points
  EXPECT_LE(api["pareto"]["analysed"].get<size_t>(), 20 + 5 * api["pareto"]["rounds"].size());

  const fs::path cli = served.root / "cli";
  const CommandOutput theirs = sao_command("pareto " + kSrn + " --out " + cli.string() +
                                           " --population 40 --generations 60 --verify 5 -q");
  ASSERT_EQ(theirs.code, 0) << theirs.text;
  EXPECT_EQ(front, json::parse(read_file(cli / "pareto.json"))["front"]);

  // Two objectives: one chart, the predicted front as a curve, the verified points' predictions
  // and analyses as two sets of markers.
  ASSERT_EQ(api["charts"].size(), 1u);
  const json& series = api["charts"][0]["series"];
  ASSERT_EQ(series.size(), 3u);
  size_t verified = 0;
  for (const json& p : front) verified += p["verified"].get<bool>();
  EXPECT_EQ(series[0]["x"].size(), front.size());
  EXPECT_TRUE(series[0]["line"].get<bool>());
  EXPECT_EQ(series[1]["x"].size(), verified);
  EXPECT_EQ(series[2]["x"].size(), verified);
  EXPECT_FALSE(series[2]["line"].get<bool>());

  post(c, served.base + "/pareto", settings, 202);
  when_idle(c, served.base);
  const json again = get(c, served.base + "/pareto");
  EXPECT_EQ(again["pareto"]["analysed"], 0);
  EXPECT_EQ(again["pareto"]["front"], front);

  EXPECT_NE(message(post(c, served.base + "/pareto", {{"population", 3}}, 400)).find("population"),
            std::string::npos);
  EXPECT_NE(message(post(c, served.base + "/pareto", {{"colour", 1}}, 400)).find("unknown"),
            std::string::npos);
  // No random variables: no robustness estimate.
  EXPECT_NE(post(c, served.base + "/robust", json::object(), 400).dump().find("random_variables"),
            std::string::npos);
}

// Three objectives (SRN's with x1^2 + x2^2 minimised too): a scatter matrix, one chart per pair
// of objectives, (f1, f2), (f1, c1), (f2, c1), the front as markers (no curve through them).
TEST(ServiceFrontApi, ThreeObjectivesAreAScatterMatrix) {
  json study = json::parse(read_file(kSrn));
  study["objectives"].push_back({{"name", "c1"}, {"minimize", "c1"}});
  ServerProcess server(scratch_directory("test-service") / "data");
  httplib::Client c = server.client();
  const std::string base = "/api/studies/" + post(c, "/api/studies", study, 201).value("id", "");
  post(c, base + "/pareto", {{"population", 40}, {"generations", 40}, {"verify", 4}, {"rounds", 1}},
       202);
  when_idle(c, base);
  const json api = get(c, base + "/pareto");
  const json& charts = api["charts"];
  ASSERT_EQ(charts.size(), 3u) << api.dump();
  EXPECT_EQ(charts[0]["title"], "f2 against f1");
  EXPECT_EQ(charts[1]["title"], "c1 against f1");
  EXPECT_EQ(charts[2]["title"], "c1 against f2");
  for (const json& chart : charts) {
    ASSERT_EQ(chart["series"].size(), 3u);
    EXPECT_FALSE(chart["series"][0]["line"].get<bool>()) << chart["title"];
    EXPECT_EQ(chart["series"][0]["x"].size(), api["pareto"]["front"].size());
  }
}

// A robustness estimate through the service is `sao robust DIR --json`'s (the same local DOE,
// samples and verification); its design and bad settings; the study still steps.
TEST(ServiceFrontApi, ARobustnessEstimateThroughTheServiceIsTheCommands) {
  ServedStudy served(kLinear);
  httplib::Client& c = served.client;
  EXPECT_EQ(get(c, served.base)["objectives"].size(), 1u);
  EXPECT_TRUE(get(c, served.base)["random_variables"].get<bool>());
  get(c, served.base + "/robust", 404);
  const json started =
      post(c, served.base + "/robust", {{"samples", 4000}, {"verify", 4}, {"sobol", 256}}, 202);
  EXPECT_EQ(started["method"], "lhs");
  EXPECT_EQ(started["design"]["x1"], 1.0);
  EXPECT_EQ(started["design_source"], "initial design");
  when_idle(c, served.base);
  const json api = get(c, served.base + "/robust");

  const fs::path cli = served.root / "cli";
  const CommandOutput theirs = sao_command("robust " + kLinear + " --out " + cli.string() +
                                           " --json -q --samples 4000 --verify 4 --sobol 256");
  ASSERT_EQ(theirs.code, 0) << theirs.text;
  const json expected = json::parse(theirs.text);
  ASSERT_EQ(api["values"].size(), expected["values"].size()) << api.dump();
  EXPECT_EQ(api["values"], expected["values"]);
  EXPECT_TRUE(api["values"].back().contains("sobol")) << api["values"].back().dump();

  const json moved =
      post(c, served.base + "/robust",
           {{"method", "mc-analyses"}, {"samples", 30}, {"design", {{"x1", 0.5}}}}, 202);
  EXPECT_EQ(moved["design"]["x1"], 0.5);
  when_idle(c, served.base);
  const json other = get(c, served.base + "/robust");
  EXPECT_EQ(other["method"], "mc-analyses");
  EXPECT_EQ(other["analyses"][0]["analysed"], 30);

  EXPECT_NE(message(post(c, served.base + "/robust", {{"method", "sorm"}}, 400)).find("method"),
            std::string::npos);
  EXPECT_NE(message(post(c, served.base + "/robust", {{"design", {{"x9", 1}}}}, 400)).find("x9"),
            std::string::npos);
  EXPECT_NE(message(post(c, served.base + "/robust", {{"samples", 1}}, 400)).find("samples"),
            std::string::npos);
  EXPECT_NE(message(post(c, served.base + "/pareto", json::object(), 400)).find("one objective"),
            std::string::npos);
  EXPECT_EQ(post(c, served.base + "/step")["record"]["cycle"], 1);
}

}  // namespace
