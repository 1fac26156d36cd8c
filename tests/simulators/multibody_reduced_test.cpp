// Independent coordinates of multibody models whose constraints are all linear
// (simulators/multibody/reduced.hpp): the same histories, reactions, integrals and direct and
// adjoint gradients as the absolute coordinates ("coordinates": "absolute"), on the quarter
// car of problems/truck-damper and on a slider pulled through a spring by a driven cart (a
// driver whose motion depends on a parameter); a pendulum (a revolute joint) stays absolute.
// The reduced equations sparse ("linear_algebra": "sparse", issue 52) against the dense ones on
// a row of sliders: the same linearisation, Newton matrix, histories and gradients.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Eigen/SparseLU>
#include <fstream>

#include "bench/pendulum_chain_model.hpp"
#include "sao/seam/json_reader.hpp"
#include "simulators/multibody/multibody.hpp"
#include "simulators/sensitivities/sensitivities.hpp"
#include "tests/simulators/multibody_support.hpp"
#include "tests/support.hpp"

namespace sao::sim {
namespace {

using nlohmann::json;
using testing::defaults;
using testing::grid_case;

json quarter_car() {
  std::ifstream in(std::string(SAO_SOURCE_DIR) +
                   "/problems/truck-damper/quarter-car-multibody.json");
  return json::parse(in).at("simulator").at("multibody");
}

// A block sliding on a slope of 0.5 rad, pulled by a spring from a cart whose x is driven
// (A sin 2t); gravity on; psi integrates the block's x.
json slider() {
  return json::parse(R"js({
    "analysis": "dynamic", "parameters": {"k": 40.0, "m": 2.0, "A": 0.3},
    "bodies": [{"name": "block", "mass": "m", "inertia": 0.1, "position": [1, 0.2]},
               {"name": "cart", "mass": 1, "inertia": 1, "position": [0, 0]}],
    "joints": [{"type": "translational", "name": "slope", "bodies": ["ground", "block"],
                "axis": 0.5, "angle": 0},
               {"type": "translational", "name": "rail", "bodies": ["ground", "cart"], "axis": 0},
               {"type": "driver", "name": "push", "body": "cart", "coordinate": "x",
                "motion": "A*sin(2*t)"}],
    "forces": [{"type": "spring_damper", "name": "spring", "bodies": ["cart", "block"],
                "stiffness": "k", "damping": 0.5, "length": 0.8}],
    "integrals": [{"name": "psi", "integrand": "block_x^2"}]
})js");
}

// A row of `count` sliders (the benches' slider_row) with the stiffness k, the damping c and
// every other slider's mass m as parameters.
json slider_row(int count) {
  json m = bench::slider_row(count);
  m["parameters"] = {{"k", 1000.0}, {"c", 0.5}, {"m", 1.5}};
  for (size_t i = 0; i < m["bodies"].size(); i += 2) m["bodies"][i]["mass"] = "m";
  for (json& f : m["forces"]) f["damping"] = "c";
  return m;
}

// The model `m` in `coordinates`, with "linear_algebra" `algebra` when given.
std::unique_ptr<Model> load(json m, const char* coordinates, const char* algebra = nullptr) {
  m["coordinates"] = coordinates;
  if (algebra) m["linear_algebra"] = algebra;
  return load_multibody_model(m);
}

IntegratorSettings tight() {
  IntegratorSettings s;
  s.rtol = 1e-10;
  s.atol = 1e-12;
  return s;
}

// Every history of `names` and every scalar agree between the two runs to `tolerance`
// (relative to the history's largest magnitude).
void expect_same_responses(const CaseResult& a, const CaseResult& b,
                           const std::vector<std::string>& names, double tolerance) {
  for (const std::string& name : names) {
    const Eigen::VectorXd& x = a.histories.at(name);
    const Eigen::VectorXd& y = b.histories.at(name);
    const double scale = std::max(1e-12, x.cwiseAbs().maxCoeff());
    EXPECT_LE((x - y).cwiseAbs().maxCoeff(), tolerance * scale) << name;
  }
  for (const auto& [name, value] : a.scalars) {
    EXPECT_NEAR(value, b.scalars.at(name), tolerance * std::max(1.0, std::abs(value))) << name;
  }
}

// The rows of `wanted` by `method` at p, all parameters active.
Eigen::MatrixXd gradient(const Model& model, SensitivityMethod method, const LoadCaseSpec& lc,
                         const Eigen::VectorXd& p, const std::vector<WantedValue>& wanted) {
  std::vector<int> active(static_cast<size_t>(p.size()));
  for (size_t i = 0; i < active.size(); ++i) active[i] = static_cast<int>(i);
  const IntegratorSettings settings = tight();
  const SensitivityProblem problem{*model.ode(), lc, p, active, wanted, settings};
  CaseResult out;
  Eigen::MatrixXd rows = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(wanted.size()), p.size());
  EXPECT_EQ(method(problem, out, rows), "");
  return rows;
}

