// The variational integrator of multibody models (simulators/multibody/variational.hpp): no
// energy drift over 4 s of an undamped rigid and a flexible pendulum, the constraints held to
// the Newton tolerance, and its discrete sensitivities (direct and adjoint) against central
// differences of the same discrete map at two step sizes, for geometric and material
// parameters, history values and integrals.
#include "simulators/multibody/variational.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <numbers>

#include "bench/pendulum_chain_model.hpp"
#include "simulators/internal_simulator.hpp"
#include "simulators/multibody/dynamics.hpp"
#include "simulators/multibody/multibody.hpp"
#include "simulators/multibody/parser.hpp"

namespace sao::sim {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

LoadCaseSpec grid_case(double end, int points) {
  LoadCaseSpec lc;
  lc.name = "case";
  lc.grid = TimeGrid(0.0, end, points);
  return lc;
}

// The parameter vector of `model` from named values (the model orders its parameters).
Eigen::VectorXd parameters(const Model& model, const std::map<std::string, double>& values) {
  const auto names = model.parameters();
  Eigen::VectorXd p(static_cast<Eigen::Index>(names.size()));
  for (size_t i = 0; i < names.size(); ++i) p(static_cast<Eigen::Index>(i)) = values.at(names[i]);
  return p;
}

// The indices of the named parameters.
std::vector<int> indices(const Model& model, const std::vector<std::string>& wanted) {
  const auto names = model.parameters();
  std::vector<int> out;
  for (const std::string& w : wanted) {
    out.push_back(static_cast<int>(std::find(names.begin(), names.end(), w) - names.begin()));
  }
  return out;
}

// A uniform rod of length L and mass m pinned at one end at (ax, ay), released horizontally.
json rigid_pendulum(double step) {
  return json::parse(R"({
    "analysis": "dynamic", "parameters": {"L": 1.0, "m": 2.0, "ax": 0.0, "ay": 0.0},
    "bodies": [{"name": "rod", "mass": "m", "inertia": "m*L^2/12", "position": ["ax + L/2", "ay"]}],
    "joints": [{"type": "revolute", "bodies": ["ground", "rod"],
                "points": [["ax", "ay"], ["-L/2", 0]]}],
    "points": [{"name": "pin", "body": "rod", "at": ["-L/2", 0]},
               {"name": "tip", "body": "rod", "at": ["L/2", 0]}],
    "integrals": [{"name": "height", "integrand": "rod_y^2 + 0.1*rod_omega^2"}],
    "integrator": {"type": "variational", "step": )" +
                     std::to_string(step) + "}}");
}

TEST(Variational, RigidPendulumKeepsItsEnergyAndItsJoint) {
  const auto model = load_multibody_model(rigid_pendulum(1e-3));
  const LoadCaseSpec lc = grid_case(4.0, 401);
  const Eigen::VectorXd p = parameters(*model, {{"L", 1.0}, {"m", 2.0}, {"ax", 0.0}, {"ay", 0.0}});
  CaseResult out;
  ASSERT_EQ(model->analyse(p, lc, {}, out), "");
  const double m = 2.0, I = m / 12.0, g = 9.81;
  double largest = 0.0, lowest = 0.0;
  std::vector<double> energy;
  for (int k = 0; k < lc.grid.points; ++k) {
    auto h = [&](const char* name) { return out.histories.at(name)(k); };
    const double e = 0.5 * m * (h("rod.vx") * h("rod.vx") + h("rod.vy") * h("rod.vy")) +
                     0.5 * I * h("rod.omega") * h("rod.omega") + m * g * h("rod.y");
    energy.push_back(e);
    largest = std::max(largest, std::abs(e));
    // The joint holds to the Newton tolerance (1e-10 relative, converging quadratically) at every
    // grid point.
    EXPECT_NEAR(h("pin.x"), 0.0, 1e-11) << "t = " << lc.grid.at(k);
    EXPECT_NEAR(h("pin.y"), 0.0, 1e-11) << "t = " << lc.grid.at(k);
    lowest = std::min(lowest, h("tip.y"));
  }
  EXPECT_LT(lowest, -0.99);  // it swung through the bottom
  // The midpoint rule's energy error oscillates with O(h^2) and does not grow: the largest
  // error in the last second is no larger than in the first.
  const double scale = m * g * 0.5;
  EXPECT_LT(largest, 1e-5 * scale);
  double first = 0.0, last = 0.0;
  for (int k = 0; k <= 100; ++k) first = std::max(first, std::abs(energy[k]));
  for (int k = 300; k <= 400; ++k) last = std::max(last, std::abs(energy[k]));
  EXPECT_LT(last, 1.5 * first + 1e-12 * scale);
}

// A flexible pendulum of 5 beam elements (1.2 m, 1 cm square aluminium-like strip, E lowered
// so that it bends), pinned at one end, released horizontally.
json flexible_pendulum(double step, double end_modulus = 1e9) {
  json m = {{"analysis", "dynamic"},
            {"parameters", {{"E", end_modulus}, {"rho", 2700.0}, {"ax", 0.0}, {"len", 1.2}}},
            {"beams",
             {{{"name", "b"},
               {"elements", 5},
               {"start", {"ax", 0.0}},
               {"length", "len"},
               {"area", 1e-4},
               {"second_moment", 1e-8 / 12},
               {"modulus", "E"},
               {"density", "rho"}}}},
            {"joints",
             {{{"type", "revolute"},
               {"bodies", {"ground", "b_0"}},
               {"points", {{"ax", 0.0}, {0.0, 0.0}}}}}},
            {"integrals", {{{"name", "tip2"}, {"integrand", "b_5_y^2"}}}},
            {"integrator", {{"type", "variational"}, {"step", step}}}};
  return m;
}

double strain_energy(const Eigen::VectorXd& a, const Eigen::VectorXd& b, double L0, double EI,
                     double EA) {
  const double dx = b(0) - a(0), dy = b(1) - a(1), L = std::hypot(dx, dy);
  const double beta = std::atan2(dy, dx);
  const double r1 = std::remainder(a(2) - beta, 2 * std::numbers::pi),
               r2 = std::remainder(b(2) - beta, 2 * std::numbers::pi);
  return 0.5 * EA * (L - L0) * (L - L0) / L0 + 2 * EI / L0 * (r1 * r1 + r1 * r2 + r2 * r2);
}

TEST(Variational, FlexiblePendulumKeepsItsEnergy) {
  const auto model = load_multibody_model(flexible_pendulum(1e-3));
  const LoadCaseSpec lc = grid_case(4.0, 201);
  const Eigen::VectorXd p =
      parameters(*model, {{"E", 1e9}, {"rho", 2700.0}, {"ax", 0.0}, {"len", 1.2}});
  CaseResult out;
  ASSERT_EQ(model->analyse(p, lc, {}, out), "");
  const int n = 5;
  const double le = 1.2 / n, A = 1e-4, I = 1e-8 / 12, rho = 2700, mass = rho * A * le;
  std::vector<double> energy;
  for (int k = 0; k < lc.grid.points; ++k) {
    auto node = [&](int i) {
      Eigen::VectorXd v(6);
      int c = 0;
      for (const char* s : {"x", "y", "theta", "vx", "vy", "omega"}) {
        v(c++) = out.histories.at("b_" + std::to_string(i) + "." + s)(k);
      }
      return v;
    };
    double e = 0.0;
    for (int el = 0; el < n; ++el) {
      const Eigen::VectorXd a = node(el), b = node(el + 1);
      e += mass / 6 *
           (a(3) * a(3) + a(3) * b(3) + b(3) * b(3) + a(4) * a(4) + a(4) * b(4) + b(4) * b(4));
      e += 0.25 * rho * I * le * (a(5) * a(5) + b(5) * b(5));
      e += mass * 9.81 * 0.5 * (a(1) + b(1));
      e += strain_energy(a, b, le, 1e9 * I, 1e9 * A);
    }
    energy.push_back(e);
    EXPECT_NEAR(out.histories.at("b_0.x")(k), 0.0, 1e-11);
    EXPECT_NEAR(out.histories.at("b_0.y")(k), 0.0, 1e-11);
  }
  const double scale = rho * A * 1.2 * 9.81 * 0.6;
  double first = 0.0, last = 0.0;
  for (int k = 0; k <= 50; ++k) first = std::max(first, std::abs(energy[k]));
  for (int k = 150; k <= 200; ++k) last = std::max(last, std::abs(energy[k]));
  EXPECT_LT(first, 1e-3 * scale);
  EXPECT_LT(last, 1.5 * first + 1e-9 * scale);
  EXPECT_LT(*std::min_element(out.histories.at("b_5.y").data(),
                              out.histories.at("b_5.y").data() + lc.grid.points),
            -1.1);
}

// Central differences of the discrete map: the reference for its exact derivatives. The
// relative step 1e-6 keeps the truncation error below 1e-8 of these derivatives (at 1e-5 the
// acceleration's derivative by the pendulum's length is off by 1e-7, at 1e-4 by 1e-5).
constexpr double kStep = 1e-6;
Eigen::MatrixXd central(const Model& model, const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                        const std::vector<int>& active,
                        const std::vector<std::pair<std::string, int>>& values) {
  Eigen::MatrixXd out(values.size(), active.size());
  for (size_t a = 0; a < active.size(); ++a) {
    const double d = kStep * (1.0 + std::abs(p(active[a])));
    CaseResult plus, minus;
    Eigen::VectorXd pp = p, pm = p;
    pp(active[a]) += d;
    pm(active[a]) -= d;
    EXPECT_EQ(model.analyse(pp, lc, {}, plus), "");
    EXPECT_EQ(model.analyse(pm, lc, {}, minus), "");
    for (size_t v = 0; v < values.size(); ++v) {
      const auto& [name, point] = values[v];
      const double fp = point < 0 ? plus.scalars.at(name) : plus.histories.at(name)(point);
      const double fm = point < 0 ? minus.scalars.at(name) : minus.histories.at(name)(point);
      out(v, a) = (fp - fm) / (2 * d);
    }
  }
  return out;
}

// The discrete direct and adjoint derivatives of `values` against central differences.
void expect_exact(const Model& model, const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                  const std::vector<int>& active,
                  const std::vector<std::pair<std::string, int>>& values, double tolerance) {
  const OdeModel& ode = *model.ode();
  const auto histories = ode.history_outputs();
  const auto integrals = ode.integral_outputs();
  std::vector<OutputPoint> wanted;
  for (const auto& [name, point] : values) {
    if (point < 0) {
      const auto it = std::find(integrals.begin(), integrals.end(), name);
      wanted.push_back({static_cast<int>(histories.size() + (it - integrals.begin())), -1});
    } else {
      const auto it = std::find(histories.begin(), histories.end(), name);
      wanted.push_back({static_cast<int>(it - histories.begin()), point});
    }
  }
  const Eigen::MatrixXd reference = central(model, p, lc, active, values);
  for (bool adjoint : {false, true}) {
    CaseResult out;
    Eigen::MatrixXd rows;
    ASSERT_EQ(ode.analyse_with_derivatives(p, lc, active, wanted, adjoint, out, rows), "");
    for (Eigen::Index v = 0; v < rows.rows(); ++v) {
      // Relative to the row's largest derivative (a zero derivative has no relative error).
      const double scale = reference.row(v).cwiseAbs().maxCoeff();
      for (Eigen::Index a = 0; a < rows.cols(); ++a) {
        EXPECT_NEAR(rows(v, a), reference(v, a), tolerance * scale)
            << (adjoint ? "adjoint " : "direct ") << values[v].first << "[" << values[v].second
            << "] d/dp" << active[a];
      }
    }
  }
}

// expect_exact on the model make(h) at each step h, at the named parameter values, every
// named parameter active.
void expect_exact_at_steps(const std::function<json(double)>& make,
                           std::initializer_list<double> steps, const LoadCaseSpec& lc,
                           const std::map<std::string, double>& at,
                           const std::vector<std::pair<std::string, int>>& values) {
  std::vector<std::string> names;
  for (const auto& [name, value] : at) names.push_back(name);
  for (double h : steps) {
    SCOPED_TRACE("h = " + std::to_string(h));
    const auto model = load_multibody_model(make(h));
    expect_exact(*model, parameters(*model, at), lc, indices(*model, names), values, 1e-7);
  }
}

TEST(Variational, DiscreteDerivativesOfTheRigidPendulumEqualCentralDifferences) {
  // L (geometry), m (material), ax, ay (the joint's position).
  expect_exact_at_steps(rigid_pendulum, {1e-2, 5e-3}, grid_case(1.0, 11),
                        {{"L", 1.0}, {"m", 2.0}, {"ax", 0.1}, {"ay", -0.05}},
                        {{"tip.y", 10}, {"rod.omega", 7}, {"rod.ay", 10}, {"height", -1}});
}

TEST(Variational, DiscreteDerivativesOfTheFlexiblePendulumEqualCentralDifferences) {
  // E, rho (material), the beam's start node x and its length (nodal coordinates).
  expect_exact_at_steps([](double h) { return flexible_pendulum(h); }, {2e-3, 1e-3},
                        grid_case(0.2, 5),
                        {{"E", 1e9}, {"rho", 2700.0}, {"ax", 0.02}, {"len", 1.2}},
                        {{"b_5.y", 4}, {"b.moment2", 4}, {"tip2", -1}});
}

// Seed 001's accelerometer model: a bar (mass m, length L) pinned at A, held by a spring-damper
// (k, c) from its tip to a ground point above it, an accelerometer at the tip.
json accelerometer_model(double step) {
  return json::parse(R"({
    "analysis": "dynamic", "parameters": {"k": 200.0, "c": 2.0, "m": 1.5, "L": 0.8},
    "bodies": [{"name": "bar", "mass": "m", "inertia": "m*L^2/12", "position": ["L/2", 0]}],
    "joints": [{"type": "revolute", "name": "A", "bodies": ["ground", "bar"],
                "points": [[0, 0], ["-L/2", 0]]}],
    "forces": [{"type": "spring_damper", "name": "spring", "bodies": ["ground", "bar"],
                "points": [["L", 0.5], ["L/2", 0]], "stiffness": "k", "damping": "c",
                "length": 0.45}],
    "points": [{"name": "sensor", "body": "bar", "at": ["L/2", 0]}],
    "integrator": {"type": "variational", "step": )" +
                     std::to_string(step) + "}}");
}

// Accelerations and a constraint force at the final time in the objective: the discrete
// derivatives (the terminal condition through the augmented system [M Phi_q'; Phi_q 0] at
// the final state) equal central differences at two step sizes.
TEST(Variational, AccelerationsAndReactionsAtTheFinalTimeHaveExactDerivatives) {
  expect_exact_at_steps(accelerometer_model, {2e-3, 1e-3}, grid_case(0.5, 6),
                        {{"k", 200.0}, {"c", 2.0}, {"m", 1.5}, {"L", 0.8}},
                        {{"sensor.ay", 5}, {"sensor.ax", 5}, {"bar.alpha", 5}, {"A.fy", 5}});
}

// The naive terminal condition: the acceleration's derivative at the final state taken from
// q'' = M^-1 (Q - Phi_q' lambda) with the multipliers held (as if the constraint forces did
// not change with the state) gives a wrong gradient; the consistent one is right.
TEST(Variational, NaiveTerminalConditionsAreWrongForAnAccelerationObjective) {
  const LoadCaseSpec lc = grid_case(0.5, 6);
  const json description = accelerometer_model(1e-3);
  const auto model = load_multibody_model(description);
  const std::vector<std::string> names = {"k", "c", "m", "L"};
  const Eigen::VectorXd p = parameters(*model, {{"k", 200.0}, {"c", 2.0}, {"m", 1.5}, {"L", 0.8}});
  const std::vector<int> active = indices(*model, names);
  const int na = static_cast<int>(active.size());
  const auto histories = model->ode()->history_outputs();
  auto index = [&](const std::string& name) {
    return static_cast<int>(std::find(histories.begin(), histories.end(), name) -
                            histories.begin());
  };
  // The consistent derivatives of bar.ay at the end, and dx_N/dp of the state there.
  std::vector<OutputPoint> wanted = {{index("bar.ay"), 5}};
  for (const char* c : {"x", "y", "theta", "vx", "vy", "omega"}) {
    wanted.push_back({index(std::string("bar.") + c), 5});
  }
  CaseResult out;
  Eigen::MatrixXd rows;
  ASSERT_EQ(model->ode()->analyse_with_derivatives(p, lc, active, wanted, false, out, rows), "");
  const Eigen::MatrixXd reference = central(*model, p, lc, active, {{"bar.ay", 5}});
  // The naive partials at the final state x_N.
  const multibody::MultibodyModel mm = multibody::parse_multibody(description, "multibody");
  const multibody::Dynamics dynamics(mm);
  Eigen::VectorXd x(6);
  for (int i = 0; i < 6; ++i) x(i) = out.histories.at(histories[wanted[1 + i].output])(5);
  const multibody::Env<double> env = dynamics.vars(p.data(), 0.5, lc);
  multibody::Vec<double> qdd, lambda;
  ASSERT_TRUE(dynamics.accelerations(x.data(), x.data() + 3, env, qdd, &lambda));
  multibody::ad_size = 6 + na;
  std::vector<AD> xs(6), ps(p.size());
  for (int i = 0; i < 6; ++i) xs[i] = AD(x(i), Eigen::VectorXd::Unit(6 + na, i));
  for (Eigen::Index i = 0; i < p.size(); ++i) ps[i] = AD(p(i), Eigen::VectorXd::Zero(6 + na));
  for (int a = 0; a < na; ++a) ps[active[a]].derivatives()(6 + a) = 1.0;
  const multibody::Env<AD> envs = dynamics.vars(ps.data(), 0.5, lc);
  multibody::Vec<AD> mass, Q, phi, phi_t, gamma;
  multibody::Mat<AD> phi_q;
  dynamics.mass_and_forces(xs.data(), xs.data() + 3, envs, mass, Q);
  dynamics.constraints(xs.data(), xs.data() + 3, envs, phi, phi_q, phi_t, gamma);
  AD ay = Q(1);
  for (Eigen::Index r = 0; r < phi_q.rows(); ++r) {
    const AD& entry = phi_q(r, 1);  // entries the joint does not write have no derivatives
    if (entry.derivatives().size() == 6 + na) {
      ay -= entry * lambda(r);
    } else {
      ay -= entry.value() * lambda(r);
    }
  }
  ay /= mass(1);
  EXPECT_NEAR(ay.value(), qdd(1), 1e-9);  // the same acceleration, only its derivative differs
  const Eigen::RowVectorXd naive = ay.derivatives().head(6).transpose() * rows.bottomRows(6) +
                                   ay.derivatives().tail(na).transpose();
  const double scale = reference.cwiseAbs().maxCoeff();
  double naive_error = 0.0;
  for (int a = 0; a < na; ++a) {
    EXPECT_NEAR(rows(0, a), reference(0, a), 1e-7 * scale) << names[a];
    naive_error = std::max(naive_error, std::abs(naive(a) - reference(0, a)));
  }
  EXPECT_GT(naive_error, 1e-2 * scale);
  std::printf(
      "d(bar.ay)/d(k, c, m, L) at t = 0.5: consistent (%g, %g, %g, %g), naive (%g, %g, %g, %g)\n",
      rows(0, 0), rows(0, 1), rows(0, 2), rows(0, 3), naive(0), naive(1), naive(2), naive(3));
}

// The benches' chain of `links` pendulum links (bench/pendulum_chain_model.hpp: a rotational
// spring-damper at every joint, 5 parameters per link) integrated by the variational integrator
// at `step`, its parameters made unequal (so that no derivative vanishes by symmetry).
json pendulum_chain(int links, double step) {
  json chain = bench::pendulum_chain(links);
  for (int i = 1; i <= links; ++i) {
    const std::string s = std::to_string(i);
    chain["parameters"]["k" + s] = 20.0 + i;
    chain["parameters"]["a" + s] = 0.05 * i;
    chain["parameters"]["m" + s] = 1.0 + 0.1 * i;
  }
  chain["integrator"] = {{"type", "variational"}, {"step", step}};
  return chain;
}

// The state (q, v) at the start of step j (1-based) of a kept run.
Eigen::VectorXd step_start(const multibody::VariationalRun& run, size_t j, int n, int m) {
  Eigen::VectorXd x0(2 * n);
  if (j == 1) {
    x0 = run.states.row(0).transpose();
  } else {
    x0 << run.w[j - 1].head(n), run.w[j - 1].segment(n + m, n);
  }
  return x0;
}

// The input Jacobian [dR/dx0 | dR/dp] of the adjoint sweep, formed by AD in one direction per
// colour of its columns (variational.hpp, input_colouring), equals the one formed in one
// direction per column, at every step of a run, on a rigid body with a spring-damper, a beam
// and a 12-link chain with every parameter active; on the chain (60 parameters) it needs a
// fixed number of directions whatever the number of parameters.
TEST(Variational, ColouredInputJacobianEqualsTheDenseOne) {
  const LoadCaseSpec lc = grid_case(0.1, 3);
  const std::vector<json> models = {accelerometer_model(1e-2), flexible_pendulum(1e-2),
                                    pendulum_chain(12, 2e-2)};
  for (const json& description : models) {
    const multibody::MultibodyModel mm = multibody::parse_multibody(description, "multibody");
    const multibody::Dynamics dynamics(mm);
    const multibody::Variational variational(dynamics);
    const Eigen::VectorXd p = Eigen::Map<const Eigen::VectorXd>(
        mm.parameter_defaults.data(), static_cast<Eigen::Index>(mm.parameter_defaults.size()));
    std::vector<int> active(mm.parameter_names.size());
    for (size_t i = 0; i < active.size(); ++i) active[i] = static_cast<int>(i);
    multibody::VariationalRun run;
    ASSERT_EQ(variational.integrate(p, lc, true, run), "");
    const auto colouring = variational.input_colouring(active);
    const int n = dynamics.nq(), m = dynamics.n_constraints();
    SCOPED_TRACE(std::to_string(n / 3) + " bodies, " + std::to_string(active.size()) +
                 " parameters, " + std::to_string(colouring.colours) + " colours");
    for (size_t j = 1; j < run.times.size(); ++j) {
      const Eigen::VectorXd x0 = step_start(run, j, n, m);
      const double t0 = run.times[j - 1], h = run.times[j] - t0;
      Eigen::VectorXd R;
      Eigen::MatrixXd dense, coloured;
      variational.linearise(t0, h, x0.data(), run.w[j], p, active,
                            multibody::Variational::Blocks::kInputs, lc, R, dense);
      variational.input_jacobian(t0, h, x0.data(), run.w[j], p, active, colouring, lc, coloured);
      ASSERT_EQ(coloured.rows(), dense.rows());
      ASSERT_EQ(coloured.cols(), dense.cols());
      EXPECT_LE((coloured - dense).cwiseAbs().maxCoeff(),
                1e-12 * (1.0 + dense.cwiseAbs().maxCoeff()))
          << "step " << j;
    }
    if (n == 36) {  // the chain: far fewer directions than its 2n + 60 columns, and as many
                    // with its first parameter only as with all 60 give or take a few
      EXPECT_LT(colouring.colours, 40);
      const auto one = variational.input_colouring({0});
      EXPECT_GE(one.colours + 20, colouring.colours);
      std::printf("chain of 12 links: %d colours with 60 parameters, %d with 1 (%d columns)\n",
                  colouring.colours, one.colours, 2 * n + 60);
    }
  }
}

// The multibody model of problems/suspension/optimise.json (4 wheels, 8 one-element beams,
// point forces reading their body's state; 60 parameters).
json suspension_model() {
  std::ifstream in(std::string(SAO_SOURCE_DIR) + "/problems/suspension/optimise.json");
  return json::parse(in).at("simulator").at("multibody");
}

// Newton's matrix dR/dw of every step, formed by AD in one direction per colour of its columns
// (variational.hpp, unknown_colouring; what the integrator uses), equals the one formed in one
// direction per column, on the models above and the suspension; far fewer directions than
// columns on the chain and the suspension.
TEST(Variational, ColouredNewtonMatrixEqualsTheDenseOne) {
  const std::vector<std::pair<json, LoadCaseSpec>> models = {
      {accelerometer_model(1e-2), grid_case(0.1, 3)},
      {flexible_pendulum(1e-2), grid_case(0.1, 3)},
      {pendulum_chain(12, 2e-2), grid_case(0.1, 3)},
      {suspension_model(), grid_case(0.02, 3)}};
  for (const auto& [description, lc] : models) {
    const multibody::MultibodyModel mm = multibody::parse_multibody(description, "multibody");
    const multibody::Dynamics dynamics(mm);
    const multibody::Variational variational(dynamics);
    const Eigen::VectorXd p = Eigen::Map<const Eigen::VectorXd>(
        mm.parameter_defaults.data(), static_cast<Eigen::Index>(mm.parameter_defaults.size()));
    multibody::VariationalRun run;
    ASSERT_EQ(variational.integrate(p, lc, true, run), "");
    const auto colouring = variational.unknown_colouring();
    const int n = dynamics.nq(), m = dynamics.n_constraints(), size = 2 * n + 2 * m;
    SCOPED_TRACE(std::to_string(n) + " coordinates, " + std::to_string(m) + " constraints, " +
                 std::to_string(colouring.colours) + " colours");
    for (size_t j = 1; j < run.times.size(); ++j) {
      const Eigen::VectorXd x0 = step_start(run, j, n, m);
      const double t0 = run.times[j - 1], h = run.times[j] - t0;
      Eigen::VectorXd R, Rc;
      Eigen::MatrixXd dense;
      Eigen::SparseMatrix<double> coloured;
      variational.linearise(t0, h, x0.data(), run.w[j], p, {},
                            multibody::Variational::Blocks::kUnknowns, lc, R, dense);
      variational.unknown_jacobian(t0, h, x0.data(), run.w[j], p, colouring, lc, Rc, coloured);
      ASSERT_EQ(dense.rows(), size);
      ASSERT_EQ(dense.cols(), size);
      EXPECT_EQ((Rc - R).cwiseAbs().maxCoeff(), 0.0) << "step " << j;
      EXPECT_LE((Eigen::MatrixXd(coloured) - dense).cwiseAbs().maxCoeff(),
                1e-12 * (1.0 + dense.cwiseAbs().maxCoeff()))
          << "step " << j;
    }
    if (n >= 36) {
      EXPECT_LT(colouring.colours, size / 3);
      std::printf("%d coordinates, %d constraints: Newton's matrix in %d directions (%d columns)\n",
                  n, m, colouring.colours, size);
    }
  }
}

// The hazard of issue 24: Phi_q in AD leaves the entries no joint writes without a derivative
// vector (kinematics.hpp joint_rows, elements.hpp joint_terms), and every product of such a
// matrix with full AD values (Phi_q' lambda in the variational residual, in the kinematic
// sensitivities; Phi_q q' in the velocity constraints) must give the derivatives of the
// product taken entry by entry, which skips the unwritten entries explicitly. On the 12-link
// chain (24 x 36, most entries unwritten; Eigen's blocked product kernels at these sizes) the
// two agree to rounding, so Eigen's AutoDiffScalar combines empty and full derivative vectors
// in products (make_coherent in every binary operation); a change of Eigen or of the element
// templates that broke this would fail here.
TEST(Variational, ProductsMixingUnwrittenAdEntriesKeepTheirDerivatives) {
  const multibody::MultibodyModel mm =
      multibody::parse_multibody(pendulum_chain(12, 1e-2), "multibody");
  const multibody::Dynamics dynamics(mm);
  const int n = dynamics.nq(), m = dynamics.n_constraints(), size = 2 * n + m;
  const Eigen::VectorXd p = Eigen::Map<const Eigen::VectorXd>(
      mm.parameter_defaults.data(), static_cast<Eigen::Index>(mm.parameter_defaults.size()));
  multibody::ad_size = size;
  std::vector<AD> q(n), v(n), lambda(m), ps(p.size());
  for (int i = 0; i < n; ++i) {
    q[i] = AD(0.1 * i + 0.05 * std::sin(i), Eigen::VectorXd::Unit(size, i));
    v[i] = AD(0.3 * std::cos(i), Eigen::VectorXd::Unit(size, n + i));
  }
  for (int r = 0; r < m; ++r) lambda[r] = AD(1.0 + 0.2 * r, Eigen::VectorXd::Unit(size, 2 * n + r));
  for (Eigen::Index i = 0; i < p.size(); ++i) ps[i] = AD(p(i), Eigen::VectorXd::Zero(size));
  const LoadCaseSpec lc = grid_case(1.0, 2);
  multibody::Vec<AD> phi, phi_t, gamma;
  multibody::Mat<AD> phi_q;
  dynamics.constraints(q.data(), v.data(), dynamics.vars(ps.data(), 0.3, lc), phi, phi_q, phi_t,
                       gamma);
  int unwritten = 0;
  for (Eigen::Index i = 0; i < phi_q.size(); ++i) {
    unwritten += phi_q(i).derivatives().size() == 0 ? 1 : 0;
  }
  ASSERT_GT(unwritten, phi_q.size() / 2);  // the hazard is present in the input
  const Eigen::Map<const multibody::Vec<AD>> lam(lambda.data(), m), vs(v.data(), n);
  const multibody::Vec<AD> force = phi_q.transpose() * lam, rate = phi_q * vs;
  // Entry by entry: d(sum_k a_k b_k) = sum_k (da_k b_k + a_k db_k), da_k = 0 where unwritten.
  auto d = [&](const AD& a) {
    return a.derivatives().size() == size ? Eigen::VectorXd(a.derivatives())
                                          : Eigen::VectorXd::Zero(size);
  };
  double worst = 0.0, largest = 0.0;
  for (int c = 0; c < n; ++c) {
    Eigen::VectorXd expected = Eigen::VectorXd::Zero(size);
    for (int r = 0; r < m; ++r) {
      expected += d(phi_q(r, c)) * lambda[r].value() + phi_q(r, c).value() * d(lambda[r]);
    }
    worst = std::max(worst, (d(force(c)) - expected).cwiseAbs().maxCoeff());
    largest = std::max(largest, expected.cwiseAbs().maxCoeff());
  }
  for (int r = 0; r < m; ++r) {
    Eigen::VectorXd expected = Eigen::VectorXd::Zero(size);
    for (int c = 0; c < n; ++c) {
      expected += d(phi_q(r, c)) * v[c].value() + phi_q(r, c).value() * d(v[c]);
    }
    worst = std::max(worst, (d(rate(r)) - expected).cwiseAbs().maxCoeff());
  }
  EXPECT_GT(largest, 0.1);
  EXPECT_LE(worst, 1e-14 * largest);
}

// The internal simulator with the rigid pendulum: "auto" chooses the discrete adjoint, whose
// gradient equals the model's own discrete direct derivatives; "discrete_adjoint" on a model
// integrated by CVODES is refused, naming the setting.
TEST(Variational, AutoChoosesTheDiscreteAdjoint) {
  SimulatorSetup setup;
  setup.section = {{"type", "internal"},
                   {"model", "multibody"},
                   {"multibody", rigid_pendulum(1e-2)},
                   {"workers", 1},
                   {"gradients", {{"method", "auto"}}}};
  setup.design_names = {"L", "ay"};
  setup.load_cases = {grid_case(1.0, 11)};
  InternalSimulator sim(setup);
  Eigen::VectorXd b(2);
  b << 1.1, -0.05;
  const auto result = sim.evaluate({{b, {{0, "tip.y", {10}}}}});
  ASSERT_TRUE(result[0].ok) << result[0].message;
  const Eigen::MatrixXd& g = result[0].cases[0].gradients.at("tip.y");
  const auto model = load_multibody_model(rigid_pendulum(1e-2));
  const Eigen::VectorXd p =
      parameters(*model, {{"L", 1.1}, {"m", 2.0}, {"ax", 0.0}, {"ay", -0.05}});
  const auto histories = model->ode()->history_outputs();
  const int k =
      static_cast<int>(std::find(histories.begin(), histories.end(), "tip.y") - histories.begin());
  CaseResult out;
  Eigen::MatrixXd rows;
  ASSERT_EQ(model->ode()->analyse_with_derivatives(
                p, setup.load_cases[0], indices(*model, {"L", "ay"}), {{k, 10}}, false, out, rows),
            "");
  EXPECT_NEAR(g(10, 0), rows(0, 0), 1e-12);
  EXPECT_NEAR(g(10, 1), rows(0, 1), 1e-12);
  EXPECT_NEAR(g(10, 1), 1.0, 1e-8);  // moving the pivot down moves the tip with it

  json cvodes = rigid_pendulum(1e-2);
  cvodes.erase("integrator");
  setup.section["multibody"] = cvodes;
  setup.section["gradients"]["method"] = "discrete_adjoint";
  try {
    InternalSimulator refused(setup);
    FAIL() << "accepted";
  } catch (const SectionError& e) {
    EXPECT_THAT(e.problems().at(0), HasSubstr("simulator.gradients.method: discrete_adjoint"));
  }
}

TEST(Variational, BadIntegratorSettingsNameTheirPath) {
  json m = rigid_pendulum(1e-3);
  m["integrator"] = {{"type", "newmark"}, {"step", -1}};
  try {
    load_multibody_model(m);
    FAIL() << "accepted";
  } catch (const SectionError& e) {
    std::string all;
    for (const auto& p : e.problems()) all += p + "\n";
    EXPECT_THAT(all, HasSubstr("simulator.multibody.integrator.type: expected \"variational\""));
  }
}

}  // namespace
}  // namespace sao::sim
