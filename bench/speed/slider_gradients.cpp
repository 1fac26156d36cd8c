// Section 7 of sao_speed, its second table (issue 52, branch redsparse): the direct and the
// adjoint gradients of a row of N sliders (bench/pendulum_chain_model.hpp slider_row, k = N
// independent coordinates) in its stiffness k, of the last slider's x at every grid point
// (11 values), in independent coordinates with dense and with sparse equations and in absolute
// coordinates (sparse): CPU medians, the sparse path's ratios to the other two, and how far its
// gradients lie from the dense ones' (relative to their largest).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "bench/gradient_chain.hpp"
#include "bench/speed/speed.hpp"
#include "simulators/internal_simulator.hpp"

namespace sao::bench::speed {
namespace {

// The gradient's CPU seconds by `method` with the model's `coordinates` and "linear_algebra",
// the last run's rows into `rows`.
double slider_gradient(int n, const char* coordinates, const char* algebra, const char* method,
                       int repeats, Eigen::MatrixXd& rows) {
  nlohmann::json model = slider_row(n);
  model["coordinates"] = coordinates;
  model["linear_algebra"] = algebra;
  const std::vector<DerivativeRequest> wanted = {{0, fmt::format("s{}.x", n), {}}};
  Eigen::VectorXd b;
  const auto sim = make_simulator(chain_setup(model, gradient_section(method), 1, b));
  return long_or_median_seconds(
      repeats, [&] { rows = evaluate_case(*sim, b, wanted).gradients.at(wanted[0].response); });
}

}  // namespace

void slider_gradient_cost(int largest, int repeats) {
  fmt::print(
      "gradients of the last slider's x at the 11 points in k, CPU (independent coordinates "
      "dense up to 320)\n{:>6} {:>8} {:>11} {:>11} {:>11} {:>14} {:>17} {:>10}\n",
      "N", "method", "dense", "sparse", "absolute", "sparse/dense", "sparse/absolute", "vs dense");
  for (int n : {40, 160, 640}) {
    if (n > largest) continue;
    for (const char* method : {"direct", "adjoint"}) {
      Eigen::MatrixXd d, s, a;
      const double dense =
          n <= 320 ? slider_gradient(n, "independent", "dense", method, repeats, d) : 0.0;
      const double sparse = slider_gradient(n, "independent", "sparse", method, repeats, s);
      const double absolute = slider_gradient(n, "absolute", "sparse", method, repeats, a);
      const bool both = dense > 0.0;
      fmt::print("{:>6} {:>8} {:>11} {:>10.3f}s {:>10.3f}s {:>14} {:>17.2f} {:>10}\n", n, method,
                 both ? fmt::format("{:.3f}s", dense) : "-", sparse, absolute,
                 both ? fmt::format("{:.2f}", sparse / dense) : "-", sparse / absolute,
                 both ? fmt::format("{:.1e}", relative_difference(s, d)) : "-");
    }
  }
}

}  // namespace sao::bench::speed
