// The equations of each element of a multibody model (model.hpp), as functions templated on
// the scalar type (double, AD, LocalAD) of plain data: a joint's constraint rows, a force
// element's generalised forces, a body's masses and weight, a marked point's motion. Every
// analysis and its derivatives are assembled from these (kinematics.hpp, dynamics.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "simulators/models/damper_law.hpp"
#include "simulators/multibody/model.hpp"

namespace sao::sim::multibody {

// Calls visit(local, column) for the columns of a joint's (or force's) bodies a and b:
// local 0-2 are x, y, theta of a, 3-5 those of b; the ground has none.
template <class Visit>
void for_each_column(int a, int b, Visit visit) {
  for (int side = 0; side < 2; ++side) {
    const int body = side == 0 ? a : b;
    if (body < 0) continue;
    for (int c = 0; c < 3; ++c) visit(3 * side + c, 3 * body + c);
  }
}

template <class S>
struct Pose {
  S x, y, c, s;  // reference point, cos and sin of the angle
};
// cos and sin of body `body`'s angle, remembered per body and thread: one call of the equations
// asks for them once per element of the body, the linearisation again at the same state, and
// a body that only translates never changes its angle. Keyed by the angle's bits, so that the
// values are those std::cos and std::sin give (the sign of a zero included).
inline void cos_sin(int body, double angle, double& c, double& s) {
  struct Entry {
    std::uint64_t bits = 0;
    double c = 1.0, s = 0.0;
  };
  static thread_local std::vector<Entry> cache;
  if (static_cast<size_t>(body) >= cache.size()) cache.resize(static_cast<size_t>(body) + 1);
  Entry& e = cache[static_cast<size_t>(body)];
  std::uint64_t bits;
  std::memcpy(&bits, &angle, sizeof bits);
  if (bits != e.bits) {
    e.bits = bits;
    e.c = std::cos(angle);
    e.s = std::sin(angle);
  }
  c = e.c;
  s = e.s;
}

template <class S>
Pose<S> pose(int body, const S* q) {
  if (body < 0) return {C<S>(0.0), C<S>(0.0), C<S>(1.0), C<S>(0.0)};
  const S& angle = q[3 * body + 2];
  double c, s;
  cos_sin(body, value_of(angle), c, s);
  if constexpr (std::is_same_v<S, double>) {
    return {q[3 * body], q[3 * body + 1], c, s};
  } else {  // as Eigen's cos and sin of an AutoDiffScalar, to the bit
    return {q[3 * body], q[3 * body + 1], S(c, angle.derivatives() * (-s)),
            S(s, angle.derivatives() * c)};
  }
}
template <class S>
S omega(int body, const S* qd) {
  return body < 0 ? C<S>(0.0) : qd[3 * body + 2];
}

// The road profile of a motion that the load case selects (0-based).
inline size_t road_index(const Motion& m, const LoadCaseSpec& lc) {
  if (m.select.empty()) return 0;
  const auto it = lc.parameters.find(m.select);
  const double k = it != lc.parameters.end() ? it->second : m.select_default;
  if (!(k >= 1 && k <= static_cast<double>(m.profiles.size())) || k != std::floor(k)) {
    std::ostringstream why;
    why << "load case \"" << lc.name << "\": " << m.select << " = " << k
        << " does not pick one of the " << m.profiles.size() << " road profiles (1-based)";
    throw std::runtime_error(why.str());
  }
  return static_cast<size_t>(k) - 1;
}

// The value of a prescribed motion at time env.t.
template <class S>
S motion_at(const Motion& m, const Env<S>& env) {
  if (m.profiles.empty()) return m.value.at(env);
  const Profile& profile = m.profiles[road_index(m, *env.lc)];
  const S x = m.speed.at(env) * env.t - m.start.at(env);
  if (!profile.table) return profile.height.at(env, {x});
  const double xv = std::clamp(value_of(x), profile.first, profile.last);
  const double h = (*profile.table)(xv);
  if constexpr (std::is_same_v<S, double>) {
    return h;
  } else {
    const bool inside = value_of(x) > profile.first && value_of(x) < profile.last;
    return S(h, (inside ? profile.table->prime(xv) : 0.0) * x.derivatives());
  }
}

// The equations of one joint at (t, q, q'): its rows of Phi, Phi_t, gamma (Phi_q q'' = gamma)
// and of Phi_q, whose columns are x, y, theta of the first body, then of the second.
template <class S>
struct JointTerms {
  S phi[3], phi_t[3], gamma[3];
  S phi_q[3][6];  // S(0.0), without derivatives, where the joint writes nothing
};

// The rows of one joint at (t, q, q'), written by the kinds of equation joints are made of.
template <class S>
class JointRows {
 public:
  JointRows(const Joint& j, const S* q, const S* qd, const Env<S>& env, JointTerms<S>& out)
      : j_(j), q_(q), qd_(qd), env_(env), out_(out) {}