// The index of history `name` of the model.
int history(const Model& model, const std::string& name) {
  const auto names = model.ode()->history_outputs();
  return static_cast<int>(std::find(names.begin(), names.end(), name) - names.begin());
}

void expect_close(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double tolerance) {
  ASSERT_EQ(a.rows(), b.rows());
  ASSERT_EQ(a.cols(), b.cols());
  const double scale = std::max(1e-12, b.cwiseAbs().maxCoeff());
  EXPECT_LE((a - b).cwiseAbs().maxCoeff(), tolerance * scale) << "\n" << a << "\n\n" << b;
}

TEST(MultibodyReduced, QuarterCarIntegratesTwoCoordinatesWithTheSameResponses) {
  const auto reduced = load(quarter_car(), "independent");
  const auto absolute = load(quarter_car(), "absolute");
  EXPECT_EQ(reduced->ode()->state_size(), 4);  // axle and chassis heights and their rates
  EXPECT_EQ(absolute->ode()->state_size(), 18);
  const LoadCaseSpec lc = grid_case(TimeGrid(0.0, 2.0, 201), {{"road", 1}, {"speed", 15}});
  const Eigen::VectorXd p = defaults(*reduced);
  CaseResult a, b;
  ASSERT_EQ(reduced->analyse(p, lc, tight(), a), "");
  ASSERT_EQ(absolute->analyse(p, lc, tight(), b), "");
  // Reactions of the eliminated guides included: recovered from the full state. The two
  // integrate different equations (the absolute ones the road's height too, Baumgarte-
  // stabilised), so they agree to the integration tolerance, not to rounding.
  expect_same_responses(a, b,
                        {"chassis.y", "chassis.ay", "axle.vy", "suspension.length", "tyre.force",
                         "axle_guide.fx", "chassis_guide.torque"},
                        1e-5);
  // The road's acceleration: the profile's exact second derivative in the independent
  // coordinates, the solution of the stabilised driver equation in the absolute ones.
  expect_same_responses(a, b, {"road.ay"}, 1e-3);
}

// The driven road's height, rate and acceleration are the profile's own h(x), h'(x) v and
// h''(x) v^2 (x = v t - start), exact to rounding: the expression engine's second-order
// derivative, not central differences in t (whose error would be ~1e-8 of h'').
TEST(MultibodyReduced, TheRoadsMotionIsTheProfilesExactDerivatives) {
  const auto reduced = load(quarter_car(), "independent");
  const LoadCaseSpec lc = grid_case(TimeGrid(0.0, 0.5, 51), {{"road", 1}, {"speed", 15}});
  CaseResult a;
  ASSERT_EQ(reduced->analyse(defaults(*reduced), lc, tight(), a), "");
  const double v = 15 / 3.6, pi = std::acos(-1.0);
  int checked = 0;
  for (int i = 0; i < lc.grid.points; ++i) {
    const double x = v * lc.grid.at(i) - 1.0;                      // start 1 m
    if (std::abs(x) < 1e-6 || std::abs(x - 1.0) < 1e-6) continue;  // the ramp's kinks
    const bool ramp = x > 0 && x < 1;
    const double y = ramp ? 0.125 * (1 - std::cos(pi * x)) : (x >= 1 ? 0.25 : 0.0);
    const double vy = ramp ? 0.125 * pi * std::sin(pi * x) * v : 0.0;
    const double ay = ramp ? 0.125 * pi * pi * std::cos(pi * x) * v * v : 0.0;
    EXPECT_NEAR(a.histories.at("road.y")(i), y, 1e-14) << "t = " << lc.grid.at(i);
    EXPECT_NEAR(a.histories.at("road.vy")(i), vy, 1e-13) << "t = " << lc.grid.at(i);
    EXPECT_NEAR(a.histories.at("road.ay")(i), ay, 1e-12) << "t = " << lc.grid.at(i);
    checked += ramp ? 1 : 0;
  }
  EXPECT_GT(checked, 20);
}

