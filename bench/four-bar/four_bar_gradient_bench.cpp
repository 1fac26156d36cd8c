// Cost of the four-bar's gradient relative to one analysis (issue 22; docs/four-bar-flexible.md):
// problems/four-bar-flexible/flexible.json (E) at the rigid-link optimum (34.451, 22.871,
// 17.822) mm, the design the study ends near. The wanted values are those a cycle of the study
// retains there: the bending moments of the three critical nodes (the crank's driven node,
// mid-span of coupler and rocker) at the five grid points around the maximum and around the
// minimum of each, 30 values, each differentiated with respect to the 3 diameters. Each
// iteration times one analysis and one gradient side by side (one thread); the counter
// `ratio` is gradient / analysis, `values` the number of differentiated values.
//
//   build/sao_bench --benchmark_filter=FourBarGradient
#include <benchmark/benchmark.h>

#include <algorithm>

#include "bench/gradient_timing.hpp"
#include "sao/study/study_loader.hpp"
#include "simulators/internal_simulator.hpp"

namespace {

// The grid points a cycle retains around the extremes of history h: two on each side.
std::vector<int> around_extremes(const Eigen::VectorXd& h) {
  std::vector<int> points;
  Eigen::Index top = 0, bottom = 0;
  h.maxCoeff(&top);
  h.minCoeff(&bottom);
  for (const Eigen::Index centre : {top, bottom}) {
    for (Eigen::Index k = centre - 2; k <= centre + 2; ++k) {
      if (k >= 1 && k < h.size()) points.push_back(static_cast<int>(k));
    }
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  return points;
}

void BM_FourBarGradient(benchmark::State& state, const char* method) {
  const sao::Study study = sao::load_study_file(std::string(SAO_SOURCE_DIR) +
                                                "/problems/four-bar-flexible/flexible.json");
  sao::SimulatorSetup setup = study.simulator_setup();
  setup.section["gradients"]["method"] = method;
  setup.section["workers"] = 1;  // cost, not wall time: one core for every method
  sao::sim::InternalSimulator sim(setup);
  const Eigen::Vector3d b(0.034451, 0.022871, 0.017822);
  const auto values = sim.evaluate({{b, {}}});
  if (!values[0].ok) {
    state.SkipWithError(values[0].message.c_str());
    return;
  }
  std::vector<sao::DerivativeRequest> wanted;
  int count = 0;
  for (const char* m : {"crank.moment0", "coupler.moment3", "rocker.moment3"}) {
    wanted.push_back({0, m, around_extremes(values[0].cases[0].histories.at(m))});
    count += static_cast<int>(wanted.back().time_indices.size());
  }
  state.counters["analysis_s"] = sao::bench::time_gradient_against_analysis(state, sim, b, wanted);
  state.counters["values"] = count;
}
BENCHMARK_CAPTURE(BM_FourBarGradient, forward, "forward")->Unit(benchmark::kSecond)->Iterations(2);
BENCHMARK_CAPTURE(BM_FourBarGradient, direct, "direct")->Unit(benchmark::kSecond)->Iterations(2);
BENCHMARK_CAPTURE(BM_FourBarGradient, adjoint, "adjoint")->Unit(benchmark::kSecond)->Iterations(2);

}  // namespace
