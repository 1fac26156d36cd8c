#!/usr/bin/env python3
"""Writes the double-wishbone suspension study of seed 004 (docs/variational.md).

python3 problems/suspension/generate.py   # rewrites the *.json next to this file

optimise.json: the study with 60 independent design variables. symmetric.json: the same model
with the mirror pairs linked, 30 design variables (module 4 reads module 1's, 3 reads 2's), so
every design it visits is symmetric: its optimum is the best symmetric design, to compare
with the 60-variable study's (docs/variational.md).

A planar model: a rigid chassis (300 kg) on four double-wishbone modules placed along it,
mirror-symmetric about its centre line x = 0: modules 1 and 2 on the left (their arms point
to -x), 3 and 4 their mirror images (4 mirrors 1, 3 mirrors 2). Each module: an upper and a
lower wishbone (hollow steel beams, pinned to the chassis and to the wheel carrier), the
wheel with its carrier (one rigid body, 20 kg), a shock absorber (spring and damper) from the
carrier to a tower on the chassis, and a tyre (a linear spring and damper between the wheel
centre and the road, a point force) on a harmonic road. Every coordinate of a module is given
in the module's own frame: u outward from the module's base (x = s (X0 + u), s = -1 on the
left, +1 on the right), v upwards from the chassis' centre of mass; so a symmetric design has
equal values in modules 1 and 4, and in 2 and 3.

Design variables (60), as in seed 004: 12 attachment-point coordinates per module (48; the
wishbones' chassis pivots A (upper) and B (lower), their carrier pivots C and D, the shock's
carrier end E and the wheel centre W, where the tyre acts), the height Z of each shock's
chassis end (4), each spring's stiffness (4) and each damper's coefficient (4). The seed's
geometry, road, tyre and the bounds of the geometric variables were lost: those below are
chosen here (each attachment coordinate within 0.05 m of its start).
"""
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))

CHASSIS_MASS, CHASSIS_INERTIA = 300.0, 300.0 * (3.0**2 + 0.4**2) / 12  # a 3 m x 0.4 m plate
WHEEL_MASS, WHEEL_INERTIA = 20.0, 20.0 * 0.3**2 / 2  # a 0.3 m disc
E, RHO = 2e11, 7800.0
R_OUT, R_IN = 0.015, 0.01
AREA = math.pi * (R_OUT**2 - R_IN**2)
SECOND_MOMENT = math.pi * (R_OUT**4 - R_IN**4) / 4
SECTION_MODULUS = SECOND_MOMENT / R_OUT
TYRE_K, TYRE_C = 150000.0, 200.0  # N/m, N s/m
# The tyre stands on a fixed ground: the road's mean height (below the chassis' centre of
# mass at the start) and the tyre's free radius are constants, not design variables, so the
# tyre is unloaded when the wheel centre is at GROUND + TYRE_RADIUS (-0.12 m, the start's
# W v): raising a module's points changes the tyre's preload and the static pose.
GROUND, TYRE_RADIUS = -0.42, 0.30  # m
END, STEP, POINTS = 1.0, 0.002, 51  # s (the seed: 3 s at 1e-3 s), s, output points
# The chassis' squared displacement averaged over its mass: for a rigid body turned by theta
# whose centre of mass moved by (x, y), every point at s from the centre moved by
# (x, y) + (R(theta) - I) s, and the mass average of its square is x^2 + y^2 plus
# 2 (1 - cos theta) I/m, written 4 sin^2(theta/2) I/m to keep its digits at small angles (the
# cross term vanishes about the centre of mass). Seed 004 counts the centre's displacement
# alone; a planar model's only antisymmetric motion is the roll, which the centre does not
# see, and with it alone the best symmetric design is a saddle (docs/variational.md).
DISPLACEMENT2 = (f"chassis_x^2 + chassis_y^2 + "
                 f"{4 * CHASSIS_INERTIA / CHASSIS_MASS!r}*sin(chassis_theta/2)^2")
