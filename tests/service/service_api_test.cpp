// The service as a client drives it, against the command line: the same actions (step, set,
// restart) through `sao serve` and through `sao step/set/restart` give the same cycle records,
// the same simulator runs per step and the same stored histories; the event stream reports the
// analyses and cycles; a run can be stopped; a busy study answers 409.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "sao/optimizer/cycle_record_json.hpp"
#include "sao/store/store.hpp"
#include "sao/study/study_loader.hpp"
#include "tests/service/service_support.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace sao::testing;

const std::string kStudy = problem_file("slider-crank/path.json");

// The cycle records a store holds for a branch, in their one JSON form.
json stored_cycles(const fs::path& store_file, int branch) {
  const sao::StudyStore store(store_file.string(), sao::StoreAccess::kReadOnly);
  const sao::StoredStudy s = store.study(store.branch(branch).study);
  const std::vector<std::string> names = sao::variable_names(sao::load_study(s.document));
  json out = json::array();
  for (const sao::StoredCycle& c : store.cycles(branch)) {
    out.push_back(sao::cycle_record_to_json(c.record, names));
  }
  return out;
}

TEST(ServiceApi, StepSetRestartGiveTheCommandLinesRecords) {
  const fs::path root = scratch_directory("test-service");
  ServerProcess server(root / "data");
  ASSERT_GT(server.port(), 0) << server.line();
  httplib::Client c = server.client();
  const std::string text = read_file(kStudy);
  const json created = post(c, "/api/studies", json::parse(text), 201);
  const std::string base = "/api/studies/" + created.value("id", "");
  const fs::path cli = root / "cli";
  std::vector<json> api, command;
  for (int k = 0; k < 3; ++k) {
    api.push_back(post(c, base + "/step"));
    command.push_back(cli_step(cli, k == 0 ? "--study " + kStudy : ""));
  }
  // Halve b1's move limit, as `sao set DIR move_limit.b1=...`.
  const json before = json_of(c.Get(base));
  const double m = before["move_factors"][0].get<double>();
  const auto patched =
      c.Patch(base + "/settings", json{{"move_limit.b1", m / 2}}.dump(), "application/json");
  ASSERT_TRUE(patched);
  ASSERT_EQ(patched->status, 200) << patched->body;
  const std::string assignment = json_of(patched)["assignments"][0];
  EXPECT_EQ(json_of(patched)["from_cycle"], 4);
  EXPECT_EQ(json_of(c.Get(base))["pending_settings"], json::array({assignment}));
  ASSERT_EQ(sao_command("set " + cli.string() + " " + assignment).code, 0);
  api.push_back(post(c, base + "/step"));
  command.push_back(cli_step(cli));
  EXPECT_DOUBLE_EQ(api.back()["record"]["move_factors"][0].get<double>(), m / 2);
  // Restart from cycle 2 with another lower bound of b3.
  json changed = json::parse(text);
  changed["design_variables"][2]["lower"] = -40;
  std::ofstream(root / "changed.json") << changed.dump(2);
  const json restarted =
      post(c, base + "/restart", {{"from_cycle", 2}, {"branch", 1}, {"study", changed}}, 201);
  EXPECT_EQ(restarted["branch"], 2);
  ASSERT_EQ(sao_command("restart " + cli.string() + " --from-cycle 2 --study " +
                        (root / "changed.json").string())
                .code,
            0);
  api.push_back(post(c, base + "/step"));
  command.push_back(cli_step(cli));

  ASSERT_EQ(api.size(), command.size());
  for (size_t i = 0; i < api.size(); ++i) {
    SCOPED_TRACE("step " + std::to_string(i + 1));
    EXPECT_EQ(api[i]["branch"], command[i]["branch"]);
    EXPECT_EQ(api[i]["record"], command[i]["record"]);
    EXPECT_EQ(api[i]["simulator_runs"], command[i]["simulator_runs"]);
  }
  // The restarted cycle 3 starts from cycle 2's accepted design, analysed (with its
  // sensitivities) before: it runs the simulator less than the first cycle 3 did.
  EXPECT_EQ(api[4]["record"]["cycle"], 3);
  EXPECT_LT(api[4]["simulator_runs"].get<int>(), api[2]["simulator_runs"].get<int>());
  EXPECT_EQ(api[4]["record"]["b0"], api[1]["record"]["accepted"].get<bool>()
                                        ? api[1]["record"]["b_opt"]
                                        : api[1]["record"]["b0"]);
  // The stores hold the same histories; the API's history is the lineage of branch 2.
  const fs::path service_store = root / "data" / created["id"].get<std::string>() / "study.sqlite";
  for (int branch : {1, 2}) {
    EXPECT_EQ(stored_cycles(service_store, branch), stored_cycles(cli / "study.sqlite", branch))
        << "branch " << branch;
  }
  const json status = json_of(c.Get(base));
  json lineage = json::array();
  for (const json& r : stored_cycles(cli / "study.sqlite", 1)) {
    if (r["cycle"].get<int>() <= 2) lineage.push_back(r);
  }
  for (const json& r : stored_cycles(cli / "study.sqlite", 2)) lineage.push_back(r);
  EXPECT_EQ(status["history"], lineage);
  EXPECT_EQ(status["branch"], 2);
  EXPECT_EQ(status["branches"].size(), 2u);
  EXPECT_EQ(status["variables"][2]["lower"], -40);

  // A restart from a cycle of another branch than the current one (cycle 3 of branch 1, not
  // in branch 2's history), as `sao restart --branch 1`; an unknown branch is 404.
  post(c, base + "/restart", {{"from_cycle", 3}, {"branch", 9}}, 404);
  const json other = post(c, base + "/restart", {{"from_cycle", 3}, {"branch", 1}}, 201);
  EXPECT_EQ(other["branch"], 3);
  ASSERT_EQ(sao_command("restart " + cli.string() + " --from-cycle 3 --branch 1").code, 0);
  const json api_b3 = post(c, base + "/step");
  const json command_b3 = cli_step(cli);
  EXPECT_EQ(api_b3["branch"], 3);
  EXPECT_EQ(api_b3["record"], command_b3["record"]);
  EXPECT_EQ(api_b3["record"]["cycle"], 4);
  // Its b0 (cycle 3's accepted design of branch 1) and sensitivities are stored; only the
  // proposal is new (branch 1's cycle 4 ran with the halved move limit, set after cycle 3).
  EXPECT_LE(api_b3["simulator_runs"].get<int>(), 1);
  EXPECT_EQ(api_b3["record"]["b0"], api[2]["record"]["accepted"].get<bool>()
                                        ? api[2]["record"]["b_opt"]
                                        : api[2]["record"]["b0"]);
  // from_reported, as `sao restart --from-reported`: refused while the branch has not ended
  // (400, the session's message), and a flag that is not a boolean is 400.
  post(c, base + "/restart", {{"from_reported", "yes"}}, 400);
  const json early = post(c, base + "/restart", {{"from_reported", true}}, 400);
  EXPECT_NE(early.dump().find("has not ended"), std::string::npos) << early.dump();
}

