// Explicit relations in the subproblem (issue 3):
//  - BM_SliderCrankSubproblem: the approximate problem of the slider-crank path study at its
//    start (8 variables; x2, y2, theta2 on 8 crank positions approximated linearly; coupler
//    point, path error and movability constraints exact): screening, assembly and the NLopt
//    SLSQP solve of one cycle;
//  - BM_HistoryRelationWithGradients: a history-valued constraint relation
//    (a^2 / 100 + b1 y - mean(y), 601 points) evaluated with its exact gradient at every
//    point on the linear approximation, next to BM_HistoryQuantityWithGradients, the plain
//    quantity `a` on the same points: the price of the expression engine per point.
//
//   build/sao_bench --benchmark_filter='SliderCrank|History'
#include <benchmark/benchmark.h>

#include <cmath>

#include "sao/optimizer/approximation.hpp"
#include "sao/optimizer/driver.hpp"
#include "sao/optimizer/screening.hpp"
#include "sao/optimizer/subproblem.hpp"
#include "sao/study/criteria.hpp"
#include "sao/study/open_study.hpp"
#include "sao/study/study_loader.hpp"
#include "simulators/internal_simulator.hpp"

namespace {

void BM_SliderCrankSubproblem(benchmark::State& state) {
  sao::sim::register_internal_simulator();
  const sao::LoadedStudy study =
      sao::load_study_file(SAO_SOURCE_DIR "/problems/slider-crank/path.json");
  auto simulator = sao::make_study_simulator(study);
  Eigen::VectorXd x0(study.n_total());
  for (int i = 0; i < study.n_design(); ++i) x0(i) = study.design[i].initial;
  sao::EvaluationRequest request{x0.head(study.n_design()), {}};
  const sao::Evaluation values = simulator->evaluate({request}).front();
  const sao::ScreenedStudy screened =
      sao::screen_study(study, study.options, x0, sao::ExactResponses(study, values));
  request.derivatives = screened.derivatives;
  const sao::Evaluation e = simulator->evaluate({request}).front();
  if (!e.ok) state.SkipWithError(e.message.c_str());
  const Eigen::VectorXd factors = Eigen::VectorXd::Constant(study.n_design(), 0.2);
  double f = 0.0;
  for (auto _ : state) {
    const sao::ExactResponses exact(study, e);
    const sao::ScreenedStudy s = sao::screen_study(study, study.options, x0, exact);
    const sao::LinearApproximation approximation(study, e, x0);
    sao::ApproximateProblem problem;
    problem.study = &study;
    problem.model = &approximation;
    problem.x0 = x0;
    problem.rows = s.rows;
    problem.linear = sao::linear_problem(study, problem.rows);
    sao::set_subregion(study, factors, problem);
    const sao::SubproblemResult r = sao::solve_subproblem(problem, study.options);
    if (r.status == sao::SubproblemStatus::kFailed) state.SkipWithError(r.message.c_str());
    f = r.objective;
    benchmark::DoNotOptimize(r.x.data());
  }
  state.counters["F_approx"] = f;
}
BENCHMARK(BM_SliderCrankSubproblem)->Unit(benchmark::kMillisecond);

constexpr int kPoints = 601;

sao::LoadedStudy history_study(const std::string& relation) {
  nlohmann::json d = {
      {"design_variables",
       {{{"name", "b1"}, {"lower", 0.1}, {"upper", 10.0}, {"initial", 1.0}},
        {{"name", "b2"}, {"lower", 0.1}, {"upper", 10.0}, {"initial", 1.0}}}},
      {"load_cases", {{{"name", "road"}, {"time", {{"end", 3.0}, {"points", kPoints}}}}}},
      {"responses", {{{"name", "a"}, {"kind", "history"}}, {{"name", "y"}, {"kind", "history"}}}},
      {"objective", {{"minimize", "b1"}}},
      {"constraints", {{{"name", "g"}, {"of", relation}, {"upper", 20.0}}}},
      {"simulator", {{"type", "none"}}}};
  return sao::load_study(d);
}

sao::Evaluation history_evaluation() {
  sao::Evaluation e;
  e.has_gradients = true;
  e.cases.resize(1);
  for (const char* name : {"a", "y"}) {
    Eigen::VectorXd h(kPoints);
    Eigen::MatrixXd g(kPoints, 2);
    for (int p = 0; p < kPoints; ++p) {
      const double t = 3.0 * p / (kPoints - 1);
      h(p) = 19.0 * std::exp(-0.3 * t) * std::sin(7.0 * t);
      g(p, 0) = std::cos(0.1 * p);
      g(p, 1) = std::sin(0.1 * p);
    }
    e.cases[0].histories[name] = h;
    e.cases[0].gradients[name] = g;
  }
  return e;
}

void history_benchmark(benchmark::State& state, const std::string& relation) {
  const sao::LoadedStudy study = history_study(relation);
  const sao::Evaluation e = history_evaluation();
  const Eigen::Vector2d x0(1.0, 1.0);
  const sao::LinearApproximation approximation(study, e, x0);
  const Eigen::Vector2d x(1.1, 0.9);
  std::vector<int> points(kPoints);
  for (int p = 0; p < kPoints; ++p) points[p] = p;
  Eigen::MatrixXd jacobian;
  for (auto _ : state) {
    // As the subproblem does for its rows: values and exact gradients at every point.
    const Eigen::VectorXd values = sao::normalised_constraint_points(
        study, study.constraints[0], points, x, approximation, 20.0, &jacobian);
    benchmark::DoNotOptimize(values.data());
    benchmark::DoNotOptimize(jacobian.data());
  }
  state.counters["points"] = kPoints;
}

void BM_HistoryRelationWithGradients(benchmark::State& state) {
  history_benchmark(state, "a^2 / 100 + b1*y - mean(y)");
}
BENCHMARK(BM_HistoryRelationWithGradients)->Unit(benchmark::kMillisecond);

void BM_HistoryQuantityWithGradients(benchmark::State& state) {
  history_benchmark(state, "a");
}
BENCHMARK(BM_HistoryQuantityWithGradients)->Unit(benchmark::kMillisecond);

}  // namespace
