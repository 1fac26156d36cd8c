// What the adjoint method's cost depends on (issue 25, the chain's adjoint, round 3): on the
// 10-link pendulum chain of the gradient benches (bench/pendulum_chain_model.hpp), dx0/dp is
// differentiated in the active parameters only (none for an analysis), and one parameter's
// adjoint derivative does not depend on how many others are active.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "bench/pendulum_chain_model.hpp"
#include "simulators/integrator/cvodes_integrator.hpp"
#include "simulators/multibody/multibody.hpp"

namespace sao::sim {
namespace {

struct Chain {
  std::unique_ptr<Model> model;
  Eigen::VectorXd p;
  LoadCaseSpec lc;
};

Chain chain() {
  Chain c;
  c.model = load_multibody_model(bench::pendulum_chain(10));
  const auto defaults = c.model->parameter_defaults();
  const auto names = c.model->parameters();
  c.p.resize(static_cast<Eigen::Index>(names.size()));
  for (size_t i = 0; i < names.size(); ++i)
    c.p(static_cast<Eigen::Index>(i)) = defaults.at(names[i]);
  c.lc.name = "swing";
  c.lc.grid = TimeGrid(0.0, 1.0, 11);
  return c;
}

int index_of(const Chain& c, const std::string& name) {
  const auto names = c.model->parameters();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  ADD_FAILURE() << "no parameter " << name;
  return 0;
}

// The adjoint gradient of the chain's integral "tip" with respect to `active`.
AdjointResult tip_adjoint(const Chain& c, const std::vector<int>& active) {
  const OdeSystem system = c.model->ode()->system(c.p, c.lc, active);
  IntegratorSettings settings;
  settings.rtol = 1e-6;
  settings.atol = 1e-8;
  return adjoint_system(system, c.lc.grid, settings, [](const Eigen::MatrixXd&) {
    AdjointFunctional tip;
    tip.quadrature = 0;
    return std::vector<AdjointFunctional>{tip};
  });
}

TEST(AdjointCost, OneParametersDerivativeDoesNotDependOnTheOthersActive) {
  const Chain c = chain();
  ASSERT_EQ(c.p.size(), 50);
  std::vector<int> all(50);
  for (int i = 0; i < 50; ++i) all[static_cast<size_t>(i)] = i;
  const int k1_index = index_of(c, "k1");
  const AdjointResult one = tip_adjoint(c, {k1_index}), fifty = tip_adjoint(c, all);
  ASSERT_TRUE(one.ok) << one.message;
  ASSERT_TRUE(fifty.ok) << fifty.message;
  EXPECT_GT(one.backward_steps, 50);
  EXPECT_EQ(one.forward_steps, fifty.forward_steps) << "the forward pass is the same";
  // d tip / d k1 alike, to the integration tolerance (the 50 quadratures' error test takes
  // other backward steps than the one quadrature's).
  const double k1 = one.gradients(0, 0);
  EXPECT_GT(std::abs(k1), 1e-6);
  EXPECT_NEAR(fifty.gradients(0, k1_index), k1, 1e-5 * std::abs(k1));
  // Every column against the direct method, within the integration tolerance.
  const OdeSystem system = c.model->ode()->system(c.p, c.lc, all);
  IntegratorSettings settings;
  settings.rtol = 1e-6;
  settings.atol = 1e-8;
  const SystemResult direct = integrate_system(system, c.lc.grid, settings, true);
  ASSERT_TRUE(direct.ok) << direct.message;
  const double scale = direct.integral_sensitivities.cwiseAbs().maxCoeff();
  EXPECT_GT(scale, 0.1);
  for (int i = 0; i < 50; ++i) {
    EXPECT_NEAR(fifty.gradients(0, i), direct.integral_sensitivities(0, i), 1e-5 * scale)
        << "parameter " << c.model->parameters()[static_cast<size_t>(i)];
  }
}

TEST(AdjointCost, InitialStateDerivativesOnlyForTheActiveParameters) {
  const Chain c = chain();
  const OdeModel& ode = *c.model->ode();
  EXPECT_EQ(ode.system(c.p, c.lc, {}).x0_p.cols(), 0) << "an analysis needs no dx0/dp";
  // Lengths L1 and L10 move the assembled chain; stiffness k1 does not.
  const std::vector<int> active = {index_of(c, "k1"), index_of(c, "L1"), index_of(c, "L10")};
  const OdeSystem system = ode.system(c.p, c.lc, active);
  ASSERT_EQ(system.x0_p.rows(), system.x0.size());
  ASSERT_EQ(system.x0_p.cols(), 3);
  for (int a = 0; a < 3; ++a) {
    const double h = 1e-6;
    Eigen::VectorXd up = c.p, down = c.p;
    up(active[static_cast<size_t>(a)]) += h;
    down(active[static_cast<size_t>(a)]) -= h;
    const Eigen::VectorXd central =
        (ode.system(up, c.lc, {}).x0 - ode.system(down, c.lc, {}).x0) / (2 * h);
    EXPECT_LT((system.x0_p.col(a) - central).cwiseAbs().maxCoeff(), 1e-6) << "column " << a;
  }
  EXPECT_GT(system.x0_p.col(1).cwiseAbs().maxCoeff(), 0.1) << "L1 moves every link";
  EXPECT_EQ(system.x0_p.col(0).cwiseAbs().maxCoeff(), 0.0) << "k1 moves nothing at t0";
}

}  // namespace
}  // namespace sao::sim
