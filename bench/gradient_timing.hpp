// One analysis and one gradient of a simulator timed side by side per benchmark iteration:
// the gradient / analysis ratio of the sensitivity benches (sensitivity_bench.cpp,
// four-bar/four_bar_gradient_bench.cpp). Returns the mean analysis time in seconds and sets
// the counter `ratio` (wall clock), and `cpu_ratio`, the same from the process's CPU time (the
// simulator's analyses run on the calling thread or its one worker, so on a shared machine the
// CPU times are not inflated by other processes' load as the wall times are); a failed
// evaluation ends the benchmark with its message.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <ctime>
#include <vector>

#include "sao/seam/simulator.hpp"

namespace sao::bench {

inline double time_gradient_against_analysis(benchmark::State& state, Simulator& sim,
                                             const Eigen::VectorXd& b,
                                             const std::vector<DerivativeRequest>& wanted) {
  double analysis = 0, gradient = 0, analysis_cpu = 0, gradient_cpu = 0;
  for (auto _ : state) {
    const std::clock_t c0 = std::clock();
    auto t0 = std::chrono::steady_clock::now();
    const auto values = sim.evaluate({{b, {}}});
    auto t1 = std::chrono::steady_clock::now();
    const std::clock_t c1 = std::clock();
    const auto with = sim.evaluate({{b, wanted}});
    auto t2 = std::chrono::steady_clock::now();
    const std::clock_t c2 = std::clock();
    if (!values[0].ok || !with[0].ok) {
      state.SkipWithError((values[0].message + with[0].message).c_str());
      return 0.0;
    }
    analysis += std::chrono::duration<double>(t1 - t0).count();
    gradient += std::chrono::duration<double>(t2 - t1).count();
    analysis_cpu += static_cast<double>(c1 - c0);
    gradient_cpu += static_cast<double>(c2 - c1);
  }
  state.counters["ratio"] = gradient / analysis;
  state.counters["cpu_ratio"] = gradient_cpu / analysis_cpu;
  return analysis / static_cast<double>(state.iterations());
}

}  // namespace sao::bench
