// Section 4 of sao_speed, its last table (issue 52): the gradients of the driven chain (a
// kinematic analysis, bench/pendulum_chain_model.hpp driven_chain) of N = 20, 80 and 160 links,
// dense against sparse linear algebra in one run: one analysis, the analysis with the direct
// method's and with the adjoint method's gradients of two histories at every grid point (the
// last link's vertical acceleration and the first joint's vertical reaction, 22 values) in the
// chain's first 6 parameters (its lengths L1, L10, ...: they move every link), the sparse
// path's CPU ratio to the dense one, the log-log slopes from N = 20 to the largest, and how
// far the sparse gradients lie from the dense ones.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "bench/gradient_chain.hpp"
#include "bench/speed/speed.hpp"
#include "simulators/internal_simulator.hpp"
#include "simulators/multibody/multibody.hpp"

namespace sao::bench::speed {
namespace {

constexpr int kParameters = 6;

// One linear algebra's figures at one N: CPU seconds (medians) and the last run's gradients.
struct KinematicRow {
  double analysis = 0.0, direct = 0.0, adjoint = 0.0;
  Eigen::MatrixXd direct_rows, adjoint_rows;  // both responses' rows, one above the other
};

// Both responses' gradients (22 x 6) of a result.
Eigen::MatrixXd stacked(const CaseResult& r, const std::vector<DerivativeRequest>& wanted) {
  const Eigen::MatrixXd& a = r.gradients.at(wanted[0].response);
  const Eigen::MatrixXd& b = r.gradients.at(wanted[1].response);
  Eigen::MatrixXd out(a.rows() + b.rows(), a.cols());
  out << a, b;
  return out;
}

KinematicRow measure_kinematic(int links, const std::string& algebra, int repeats) {
  nlohmann::json model = driven_chain(links);
  model["linear_algebra"] = algebra;
  const std::vector<DerivativeRequest> wanted = {{0, fmt::format("link{}.ay", links), {}},
                                                 {0, "joint1.fy", {}}};
  Eigen::VectorXd b;
  const auto direct =
      make_simulator(chain_setup(model, gradient_section("direct"), kParameters, b));
  const auto adjoint =
      make_simulator(chain_setup(model, gradient_section("adjoint"), kParameters, b));
  KinematicRow r;
  CaseResult result;
  r.analysis = long_or_median_seconds(repeats, [&] { result = evaluate_case(*direct, b, {}); });
  r.direct = long_or_median_seconds(repeats, [&] { result = evaluate_case(*direct, b, wanted); });
  r.direct_rows = stacked(result, wanted);
  r.adjoint = long_or_median_seconds(repeats, [&] { result = evaluate_case(*adjoint, b, wanted); });
  r.adjoint_rows = stacked(result, wanted);
  return r;
}

// The CPU seconds of one output gradient (OdeModel::output_gradient: the history output's
// derivatives in the state and the active parameters by forward AD, Dynamics::out<AD>) of
// `output` on the dynamic chain of `links` links at its initial state, 6 active parameters.
double output_gradient_seconds(int links, const std::string& algebra, const std::string& output,
                               int repeats, Eigen::RowVectorXd& gradient) {
  nlohmann::json model = pendulum_chain(links);
  model["linear_algebra"] = algebra;
  const auto loaded = sim::load_multibody_model(model);
  const auto& ode = dynamic_cast<const sim::OdeModel&>(*loaded);
  Eigen::VectorXd b;
  const SimulatorSetup setup = chain_setup(model, gradient_section("direct"), kParameters, b);
  const LoadCaseSpec& lc = setup.load_cases[0];
  const std::vector<std::string> names = ode.parameters();
  Eigen::VectorXd p(static_cast<Eigen::Index>(names.size()));
  const auto defaults = ode.parameter_defaults();
  std::vector<int> active;
  for (size_t i = 0; i < names.size(); ++i) {
    p(static_cast<Eigen::Index>(i)) = defaults.at(names[i]);
    if (static_cast<int>(active.size()) < kParameters) active.push_back(static_cast<int>(i));
  }
  Eigen::VectorXd x(ode.state_size());
  ode.initial_state(p.data(), x.data(), lc);
  const std::vector<std::string> histories = ode.history_outputs();
  const int k =
      static_cast<int>(std::find(histories.begin(), histories.end(), output) - histories.begin());
  return median_seconds(repeats, [&] { gradient = ode.output_gradient(k, 0.0, x, p, lc, active); });
}

// Dynamics::out<AD> (an output's partial derivatives, the direct and adjoint methods' output
// terms) on the dynamic chain, dense against sparse.
void output_gradient_cost(int largest, int repeats) {
  fmt::print(
      "one output gradient (Dynamics::out<AD>: d(output)/d(x, 6 parameters) by forward AD) on the "
      "dynamic chain at its initial state, CPU per call, dense and sparse (diff: relative to the "
      "largest)\n{:>6} | {:>10} {:>10} {:>7} {:>8} | {:>10} {:>10} {:>7} {:>8}\n",
      "N", "ay dense", "sparse", "ratio", "diff", "fy dense", "sparse", "ratio", "diff");
  for (int n : {20, 80, 160}) {
    if (n > largest) continue;
    std::string line = fmt::format("{:>6} |", n);
    for (const std::string& output : {fmt::format("link{}.ay", n), std::string("joint1.fy")}) {
      Eigen::RowVectorXd dense_gradient, sparse_gradient;
      const double dense = output_gradient_seconds(n, "dense", output, repeats, dense_gradient);
      const double sparse = output_gradient_seconds(n, "sparse", output, repeats, sparse_gradient);
      const double scale = std::max(dense_gradient.cwiseAbs().maxCoeff(), 1e-300);
      line += fmt::format(" {:>9.5f}s {:>9.5f}s {:>7.2f} {:>8.1e} |", dense, sparse, sparse / dense,
                          (sparse_gradient - dense_gradient).cwiseAbs().maxCoeff() / scale);
    }
    fmt::print("{}\n", line.substr(0, line.size() - 2));
  }
}

double slope(double first, double last, int from, int to) {
  return std::log(last / first) / std::log(static_cast<double>(to) / from);
}

}  // namespace

void kinematic_gradient_cost(int largest, int repeats) {
  fmt::print(
      "the driven chain's gradients: d(link<N>.ay, joint1.fy at 11 points)/d(first {} "
      "parameters: L1, L10, ...), direct and adjoint, dense and sparse (ratio: sparse / dense; "
      "diff: the sparse gradients' largest difference from the dense ones, relative to the largest "
      "of their row; adjoint - direct: the same of the sparse adjoint from the sparse direct; "
      "largest |grad|: the dense direct gradients' largest magnitude)\n",
      kParameters);
  fmt::print(
      "{:>6} | {:>9} {:>9} {:>9} | {:>9} {:>9} {:>9} | {:>7} {:>7} | {:>8} {:>8} {:>8} | {:>8}\n",
      "N", "dense", "direct", "adjoint", "sparse", "direct", "adjoint", "direct", "adjoint", "diff",
      "diff", "adjoint", "largest");
  fmt::print(
      "{:>6} | {:>9} {:>9} {:>9} | {:>9} {:>9} {:>9} | {:>7} {:>7} | {:>8} {:>8} {:>8} | {:>8}\n",
      "", "analysis", "", "", "analysis", "", "", "ratio", "ratio", "direct", "adjoint", "-direct",
      "|grad|");
  std::vector<int> sizes;
  for (int n : {20, 80, 160}) {
    if (n <= largest) sizes.push_back(n);
  }
  KinematicRow first_dense, first_sparse, last_dense, last_sparse;
  for (int n : sizes) {
    const KinematicRow dense = measure_kinematic(n, "dense", repeats);
    const KinematicRow sparse = measure_kinematic(n, "sparse", repeats);
    fmt::print(
        "{:>6} | {:>8.3f}s {:>8.3f}s {:>8.3f}s | {:>8.3f}s {:>8.3f}s {:>8.3f}s | {:>7.2f} {:>7.2f} "
        "| {:>8.1e} {:>8.1e} {:>8.1e} | {:>8.1e}\n",
        n, dense.analysis, dense.direct, dense.adjoint, sparse.analysis, sparse.direct,
        sparse.adjoint, sparse.direct / dense.direct, sparse.adjoint / dense.adjoint,
        relative_difference(sparse.direct_rows, dense.direct_rows),
        relative_difference(sparse.adjoint_rows, dense.adjoint_rows),
        relative_difference(sparse.adjoint_rows, sparse.direct_rows),
        dense.direct_rows.cwiseAbs().maxCoeff());
    if (n == sizes.front()) {
      first_dense = dense;
      first_sparse = sparse;
    }
    last_dense = dense;
    last_sparse = sparse;
  }
  if (sizes.size() < 2) return output_gradient_cost(largest, repeats);
  const int from = sizes.front(), to = sizes.back();
  fmt::print(
      "log-log slope of the CPU time from {} to {}: dense direct {:.2f}, adjoint {:.2f}; sparse "
      "direct {:.2f}, adjoint {:.2f}\n",
      from, to, slope(first_dense.direct, last_dense.direct, from, to),
      slope(first_dense.adjoint, last_dense.adjoint, from, to),
      slope(first_sparse.direct, last_sparse.direct, from, to),
      slope(first_sparse.adjoint, last_sparse.adjoint, from, to));
  output_gradient_cost(largest, repeats);
}

}  // namespace sao::bench::speed
