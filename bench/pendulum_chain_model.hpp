// A chain of `links` pendulum links pinned end to end (3 coordinates and 2 constraint equations
// per link, a rotational spring-damper at every joint) with 5 parameters per link (stiffness,
// damping, free angle, mass and length) and one integral response "tip", the integral of the
// squared height of the last link: the model of the gradient-cost benches (pendulum_chain.hpp)
// and of the variational integrator's tests (tests/simulators/variational_test.cpp). Without
// Google Benchmark, so that the tests can include it.
#pragma once

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>

#include "sao/seam/simulator.hpp"

namespace sao::bench {

inline nlohmann::json pendulum_chain(int links) {
  nlohmann::json params = nlohmann::json::object(), bodies = nlohmann::json::array(),
                 joints = nlohmann::json::array(), forces = nlohmann::json::array();
  for (int i = 1; i <= links; ++i) params[fmt::format("k{}", i)] = 20.0;
  for (int i = 1; i <= links; ++i) params[fmt::format("c{}", i)] = 0.1;
  for (int i = 1; i <= links; ++i) params[fmt::format("a{}", i)] = 0.0;
  for (int i = 1; i <= links; ++i) params[fmt::format("m{}", i)] = 1.0;
  for (int i = 1; i <= links; ++i) params[fmt::format("L{}", i)] = 0.5;
  std::string x = "0";
  for (int i = 1; i <= links; ++i) {
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
          {"integrals", {{{"name", "tip"}, {"integrand", fmt::format("link{}_y^2", links)}}}}};
}

// The same chain driven (a kinematic model, issue 52): each joint's relative angle an angle
// driver a_i - 0.2 sin(2 t), so that the kinematic equations are square (3N coordinates, 2N
// revolute and N driver equations); the positions, velocities, accelerations and reactions
// solved point by point. Without integrals (a kinematic model has none).
inline nlohmann::json driven_chain(int links) {
  nlohmann::json chain = pendulum_chain(links);
  chain["analysis"] = "kinematic";
  chain.erase("integrals");
  for (int i = 1; i <= links; ++i) {
    const std::string previous = i == 1 ? "ground" : fmt::format("link{}", i - 1);
    chain["joints"].push_back({{"type", "angle_driver"},
                               {"bodies", {previous, fmt::format("link{}", i)}},
                               {"angle", fmt::format("a{} - 0.2*sin(2*t)", i)}});
  }
  return chain;
}

// A row of `count` masses on guides along x (translational joints to the ground: linear
// constraints, so that the model reduces to `count` independent coordinates) joined by
// spring-dampers of stiffness k, the last one pushed at 1 m/s: the independent coordinates'
// size bench (docs/performance.md) and tests/simulators/multibody_kinematic_sparse_test.cpp.
inline nlohmann::json slider_row(int count) {
  nlohmann::json bodies = nlohmann::json::array(), joints = nlohmann::json::array(),
                 forces = nlohmann::json::array();
  for (int i = 1; i <= count; ++i) {
    const std::string name = fmt::format("s{}", i);
    bodies.push_back({{"name", name},
                      {"mass", 1.0},
                      {"inertia", 0.1},
                      {"position", {1.0 * i, 0.0}},
                      {"velocity", {i == count ? 1.0 : 0.0, 0.0}}});
    joints.push_back({{"type", "translational"},
                      {"bodies", {"ground", name}},
                      {"points", {{0, 0}, {0, 0}}},
                      {"axis", 0}});
    forces.push_back(
        {{"type", "spring_damper"},
         {"bodies", {i == 1 ? std::string("ground") : fmt::format("s{}", i - 1), name}},
         {"points", {{0, 0}, {0, 0}}},
         {"stiffness", "k"},
         {"damping", 0.5},
         {"length", 1.0}});
  }
  return {{"analysis", "dynamic"},
          {"parameters", {{"k", 1000.0}}},
          {"bodies", bodies},
          {"joints", joints},
          {"forces", forces}};
}

// A pinned beam of `elements` co-rotational elements (1.2 m, a square section of w = 10 mm,
// density rho = 2700 kg/m^3, E = 1 GPa: the flexible pendulum of problems/flexible-pendulum/),
// released horizontally under gravity, with the integral response "tip" of its last node's
// squared height: the beam of sao_speed's section 4 and of the beam tests.
inline nlohmann::json beam_link(int elements) {
  const nlohmann::json beam = {{"name", "b"},
                               {"elements", elements},
                               {"start", {0, 0}},
                               {"angle", 0},
                               {"length", 1.2},
                               {"area", "(w/1000)^2"},
                               {"second_moment", "(w/1000)^4/12"},
                               {"modulus", "E"},
                               {"density", "rho"}};
  const nlohmann::json pin = {
      {"type", "revolute"}, {"bodies", {"ground", "b_0"}}, {"points", {{0, 0}, {0, 0}}}};
  return {{"analysis", "dynamic"},
          {"parameters", {{"w", 10}, {"E", 1e9}, {"rho", 2700}}},
          {"beams", {beam}},
          {"joints", {pin}},
          {"integrals", {{{"name", "tip"}, {"integrand", fmt::format("b_{}_y^2", elements)}}}}};
}

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

}  // namespace sao::bench
