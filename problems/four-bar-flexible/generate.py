#!/usr/bin/env python3
"""Writes the four-bar studies of seed 003, chapter 5 (docs/four-bar-flexible.md).

python3 problems/four-bar-flexible/generate.py   # rewrites the *.json next to this file

The geometry at t = 0 (crank at 90 degrees from the ground line, open branch: the coupler-rocker
pin above the ground line) is computed here, so that every node sits on its link's straight line.
"""
import json
import math
import os

L1, L2, L3, L4 = 0.3048, 0.9144, 0.762, 0.9144  # crank, coupler, rocker, ground [m]
RHO, E = 2757.0, 6.895e10
SIGMA_A = 2.758e7
D0 = 0.3568  # start diameter [m]
ELEMENTS = 6
RAMP = 0.1  # s: the crank speed rises from 0 to 10 pi rad/s as (1 - cos(pi t / RAMP)) / 2
DAMPING = 2e-4  # s: stiffness-proportional Rayleigh coefficient of every beam
THETA0 = 5 * math.pi * RAMP  # crank angle at t = 0, so that theta = 10 pi t from t = RAMP on

# Open branch: B is the upper intersection of the circles about A (crank tip) and D.
A = (L1 * math.cos(THETA0), L1 * math.sin(THETA0))
D = (L4, 0.0)
dx, dy = D[0] - A[0], D[1] - A[1]
d = math.hypot(dx, dy)
a = (L2**2 - L3**2 + d**2) / (2 * d)
h = math.sqrt(L2**2 - a**2)
B = (A[0] + a * dx / d - h * dy / d, A[1] + a * dy / d + h * dx / d)
COUPLER_ANGLE = math.atan2(B[1] - A[1], B[0] - A[0])
ROCKER_ANGLE = math.atan2(B[1] - D[1], B[0] - D[0])

# The sudden start (flexible-sudden-start.json): every link in its rigid motion at t = 0 with the
# crank at 10 pi rad/s. A moves at OMEGA x OA; the coupler's and rocker's angular velocities
# follow from v_B = v_A + w2 x AB = w3 x DB (two linear equations).
OMEGA = 10 * math.pi
V_A = (-OMEGA * A[1], OMEGA * A[0])
AB, DB = (B[0] - A[0], B[1] - A[1]), (B[0] - D[0], B[1] - D[1])
_DET = -AB[1] * DB[0] + AB[0] * DB[1]  # w2 (-AB_y, AB_x) - w3 (-DB_y, DB_x) = -v_A
W2 = (-V_A[0] * DB[0] - V_A[1] * DB[1]) / _DET
W3 = (-AB[0] * V_A[0] - AB[1] * V_A[1]) / _DET

# Grid: t = 0 (the start of the simulation, at rest: zero stress) then 201 points on [0.3, 0.5].
GRID = [0.0] + [round(0.3 + 0.001 * k, 10) for k in range(201)]
LINKS = [("crank", "d1", L1), ("coupler", "d2", L2), ("rocker", "d3", L3)]


def beam(name, diameter, length, start, angle, velocity=None, angular_velocity=None):
    motion = {} if velocity is None else {"velocity": list(velocity),
                                          "angular_velocity": angular_velocity}
    return {
        "name": name,
        "elements": ELEMENTS,
        "start": list(start),
        "angle": angle,
        "length": length,
        "area": f"pi*{diameter}^2/4",
        "second_moment": f"pi*{diameter}^4/64",
        "section_modulus": f"pi*{diameter}^3/32",
        "density": "rho",
        "modulus": "E",
        "damping": "mu",
        **motion,
    }


