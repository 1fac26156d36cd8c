#!/usr/bin/env python3
"""Writes a multibody study of the size benches (issue 52) to stdout, for `sao simulate`,
`perf` or `valgrind --tool=callgrind` (docs/performance.md):

  multibody_study.py chain N dynamic|kinematic auto|dense|sparse [POINTS]
      the pendulum chain of bench/pendulum_chain_model.hpp (N links, a rotational
      spring-damper at each joint; kinematic: each joint also driven, a_i - 0.2 sin(2 t), as
      driven_chain there), 1 s in POINTS points (11), rtol 1e-8, atol 1e-10;
  multibody_study.py sliders N independent|absolute auto|dense|sparse
      N masses on guides along x (translational joints to the ground: linear constraints, so
      that "independent" integrates N independent coordinates) joined by spring-dampers, the
      last one pushed at 1 m/s, 1 s in 11 points.
"""
import json
import sys


def chain(n, kind, algebra, points):
    params, bodies, joints, forces = {}, [], [], []
    for p, value in (("k", 20.0), ("c", 0.1), ("a", 0.0), ("m", 1.0), ("L", 0.5)):
        for i in range(1, n + 1):
            params[f"{p}{i}"] = value
    x = "0"
    for i in range(1, n + 1):
        length, mass = f"L{i}", f"m{i}"
        bodies.append({"name": f"link{i}", "mass": mass, "inertia": f"{mass}*{length}^2/12",
                       "position": [f"{x} + {length}/2", 0]})
        x += f" + {length}"
        previous = "ground" if i == 1 else f"link{i - 1}"
        at_previous = [0, 0] if i == 1 else [f"L{i - 1}/2", 0]
        joints.append({"type": "revolute", "bodies": [previous, f"link{i}"],
                       "points": [at_previous, [f"-{length}/2", 0]]})
        forces.append({"type": "rotational_spring_damper", "bodies": [previous, f"link{i}"],
                       "stiffness": f"k{i}", "damping": f"c{i}", "angle": f"a{i}"})
    if kind == "kinematic":
        for i in range(1, n + 1):
            previous = "ground" if i == 1 else f"link{i - 1}"
            joints.append({"type": "angle_driver", "bodies": [previous, f"link{i}"],
                           "angle": f"a{i} - 0.2*sin(2*t)"})
    model = {"analysis": kind, "parameters": params, "bodies": bodies, "joints": joints,
             "forces": forces, "linear_algebra": algebra}
    responses = [{"kind": "history", "name": "ay", "source": f"link{n}.ay"}]
    objective = {"name": "objective", "minimize": "ay[1]"}
    if kind == "dynamic":
        model["integrals"] = [{"name": "tip", "integrand": f"link{n}_y^2"}]
        responses.append({"kind": "scalar", "name": "tip"})
        objective = {"name": "objective", "minimize": "tip"}
    return study(f"{n}-link pendulum chain, {kind}", "k1", 20.0, points, responses, objective,
                 model)


def sliders(n, coordinates, algebra):
    bodies, joints, forces = [], [], []
    for i in range(1, n + 1):
        bodies.append({"name": f"s{i}", "mass": 1.0, "inertia": 0.1, "position": [1.0 * i, 0],
                       "velocity": [1.0 if i == n else 0.0, 0]})
        joints.append({"type": "translational", "bodies": ["ground", f"s{i}"],
                       "points": [[0, 0], [0, 0]], "axis": 0})
        previous = "ground" if i == 1 else f"s{i - 1}"
        forces.append({"type": "spring_damper", "bodies": [previous, f"s{i}"],
                       "points": [[0, 0], [0, 0]], "stiffness": "k", "damping": 0.5,
                       "length": 1.0})
    model = {"analysis": "dynamic", "parameters": {"k": 1000.0}, "bodies": bodies,
             "joints": joints, "forces": forces, "coordinates": coordinates,
             "linear_algebra": algebra}
    responses = [{"kind": "history", "name": "x", "source": f"s{n}.x"}]
    return study(f"{n} sliders", "k", 1000.0, 11, responses,
                 {"name": "objective", "minimize": "x[10]"}, model)


def study(name, variable, value, points, responses, objective, model):
    return {"name": name,
            "design_variables": [{"name": variable, "initial": value, "lower": 0.5 * value,
                                  "upper": 2 * value}],
            "load_cases": [{"name": "run", "time": {"start": 0, "end": 1, "points": points}}],
            "responses": responses, "objective": objective,
            "simulator": {"type": "internal", "model": "multibody", "rtol": 1e-8, "atol": 1e-10,
                          "workers": 1, "multibody": model}}


def main(argv):
    if len(argv) >= 5 and argv[1] == "chain":
        points = int(argv[5]) if len(argv) > 5 else 11
        out = chain(int(argv[2]), argv[3], argv[4], points)
    elif len(argv) == 5 and argv[1] == "sliders":
        out = sliders(int(argv[2]), argv[3], argv[4])
    else:
        sys.stderr.write(__doc__)
        return 2
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
