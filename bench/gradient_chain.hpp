// The gradients of sao_speed's section 6 (issue 52) on the pendulum chain
// (pendulum_chain_model.hpp): its first P parameters (the first P joints' stiffnesses k1..kP)
// as design variables, and three responses of a link those joints move, link m = min(N, 16)
// (the chain's tip, 40 m away on the 80-link chain, falls freely for the whole second: its
// derivatives in k1..k16 are rounding): the integral "drop" of the link's squared height over
// 1 s, its height at the final grid point, and its vertical speed at the grid point where that
// is largest in magnitude (the point a "max over time" retains). Without Google Benchmark, so
// that the tests can include it (tests/simulators/gradient_chain_test.cpp).
#pragma once

#include <fmt/format.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/pendulum_chain_model.hpp"
#include "sao/seam/simulator.hpp"

namespace sao::bench {

// The link whose responses section 6 differentiates.
inline int watched_link(int links) {
  return std::min(links, 16);
}

// The chain of `links` links with the integral "drop" of the watched link's squared height,
// integrated by CVODES (step 0) or by the variational integrator with its largest step `step`
// (the discrete direct and adjoint methods then differentiate its discrete map).
inline nlohmann::json gradient_chain(int links, double step = 0.0) {
  nlohmann::json chain = pendulum_chain(links);
  chain["integrals"].push_back(
      {{"name", "drop"}, {"integrand", fmt::format("link{}_y^2", watched_link(links))}});
  if (step > 0.0) chain["integrator"] = {{"type", "variational"}, {"step", step}};
  return chain;
}

// The internal simulator's section with gradients by `method` ("direct", "adjoint",
// "discrete_adjoint", "central"), on one thread, CVODES's default tolerances (rtol 1e-8, atol
// 1e-10, as section 4), central differences with the relative step 1e-4; no forward pass kept,
// so that an adjoint gradient integrates its own (the cost of a gradient from nothing).
inline nlohmann::json gradient_section(const std::string& method) {
  return {{"type", "internal"},
          {"model", "multibody"},
          {"workers", 1},
          {"gradients", {{"method", method}, {"step", 1e-4}, {"keep_forward", false}}}};
}

// The three responses, from one analysis of the chain (the watched link's histories).
struct ChainResponses {
  std::string height, speed;  // the histories "link<m>.y" and "link<m>.vy"
  int last = 0;               // the final grid point
  int fastest = 0;            // the grid point where |link<m>.vy| is largest

  // The derivative requests of the first `count` responses (1: "drop" only; 3: all).
  std::vector<DerivativeRequest> requests(int count) const {
    std::vector<DerivativeRequest> out = {{0, "drop", {}}};
    if (count >= 2) out.push_back({0, height, {last}});
    if (count >= 3) out.push_back({0, speed, {fastest}});
    return out;
  }

  // d(response)/d(design) of the first `count` responses (a row each) from a result.
  Eigen::MatrixXd gradients(const CaseResult& r, int count) const {
    const Eigen::MatrixXd& drop = r.gradients.at("drop");
    Eigen::MatrixXd rows(count, drop.cols());
    rows.row(0) = drop.row(0);
    if (count >= 2) rows.row(1) = r.gradients.at(height).row(last);
    if (count >= 3) rows.row(2) = r.gradients.at(speed).row(fastest);
    return rows;
  }
};

inline ChainResponses chain_responses(int links, const CaseResult& analysis) {
  ChainResponses out;
  const int m = watched_link(links);
  out.height = fmt::format("link{}.y", m);
  out.speed = fmt::format("link{}.vy", m);
  const Eigen::VectorXd& v = analysis.histories.at(out.speed);
  if (v.size() < 2) throw std::runtime_error("the chain's grid needs 2 points or more");
  out.last = static_cast<int>(v.size()) - 1;
  Eigen::Index fastest = 0;
  v.cwiseAbs().maxCoeff(&fastest);
  out.fastest = static_cast<int>(fastest);
  return out;
}

// The case result of one evaluation of `sim` at b; a failed one throws its message.
inline CaseResult evaluate_case(Simulator& sim, const Eigen::VectorXd& b,
                                const std::vector<DerivativeRequest>& wanted) {
  auto e = sim.evaluate({{b, wanted}});
  if (!e[0].ok) throw std::runtime_error(e[0].message);
  return std::move(e[0].cases[0]);
}

// The largest difference of a row of `a` from the same row of `reference`, relative to the
// largest magnitude in that row of the reference (so every response counts on its own scale).
inline double relative_difference(const Eigen::MatrixXd& a, const Eigen::MatrixXd& reference) {
  if (a.rows() != reference.rows() || a.cols() != reference.cols()) {
    throw std::runtime_error("gradients of different shapes compared");
  }
  if (!a.allFinite() || !reference.allFinite()) return INFINITY;
  double out = 0.0;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    const double scale = reference.row(i).cwiseAbs().maxCoeff();
    const double difference = (a.row(i) - reference.row(i)).cwiseAbs().maxCoeff();
    out = std::max(out, scale > 0.0 ? difference / scale : difference);
  }
  return out;
}

}  // namespace sao::bench