F_U = 0.20  # the shock tower's u (not a design variable)
BOX = 0.05  # every attachment coordinate within +-0.05 m of its start

# Module base X0, side s, shock height start, damper start, road amplitude (m) and frequency (Hz).
MODULES = [
    {"x0": 1.0, "side": -1, "z": 0.3, "c": 50.0, "road": (0.03, 1.5)},
    {"x0": 0.15, "side": -1, "z": 0.4, "c": 500.0, "road": (0.02, 3.0)},
    {"x0": 0.15, "side": 1, "z": 0.4, "c": 500.0, "road": (0.02, 3.0)},
    {"x0": 1.0, "side": 1, "z": 0.3, "c": 50.0, "road": (0.03, 1.5)},
]
# The attachment points' start (u, v) in a module's frame [m].
POINTS_UV = {
    "A": ((0.00, 0.05), "upper wishbone, chassis pivot"),
    "B": ((0.00, -0.25), "lower wishbone, chassis pivot"),
    "C": ((0.30, 0.02), "upper wishbone, wheel-carrier pivot"),
    "D": ((0.35, -0.28), "lower wishbone, wheel-carrier pivot"),
    "E": ((0.30, -0.20), "shock absorber, wheel-carrier end"),
    "W": ((0.42, -0.12), "wheel centre (tyre)"),
}


# The module whose design variables module k reads: itself, or in the symmetric study (LINKED)
# its mirror image's on the left (4 reads 1, 3 reads 2).
LINKED = False


def own(k):
    return {3: 2, 4: 1}.get(k, k) if LINKED else k


def mirror_name(name):
    """The name of the mirror image of a variable of module 1 or 2 (m1_Au -> m4_Au, k2 -> k3):
    the module that reads it in the symmetric study (own)."""
    twin = {"1": "4", "2": "3"}[name[1]]
    return f"m{twin}{name[2:]}" if name[0] == "m" else f"{name[0]}{twin}"


def var(k, point, axis):
    return f"m{own(k)}_{point}{axis}"


def gx(k, module, u):
    """The global x of module coordinate u (an expression)."""
    sign = "-" if module["side"] < 0 else ""
    return f"{sign}({module['x0']} + {u})"


def design_variables():
    out = []
    modules = [(k, m) for k, m in enumerate(MODULES, 1) if own(k) == k]
    for k, module in modules:
        for point, ((u, v), what) in POINTS_UV.items():
            for axis, start in (("u", u), ("v", v)):
                direction = "outward" if axis == "u" else "up"
                out.append({"name": var(k, point, axis),
                            "label": f"Module {k}: {what}, {axis} ({direction})", "unit": "m",
                            "lower": round(start - BOX, 10), "upper": round(start + BOX, 10),
                            "initial": start, "sizing": "range"})
    for k, module in modules:
        out.append({"name": f"z{k}", "label": f"Module {k}: shock absorber, chassis end height",
                    "unit": "m", "lower": 0.15, "upper": 0.6, "initial": module["z"]})
    for k, _ in modules:
        out.append({"name": f"k{k}", "label": f"Module {k}: spring stiffness", "unit": "N/m",
                    "lower": 100, "upper": 30000, "initial": 10000})
    for k, module in modules:
        out.append({"name": f"c{k}", "label": f"Module {k}: damper coefficient",
                    "unit": "N*s/m", "lower": 20, "upper": 1000, "initial": module["c"]})
    return out


def beam(name, k, module, p, q):
    """A wishbone from chassis pivot p to carrier pivot q (point names), one element."""
    pu, pv, qu, qv = var(k, p, "u"), var(k, p, "v"), var(k, q, "u"), var(k, q, "v")
    dx = f"{module['side']}*({qu} - {pu})"
    return {"name": name, "elements": 1, "start": [gx(k, module, pu), pv],
            "length": f"sqrt(({qu} - {pu})^2 + ({qv} - {pv})^2)",
            "angle": f"atan2({qv} - {pv}, {dx})",
            "area": AREA, "second_moment": SECOND_MOMENT, "section_modulus": SECTION_MODULUS,
            "density": RHO, "modulus": E}


