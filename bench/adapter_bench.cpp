// Benchmarks of the external-code adapter (issue 6), a program of its own that prints figures
// (not a timed unit test):
//   1. parallel pool: a batch of 8 evaluations of a code that sleeps S seconds (default 1)
//      with 1 worker and with 2 workers; prints both wall times and their ratio (ideal 0.5);
//   2. overhead per evaluation for a trivial code: templating, fresh directory, spawn, wait,
//      parse, clean-up, against the bare spawn of the same program.
//   sao_adapter_bench [sleep-seconds] [overhead-evaluations]
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "adapters/external_simulator.hpp"
#include "adapters/parsers.hpp"
#include "adapters/process.hpp"
#include "adapters/templates.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using sao::adapters::ExternalSimulator;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

sao::SimulatorSetup setup(const fs::path& dir, const json& command, int workers) {
  sao::SimulatorSetup s;
  s.section = {{"type", "external"},
               {"command", command},
               {"workers", workers},
               {"run_directory", (dir / "runs").string()},
               {"templates", {{{"file", "input.tpl"}, {"target", "input.txt"}}}},
               {"responses",
                {{{"name", "f"},
                  {"kind", "scalar"},
                  {"file", "result.txt"},
                  {"parser", "regex"},
                  {"pattern", "f = (\\S+)"}},
                 {{"name", "h"},
                  {"kind", "history"},
                  {"file", "table.txt"},
                  {"parser", "columns"},
                  {"time", "time"},
                  {"value", "value"}}}}};
  s.design_names = {"x", "y"};
  sao::LoadCaseSpec lc;
  lc.name = "only";
  lc.grid = sao::TimeGrid(0.0, 1.0, 11);
  s.load_cases = {lc};
  s.study_directory = dir.string();
  return s;
}

std::vector<sao::EvaluationRequest> batch(int n) {
  std::vector<sao::EvaluationRequest> out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out[static_cast<size_t>(i)].design = Eigen::Vector2d(1.0 + i, 2.0);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);
  const double sleep = argc > 1 ? std::atof(argv[1]) : 1.0;
  const int n_overhead = argc > 2 ? std::atoi(argv[2]) : 200;
  const fs::path dir = fs::temp_directory_path() / "sao-adapter-bench";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "input.tpl") << "x {{x:.10g}}\ny {{y:.10g}}\n";
  const std::string code = SAO_BENCH_FAKE_CODE;

  // 1. The pool.
  double wall[2] = {0, 0};
  for (int workers : {1, 2}) {
    ExternalSimulator sim(setup(dir, {code, "sleep", std::to_string(sleep)}, workers));
    const auto start = std::chrono::steady_clock::now();
    const auto out = sim.evaluate(batch(8));
    wall[workers - 1] = seconds_since(start);
    for (const auto& e : out) {
      if (!e.ok) {
        std::fprintf(stderr, "failed: %s\n", e.message.c_str());
        return 1;
      }
    }
    std::printf("8 evaluations of a code sleeping %.2f s, %d worker(s): %.3f s\n", sleep, workers,
                wall[workers - 1]);
  }
  std::printf("ratio 2 workers / 1 worker: %.3f (ideal 0.5)\n", wall[1] / wall[0]);

  // 2. Overhead per evaluation of a trivial code, one worker, one at a time, interleaved with
  // the bare spawn of the same program (no template, directory or parsing) so that both see
  // the same load of the machine; medians.
  {
    ExternalSimulator sim(setup(dir, {code, "ok"}, 1));
    sao::adapters::ProcessSpec spec;
    spec.program = code;
    spec.arguments = {"ok"};
    spec.directory = dir;
    spec.stdout_file = dir / "bare.out";
    spec.stderr_file = dir / "bare.err";
    sim.evaluate(batch(1));  // warm the page cache
    std::vector<double> full, bare;
    for (int i = 0; i < n_overhead; ++i) {
      auto start = std::chrono::steady_clock::now();
      if (!sim.evaluate(batch(1)).front().ok) return 1;
      full.push_back(seconds_since(start));
      start = std::chrono::steady_clock::now();
      sao::adapters::run_process(spec);
      bare.push_back(seconds_since(start));
    }
    auto median = [](std::vector<double> v) {
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
      return v[v.size() / 2];
    };
    // Spawning alone: /bin/true through the same call.
    sao::adapters::ProcessSpec truth = spec;
    truth.program = "/bin/true";
    truth.arguments.clear();
    std::vector<double> empty;
    for (int i = 0; i < n_overhead; ++i) {
      const auto start = std::chrono::steady_clock::now();
      sao::adapters::run_process(truth);
      empty.push_back(seconds_since(start));
    }
    std::printf("spawn and wait of /bin/true (Boost.Process, median): %.2f ms\n",
                median(empty) * 1e3);
    const double per = median(full), spawn = median(bare);
    std::printf(
        "trivial code, %d evaluations (medians): %.2f ms per evaluation; bare spawn and run of "
        "the same program %.2f ms; adapter overhead (templating, directory, parsing, clean-up) "
        "%.2f ms\n",
        n_overhead, per * 1e3, spawn * 1e3, (per - spawn) * 1e3);
  }
  // 3. The adapter's own work, measured directly: parse-once template rendered and written
  // into a fresh directory, the outputs of a real run read back, the directory removed.
  {
    const fs::path sample = dir / "sample";
    fs::create_directories(sample);
    sao::adapters::ProcessSpec spec;
    spec.program = code;
    spec.arguments = {"ok"};
    spec.directory = sample;
    spec.stdout_file = sample / "stdout.txt";
    spec.stderr_file = sample / "stderr.txt";
    std::ofstream(sample / "input.txt") << "x 1.5\ny 2\n";
    sao::adapters::run_process(spec);  // real outputs to read
    const auto section = setup(dir, {code, "ok"}, 1).section;
    std::vector<sao::adapters::OutputSpec> outputs;
    for (size_t k = 0; k < section["responses"].size(); ++k) {
      outputs.push_back(sao::adapters::parse_output_spec(section["responses"][k], "r"));
    }
    const auto tpl =
        sao::adapters::Template::parse("x {{x:.10g}}\ny {{y:.10g}}\n", {}, "input.tpl");
    const sao::TimeGrid grid(0.0, 1.0, 11);
    std::vector<double> own;
    for (int i = 0; i < n_overhead; ++i) {
      const auto start = std::chrono::steady_clock::now();
      const fs::path run = dir / ("own-" + std::to_string(i));
      fs::create_directories(run);
      std::string text, error;
      tpl.render({0, 1}, {1.5 + i, 2.0}, text, error);
      std::ofstream(run / "input.txt") << text;
      sao::CaseResult result;
      for (const auto& o : outputs) sao::adapters::read_output(o, sample, grid, result);
      fs::remove_all(run);
      own.push_back(seconds_since(start));
    }
    std::nth_element(own.begin(), own.begin() + n_overhead / 2, own.end());
    std::printf(
        "adapter's own work per run without the spawn (directory, template, 2 parsers, "
        "clean-up; median): %.3f ms\n",
        own[static_cast<size_t>(n_overhead / 2)] * 1e3);
  }
  fs::remove_all(dir);
  return 0;
}
