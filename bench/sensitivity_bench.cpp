// Cost of a gradient relative to one analysis, for finite differences, direct differentiation
// and the adjoint method (issue 5), on a chain of 10 pendulum links (30 coordinates, 20
// constraint equations of 10 revolute joints, rotational spring-dampers at every joint) with
// 50 parameters and one integral response, the mean square of the tip height. The design
// variables are the first P parameters, P = 1, 2, 5, 10, 20, 50. Each iteration times one
// analysis and one gradient side by side; the counter `ratio` is gradient / analysis.
// adjoint_checkpoints_100 is the adjoint with a checkpoint every 100 steps.
// (Debug builds time the AD code very differently: use the Release build of scripts/bootstrap.)
//
//   build/sao_bench --benchmark_filter=GradientCost
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>

#include "bench/gradient_timing.hpp"
#include "bench/pendulum_chain.hpp"
#include "simulators/internal_simulator.hpp"
#include "simulators/multibody/multibody.hpp"

namespace {

constexpr int kLinks = 10;

nlohmann::json chain() {
  return sao::bench::pendulum_chain(kLinks);
}

// checkpoint_steps: the adjoint's forward steps between checkpoints (0: the default, 500,
// which holds this run's ~300 steps; 100: the forward problem is integrated again between
// checkpoints during the backward solve, as in a run longer than the interval). Every
// iteration analyses, then asks for the gradient at the same design: with `keep` (the
// default of gradients.keep_forward) the adjoint's gradient reads the analysis's forward
// pass and integrates the backward problem only; without, it integrates its own.
void BM_GradientCost(benchmark::State& state, const char* method, int checkpoint_steps,
                     bool keep = true) {
  const int n = static_cast<int>(state.range(0));
  nlohmann::json section = {{"type", "internal"},
                            {"model", "multibody"},
                            {"rtol", 1e-6},
                            {"atol", 1e-8},
                            {"threads", 1},  // cost, not wall time: one core for every method
                            {"gradients", {{"method", method}, {"step", 1e-4}}}};
  if (checkpoint_steps > 0) section["gradients"]["checkpoint_steps"] = checkpoint_steps;
  if (!keep) section["gradients"]["keep_forward"] = false;
  sao::bench::time_chain_gradient(state, chain(), section, n);
}
// 1, 2, 5, 10, 20 and 50 parameters, each method.
void parameter_counts(benchmark::internal::Benchmark* b) {
  for (int n : {1, 2, 5, 10, 20, 50}) b->Arg(n);
  b->Unit(benchmark::kMillisecond)->Iterations(3);
}
BENCHMARK_CAPTURE(BM_GradientCost, forward, "forward", 0)->Apply(parameter_counts);
BENCHMARK_CAPTURE(BM_GradientCost, direct, "direct", 0)->Apply(parameter_counts);
BENCHMARK_CAPTURE(BM_GradientCost, adjoint, "adjoint", 0)->Apply(parameter_counts);
BENCHMARK_CAPTURE(BM_GradientCost, adjoint_from_nothing, "adjoint", 0, false)
    ->Apply(parameter_counts);
BENCHMARK_CAPTURE(BM_GradientCost, adjoint_checkpoints_100, "adjoint", 100)
    ->Apply(parameter_counts);

// One call of a run of the chain (OdeModel::Instance) with P = 10 active parameters: the
// right-hand side, and the linearisation a backward step of the adjoint needs at a new point,
// timed side by side over the same 50 states; `ratio` is linearisation / right-hand side;
// `qdd_rows_fill_pct` the share of nonzeros in the Jacobian's rows of q''.
//   build/sao_bench --benchmark_filter=RunCalls
void BM_RunCalls(benchmark::State& state) {
  const auto model = sao::sim::load_multibody_model(chain());
  const auto& ode = *model->ode();
  sao::LoadCaseSpec lc;
  lc.name = "swing";
  lc.grid = sao::TimeGrid(0.0, 1.0, 11);
  const auto defaults = model->parameter_defaults();
  Eigen::VectorXd p(static_cast<Eigen::Index>(defaults.size()));
  for (size_t i = 0; i < model->parameters().size(); ++i) {
    p(static_cast<Eigen::Index>(i)) = defaults.at(model->parameters()[i]);
  }
  const std::vector<int> active = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  const auto run = ode.instance(p, lc, active);
  const int n = ode.state_size();
  Eigen::VectorXd x0(n), xdot(n);
  ode.initial_state(p.data(), x0.data(), lc);
  std::vector<Eigen::VectorXd> states;
  for (int k = 0; k < 50; ++k) {  // swinging: velocities off zero, positions slightly off
    Eigen::VectorXd x = x0;
    for (int i = 0; i < n; ++i) x(i) += (i < n / 2 ? 1e-3 : 0.5) * std::sin(0.37 * (k + i));
    states.push_back(x);
  }
  double rhs = 0, linearize = 0;
  for (auto _ : state) {
    for (const Eigen::VectorXd& x : states) {
      auto t0 = std::chrono::steady_clock::now();
      run->rhs(0.3, x.data(), xdot.data());
      auto t1 = std::chrono::steady_clock::now();
      const auto linear = run->linearize(0.3, x.data());
      auto t2 = std::chrono::steady_clock::now();
      benchmark::DoNotOptimize(xdot.data());
      benchmark::DoNotOptimize(linear.get());
      rhs += std::chrono::duration<double>(t1 - t0).count();
      linearize += std::chrono::duration<double>(t2 - t1).count();
    }
  }
  // The fill of the Newton matrix's half-size Schur complement E - D C (second_order_solver.hpp):
  // the share of nonzeros in the rows of q'' = f(q, v) (D and E, n/2 x n, n/2 = 30 coordinates)
  // over the 50 states; near 100 % leaves a sparse LU (KLU) nothing to gain over the dense one.
  Eigen::MatrixXd jac;
  double nonzero = 0.0;
  for (const Eigen::VectorXd& x : states) {
    run->linearize(0.3, x.data())->jacobian(jac);
    nonzero += static_cast<double>((jac.block(n / 2, 0, n / 2, n).array() != 0.0).count());
  }
  state.counters["qdd_rows_fill_pct"] = 100.0 * nonzero / (50.0 * (n / 2) * n);
  const double calls = 50.0 * static_cast<double>(state.iterations());
  state.counters["rhs_us"] = 1e6 * rhs / calls;
  state.counters["linearize_us"] = 1e6 * linearize / calls;
  state.counters["ratio"] = linearize / rhs;
}
BENCHMARK(BM_RunCalls)->Unit(benchmark::kMillisecond);

}  // namespace