def on_carrier(k, module, point):
    """The carrier-frame coordinates of a module point (the carrier's origin at W)."""
    side = module["side"]
    return [f"{side}*({var(k, point, 'u')} - {var(k, 'W', 'u')})",
            f"{var(k, point, 'v')} - {var(k, 'W', 'v')}"]


def multibody(parameters):
    bodies = [{"name": "chassis", "mass": CHASSIS_MASS, "inertia": CHASSIS_INERTIA,
               "position": [0, 0]}]
    beams, joints, forces = [], [], []
    for k, module in enumerate(MODULES, 1):
        wheel = f"wheel{k}"
        bodies.append({"name": wheel, "mass": WHEEL_MASS, "inertia": WHEEL_INERTIA,
                       "position": [gx(k, module, var(k, "W", "u")), var(k, "W", "v")]})
        for arm, p, q in ((f"upper{k}", "A", "C"), (f"lower{k}", "B", "D")):
            beams.append(beam(arm, k, module, p, q))
            joints.append({"type": "revolute", "name": f"{arm}_chassis",
                           "bodies": ["chassis", f"{arm}_0"],
                           "points": [[gx(k, module, var(k, p, "u")), var(k, p, "v")], [0, 0]]})
            joints.append({"type": "revolute", "name": f"{arm}_wheel",
                           "bodies": [wheel, f"{arm}_1"],
                           "points": [on_carrier(k, module, q), [0, 0]]})
        eu, ev = var(k, "E", "u"), var(k, "E", "v")
        forces.append({"type": "spring_damper", "name": f"shock{k}", "bodies": ["chassis", wheel],
                       "points": [[gx(k, module, F_U), f"z{own(k)}"], on_carrier(k, module, "E")],
                       "stiffness": f"k{own(k)}", "damping": f"c{own(k)}",
                       "length": f"sqrt(({F_U} - {eu})^2 + (z{own(k)} - {ev})^2)"})
        amplitude, frequency = module["road"]
        road = f"{amplitude}*sin(2*pi*{frequency}*t)"
        road_rate = f"{amplitude}*2*pi*{frequency}*cos(2*pi*{frequency}*t)"
        tyre = (f"{TYRE_K}*({GROUND} + {TYRE_RADIUS} + {road} - {wheel}_y)"
                f" + {TYRE_C}*({road_rate} - {wheel}_vy)")
        forces.append({"type": "point_force", "name": f"tyre{k}", "body": wheel,
                       "point": [0, 0], "force": [0, tyre]})
    return {
        "analysis": "dynamic",
        "parameters": parameters,
        "gravity": [0, -9.81],
        "bodies": bodies,
        "beams": beams,
        "joints": joints,
        "forces": forces,
        "points": [{"name": "centre", "body": "chassis", "at": [0, 0]}],
        "integrals": [{"name": "displacement2", "integrand": DISPLACEMENT2}],
        "integrator": {"type": "variational", "step": STEP},
    }


