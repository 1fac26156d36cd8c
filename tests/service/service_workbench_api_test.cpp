// What the workbench reads beyond the status and what a study leaves in its folder: the
// result files the command line writes, the constraint histories of a cycle, the charts (per
// cycle, of a cycle's histories, of the branches), the answer for a store another process
// holds, and the files uploaded with an external study.
#include <gtest/gtest.h>
#include <sys/file.h>

#include <algorithm>
#include <fstream>
#include <set>

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

// GET /api/studies/ID/charts?...: the answer as JSON, expecting `status`.
json charts_of(httplib::Client& c, const std::string& path, int status = 200) {
  const auto r = c.Get(path);
  EXPECT_TRUE(r) << path;
  if (!r) return nullptr;
  EXPECT_EQ(r->status, status) << path << ": " << r->body;
  return json_of(r);
}

// The chart with id `id` of a /charts answer (null when there is none).
json chart_by_id(const json& answer, const std::string& id) {
  for (const json& chart : answer["charts"]) {
    if (chart["id"] == id) return chart;
  }
  ADD_FAILURE() << "no chart " << id << " in " << answer.dump().substr(0, 2000);
  return nullptr;
}

// The series named `name` of a chart spec (null when there is none).
json series_by_name(const json& chart, const std::string& name) {
  for (const json& s : chart["series"]) {
    if (s["name"] == name) return s;
  }
  ADD_FAILURE() << "no series \"" << name << "\" in " << chart.dump().substr(0, 2000);
  return nullptr;
}

// GET .../charts?view=cycles: the per-cycle charts of the current branch, the report's, as
// chart specs: one point per cycle after the start (cycle 0), whole-number cycle axes.
TEST(ServiceWorkbenchApi, ChartsPerCycle) {
  ServedStudy served(kAbsorber);
  httplib::Client& c = served.client;
  std::vector<json> records;
  for (int k = 0; k < 3; ++k) records.push_back(post(c, served.base + "/step")["record"]);
  const json answer = charts_of(c, served.base + "/charts?view=cycles");
  EXPECT_EQ(answer["view"], "cycles");
  EXPECT_EQ(answer["branch"], 1);
  std::vector<std::string> ids;
  for (const json& chart : answer["charts"]) ids.push_back(chart["id"]);
  EXPECT_EQ(ids, std::vector<std::string>({"plot-objective", "plot-violation", "plot-errors",
                                           "plot-predicted-objective", "plot-predicted-constraints",
                                           "plot-move-limits", "plot-design", "variable-b1",
                                           "variable-b2"}));
  for (const json& chart : answer["charts"]) {  // every one over the cycles: whole numbers
    if (chart["id"].get<std::string>().rfind("plot-predicted", 0) == 0) continue;
    EXPECT_EQ(chart["x_label"], "cycle") << chart["id"];
    EXPECT_EQ(chart["x_integer"], true) << chart["id"];
  }
  const json objective = chart_by_id(answer, "plot-objective");
  EXPECT_EQ(objective["y_label"].get<std::string>().rfind("Largest |acceleration| [m/s^2]", 0), 0u)
      << objective["y_label"];
  const json& proposal = objective["series"][0];
  EXPECT_EQ(proposal["x"], json({0, 1, 2, 3}));
  ASSERT_EQ(proposal["y"].size(), 4u);
  for (int k = 1; k <= 3; ++k) {
    EXPECT_DOUBLE_EQ(proposal["y"][k].get<double>(), records[k - 1]["F_opt"].get<double>()) << k;
  }
  EXPECT_TRUE(proposal["y"][0].is_number());  // the start design's objective
  const json violation = chart_by_id(answer, "plot-violation");
  EXPECT_EQ(violation["series"][0]["x"], json({0, 1, 2, 3}));
  for (int k = 1; k <= 3; ++k) {
    EXPECT_DOUBLE_EQ(violation["series"][0]["y"][k].get<double>(),
                     records[k - 1]["V"].get<double>());
  }
  ASSERT_EQ(violation["lines"].size(), 1u);
  EXPECT_EQ(violation["lines"][0]["y"], 0.0);
  // Each variable: the accepted design after each cycle, in its unit, between its bounds.
  const json b1 = chart_by_id(answer, "variable-b1");
  EXPECT_EQ(b1["series"][0]["x"], json({0, 1, 2, 3}));
  EXPECT_EQ(b1["series"][0]["y"][0], 1.0);  // b1's initial value
  for (int k = 1; k <= 3; ++k) {
    const json& r = records[k - 1];
    EXPECT_EQ(b1["series"][0]["y"][k], (r["accepted"].get<bool>() ? r["b_opt"] : r["b0"])["b1"])
        << k;
  }
  EXPECT_EQ(b1["lines"].size(), 2u);  // lower and upper bound
  const json design = chart_by_id(answer, "plot-design");
  EXPECT_EQ(design["series"].size(), 2u);  // b1 and b2 scaled to their bounds
  // The same charts as the report's.
  const auto report = c.Get(served.base + "/report");
  ASSERT_TRUE(report);
  const std::vector<json> page = chart_specs(report->body);
  for (const json& chart : answer["charts"]) {
    EXPECT_NE(std::find(page.begin(), page.end(), chart), page.end()) << chart["id"];
  }
  // One more step: one more point.
  post(c, served.base + "/step");
  const json after = charts_of(c, served.base + "/charts?view=cycles");
  EXPECT_EQ(chart_by_id(after, "plot-objective")["series"][0]["x"], json({0, 1, 2, 3, 4}));
}