TEST(MultibodyReduced, QuarterCarGradientsMatchTheAbsoluteCoordinates) {
  const auto reduced = load(quarter_car(), "independent");
  const auto absolute = load(quarter_car(), "absolute");
  const LoadCaseSpec lc = grid_case(TimeGrid(0.0, 1.6, 81), {{"road", 1}, {"speed", 15}});
  Eigen::VectorXd p = defaults(*reduced);
  p << 2.0, 100.0, 5.0, 20.0, 40.0, 2.0;  // the study's first start: the dampers work
  std::vector<WantedValue> wanted;
  for (int point : {40, 55, 70}) {
    wanted.push_back({"chassis.ay", history(*reduced, "chassis.ay"), point});
    wanted.push_back({"suspension.length", history(*reduced, "suspension.length"), point});
  }
  const Eigen::MatrixXd reference = gradient(*absolute, direct_sensitivities, lc, p, wanted);
  ASSERT_GT(reference.cwiseAbs().maxCoeff(), 0.0);
  expect_close(gradient(*reduced, direct_sensitivities, lc, p, wanted), reference, 1e-5);
  expect_close(gradient(*reduced, adjoint_sensitivities, lc, p, wanted), reference, 1e-5);
}

TEST(MultibodyReduced, SliderWithADrivenCartMatchesTheAbsoluteCoordinates) {
  const auto reduced = load(slider(), "independent");
  const auto absolute = load(slider(), "absolute");
  EXPECT_EQ(reduced->ode()->state_size(), 2);  // the block's position along the slope
  const LoadCaseSpec lc = grid_case(TimeGrid(0.0, 2.0, 101));
  const Eigen::VectorXd p = defaults(*reduced);
  CaseResult a, b;
  ASSERT_EQ(reduced->analyse(p, lc, tight(), a), "");
  ASSERT_EQ(absolute->analyse(p, lc, tight(), b), "");
  expect_same_responses(
      a, b, {"block.x", "block.ay", "cart.vx", "spring.force", "slope.fy", "push.fx"}, 1e-5);
  // Gradients in k, m and the driver's amplitude A (the constraints' offsets move with it).
  std::vector<WantedValue> wanted;
  for (int point : {30, 60, 100}) {
    wanted.push_back({"block.x", history(*reduced, "block.x"), point});
    wanted.push_back({"slope.fy", history(*reduced, "slope.fy"), point});
  }
  const int psi = static_cast<int>(reduced->ode()->history_outputs().size());
  wanted.push_back({"psi", psi, -1});
  const Eigen::MatrixXd reference = gradient(*absolute, direct_sensitivities, lc, p, wanted);
  ASSERT_GT(reference.col(2).cwiseAbs().maxCoeff(), 0.0);
  expect_close(gradient(*reduced, direct_sensitivities, lc, p, wanted), reference, 1e-5);
  expect_close(gradient(*reduced, adjoint_sensitivities, lc, p, wanted), reference, 1e-5);
}

TEST(MultibodyReduced, APendulumKeepsTheAbsoluteCoordinates) {
  const json m = json::parse(R"({
    "analysis": "dynamic", "parameters": {"L": 1.0, "m": 2.0},
    "bodies": [{"name": "rod", "mass": "m", "inertia": "m*L^2/12", "position": ["L/2", 0]}],
    "joints": [{"type": "revolute", "bodies": ["ground", "rod"], "points": [[0, 0], ["-L/2", 0]]}]
  })");
  EXPECT_EQ(load_multibody_model(m)->ode()->state_size(), 6);
  // A slider whose guide leaves the block's point off its centre turns with the block's angle:
  // not linear in the coordinates either.
  json off = slider();
  off["joints"][0]["points"] = json::parse("[[0, 0], [0.1, 0]]");
  off["joints"][0].erase("angle");
  EXPECT_EQ(load_multibody_model(off)->ode()->state_size(), 12);
}

TEST(MultibodyReduced, AnUnknownCoordinatesChoiceIsAnError) {
  json m = slider();
  m["coordinates"] = "relative";
  EXPECT_THROW(
      {
        try {
          load_multibody_model(m);
        } catch (const SectionError& e) {
          EXPECT_THAT(e.what(), ::testing::HasSubstr("simulator.multibody.coordinates"));
          throw;
        }
      },
      SectionError);
}

