// The sled test of restraint-sled: a planar occupant (pelvis translation, torso and head
// rotations, chest deflection) in a decelerating sled, held by a 3-point belt, an airbag and,
// when those are not enough, the steering wheel; explicit integration (semi-implicit Euler).
#include "model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace restraint {

using detail::Circle;
using detail::Jac;
using detail::Point;
using detail::Vec2;

namespace {

constexpr double kG = 9.81;
// Occupant (a 50th-percentile male, lumped): masses [kg], inertias [kg m^2], lengths [m].
constexpr double kPelvisMass = 32.0, kTorsoMass = 34.0, kTorsoInertia = 1.2;
constexpr double kChestMass = 4.0, kHeadMass = 4.5, kHeadInertia = 0.025;
constexpr double kTorsoCg = 0.30, kNeck = 0.60, kChestHeight = 0.40, kChestDepth = 0.12;
constexpr double kHeadCg = 0.12, kHeadRadius = 0.10, kChestRadius = 0.15;
constexpr double kTorsoStart = -0.35, kHeadStart = -0.10;  // rad, reclined seat
// Joints and chest: lumbar and neck rotational springs [Nm/rad], dampers [Nms/rad].
constexpr double kLumbar = 200.0, kLumbarDamping = 15.0, kNeckStiffness = 60.0;
constexpr double kNeckDamping = 1.0, kStop = 2000.0, kStopAngle = 1.0;
constexpr double kChestStiffness = 1.6e5, kChestCubic = 2.0e7, kChestDamping = 1000.0;
// Vehicle: belt anchors, steering wheel (hub, column axis towards the driver, rim radius).
const Vec2 kDring{-0.28, 0.72}, kBuckle{-0.10, -0.05}, kLapAnchor{-0.20, -0.12};
const Vec2 kHub{0.32, 0.45}, kAxis{-0.9063, 0.4226};
constexpr double kRim = 0.19, kHubStiffness = 5.0e5, kRimStiffness = 1.0e5;
constexpr double kWebbingExtra = 0.9, kShoulderSlack = 0.015, kLapSlack = 0.01;  // m
constexpr double kBagOnChest = 0.3;  // share of the bag's chest load on the chest deflection
constexpr double kSeatFriction = 0.4, kKnee = 0.10, kKneeStiffness = 1.5e5;

struct Kinematics {
  Point pelvis, torso, chest, head, spine;
  Circle head_outline, chest_outline;
};

// Points of the occupant from the state (q, v).
Kinematics kinematics(const Eigen::Vector4d& q, const Eigen::Vector4d& v) {
  Kinematics k;
  const Vec2 hip{q(0), 0.0};
  const Vec2 ut = detail::up(q(1)), nt = detail::forward(q(1)), uh = detail::up(q(2));
  const Vec2 nh = detail::forward(q(2));
  const double wt = v(1), wh = v(2), dd = v(3), rc = kChestDepth - q(3);
  auto on_torso = [&](double along) {
    Point p;
    p.pos = hip + along * ut;
    p.jac.col(0) = Vec2{1, 0};
    p.jac.col(1) = along * nt;
    p.bias = -along * wt * wt * ut;
    return p;
  };
  k.pelvis.pos = hip;
  k.pelvis.jac.col(0) = Vec2{1, 0};
  k.torso = on_torso(kTorsoCg);
  k.spine = on_torso(kChestHeight);
  k.chest = on_torso(kChestHeight);
  k.chest.pos += rc * nt;
  k.chest.jac.col(1) += -rc * ut;
  k.chest.jac.col(3) = -nt;
  k.chest.bias += 2.0 * dd * wt * ut - rc * wt * wt * nt;
  k.head = on_torso(kNeck);
  k.head.pos += kHeadCg * uh;
  k.head.jac.col(2) = kHeadCg * nh;
  k.head.bias += -kHeadCg * wh * wh * uh;
  k.head_outline = {k.head.pos, kHeadRadius, 0.16};
  k.chest_outline = {k.chest.pos - kChestRadius * nt, kChestRadius, 0.32};
  return k;
}

// Jacobian of a point fixed to the head at `at`.
Jac head_point(const Eigen::Vector4d& q, const Vec2& at) {
  Jac j = Jac::Zero();
  const Vec2 neck = Vec2{q(0), 0.0} + kNeck * detail::up(q(1));
  j.col(0) = Vec2{1, 0};
  j.col(1) = kNeck * detail::forward(q(1));
  j.col(2) = detail::turned(at - neck);
  return j;
}

// Penalty contact of a circle with a point of the vehicle: the force on the circle.
Vec2 point_contact(const Circle& c, const Vec2& at, double stiffness) {
  const Vec2 d = c.centre - at;
  const double pen = c.radius - d.norm();
  return pen > 0 ? Vec2(stiffness * pen * d.normalized()) : Vec2::Zero();
}

struct Belts {
  Retractor retractor;
  double shoulder_free = 0.0, lap_free = 0.0, strain10 = 0.09, tension = 0.0;
};

double shoulder_length(const Vec2& chest) {
  return (kDring - chest).norm() + (kBuckle - chest).norm() + kWebbingExtra;
}

double lap_length(const Vec2& pelvis) {
  return (kLapAnchor - pelvis).norm() + kWebbingExtra;
}

}  // namespace