  // Rows r, r + 1: the points pa of body a and pb of body b coincide (revolute, fixed).
  void coincide(int r, const S& wa, const S& wb) {
    const At a = locate(j_.pa), b = locate(j_.pb);
    out_.phi[r] = a.rx - b.rx;
    out_.phi[r + 1] = a.ry - b.ry;
    add_q(r, j_.a, 0, C<S>(1.0));
    add_q(r, j_.a, 2, a.bsx);
    add_q(r + 1, j_.a, 1, C<S>(1.0));
    add_q(r + 1, j_.a, 2, a.bsy);
    add_q(r, j_.b, 0, C<S>(-1.0));
    add_q(r, j_.b, 2, -b.bsx);
    add_q(r + 1, j_.b, 1, C<S>(-1.0));
    add_q(r + 1, j_.b, 2, -b.bsy);
    out_.gamma[r] = a.asx * wa * wa - b.asx * wb * wb;
    out_.gamma[r + 1] = a.asy * wa * wa - b.asy * wb * wb;
  }
  // Row r: theta_b - theta_a - angle = 0 (translational, angle driver, fixed).
  void relative_angle(int r, const S& angle) {
    const S ta = j_.a >= 0 ? q_[3 * j_.a + 2] : C<S>(0.0),
            tb = j_.b >= 0 ? q_[3 * j_.b + 2] : C<S>(0.0);
    out_.phi[r] = tb - ta - angle;
    add_q(r, j_.b, 2, C<S>(1.0));
    add_q(r, j_.a, 2, C<S>(-1.0));
  }
  // Row r: g' (r_Pb - r_Pa) = 0 with g = A_a (gx, gy) fixed in body a (translational joints
  // and their drivers).
  void along(int r, const S& glx, const S& gly, const S& wa, const S& wb) {
    const Pose<S> pa = pose(j_.a, q_);
    const S nx = pa.c * glx - pa.s * gly, ny = pa.s * glx + pa.c * gly;  // A g
    const S bnx = -ny, bny = nx;                                         // B g
    const At a = locate(j_.pa), b = locate(j_.pb);
    const S dx = b.rx - a.rx, dy = b.ry - a.ry;
    out_.phi[r] = nx * dx + ny * dy;
    add_q(r, j_.a, 0, -nx);
    add_q(r, j_.a, 1, -ny);
    add_q(r, j_.a, 2, bnx * dx + bny * dy - (nx * a.bsx + ny * a.bsy));
    add_q(r, j_.b, 0, nx);
    add_q(r, j_.b, 1, ny);
    add_q(r, j_.b, 2, nx * b.bsx + ny * b.bsy);
    // d' = velocity of Pb - velocity of Pa.
    const auto [vax, vay] = velocity(j_.a, a);
    const auto [vbx, vby] = velocity(j_.b, b);
    const S ddx = vbx - vax, ddy = vby - vay;
    // gamma = -(terms of Phi'' without q''): g'' = B g theta_a'' - g w_a^2, and
    // r_P'' = R'' + B s theta'' - A s w^2.
    const S rest = -(nx * dx + ny * dy) * wa * wa + 2.0 * wa * (bnx * ddx + bny * ddy) +
                   nx * (-b.asx * wb * wb + a.asx * wa * wa) +
                   ny * (-b.asy * wb * wb + a.asy * wa * wa);
    out_.gamma[r] = -rest;
  }
  // Row 0 of a driver: coordinate `coordinate` of body b follows f (kDriver).
  void coordinate(int coordinate, const S& f) {
    out_.phi[0] = q_[3 * j_.b + coordinate] - f;
    add_q(0, j_.b, coordinate, C<S>(1.0));
  }

