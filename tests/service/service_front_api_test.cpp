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

// POST .../front-study: a verified front point of SRN as a new study of the service, the one
// `sao pareto DIR --start-study K OUT.json --objective f2` writes; it starts at the point's design
// and steps. 404 before a front, 400 for a bad point, objective or key.
TEST(ServiceFrontApi, AFrontPointStartsANewStudy) {
  ServedStudy served(kSrn);
  httplib::Client& c = served.client;
  const std::string url = served.base + "/front-study";
  EXPECT_NE(message(post(c, url, {{"point", 1}}, 404)).find("no Pareto front"), std::string::npos);
  post(c, served.base + "/pareto", {{"population", 40}, {"generations", 60}, {"verify", 5}}, 202);
  when_idle(c, served.base);
  const json front = get(c, served.base + "/pareto")["pareto"]["front"];
  size_t k = 0;  // the last verified point, numbered from 1
  for (size_t i = 0; i < front.size(); ++i) {
    if (front[i]["verified"].get<bool>()) k = i + 1;
  }
  ASSERT_GT(k, 1u) << front.dump();
  const json& point = front[k - 1];

  const json made = post(c, url, {{"point", k}, {"objective", "f2"}}, 201);
  const json from = {{"study", served.id}, {"point", k}, {"objective", "f2"}, {"verified", true}};
  EXPECT_EQ(made["from"], from);
  const std::string base = "/api/studies/" + made.value("id", "");
  ASSERT_NE(made.value("id", ""), served.id);
  const json status = get(c, base);
  ASSERT_EQ(status["objectives"].size(), 1u) << status.dump();
  EXPECT_EQ(status["objectives"][0]["name"], "f2");
  EXPECT_EQ(status["status"], "running");
  ASSERT_EQ(status["design"].size(), 2u);
  EXPECT_DOUBLE_EQ(status["design"][0].get<double>(), point["design"]["x1"].get<double>());
  EXPECT_DOUBLE_EQ(status["design"][1].get<double>(), point["design"]["x2"].get<double>());
  // The command's study, entry for entry (front_point_study: one implementation).
  const fs::path file = served.root / "start.json";
  const CommandOutput cli =
      sao_command("pareto " + (served.root / "data" / served.id).string() + " --start-study " +
                  std::to_string(k) + " " + file.string() + " --objective f2");
  ASSERT_EQ(cli.code, 0) << cli.text;
  EXPECT_EQ(status["study"], json::parse(read_file(file)));
  // The default objective is the first; each POST makes a study of its own.
  const json first = post(c, url, {{"point", 1}}, 201);
  EXPECT_EQ(first["from"]["objective"], "f1");
  EXPECT_EQ(get(c, "/api/studies")["studies"].size(), 3u);
  // An ordinary study: its first cycle starts at the point.
  const json step = post(c, base + "/step");
  EXPECT_EQ(step["record"]["cycle"], 1);
  EXPECT_DOUBLE_EQ(step["record"]["b0"]["x1"].get<double>(), point["design"]["x1"].get<double>());

  const std::string range = "1.." + std::to_string(front.size());
  for (const json& bad : {json{{"point", 0}}, json{{"point", front.size() + 1}},
                          json{{"point", "2"}}, json{{"point", 1.5}}, json::object()}) {
    EXPECT_NE(message(post(c, url, bad, 400)).find("point: expected a front point number " + range),
              std::string::npos)
        << bad.dump();
  }
  EXPECT_NE(message(post(c, url, {{"point", 1}, {"objective", "f9"}}, 400)).find("(f1, f2)"),
            std::string::npos);
  EXPECT_NE(message(post(c, url, {{"point", 1}, {"colour", 1}}, 400)).find("colour"),
            std::string::npos);
  EXPECT_EQ(get(c, "/api/studies")["studies"].size(), 3u);  // nothing made by a refusal
}

