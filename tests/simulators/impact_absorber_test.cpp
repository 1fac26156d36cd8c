// The impact absorber in the internal simulator against its closed form (PROBLEMS.md):
// y'' + c y' + k y = 0, y(0) = 0, y'(0) = 1; values and finite-difference gradients.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "impact_absorber_setup.hpp"
#include "simulators/internal_simulator.hpp"

namespace sao::sim {
namespace {

using nlohmann::json;

struct Motion {
  double y, ydot, yddot;
};

// Under-, critically and overdamped closed forms, with zeta = c / (2 sqrt(k)).
Motion closed_form(double k, double c, double t) {
  const double w = std::sqrt(k), zeta = c / (2.0 * w), a = zeta * w;
  double y, v;
  if (std::abs(zeta - 1.0) < 1e-12) {
    y = t * std::exp(-w * t);
    v = std::exp(-w * t) * (1.0 - w * t);
  } else if (zeta < 1.0) {
    const double wd = w * std::sqrt(1.0 - zeta * zeta), e = std::exp(-a * t);
    y = e * std::sin(wd * t) / wd;
    v = e * (std::cos(wd * t) - a * std::sin(wd * t) / wd);
  } else {
    const double s = w * std::sqrt(zeta * zeta - 1.0), r1 = -a + s, r2 = -a - s;
    y = (std::exp(r1 * t) - std::exp(r2 * t)) / (r1 - r2);
    v = (r1 * std::exp(r1 * t) - r2 * std::exp(r2 * t)) / (r1 - r2);
  }
  return {y, v, -c * v - k * y};
}

const TimeGrid kGrid{0.0, 12.0, 101};

// A response of the closed form on the grid: 0 y, 1 yddot.
Eigen::VectorXd closed_history(double k, double c, int response) {
  Eigen::VectorXd out(kGrid.points);
  for (int p = 0; p < kGrid.points; ++p) {
    const Motion m = closed_form(k, c, kGrid.at(p));
    out(p) = response == 0 ? m.y : m.yddot;
  }
  return out;
}

// d(closed history)/d(k, c) by central differences of the exact closed form (tiny step).
Eigen::MatrixXd closed_gradient(double k, double c, int response) {
  const double h = 1e-6;
  Eigen::MatrixXd g(kGrid.points, 2);
  g.col(0) = (closed_history(k + h, c, response) - closed_history(k - h, c, response)) / (2 * h);
  g.col(1) = (closed_history(k, c + h, response) - closed_history(k, c - h, response)) / (2 * h);
  return g;
}

// The simulator's finite difference (4.10) applied to the closed form's grid maximum. A
// maximum over grid points is only piecewise smooth (the maximising point can change within
// the step, as it does at the optimum), so the scalars are checked against this.
double closed_max_difference(double k, double c, int response, int i, double p, bool central) {
  auto peak = [&](double dk, double dc) {
    return closed_history(k + dk, c + dc, response).cwiseAbs().maxCoeff();
  };
  const double h = (1.0 + std::abs(i == 0 ? k : c)) * p;
  const double dk = i == 0 ? h : 0.0, dc = i == 1 ? h : 0.0;
  return central ? (peak(dk, dc) - peak(-dk, -dc)) / (2 * h) : (peak(dk, dc) - peak(0, 0)) / h;
}

SimulatorSetup setup(const json& extra = json::object()) {
  return testing::impact_absorber_setup(extra);
}

Evaluation evaluate(InternalSimulator& sim, double k, double c, bool gradients) {
  EvaluationRequest r;
  r.design = Eigen::Vector2d(k, c);
  if (gradients) r.derivatives = {{0, "max_abs_yddot", {0}}};
  return sim.evaluate({r}).front();
}

using Design = std::pair<double, double>;                          // k, c
const auto kDesigns = ::testing::Values(Design{1.0, 0.3},          // underdamped start
                                        Design{0.36276, 0.48231},  // optimum
                                        Design{0.25, 1.0},         // critically damped
                                        Design{0.1, 1.0});         // overdamped

class ClosedForm : public ::testing::TestWithParam<Design> {};

TEST_P(ClosedForm, HistoriesMatchTheClosedForm) {
  const auto [k, c] = GetParam();
  InternalSimulator sim(setup());  // rtol 1e-8, atol 1e-10 by default
  const Evaluation e = evaluate(sim, k, c, false);
  ASSERT_TRUE(e.ok) << e.message;
  const CaseResult& r = e.cases.at(0);
  ASSERT_EQ(r.histories.at("y").size(), 101);
  EXPECT_LT((r.histories.at("y") - closed_history(k, c, 0)).cwiseAbs().maxCoeff(), 1e-6);
  EXPECT_LT((r.histories.at("yddot") - closed_history(k, c, 1)).cwiseAbs().maxCoeff(), 1e-6);
  EXPECT_NEAR(r.scalars.at("max_abs_y"), closed_history(k, c, 0).cwiseAbs().maxCoeff(), 1e-6);
  EXPECT_NEAR(r.scalars.at("max_abs_yddot"), closed_history(k, c, 1).cwiseAbs().maxCoeff(), 1e-6);
}

INSTANTIATE_TEST_SUITE_P(ImpactAbsorber, ClosedForm, kDesigns);

// Forward differences need a small step (their error is O(h)) and tight tolerances; central
// ones work with the defaults (p = 1e-3, rtol 1e-8).
class FiniteDifferences : public ::testing::TestWithParam<std::tuple<Design, std::string>> {};

// Histories: against the exact derivative at the maximising grid point; scalars (grid maxima):
// against the same difference of the closed form.
TEST_P(FiniteDifferences, GradientsMatchTheClosedFormAtTheMaxima) {
  const auto [design, method] = GetParam();
  const auto [k, c] = design;
  const json section = method == "forward"
                           ? json{{"gradients", {{"method", "forward"}, {"step", 1e-5}}},
                                  {"rtol", 1e-10},
                                  {"atol", 1e-12}}
                           : json{{"gradients", {{"method", "central"}}}};
  InternalSimulator sim(setup(section));
  const Evaluation e = evaluate(sim, k, c, true);
  ASSERT_TRUE(e.ok) << e.message;
  ASSERT_TRUE(e.has_gradients);
  EXPECT_EQ(e.cost.runs, method == "forward" ? 3 : 5);
  const CaseResult& r = e.cases.at(0);
  const char* names[2] = {"y", "yddot"};
  const char* maxima[2] = {"max_abs_y", "max_abs_yddot"};
  for (int response = 0; response < 2; ++response) {
    const Eigen::MatrixXd& g = r.gradients.at(names[response]);
    ASSERT_EQ(g.rows(), 101);
    ASSERT_EQ(g.cols(), 2);
    const Eigen::VectorXd h = closed_history(k, c, response);
    const Eigen::MatrixXd exact = closed_gradient(k, c, response);
    Eigen::Index at;
    h.cwiseAbs().maxCoeff(&at);
    // Relative to the row's size: at t = 0, d(yddot)/dk is exactly 0.
    const double tol = 1e-3 * exact.row(at).norm();
    for (int i = 0; i < 2; ++i) {
      EXPECT_NEAR(g(at, i), exact(at, i), tol) << names[response] << " at point " << at;
      const Eigen::MatrixXd& gmax = r.gradients.at(maxima[response]);
      ASSERT_EQ(gmax.rows(), 1);
      const double step = method == "forward" ? 1e-5 : 1e-3;
      EXPECT_NEAR(gmax(0, i), closed_max_difference(k, c, response, i, step, method == "central"),
                  tol)
          << maxima[response];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ImpactAbsorber, FiniteDifferences,
                         ::testing::Combine(kDesigns, ::testing::Values("forward", "central")));

TEST(ImpactAbsorber, StartDesignPeaksMatchProblemsMd) {
  InternalSimulator sim(setup());
  const Evaluation e = evaluate(sim, 1.0, 0.3, false);
  ASSERT_TRUE(e.ok) << e.message;
  EXPECT_NEAR(e.cases[0].scalars.at("max_abs_yddot"), 0.8427, 5e-5);
  EXPECT_NEAR(e.cases[0].scalars.at("max_abs_y"), 0.8062, 5e-5);
}

}  // namespace
}  // namespace sao::sim