 private:
  // Global position of a point, A s, and B s = dA/dtheta s.
  struct At {
    S rx, ry, asx, asy, bsx, bsy;
  };
  At locate(const Point& pt) const {
    const Pose<S> ps = pose(pt.body, q_);
    const S u = pt.u.at(env_), w = pt.v.at(env_);
    At r;
    r.asx = ps.c * u - ps.s * w;
    r.asy = ps.s * u + ps.c * w;
    r.bsx = -r.asy;
    r.bsy = r.asx;
    r.rx = ps.x + r.asx;
    r.ry = ps.y + r.asy;
    return r;
  }
  // The velocity of a located point of `body`.
  std::pair<S, S> velocity(int body, const At& at) const {
    const S vx = body >= 0 ? qd_[3 * body] : C<S>(0.0),
            vy = body >= 0 ? qd_[3 * body + 1] : C<S>(0.0);
    const S w = omega(body, qd_);
    return std::pair<S, S>(vx + at.bsx * w, vy + at.bsy * w);
  }
  // d Phi_r / d (coordinate c of `body`), body a or b of the joint.
  void add_q(int r, int body, int c, const S& value) {
    if (body >= 0) out_.phi_q[r][(body == j_.a ? 0 : 3) + c] += value;
  }

  const Joint& j_;
  const S* q_;
  const S* qd_;
  const Env<S>& env_;
  JointTerms<S>& out_;
};

// f(t), f'(t) and f''(t) of a driver's motion at env.t, exact: one evaluation in the expression
// engine's second-order forward mode, in t or, for a road formula, in x = speed t - start
// (f' = h'(x) speed, f'' = h''(x) speed^2). False for a road table or a road whose speed or
// start changes with t: their derivatives then come from central differences.
inline bool driver_motion(const Joint& j, const Env<double>& env, double& f, double& rate,
                          double& acceleration) {
  const int t = env.t_index;
  switch (j.kind) {
    case JointKind::kTranslationalDriver:
      f = j.distance.at(env, {}, t, rate, acceleration);
      return true;
    case JointKind::kAngleDriver:
      f = j.angle.at(env, {}, t, rate, acceleration);
      return true;
    default:
      break;
  }
  const Motion& m = j.motion;
  if (m.profiles.empty()) {
    f = m.value.at(env, {}, t, rate, acceleration);
    return true;
  }
  const Profile& profile = m.profiles[road_index(m, *env.lc)];
  if (profile.table || m.speed.live() || m.start.live()) return false;
  const double speed = m.speed.at(env), x = speed * env.t - m.start.at(env);
  double hx = 0.0, hxx = 0.0;
  f = profile.height.at(env, {x}, static_cast<int>(env.symbols.size()), hx, hxx);
  rate = hx * speed;
  acceleration = hxx * speed * speed;
  return true;
}

// The rows of a driver (angle, translational or coordinate driver): f(t), f'(t) and f''(t),
// exact where driver_motion is, else by central differences of the motion (h = 1e-4 (1 + |t|)).
// For AD scalars the values are driver_motion's too (the same as for double) and their
// derivatives in the parameters those of the central differences.
template <class S>
void driver_terms(const Joint& j, const Env<S>& env, const S& wa, const S& wb, JointRows<S>& rows,
                  JointTerms<S>& out) {
  S f, rate, acceleration;
  bool exact = false;         // double scalars: f, f', f'' from driver_motion
  bool exact_values = false;  // AD scalars: the values of f' and f'' from driver_motion
  double values[3] = {0.0, 0.0, 0.0};
  if constexpr (std::is_same_v<S, double>) {
    exact = driver_motion(j, env, f, rate, acceleration);
  } else {
    static thread_local Env<double> plain;
    plain.symbols.resize(env.symbols.size());
    for (size_t i = 0; i < env.symbols.size(); ++i) plain.symbols[i] = value_of(env.symbols[i]);
    plain.t_index = env.t_index;
    plain.t = env.t;
    plain.lc = env.lc;
    plain.frozen = env.frozen;
    exact_values = driver_motion(j, plain, values[0], values[1], values[2]);
  }
  if (!exact) {
    const double h = 1e-4 * (1.0 + std::abs(env.t));
    auto f_of = [&](const Env<S>& e) {
      switch (j.kind) {
        case JointKind::kDriver:
          return motion_at(j.motion, e);
        case JointKind::kTranslationalDriver:
          return j.distance.at(e);
        default:
          return j.angle.at(e);
      }
    };
    // One copy of the symbols for both neighbours in t, into a scratch of the thread (no
    // allocation once its size is set).
    static thread_local Env<S> shifted;
    shifted = env;
    shifted.set_time(env.t + h);
    f = f_of(env);
    const S fp = f_of(shifted);
    shifted.set_time(env.t - h);
    const S fm = f_of(shifted);
    rate = (fp - fm) / (2.0 * h);
    acceleration = (fp - 2.0 * f + fm) / (h * h);
    if constexpr (!std::is_same_v<S, double>) {
      if (exact_values) {
        rate.value() = values[1];
        acceleration.value() = values[2];
      }
    }
  }
  if (j.kind == JointKind::kAngleDriver) {
    rows.relative_angle(0, f);
  } else if (j.kind == JointKind::kTranslationalDriver) {
    // e' (r_Pb - r_Pa) - f(t) = 0 with e along the axis.
    const S ax = j.axis.at(env);
    using std::cos;
    using std::sin;
    rows.along(0, cos(ax), sin(ax), wa, wb);
    out.phi[0] -= f;
  } else {
    rows.coordinate(j.coordinate, f);
  }
  out.phi_t[0] = -rate;
  out.gamma[0] += acceleration;
}

// The equations of one joint at (t, q, q'): its rows of Phi, Phi_q, Phi_t and gamma.
template <class S>
void joint_terms(const Joint& j, const S* q, const S* qd, const Env<S>& env, JointTerms<S>& out) {
  for (int k = 0; k < j.equations(); ++k) {
    out.phi[k] = C<S>(0.0);
    out.phi_t[k] = C<S>(0.0);
    out.gamma[k] = C<S>(0.0);
    for (int c = 0; c < 6; ++c) out.phi_q[k][c] = S(0.0);  // for AD: no derivative vector yet
  }
  JointRows<S> rows(j, q, qd, env, out);
  const S wa = omega(j.a, qd), wb = omega(j.b, qd);
  switch (j.kind) {
    case JointKind::kRevolute:
      rows.coincide(0, wa, wb);
      break;
    case JointKind::kTranslational: {
      // theta_b - theta_a - angle = 0, and n' (r_Pb - r_Pa) = 0 with n normal to the axis.
      rows.relative_angle(0, j.angle.at(env));
      const S ax = j.axis.at(env);
      using std::cos;
      using std::sin;
      rows.along(1, -sin(ax), cos(ax), wa, wb);
      break;
    }
    case JointKind::kAngleDriver:
    case JointKind::kTranslationalDriver:
    case JointKind::kDriver:
      driver_terms(j, env, wa, wb, rows, out);
      break;
    case JointKind::kFixed:
      rows.coincide(0, wa, wb);
      rows.relative_angle(2, j.angle.at(env));
      break;
  }
}

// Row k of a joint in the stabilised acceleration equations: gamma - 2 alpha Phi' - beta^2
// Phi, with Phi' = Phi_q q' + Phi_t (Baumgarte's alpha and beta).
template <class S>
S stabilised_gamma(const Joint& j, const JointTerms<S>& terms, int k, const S* qd, double alpha,
                   double beta) {
  S phi_dot = terms.phi_t[k];
  for_each_column(j.a, j.b,
                  [&](int local, int col) { phi_dot += terms.phi_q[k][local] * qd[col]; });
  return terms.gamma[k] - (2.0 * alpha) * phi_dot - (beta * beta) * terms.phi[k];
}

// Length, its rate, the tension and the unit vector from Pa to Pb of a spring-damper.
template <class S>
void spring_state(const Force& f, const S* q, const S* qd, const Env<S>& env, S& length,
                  S& velocity, S& tension, S& ux, S& uy) {
  using std::sqrt;
  auto where = [&](const Point& pt, S& x, S& y, S& vx, S& vy) {
    const Pose<S> ps = pose(pt.body, q);
    const S u = pt.u.at(env), w = pt.v.at(env);
    const S asx = ps.c * u - ps.s * w, asy = ps.s * u + ps.c * w;
    x = ps.x + asx;
    y = ps.y + asy;
    const S om = omega(pt.body, qd);
    vx = (pt.body >= 0 ? qd[3 * pt.body] : C<S>(0.0)) - asy * om;
    vy = (pt.body >= 0 ? qd[3 * pt.body + 1] : C<S>(0.0)) + asx * om;
  };
  S xa, ya, vxa, vya, xb, yb, vxb, vyb;
  where(f.pa, xa, ya, vxa, vya);
  where(f.pb, xb, yb, vxb, vyb);
  const S dx = xb - xa, dy = yb - ya;
  length = sqrt(dx * dx + dy * dy);
  if (value_of(length) == 0.0)
    throw std::runtime_error("spring-damper " + f.name + " has zero length");
  ux = dx / length;
  uy = dy / length;
  velocity = ux * (vxb - vxa) + uy * (vyb - vya);
  const S d = length - f.length.at(env);
  tension = f.stiffness.at(env) * d + f.damping.at(env) * velocity + f.preload.at(env);
  if (f.has_damper) {
    // Rebound (extension, v > 0) or compression stage, weighted by a function of d.
    const Quantity* b = value_of(velocity) > 0.0 ? f.rebound : f.compression;
    tension += f.weight.at(env, {d}) *
               damper_stage(velocity, b[0].at(env), b[1].at(env), b[2].at(env), b[3].at(env));
  }
  if (f.has_law) tension += f.law.at(env, {d, velocity});
}

// The states a point force's or a torque's quantities may read: x, y, theta, vx, vy, omega of
// its body a (when not the ground), then of its body b.
template <class S>
std::vector<S> force_states(const Force& f, const S* q, const S* qd) {
  std::vector<S> out;
  for (const int body : {f.a, f.b}) {
    if (body < 0) continue;
    for (int c = 0; c < 3; ++c) out.push_back(q[3 * body + c]);
    for (int c = 0; c < 3; ++c) out.push_back(qd[3 * body + c]);
  }
  return out;
}

// The generalised forces of a force element on its bodies a (fa: x, y, theta) and b (fb).
// Signs: a spring-damper's tension (k d + c v + preload + law + damper, d = length - free
// length, v = length') pulls its points together when positive; a rotational spring-damper's
// moment k (theta_b - theta_a - angle) + c (omega_b - omega_a) + preload turns body b
// clockwise (negative) and body a counter-clockwise when positive; a point force (fx, fy)
// acts along +x, +y of the world (or of the body's frame, body-fixed); a torque turns body b
// counter-clockwise when positive, and body a the other way.
template <class S>
void force_terms(const Force& f, const S* q, const S* qd, const Env<S>& env, S* fa, S* fb) {
  for (int c = 0; c < 3; ++c) fa[c] = fb[c] = C<S>(0.0);
  // A force (fx, fy) at point pt: Q_R += F, Q_theta += (B s)' F.
  auto apply = [&](const Point& pt, S* to, const S& fx, const S& fy) {
    if (pt.body < 0) return;
    const Pose<S> ps = pose(pt.body, q);
    const S u = pt.u.at(env), w = pt.v.at(env);
    const S bsx = -(ps.s * u + ps.c * w), bsy = ps.c * u - ps.s * w;
    to[0] += fx;
    to[1] += fy;
    to[2] += bsx * fx + bsy * fy;
  };
  switch (f.kind) {
    case ForceKind::kSpringDamper: {
      S length, velocity, tension, ux, uy;
      spring_state(f, q, qd, env, length, velocity, tension, ux, uy);
      apply(f.pa, fa, tension * ux, tension * uy);
      apply(f.pb, fb, -tension * ux, -tension * uy);
      break;
    }
    case ForceKind::kRotational: {
      const S ta = f.a >= 0 ? q[3 * f.a + 2] : C<S>(0.0),
              tb = f.b >= 0 ? q[3 * f.b + 2] : C<S>(0.0);
      const S torque = f.stiffness.at(env) * (tb - ta - f.length.at(env)) +
                       f.damping.at(env) * (omega(f.b, qd) - omega(f.a, qd)) + f.preload.at(env);
      fb[2] -= torque;
      fa[2] += torque;
      break;
    }
    case ForceKind::kPointForce: {
      const std::vector<S> states = force_states(f, q, qd);
      const S fx = f.fx.at(env, states), fy = f.fy.at(env, states);
      if (!f.body_fixed) {
        apply(f.pb, fb, fx, fy);
        break;
      }
      const Pose<S> ps = pose(f.b, q);  // A (fx, fy): the body's frame in the world
      apply(f.pb, fb, ps.c * fx - ps.s * fy, ps.s * fx + ps.c * fy);
      break;
    }
    case ForceKind::kTorque: {
      const S torque = f.torque.at(env, force_states(f, q, qd));
      fb[2] += torque;
      fa[2] -= torque;
      break;
    }
  }
}

// A body's masses (m, m, inertia) and weight (m gx, m gy) under gravity (gx, gy).
template <class S>
void body_terms(const Body& b, const Quantity& gx, const Quantity& gy, const Env<S>& env, S* mass,
                S* weight) {
  const S m = b.mass.at(env);
  mass[0] = m;
  mass[1] = m;
  mass[2] = b.inertia.at(env);
  weight[0] = m * gx.at(env);
  weight[1] = m * gy.at(env);
}

// Component c (x, y, vx, vy, ax, ay) of a marked point's global motion.
template <class S>
S marker(const Marker& mk, int c, const S* q, const S* qd, const S* qdd, const Env<S>& env) {
  const int b = mk.at.body;
  const S u = mk.at.u.at(env), w = mk.at.v.at(env);
  if (b < 0) return c == 0 ? u : (c == 1 ? w : C<S>(0.0));
  const Pose<S> ps = pose(b, q);
  const S asx = ps.c * u - ps.s * w, asy = ps.s * u + ps.c * w;  // A s; B s = (-asy, asx)
  const S om = qd[3 * b + 2];
  switch (c) {
    case 0:
      return ps.x + asx;
    case 1:
      return ps.y + asy;
    case 2:
      return qd[3 * b] - asy * om;
    case 3:
      return qd[3 * b + 1] + asx * om;
    case 4:
      return qdd[3 * b] - asy * qdd[3 * b + 2] - asx * om * om;
    default:
      return qdd[3 * b + 1] + asx * qdd[3 * b + 2] - asy * om * om;
  }
}

}  // namespace sao::sim::multibody
