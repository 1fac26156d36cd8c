// The element functions of the multibody equations (simulators/multibody/elements.hpp) called
// directly with plain data, no JSON: a revolute joint's constraint Jacobian against central
// differences of its residuals, its gamma against the second time derivative of the
// constraint along a motion, and a spring-damper's length, rate and tension against their
// closed forms.
#include <gtest/gtest.h>

#include <cmath>

#include "simulators/multibody/elements.hpp"

namespace sao::sim::multibody {
namespace {

Quantity constant(double v) {
  Quantity q;
  q.constant = v;
  return q;
}

Point point_on(int body, double u, double v) {
  Point p;
  p.body = body;
  p.u = constant(u);
  p.v = constant(v);
  return p;
}

Joint revolute() {
  Joint j;
  j.kind = JointKind::kRevolute;
  j.a = 0;
  j.b = 1;
  j.pa = point_on(0, 0.5, 0.1);
  j.pb = point_on(1, -0.3, 0.2);
  return j;
}

const double kQ[6] = {0.2, -0.1, 0.7, 0.9, 0.3, -0.4};
const double kQd[6] = {0.5, -0.2, 1.3, -0.7, 0.4, 0.8};

TEST(MultibodyElementFunctions, RevoluteJacobianMatchesDifferences) {
  const Joint j = revolute();
  const Env<double> env;  // constants only: no symbols needed
  JointTerms<double> terms;
  joint_terms(j, kQ, kQd, env, terms);
  ASSERT_EQ(j.equations(), 2);
  const double h = 1e-6;
  for (int c = 0; c < 6; ++c) {
    double qp[6], qm[6];
    std::copy(kQ, kQ + 6, qp);
    std::copy(kQ, kQ + 6, qm);
    qp[c] += h;
    qm[c] -= h;
    JointTerms<double> plus, minus;
    joint_terms(j, qp, kQd, env, plus);
    joint_terms(j, qm, kQd, env, minus);
    for (int r = 0; r < 2; ++r) {
      EXPECT_NEAR(terms.phi_q[r][c], (plus.phi[r] - minus.phi[r]) / (2 * h), 1e-8)
          << "row " << r << ", column " << c;
    }
  }
}

TEST(MultibodyElementFunctions, RevoluteGammaIsTheSecondDerivativeOfTheConstraint) {
  // Along q(s) = q + s q' + s^2/2 q'', Phi'' = Phi_q q'' - gamma at s = 0.
  const Joint j = revolute();
  const Env<double> env;
  const double qdd[6] = {0.3, 0.1, -0.6, 0.2, -0.5, 0.4};
  auto phi_at = [&](double s, int r) {
    double q[6];
    for (int i = 0; i < 6; ++i) q[i] = kQ[i] + s * kQd[i] + 0.5 * s * s * qdd[i];
    JointTerms<double> t;
    joint_terms(j, q, kQd, env, t);
    return t.phi[r];
  };
  JointTerms<double> terms;
  joint_terms(j, kQ, kQd, env, terms);
  const double h = 1e-4;
  for (int r = 0; r < 2; ++r) {
    const double second = (phi_at(h, r) - 2 * phi_at(0, r) + phi_at(-h, r)) / (h * h);
    double phi_q_qdd = 0.0;
    for (int c = 0; c < 6; ++c) phi_q_qdd += terms.phi_q[r][c] * qdd[c];
    EXPECT_NEAR(second, phi_q_qdd - terms.gamma[r], 1e-6) << "row " << r;
  }
}

TEST(MultibodyElementFunctions, SpringDamperMatchesItsClosedForm) {
  Force f;
  f.kind = ForceKind::kSpringDamper;
  f.name = "spring";
  f.a = -1;  // the ground
  f.b = 0;
  f.pa = point_on(-1, 0.0, 1.0);
  f.pb = point_on(0, 0.0, 0.0);
  f.stiffness = constant(200.0);
  f.damping = constant(5.0);
  f.length = constant(0.8);
  f.preload = constant(10.0);
  const double q[3] = {0.3, -0.2, 0.4}, qd[3] = {0.5, -1.5, 2.0};
  const Env<double> env;
  double length = 0, velocity = 0, tension = 0, ux = 0, uy = 0;
  spring_state(f, q, qd, env, length, velocity, tension, ux, uy);
  const double dx = 0.3, dy = -1.2;  // from (0, 1) to (0.3, -0.2)
  const double l = std::hypot(dx, dy);
  EXPECT_NEAR(length, l, 1e-14);
  EXPECT_NEAR(ux, dx / l, 1e-14);
  EXPECT_NEAR(uy, dy / l, 1e-14);
  EXPECT_NEAR(velocity, (dx * 0.5 + dy * -1.5) / l, 1e-14);
  EXPECT_NEAR(tension, 200.0 * (l - 0.8) + 5.0 * velocity + 10.0, 1e-12);

  double fa[3], fb[3];
  force_terms(f, q, qd, env, fa, fb);
  EXPECT_NEAR(fb[0], -tension * ux, 1e-12);  // pulls body 0 towards the ground point
  EXPECT_NEAR(fb[1], -tension * uy, 1e-12);
  EXPECT_NEAR(fb[2], 0.0, 1e-12);  // at the reference point: no moment
}

}  // namespace
}  // namespace sao::sim::multibody
