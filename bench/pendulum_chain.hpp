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

// The simulator set-up of `chain` with its first n parameters as design variables, on 1 s
// (11 points), the internal simulator's section `section` (its "multibody" set to `chain`),
// and those parameters' values into `b`.
inline sao::SimulatorSetup chain_setup(const nlohmann::json& chain, nlohmann::json section, int n,
                                       Eigen::VectorXd& b) {
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
  b.resize(n);
  for (int i = 0; i < n; ++i) b(i) = names.at(setup.design_names[i]).get<double>();
  return setup;
}

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
