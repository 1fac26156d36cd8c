// One analysis and one gradient of a simulator timed side by side per benchmark iteration:
// the gradient / analysis ratio of the sensitivity benches (sensitivity_bench.cpp,
// four-bar/four_bar_gradient_bench.cpp). Returns the mean analysis time in seconds and sets
// the counter `ratio`; a failed evaluation ends the benchmark with its message.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <vector>

#include "sao/seam/simulator.hpp"

namespace sao::bench {

inline double time_gradient_against_analysis(benchmark::State& state, Simulator& sim,
                                             const Eigen::VectorXd& b,
                                             const std::vector<DerivativeRequest>& wanted) {
  double analysis = 0, gradient = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    const auto values = sim.evaluate({{b, {}}});
    auto t1 = std::chrono::steady_clock::now();
    const auto with = sim.evaluate({{b, wanted}});
    auto t2 = std::chrono::steady_clock::now();
    if (!values[0].ok || !with[0].ok) {
      state.SkipWithError((values[0].message + with[0].message).c_str());
      return 0.0;
    }
    analysis += std::chrono::duration<double>(t1 - t0).count();
    gradient += std::chrono::duration<double>(t2 - t1).count();
  }
  state.counters["ratio"] = gradient / analysis;
  return analysis / static_cast<double>(state.iterations());
}

}  // namespace sao::bench
