// Cost of a gradient relative to one analysis, for finite differences, direct differentiation
// and the adjoint method (issue 5), on a chain of 10 pendulum links (30 coordinates, 20
// constraint equations of 10 revolute joints, rotational spring-dampers at every joint) with
// 50 parameters and one integral response, the mean square of the tip height. The design
// variables are the first P parameters, P = 1, 2, 5, 10, 20, 50. Each iteration times one
// analysis and one gradient side by side; the counter `ratio` is gradient / analysis.
// (Debug builds time the AD code very differently: use the Release build of scripts/bootstrap.)
//
//   build/sao_bench --benchmark_filter=GradientCost
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>

#include "simulators/internal_simulator.hpp"

namespace {

constexpr int kLinks = 10;

nlohmann::json chain() {
  nlohmann::json params = nlohmann::json::object(), bodies = nlohmann::json::array(),
                 joints = nlohmann::json::array(), forces = nlohmann::json::array();
  // 50 parameters: stiffness, damping, free angle, mass and length of every link.
  for (int i = 1; i <= kLinks; ++i) params[fmt::format("k{}", i)] = 20.0;
  for (int i = 1; i <= kLinks; ++i) params[fmt::format("c{}", i)] = 0.1;
  for (int i = 1; i <= kLinks; ++i) params[fmt::format("a{}", i)] = 0.0;
  for (int i = 1; i <= kLinks; ++i) params[fmt::format("m{}", i)] = 1.0;
  for (int i = 1; i <= kLinks; ++i) params[fmt::format("L{}", i)] = 0.5;
  std::string x = "0";
  for (int i = 1; i <= kLinks; ++i) {
    const std::string L = fmt::format("L{}", i), m = fmt::format("m{}", i);
    bodies.push_back({{"name", fmt::format("link{}", i)},
                      {"mass", m},
                      {"inertia", fmt::format("{}*{}^2/12", m, L)},
                      {"position", nlohmann::json::array({x + " + " + L + "/2", 0})}});
    x += " + " + L;
    const std::string previous = i == 1 ? "ground" : fmt::format("link{}", i - 1);
    const nlohmann::json at_previous =
        i == 1 ? nlohmann::json::array({0, 0})
               : nlohmann::json::array({fmt::format("L{}/2", i - 1), 0});
    joints.push_back(
        {{"type", "revolute"},
         {"bodies", {previous, fmt::format("link{}", i)}},
         {"points", nlohmann::json::array(
                        {at_previous, nlohmann::json::array({fmt::format("-{}/2", L), 0})})}});
    forces.push_back({{"type", "rotational_spring_damper"},
                      {"bodies", {previous, fmt::format("link{}", i)}},
                      {"stiffness", fmt::format("k{}", i)},
                      {"damping", fmt::format("c{}", i)},
                      {"angle", fmt::format("a{}", i)}});
  }
  return {{"analysis", "dynamic"},
          {"parameters", params},
          {"bodies", bodies},
          {"joints", joints},
          {"forces", forces},
          {"integrals", {{{"name", "tip"}, {"integrand", fmt::format("link{}_y^2", kLinks)}}}}};
}

void BM_GradientCost(benchmark::State& state, const char* method) {
  const int n = static_cast<int>(state.range(0));
  sao::SimulatorSetup setup;
  setup.section = {{"type", "internal"},
                   {"model", "multibody"},
                   {"multibody", chain()},
                   {"rtol", 1e-6},
                   {"atol", 1e-8},
                   {"threads", 1},  // cost, not wall time: one core for every method
                   {"gradients", {{"method", method}, {"step", 1e-4}}}};
  const auto names = chain().at("parameters");
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
  double analysis = 0, gradient = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    const auto values = sim.evaluate({{b, {}}});
    auto t1 = std::chrono::steady_clock::now();
    const auto with = sim.evaluate({{b, {{0, "tip", {}}}}});
    auto t2 = std::chrono::steady_clock::now();
    if (!values[0].ok || !with[0].ok) {
      state.SkipWithError((values[0].message + with[0].message).c_str());
      break;
    }
    analysis += std::chrono::duration<double>(t1 - t0).count();
    gradient += std::chrono::duration<double>(t2 - t1).count();
  }
  state.counters["ratio"] = gradient / analysis;
  state.counters["analysis_ms"] = 1e3 * analysis / static_cast<double>(state.iterations());
}
// 1, 2, 5, 10, 20 and 50 parameters, each method.
void parameter_counts(benchmark::internal::Benchmark* b) {
  for (int n : {1, 2, 5, 10, 20, 50}) b->Arg(n);
  b->Unit(benchmark::kMillisecond)->Iterations(3);
}
BENCHMARK_CAPTURE(BM_GradientCost, forward, "forward")->Apply(parameter_counts);
BENCHMARK_CAPTURE(BM_GradientCost, direct, "direct")->Apply(parameter_counts);
BENCHMARK_CAPTURE(BM_GradientCost, adjoint, "adjoint")->Apply(parameter_counts);

}  // namespace
