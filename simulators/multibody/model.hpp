// A planar multibody model as data (the model of Pinocchio's model/data split): bodies, joints
// and drivers, force elements, initial conditions, marked points and integrals, each a plain
// struct of quantities (quantity.hpp); parser.hpp builds it from the study's JSON, elements.hpp
// gives the equations of each element, kinematics.hpp and dynamics.hpp assemble them.
#pragma once

#include <math.h>  // before pchip.hpp, which calls isnan unqualified

#include <boost/math/interpolators/pchip.hpp>
#include <memory>
#include <string>
#include <vector>

#include "simulators/multibody/quantity.hpp"

namespace sao::sim::multibody {

// What the equations of one element (a body, a joint, a force) read: the model parameters of
// its quantities, and whether one of them is evaluated at every call (a function of t, of a
// force law's d and v, or of a road's x) and so needs the symbols.
struct Reads {
  std::vector<int> parameters;
  bool live = false;
  void add(const Quantity& q) {
    parameters.insert(parameters.end(), q.parameters.begin(), q.parameters.end());
    live = live || q.live();
  }
  void finish() {
    std::sort(parameters.begin(), parameters.end());
    parameters.erase(std::unique(parameters.begin(), parameters.end()), parameters.end());
  }
};

struct Point {
  int body = -1;  // -1: ground (global coordinates)
  Quantity u, v;
};

// A road profile: height of the road at distance x, a formula of x (and the parameters) or a
// table of (x, height) interpolated by a monotone cubic (PCHIP), constant beyond its ends.
struct Profile {
  std::string name;
  Quantity height;  // formula: over the symbols plus x
  std::shared_ptr<boost::math::interpolators::pchip<std::vector<double>>> table;
  double first = 0.0, last = 0.0;  // the table's range of x
};

// A prescribed motion of time: an expression of t, or a road passing at `speed` that reaches
// x = 0 of the profile `start` metres after t = 0 (x = speed t - start).
struct Motion {
  Quantity value;  // expression of t
  std::vector<Profile> profiles;
  std::string select;           // load-case parameter choosing the profile (1-based)
  double select_default = 0.0;  // its value in a load case that does not give it
  Quantity speed, start;
};

enum class JointKind {
  kRevolute,
  kTranslational,
  kAngleDriver,
  kTranslationalDriver,
  kFixed,
  kDriver
};

struct Joint {
  std::string name;
  JointKind kind;
  int a = -1, b = -1;
  Point pa, pb;
  Quantity axis;      // translational (and its driver): axis angle in a's frame
  Quantity angle;     // angle driver: theta_b - theta_a = f(t); fixed/translational: relative angle
  Quantity distance;  // translational driver: (r_Pb - r_Pa) along the axis = f(t)
  int coordinate = -1;  // kDriver: q[3 b + coordinate] = motion(t)
  Motion motion;        // kDriver
  Reads reads;
  int equations() const {
    switch (kind) {
      case JointKind::kRevolute:
      case JointKind::kTranslational:
        return 2;
      case JointKind::kAngleDriver:
      case JointKind::kTranslationalDriver:
      case JointKind::kDriver:
        return 1;
      case JointKind::kFixed:
        return 3;
    }
    return 0;
  }
};

enum class ForceKind { kSpringDamper, kRotational, kPointForce, kTorque };

struct Force {
  std::string name;
  ForceKind kind;
  int a = -1, b = -1;
  Point pa, pb;
  Quantity stiffness, damping, length, preload;  // rotational: length is the free angle
  Quantity fx, fy;                               // point force (may use t and states)
  bool body_fixed = false;  // point force: (fx, fy) in the body's frame, turning with it
  Quantity torque;          // torque: on body b, counter-clockwise positive; -torque on a
  // Point force and torque: their quantities may read t and the states of the element's own
  // bodies a and b, the extra names <body>_x|y|theta|vx|vy|omega after the symbols
  // (force_states, elements.hpp).
  // spring_damper: a nonlinear law of d = length - free length and its rate v, and the staged
  // damper law (damper_law.hpp) with B0..B3 per stage, times a weight of d.
  bool has_law = false, has_damper = false;
  Quantity law, weight;
  Quantity compression[4], rebound[4];
  Reads reads;
};

// A body's coordinates (x, y, theta) are those of its centre of mass. The study gives its
// points (joints, forces, marked points), position and velocity in its reference frame, whose
// origin may lie apart from the centre ("centre_of_mass": [u, v] in that frame); the parser
// moves them to the centre (Parser::point, Parser::read_centre).
struct Body {
  std::string name;
  Quantity mass, inertia;  // inertia about the centre of mass
  Quantity x, y, angle, vx, vy, omega;
  Reads reads;  // of its mass, inertia and gravity force
};

// One planar beam element (beam.hpp) between two node bodies a and b, whose frames are aligned
// with the beam in the undeformed state: a co-rotational Euler-Bernoulli element.
struct BeamElement {
  std::string beam;  // the chain (Beam) it belongs to
  int a = -1, b = -1;
  Quantity length;                        // undeformed length L0
  Quantity area, second_moment, modulus;  // A, I, E
  Quantity density;                       // rho
  Quantity damping;  // stiffness-proportional Rayleigh coefficient (s): on deformation rates
  Reads reads;       // of the quantities above and gravity
};

// A flexible body: a chain of `elements` beam elements (model.beam_elements[first ..]) over the
// node bodies nodes[0 .. elements], named <name>_<k>.
struct Beam {
  std::string name;
  int first = 0, elements = 0;
  std::vector<int> nodes;
  bool has_section_modulus = false;
  Quantity section_modulus;  // W: the history <name>.stress<k> = M / W
};

struct InitialCondition {
  int body;
  int coordinate;  // 0 x, 1 y, 2 theta
  Quantity value;
  Quantity rate;
};

// A named point of a body whose global position, velocity and acceleration are responses.
struct Marker {
  std::string name;
  Point at;
};

// "integrator": {"type": "variational", "step": h, "tolerance": t}: the fixed-step variational
// integrator (variational.hpp) instead of CVODES; h the largest step (each grid interval is
// cut into equal steps no longer than h), t the Newton tolerance on the step's unknowns.
struct VariationalSettings {
  bool on = false;
  double step = 0.0;
  double tolerance = 1e-10;
  int max_iterations = 25;
};

struct Integral {
  std::string name;
  expr::ProgramPtr integrand;  // of (parameters, t, <body>_<x|y|theta|vx|vy|omega>)
};

inline constexpr const char* kCoordinates[] = {"x",     "y",  "theta", "vx",   "vy",
                                               "omega", "ax", "ay",    "alpha"};
inline constexpr const char* kPointComponents[] = {"x", "y", "vx", "vy", "ax", "ay"};

// The whole model. Bodies are numbered from 0 (the ground is -1); body i has the coordinates
// q[3 i .. 3 i + 2] = (x_i, y_i, theta_i); the constraint rows follow the joints in order.
struct MultibodyModel {
  bool dynamic = true;  // "analysis": "dynamic" (else kinematic)
  std::vector<std::string> parameter_names;
  std::vector<double> parameter_defaults;
  std::vector<std::string> load_names;  // load-case parameters the expressions may use
  std::vector<double> load_defaults;
  std::vector<Body> bodies;
  std::vector<Joint> joints;
  std::vector<Force> forces;
  std::vector<BeamElement> beam_elements;
  std::vector<Beam> beams;
  std::vector<InitialCondition> initial_conditions;
  std::vector<Marker> markers;
  std::vector<Integral> integrals;
  Quantity gx, gy;
  double alpha = 10.0, beta = 10.0;  // Baumgarte stabilisation
  // "coordinates": "independent" (default): integrate in independent coordinates when every
  // constraint equation is linear (reduced.hpp); "absolute": always in (q, q').
  bool reduce = true;
  // "linear_algebra": "auto" (default), "dense" or "sparse": how a run in absolute coordinates
  // factors its augmented system and Newton matrices (Dynamics::sparse), and one in independent
  // coordinates its reduced equations (Reduction::sparse).
  enum class LinearAlgebra { kAuto, kDense, kSparse } linear_algebra = LinearAlgebra::kAuto;
  // "jacobian_age": "auto" (-1, default) or N >= 0: the oldest Jacobian and Newton matrix CVODES
  // may use, in steps (OdeSystem::jacobian_age; 0: CVODES's defaults, 51 and 20 steps and
  // whenever Newton fails). "auto": 1 for a model with beam elements, else CVODES's defaults.
  long jacobian_age = -1;
  VariationalSettings variational;
  bool has_max_step = false;
  Quantity max_step;  // of the load-case parameters (and the parameters' defaults)
  std::vector<std::string> history_names;
  expr::Symbols symbols;  // parameters, t, load-case parameters
  // The programs of the quantities that depend on the parameters only (Quantity::frozen).
  std::vector<expr::ProgramPtr> frozen;

  int nq() const { return 3 * static_cast<int>(bodies.size()); }
  int n_constraints() const {
    int m = 0;
    for (const Joint& j : joints) m += j.equations();
    return m;
  }
};

}  // namespace sao::sim::multibody
