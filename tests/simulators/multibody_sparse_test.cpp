// The sparse linear algebra of a multibody run in absolute coordinates (issue 52,
// augmented_solver.hpp): the augmented system through a sparse Schur complement and the Newton
// matrices bordered by it, factored by a sparse LU. The same model with "linear_algebra" set to
// "dense" and to "sparse" must give the same trajectories and the same sensitivities, direct and
// adjoint; "auto" chooses by size and says so in the log. Phi_q is assembled sparse in the
// joints' pattern, whatever its values; a beam's coupled mass matrix goes through a sparse LDL'.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>

#include "bench/pendulum_chain_model.hpp"
#include "simulators/internal_simulator.hpp"
#include "simulators/multibody/dynamics.hpp"
#include "simulators/multibody/parser.hpp"
#include "tests/simulators/multibody_support.hpp"
#include "tests/support.hpp"

namespace sao::sim {
namespace {

// The chain of the benches with `links` links, its first 6 parameters design variables,
// gradients by `method`, the multibody section's "linear_algebra" set to `algebra` (unless
// "auto": then left out).
SimulatorSetup chain(int links, const std::string& algebra, const std::string& method,
                     Eigen::VectorXd& b) {
  nlohmann::json model = bench::pendulum_chain(links);
  if (algebra != "auto") model["linear_algebra"] = algebra;
  const nlohmann::json section = {
      {"type", "internal"}, {"model", "multibody"},
      {"rtol", 1e-9},       {"atol", 1e-11},
      {"workers", 1},       {"gradients", {{"method", method}, {"keep_forward", false}}}};
  return bench::chain_setup(model, section, 6, b);
}

// A pinned beam of `elements` elements (w, E and rho; w and E design variables, direct
// gradients), "linear_algebra" `algebra` ("auto": left out), 0.02 s in 5 points.
SimulatorSetup beam_setup(int elements, const std::string& algebra, Eigen::VectorXd& b) {
  nlohmann::json model = bench::beam_link(elements);
  if (algebra != "auto") model["linear_algebra"] = algebra;
  const nlohmann::json section = {{"type", "internal"},
                                  {"model", "multibody"},
                                  {"workers", 1},
                                  {"gradients", {{"method", "direct"}}}};
  SimulatorSetup setup = bench::chain_setup(model, section, 2, b);
  setup.load_cases[0].grid = TimeGrid(0.0, 0.02, 5);
  return setup;
}

const std::vector<DerivativeRequest> kTip = {{0, "tip", {}}};

Evaluation run(int links, const std::string& algebra, const std::string& method,
               const std::vector<DerivativeRequest>& wanted) {
  Eigen::VectorXd b;
  InternalSimulator sim(chain(links, algebra, method, b));
  Evaluation e = sim.evaluate({{b, wanted}}).front();
  EXPECT_TRUE(e.ok) << e.message;
  return e;
}

using testing::expect_close_values;

void expect_close_gradient(const Evaluation& a, const Evaluation& b, double tolerance) {
  ASSERT_TRUE(a.ok && b.ok);
  const Eigen::MatrixXd& g = a.cases[0].gradients.at("tip");
  const Eigen::MatrixXd& h = b.cases[0].gradients.at("tip");
  ASSERT_EQ(g.cols(), 6);
  ASSERT_EQ(h.cols(), 6);
  const double scale = 1.0 + h.cwiseAbs().maxCoeff();
  EXPECT_GT(h.cwiseAbs().maxCoeff(), 1e-6);  // the chain's tip does depend on them
  for (Eigen::Index j = 0; j < g.cols(); ++j) {
    EXPECT_NEAR(g(0, j), h(0, j), tolerance * scale) << "column " << j;
  }
}

TEST(MultibodySparse, TheSparseAndDenseRunsOfA30LinkChainAgree) {
  const Evaluation dense = run(30, "dense", "direct", {});
  const Evaluation sparse = run(30, "sparse", "direct", {});
  expect_close_values(sparse, dense, 1e-7);
}

TEST(MultibodySparse, DirectSensitivitiesAgree) {
  const Evaluation dense = run(30, "dense", "direct", kTip);
  const Evaluation sparse = run(30, "sparse", "direct", kTip);
  expect_close_values(sparse, dense, 1e-7);
  expect_close_gradient(sparse, dense, 1e-6);
}

TEST(MultibodySparse, AdjointSensitivitiesAgree) {
  const Evaluation dense = run(30, "dense", "adjoint", kTip);
  const Evaluation sparse = run(30, "sparse", "adjoint", kTip);
  expect_close_gradient(sparse, dense, 1e-6);
  // And the adjoint's gradient is the direct method's.
  expect_close_gradient(sparse, run(30, "dense", "direct", kTip), 1e-5);
}

// Several values (the tip's integral and the last link's height at two grid points): the
// adjoint's shared backward sweep, one block of adjoint vectors through the transposed sparse
// factorisation.
TEST(MultibodySparse, TheSharedBackwardSweepAgrees) {
  const std::vector<DerivativeRequest> wanted = {{0, "tip", {}}, {0, "link30.y", {5, 10}}};
  const Evaluation dense = run(30, "dense", "adjoint", wanted);
  const Evaluation sparse = run(30, "sparse", "adjoint", wanted);
  expect_close_gradient(sparse, dense, 1e-6);
  const Eigen::MatrixXd& g = sparse.cases[0].gradients.at("link30.y");
  const Eigen::MatrixXd& h = dense.cases[0].gradients.at("link30.y");
  const double scale = 1.0 + h.row(10).cwiseAbs().maxCoeff();
  for (int point : {5, 10}) {
    for (Eigen::Index j = 0; j < h.cols(); ++j) {
      EXPECT_NEAR(g(point, j), h(point, j), 1e-6 * scale) << "point " << point << " column " << j;
    }
  }
}

// "auto" goes sparse from Dynamics::kSparseFrom (80) unknowns (coordinates and constraint
// equations), from kSparseFromBeams (40) with beam elements: a 5-link chain has 25, a 30-link
// chain 150. The choice is logged once.
TEST(MultibodySparse, AutoChoosesBySizeAndSaysSo) {
  const std::string small = sao::testing::captured_log(spdlog::level::info, [] {
    Eigen::VectorXd b;
    InternalSimulator sim(chain(5, "auto", "direct", b));
  });
  EXPECT_NE(small.find("dense linear algebra (25 unknowns"), std::string::npos) << small;
  const std::string large = sao::testing::captured_log(spdlog::level::info, [] {
    Eigen::VectorXd b;
    InternalSimulator sim(chain(30, "auto", "direct", b));
  });
  EXPECT_NE(large.find("sparse linear algebra (150 unknowns"), std::string::npos) << large;
  // With beam elements from kSparseFromBeams (40): 10 elements (33 coordinates and 2 equations)
  // stay dense, 15 (48 and 2) go sparse.
  const std::pair<int, const char*> beams[] = {{10, "dense linear algebra (35 unknowns"},
                                               {15, "sparse linear algebra (50 unknowns"}};
  for (const auto& beam : beams) {
    const int elements = beam.first;
    const std::string log = sao::testing::captured_log(spdlog::level::info, [elements] {
      Eigen::VectorXd b;
      InternalSimulator sim(beam_setup(elements, "auto", b));
    });
    EXPECT_NE(log.find(beam.second), std::string::npos) << log;
    EXPECT_NE(log.find("sparse from 40 with beam elements"), std::string::npos) << log;
  }
}

// The sparse Phi_q of the right-hand side (Kinematics::sparse_phi_pattern): the dense Phi_q's
// values, in the joints' pattern (6 entries per row of a joint between two links, 3 for the
// ground's pin), the same pattern at a pose where entries are exactly zero (the chain straight
// along x: sin 0) and at one where none is.
TEST(MultibodySparse, SparsePhiHasTheJointsPatternAndTheDenseValues) {
  const multibody::MultibodyModel model =
      multibody::parse_multibody(bench::pendulum_chain(4), "multibody");
  const multibody::Dynamics dynamics(model);
  const int n = dynamics.nq(), m = dynamics.n_constraints();
  const Eigen::VectorXd p =
      Eigen::VectorXd::Constant(static_cast<Eigen::Index>(model.parameter_names.size()), 0.5);
  LoadCaseSpec lc;
  lc.grid = TimeGrid(0.0, 1.0, 2);
  multibody::SparsePhi sparse;
  Eigen::Index pattern = -1;
  for (double angle : {0.0, 0.7}) {
    Eigen::VectorXd q = Eigen::VectorXd::Zero(n), qd = Eigen::VectorXd::Ones(n);
    for (int b = 0; b < n / 3; ++b) q(3 * b + 2) = angle * (b + 1);
    const multibody::Env<double> env = dynamics.vars(p.data(), 0.0, lc);
    Eigen::VectorXd mass, rhs, sparse_rhs;
    std::vector<multibody::Coupling<double>> coupled;
    Eigen::MatrixXd dense;
    dynamics.augmented(q.data(), qd.data(), env, mass, coupled, dense, rhs);
    dynamics.augmented(q.data(), qd.data(), env, mass, coupled, sparse, sparse_rhs);
    ASSERT_EQ(sparse.matrix.rows(), m);
    ASSERT_EQ(sparse.matrix.cols(), n);
    EXPECT_EQ(Eigen::MatrixXd(sparse.matrix), dense) << "angle " << angle;
    EXPECT_EQ(sparse_rhs, rhs) << "angle " << angle;
    EXPECT_EQ(sparse.matrix.nonZeros(), 2 * 3 + (m - 2) * 6);
    if (pattern >= 0) {
      EXPECT_EQ(sparse.matrix.nonZeros(), pattern);
    }
    pattern = sparse.matrix.nonZeros();
  }
  // Kept in place where the value is zero (a value-based pattern would drop them).
  EXPECT_GT((sparse.matrix.coeffs().array() == 0.0).count(), 0);
}

// A pinned beam of 6 elements (its mass matrix coupled: the sparse path factors it by a sparse
// LDL' and borders the Newton matrix with its couplings), 0.02 s: dense and sparse give the
// same histories and the same direct gradients of the tip's integral in w and E.
TEST(MultibodySparse, ABeamsDenseAndSparseRunsAgree) {
  auto beam = [](const std::string& algebra) {
    Eigen::VectorXd b;
    InternalSimulator sim(beam_setup(6, algebra, b));
    Evaluation e = sim.evaluate({{b, kTip}}).front();
    EXPECT_TRUE(e.ok) << e.message;
    return e;
  };
  const Evaluation dense = beam("dense"), sparse = beam("sparse");
  ASSERT_TRUE(dense.ok && sparse.ok);
  for (const char* name : {"b_6.x", "b_6.y", "b_3.theta", "b_6.vy"}) {
    const Eigen::VectorXd& h = sparse.cases[0].histories.at(name);
    const Eigen::VectorXd& g = dense.cases[0].histories.at(name);
    for (Eigen::Index i = 0; i < h.size(); ++i) {
      EXPECT_NEAR(h(i), g(i), 1e-7 * (1.0 + std::abs(g(i)))) << name << " point " << i;
    }
  }
  EXPECT_LT(dense.cases[0].histories.at("b_6.y")(4), -1e-3);  // it has fallen
  const Eigen::MatrixXd& g = sparse.cases[0].gradients.at("tip");
  const Eigen::MatrixXd& h = dense.cases[0].gradients.at("tip");
  ASSERT_EQ(g.cols(), 2);
  for (Eigen::Index j = 0; j < 2; ++j) {
    EXPECT_GT(std::abs(h(0, j)), 0.0) << "column " << j;
    EXPECT_NEAR(g(0, j), h(0, j), 1e-6 * std::abs(h(0, j))) << "column " << j;
  }
}

TEST(MultibodySparse, AnUnknownChoiceIsAnErrorNamingTheKey) {
  Eigen::VectorXd b;
  try {
    InternalSimulator sim(chain(5, "banded", "direct", b));
    FAIL() << "accepted \"banded\"";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("linear_algebra"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("banded"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sao::sim
