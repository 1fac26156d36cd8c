// Internals of the sled model shared by model.cpp and airbag.cpp (not part of the interface).
#pragma once

#include <Eigen/Dense>
#include <limits>
#include <vector>

#include "restraint.hpp"

namespace restraint::detail {

using Vec2 = Eigen::Vector2d;  // (x forward, z up) in the vehicle
using Jac = Eigen::Matrix<double, 2, 4>;

// Generalized coordinates q = (pelvis x, torso angle, head angle, chest deflection); angles
// from the vertical, positive forward.
inline Vec2 up(double angle) {
  return {std::sin(angle), std::cos(angle)};
}
inline Vec2 forward(double angle) {
  return {std::cos(angle), -std::sin(angle)};
}
// d r / d angle of a vector r turning with a body.
inline Vec2 turned(const Vec2& r) {
  return {r.y(), -r.x()};
}

// A point of the occupant: position, Jacobian d pos / d q and the velocity term dJ/dt qdot.
struct Point {
  Vec2 pos = Vec2::Zero();
  Jac jac = Jac::Zero();
  Vec2 bias = Vec2::Zero();
};

// A circle of the occupant's outline that the bag face and the wheel can touch.
struct Circle {
  Vec2 centre;
  double radius;
  double width;  // out of the plane, m: the contact patch's extent
};

// A force on the occupant at a point given by its Jacobian.
struct Load {
  Jac jac;
  Vec2 force;
};

// The airbag: a control volume whose face is a row of nodes across the bag; a node in contact
// stops on the head or chest outline and carries the bag pressure on its strip onto it.
class Airbag {
 public:
  Airbag(const Deck& deck, Vec2 hub, Vec2 axis);
  // Advances the face and the gas by dt at time t against the head and chest outlines; the
  // loads on them come out through head_loads (points) and chest_force.
  void step(double t, double dt, const Circle& head, const Circle& chest);
  struct Contact {
    Vec2 point;  // on the face, in the vehicle
    Vec2 force;
  };
  const std::vector<Contact>& head_contacts() const { return head_; }
  const Vec2& chest_force() const { return chest_; }
  double gauge() const { return gauge_; }
  const Gas& gas() const { return gas_; }
  int contact_changes() const { return changes_; }
  int folds_opened() const { return folds_; }
  double initial_air() const { return initial_air_; }

 private:
  double geometry(const Circle& head, const Circle& chest, double dt, double* free_area);
  double entry(const Circle& c, double y) const;
  // Penalty contact of face node j (its strip of `area` m^2) with the head skin, whose surface
  // lies at depth `surface` along the axis: advances the node by dt and returns its depth.
  double skin_contact(int j, double area, double surface, double dt, bool entering);
  Vec2 hub_, axis_, lateral_;
  double radius_, depth_, vent_area_, mass_, fire_;
  int nodes_;
  double z_ = 0.0, zdot_ = 0.0, volume_ = 0.0, gauge_ = 0.0, initial_air_ = 0.0;
  Gas gas_;
  std::vector<int> touching_;
  std::vector<int> found_;  // per node: the body the last contact search found it on (0: none)
  // Nodes on the head: depth along the axis, its rate, the skin surface's depth a step ago and
  // the contact force (N, along the axis).
  std::vector<double> depth_of_, rate_of_, surface_of_, skin_force_;
  long steps_ = 0;
  std::vector<Contact> head_;
  Vec2 chest_ = Vec2::Zero();
  int changes_ = 0, folds_ = 0;
};

}  // namespace restraint::detail