namespace detail {

// One step of the occupant: forces, accelerations, integration. Records the raw channels.
struct Sled {
  const Deck& deck;
  Eigen::Vector4d q{0.0, kTorsoStart, kHeadStart, 0.0}, v = Eigen::Vector4d::Zero();
  Belts belts;
  Airbag bag;
  double head_acc = 0, chest_acc = 0, hub_distance = 0;

  explicit Sled(const Deck& d) : deck(d), bag(d, kHub, kAxis) {
    const Kinematics k = kinematics(q, v);
    belts.shoulder_free = shoulder_length(k.chest.pos) + kShoulderSlack;
    belts.lap_free = lap_length(k.pelvis.pos) + kLapSlack;
    belts.strain10 = d.webbing_strain;
    belts.retractor.pull_in = d.pretensioner;
    belts.retractor.limit_force = 1000.0 * d.load_limiter;
    belts.retractor.lock_stiffness = d.lock_stiffness;
  }

  void step(double t, double dt) {
    const Kinematics k = kinematics(q, v);
    const double av = pulse_deceleration(deck, t);
    bag.step(t, dt, k.head_outline, k.chest_outline);
    Eigen::Matrix4d mass = Eigen::Matrix4d::Zero();
    Eigen::Vector4d gen = Eigen::Vector4d::Zero();
    auto body = [&](const Point& p, double m, const Vec2& force) {
      mass += m * p.jac.transpose() * p.jac;
      gen += p.jac.transpose() * (force + m * Vec2{av, 0.0} - m * p.bias);
    };
    body(k.pelvis, kPelvisMass, pelvis_force(k));
    body(k.torso, kTorsoMass, Vec2::Zero());
    // The bag spreads its load over the thorax: only part of it compresses the chest.
    gen += k.spine.jac.transpose() * ((1.0 - kBagOnChest) * bag.chest_force());
    body(k.chest, kChestMass, chest_force(t, dt, k));
    body(k.head, kHeadMass, point_contact(k.head_outline, kHub, kHubStiffness));
    mass(1, 1) += kTorsoInertia;
    mass(2, 2) += kHeadInertia;
    for (const auto& c : bag.head_contacts()) gen += head_point(q, c.point).transpose() * c.force;
    gen += joint_forces();
    const Eigen::Vector4d acc = mass.ldlt().solve(gen);
    const Vec2 vehicle{-av, 0.0};
    head_acc = (k.head.jac * acc + k.head.bias + vehicle).norm() / kG;
    chest_acc = (k.spine.jac * acc + k.spine.bias + vehicle).norm() / kG;
    hub_distance = (k.head.pos - kHub).norm() - kHeadRadius;
    v += dt * acc;
    q += dt * v;
  }

  // Seat friction, knee bolster and lap belt on the pelvis.
  Vec2 pelvis_force(const Kinematics& k) {
    const double normal = (kPelvisMass + kTorsoMass + kChestMass) * kG;
    double fx = -kSeatFriction * normal * std::tanh(v(0) / 0.01);
    const double knee = q(0) - kKnee;
    if (knee > 0) fx -= std::max(0.0, kKneeStiffness * knee + 2000.0 * v(0));
    const double lap = lap_length(k.pelvis.pos);
    const double tension = webbing_tension((lap - belts.lap_free) / belts.lap_free, belts.strain10);
    return Vec2{fx, 0.0} + tension * (kLapAnchor - k.pelvis.pos).normalized();
  }