// GET .../charts?view=histories&cycle=K: the time-dependent constraints at cycle K's start
// design and proposal, each with its bounds and the points the screening retains (markers),
// those /histories lists.
TEST(ServiceWorkbenchApi, ChartsOfTheHistoriesOfACycle) {
  ServedStudy served(kAbsorber);
  httplib::Client& c = served.client;
  post(c, served.base + "/step");
  const json second = post(c, served.base + "/step");
  const std::string outcome = second["record"]["accepted"].get<bool>() ? "accepted" : "rejected";
  const json answer = charts_of(c, served.base + "/charts?view=histories&cycle=2");
  EXPECT_EQ(answer["view"], "histories");
  EXPECT_EQ(answer["cycle"], 2);
  EXPECT_EQ(answer["branch"], 1);
  // |y| <= 1 in one chart (both signs), |acceleration| <= b3 (the bound formulation) in another;
  // both responses are constrained: no response chart; then what the simulator delivers beside
  // them, titled as such.
  std::vector<std::string> constraint_ids, output_titles;
  for (const json& chart : answer["charts"]) {
    const std::string id = chart["id"];
    if (id.rfind("constraint-", 0) == 0) {
      EXPECT_TRUE(output_titles.empty()) << "a constraint chart after the outputs: " << id;
      constraint_ids.push_back(id);
    } else {
      EXPECT_EQ(id.rfind("output-impact-", 0), 0u) << id;
      output_titles.push_back(chart["title"]);
    }
  }
  ASSERT_EQ(constraint_ids.size(), 2u) << answer.dump().substr(0, 2000);
  for (const std::string& t : output_titles) {
    EXPECT_NE(t.find("(delivered by the simulator, not a response of the study)"),
              std::string::npos)
        << t;
  }
  const json displacement = chart_by_id(answer, "constraint-displacement");
  EXPECT_EQ(displacement["x_label"], "t");
  EXPECT_EQ(displacement["y_label"], "Displacement |y| [m]");
  std::vector<std::string> bounds;
  for (const json& l : displacement["lines"]) bounds.push_back(l["label"]);
  EXPECT_EQ(bounds, std::vector<std::string>({"upper bound 1", "lower bound -1"}));
  const json histories = json_of(c.Get(served.base + "/histories?cycle=2"));
  const std::vector<std::pair<std::string, std::string>> designs = {
      {"start of cycle 2", "start"}, {"proposal of cycle 2 (" + outcome + ")", "proposal"}};
  for (size_t d = 0; d < designs.size(); ++d) {
    const auto& [label, part_label] = designs[d];
    SCOPED_TRACE(label);
    const json line = series_by_name(displacement, label);
    const json kept = series_by_name(displacement, label + ": retained points");
    ASSERT_TRUE(line.is_object() && kept.is_object());
    EXPECT_EQ(line["line"], true);
    EXPECT_EQ(line["markers"], false);
    EXPECT_EQ(kept["line"], false);
    EXPECT_EQ(kept["markers"], true);
    EXPECT_EQ(kept["color"], line["color"]);
    ASSERT_EQ(line["x"].size(), 101u);  // the load case's time points, 0 .. 12
    EXPECT_DOUBLE_EQ(line["x"][100].get<double>(), 12.0);
    // The retained points are points of the line, those /histories lists for y <= 1 and
    // -y <= 1 at this design; the worst one is among them.
    std::set<double> expected, shown;
    for (const json& part : histories["constraints"]) {
      if (part["name"] != "displacement[+]" && part["name"] != "displacement[-]") continue;
      const json& design = part["designs"][d];
      EXPECT_EQ(design["label"], part_label);
      for (const json& p : design["retained"])
        expected.insert(part["t"][p.get<int>()].get<double>());
      if (part["name"] == "displacement[+]") {
        for (size_t i = 0; i < design["g"].size(); ++i) {
          EXPECT_DOUBLE_EQ(line["y"][i].get<double>(), design["g"][i].get<double>()) << i;
        }
      }
    }
    ASSERT_FALSE(kept["x"].empty());
    for (size_t i = 0; i < kept["x"].size(); ++i) {
      const double t = kept["x"][i];
      shown.insert(t);
      const auto at = std::find(line["x"].begin(), line["x"].end(), kept["x"][i]);
      ASSERT_NE(at, line["x"].end()) << t;
      EXPECT_EQ(kept["y"][i], line["y"][at - line["x"].begin()]) << t;
    }
    EXPECT_EQ(shown, expected);
    EXPECT_LT(kept["x"].size(), 101u);
  }
  // The bound formulation: its bound is the auxiliary b3, a line per design at its value.
  const json acceleration = chart_by_id(answer, "constraint-objective-max-acceleration");
  EXPECT_EQ(acceleration["y_label"], "Largest |acceleration| [m/s^2]");
  EXPECT_EQ(acceleration["lines"], json::array());  // no bound that is a number
  const json b3 = series_by_name(acceleration, "start of cycle 2: bound b3");
  EXPECT_EQ(b3["y"][0], b3["y"][1]);  // a horizontal line at b3's value
  EXPECT_TRUE(series_by_name(acceleration, "start of cycle 2: retained points").is_object());

  // Errors name what is wrong.
  const json bad = charts_of(c, served.base + "/charts?view=pictures", 400);
  EXPECT_NE(bad.value("message", "").find("\"pictures\""), std::string::npos) << bad.dump();
  EXPECT_NE(bad.value("message", "").find("cycles, branches, histories or analyses"),
            std::string::npos);
  const json none = charts_of(c, served.base + "/charts", 400);
  EXPECT_NE(none.value("message", "").find("view"), std::string::npos) << none.dump();
  const json no_cycle = charts_of(c, served.base + "/charts?view=histories", 400);
  EXPECT_NE(no_cycle.value("message", "").find("cycle: required"), std::string::npos)
      << no_cycle.dump();
  const json beyond = charts_of(c, served.base + "/charts?view=histories&cycle=3", 400);
  EXPECT_NE(beyond.value("message", "").find("has no cycle 3"), std::string::npos) << beyond.dump();
  charts_of(c, served.base + "/charts?view=histories&cycle=x", 400);
  const json beyond_store = charts_of(c, served.base + "/charts?view=histories&analysis=9999", 400);
  EXPECT_NE(beyond_store.value("message", "").find("the store has"), std::string::npos)
      << beyond_store.dump();
  charts_of(c, "/api/studies/0123456789abcdef/charts?view=cycles", 404);
}

