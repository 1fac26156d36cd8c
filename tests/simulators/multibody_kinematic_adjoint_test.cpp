// The kinematic analysis's sensitivities on the sparse path (issue 52,
// kinematics_sensitivities.cpp): the levels' Jacobians assembled element by element into sparse
// matrices and solved with the analysis's sparse LU of Phi_q. The same driven chain with
// "linear_algebra" "dense" (the AD of the whole point, dense LUs) and "sparse" must give the
// same direct and adjoint gradients of every kind of history output: a body's acceleration,
// a joint's reactions (the multipliers; the torque of the last link's angle driver), a marked
// point's acceleration and a spring-damper's force (its parameters, coordinates and velocities).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bench/pendulum_chain_model.hpp"
#include "simulators/internal_simulator.hpp"
#include "simulators/multibody/multibody.hpp"
#include "tests/simulators/multibody_support.hpp"

namespace sao::sim {
namespace {

constexpr int kLinks = 30;  // 90 coordinates, 90 constraint equations: sparse under "auto"

// The driven chain with a marked point on its last link (its offset a design parameter's
// expression) and a spring-damper from the ground to link 15 whose stiffness and free length read
// design parameters (the first 6 in key order: L1, L10, ..., L14).
nlohmann::json chain_with_extras() {
  nlohmann::json model = bench::driven_chain(kLinks);
  // The design lengths also turn the drivers of their links and weigh on link 5: the angles
  // and the inverse dynamics depend on them (the same values at the design point).
  for (int i : {1, 10, 11, 12, 13, 14}) {
    nlohmann::json& driver = model["joints"][kLinks + i - 1];
    driver["angle"] = fmt::format("a{0} + 0.3*(L{0} - 0.5) - 0.2*sin(2*t)", i);
  }
  model["bodies"][4]["mass"] = "2*L12";
  model["points"] = {{{"name", "tip"},
                      {"body", fmt::format("link{}", kLinks)},
                      {"at", {fmt::format("L{}/2", kLinks), "0.1*L10"}}}};
  model["forces"].push_back({{"type", "spring_damper"},
                             {"name", "spring"},
                             {"bodies", {"ground", "link15"}},
                             {"points", {{"L11", -1.0}, {0.0, "L12/4"}}},
                             {"stiffness", "300*L13"},
                             {"damping", 2.0},
                             {"length", "2*L14"}});
  return model;
}

const std::vector<std::string> kResponses = {fmt::format("link{}.ay", kLinks), "joint1.fy",
                                             fmt::format("joint{}.torque", 2 * kLinks), "tip.ay",
                                             "spring.force"};

Evaluation evaluate(const std::string& algebra, const std::string& method) {
  nlohmann::json model = chain_with_extras();
  model["linear_algebra"] = algebra;
  const nlohmann::json section = {{"type", "internal"},
                                  {"model", "multibody"},
                                  {"workers", 1},
                                  {"gradients", {{"method", method}}}};
  std::vector<DerivativeRequest> wanted;
  for (const std::string& r : kResponses) wanted.push_back({0, r, {}});
  Eigen::VectorXd b;
  InternalSimulator sim(bench::chain_setup(model, section, 6, b));
  Evaluation e = sim.evaluate({{b, wanted}}).front();
  EXPECT_TRUE(e.ok) << e.message;
  return e;
}

// Every response's gradients (every point, 6 parameters) within `tolerance` of the largest of
// `reference`'s, which must not be zero.
void expect_same_gradients(const Evaluation& a, const Evaluation& reference, double tolerance) {
  ASSERT_TRUE(a.ok && reference.ok);
  for (const std::string& response : kResponses) {
    const Eigen::MatrixXd& g = a.cases[0].gradients.at(response);
    const Eigen::MatrixXd& h = reference.cases[0].gradients.at(response);
    ASSERT_EQ(g.rows(), 11) << response;
    ASSERT_EQ(g.cols(), 6) << response;
    const double largest = h.cwiseAbs().maxCoeff();
    EXPECT_GT(largest, 1e-3) << response;  // it depends on the design parameters
    EXPECT_LE((g - h).cwiseAbs().maxCoeff(), tolerance * largest) << response;
  }
}

TEST(MultibodyKinematicAdjoint, TheSparseAdjointAgreesWithTheDenseOne) {
  const Evaluation dense = evaluate("dense", "adjoint");
  const Evaluation sparse = evaluate("sparse", "adjoint");
  testing::expect_close_values(sparse, dense, 1e-10);
  expect_same_gradients(sparse, dense, 1e-10);
}

TEST(MultibodyKinematicAdjoint, TheSparseDirectMethodAgreesWithTheDenseOne) {
  const Evaluation dense = evaluate("dense", "direct");
  const Evaluation sparse = evaluate("sparse", "direct");
  expect_same_gradients(sparse, dense, 1e-10);
  // And the two sparse methods with each other.
  expect_same_gradients(evaluate("sparse", "adjoint"), sparse, 1e-10);
}

// Central differences of the sparse analysis (relative step 1e-6) against the sparse adjoint:
// the exact gradients are those of the model, not only of the dense code.
TEST(MultibodyKinematicAdjoint, TheSparseAdjointMatchesCentralDifferences) {
  expect_same_gradients(evaluate("sparse", "adjoint"), evaluate("sparse", "central"), 1e-5);
}

// Dynamics::out<AD> on the sparse path (dynamics_outputs.cpp): the derivatives of the outputs
// that read the accelerations or the multipliers, in the state and 6 parameters, dense against
// sparse at a state off the constraints and moving (so that every term of the augmented system
// counts: the Baumgarte terms, the velocities), on a 20-link dynamic chain (100 unknowns) with a
// marked point on its last link and a spring-damper.
TEST(MultibodyKinematicAdjoint, TheSparseOutputDerivativesAgreeWithTheDenseOnes) {
  constexpr int links = 20;
  nlohmann::json model = bench::pendulum_chain(links);
  model["points"] = {{{"name", "tip"}, {"body", "link20"}, {"at", {"L20/2", "0.1*L1"}}}};
  model["forces"].push_back({{"type", "spring_damper"},
                             {"name", "spring"},
                             {"bodies", {"ground", "link10"}},
                             {"points", {{"L11", -1.0}, {0.0, 0.0}}},
                             {"stiffness", "300*L12"},
                             {"damping", 2.0},
                             {"length", 1.0}});
  Eigen::RowVectorXd gradients[2];
  const std::vector<std::string> outputs = {"link20.ay",  "link7.alpha", "joint1.fy",
                                            "joint20.fx", "tip.ax",      "tip.ay"};
  for (const char* algebra : {"dense", "sparse"}) {
    model["linear_algebra"] = algebra;
    const auto loaded = load_multibody_model(model);
    const auto& ode = dynamic_cast<const OdeModel&>(*loaded);
    const std::vector<std::string> names = ode.parameters();
    const auto defaults = ode.parameter_defaults();
    Eigen::VectorXd p(static_cast<Eigen::Index>(names.size()));
    for (size_t i = 0; i < names.size(); ++i)
      p(static_cast<Eigen::Index>(i)) = defaults.at(names[i]);
    LoadCaseSpec lc;
    lc.grid = TimeGrid(0.0, 1.0, 11);
    Eigen::VectorXd x(ode.state_size());
    ode.initial_state(p.data(), x.data(), lc);
    for (Eigen::Index i = 0; i < x.size(); ++i) x(i) += 0.01 * std::sin(1.0 + 3.0 * i);
    const std::vector<std::string> histories = ode.history_outputs();
    Eigen::RowVectorXd& all = gradients[std::string(algebra) == "sparse"];
    for (const std::string& output : outputs) {
      const auto k = std::find(histories.begin(), histories.end(), output) - histories.begin();
      ASSERT_LT(k, static_cast<long>(histories.size())) << output;
      const Eigen::RowVectorXd g =
          ode.output_gradient(static_cast<int>(k), 0.3, x, p, lc, {0, 1, 2, 3, 4, 5});
      ASSERT_EQ(g.size(), x.size() + 6);
      all.conservativeResize(all.size() + g.size());
      all.tail(g.size()) = g;
    }
  }
  const double largest = gradients[0].cwiseAbs().maxCoeff();
  EXPECT_GT(largest, 1.0);
  const Eigen::Index per_output = gradients[0].size() / static_cast<Eigen::Index>(outputs.size());
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Eigen::RowVectorXd a = gradients[0].segment(o * per_output, per_output);
    const Eigen::RowVectorXd b = gradients[1].segment(o * per_output, per_output);
    EXPECT_GT(a.cwiseAbs().maxCoeff(), 1e-3) << outputs[o];
    EXPECT_LE((a - b).cwiseAbs().maxCoeff(), 1e-10 * a.cwiseAbs().maxCoeff()) << outputs[o];
  }
}

}  // namespace
}  // namespace sao::sim
