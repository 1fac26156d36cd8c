// Per-cycle overhead of the driver (screening + subproblem assembly + GLPK solve) on a study
// of the size of the truck damper (6 design variables, 3 load cases, 3 time-dependent
// constraints on 601 points), next to the cost of one simulation of the impact absorber.
// Target (issue 2): overhead under 5 ms; the ratio shows how little of a cycle it is.
//
//   build/sao_bench                       (both benchmarks, side by side)
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cmath>

#include "sao/optimizer/approximation.hpp"
#include "sao/optimizer/driver.hpp"
#include "sao/optimizer/screening.hpp"
#include "sao/study/open_study.hpp"
#include "sao/study/study_loader.hpp"
#include "simulators/internal_simulator.hpp"

namespace {

constexpr int kVariables = 6;
constexpr int kCases = 3;
constexpr int kPoints = 601;

sao::LoadedStudy overhead_study() {
  nlohmann::json vars = nlohmann::json::array();
  for (int i = 0; i < kVariables; ++i) {
    vars.push_back(
        {{"name", fmt::format("b{}", i + 1)}, {"lower", 0.1}, {"upper", 10.0}, {"initial", 1.0}});
  }
  nlohmann::json cases = nlohmann::json::array();
  for (int c = 0; c < kCases; ++c) {
    cases.push_back(
        {{"name", fmt::format("case{}", c + 1)}, {"time", {{"end", 3.0}, {"points", kPoints}}}});
  }
  nlohmann::json d = {
      {"design_variables", vars},
      {"auxiliary_variables", {{{"name", "bound"}, {"lower", 0.0}, {"initial", 1.0}}}},
      {"load_cases", cases},
      {"responses",
       {{{"name", "deflection"}, {"kind", "history"}},
        {{"name", "acceleration"}, {"kind", "history"}},
        {{"name", "tyre"}, {"kind", "history"}}}},
      {"objective", {{"minimize_max", {{"response", "deflection"}}}, {"auxiliary", "bound"}}},
      {"constraints",
       {{{"name", "acc"}, {"of", {{"response", "acceleration"}, {"abs", true}}}, {"upper", 20.0}},
        {{"name", "tyre"}, {"of", {{"response", "tyre"}, {"abs", true}}}, {"upper", 0.09}}}},
      {"simulator", {{"type", "none"}}}};
  return sao::load_study(d);
}

// Oscillating histories with several maxima near their bounds, and dense gradients.
sao::Evaluation overhead_evaluation() {
  sao::Evaluation e;
  e.has_gradients = true;
  e.cases.resize(kCases);
  const struct {
    const char* name;
    double amplitude;
  } responses[] = {{"deflection", 1.0}, {"acceleration", 19.0}, {"tyre", 0.085}};
  for (int c = 0; c < kCases; ++c) {
    for (const auto& r : responses) {
      Eigen::VectorXd h(kPoints);
      for (int p = 0; p < kPoints; ++p) {
        const double t = 3.0 * p / (kPoints - 1);
        h(p) = r.amplitude * std::exp(-0.3 * t) * std::sin(7.0 * t + c);
      }
      e.cases[c].histories[r.name] = h;
      Eigen::MatrixXd g(kPoints, kVariables);
      for (int p = 0; p < kPoints; ++p) {
        for (int i = 0; i < kVariables; ++i) g(p, i) = 0.01 * r.amplitude * std::cos(0.1 * p + i);
      }
      e.cases[c].gradients[r.name] = g;
    }
  }
  return e;
}

void BM_CycleOverhead(benchmark::State& state) {
  const sao::LoadedStudy study = overhead_study();
  const sao::Evaluation e = overhead_evaluation();
  Eigen::VectorXd x0 = Eigen::VectorXd::Ones(study.n_total());
  const Eigen::VectorXd factors = Eigen::VectorXd::Constant(kVariables, 0.3);
  size_t rows = 0;
  for (auto _ : state) {
    const sao::ExactResponses exact(study, e);
    const sao::ScreenedStudy screened = sao::screen_study(study, study.options, x0, exact);
    const sao::LinearApproximation approximation(study, e, x0);
    sao::ApproximateProblem problem;
    problem.study = &study;
    problem.model = &approximation;
    problem.x0 = x0;
    problem.rows = screened.rows;
    sao::set_subregion(study, factors, problem);
    const sao::SubproblemResult r = sao::solve_subproblem(problem, study.options);
    if (r.status == sao::SubproblemStatus::kFailed) state.SkipWithError(r.message.c_str());
    rows = screened.rows.size();
    benchmark::DoNotOptimize(r.x.data());
  }
  state.counters["retained_rows"] = static_cast<double>(rows);
  state.counters["constraint_rows"] = static_cast<double>(study.constraints.size() * kPoints);
}
BENCHMARK(BM_CycleOverhead)->Unit(benchmark::kMillisecond);

void BM_ImpactAbsorberSimulation(benchmark::State& state) {
  sao::sim::register_internal_simulator();
  const sao::LoadedStudy study =
      sao::load_study_file(SAO_SOURCE_DIR "/problems/impact-absorber/max-acceleration.json");
  auto simulator = sao::make_study_simulator(study);
  sao::EvaluationRequest request;
  request.design = Eigen::Vector2d(1.0, 0.3);
  for (auto _ : state) {
    const auto result = simulator->evaluate({request});
    if (!result.front().ok) state.SkipWithError(result.front().message.c_str());
    benchmark::DoNotOptimize(result.data());
  }
}
BENCHMARK(BM_ImpactAbsorberSimulation)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
