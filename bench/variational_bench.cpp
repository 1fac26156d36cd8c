// Cost of a gradient relative to one analysis with the variational integrator (issue 24):
// forward differences of the discrete map, its discrete adjoint, and, on the same model
// integrated by CVODES, forward differences and the CVODES adjoint. The model is a chain of
// 12 pendulum links (36 coordinates, 24 constraint equations, rotational spring-dampers at
// every joint; bench/pendulum_chain.hpp) with 60 parameters and one integral response, the
// integral of the squared tip height over 1 s; the design variables are the first P
// parameters, P = 1, 2, 5, 10, 20, 40, 60. Each iteration times one analysis and one gradient
// side by side, on one thread; the counter `ratio` is gradient / analysis, and the discrete
// adjoint's advantage over forward differences is ratio(forward_variational) / ratio
// (discrete_adjoint) at the same P.
//
//   nice -n 10 build/sao_bench --benchmark_filter=VariationalGradientCost
#include <benchmark/benchmark.h>

#include "bench/pendulum_chain.hpp"

namespace {

constexpr int kLinks = 12;  // 60 parameters

void BM_VariationalGradientCost(benchmark::State& state, const char* method, bool variational) {
  const int n = static_cast<int>(state.range(0));
  nlohmann::json chain = sao::bench::pendulum_chain(kLinks);
  if (variational) chain["integrator"] = {{"type", "variational"}, {"step", 5e-3}};
  sao::bench::time_chain_gradient(state, chain,
                                  {{"type", "internal"},
                                   {"model", "multibody"},
                                   {"rtol", 1e-6},
                                   {"atol", 1e-8},
                                   {"workers", 1},
                                   {"gradients", {{"method", method}, {"step", 1e-4}}}},
                                  n);
}
void parameter_counts(benchmark::internal::Benchmark* b) {
  for (int n : {1, 2, 5, 10, 20, 40, 60}) b->Arg(n);
  b->Unit(benchmark::kMillisecond)->Iterations(2);
}
BENCHMARK_CAPTURE(BM_VariationalGradientCost, forward_variational, "forward", true)
    ->Apply(parameter_counts);
BENCHMARK_CAPTURE(BM_VariationalGradientCost, discrete_adjoint, "discrete_adjoint", true)
    ->Apply(parameter_counts);
BENCHMARK_CAPTURE(BM_VariationalGradientCost, forward_cvodes, "forward", false)
    ->Apply(parameter_counts);
BENCHMARK_CAPTURE(BM_VariationalGradientCost, adjoint_cvodes, "adjoint", false)
    ->Apply(parameter_counts);

}  // namespace
