// The planar beam element of flexible bodies (model.hpp: BeamElement, Beam), templated on the
// scalar type like every other element (elements.hpp), so that its Jacobians and the adjoint
// come from automatic differentiation.
//
// A co-rotational Euler-Bernoulli element between two node bodies (x, y, theta), the absolute
// coordinates of the rigid bodies: the chord from node a to node b carries a local frame; in it
// the element is linear (axial force N = E A (L - L0) / L0, end moments
// M1 = (2 E I / L0) (2 t1 + t2), M2 = (2 E I / L0) (t1 + 2 t2), with t1, t2 the node rotations
// relative to the chord), so large rotations cost no strain and the geometric stiffness comes
// from differentiating the rotation of the chord. The generalised forces are minus the gradient
// of the strain energy E A u^2 / (2 L0) + (2 E I / L0) (t1^2 + t1 t2 + t2^2).
// Mass: the translations carry the consistent mass of linear interpolation, rho A L0 / 6
// [2 1; 1 2] in x and in y (exact rigid-body inertia; constant, coupling the two nodes), and
// each node the rotary inertia of the section, rho I L0 / 2. Gravity: rho A L0 g / 2 per node.
// Damping: stiffness-proportional (Rayleigh), mu times the elastic forces of the deformation
// rates, so that rigid motion is never damped.
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "simulators/multibody/model.hpp"

