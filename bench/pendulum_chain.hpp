// The pendulum chain (pendulum_chain_model.hpp) as the internal simulator's set-up, and the
// timing of its gradient: the model of the gradient-cost benches (sensitivity_bench.cpp,
// variational_bench.cpp, speed/speed_bench.cpp).
#pragma once

#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

#include "bench/gradient_timing.hpp"
#include "bench/pendulum_chain_model.hpp"
#include "simulators/internal_simulator.hpp"

namespace sao::bench {

// Times the gradient of "tip" against one analysis (gradient_timing.hpp) with the first n
// parameters of `chain` as design variables (chain_setup); the counter analysis_ms is one
// analysis.
inline void time_chain_gradient(benchmark::State& state, const nlohmann::json& chain,
                                nlohmann::json section, int n) {
  Eigen::VectorXd b;
  sao::sim::InternalSimulator sim(chain_setup(chain, std::move(section), n, b));
  const double analysis = time_gradient_against_analysis(state, sim, b, {{0, "tip", {}}});
  state.counters["analysis_ms"] = 1e3 * analysis;
}

}  // namespace sao::bench
