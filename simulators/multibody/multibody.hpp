// Planar multibody models described in the study (seed 003, chapter 4; seeds 001, 002).
//
// The simulator section holds the model:
//   "model": "multibody",
//   "multibody": {
//     "analysis": "dynamic" | "kinematic",
//     "parameters": {"l1": 1.0, "m1": 1.0},        // names the study maps design variables to
//     "load_parameters": {"road": 1, "speed": 15},  // read from each load case's parameters
//     "gravity": [0, -9.81],
//     "bodies": [{"name": "crank", "mass": "m1", "inertia": "m1*l1^2/12",
//                 "position": [x, y], "angle": th, "velocity": [vx, vy], "angular_velocity": w}],
//     "joints": [{"type": "revolute", "name": "A", "bodies": ["ground", "crank"],
//                 "points": [[0, 0], ["-l1/2", 0]]},
//                {"type": "translational", "bodies": ["ground", "slider"], "points": [...],
//                 "axis": 0},                        // axis angle in the first body's frame
//                {"type": "angle_driver", "bodies": ["ground", "crank"], "angle": "b8 + t*pi/180"},
//                {"type": "translational_driver", "bodies": ["arm", "slider"], "points": [...],
//                 "axis": 0, "distance": "0.4 + 0.1*t"},  // along the axis, Pa to Pb
//                {"type": "fixed", "bodies": ["ground", "base"]},
//                {"type": "driver", "body": "plate", "coordinate": "y",  // x, y or angle
//                 "motion": "0.1*sin(t)" | {"road": [{"name": "hump", "height": "formula of x"},
//                                                    {"name": "rails", "table": [[x, h], ...]}],
//                                           "select": "road", "speed": "speed/3.6",
//                                           "start": 1}}],
//     "forces": [{"type": "spring_damper", "bodies": [...], "points": [...],
//                 "stiffness": k, "damping": c, "length": l0, "force": f0,
//                 "law": "k3*d^3 + c2*v*abs(v)",       // of d = length - l0 and v = length'
//                 "damper": {"compression": [B0, B1, B2, B3], "rebound": [B0, B1, B2, B3],
//                            "weight": "min(1, max(0, (-0.04 - d)/0.01))"}},
//                {"type": "rotational_spring_damper", "bodies": [...], "stiffness": k,
//                 "damping": c, "angle": th0},
//                {"type": "point_force", "body": "crank", "point": [u, v], "force": [fx, fy]}],
//     "initial": [{"body": "rod", "angle": 0.5236}],  // held while assembling (dynamic)
//     "integrals": [{"name": "psi", "integrand": "(slider_x - 2.5)^2"}],
//     "baumgarte": {"alpha": 10, "beta": 10},
//     "coordinates": "independent" | "absolute",   // reduced.hpp: linear constraints eliminated
//     "linear_algebra": "auto" | "dense" | "sparse", // augmented_solver.hpp, reduced.hpp
//     "max_step": "0.05/(speed/3.6)"               // largest integrator step per load case
//   }
// Every number may be an expression (a string) of the parameters and load-case parameters;
// drivers and point forces may also use the time `t`. A road profile is a formula of x or a
// table interpolated by a monotone cubic (Boost.Math PCHIP, constant beyond its ends), passed
// at `speed` so that x = speed t - start; `select` names the load-case parameter that picks
// the profile (1-based). The damper is the staged law of damper_law.hpp (rebound stage when
// the length grows), times `weight`. Coordinates are Cartesian: body i has (x_i, y_i,
// theta_i) of its reference point; joint points are given in body coordinates (ground: global
// coordinates). Kinematic models need masses only for the reactions (default 0).
//
// A "kinematic" model must be driven (as many constraints as coordinates): at every grid
// point Newton's method solves the position equations (from the previous solution; the first
// from the bodies' rough positions), then velocities, accelerations and, by inverse dynamics
// (Phi_q' lambda = Q - M q''), the joint reactions; its direct and adjoint sensitivities
// (seed 003, 4.15-4.33) differentiate these equations point by point. A "dynamic" model is
// assembled at t0 (constraints plus the "initial" conditions, by Newton), its velocities
// projected onto the constraints, and the equations of motion
//   [M  Phi_q'] [q'']   [Q                                 ]
//   [Phi_q  0 ] [lam] = [gamma - 2 alpha Phi' - beta^2 Phi ]
// (Baumgarte-stabilised) are integrated as an ODE in (q, q') with CVODES; when every
// constraint equation is linear, in independent coordinates instead (reduced.hpp). The equations
// are templates on the scalar type, so direct and adjoint sensitivities (model.hpp) apply.
//
// Responses: histories "<body>.x|y|theta|vx|vy|omega|ax|ay|alpha" (accelerations: dynamic
// models and kinematic ones alike), "<point>.x|y|vx|vy|ax|ay" of the marked "points"
// ({"name", "body", "at": [u, v]}), "<force>.length|velocity|force" of spring-dampers,
// "<joint>.fx|fy|torque": the reaction -Phi_q' lambda of the joint on its second body (on
// the first when the second is the ground), the torque from its angle equation, and
// the "integrals" (integrand: an expression of the parameters, `t` and <body>_<coordinate>,
// e.g. slider_x, crank_omega).
//
// The pieces, in the spirit of Pinocchio's model/data split: model.hpp (the model as plain
// data), parser.hpp (JSON to model), quantity.hpp (expressions on any scalar type),
// elements.hpp (each element's equations, callable without JSON), kinematics.hpp (the
// assembled equations and the kinematic analysis), dynamics.hpp (equations of motion, assembly
// at t0, the per-run linearisation); this header gives the Model built from them.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "simulators/models/model.hpp"

namespace sao::sim {

// Builds the model of the "multibody" object; throws a SectionError with every problem, each
// naming its path ("simulator.multibody.joints[1].bodies: unknown body \"rod\"").
std::unique_ptr<Model> load_multibody_model(const nlohmann::json& multibody,
                                            const std::string& path = "simulator.multibody");

}  // namespace sao::sim
