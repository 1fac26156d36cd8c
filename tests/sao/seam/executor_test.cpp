#include "sao/seam/executor.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "sao/seam/analysis_request.hpp"
#include "tests/support.hpp"

namespace sao {
namespace {

ExecutorSettings read(const nlohmann::json& section, Problems& problems) {
  JsonReader reader(section, "simulator", problems);
  return read_executor_settings(reader);
}

// A batch executor that runs nothing: every job "completes" at once with the exit status the
// test wants, and the ledger sees the ids.
class FakeExecutor final : public BatchExecutor {
 public:
  std::vector<JobOutcome> execute(const std::vector<JobSpec>& jobs, JobLedger*) override {
    std::vector<JobOutcome> out;
    for (const JobSpec& j : jobs) {
      specs.push_back(j);
      JobOutcome& o = out.emplace_back();
      o.job_id = std::to_string(100 + specs.size());
      o.directory = j.directory;
      const bool fails = j.key.find(",var0,") != std::string::npos && fail_variable_0 > 0;
      if (fails) --fail_variable_0;
      o.ran = !fails;
      o.state = fails ? "NODE_FAIL" : "COMPLETED";
      o.exit_code = 0;
      o.message = fails ? "job " + o.job_id + " ended NODE_FAIL" : "";
    }
    return out;
  }
  std::vector<JobSpec> specs;
  int fail_variable_0 = 0;
};

TEST(ExecutorSettings, LocalWhenAbsentAndEveryProblemWithItsPath) {
  Problems none;
  EXPECT_TRUE(read({{"type", "external"}}, none).local());
  EXPECT_TRUE(none.empty());

  register_batch_executor("fake", [](const ExecutorSettings&) -> std::unique_ptr<BatchExecutor> {
    return std::make_unique<FakeExecutor>();
  });
  Problems ok;
  const ExecutorSettings s = read({{"executor",
                                    {{"type", "fake"},
                                     {"partition", "short"},
                                     {"time", "00:10:00"},
                                     {"cpus", 2},
                                     {"extra", {"--qos=low"}},
                                     {"max_jobs", 4}}}},
                                  ok);
  EXPECT_TRUE(ok.empty()) << joined(ok.list());
  EXPECT_EQ(s.type, "fake");
  EXPECT_EQ(s.partition, "short");
  EXPECT_EQ(s.time, "00:10:00");
  EXPECT_EQ(s.cpus, 2);
  EXPECT_EQ(s.max_jobs, 4);
  ASSERT_EQ(s.extra.size(), 1u);

  Problems bad;
  read({{"executor",
         {{"type", "pbs"}, {"time", "ten minutes"}, {"cpus", 0}, {"extra", {1}}, {"queue", "x"}}}},
       bad);
  const std::string all = joined(bad.list(), "\n");
  EXPECT_NE(all.find("simulator.executor.type: unknown executor \"pbs\""), std::string::npos)
      << all;
  EXPECT_NE(all.find("simulator.executor.time: expected a time limit"), std::string::npos) << all;
  EXPECT_NE(all.find("simulator.executor.cpus"), std::string::npos) << all;
  EXPECT_NE(all.find("simulator.executor.extra[0]: expected a non-empty string"), std::string::npos)
      << all;
  EXPECT_NE(all.find("simulator.executor.queue: unknown key"), std::string::npos) << all;
}

TEST(ExecutorSettings, RunKeysAreExactAndDistinct) {
  const Eigen::Vector2d b(0.1, 2.0);
  EXPECT_EQ(run_key(b, 0, -1, 0.0), run_key(Eigen::Vector2d(0.1, 2.0), 0, -1, 0.0));
  EXPECT_NE(run_key(b, 0, -1, 0.0),
            run_key(Eigen::Vector2d(std::nextafter(0.1, 1.0), 2.0), 0, -1, 0.0));
  EXPECT_NE(run_key(b, 0, 0, 1e-3), run_key(b, 0, 0, 0.5e-3));
  EXPECT_NE(run_key(b, 0, 0, 1e-3), run_key(b, 1, 0, 1e-3));
}

// The staged batch gives run_batch's evaluations, and a failed perturbed job is submitted
// again with half the step.
TEST(ExecutorSettings, JobsGiveTheLocalBatchAndRetryWithHalfTheStep) {
  std::vector<EvaluationRequest> batch(1);
  batch[0].design = Eigen::Vector2d(1.0, 2.0);
  batch[0].derivatives.push_back({0, "f", {}});
  auto compute = [](BatchRun& run) {
    Eigen::VectorXd b = *run.design;
    if (run.variable >= 0) b(run.variable) += run.step;
    run.result.scalars["f"] = b(0) * b(0) + 3 * b(1);
    run.ok = true;
  };
  const auto local =
      run_batch(batch, 1, 2, {DifferenceOrder::kForward, 1e-3}, false, 1, [&](BatchRun& run) {
        run.runs = 1;
        compute(run);
      });
  FakeExecutor executor;
  executor.fail_variable_0 = 1;
  StagedRunner runner;
  runner.retries = 2;
  runner.prepare = [](BatchRun& run, JobSpec& spec) {
    spec.key = run_key(*run.design, run.load_case, run.variable, run.step);
    return true;
  };
  runner.finish = [&](BatchRun& run, const JobOutcome& o) {
    if (!o.ran) {
      run.ok = false;
      run.message = o.message;
      return;
    }
    compute(run);
  };
  const auto jobs =
      run_batch_as_jobs(batch, 1, 2, {DifferenceOrder::kForward, 1e-3}, executor, nullptr, runner);
  ASSERT_TRUE(local[0].ok);
  ASSERT_TRUE(jobs[0].ok) << jobs[0].message;
  EXPECT_EQ(executor.specs.size(), 4u);  // nominal, two perturbations, one retry
  EXPECT_EQ(jobs[0].cost.runs, 4);
  EXPECT_EQ(jobs[0].cases[0].scalars.at("f"), local[0].cases[0].scalars.at("f"));
  // Variable 1: the same step, the same quotient; variable 0: half the step.
  EXPECT_EQ(jobs[0].cases[0].gradients.at("f")(0, 1), local[0].cases[0].gradients.at("f")(0, 1));
  EXPECT_NEAR(jobs[0].cases[0].gradients.at("f")(0, 0), 2.0, 1e-2);

  executor.fail_variable_0 = 3;  // the first try and both retries fail: named in the message
  const auto failed =
      run_batch_as_jobs(batch, 1, 2, {DifferenceOrder::kForward, 1e-3}, executor, nullptr, runner);
  ASSERT_FALSE(failed[0].ok);
  EXPECT_NE(failed[0].message.find("ended NODE_FAIL (and 2 retries with halved steps failed too)"),
            std::string::npos)
      << failed[0].message;
}

TEST(AnalysisRequest, DocumentsReadBackBitForBit) {
  SimulatorSetup setup;
  setup.section = {{"type", "internal"}, {"model", "m"}, {"executor", {{"type", "slurm"}}}};
  setup.design_names = {"a", "b"};
  setup.load_cases.push_back({"drop", TimeGrid(0.0, 0.3, 4), {{"v0", 0.1}}});
  setup.study_directory = "/some/where";
  Evaluation known;
  known.cases.resize(1);
  known.cases[0].scalars["s"] = 0.1 + 0.2;
  EvaluationRequest request;
  request.design = Eigen::Vector2d(1.0 / 3.0, -2e-308);
  request.derivatives.push_back({0, "h", {1, 3}});
  request.values = &known;
  request.differences = DifferenceOrder::kFivePoint;
  request.lower = Eigen::Vector2d(0.0, -1.0);
  request.upper = Eigen::Vector2d(1.0, std::numeric_limits<double>::infinity());
  const nlohmann::json document = nlohmann::json::parse(request_document(setup, request).dump());
  EXPECT_FALSE(document["setup"]["section"].contains("executor"));  // the worker runs locally
  SimulatorSetup s;
  EvaluationRequest r;
  Evaluation values;
  read_request_document(document, s, r, values);
  EXPECT_EQ(s.design_names, setup.design_names);
  EXPECT_EQ(s.load_cases[0].grid.end, 0.3);
  EXPECT_EQ(s.load_cases[0].parameters.at("v0"), 0.1);
  EXPECT_EQ(r.design(0), 1.0 / 3.0);
  EXPECT_EQ(r.design(1), -2e-308);
  EXPECT_EQ(r.derivatives[0].time_indices, (std::vector<int>{1, 3}));
  EXPECT_EQ(r.differences, DifferenceOrder::kFivePoint);  // the driver's switch reaches a worker
  EXPECT_EQ(r.lower, request.lower);
  EXPECT_EQ(r.upper, request.upper);
  ASSERT_NE(r.values, nullptr);
  EXPECT_EQ(r.values->cases[0].scalars.at("s"), 0.1 + 0.2);

  Evaluation e;
  e.has_gradients = true;
  e.cost.runs = 3;
  e.cases.resize(1);
  e.cases[0].histories["h"] = Eigen::Vector3d(0.1, 1e300, -0.0);
  Eigen::MatrixXd g(2, 2);
  g << 1.0 / 7.0, std::numeric_limits<double>::quiet_NaN(), 2.5,
      -std::numeric_limits<double>::infinity();
  e.cases[0].gradients["h"] = g;
  e.cases[0].gradient_method = "adjoint";
  e.cases[0].difference_step = 1e-4;  // carried whatever the method
  const Evaluation back =
      read_evaluation_document(nlohmann::json::parse(evaluation_document(e).dump()));
  EXPECT_EQ(back.cost.runs, 3);
  EXPECT_EQ(back.cases[0].gradient_method, "adjoint");  // the cycle record names it
  EXPECT_EQ(back.cases[0].difference_step, 1e-4);
  EXPECT_EQ(0, std::memcmp(back.cases[0].histories.at("h").data(),
                           e.cases[0].histories.at("h").data(), 3 * sizeof(double)));
  const Eigen::MatrixXd& gb = back.cases[0].gradients.at("h");
  EXPECT_EQ(gb(0, 0), 1.0 / 7.0);
  EXPECT_TRUE(std::isnan(gb(0, 1)));
  EXPECT_EQ(gb(1, 0), 2.5);
  EXPECT_EQ(gb(1, 1), -std::numeric_limits<double>::infinity());
  EXPECT_THROW(read_evaluation_document(nlohmann::json{{"ok", true}}), std::invalid_argument);
}

// Malformed requests (found by fuzzing the cluster worker `sao analyse`): each is an
// invalid_argument naming the entry (exit code 2), not a wrapped integer, a bad_alloc or a
// job submitted from the worker.
TEST(AnalysisRequest, MalformedEntriesAreNamedNotWrapped) {
  SimulatorSetup setup;
  setup.section = {{"type", "internal"}, {"model", "m"}};
  setup.design_names = {"a"};
  setup.load_cases.push_back({"drop", TimeGrid(0.0, 0.3, 4), {}});
  EvaluationRequest request;
  request.design = Eigen::VectorXd::Constant(1, 1.0);
  request.derivatives.push_back({0, "h", {1}});
  const nlohmann::json good = request_document(setup, request);
  auto error = [](const nlohmann::json& document) -> std::string {
    SimulatorSetup s;
    EvaluationRequest r;
    Evaluation values;
    try {
      read_request_document(document, s, r, values);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "no error";
  };
  nlohmann::json d = good;
  d["format"] = 1;
  EXPECT_NE(error(d).find("not an analysis request"), std::string::npos) << error(d);
  d = good;
  d["derivatives"][0]["load_case"] = 1e308;
  EXPECT_NE(error(d).find("derivatives[0].load_case: expected an integer in [0, 0], got"),
            std::string::npos)
      << error(d);
  d["derivatives"][0]["load_case"] = 0.5;
  EXPECT_NE(error(d).find("load_case: expected an integer"), std::string::npos) << error(d);
  d = good;
  d["setup"]["load_cases"][0]["grid"]["points"] = 2147483647;
  EXPECT_NE(error(d).find("grid.points: expected an integer in [0, 1000000]"), std::string::npos)
      << error(d);
  d = good;
  d["derivatives"][0]["points"] = {-1};
  EXPECT_NE(error(d).find("derivatives[0].points[0]: expected an integer"), std::string::npos)
      << error(d);
  // Values of another kind, keys missing: named by their JSON path in plain words.
  d = good;
  d["setup"]["design_names"][0] = 3;
  EXPECT_EQ(error(d), "setup.design_names[0]: expected a string, got a number (3)");
  d = good;
  d["setup"]["load_cases"][0]["parameters"] = {{"v0", "fast"}};
  EXPECT_EQ(error(d), "setup.load_cases[0].parameters.v0: expected a number, got \"fast\"");
  d = good;
  d["derivatives"][0].erase("response");
  EXPECT_EQ(error(d), "derivatives[0].response: missing");
  d = good;
  d["setup"] = nlohmann::json::array();
  EXPECT_EQ(error(d), "setup: expected an object, got an array");
  d = good;
  d["values"] = {{"format", "sao-evaluation"}, {"ok", "yes"}};
  EXPECT_EQ(error(d), "values.ok: expected a boolean, got a string (\"yes\")");
  // An executor in the section is dropped: the worker runs the request itself.
  d = good;
  d["setup"]["section"]["executor"] = {{"type", "slurm"}};
  SimulatorSetup s;
  EvaluationRequest r;
  Evaluation values;
  read_request_document(d, s, r, values);
  EXPECT_FALSE(s.section.contains("executor"));
  EXPECT_EQ(r.derivatives[0].time_indices, (std::vector<int>{1}));
}

// An evaluation of another kind in its parts: each named by its JSON path in plain words.
TEST(AnalysisRequest, AnEvaluationIsReadWithItsPathsInPlainWords) {
  Evaluation e;
  e.cases.resize(1);
  e.cases[0].scalars["f"] = 1.0;
  e.cases[0].histories["h"] = Eigen::Vector2d(1.0, 2.0);
  const nlohmann::json good = evaluation_document(e);
  auto error = [](const nlohmann::json& document) -> std::string {
    try {
      (void)read_evaluation_document(document);
    } catch (const std::invalid_argument& x) {
      return x.what();
    }
    return "no error";
  };
  nlohmann::json d = good;
  d["cases"][0]["scalars"]["f"] = "x";
  EXPECT_EQ(error(d), "cases[0].scalars.f: expected a number, got \"x\"");
  d = good;
  d["cases"][0]["histories"]["h"][1] = true;
  EXPECT_EQ(error(d), "cases[0].histories.h[1]: expected a number, got true");
  d = good;
  d["message"] = nullptr;
  EXPECT_EQ(error(d), "message: expected a string, got null");
  d = good;
  d["cases"][0]["gradient_method"] = 3;
  EXPECT_EQ(error(d), "cases[0].gradient_method: expected a string, got a number (3)");
  d = good;
  d["cases"][0]["difference_step"] = "x";
  EXPECT_EQ(error(d), "cases[0].difference_step: expected a number, got \"x\"");
  d = good;
  d["cases"][0]["difference_step"] = -1e-3;
  EXPECT_EQ(error(d), "cases[0].difference_step: expected a step >= 0, got -0.001");
  d = good;
  d["cases"][0].erase("scalars");
  EXPECT_EQ(error(d), "cases[0].scalars: missing");
  d = good;
  d["cases"][0]["gradients"]["h"] = {{"rows", 2}, {"cols", 2}, {"values", {1.0}}};
  EXPECT_EQ(error(d), "cases[0].gradients.h: 2 rows and 2 columns, but 1 values");
}

// A batch executor whose every job "completes" with `text` as its evaluation.json.
class WritingExecutor final : public BatchExecutor {
 public:
  explicit WritingExecutor(std::string text) : text_(std::move(text)) {}
  std::vector<JobOutcome> execute(const std::vector<JobSpec>& jobs, JobLedger*) override {
    std::vector<JobOutcome> out;
    for (const JobSpec& j : jobs) {
      std::ofstream(j.directory / "evaluation.json") << text_;
      JobOutcome& o = out.emplace_back();
      o.job_id = "7";
      o.directory = j.directory;
      o.ran = true;
      o.state = "COMPLETED";
    }
    return out;
  }

 private:
  std::string text_;
};

// The evaluation file of a job that is not readable: a failed analysis naming the job, the file
// and the place in it (line and column, JSON path), never the JSON library's text.
TEST(AnalysisRequest, AnUnreadableEvaluationFileIsAFailedAnalysisNamingThePlace) {
  const std::filesystem::path dir = testing::scratch_directory("test-analysis-request");
  SimulatorSetup setup;
  setup.section = {{"type", "internal"}, {"model", "m"}};
  setup.design_names = {"a"};
  std::vector<EvaluationRequest> batch(1);
  batch[0].design = Eigen::VectorXd::Constant(1, 1.0);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"format\": \"sao-evaluation\",\n \"ok\": tru}",
       "evaluation.json: line 2, column 11 (reading ok): not valid JSON: "},
      {"{\"format\": \"sao-evaluation\", \"wall_seconds\": 1e5000}",
       "evaluation.json: wall_seconds (line 1, column 46): the number 1e5000 is beyond the range "
       "of a double"},
      {"{\"format\": \"sao-evaluation\", \"ok\": 1}", "ok: expected a boolean, got a number (1)"},
  };
  for (const auto& [text, says] : cases) {
    WritingExecutor executor(text);
    const std::vector<Evaluation> e =
        evaluate_as_jobs(batch, setup, "/no/worker", dir / "jobs", executor, nullptr);
    ASSERT_EQ(e.size(), 1u);
    EXPECT_FALSE(e[0].ok);
    EXPECT_NE(e[0].message.find("analysis job 7 in " + (dir / "jobs").string()), std::string::npos)
        << e[0].message;
    EXPECT_NE(e[0].message.find(says), std::string::npos) << e[0].message;
    EXPECT_EQ(e[0].message.find("[json.exception"), std::string::npos) << e[0].message;
  }
}

}  // namespace
}  // namespace sao