// A front point's study goes through the policy of POST /api/studies: an external simulator's
// is refused (403) by a server without --allow-external, however the study came to be hosted
// (here: by an earlier server with it); with it, 409, since the new study would lack the files
// uploaded with the first. Nothing is made either way.
TEST(ServiceFrontApi, AFrontStudyOfAnExternalSimulatorIsRefusedAsAnUploadIs) {
  const fs::path root = scratch_directory("test-service");
  const CommandOutput cli =
      sao_command("pareto " + kSrn + " --out " + (root / "cli").string() +
                  " --population 40 --generations 40 --verify 4 --rounds 1 -q");
  ASSERT_EQ(cli.code, 0) << cli.text;
  json study = json::parse(read_file(kSrn));
  json responses = json::array();
  for (const char* name : {"f1", "f2", "c1", "c2"}) {
    responses.push_back({{"name", name},
                         {"kind", "scalar"},
                         {"file", "out.json"},
                         {"parser", "json"},
                         {"pointer", std::string("/") + name}});
  }
  study["simulator"] = {{"type", "external"},
                        {"command", {"/bin/true"}},
                        {"templates", json::array({json{{"file", "in.tpl"}}})},
                        {"responses", responses}};
  study["files"] = {{"in.tpl", "x1 = {{x1}}, x2 = {{x2}}\n"}};
  std::string id;
  {
    ServerProcess server(root / "data", {"--allow-external"});
    httplib::Client c = server.client();
    id = post(c, "/api/studies", study, 201).value("id", "");
    fs::copy_file(root / "cli" / "pareto.json", root / "data" / id / "pareto.json");
    const json refused = post(c, "/api/studies/" + id + "/front-study", {{"point", 1}}, 409);
    EXPECT_NE(message(refused).find("reads files uploaded with study " + id), std::string::npos)
        << refused.dump();
  }
  ServerProcess server(root / "data");
  httplib::Client c = server.client();
  const json refused = post(c, "/api/studies/" + id + "/front-study", {{"point", 1}}, 403);
  EXPECT_NE(message(refused).find("--allow-external"), std::string::npos) << refused.dump();
  EXPECT_EQ(refused["errors"][0]["path"], "simulator.type");
  EXPECT_EQ(get(c, "/api/studies")["studies"].size(), 1u);
  size_t folders = 0;
  for (const auto& entry : fs::directory_iterator(root / "data")) folders += entry.is_directory();
  EXPECT_EQ(folders, 1u);
}

// The stages of the first job of kind `kind` ("pareto", "robust") started with `settings` on a
// fresh server's study of `file`, from its events: each KIND_batch event's purpose (a
// verification's with its round: "verification 2"), each pareto_round event as "round K", a run
// of equal ones as one.
std::vector<std::string> job_stages(const std::string& file, const std::string& kind,
                                    const json& settings) {
  ServedStudy served(file);
  post(served.client, served.base + "/" + kind, settings, 202);
  when_idle(served.client, served.base);
  std::vector<std::string> stages;
  for (const json& e : held_events(served.server.port(), served.base, kind + "_end")) {
    const json& d = e["data"];
    std::string stage;
    if (e["event"] == kind + "_batch") {
      stage = d.value("purpose", "?");
      if (d.contains("round")) stage.append(" ").append(std::to_string(d["round"].get<int>()));
    } else if (e["event"] == "pareto_round") {
      EXPECT_GT(d["analysed"].get<int>(), 0) << d.dump();  // so its verification had batches
      stage = "round " + std::to_string(d["round"].get<int>());
    }
    if (!stage.empty() && (stages.empty() || stages.back() != stage)) stages.push_back(stage);
  }
  return stages;
}

// The batch events of a front and of a robustness estimate say what each batch is for: a
// front's DOE ("doe", no round), then each round's verification ("verification" with its round,
// before that round's pareto_round event); an estimate's local DOE, then its verification;
// mc-analyses' samples.
TEST(ServiceFrontApi, BatchEventsSayWhatTheirAnalysesAreFor) {
  // A tolerance no round meets: both rounds run and verify.
  EXPECT_EQ(
      job_stages(kSrn, "pareto",
                 {{"population", 40},
                  {"generations", 40},
                  {"verify", 4},
                  {"rounds", 2},
                  {"tolerance", 1e-9}}),
      (std::vector<std::string>{"doe", "verification 1", "round 1", "verification 2", "round 2"}));
  EXPECT_EQ(job_stages(kLinear, "robust", {{"samples", 2000}, {"verify", 4}}),
            (std::vector<std::string>{"doe", "verification"}));
  EXPECT_EQ(job_stages(kLinear, "robust", {{"method", "mc-analyses"}, {"samples", 12}}),
            (std::vector<std::string>{"samples"}));
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