DESCRIPTION = (
    "Seed 004's double-wishbone suspension with 60 design variables, as a planar model: a rigid "
    "chassis (300 kg) on four double-wishbone modules placed along it, mirror-symmetric about "
    "its centre line (module 4 mirrors 1, module 3 mirrors 2); each module has an upper and a "
    "lower wishbone (hollow steel beams, E = 200 GPa, density 7800 kg/m^3, radii 0.015/0.01 m, "
    "one co-rotational element each, pinned at both ends), a wheel with its carrier (20 kg), a "
    "shock absorber (spring and damper, free length the initial one) from the carrier to a "
    "tower on the chassis, and a tyre (150 kN/m, 200 N s/m, a point force at the wheel centre) "
    "on a harmonic road over a fixed ground level: 0.03 m at 1.5 Hz under modules 1 and 4, "
    "0.02 m at 3 Hz under 2 and 3. "
    "Gravity acts from t = 0 on the unloaded start pose. Minimise the integral over 1 s of the "
    "chassis' squared displacement averaged over its mass: the centre of mass's squared "
    "displacement plus 4 sin^2(roll/2) I/m (seed 004 counts the centre alone; a planar model's "
    "only antisymmetric motion is the roll, which the centre does not see, and without it the "
    "best symmetric design is a saddle; on symmetric designs, which do not roll, the two are "
    "equal). Design variables: 12 attachment-point "
    "coordinates per module in the module's frame (u outward, v up), so that a symmetric design "
    "has equal values in modules 1 and 4 and in 2 and 3 (the road's mean height, 0.42 m below "
    "the chassis' centre of mass at the start, and the tyre's free radius, 0.3 m, are constants: "
    "raising a module's points changes the tyre's preload and the static pose); the shocks' "
    "chassis heights (start "
    "0.3/0.4/0.4/0.3 m in [0.15, 0.6]), springs (10000 N/m in [100, 30000]) and dampers "
    "(50/500/500/50 N s/m in [20, 1000]) as in the seed. Lost in the seed and chosen here: the "
    "planar layout and every attachment point's start and bounds (+-0.05 m), the road, the "
    "tyre, the simulated time (1 s instead of the seed's 3 s, to keep one analysis short) and "
    "the step (2e-3 s instead of 1e-3 s); no stress constraint (the seed's limits were lost and "
    "the integral has an interior optimum without one). Variational integrator, gradients by "
    "its discrete adjoint (auto). Written by generate.py; docs/variational.md.")


SYMMETRIC_DESCRIPTION = (
    "The suspension study of optimise.json with the mirror pairs linked: 30 design variables "
    "(modules 1 and 2; module 4 reads module 1's variables, module 3 reads module 2's), so "
    "every design is mirror-symmetric and the optimum is the best symmetric design. Written by "
    "generate.py; docs/variational.md.")


def study_document(symmetric):
    global LINKED
    LINKED = symmetric
    variables = design_variables()
    count = len(variables)
    study = {
        "name": (f"suspension: {count} design variables of a double-wishbone suspension "
                 f"(seed 004){', mirror pairs linked' if symmetric else ''}"),
        "description": SYMMETRIC_DESCRIPTION if symmetric else DESCRIPTION,
        "design_variables": variables,
        "load_cases": [{"name": "road", "time": {"start": 0, "end": END, "points": POINTS}}],
        "responses": [
            {"name": "displacement2",
             "label": "Integral of the chassis' squared displacement (mass average)",
             "unit": "m^2*s", "kind": "scalar", "source": "displacement2"},
            {"name": "chassis_y", "label": "Chassis centre of mass, vertical position",
             "unit": "m", "kind": "history", "source": "centre.y"},
        ],
        "objective": {"name": "displacement2",
                      "label": "Integral of the chassis' squared displacement (mass average)",
                      "unit": "m^2*s", "minimize": "displacement2"},
        # Converged when no variable moved over its characteristic size (its range, or its
        # value when smaller) gains more than 0.1 % of the objective to first order. No form
        # is set: the default gives the objective's response the quasi-Newton form. The
        # 60-variable study leaves the mirror symmetry on the way (its model learns the
        # roll's curvature late) and comes back to it: converged after 164 cycles at
        # h = 4e-3 s and 223 at 2e-3 s, hence the cycle limit (docs/variational.md).
        "settings": {"objacc": 0.1, "kkt_tolerance": 0.001, "vioacc": 0.001, "max_cycles": 300},
        "simulator": {"type": "internal", "model": "multibody", "gradients": {"method": "auto"},
                      "multibody": multibody({v["name"]: v["initial"] for v in variables})},
    }
    LINKED = False
    return study


def main():
    for name, symmetric in (("optimise.json", False), ("symmetric.json", True)):
        with open(os.path.join(HERE, name), "w") as f:
            json.dump(study_document(symmetric), f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