  // Shoulder belt, airbag and wheel rim on the chest.
  Vec2 chest_force(double t, double dt, const Kinematics& k) {
    const Vec2 c = k.chest.pos;
    belts.tension =
        belts.retractor.step(t, dt, shoulder_length(c), belts.shoulder_free, belts.strain10);
    Vec2 f = belts.tension * ((kDring - c).normalized() + (kBuckle - c).normalized());
    f += kBagOnChest * bag.chest_force();
    for (double side : {-1.0, 1.0}) {
      const Vec2 rim = kHub + side * kRim * Vec2{kAxis.y(), -kAxis.x()};
      f += point_contact(k.chest_outline, rim, kRimStiffness);
    }
    return f;
  }

  // Lumbar and neck springs with stops, the chest's spring and damper.
  Eigen::Vector4d joint_forces() const {
    auto joint = [](double angle, double rate, double k, double c) {
      double torque = -k * angle - c * rate;
      if (std::abs(angle) > kStopAngle)
        torque -= kStop * (angle - std::copysign(kStopAngle, angle));
      return torque;
    };
    Eigen::Vector4d g = Eigen::Vector4d::Zero();
    g(1) = joint(q(1) - kTorsoStart, v(1), kLumbar, kLumbarDamping);
    const double neck =
        joint(q(2) - q(1) - (kHeadStart - kTorsoStart), v(2) - v(1), kNeckStiffness, kNeckDamping);
    g(2) += neck;
    g(1) -= neck;
    const double d = q(3);
    g(3) = -(kChestStiffness * d + kChestCubic * d * d * d + kChestDamping * v(3));
    return g;
  }
};

}  // namespace detail

namespace {

// Filters a raw channel sampled every dt and keeps every `stride`-th value.
std::vector<double> channel(const std::vector<double>& raw, double dt, double cfc, int stride) {
  const std::vector<double> f = cfc > 0 ? cfc_filter(raw, dt, cfc) : raw;
  std::vector<double> out;
  for (size_t k = 0; k < f.size(); k += static_cast<size_t>(stride)) out.push_back(f[k]);
  return out;
}

}  // namespace

Histories simulate(const Deck& deck) {
  check_deck(deck);
  detail::Sled sled(deck);
  const double dt = deck.time_step;
  const int steps = static_cast<int>(std::lround(deck.end_time / dt));
  const int stride = static_cast<int>(std::lround(deck.output_step / dt));
  std::vector<double> head, chest, defl, belt, hub;
  Histories h;
  for (int n = 0; n <= steps; ++n) {
    const double t = n * dt;
    sled.step(t, dt);
    if (!sled.q.allFinite() || !sled.v.allFinite() || std::abs(sled.q(0)) > 2.0 ||
        !std::isfinite(sled.bag.gauge()) || sled.q(3) > kChestDepth) {
      throw std::runtime_error("solution diverged at t = " + std::to_string(t) + " s (step " +
                               std::to_string(n) + ")");
    }
    head.push_back(sled.head_acc);
    chest.push_back(sled.chest_acc);
    defl.push_back(1000.0 * sled.q(3));
    belt.push_back(sled.belts.tension / 1000.0);
    hub.push_back(1000.0 * sled.hub_distance);
    h.peak_pressure = std::max(h.peak_pressure, sled.bag.gauge());
    h.pretension_pulled = std::max(h.pretension_pulled, -sled.belts.retractor.payout);
  }
  for (int n = 0; n <= steps; n += stride) h.time.push_back(n * dt);
  h.head_acc = channel(head, dt, 1000.0, stride);
  h.chest_acc = channel(chest, dt, 180.0, stride);
  h.chest_defl = channel(defl, dt, 180.0, stride);
  h.belt_force = channel(belt, dt, 60.0, stride);
  h.head_hub = channel(hub, dt, 180.0, stride);
  h.steps = steps;
  h.contact_changes = sled.bag.contact_changes();
  h.folds_opened = sled.bag.folds_opened();
  const Retractor& r = sled.belts.retractor;
  h.limiter_payout = std::max(0.0, r.payout);
  if (r.lock_time >= 0) {
    h.lock_travel = r.kTooth * std::ceil(r.stop_payout / r.kTooth - 1e-9) - r.stop_payout;
    h.lock_speed = r.lock_speed;
    h.lock_time = r.lock_time;
  }
  h.gas_initial = sled.bag.initial_air();
  h.gas_injected = sled.bag.gas().injected;
  h.gas_vented = sled.bag.gas().vented;
  h.gas_final = sled.bag.gas().mass;
  return h;
}

}  // namespace restraint