def study(name, description, modulus=E, intermediate_variables=True,
          intermediate_responses=True, sudden_start=False):
    crank_motion = (f"10*pi*t + 5*pi*({RAMP} - min(t, {RAMP}))"
                    f" - 5*{RAMP}*sin(pi*min(t, {RAMP})/{RAMP})")
    links = [beam("crank", "d1", L1, (0.0, 0.0), THETA0),
             beam("coupler", "d2", L2, A, COUPLER_ANGLE),
             beam("rocker", "d3", L3, D, ROCKER_ANGLE)]
    if sudden_start:  # at 10 pi rad/s from t = 0, the links rigid and unbent
        crank_motion = f"{THETA0} + 10*pi*t"
        links = [beam("crank", "d1", L1, (0.0, 0.0), THETA0, (0.0, 0.0), OMEGA),
                 beam("coupler", "d2", L2, A, COUPLER_ANGLE, V_A, W2),
                 beam("rocker", "d3", L3, D, ROCKER_ANGLE, (0.0, 0.0), W3)]
    multibody = {
        "analysis": "dynamic",
        "parameters": {"d1": D0, "d2": D0, "d3": D0, "E": modulus, "rho": RHO, "mu": DAMPING},
        "gravity": [0, 0],
        "beams": links,
        "joints": [
            {"type": "revolute", "name": "O", "bodies": ["ground", "crank_0"],
             "points": [[0, 0], [0, 0]]},
            {"type": "driver", "name": "motor", "body": "crank_0", "coordinate": "angle",
             "motion": crank_motion},
            {"type": "revolute", "name": "A", "bodies": [f"crank_{ELEMENTS}", "coupler_0"]},
            {"type": "revolute", "name": "B", "bodies": [f"coupler_{ELEMENTS}",
                                                          f"rocker_{ELEMENTS}"]},
            {"type": "revolute", "name": "D", "bodies": ["ground", "rocker_0"],
             "points": [[L4, 0], [0, 0]]},
        ],
    }
    intermediate = "area" if intermediate_variables else "identity"
    variables = [{"name": v, "label": f"Diameter of the {link}", "unit": "m", "lower": 0.005,
                  "upper": 0.5, "initial": D0, "intermediate": intermediate}
                 for link, v, _ in LINKS]
    responses, constraints = [], []
    for link, v, _ in LINKS:
        for k in range(ELEMENTS + 1):
            m = f"M_{link}_{k}"
            responses.append({"name": m, "label": f"Bending moment, {link} node {k}",
                              "unit": "N*m", "kind": "history", "source": f"{link}.moment{k}"})
            stress = f"32*{m}/(pi*{v}^3)"
            if not intermediate_responses:  # the stress itself is the approximated response
                responses.append({"name": f"s_{link}_{k}", "label": f"Bending stress, {link} node {k}",
                                  "unit": "Pa", "kind": "history", "expression": stress})
                stress = f"s_{link}_{k}"
            constraints.append({"name": f"stress_{link}_{k}",
                                "label": f"Bending stress, {link} node {k}", "unit": "Pa",
                                "of": {"expression": stress, "abs": True},
                                "upper": SIGMA_A})
    mass = " + ".join(f"{l}*{v}^2" for _, v, l in LINKS)
    return {
        "name": name,
        "description": description,
        "design_variables": variables,
        "load_cases": [{"name": "steady", "time": {"values": GRID}}],
        "responses": responses,
        "objective": {"name": "mass", "label": "Mass of the links", "unit": "kg",
                      "minimize": f"{RHO}*pi/4*({mass})"},
        "constraints": constraints,
        "settings": {"move_limit": 0.4, "cutoff": 0.5, "neighbours": 2, "max_cycles": 30},
        "simulator": {"type": "internal", "model": "multibody", "rtol": 1e-6, "atol": 1e-9,
                      "gradients": {"method": "auto", "step": 1e-3},
                      "multibody": multibody},
    }


COMMON = ("Seed 003, chapter 5: a four-bar (crank 0.3048 m, coupler 0.9144 m, rocker 0.762 m, "
          "ground 0.9144 m) of solid circular aluminium links of diameters d1, d2, d3, six "
          "co-rotational beam elements per link, crank driven from rest to 10 pi rad/s over "
          "0.1 s, no gravity, stiffness-proportional damping 2e-4 s; minimise the mass subject "
          "to 32|M|/(pi d^3) <= 2.758e7 Pa at every node on 201 points over [0.3, 0.5] s. "
          "Written by generate.py; docs/four-bar-flexible.md.")

STUDIES = {
    "flexible.json": study("four-bar, flexible links (E)", COMMON),
    "stiff.json": study("four-bar, stiff links (10 E)", COMMON + " Modulus 10 E.", 10 * E),
    "rigid.json": study("four-bar, nearly rigid links (1000 E)",
                        COMMON + " Modulus 1000 E: the rigid-link reference.", 1000 * E),
    "flexible-no-intermediate-responses.json": study(
        "four-bar, flexible links, stresses approximated", COMMON +
        " Without intermediate responses: the stress is a derived response, linearised.",
        intermediate_responses=False),
    "stiff-no-intermediate-responses.json": study(
        "four-bar, stiff links, stresses approximated", COMMON +
        " Modulus 10 E. Without intermediate responses.", 10 * E, intermediate_responses=False),
    "flexible-sudden-start.json": study(
        "four-bar, flexible links (E), sudden start", COMMON.replace(
            "crank driven from rest to 10 pi rad/s over 0.1 s",
            "crank at 10 pi rad/s from t = 0, every link starting in its rigid motion, unbent")
        + " The start-up variant of the damping and start-up table.", sudden_start=True),
}

if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for file, content in STUDIES.items():
        with open(os.path.join(here, file), "w") as out:
            json.dump(content, out, indent=1)
            out.write("\n")