// The sparse reduced linearisation against the dense one at a state away from rest (the same N:
// the same reduced equations): the Jacobian, the direct method's products, the adjoint's
// vector-Jacobian products, and the sparse Newton matrix, whose Schur complement onto the first
// 2k unknowns must be I - gamma f_x.
TEST(MultibodyReduced, TheSparseReducedLinearisationIsTheDenseOne) {
  const auto sparse = load(slider_row(45), "independent", "sparse");
  const auto dense = load(slider_row(45), "independent", "dense");
  const LoadCaseSpec lc = grid_case(TimeGrid(0.0, 1.0, 11));
  const Eigen::VectorXd p = defaults(*sparse);
  const std::vector<int> active = {0, 1, 2};
  const auto a = sparse->ode()->instance(p, lc, active);
  const auto b = dense->ode()->instance(p, lc, active);
  ASSERT_TRUE(a->sparse());
  ASSERT_FALSE(b->sparse());
  const int n = sparse->ode()->state_size();
  ASSERT_EQ(n, 90);
  Eigen::VectorXd x(n);
  for (int i = 0; i < n; ++i) x(i) = (i < n / 2 ? 1.0 : 0.0) * (i + 1) + 0.2 * std::sin(0.7 * i);
  const double t = 0.3;
  Eigen::VectorXd fa(n), fb(n);
  ASSERT_EQ(a->rhs(t, x.data(), fa.data()), 0);
  ASSERT_EQ(b->rhs(t, x.data(), fb.data()), 0);
  expect_close(fa, fb, 1e-13);
  const auto la = a->linearize(t, x.data());
  const auto lb = b->linearize(t, x.data());
  Eigen::MatrixXd ja, jb;
  la->jacobian(ja);
  lb->jacobian(jb);
  ASSERT_GT(jb.bottomRows(n / 2).cwiseAbs().maxCoeff(), 100.0);  // the springs' k / m
  ASSERT_GT(jb.bottomRightCorner(n / 2, 3).cwiseAbs().maxCoeff(), 0.0);
  expect_close(ja, jb, 1e-13);
  Eigen::MatrixXd S(n, 3), lambda(n, 3), sa, sb, va, vb;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < 3; ++j) {
      S(i, j) = std::cos(i + 2.0 * j);
      lambda(i, j) = std::sin(0.3 * i - j);
    }
  }
  la->jacobian_times(S, sa);
  lb->jacobian_times(S, sb);
  expect_close(sa, sb, 1e-13);
  la->block_vector_jacobian(lambda, va);
  lb->block_vector_jacobian(lambda, vb);
  expect_close(va, vb, 1e-13);
  Eigen::VectorXd v;
  la->vector_jacobian(lambda.col(1).data(), v);
  expect_close(v, vb.col(1), 1e-13);
  const double gamma = 0.01;
  Eigen::SparseMatrix<double> newton;
  ASSERT_TRUE(la->newton_matrix(gamma, newton));
  Eigen::SparseMatrix<double> unused;
  EXPECT_FALSE(lb->newton_matrix(gamma, unused));  // the dense path forms none
  ASSERT_EQ(newton.rows(), 3 * n / 2);
  EXPECT_LT(newton.nonZeros(), 12 * n);  // banded: no dense block
  Eigen::SparseLU<Eigen::SparseMatrix<double>> lu(newton);
  ASSERT_EQ(lu.info(), Eigen::Success);
  Eigen::MatrixXd unit = Eigen::MatrixXd::Zero(newton.rows(), n);
  unit.topRows(n).setIdentity();
  const Eigen::MatrixXd inverse = lu.solve(unit).topRows(n);
  const Eigen::MatrixXd matrix = Eigen::MatrixXd::Identity(n, n) - gamma * jb.leftCols(n);
  expect_close(inverse * matrix, Eigen::MatrixXd::Identity(n, n), 1e-12);
}

