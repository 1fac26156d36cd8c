// Timing of the gradient of the pendulum chain (pendulum_chain_model.hpp), the model of the
// gradient-cost benches (sensitivity_bench.cpp, variational_bench.cpp).
#pragma once

#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

#include "bench/gradient_timing.hpp"
#include "bench/pendulum_chain_model.hpp"
#include "simulators/internal_simulator.hpp"

namespace sao::bench {

// Times the gradient of "tip" against one analysis (gradient_timing.hpp) with the first n
// parameters of `chain` as design variables, on 1 s (11 points), the internal simulator's
// section `section` (its "multibody" set to `chain`); the counter analysis_ms is one analysis.
inline void time_chain_gradient(benchmark::State& state, const nlohmann::json& chain,
                                nlohmann::json section, int n) {
  section["multibody"] = chain;
  sao::SimulatorSetup setup;
  setup.section = std::move(section);
  const auto names = chain.at("parameters");
  for (const auto& [name, value] : names.items()) {
    if (static_cast<int>(setup.design_names.size()) < n) setup.design_names.push_back(name);
  }
  sao::LoadCaseSpec lc;
  lc.name = "swing";
  lc.grid = sao::TimeGrid(0.0, 1.0, 11);
  setup.load_cases = {lc};
  sao::sim::InternalSimulator sim(setup);
  Eigen::VectorXd b(n);
  for (int i = 0; i < n; ++i) b(i) = names.at(setup.design_names[i]).get<double>();
  const double analysis = time_gradient_against_analysis(state, sim, b, {{0, "tip", {}}});
  state.counters["analysis_ms"] = 1e3 * analysis;
}

}  // namespace sao::bench
