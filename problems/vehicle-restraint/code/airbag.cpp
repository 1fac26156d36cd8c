// The airbag of restraint-sled: inflator, vent and gas energy balance in a control volume
// whose occupant face is a row of nodes; a node stops where it meets the chest outline and
// carries the bag pressure on its strip of face onto it, and on the head it is a fabric mass
// in penalty contact with the head skin, whose contact force loads the head.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "model.hpp"

namespace restraint::detail {

namespace {
constexpr double kFolded = 7.0e-4;     // m^3, the folded bag in its 14 x 10 x 5 cm module
constexpr double kFaceMass = 0.15;     // kg of fabric moving with the face
constexpr double kFaceDamping = 20.0;  // Ns/m
constexpr int kFolds = 8;              // folds opened one after the other
constexpr double kFoldForce = 150.0;   // N to open a fold (falls to 0 across it)
constexpr double kTether = 2.0e5;      // N/m beyond the full depth
constexpr double kDepthRatio = 0.4;    // full depth / diameter
// Contact search (as crash codes do it, for speed): every kSearchInterval steps each face node
// is tested against the outlines; in between, a node keeps the contact state of the last
// search, so a node that reaches a body between two searches passes into it (and pushes
// nothing) until the next one, and a node found in contact stays on the body until then.
constexpr int kSearchInterval = 100;
// Head contact (node to surface, penalty): a face node found on the head is a mass of fabric
// (with the gas layer moving with it) pushed by the bag pressure on its strip and held by the
// head skin, a penalty spring per m^2 of strip (a 12 mm vinyl skin of 1.5 MPa) with damping
// at a fraction of critical. Its contact force, not the pressure, loads the head: the fabric
// rings on the skin at sqrt(k/rho)/2pi = 2.5 kHz, inside the CFC 1000 band of the head channel.
constexpr double kFabricAreal = 0.5;       // kg/m^2
constexpr double kSkinStiffness = 1.23e8;  // N/m^3: Pa of contact pressure per m of penetration
constexpr double kSkinDamping = 0.25;      // fraction of critical
constexpr double kMaxPenetration = 0.02;   // m, deepest start of a node found in the skin
constexpr double kMaxSurfaceRate = 30.0;   // m/s: faster, the skin's depth jumped
}  // namespace

Airbag::Airbag(const Deck& deck, Vec2 hub, Vec2 axis)
    : hub_(hub),
      axis_(axis),
      lateral_(axis.y(), -axis.x()),
      radius_(deck.diameter / 2.0),
      depth_(kDepthRatio * deck.diameter),
      vent_area_(std::numbers::pi * deck.vent_diameter * deck.vent_diameter / 4.0),
      mass_(deck.inflator_mass),
      fire_(deck.fire_time),
      nodes_(deck.face_nodes),
      touching_(nodes_, 0),
      found_(nodes_, 0),
      depth_of_(nodes_, 0.0),
      rate_of_(nodes_, 0.0),
      surface_of_(nodes_, 0.0),
      skin_force_(nodes_, 0.0) {
  if (lateral_.y() < 0) lateral_ = -lateral_;
  volume_ = kFolded;
  gas_.fill(volume_);
  initial_air_ = gas_.mass;
}

// Depth along the axis at which the line through the face node at lateral offset y meets the
// circle (infinity when it misses it or the circle lies behind the hub; 0 when it covers
// the hub).
double Airbag::entry(const Circle& c, double y) const {
  const Vec2 w = hub_ + y * lateral_ - c.centre;
  const double b = w.dot(axis_);
  const double disc = b * b - (w.squaredNorm() - c.radius * c.radius);
  if (disc < 0) return std::numeric_limits<double>::infinity();
  const double root = std::sqrt(disc);
  if (-b + root < 0) return std::numeric_limits<double>::infinity();
  return std::max(0.0, -b - root);
}

double Airbag::skin_contact(int j, double area, double surface, double dt, bool entering) {
  if (entering) {
    // Found on the head at this search: where the face put it, past the skin if it passed into
    // the head since the last search (the penalty force pushes it out), but at most
    // kMaxPenetration deep (deeper, the search puts it there).
    depth_of_[j] = std::isfinite(surface) ? std::min(z_, surface + kMaxPenetration) : z_;
    rate_of_[j] = zdot_;
    surface_of_[j] = surface;
  }
  const bool on = std::isfinite(surface);
  if (area <= 0) {  // the face's edge node: no strip, no mass; it only marks the outline
    skin_force_[j] = 0.0;
    depth_of_[j] = on ? std::min(z_, surface) : z_;
    rate_of_[j] = zdot_;
    surface_of_[j] = surface;
    return depth_of_[j];
  }
  const double mass = kFabricAreal * area, stiffness = kSkinStiffness * area;
  // The skin's rate along the axis; a jump of the line's entry point (the line leaving the
  // outline or passing the hub) is no motion of the head.
  double surface_rate = on && std::isfinite(surface_of_[j]) ? (surface - surface_of_[j]) / dt : 0.0;
  if (std::abs(surface_rate) > kMaxSurfaceRate) surface_rate = 0.0;
  surface_of_[j] = surface;
  const double penetration = on ? depth_of_[j] - surface : -1.0;
  const double damping = 2.0 * kSkinDamping * std::sqrt(stiffness * mass);
  skin_force_[j] =
      penetration > 0
          ? std::max(0.0, stiffness * penetration + damping * (rate_of_[j] - surface_rate))
          : 0.0;
  rate_of_[j] += dt * (gauge_ * area - skin_force_[j]) / mass;
  depth_of_[j] += dt * rate_of_[j];
  if (depth_of_[j] > z_) {  // the face holds it: no node beyond the free face
    depth_of_[j] = z_;
    rate_of_[j] = std::min(rate_of_[j], zdot_);
  }
  if (depth_of_[j] < 0) {  // nor behind the module it comes out of
    depth_of_[j] = 0;
    rate_of_[j] = std::max(rate_of_[j], 0.0);
  }
  return depth_of_[j];
}

// Volume of the bag with the free face at depth z_ and the nodes in contact stopped on the
// occupant (on the chest where they meet it, on the head where the skin holds them); fills the
// contact loads (the skin forces on the head, the gauge pressure on the chest's strips) and
// returns the volume.
double Airbag::geometry(const Circle& head, const Circle& chest, double dt, double* free_area) {
  // The face spreads as it deploys: its nodes slide across the occupant as well.
  const double r = radius_ * (0.4 + 0.6 * std::min(1.0, z_ / depth_));
  const double dy = 2.0 * r / (nodes_ - 1);
  const bool search = steps_++ % kSearchInterval == 0;
  double volume = kFolded;
  *free_area = 0.0;
  head_.clear();
  chest_.setZero();
  for (int j = 0; j < nodes_; ++j) {
    const double y = -r + j * dy;
    const double weight = (j == 0 || j == nodes_ - 1) ? 0.5 : 1.0;
    const double chord = 2.0 * std::sqrt(std::max(0.0, r * r - y * y));
    const double s_head = entry(head, y), s_chest = entry(chest, y);
    if (search) found_[j] = std::min(s_head, s_chest) >= z_ ? 0 : (s_head <= s_chest ? 1 : 2);
    const int who = found_[j];
    const double strip = weight * dy * std::min(chord, (who == 1 ? head : chest).width);
    const double s = who == 0   ? z_
                     : who == 2 ? std::min(z_, s_chest)
                                : skin_contact(j, strip, s_head, dt, touching_[j] != 1);
    if (who != touching_[j]) ++changes_;
    touching_[j] = who;
    volume += weight * dy * chord * s;
    if (who == 0) {
      *free_area += weight * dy * chord;
    } else if (who == 1) {
      head_.push_back({hub_ + s * axis_ + y * lateral_, skin_force_[j] * axis_});
    } else {
      chest_ += gauge_ * strip * axis_;
    }
  }
  return volume;
}

void Airbag::step(double t, double dt, const Circle& head, const Circle& chest) {
  double free_area = 0.0;
  const double volume = geometry(head, chest, dt, &free_area);
  gas_.step(dt, inflator_flow(mass_, fire_, t), vent_area_, volume_, volume);
  volume_ = volume;
  gauge_ = std::max(0.0, gas_.pressure(volume_) - Gas::kAmbient);
  // The face: pressure on its free part, the fold being opened, the tether at full depth.
  const double fold_length = depth_ / kFolds;
  const int fold = static_cast<int>(z_ / fold_length);
  double resist = kFaceDamping * zdot_;
  if (fold < kFolds && zdot_ > 0) {
    resist += kFoldForce * (1.0 - (z_ - fold * fold_length) / fold_length);
    folds_ = std::max(folds_, fold + 1);
  }
  if (z_ > depth_) resist += kTether * (z_ - depth_) + (zdot_ > 0 ? 200.0 * zdot_ : 0.0);
  zdot_ += dt * (gauge_ * free_area - resist) / kFaceMass;
  z_ += dt * zdot_;
  if (z_ < 0) {
    z_ = 0;
    zdot_ = std::max(0.0, zdot_);
  }
}

}  // namespace restraint::detail
