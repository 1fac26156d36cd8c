// Direct and adjoint sensitivities of the internal simulator against exact references:
// seed 000's oscillator (psi = y(pi/2) = 0.5, grad psi = (-0.25, 1) at (c, z0) = (1, 0.5)) and
// seed 003's impact absorber at b = (0.5, 0.5) (tables 4.2-4.3: d yddot(5 s)/db =
// (0.55708928, -0.29470796), d comfort/db = (0.083382659, -0.040564101)).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "simulators/internal_simulator.hpp"
#include "tests/support.hpp"

namespace sao::sim {
namespace {

using nlohmann::json;

SimulatorSetup oscillator(const std::string& method, double tol) {
  SimulatorSetup s;
  s.section = {{"type", "internal"},
               {"model", "oscillator"},
               {"integrator", "adams"},  // non-stiff
               {"rtol", tol},
               {"atol", tol},
               {"gradients", {{"method", method}, {"step", std::sqrt(tol)}}}};
  s.design_names = {"c", "z0"};
  LoadCaseSpec lc;
  lc.name = "free";
  lc.grid = TimeGrid(0.0, std::numbers::pi / 2, 3);
  s.load_cases = {lc};
  return s;
}

// d y(pi/2) / (c, z0) at (1, 0.5), and y(pi/2) itself.
Eigen::RowVector2d oscillator_gradient(const std::string& method, double tol, double* value) {
  InternalSimulator sim(oscillator(method, tol));
  EvaluationRequest r{Eigen::Vector2d(1.0, 0.5), {{0, "y", {2}}}};
  const Evaluation e = sim.evaluate({r}).front();
  EXPECT_TRUE(e.ok) << e.message;
  *value = e.cases[0].histories.at("y")(2);
  return e.cases[0].gradients.at("y").row(2);
}

class OscillatorSensitivity : public ::testing::TestWithParam<std::tuple<std::string, double>> {};

TEST_P(OscillatorSensitivity, ErrorStaysWithinTenTimesTheTolerance) {
  const auto [method, tol] = GetParam();
  double psi = 0;
  const Eigen::RowVector2d g = oscillator_gradient(method, tol, &psi);
  EXPECT_NEAR(psi, 0.5, 100 * tol);  // the analysis itself (global error of the integrator)
  EXPECT_NEAR(g(0), -0.25, 10 * tol) << method;
  EXPECT_NEAR(g(1), 1.0, 10 * tol) << method;
}

INSTANTIATE_TEST_SUITE_P(Seed000, OscillatorSensitivity,
                         ::testing::Combine(::testing::Values("direct", "adjoint"),
                                            ::testing::Values(1e-6, 1e-8, 1e-10)));

// Seed 000, figure 4: forward differences do not reach the integration tolerance.
TEST(OscillatorSensitivity, ForwardDifferencesAreWorseThanDirectAndAdjoint) {
  for (double tol : {1e-6, 1e-8}) {
    double psi = 0;
    const double fd = (oscillator_gradient("forward", tol, &psi) - Eigen::RowVector2d(-0.25, 1.0))
                          .cwiseAbs()
                          .maxCoeff();
    const double adjoint =
        (oscillator_gradient("adjoint", tol, &psi) - Eigen::RowVector2d(-0.25, 1.0))
            .cwiseAbs()
            .maxCoeff();
    EXPECT_GT(fd, adjoint) << tol;
    EXPECT_GT(fd, 10 * tol) << tol;
  }
}

SimulatorSetup impact(const std::string& method) {
  SimulatorSetup s;
  s.section = {{"type", "internal"},
               {"model", "impact-absorber"},
               {"parameters", {{"k", "b1"}, {"c", "b2"}}},
               {"rtol", 1e-10},
               {"atol", 1e-12},
               {"gradients", {{"method", method}, {"step", 1e-5}}}};
  s.design_names = {"b1", "b2"};
  LoadCaseSpec lc;
  lc.name = "impact";
  lc.grid = TimeGrid(0.0, 12.0, 121);  // t = 5 s is point 50
  s.load_cases = {lc};
  return s;
}

// The request of seed 003's tables: d yddot(5 s)/db and d comfort/db.
const EvaluationRequest kSeedTables{Eigen::Vector2d(0.5, 0.5),
                                    {{0, "yddot", {50}}, {0, "comfort", {}}}};

// Tables 4.2-4.3 within `tol`; `what` names the run in a failure.
void expect_seed_tables(const Evaluation& e, double tol, const std::string& what) {
  ASSERT_TRUE(e.ok) << what << ": " << e.message;
  const Eigen::RowVectorXd acc = e.cases[0].gradients.at("yddot").row(50);
  EXPECT_NEAR(acc(0), 0.55708928, tol) << what;
  EXPECT_NEAR(acc(1), -0.29470796, tol) << what;
  const Eigen::RowVectorXd comfort = e.cases[0].gradients.at("comfort").row(0);
  EXPECT_NEAR(comfort(0), 0.083382659, tol) << what;
  EXPECT_NEAR(comfort(1), -0.040564101, tol) << what;
}

// Seed 003, tables 4.2-4.3, at b = (0.5, 0.5), by every method of the simulator.
TEST(ImpactAbsorberSensitivity, AllMethodsReproduceTheSeedTables) {
  for (const char* method : {"direct", "adjoint", "central", "auto"}) {
    InternalSimulator sim(impact(method));
    const Evaluation e = sim.evaluate({kSeedTables}).front();
    expect_seed_tables(e, std::string(method) == "central" ? 1e-6 : 1e-7, method);
    // Rows that were not requested stay NaN for the analytic methods.
    if (std::string(method) != "central") {
      EXPECT_TRUE(std::isnan(e.cases[0].gradients.at("yddot")(10, 0))) << method;
    }
  }
}

// A checkpoint every 20 steps: the backward solve integrates the forward problem again
// between checkpoints, and the gradients stay those of the seed tables.
TEST(ImpactAbsorberSensitivity, AdjointWithManyCheckpointsReproducesTheSeedTables) {
  SimulatorSetup setup = impact("adjoint");
  setup.section["gradients"]["checkpoint_steps"] = 20;
  InternalSimulator sim(setup);
  expect_seed_tables(sim.evaluate({kSeedTables}).front(), 1e-7, "checkpoints every 20 steps");
}

// The design analysed first (as the driver does): the adjoint reads the analysis's kept
// forward pass (gradients.keep_forward), through the shared sweep of the two values.
TEST(ImpactAbsorberSensitivity, AdjointAfterAnAnalysisReproducesTheSeedTables) {
  InternalSimulator sim(impact("adjoint"));
  Evaluation e;
  const std::string log = sao::testing::captured_log(spdlog::level::debug, [&] {
    ASSERT_TRUE(sim.evaluate({{kSeedTables.design, {}}}).front().ok);
    e = sim.evaluate({kSeedTables}).front();
  });
  EXPECT_THAT(log, ::testing::HasSubstr("forward steps (the analysis's, kept)"));
  expect_seed_tables(e, 1e-7, "after an analysis");
}

// Issue 22: the method the simulator chooses is logged at info level, "(auto)" when chosen:
// the adjoint for fewer values than parameters, else the direct method.
TEST(ImpactAbsorberSensitivity, TheChosenMethodIsLoggedAtInfoLevel) {
  auto message = [&](const std::string& method, const std::vector<DerivativeRequest>& wanted) {
    return sao::testing::captured_log(spdlog::level::info, [&] {
      InternalSimulator sim(impact(method));
      const Evaluation e =
          sim.evaluate({EvaluationRequest{Eigen::Vector2d(0.5, 0.5), wanted}}).front();
      EXPECT_TRUE(e.ok) << e.message;
    });
  };
  const std::string one = message("auto", {{0, "yddot", {50}}});
  const std::string three = message("auto", {{0, "yddot", {30, 40, 50}}});
  const std::string chosen = message("direct", {{0, "yddot", {50}}});
  EXPECT_THAT(one, ::testing::HasSubstr("adjoint sensitivities (auto) for 1 values and 2 "
                                        "parameters in load case \"impact\""));
  EXPECT_THAT(three, ::testing::HasSubstr("direct sensitivities (auto) for 3 values"));
  EXPECT_THAT(chosen, ::testing::HasSubstr("direct sensitivities for 1 values"));
  EXPECT_THAT(chosen, ::testing::Not(::testing::HasSubstr("(auto)")));
}

// ... and returned with the evaluation (CaseResult::gradient_method), which the driver puts in
// the cycle record: finite differences are named too.
TEST(ImpactAbsorberSensitivity, TheChosenMethodIsInTheEvaluation) {
  auto method = [&](const std::string& setting, const std::vector<DerivativeRequest>& wanted) {
    InternalSimulator sim(impact(setting));
    const Evaluation e =
        sim.evaluate({EvaluationRequest{Eigen::Vector2d(0.5, 0.5), wanted}}).front();
    EXPECT_TRUE(e.ok) << e.message;
    return e.cases.at(0).gradient_method;
  };
  EXPECT_EQ(method("auto", {{0, "yddot", {50}}}), "adjoint (auto)");
  EXPECT_EQ(method("auto", {{0, "yddot", {30, 40, 50}}}), "direct (auto)");
  EXPECT_EQ(method("adjoint", {{0, "yddot", {30, 40, 50}}}), "adjoint");
  EXPECT_EQ(method("forward", {{0, "yddot", {50}}}), "forward differences");
  EXPECT_EQ(method("central", {{0, "yddot", {50}}}), "central differences");
  EXPECT_EQ(method("auto", {}), "");  // no gradients
}

TEST(ImpactAbsorberSensitivity, MaximaHaveNoAnalyticDerivative) {
  InternalSimulator sim(impact("adjoint"));
  EvaluationRequest r{Eigen::Vector2d(0.5, 0.5), {{0, "max_abs_y", {}}}};
  const Evaluation e = sim.evaluate({r}).front();
  EXPECT_FALSE(e.ok);
  EXPECT_THAT(e.message, ::testing::HasSubstr("use finite differences"));
}

TEST(ImpactAbsorberSensitivity, ClosedFormModelsRefuseAnalyticMethods) {
  SimulatorSetup s = impact("direct");
  s.section["model"] = "slider-crank-path";
  s.section.erase("parameters");
  EXPECT_THROW(InternalSimulator sim(s), std::invalid_argument);
}

}  // namespace
}  // namespace sao::sim
