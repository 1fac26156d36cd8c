// The sparse path beyond the integration (issue 52): the kinematic analysis (Phi_q's sparse LU
// for the positions, velocities, accelerations and, transposed, the reactions; the direct
// method's solves), the initial assembly of a dynamic model (Newton with the initial conditions'
// rows, the least-norm steps through a sparse J J', and dx0/dp) and the history outputs (the
// augmented system through the sparse Phi_q). The same model with "linear_algebra" "dense" and
// "sparse" must give the same histories and the same gradients.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "bench/pendulum_chain_model.hpp"
#include "simulators/internal_simulator.hpp"
#include "tests/simulators/multibody_support.hpp"
#include "tests/support.hpp"

namespace sao::sim {
namespace {

// One evaluation of `model` with "linear_algebra" `algebra`, its first 6 parameters (in the
// parameters' key order: L1, L10, ...) design variables, gradients by `method`, 1 s in 11
// points.
Evaluation evaluate(nlohmann::json model, const std::string& algebra, const std::string& method,
                    const std::vector<DerivativeRequest>& wanted) {
  model["linear_algebra"] = algebra;
  const nlohmann::json section = {
      {"type", "internal"}, {"model", "multibody"},
      {"rtol", 1e-9},       {"atol", 1e-11},
      {"workers", 1},       {"gradients", {{"method", method}, {"keep_forward", false}}}};
  Eigen::VectorXd b;
  InternalSimulator sim(bench::chain_setup(model, section, 6, b));
  Evaluation e = sim.evaluate({{b, wanted}}).front();
  EXPECT_TRUE(e.ok) << e.message;
  return e;
}

// The gradients of `response` at every point within `tolerance` of the largest of `b`'s, which
// must not be zero.
void expect_same_gradients(const Evaluation& a, const Evaluation& b, const std::string& response,
                           double tolerance) {
  ASSERT_TRUE(a.ok && b.ok);
  const Eigen::MatrixXd& g = a.cases[0].gradients.at(response);
  const Eigen::MatrixXd& h = b.cases[0].gradients.at(response);
  ASSERT_EQ(g.rows(), h.rows());
  ASSERT_EQ(g.cols(), 6);
  const double largest = h.cwiseAbs().maxCoeff();
  EXPECT_GT(largest, 1e-6) << response;  // the response does depend on the lengths
  EXPECT_LT((g - h).cwiseAbs().maxCoeff(), tolerance * largest) << response;
}

// A 12-link chain (60 unknowns: dense under "auto") whose given pose and velocities break its
// joints (each link turned 0.08 rad more than the last, every body moving at 0.1 m/s upwards
// and 0.3 rad/s), so that the assembly moves it; with `fixed`, each link's angle is also an
// initial condition (as many equations as coordinates: the square Newton and dx0/dp solves).
nlohmann::json broken_chain(bool fixed) {
  nlohmann::json model = bench::pendulum_chain(12);
  for (size_t i = 0; i < model["bodies"].size(); ++i) {
    nlohmann::json& body = model["bodies"][i];
    body["angle"] = 0.08 * static_cast<double>(i + 1);
    body["velocity"] = {0.0, 0.1};
    body["angular_velocity"] = 0.3;
    if (fixed) {
      model["initial"].push_back(
          {{"body", body["name"]}, {"angle", 0.1 * static_cast<double>(i % 3)}});
    }
  }
  return model;
}

// The driven chain of 12 links (a kinematic analysis, 72 unknowns): every history (positions,
// velocities, accelerations, reactions) and the direct method's gradients of the last link's
// vertical acceleration and of the first joint's reaction, dense against sparse; the adjoint
// (dense either way) agrees with the sparse direct method.
TEST(MultibodyKinematicSparse, TheDenseAndSparseKinematicAnalysesAgree) {
  const std::vector<DerivativeRequest> wanted = {{0, "link12.ay", {}}, {0, "joint1.fy", {}}};
  const nlohmann::json model = bench::driven_chain(12);
  const Evaluation dense = evaluate(model, "dense", "direct", wanted);
  const Evaluation sparse = evaluate(model, "sparse", "direct", wanted);
  testing::expect_close_values(sparse, dense, 1e-10);
  // The chain moves: the last link's vertical acceleration is not zero at t = 0.5.
  EXPECT_GT(std::abs(dense.cases[0].histories.at("link12.ay")(5)), 1e-3);
  EXPECT_GT(std::abs(dense.cases[0].histories.at("joint1.fy")(5)), 1.0);
  for (const char* response : {"link12.ay", "joint1.fy"}) {
    expect_same_gradients(sparse, dense, response, 1e-9);
  }
  const Evaluation adjoint = evaluate(model, "sparse", "adjoint", wanted);
  expect_same_gradients(adjoint, sparse, "link12.ay", 1e-8);
}

// The initial assembly without initial conditions: the least-norm corrections of the pose and
// the velocities (Newton on Phi = 0 and the projection, J J' sparse), then 1 s of motion; the
// histories at every point (point 0: the assembled state) and dx0/dp (the gradients at point
// 0) with the gradients of the tip's integral, dense against sparse.
TEST(MultibodyKinematicSparse, TheLeastNormAssemblyAgrees) {
  const std::vector<DerivativeRequest> wanted = {{0, "tip", {}}, {0, "link12.y", {0, 10}}};
  const Evaluation dense = evaluate(broken_chain(false), "dense", "direct", wanted);
  const Evaluation sparse = evaluate(broken_chain(false), "sparse", "direct", wanted);
  testing::expect_close_values(sparse, dense, 1e-7);
  // The assembly did move the pose: the last link is no longer where its given angles put it.
  EXPECT_GT(std::abs(dense.cases[0].histories.at("link12.theta")(0) - 0.96), 1e-3);
  const Eigen::MatrixXd& g = sparse.cases[0].gradients.at("link12.y");
  const Eigen::MatrixXd& h = dense.cases[0].gradients.at("link12.y");
  const double at_start = h.row(0).cwiseAbs().maxCoeff();
  EXPECT_GT(at_start, 1e-3);  // dx0/dp
  EXPECT_LT((g.row(0) - h.row(0)).cwiseAbs().maxCoeff(), 1e-10 * at_start);
  const double at_end = h.row(10).cwiseAbs().maxCoeff();
  EXPECT_LT((g.row(10) - h.row(10)).cwiseAbs().maxCoeff(), 1e-6 * at_end);
  expect_same_gradients(sparse, dense, "tip", 1e-6);
}

// With every link's angle an initial condition: the square Newton step (Phi_q with the
// conditions' rows, a sparse LU) and the square dx0/dp solves.
TEST(MultibodyKinematicSparse, TheSquareAssemblyWithInitialConditionsAgrees) {
  const std::vector<DerivativeRequest> wanted = {{0, "link12.x", {0, 10}}};
  const Evaluation dense = evaluate(broken_chain(true), "dense", "direct", wanted);
  const Evaluation sparse = evaluate(broken_chain(true), "sparse", "direct", wanted);
  testing::expect_close_values(sparse, dense, 1e-7);
  EXPECT_NEAR(dense.cases[0].histories.at("link2.theta")(0), 0.1, 1e-9);  // held
  const Eigen::MatrixXd& g = sparse.cases[0].gradients.at("link12.x");
  const Eigen::MatrixXd& h = dense.cases[0].gradients.at("link12.x");
  const double at_start = h.row(0).cwiseAbs().maxCoeff();
  EXPECT_GT(at_start, 1e-3);
  EXPECT_LT((g.row(0) - h.row(0)).cwiseAbs().maxCoeff(), 1e-10 * at_start);
  EXPECT_LT((g.row(10) - h.row(10)).cwiseAbs().maxCoeff(), 1e-6 * h.row(10).cwiseAbs().maxCoeff());
}

// "auto" chooses for a kinematic model by the same rule (from 80 coordinates and constraint
// equations) and says so: a driven chain of 13 links has 78, of 14 links 84.
TEST(MultibodyKinematicSparse, AutoChoosesForAKinematicModelAndSaysSo) {
  const std::pair<int, const char*> cases[] = {
      {13, "dense linear algebra (78 unknowns in the kinematic"},
      {14, "sparse linear algebra (84 unknowns in the kinematic"}};
  for (const auto& c : cases) {
    const int links = c.first;
    const std::string log = sao::testing::captured_log(spdlog::level::info, [links] {
      Eigen::VectorXd b;
      InternalSimulator sim(bench::chain_setup(
          bench::driven_chain(links), {{"type", "internal"}, {"model", "multibody"}}, 1, b));
    });
    EXPECT_NE(log.find(c.second), std::string::npos) << log;
  }
}

// The log of building the simulator of `model`.
std::string built_log(const nlohmann::json& model) {
  return sao::testing::captured_log(spdlog::level::info, [&model] {
    Eigen::VectorXd b;
    InternalSimulator sim(
        bench::chain_setup(model, {{"type", "internal"}, {"model", "multibody"}}, 1, b));
  });
}

// A row of `count` sliders whose every slider is also sprung to the next `reach` ones: a reduced
// Jacobian of about 2 reach + 1 entries per row.
nlohmann::json sprung_row(int count, int reach) {
  nlohmann::json m = bench::slider_row(count);
  for (int i = 1; i <= count; ++i) {
    for (int j = i + 2; j <= std::min(count, i + reach); ++j) {
      m["forces"].push_back({{"type", "spring_damper"},
                             {"bodies", {fmt::format("s{}", i), fmt::format("s{}", j)}},
                             {"points", {{0, 0}, {0, 0}}},
                             {"stiffness", 10},
                             {"length", j - i}});
    }
  }
  return m;
}

// "auto" chooses the independent coordinates' equations by their size and the fill of the
// reduced Jacobian's pattern: a row of sliders (3k - 2 entries) dense below 40 independent
// coordinates and sparse from 40, however many; a row sprung to its next 6 (more than 20 % of
// the entries at k = 50) dense, and above 160 independent coordinates with more than 20 % (the
// next 17) in absolute coordinates, sparse. "sparse" reduces with sparse equations, "dense" with
// dense ones, whatever the size.
TEST(MultibodyKinematicSparse, AutoChoosesTheReducedEquationsBySizeAndStructure) {
  EXPECT_NE(built_log(bench::slider_row(39))
                .find("(39 independent coordinates and their rates; dense reduced equations (115 "
                      "of 1521 entries"),
            std::string::npos);
  EXPECT_NE(built_log(bench::slider_row(40))
                .find("(40 independent coordinates and their rates; sparse reduced equations (118 "
                      "of 1600 entries"),
            std::string::npos);
  EXPECT_NE(built_log(bench::slider_row(400))
                .find("integrating 800 states (400 independent coordinates and their rates; "
                      "sparse reduced equations"),
            std::string::npos);
  const std::string filled = built_log(sprung_row(50, 6));
  EXPECT_NE(filled.find("50 independent coordinates and their rates; dense reduced equations (608 "
                        "of 2500 entries"),
            std::string::npos)
      << filled;
  const std::string large = built_log(sprung_row(161, 17));
  EXPECT_NE(large.find("in absolute coordinates (161 independent coordinates, 5329 of 25921 "
                       "entries in the reduced Jacobian's pattern: their dense equations lose"),
            std::string::npos)
      << large;
  EXPECT_NE(large.find("sparse linear algebra (805 unknowns"), std::string::npos) << large;
  nlohmann::json forced = bench::slider_row(4);
  forced["linear_algebra"] = "sparse";
  EXPECT_NE(built_log(forced).find("4 independent coordinates and their rates; sparse reduced "
                                   "equations (\"linear_algebra\": \"sparse\""),
            std::string::npos);
  forced = sprung_row(161, 17);
  forced["linear_algebra"] = "dense";
  EXPECT_NE(built_log(forced).find("161 independent coordinates and their rates; dense reduced "
                                   "equations (\"linear_algebra\": \"dense\")"),
            std::string::npos);
}

}  // namespace
}  // namespace sao::sim