// A zero bound that the run sizes at its start (docs/study-format.md, `constraints[i]`) is
// screened as the run screens it in a cycle's histories, their charts and the report's. y - 1 <= 0
// with `scale` 0.01 is normalised by its largest |g| at the start, 1.5 (y reaches -0.5), not by
// 0.01: its retained points are those of the same study with `scale` set to that size
// (result.json's `normaliser`), whose run is the same. Until 2026-12-01 they were screened with
// `scale`, keeping only points within 0.003 of the bound: none at cycle 2's start.
TEST(ServiceWorkbenchApi, HistoriesScreenAZeroBoundAsTheRunDid) {
  const fs::path dir = scratch_directory("test-service-zero-bound");
  json study = json::parse(read_file(kAbsorber));
  auto retained = [&](double scale, double* normaliser) {
    study["constraints"][0] = {
        {"name", "displacement"}, {"of", "y - 1"}, {"upper", 0}, {"scale", scale}};
    const fs::path file = dir / ("scale-" + std::to_string(scale) + ".json");
    std::ofstream(file) << study.dump();
    ServedStudy served(file.string());
    post(served.client, served.base + "/step");
    post(served.client, served.base + "/step");
    const json result = json::parse(read_file(served.root / "data" / served.id / "result.json"));
    for (const json& c : result["constraints"]) {
      if (c["name"] == "displacement") *normaliser = c["normaliser"].get<double>();
    }
    json out = json::object();
    const json h = json_of(served.client.Get(served.base + "/histories?cycle=2"));
    for (const json& k : h["constraints"]) {
      if (k["name"] == "displacement") out["histories"] = k["designs"][0]["retained"];
    }
    const json charts = charts_of(served.client, served.base + "/charts?view=histories&cycle=2");
    out["chart"] = series_by_name(chart_by_id(charts, "constraint-displacement"),
                                  "start of cycle 2: retained points")["x"];
    const auto report = served.client.Get(served.base + "/report");
    EXPECT_TRUE(report);
    if (!report) return out;
    for (const json& chart : chart_specs(report->body)) {
      if (chart["id"] != "constraint-displacement") continue;
      for (const json& series : chart["series"]) {  // the start's markers, whatever else it is
        const std::string name = series["name"];
        if (name.rfind("first: start (cycle 0)", 0) == 0 &&
            name.find(": retained points") != std::string::npos) {
          out["report"] = series["x"];
        }
      }
    }
    return out;
  };
  double sized = 0.0, given = 0.0;
  const json by_run = retained(0.01, &sized);
  EXPECT_GT(sized, 1.0);  // sized at the start, not 0.01
  const json by_scale = retained(sized, &given);
  EXPECT_EQ(given, sized);
  for (const char* where : {"histories", "chart", "report"}) {
    SCOPED_TRACE(where);
    ASSERT_TRUE(by_scale[where].is_array()) << by_scale.dump();
    EXPECT_GT(by_scale[where].size(), 2u) << by_scale[where];
    EXPECT_EQ(by_run[where], by_scale[where]);
  }
}

