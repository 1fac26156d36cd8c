// What the workbench reads beyond the status and what a study leaves in its folder: the
// result files the command line writes, the constraint histories of a cycle, the answer for a
// store another process holds, and the files uploaded with an external study.
#include <gtest/gtest.h>
#include <sys/file.h>

#include <fstream>

#include "tests/service/service_support.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace sao::testing;

const std::string kAbsorber = problem_file("impact-absorber/max-acceleration.json");

// result.json without what belongs to the process that wrote it: the simulator's wall seconds
// and the simulator runs of its session (each `sao step` is a session of its own; the
// server's session lasts from its opening).
json result_of_the_cycles(const fs::path& file) {
  json r = json::parse(read_file(file));
  for (const char* key : {"simulator_seconds", "simulator_runs"}) {
    EXPECT_TRUE(r.contains(key)) << file;
    r.erase(key);
  }
  return r;
}

// The service writes DIR/result.json and DIR/history.csv after every step, the files
// `sao step DIR` writes for the same cycles.
TEST(ServiceWorkbenchApi, StepsWriteTheCommandLinesResultFiles) {
  ServedStudy served(kAbsorber);
  const fs::path folder = served.root / "data" / served.id;
  EXPECT_FALSE(fs::exists(folder / "result.json"));  // nothing before the first cycle
  const fs::path cli = served.root / "cli";
  for (int k = 0; k < 2; ++k) {
    const json step = post(served.client, served.base + "/step");
    EXPECT_EQ(step["results_written"], true) << step.dump();
    cli_step(cli, k == 0 ? "--study " + kAbsorber : "");
    SCOPED_TRACE("after step " + std::to_string(k + 1));
    EXPECT_EQ(read_file(folder / "history.csv"), read_file(cli / "history.csv"));
    const json api = result_of_the_cycles(folder / "result.json");
    EXPECT_EQ(api, result_of_the_cycles(cli / "result.json"));
    EXPECT_EQ(api["cycles"], k + 1);
  }
  // Two cycles: two rows under the header.
  const std::string csv = read_file(folder / "history.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;
}

// GET /api/studies/ID/histories?cycle=K: every time-dependent constraint at the cycle's start
// design and proposal, from their stored analyses.
TEST(ServiceWorkbenchApi, HistoriesOfACycle) {
  ServedStudy served(kAbsorber);
  httplib::Client& c = served.client;
  const std::string& base = served.base;
  post(c, base + "/step");
  const json second = post(c, base + "/step");
  const auto r = c.Get(base + "/histories?cycle=2");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json h = json_of(r);
  EXPECT_EQ(h["cycle"], 2);
  EXPECT_EQ(h["branch"], 1);
  EXPECT_EQ(h["accepted"], second["record"]["accepted"]);
  // |y| <= 1 gives two parts (y <= 1, -y <= 1); the objective's bound formulation two more.
  json displacement;
  for (const json& k : h["constraints"]) {
    if (k["name"] == "displacement[+]") displacement = k;
  }
  ASSERT_TRUE(displacement.is_object()) << h.dump();
  EXPECT_EQ(displacement["path"], "constraints[0]");
  EXPECT_EQ(displacement["sense"], "<=");
  const size_t points = displacement["t"].size();
  EXPECT_EQ(points, 101u);  // the load case's 101 time points, 0 .. 12
  EXPECT_DOUBLE_EQ(displacement["t"][0].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(displacement["t"][points - 1].get<double>(), 12.0);
  ASSERT_EQ(displacement["designs"].size(), 2u);
  EXPECT_EQ(displacement["designs"][0]["label"], "start");
  EXPECT_EQ(displacement["designs"][0]["design"], second["record"]["b0"]);
  EXPECT_EQ(displacement["designs"][1]["label"], "proposal");
  EXPECT_EQ(displacement["designs"][1]["design"], second["record"]["b_opt"]);
  for (const json& d : displacement["designs"]) {
    SCOPED_TRACE(d["label"].get<std::string>());
    EXPECT_EQ(d["analysed"], true);
    EXPECT_EQ(d["bound"], 1.0);
    ASSERT_EQ(d["g"].size(), points);
    // The screening keeps the worst point of a constraint near its bound (cutoff 0.7).
    std::vector<double> g = d["g"].get<std::vector<double>>();
    const long worst = std::max_element(g.begin(), g.end()) - g.begin();
    ASSERT_GT(g[worst], 0.7);
    const std::vector<long> kept = d["retained"].get<std::vector<long>>();
    EXPECT_NE(std::find(kept.begin(), kept.end(), worst), kept.end()) << d["retained"];
    EXPECT_LT(kept.size(), points);  // not every point
  }
  // Errors name what is wrong.
  const auto missing = c.Get(base + "/histories");
  EXPECT_EQ(missing->status, 400) << missing->body;
  const auto beyond = c.Get(base + "/histories?cycle=3");
  EXPECT_EQ(beyond->status, 400);
  EXPECT_NE(json_of(beyond).value("message", "").find("has no cycle 3"), std::string::npos);
  EXPECT_EQ(c.Get(base + "/histories?cycle=1&branch=7")->status, 404);
  // A study without time-dependent constraints has none to show.
  const json crank =
      post(c, "/api/studies", json::parse(read_file(problem_file("slider-crank/path.json"))), 201);
  post(c, "/api/studies/" + crank.value("id", "") + "/step");
  EXPECT_EQ(
      json_of(c.Get("/api/studies/" + crank.value("id", "") + "/histories?cycle=1"))["constraints"],
      json::array());
}

// The store's lock, held as another `sao` process holds it (flock on DIR/study.sqlite.lock).
class HeldLock {
 public:
  explicit HeldLock(const fs::path& lock) : fd_(::open(lock.c_str(), O_RDWR)) {
    held_ = fd_ >= 0 && flock(fd_, LOCK_EX | LOCK_NB) == 0;
  }
  ~HeldLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  HeldLock(const HeldLock&) = delete;
  HeldLock& operator=(const HeldLock&) = delete;
  bool held() const { return held_; }

 private:
  int fd_;
  bool held_ = false;
};

// A study whose store another process holds (`sao run` or `sao step` on its folder) is
// answered 409 with the store's reason; once that process has ended, it is served again.
TEST(ServiceWorkbenchApi, StoreHeldByAnotherProcessIsAConflict) {
  const fs::path root = scratch_directory("test-service");
  const std::string id = "0123456789abcdef";
  const fs::path folder = root / "data" / id;
  cli_step(folder, "--study " + kAbsorber);  // a study made by the command line
  ServerProcess server(root / "data");
  ASSERT_GT(server.port(), 0) << server.line();
  httplib::Client c = server.client();
  const std::string base = "/api/studies/" + id;
  {
    HeldLock lock(folder / "study.sqlite.lock");
    ASSERT_TRUE(lock.held());
    for (const auto& r : {c.Get(base), c.Post(base + "/step", "{}", "application/json")}) {
      ASSERT_TRUE(r);
      EXPECT_EQ(r->status, 409) << r->body;
      EXPECT_EQ(json_of(r)["reason"], "store_busy") << r->body;
      EXPECT_NE(json_of(r).value("message", "").find("in use by another"), std::string::npos)
          << r->body;
    }
    const json list = json_of(c.Get("/api/studies"));
    ASSERT_EQ(list["studies"].size(), 1u);
    EXPECT_EQ(list["studies"][0]["state"], "error");
  }
  const json status = json_of(c.Get(base));
  EXPECT_EQ(status["next_cycle"], 2) << status.dump();
  EXPECT_EQ(post(c, base + "/step")["record"]["cycle"], 2);
  // The other way round: the server holds the store now, the command line is refused (exit 3).
  const CommandOutput refused =
      run_command(std::string(SAO_COMMAND) + " step " + folder.string() + " 2>&1");
  EXPECT_EQ(refused.code, 3) << refused.text;
  EXPECT_NE(refused.text.find("busy"), std::string::npos) << refused.text;
}

}  // namespace