// Integrated: the sparse reduced equations' histories and reactions are the dense ones' to
// well within the integration tolerance (the same equations, factored otherwise), their direct
// and adjoint gradients (k, c and m) the dense direct ones'; the absolute coordinates' (sparse)
// agree to the integration tolerance.
TEST(MultibodyReduced, SparseReducedEquationsMatchTheDenseOnesAndTheAbsoluteCoordinates) {
  const auto sparse = load(slider_row(30), "independent", "sparse");
  const auto dense = load(slider_row(30), "independent", "dense");
  const auto absolute = load(slider_row(30), "absolute", "sparse");
  EXPECT_EQ(sparse->ode()->state_size(), 60);
  EXPECT_EQ(absolute->ode()->state_size(), 180);
  const LoadCaseSpec lc = grid_case(TimeGrid(0.0, 1.5, 51));
  const Eigen::VectorXd p = defaults(*sparse);
  CaseResult a, b, c;
  ASSERT_EQ(sparse->analyse(p, lc, tight(), a), "");
  ASSERT_EQ(dense->analyse(p, lc, tight(), b), "");
  ASSERT_EQ(absolute->analyse(p, lc, tight(), c), "");
  const std::vector<std::string> watched = {"s30.x", "s30.ax", "s20.vx", "s1.x", "joint10.fy"};
  expect_same_responses(a, b, watched, 1e-8);
  expect_same_responses(a, c, watched, 1e-5);
  EXPECT_GT(a.histories.at("s1.x").maxCoeff(), 1.0 + 1e-4);  // the push reached the first
  std::vector<WantedValue> wanted;
  for (int point : {20, 50}) {
    for (const char* name : {"s30.x", "s15.vx", "s1.x"}) {
      wanted.push_back({name, history(*sparse, name), point});
    }
  }
  const Eigen::MatrixXd reference = gradient(*dense, direct_sensitivities, lc, p, wanted);
  ASSERT_GT(reference.col(0).cwiseAbs().minCoeff(), 0.0);
  ASSERT_GT(reference.col(2).cwiseAbs().maxCoeff(), 0.0);
  expect_close(gradient(*sparse, direct_sensitivities, lc, p, wanted), reference, 1e-7);
  expect_close(gradient(*sparse, adjoint_sensitivities, lc, p, wanted), reference, 1e-6);
  expect_close(gradient(*absolute, direct_sensitivities, lc, p, wanted), reference, 1e-5);
}

// The driven cart's slider with sparse reduced equations: the offsets move with the driver's
// amplitude A (an active parameter), whose derivatives go through A^+ into the sparse path's
// parameter columns.
TEST(MultibodyReduced, SparseReducedEquationsCarryMovingOffsets) {
  const auto sparse = load(slider(), "independent", "sparse");
  const auto dense = load(slider(), "independent", "dense");
  const LoadCaseSpec lc = grid_case(TimeGrid(0.0, 2.0, 101));
  const Eigen::VectorXd p = defaults(*sparse);
  CaseResult a, b;
  ASSERT_EQ(sparse->analyse(p, lc, tight(), a), "");
  ASSERT_EQ(dense->analyse(p, lc, tight(), b), "");
  expect_same_responses(a, b, {"block.x", "block.ay", "slope.fy", "push.fx"}, 1e-8);
  std::vector<WantedValue> wanted;
  for (int point : {30, 100}) wanted.push_back({"block.x", history(*sparse, "block.x"), point});
  wanted.push_back({"psi", static_cast<int>(sparse->ode()->history_outputs().size()), -1});
  const Eigen::MatrixXd reference = gradient(*dense, direct_sensitivities, lc, p, wanted);
  ASSERT_GT(reference.col(2).cwiseAbs().maxCoeff(), 0.0);
  expect_close(gradient(*sparse, direct_sensitivities, lc, p, wanted), reference, 1e-7);
  expect_close(gradient(*sparse, adjoint_sensitivities, lc, p, wanted), reference, 1e-6);
}

// "auto" integrates what its log line says: a row of 39 sliders with dense reduced equations,
// of 40 with sparse ones (kSparseReducedFrom).
TEST(MultibodyReduced, AutoUsesTheReducedEquationsItLogs) {
  const LoadCaseSpec lc = grid_case(TimeGrid(0.0, 1.0, 11));
  for (int count : {39, 40}) {
    std::unique_ptr<Model> model;
    const std::string log = sao::testing::captured_log(
        spdlog::level::info, [&] { model = load(slider_row(count), "independent"); });
    const bool sparse = count >= 40;
    EXPECT_NE(log.find(sparse ? "; sparse reduced equations" : "; dense reduced equations"),
              std::string::npos)
        << log;
    EXPECT_EQ(model->ode()->instance(defaults(*model), lc, {})->sparse(), sparse) << count;
  }
}

}  // namespace
}  // namespace sao::sim