// Reads the event stream of a study until a "cycle" event, in a thread of its own.
struct EventListener {
  std::string received;
  std::thread thread;
  EventListener(int port, const std::string& path) {
    thread = std::thread([this, port, path] {
      httplib::Client c("127.0.0.1", port);
      c.set_read_timeout(60, 0);
      c.Get(path.c_str(), [this](const char* data, size_t n) {
        received.append(data, n);
        return received.find("event: cycle\n") == std::string::npos ||
               received.find("\n\n", received.find("event: cycle\n")) == std::string::npos;
      });
    });
  }
  ~EventListener() {
    if (thread.joinable()) thread.join();
  }
};

TEST(ServiceApi, EventsRunStopAndBusy) {
  const fs::path root = scratch_directory("test-service");
  ServerProcess server(root / "data");
  ASSERT_GT(server.port(), 0) << server.line();
  httplib::Client c = server.client();
  const json created = post(c, "/api/studies", json::parse(read_file(kStudy)), 201);
  const std::string base = "/api/studies/" + created.value("id", "");
  std::string events;
  {
    EventListener listener(server.port(), base + "/events");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the stream is open
    const json step = post(c, base + "/step");
    listener.thread.join();
    events = listener.received;
    EXPECT_NE(events.find("event: analyses\ndata: {\"elapsed_seconds\""), std::string::npos)
        << events;
    const auto at = events.find("event: cycle\ndata: ");
    ASSERT_NE(at, std::string::npos) << events;
    const std::string line = events.substr(at + 19, events.find('\n', at + 19) - at - 19);
    EXPECT_EQ(json::parse(line)["record"], step["record"]);
  }
  // A run holds the study: a step is refused while it goes on; stop ends it after its cycle.
  // (The impact absorber: its cycles take long enough for the requests to arrive in the first.)
  const json absorber =
      post(c, "/api/studies",
           json::parse(read_file(problem_file("impact-absorber/max-acceleration.json"))), 201);
  const std::string run_base = "/api/studies/" + absorber.value("id", "");
  post(c, run_base + "/run", json::object(), 202);
  const auto busy = c.Post(run_base + "/step", "{}", "application/json");
  ASSERT_TRUE(busy);
  EXPECT_EQ(busy->status, 409) << busy->body;
  EXPECT_NE(json_of(busy).value("message", "").find("busy (running)"), std::string::npos);
  post(c, run_base + "/stop", json::object(), 202);
  json stopped;
  for (int i = 0; i < 600; ++i) {
    stopped = json_of(c.Get(run_base));
    if (stopped["state"] == "idle") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(stopped["state"], "idle");
  // Stopped after the cycle under way (the first, or the second on a slow machine), long
  // before it converges (in 5 cycles).
  EXPECT_EQ(stopped["finished"], false);
  EXPECT_GE(stopped["history"].size(), 1u);
  EXPECT_LE(stopped["history"].size(), 2u);
  const auto again = c.Post(run_base + "/stop", "{}", "application/json");
  EXPECT_EQ(again->status, 409);
  // Run to the end: the study converges; a step after that is refused with the reason.
  post(c, base + "/run", json::object(), 202);
  json status;
  for (int i = 0; i < 600; ++i) {
    status = json_of(c.Get(base));
    if (status["state"] == "idle") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(status["state"], "idle");
  EXPECT_EQ(status["finished"], true);
  const auto ended = c.Post(base + "/step", "{}", "application/json");
  EXPECT_EQ(ended->status, 409);
  EXPECT_NE(json_of(ended).value("message", "").find("the run has ended"), std::string::npos);
  // The report and the analyses are those of the store.
  const auto report = c.Get(base + "/report");
  ASSERT_TRUE(report);
  EXPECT_EQ(report->status, 200);
  // Its charts: the objective from cycle 0 (the start) to the last cycle, as the status has them.
  const std::vector<json> charts = chart_specs(report->body);
  ASSERT_FALSE(charts.empty());
  EXPECT_EQ(charts[0]["id"], "plot-objective");
  EXPECT_EQ(charts[0]["series"][0]["x"].size(), status["history"].size() + 1);
  const json page = json_of(c.Get(base + "/analyses?offset=1&limit=2"));
  EXPECT_EQ(page["total"], status["store"]["analyses"]);
  EXPECT_EQ(page["analyses"].size(), 2u);
  EXPECT_EQ(page["analyses"][0]["index"], 1);
  const json list = json_of(c.Get("/api/studies"));
  ASSERT_EQ(list["studies"].size(), 2u);
  for (const json& s : list["studies"]) {
    EXPECT_EQ(s["cycles"], (s["id"] == created["id"] ? status : stopped)["history"].size());
  }
}

// A run that ended on its cycle limit refuses a step until max_cycles is raised, as `sao step`.
TEST(ServiceApi, RaisedCycleLimitReopensTheRun) {
  const fs::path root = scratch_directory("test-service");
  ServerProcess server(root / "data");
  ASSERT_GT(server.port(), 0) << server.line();
  httplib::Client c = server.client();
  json study = json::parse(read_file(kStudy));
  study["settings"]["max_cycles"] = 2;
  const json created = post(c, "/api/studies", study, 201);
  const std::string base = "/api/studies/" + created.value("id", "");
  post(c, base + "/step");
  EXPECT_EQ(post(c, base + "/step")["status"], "cycle_limit");
  const auto refused = c.Post(base + "/step", "{}", "application/json");
  EXPECT_EQ(refused->status, 409);
  EXPECT_NE(json_of(refused).value("message", "").find("cycle limit"), std::string::npos);
  const auto patched =
      c.Patch(base + "/settings", json{{"max_cycles", 3}}.dump(), "application/json");
  ASSERT_EQ(patched->status, 200) << patched->body;
  EXPECT_EQ(json_of(c.Get(base))["finished"], false);
  const json third = post(c, base + "/step");
  EXPECT_EQ(third["record"]["cycle"], 3);
  EXPECT_EQ(third["status"], "cycle_limit");
}

// Event streams hold a thread each: beyond half of --threads a new one is refused (503), and
// a closed one frees its place within seconds.
TEST(ServiceApi, EventStreamsAreCapped) {
  const fs::path root = scratch_directory("test-service");
  ServerProcess server(root / "data", {"--threads", "8"});
  ASSERT_GT(server.port(), 0) << server.line();
  httplib::Client c = server.client();
  const json created = post(c, "/api/studies", json::parse(read_file(kStudy)), 201);
  const std::string events = "/api/studies/" + created.value("id", "") + "/events";
  std::atomic<bool> stop{false};
  std::atomic<int> open{0};
  std::vector<std::thread> streams;
  for (int k = 0; k < 4; ++k) {
    streams.emplace_back([&] {
      httplib::Client s("127.0.0.1", server.port());
      bool counted = false;
      s.Get(events.c_str(), [&](const char*, size_t) {
        if (!counted) ++open;
        counted = true;
        return !stop.load();
      });
    });
  }
  for (int i = 0; i < 100 && open < 4; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(open, 4);
  const auto refused = c.Get(events.c_str());
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 503) << refused->body;
  EXPECT_NE(json_of(refused).value("message", "").find("too many event streams"),
            std::string::npos);
  EXPECT_EQ(c.Get("/api/studies")->status, 200);  // the API is still served
  stop = true;
  for (std::thread& t : streams) t.join();
  bool accepted = false;
  for (int i = 0; i < 50 && !accepted; ++i) {
    httplib::Client s("127.0.0.1", server.port());
    s.Get(events.c_str(), [&](const char*, size_t) {
      accepted = true;
      return false;
    });
    if (!accepted) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(accepted);
}

// The studies live in the data folder: a new server on it serves them as they were.
TEST(ServiceApi, StudiesOutliveTheServer) {
  const fs::path root = scratch_directory("test-service");
  json first;
  std::string base;
  {
    ServerProcess server(root / "data");
    httplib::Client c = server.client();
    const json created = post(c, "/api/studies", json::parse(read_file(kStudy)), 201);
    base = "/api/studies/" + created.value("id", "");
    post(c, base + "/step");
    post(c, base + "/step");
    first = json_of(c.Get(base));
  }
  ServerProcess server(root / "data");
  httplib::Client c = server.client();
  const json again = json_of(c.Get(base));
  EXPECT_EQ(again["history"], first["history"]);
  EXPECT_EQ(again["next_cycle"], 3);
  const json step = post(c, base + "/step");
  EXPECT_EQ(step["record"]["cycle"], 3);
}

// SIGTERM to the server: a study waiting between cycles was not interrupted in one, its
// result.json keeps its status; a study whose cycle was running says it was interrupted.
TEST(ServiceApi, SigtermMarksOnlyTheStudiesWhoseCycleRuns) {
  const fs::path root = scratch_directory("test-service");
  ServerProcess server(root / "data");
  httplib::Client c = server.client();
  const std::string idle = post(c, "/api/studies", json::parse(read_file(kStudy)), 201)["id"];
  post(c, "/api/studies/" + idle + "/step");
  const fs::path idle_result = root / "data" / idle / "result.json";
  ASSERT_EQ(json::parse(read_file(idle_result.string()))["status"], "running");
  // The slower multibody absorber (seconds per cycle), run until its first cycle is written.
  json busy_study =
      json::parse(read_file(problem_file("impact-absorber/max-acceleration-multibody.json")));
  busy_study["load_cases"][0]["time"]["points"] = 6001;
  const std::string busy = post(c, "/api/studies", busy_study, 201)["id"];
  const fs::path busy_result = root / "data" / busy / "result.json";
  post(c, "/api/studies/" + busy + "/run", json::object(), 202);
  for (int i = 0; i < 600 && !fs::exists(busy_result); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(fs::exists(busy_result));
  const bool still_running = json_of(c.Get("/api/studies/" + busy))["state"] == "running";
  EXPECT_EQ(server.terminate(), 3);
  const json idle_after = json::parse(read_file(idle_result.string()));
  EXPECT_EQ(idle_after["status"], "running") << idle_after.dump(1);
  EXPECT_EQ(idle_after["message"].get<std::string>().find("interrupted"), std::string::npos);
  const json busy_after = json::parse(read_file(busy_result.string()));
  if (still_running && busy_after["cycles"].get<int>() >= 1) {
    EXPECT_EQ(busy_after["status"], "interrupted") << busy_after.dump(1);
    EXPECT_NE(
        busy_after["message"].get<std::string>().find("interrupted by SIGTERM during the cycle"),
        std::string::npos);
  }
}

// A branch left by a restart is "abandoned" in the study's status and its branches, as in
// `sao status`, never "running".
TEST(ServiceApi, BranchLeftByARestartIsAbandoned) {
  ServedStudy s(kStudy);
  post(s.client, s.base + "/step");
  post(s.client, s.base + "/step");
  post(s.client, s.base + "/restart", {{"from_cycle", 1}}, 201);
  const json branches = json_of(s.client.Get(s.base + "/branches"));
  ASSERT_EQ(branches["branches"].size(), 2u) << branches.dump(1);
  const json& left = branches["branches"][0];
  EXPECT_EQ(left["status"], "abandoned") << left.dump(1);
  EXPECT_EQ(left["stored_status"], "running");
  EXPECT_EQ(left["superseded_by"], 2);
  EXPECT_EQ(left["last_cycle"], 2);
  EXPECT_EQ(branches["branches"][1]["status"], "running");  // the current one, not ended
  const json status = json_of(s.client.Get(s.base));
  EXPECT_EQ(status["branches"][0]["status"], "abandoned") << status["branches"].dump(1);
}

// Designs in the study's order in the service's answers (status, step, constraint histories),
// not alphabetically: the absorber's variables named k, c and amax (issue 46).
TEST(ServiceApi, DesignsAreInStudyOrder) {
  json study = json::parse(read_file(problem_file("impact-absorber/max-acceleration.json")));
  study["design_variables"][0]["name"] = "k";
  study["design_variables"][1]["name"] = "c";
  study["auxiliary_variables"][0]["name"] = "amax";
  study["objective"]["auxiliary"] = "amax";
  study["simulator"]["parameters"] = {{"k", "k"}, {"c", "c"}};
  const fs::path root = scratch_directory("test-service");
  ServerProcess server(root / "data");
  httplib::Client c = server.client();
  const std::string base =
      "/api/studies/" + post(c, "/api/studies", study, 201)["id"].get<std::string>();
  auto keys = [](const nlohmann::ordered_json& object) {
    std::vector<std::string> out;
    for (const auto& [key, value] : object.items()) out.push_back(key);
    return out;
  };
  const std::vector<std::string> order = {"k", "c", "amax"};
  const auto step = c.Post(base + "/step", "{}", "application/json");
  ASSERT_TRUE(step);
  const nlohmann::ordered_json record = nlohmann::ordered_json::parse(step->body)["record"];
  EXPECT_EQ(keys(record["b0"]), order) << step->body;
  EXPECT_EQ(keys(record["b_opt"]), order) << step->body;
  const auto status = c.Get(base);
  ASSERT_TRUE(status);
  const nlohmann::ordered_json history = nlohmann::ordered_json::parse(status->body)["history"];
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(keys(history[0]["b_opt"]), order);
}

// A Python study, its module uploaded as a file of its folder (--allow-external), runs in the
// server's embedded interpreter to the records `sao run` writes. A second study uploading its
// own absorber.py gets its own (a module imported from another folder is imported afresh).
TEST(ServiceApi, PythonStudiesRunWithTheirOwnModules) {
  if (!SAO_TEST_PYTHON) GTEST_SKIP() << "built without Python (SAO_PYTHON=OFF)";
  const fs::path root = scratch_directory("test-service");
  const std::string file = problem_file("python-absorber/max-acceleration.json");
  ASSERT_EQ(sao_command("run " + file + " --no-store --out " + (root / "cli").string()).code, 0);
  const json expected = json::parse(read_file((root / "cli" / "result.json").string()));
  ServerProcess server(root / "data", {"--allow-external"});
  httplib::Client c = server.client();
  json study = json::parse(read_file(file));
  study["files"] = {{"absorber.py", read_file(problem_file("python-absorber/absorber.py"))}};
  const std::string base =
      "/api/studies/" + post(c, "/api/studies", study, 201)["id"].get<std::string>();
  post(c, base + "/run", json::object(), 202);
  json status;
  for (int i = 0; i < 600; ++i) {
    status = json_of(c.Get(base));
    if (status["state"] == "idle") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(status["status"], "converged") << status.dump();
  ASSERT_EQ(status["history"].size(), expected["history"].size());
  EXPECT_EQ(status["history"].back()["b_opt"], expected["history"].back()["b_opt"]);
  study["files"]["absorber.py"] =
      "import sao\n\n\n"
      "@sao.simulator(responses={'y': 'history', 'ydot': 'history', 'yddot': 'history'})\n"
      "def simulate(designs, load_case):\n"
      "    raise RuntimeError(\"the second study's absorber\")\n";
  const std::string second =
      "/api/studies/" + post(c, "/api/studies", study, 201)["id"].get<std::string>();
  c.Post(second + "/step", "{}", "application/json");
  const json failed = json_of(c.Get(second));
  EXPECT_EQ(failed["status"], "failed") << failed.dump();
  EXPECT_NE(failed.value("message", "")
                .find("RuntimeError: the second study's absorber "
                      "(absorber.py, line 6, in simulate)\nTraceback"),
            std::string::npos)
      << failed.dump();
}

}  // namespace
