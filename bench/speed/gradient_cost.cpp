// Section 6 of sao_speed (issue 52): the gradients' cost on the chain of N pendulum links
// (N = 80 by default, --gradient-chain N), side by side in one run: one analysis, the analysis
// with direct (CVODES forward) sensitivities and with the adjoint (CVODES, one shared backward
// sweep), and the same with the variational integrator's discrete direct and discrete adjoint
// methods, for P = 1, 2, 4, 8, 16 design parameters (the first P joints' stiffnesses) and the
// responses of bench/gradient_chain.hpp. It prints each CPU time, its ratio to one analysis,
// the cost per parameter of the direct methods ((t - t0) / P / t0) and per response of the
// adjoints ((t - t0) / R / t0), and how far the methods' gradients lie from each other and from
// central differences in one parameter, so that the figures are those of right gradients.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "bench/gradient_chain.hpp"
#include "bench/speed/speed.hpp"
#include "simulators/internal_simulator.hpp"

namespace sao::bench::speed {
namespace {

constexpr double kVariationalStep = 5e-3;  // as bench/variational_bench.cpp: 200 steps in 1 s
constexpr int kResponses = 3;

// One integrator's figures at one P: CPU seconds (medians) and the last run's gradients.
struct Row {
  double analysis = 0.0, direct = 0.0, adjoint_one = 0.0, adjoint_all = 0.0;
  long steps = 0;
  Eigen::MatrixXd direct_rows, adjoint_one_rows, adjoint_all_rows;  // R x P (adjoint_one: 1 x P)
};

// The median CPU seconds of `repeats` evaluations, or of one when it took more than 2 s; the last
// one's result into `out`.
double timed(Simulator& sim, const Eigen::VectorXd& b, const std::vector<DerivativeRequest>& wanted,
             int repeats, CaseResult& out) {
  return long_or_median_seconds(repeats, [&] { out = evaluate_case(sim, b, wanted); });
}

// The chain's simulator with its first p parameters as design variables (values into b), CVODES
// (step 0) or the variational integrator, gradients by `method`.
std::unique_ptr<Simulator> chain_simulator(int links, double step, int p, const std::string& method,
                                           Eigen::VectorXd& b) {
  return make_simulator(chain_setup(gradient_chain(links, step), gradient_section(method), p, b));
}

Row measure(int links, double step, int p, const ChainResponses& q, int repeats) {
  Eigen::VectorXd b;
  const auto direct = chain_simulator(links, step, p, "direct", b);
  const auto adjoint =
      chain_simulator(links, step, p, step > 0.0 ? "discrete_adjoint" : "adjoint", b);
  Row r;
  CaseResult result;
  r.analysis = timed(*direct, b, {}, repeats, result);
  r.steps = result.integrator_steps;
  r.direct = timed(*direct, b, q.requests(kResponses), repeats, result);
  r.direct_rows = q.gradients(result, kResponses);
  r.adjoint_one = timed(*adjoint, b, q.requests(1), repeats, result);
  r.adjoint_one_rows = q.gradients(result, 1);
  r.adjoint_all = timed(*adjoint, b, q.requests(kResponses), repeats, result);
  r.adjoint_all_rows = q.gradients(result, kResponses);
  return r;
}

void print_header(const char* direct, const char* adjoint) {
  fmt::print("{:>4} {:>9} {:>6} | {:>10} {:>7} {:>9} | {:>10} {:>7} | {:>10} {:>7} {:>9}\n", "", "",
             "", direct, "", "per", adjoint, "", adjoint, "", "per");
  fmt::print("{:>4} {:>9} {:>6} | {:>10} {:>7} {:>9} | {:>10} {:>7} | {:>10} {:>7} {:>9}\n", "P",
             "analysis", "steps", "R = 3", "ratio", "parameter", "R = 1", "ratio", "R = 3", "ratio",
             "response");
}

void print_row(int p, const Row& r) {
  const double t0 = r.analysis;
  fmt::print(
      "{:>4} {:>8.3f}s {:>6} | {:>9.3f}s {:>7.2f} {:>9.3f} | {:>9.3f}s {:>7.2f} | {:>9.3f}s "
      "{:>7.2f} {:>9.3f}\n",
      p, t0, r.steps, r.direct, r.direct / t0, (r.direct - t0) / p / t0, r.adjoint_one,
      r.adjoint_one / t0, r.adjoint_all, r.adjoint_all / t0,
      (r.adjoint_all - t0) / kResponses / t0);
}

// The largest differences between the methods, over every P, and against central differences.
struct Agreement {
  double adjoint = 0.0;      // the adjoint (R = 3) against the direct method
  double adjoint_one = 0.0;  // the adjoint of "drop" alone against the direct method's
  double central = 0.0;      // central differences in k1 against the direct method (P = 1)
  void add(const Row& r) {
    adjoint = std::max(adjoint, relative_difference(r.adjoint_all_rows, r.direct_rows));
    adjoint_one =
        std::max(adjoint_one, relative_difference(r.adjoint_one_rows, r.direct_rows.topRows(1)));
  }
};

// One integrator's table; `central` gets the direct gradients at P = 1 against central
// differences, `first` the direct gradients at P = 1 (to compare the integrators).
Agreement integrator_table(int links, double step, const ChainResponses& q, int repeats,
                           Eigen::MatrixXd& first) {
  Agreement agreement;
  double lowest = INFINITY, highest = 0.0, lowest_adjoint = INFINITY, highest_adjoint = 0.0;
  for (int p : {1, 2, 4, 8, 16}) {
    const Row r = measure(links, step, p, q, repeats);
    print_row(p, r);
    agreement.add(r);
    const double per_parameter = (r.direct - r.analysis) / p / r.analysis;
    lowest = std::min(lowest, per_parameter);
    highest = std::max(highest, per_parameter);
    lowest_adjoint = std::min(lowest_adjoint, r.adjoint_all / r.analysis);
    highest_adjoint = std::max(highest_adjoint, r.adjoint_all / r.analysis);
    if (p != 1) continue;
    first = r.direct_rows;
    Eigen::VectorXd b;
    const auto central = chain_simulator(links, step, 1, "central", b);
    CaseResult result;
    const double seconds = timed(*central, b, q.requests(kResponses), 1, result);
    agreement.central = relative_difference(q.gradients(result, kResponses), r.direct_rows);
    fmt::print("     (central differences in k1, relative step 1e-4: {:.3f}s, ratio {:.2f})\n",
               seconds, seconds / r.analysis);
  }
  fmt::print(
      "     from P = 1 to 16: direct, per parameter {:.3f} to {:.3f}; adjoint (R = 3) / analysis "
      "{:.2f} to {:.2f}\n",
      lowest, highest, lowest_adjoint, highest_adjoint);
  return agreement;
}

}  // namespace

void gradient_cost(int links, int repeats) {
  fmt::print(
      "\n6. Gradients on the {}-link pendulum chain ({} coordinates, {} constraint equations; "
      "linear algebra auto: {} unknowns, sparse from 80), 1 s, 11 points, 1 thread, CPU\n",
      links, 3 * links, 2 * links, 5 * links);
  Eigen::VectorXd b;
  const ChainResponses q =
      chain_responses(links, evaluate_case(*chain_simulator(links, 0.0, 1, "direct", b), b, {}));
  fmt::print(
      "   design parameters: the first P joints' stiffnesses k1..kP; responses (R): drop (the "
      "integral of {}^2), {} at t = 1 (point {}) and {} at its largest magnitude (point {})\n"
      "   ratio: / one analysis; per parameter: (direct - analysis) / P / analysis; per response: "
      "(adjoint - analysis) / R / analysis\n",
      q.height, q.height, q.last, q.speed, q.fastest);
  fmt::print("CVODES (BDF, rtol 1e-8, atol 1e-10), the adjoint without a kept forward pass:\n");
  print_header("direct", "adjoint");
  Eigen::MatrixXd cvodes, variational;
  const Agreement a = integrator_table(links, 0.0, q, repeats, cvodes);
  fmt::print("variational integrator (step {} s), its discrete map differentiated:\n",
             kVariationalStep);
  print_header("discrete", "discrete");
  const Agreement v = integrator_table(links, kVariationalStep, q, repeats, variational);
  fmt::print(
      "agreement (the largest difference of a response's derivatives, relative to its largest "
      "derivative):\n"
      "   CVODES: adjoint - direct {:.1e} (drop alone {:.1e}); central differences in k1 - direct "
      "{:.1e}\n"
      "   variational: discrete adjoint - discrete direct {:.1e} (drop alone {:.1e}); central "
      "differences of the discrete map in k1 - discrete direct {:.1e}\n"
      "   variational - CVODES (direct, P = 1: the discrete map's own error at its step) {:.1e}\n",
      a.adjoint, a.adjoint_one, a.central, v.adjoint, v.adjoint_one, v.central,
      relative_difference(variational, cvodes));
}

}  // namespace sao::bench::speed