// GET .../charts?view=branches: objective and violation per cycle of every branch, the branch
// point of a restart ringed.
TEST(ServiceWorkbenchApi, ChartsOfTheBranches) {
  ServedStudy served(kAbsorber);
  httplib::Client& c = served.client;
  std::vector<json> records;
  for (int k = 0; k < 3; ++k) records.push_back(post(c, served.base + "/step")["record"]);
  EXPECT_EQ(post(c, served.base + "/restart", {{"from_cycle", 2}}, 201)["branch"], 2);
  // A bound changed before branch 2's cycle 3: marked on it as a change of the study.
  const auto set =
      c.Patch(served.base + "/settings",
              json{{"assignments", {"design_variables.b1.upper=4"}}}.dump(), "application/json");
  ASSERT_TRUE(set);
  ASSERT_EQ(set->status, 200) << set->body;
  const json third = post(c, served.base + "/step")["record"];
  const json answer = charts_of(c, served.base + "/charts?view=branches");
  EXPECT_EQ(answer["view"], "branches");
  EXPECT_EQ(answer["branch"], 2);
  const json objective = chart_by_id(answer, "branches-objective");
  ASSERT_TRUE(objective.is_object());
  ASSERT_EQ(objective["series"].size(), 4u) << objective.dump().substr(0, 2000);
  EXPECT_EQ(objective["series"][0]["x"], json({1, 2, 3}));
  EXPECT_EQ(objective["series"][1]["x"], json({1, 2, 3}));  // cycles 1, 2 of branch 1, then 3
  // The current branch drawn last (over the other where they agree), then the branch point.
  EXPECT_EQ(objective["series"][1]["name"], "branch 2, current (not ended)");
  const json ring = series_by_name(objective, "branch points (a restart from that cycle)");
  EXPECT_EQ(ring["marker"], "ring");
  EXPECT_EQ(ring["line"], false);
  EXPECT_EQ(ring["x"], json({2}));
  EXPECT_DOUBLE_EQ(ring["y"][0].get<double>(), records[1]["F_opt"].get<double>());
  const json changed = series_by_name(
      objective, "study changed before this cycle (sao set, or a restart's edited study)");
  EXPECT_EQ(changed["x"], json({3}));
  EXPECT_DOUBLE_EQ(changed["y"][0].get<double>(), third["F_opt"].get<double>());
  EXPECT_TRUE(chart_by_id(answer, "branches-violation").is_object());
  // The other views are the current branch's only.
  charts_of(c, served.base + "/charts?view=cycles&branch=1", 400);
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

// GET .../charts?view=histories&analysis=K: the histories of any stored analysis (the scatter's
// points carry their index), drawn as one design with its retained points.
TEST(ServiceWorkbenchApi, ChartsOfTheHistoriesOfAStoredAnalysis) {
  ServedStudy served(kAbsorber);
  httplib::Client& c = served.client;
  post(c, served.base + "/step");
  post(c, served.base + "/step");
  const json scatter = charts_of(c, served.base + "/charts?view=analyses&x=b2");
  ASSERT_EQ(scatter["charts"].size(), 1u);
  const json& points = scatter["charts"][0]["series"][0];
  ASSERT_GE(points["ids"].size(), 2u);
  EXPECT_EQ(points["ids"].size(), points["x"].size());
  const long last = points["ids"].back();
  const json analyses =
      json_of(c.Get(served.base + "/analyses?offset=" + std::to_string(last) + "&limit=1"));
  ASSERT_EQ(analyses["analyses"].size(), 1u);
  EXPECT_DOUBLE_EQ(points["x"].back().get<double>(),
                   analyses["analyses"][0]["design"][1].get<double>());  // b2 of that analysis
  const json answer =
      charts_of(c, served.base + "/charts?view=histories&analysis=" + std::to_string(last));
  EXPECT_EQ(answer["analysis"], last);
  EXPECT_FALSE(answer.contains("cycle"));
  const json displacement = chart_by_id(answer, "constraint-displacement");
  const std::string label = "stored analysis " + std::to_string(last);
  const json line = series_by_name(displacement, label);
  ASSERT_TRUE(line.is_object());
  EXPECT_EQ(line["x"].size(), 101u);
  EXPECT_TRUE(series_by_name(displacement, label + ": retained points").is_object());
}

}  // namespace
