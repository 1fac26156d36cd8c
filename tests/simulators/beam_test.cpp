// The planar beam element (simulators/multibody/beam.hpp): a static cantilever against
// P L^3 / 3 E I and P L^2 / 2 E I, the first bending frequencies of a pinned-pinned and a
// cantilever beam against Euler-Bernoulli theory (with the convergence table of
// docs/four-bar-flexible.md), a free beam spinning without strain, a flexible pendulum
// conserving energy, a very stiff driven beam's root moment, and the section's errors in the
// model.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "simulators/multibody/kinematics.hpp"
#include "simulators/multibody/multibody.hpp"
#include "simulators/multibody/parser.hpp"

namespace sao::sim::multibody {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

constexpr double kPi = std::numbers::pi;
// A slender aluminium strip: 1 m, 1 cm square.
constexpr double kL = 1.0, kE = 7e10, kRho = 2700, kA = 1e-4, kI = 1e-8 / 12;

json strip(int elements, const json& extra = json::object()) {
  json beam = {{"name", "b"},         {"elements", elements}, {"length", kL},   {"area", kA},
               {"second_moment", kI}, {"modulus", kE},        {"density", kRho}};
  for (const auto& [k, v] : extra.items()) beam[k] = v;
  return {{"gravity", {0, 0}}, {"beams", {beam}}};
}

Env<double> no_symbols() {
  static const LoadCaseSpec lc;
  Env<double> env;
  env.symbols = {0.0};  // t
  env.lc = &lc;
  return env;
}

// The straight beam's stiffness K = -dQ/dq (by AD) and mass matrix at rest.
struct Assembled {
  Eigen::MatrixXd K, M;
  Eigen::VectorXd q;
};

Assembled assemble(const MultibodyModel& model) {
  const Kinematics kin(model);
  const int n = kin.nq();
  Assembled out;
  out.q.resize(n);
  const Env<double> env = no_symbols();
  for (int b = 0; b < n / 3; ++b) {
    out.q(3 * b) = model.bodies[b].x.at(env);
    out.q(3 * b + 1) = model.bodies[b].y.at(env);
    out.q(3 * b + 2) = model.bodies[b].angle.at(env);
  }
  std::vector<AD> q(n), qd(n);
  for (int i = 0; i < n; ++i) {
    q[i] = AD(out.q(i), Eigen::VectorXd::Unit(n, i));
    qd[i] = AD(0.0, Eigen::VectorXd::Zero(n));
  }
  ad_size = n;
  Env<AD> ea;
  ea.symbols = {C<AD>(0.0)};
  ea.lc = env.lc;
  Vec<AD> mass_ad, Q;
  kin.mass_and_forces(q.data(), qd.data(), ea, mass_ad, Q);
  out.K.resize(n, n);
  for (int i = 0; i < n; ++i) out.K.row(i) = -Q(i).derivatives().transpose();
  Vec<double> mass, Qd;
  std::vector<Coupling<double>> coupled;
  std::vector<double> zero(n, 0.0);
  kin.mass_and_forces(out.q.data(), zero.data(), env, mass, Qd, &coupled);
  out.M = mass.asDiagonal();
  for (const auto& c : coupled) {
    out.M(c.i, c.j) += c.value;
    out.M(c.j, c.i) += c.value;
  }
  return out;
}

// Rows and columns kept: every coordinate but `fixed`.
Eigen::MatrixXd keep(const Eigen::MatrixXd& A, const std::vector<int>& fixed) {
  std::vector<int> free;
  for (int i = 0; i < A.rows(); ++i) {
    if (std::find(fixed.begin(), fixed.end(), i) == fixed.end()) free.push_back(i);
  }
  Eigen::MatrixXd out(free.size(), free.size());
  for (size_t i = 0; i < free.size(); ++i) {
    for (size_t j = 0; j < free.size(); ++j) out(i, j) = A(free[i], free[j]);
  }
  return out;
}

// The model of `m` analysed over lc at rtol and atol into `out`: "" or why it failed.
std::string run_model(const json& m, const LoadCaseSpec& lc, double rtol, double atol,
                      CaseResult& out) {
  IntegratorSettings settings;
  settings.rtol = rtol;
  settings.atol = atol;
  return load_multibody_model(m)->analyse(Eigen::VectorXd(), lc, settings, out);
}

TEST(Beam, CantileverTipDeflectionAndSlope) {
  const int n = 4;
  const MultibodyModel model = parse_multibody(strip(n), "multibody");
  const Assembled a = assemble(model);
  // Linear: K u = F with the root clamped, a tip load P downwards.
  const double P = 1.0;
  const Eigen::MatrixXd K = keep(a.K, {0, 1, 2});
  Eigen::VectorXd F = Eigen::VectorXd::Zero(K.rows());
  F(K.rows() - 2) = -P;
  const Eigen::VectorXd u = K.ldlt().solve(F);
  const double v = u(K.rows() - 2), slope = u(K.rows() - 1);
  EXPECT_NEAR(v, -P * kL * kL * kL / (3 * kE * kI), 1e-9 * std::abs(v));
  EXPECT_NEAR(slope, -P * kL * kL / (2 * kE * kI), 1e-9 * std::abs(slope));

  // Nonlinear (Newton on the co-rotational forces): a load bending the tip by 1 % of L stays
  // within 0.1 % of the linear theory.
  const double load = 0.01 * 3 * kE * kI / (kL * kL * kL);
  const Kinematics kin(model);
  const Env<double> env = no_symbols();
  Eigen::VectorXd q = a.q;
  std::vector<double> zero(q.size(), 0.0);
  for (int it = 0; it < 20; ++it) {
    Vec<double> mass, Q;
    kin.mass_and_forces(q.data(), zero.data(), env, mass, Q);
    Q(q.size() - 2) -= load;
    Eigen::VectorXd r(q.size() - 3);
    for (int i = 3; i < q.size(); ++i) r(i - 3) = Q(i);
    if (r.norm() < 1e-10 * load) break;
    // The tangent stiffness at q.
    std::vector<AD> qa(q.size()), qda(q.size());
    ad_size = q.size();
    for (int i = 0; i < q.size(); ++i) {
      qa[i] = AD(q(i), Eigen::VectorXd::Unit(q.size(), i));
      qda[i] = AD(0.0, Eigen::VectorXd::Zero(q.size()));
    }
    Env<AD> ea;
    ea.symbols = {C<AD>(0.0)};
    ea.lc = env.lc;
    Vec<AD> ma, Qa;
    kin.mass_and_forces(qa.data(), qda.data(), ea, ma, Qa);
    Eigen::MatrixXd Kt(q.size(), q.size());
    for (int i = 0; i < q.size(); ++i) Kt.row(i) = -Qa(i).derivatives().transpose();
    q.tail(q.size() - 3) += keep(Kt, {0, 1, 2}).lu().solve(r);
  }
  EXPECT_NEAR(q(q.size() - 2), -0.01 * kL, 1e-3 * 0.01 * kL);
  EXPECT_NEAR(q(q.size() - 1), -0.015, 1e-3 * 0.015);  // slope 3 v / 2 L
}

// The lowest three eigenfrequencies of (K, M) with `fixed` coordinates held.
Eigen::Vector3d frequencies(int n, const std::vector<int>& fixed_at_root, bool pinned_tip) {
  const MultibodyModel model = parse_multibody(strip(n), "multibody");
  const Assembled a = assemble(model);
  std::vector<int> fixed = fixed_at_root;
  if (pinned_tip) fixed.push_back(3 * n + 1);
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> eig(keep(a.K, fixed), keep(a.M, fixed));
  return eig.eigenvalues().head(3).cwiseSqrt();
}

TEST(Beam, BendingFrequenciesConvergeToEulerBernoulli) {
  const double c = std::sqrt(kE * kI / (kRho * kA)) / (kL * kL);
  const Eigen::Vector3d pinned(kPi * kPi * c, 4 * kPi * kPi * c, 9 * kPi * kPi * c);
  const double beta[3] = {1.8751040687, 4.6940911330, 7.8547574382};
  const Eigen::Vector3d cantilever(beta[0] * beta[0] * c, beta[1] * beta[1] * c,
                                   beta[2] * beta[2] * c);
  std::printf(
      "| elements | pinned 1 | pinned 2 | pinned 3 | cantilever 1 | cantilever 2 | "
      "cantilever 3 |\n|---|---|---|---|---|---|---|\n");
  Eigen::Vector3d ep, ec;
  for (int n : {4, 8, 16, 32, 64}) {
    ep = frequencies(n, {0, 1}, true).cwiseQuotient(pinned) - Eigen::Vector3d::Ones();
    ec = frequencies(n, {0, 1, 2}, false).cwiseQuotient(cantilever) - Eigen::Vector3d::Ones();
    std::printf("| %d | %+.3f %% | %+.3f %% | %+.3f %% | %+.3f %% | %+.3f %% | %+.3f %% |\n", n,
                100 * ep(0), 100 * ep(1), 100 * ep(2), 100 * ec(0), 100 * ec(1), 100 * ec(2));
    if (n == 16) {
      EXPECT_GT(ep.cwiseAbs().maxCoeff(), 1e-3) << "16 elements are not yet converged";
    }
  }
  // 64 elements: within 1 % of the theory, all six.
  EXPECT_LT(ep.cwiseAbs().maxCoeff(), 0.01);
  EXPECT_LT(ec.cwiseAbs().maxCoeff(), 0.01);
}

LoadCaseSpec grid_case(double end, int points) {
  LoadCaseSpec lc;
  lc.name = "case";
  lc.grid = TimeGrid(0.0, end, points);
  return lc;
}

// A free beam spinning at 20 rad/s: it turns rigidly (its chord at w t, its nodes' angles with
// it) and keeps its length, up to the centrifugal stretch (static: rho w^2 L^3 / 12 E =
// 1.3e-6 m; started unstretched, it oscillates between 0 and twice that), and with it the
// angular velocity (the inertia grows by 2 stretch / L).
TEST(Beam, FreeBeamSpinsWithoutStrain) {
  const double w = 20.0;
  const json m =
      strip(4, {{"start", {-0.5, 0}}, {"velocity", {0, -0.5 * w}}, {"angular_velocity", w}});
  const LoadCaseSpec lc = grid_case(1.0, 21);
  CaseResult out;
  ASSERT_EQ(run_model(m, lc, 1e-9, 1e-12, out), "");
  const double stretch = kRho * w * w * kL * kL * kL / (12 * kE);
  for (int k = 0; k < lc.grid.points; ++k) {
    const double t = lc.grid.at(k);
    const double dx = out.histories.at("b_4.x")(k) - out.histories.at("b_0.x")(k);
    const double dy = out.histories.at("b_4.y")(k) - out.histories.at("b_0.y")(k);
    EXPECT_NEAR(std::hypot(dx, dy), kL + stretch, 1.1 * stretch) << "t = " << t;
    const double chord = std::atan2(dy, dx), expected = std::remainder(w * t, 2 * kPi);
    const double slip = 2 * 2 * stretch / kL * w;  // bound on the change of w, rad/s
    EXPECT_NEAR(std::remainder(chord - expected, 2 * kPi), 0.0, slip * t + 1e-7) << "t = " << t;
    EXPECT_NEAR(out.histories.at("b_2.omega")(k), w, 2e-5 * w);  // slip and axial vibration
    EXPECT_NEAR(out.histories.at("b.moment2")(k), 0.0, 1e-3);
  }
}

// The strain energy of one element from its nodes (the co-rotational formula written again).
double strain_energy(double x1, double y1, double t1, double x2, double y2, double t2, double L0,
                     double EI, double EA) {
  const double dx = x2 - x1, dy = y2 - y1, L = std::hypot(dx, dy);
  const double b = std::atan2(dy, dx);
  const double r1 = std::remainder(t1 - b, 2 * kPi), r2 = std::remainder(t2 - b, 2 * kPi);
  return 0.5 * EA * (L - L0) * (L - L0) / L0 + 2 * EI / L0 * (r1 * r1 + r1 * r2 + r2 * r2);
}

// A flexible pendulum pinned at one end, released horizontally under gravity, no damping:
// kinetic + strain + potential energy stays at its initial value (0).
TEST(Beam, FlexiblePendulumConservesEnergy) {
  const int n = 5;
  json m = strip(n);
  m["gravity"] = {0, -9.81};
  m["beams"][0]["modulus"] = 1e10;  // softer than aluminium: it bends visibly
  m["joints"] = {{{"type", "revolute"}, {"bodies", {"ground", "b_0"}}}};
  const LoadCaseSpec lc = grid_case(1.0, 51);
  CaseResult out;
  ASSERT_EQ(run_model(m, lc, 1e-9, 1e-12, out), "");
  const double E = 1e10, I = kI, le = kL / n, mass = kRho * kA * le;
  auto h = [&](int node, const char* c, int k) {
    return out.histories.at("b_" + std::to_string(node) + "." + c)(k);
  };
  double largest_moment = 0.0, lowest = 0.0;
  for (int k = 0; k < lc.grid.points; ++k) {
    double energy = 0.0;
    for (int e = 0; e < n; ++e) {
      const double vax = h(e, "vx", k), vay = h(e, "vy", k), vbx = h(e + 1, "vx", k),
                   vby = h(e + 1, "vy", k);
      energy += mass / 6 * (vax * vax + vax * vbx + vbx * vbx + vay * vay + vay * vby + vby * vby);
      energy += 0.25 * kRho * I * le *
                (std::pow(h(e, "omega", k), 2) + std::pow(h(e + 1, "omega", k), 2));
      energy += mass * 9.81 * 0.5 * (h(e, "y", k) + h(e + 1, "y", k));
      energy += strain_energy(h(e, "x", k), h(e, "y", k), h(e, "theta", k), h(e + 1, "x", k),
                              h(e + 1, "y", k), h(e + 1, "theta", k), le, E * I, E * kA);
    }
    EXPECT_NEAR(energy, 0.0, 1e-4 * kRho * kA * kL * 9.81 * kL) << "t = " << lc.grid.at(k);
    largest_moment = std::max(largest_moment, std::abs(out.histories.at("b.moment1")(k)));
    lowest = std::min(lowest, h(n, "y", k));
  }
  EXPECT_LT(lowest, -0.95);         // it swung down through the bottom
  EXPECT_GT(largest_moment, 1e-3);  // and bent
}

// A very stiff driven beam: the four-bar's crank at 1000 E (0.3048 m, d = 0.3568 m, six
// elements, damping 2e-4 s), pinned at its root and driven there through theta = 0.5 sin^2(20 t)
// from rest. Quasi-statically rigid, its root moment is the inertia beyond the root times
// theta'': M0 = -(rho A L^3 / 3 + rho I (L - L0 / 2)) theta'' (the consistent translational mass
// is exact for a rigid rotation; the nodes' rotary inertia rho I L0, half at the ends, the root
// node's driven directly), and the driver's torque adds the root node's rho I L0 / 2. The
// elastic rotation over the root element is about 1e-9 rad: with CVODES's plain tolerances
// rtol |q| + atol at rtol 1e-6 the moments were noise 50 times too large (the beam's own
// tolerances resolve it down to atol, beam.hpp).
TEST(Beam, StiffDrivenBeamRootMomentIsResolved) {
  const int n = 6;
  const double L = 0.3048, d = 0.3568, E = 6.895e13, rho = 2757;
  const double A = kPi * d * d / 4, I = kPi * d * d * d * d / 64, L0 = L / n;
  json m = {{"gravity", {0, 0}},
            {"beams",
             {{{"name", "crank"},
               {"elements", n},
               {"length", L},
               {"area", A},
               {"second_moment", I},
               {"modulus", E},
               {"density", rho},
               {"damping", 2e-4}}}},
            {"joints",
             {{{"type", "revolute"}, {"bodies", {"ground", "crank_0"}}},
              {{"type", "driver"},
               {"name", "motor"},
               {"body", "crank_0"},
               {"coordinate", "angle"},
               {"motion", "0.5*sin(20*t)^2"}}}}};
  const LoadCaseSpec lc = grid_case(0.5, 51);
  CaseResult out;
  ASSERT_EQ(run_model(m, lc, 1e-6, 1e-11, out), "");
  const double beyond = rho * A * L * L * L / 3 + rho * I * (L - L0 / 2), root = rho * I * L0 / 2;
  const double largest = beyond * 400;  // theta'' = 400 cos(40 t)
  for (int k = 0; k < lc.grid.points; ++k) {
    const double t = lc.grid.at(k), acceleration = 400 * std::cos(40 * t);
    // At t = 0 the beam is at rest and unbent while the driver already accelerates its root:
    // the moment builds up over the damping time (2e-4 s); every later point is quasi-static.
    if (k == 0) continue;
    EXPECT_NEAR(out.histories.at("crank.moment0")(k), -beyond * acceleration, 0.002 * largest)
        << "t = " << t;
    EXPECT_NEAR(out.histories.at("motor.torque")(k), (beyond + root) * acceleration,
                0.002 * largest)
        << "t = " << t;
  }
}

TEST(Beam, BadSectionsNameTheirPath) {
  auto error = [](json m) {
    try {
      parse_multibody(m, "simulator.multibody");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  json m = strip(2);
  m["beams"][0]["length"] = 0;
  EXPECT_THAT(error(m), HasSubstr("simulator.multibody.beams[0].length: must be positive"));
  m = strip(2);
  m["beams"][0]["modulus"] = -1;
  EXPECT_THAT(error(m), HasSubstr("simulator.multibody.beams[0].modulus: must be positive"));
  m = strip(2);
  m["beams"][0]["colour"] = "red";
  EXPECT_THAT(error(m), HasSubstr("simulator.multibody.beams[0]"));
  EXPECT_THAT(error(m), HasSubstr("colour"));
  m = strip(0);
  EXPECT_THAT(error(m), HasSubstr("simulator.multibody.beams[0].elements"));
  m = strip(2);
  m["analysis"] = "kinematic";
  EXPECT_THAT(error(m), HasSubstr("beams need a dynamic analysis"));
}

}  // namespace
}  // namespace sao::sim::multibody