namespace sao::sim::multibody {

// The deformation of one element at (q, q') and its section forces.
template <class S>
struct BeamState {
  S length;  // current chord length L
  S c, s;    // chord direction
  S N;       // axial force (tension positive), damping included
  S M1, M2;  // end moments on the element (counter-clockwise), damping included
  S t1, t2;  // the nodes' rotations relative to the chord
  S strain;  // (L - L0) / L0
};

template <class S>
BeamState<S> beam_state(const BeamElement& e, const S* q, const S* qd, const Env<S>& env) {
  using std::atan2;
  using std::cos;
  using std::sin;
  using std::sqrt;
  const S* na = q + 3 * e.a;
  const S* nb = q + 3 * e.b;
  const S dx = nb[0] - na[0], dy = nb[1] - na[1];
  BeamState<S> st;
  st.length = sqrt(dx * dx + dy * dy);
  if (!(value_of(st.length) > 0.0)) {
    throw std::runtime_error("beam " + e.beam + ": an element has collapsed to zero length");
  }
  st.c = dx / st.length;
  st.s = dy / st.length;
  // Node rotations relative to the chord, atan2 of sin and cos of (theta - beta).
  const S ca = cos(na[2]), sa = sin(na[2]), cb = cos(nb[2]), sb = sin(nb[2]);
  const S t1 = atan2(sa * dx - ca * dy, ca * dx + sa * dy);
  const S t2 = atan2(sb * dx - cb * dy, cb * dx + sb * dy);
  const S L0 = e.length.at(env), E = e.modulus.at(env);
  const S EA = E * e.area.at(env), EI2 = 2.0 * E * e.second_moment.at(env) / L0;
  st.t1 = t1;
  st.t2 = t2;
  st.strain = (st.length - L0) / L0;
  S u = st.length - L0, r1 = t1, r2 = t2;
  if (e.damping.program || e.damping.constant != 0.0) {
    const S* va = qd + 3 * e.a;
    const S* vb = qd + 3 * e.b;
    const S dvx = vb[0] - va[0], dvy = vb[1] - va[1];
    const S mu = e.damping.at(env);
    const S beta_rate = (st.c * dvy - st.s * dvx) / st.length;
    u += mu * (st.c * dvx + st.s * dvy);
    r1 += mu * (va[2] - beta_rate);
    r2 += mu * (vb[2] - beta_rate);
  }
  st.N = EA * u / L0;
  st.M1 = EI2 * (2.0 * r1 + r2);
  st.M2 = EI2 * (r1 + 2.0 * r2);
  return st;
}

// The generalised forces of one element on its nodes a (fa: x, y, theta) and b (fb): elastic,
// damping and the weight under gravity (gx, gy).
template <class S>
void beam_forces(const BeamElement& e, const Quantity& gx, const Quantity& gy, const S* q,
                 const S* qd, const Env<S>& env, S* fa, S* fb) {
  const BeamState<S> st = beam_state(e, q, qd, env);
  const S shear = (st.M1 + st.M2) / st.length;  // Q = -N r - M1 e3 - M2 e6 + (M1 + M2)/L z
  const S half_weight = 0.5 * e.density.at(env) * e.area.at(env) * e.length.at(env);
  const S wx = half_weight * gx.at(env), wy = half_weight * gy.at(env);
  fa[0] = st.N * st.c + shear * st.s + wx;
  fa[1] = st.N * st.s - shear * st.c + wy;
  fa[2] = -st.M1;
  fb[0] = -st.N * st.c - shear * st.s + wx;
  fb[1] = -st.N * st.s + shear * st.c + wy;
  fb[2] = -st.M2;
}

// The mass of one element: `own` on each translation of each node, `coupled` between the same
// translation of a and b, `rotary` on each node's rotation.
template <class S>
void beam_mass(const BeamElement& e, const Env<S>& env, S& own, S& coupled, S& rotary) {
  const S rho = e.density.at(env), L0 = e.length.at(env);
  const S m = rho * e.area.at(env) * L0;
  own = m / 3.0;
  coupled = m / 6.0;
  rotary = 0.5 * rho * e.second_moment.at(env) * L0;
}

// The error tolerances of the state x = (q, q') (n = q's size) that resolve the beams'
// deformation, for CVODES's rtol and atol. A beam's moments are E I / L0 times its nodes'
// rotations relative to the chord, differences of absolute coordinates. CVODES's tolerance
// rtol |x_i| + atol follows the coordinates' size (a crank turned 15 rad: 1.5e-5 rad at rtol
// 1e-6), not the deformation's, which falls as 1 / E (3e-8 rad at the four-bar's crank root
// at 1000 E): a stiff beam's moments are then noise (docs/four-bar-flexible.md). So no
// coordinate of a beam's node gets a tolerance above the beam's largest deformation at x
// (D, the largest |t1|, |t2| or |strain| of its elements): D on the angle, D L0 on x and y
// (L0 the element length), never below atol; its velocity's tolerance shrinks by the same
// factor as the coordinate's (the damping forces are E I times deformation rates). A beam
// at rest in its undeformed shape (D = 0) is integrated to atol.
inline void beam_tolerances(const MultibodyModel& model, const double* x, int n, double rtol,
                            double atol, const Env<double>& env, double* tolerance) {
  using std::abs;
  using std::max;
  using std::min;
  for (int i = 0; i < 2 * n; ++i) tolerance[i] = rtol * abs(x[i]) + atol;
  for (const Beam& beam : model.beams) {
    double D = 0.0;
    for (int k = 0; k < beam.elements; ++k) {
      const BeamState<double> st = beam_state(model.beam_elements[beam.first + k], x, x + n, env);
      D = max({D, abs(st.t1), abs(st.t2), abs(st.strain)});
    }
    const double L0 = model.beam_elements[beam.first].length.at(env);
    for (int node : beam.nodes) {
      for (int c = 0; c < 3; ++c) {
        const int i = 3 * node + c;
        const double cap = max(atol, D * (c < 2 ? L0 : 1.0));
        if (cap >= tolerance[i]) continue;
        tolerance[n + i] = max(atol, tolerance[n + i] * cap / tolerance[i]);
        tolerance[i] = cap;
      }
    }
  }
}

// The histories of a beam at node k (0 .. elements): the bending moment (the internal moment
// of the section, continuous along the beam: -M1 at an element's first node, M2 at its last;
// the mean of the two elements at an inner node), the axial force, and the deflection of the
// node from the chord of the whole beam (node 0 to the last node), left of it positive.
enum class BeamOutput { kMoment, kAxial, kDeflection, kStress };
inline constexpr const char* kBeamOutputs[] = {"moment", "axial", "deflection", "stress"};

// How many kinds of history a beam has: moment, axial, deflection, and stress with a section
// modulus.
inline int beam_output_kinds(const Beam& beam) {
  return beam.has_section_modulus ? 4 : 3;
}

template <class S>
S beam_output(const MultibodyModel& model, const Beam& beam, BeamOutput what, int k, const S* q,
              const S* qd, const Env<S>& env) {
  if (what == BeamOutput::kDeflection) {
    using std::sqrt;
    const S* first = q + 3 * beam.nodes.front();
    const S* last = q + 3 * beam.nodes.back();
    const S* node = q + 3 * beam.nodes[k];
    const S cx = last[0] - first[0], cy = last[1] - first[1];
    return (cx * (node[1] - first[1]) - cy * (node[0] - first[0])) / sqrt(cx * cx + cy * cy);
  }
  S sum = C<S>(0.0);
  int count = 0;
  for (int side = 0; side < 2; ++side) {
    const int element = side == 0 ? k - 1 : k;  // ending at node k, starting at node k
    if (element < 0 || element >= beam.elements) continue;
    const BeamState<S> st = beam_state(model.beam_elements[beam.first + element], q, qd, env);
    if (what == BeamOutput::kAxial) {
      sum += st.N;
    } else {
      sum += side == 0 ? st.M2 : -st.M1;
    }
    ++count;
  }
  const S value = sum / static_cast<double>(count);
  if (what == BeamOutput::kStress) return value / beam.section_modulus.at(env);
  return value;
}

}  // namespace sao::sim::multibody
