#!/usr/bin/env python3
"""Writes the pitch-plane truck study of issue 52 (README.md next to this file).

python3 problems/truck-vehicle/generate.py   # rewrites ride-comfort.json next to this file

A medium two-axle rigid truck (18 t gross) in the pitch plane, seen in a frame that travels
with it: the roads pass under the front axle and, delayed by the wheelbase, the rear axle. The
seed's full-scale data were lost (seed 003, section 7.4): every value here is a plausible
choice, derived below from a few round figures (axle loads, ride frequencies, rail sections),
and README.md says where each comes from. Gravity is left out, as in the quarter car: the
coordinates are measured from static equilibrium, every spring at its free length at t = 0.
"""
import json
import math
import random
import os

G = 9.81

# Geometry [m]: x forwards is negative (the front axle at x = 0, the rear axle behind it at
# x = WHEELBASE), so that the road, passing from front to rear, reaches x = 0 first.
WHEELBASE = 5.0
ELEMENT = 0.625  # frame element length: the axles and the cab mounts fall on nodes
FRAME_START = -1.25  # front end of the frame rails (front overhang 1.25 m)
ELEMENTS = 14  # frame from -1.25 to 7.5 m: rear overhang 2.5 m (a long box body)
FRAME_LENGTH = ELEMENTS * ELEMENT
Y_ROAD, Y_AXLE, Y_FRAME = 0.0, 0.5, 1.0  # tyre free length 0.5, spring 0.5
NODE = {round(FRAME_START + k * ELEMENT, 6): k for k in range(ELEMENTS + 1)}
FRONT_NODE, REAR_NODE = NODE[0.0], NODE[WHEELBASE]
CAB_FRONT_NODE, CAB_REAR_NODE = NODE[-1.25], NODE[0.625]

# Masses [kg] and inertias [kg m^2].
M_FRONT_AXLE = 650.0  # beam axle, hubs, brakes, two wheels, half the leaf springs
M_REAR_AXLE = 1150.0  # drive axle with twin wheels (four tyres)
M_CAB = 1100.0  # sleeper-less day cab with its fittings
I_CAB = M_CAB * (0.8**2 + 0.8**2) / 3  # a 1.6 m x 1.6 m box about its centre, ~470
CAB_CG = (-0.3, Y_FRAME + 1.1)  # over the engine, forward of the front axle's centre line
M_SEAT = 25.0  # seat frame and cushion on the suspension
M_DRIVER = 60.0  # the part of a 75 kg driver that the seat carries (legs on the floor)
SEAT_X = -0.55  # driver's seat, forward of the front axle (cab over engine)
Y_FLOOR = Y_FRAME + 0.5  # cab floor above the frame
Y_SEAT, Y_DRIVER = Y_FLOOR + 0.4, Y_FLOOR + 0.6
# Frame, body and payload smeared over the rails: 14.4 t on 8.75 m.
M_SPRUNG_FRAME = 14400.0
RAIL_AREA = 2 * (0.26 * 0.007 + 2 * 0.08 * 0.007)  # two C 260 x 80 x 7 rails [m^2]
RAIL_I = 2 * (0.007 * 0.26**3 / 12 + 2 * 0.08 * 0.007 * 0.1265**2)  # [m^4]
BODY_STIFFENING = 2.0  # the box body and subframe bolted on roughly double the rails' EI
FRAME_DENSITY = M_SPRUNG_FRAME / (FRAME_LENGTH * RAIL_AREA)  # carries the payload [kg/m^3]
E_STEEL = 2.1e11
FRAME_DAMPING = 1.0e-3  # s: stiffness-proportional, ~2 % of critical at the 1st bending mode

# Static loads (for the springs' rates and the tyres' lift-off bounds).
X_FRAME_CG = FRAME_START + FRAME_LENGTH / 2
REAR_SHARE = lambda x: x / WHEELBASE  # noqa: E731 (lever rule between the axles)
SPRUNG_REAR = (M_SPRUNG_FRAME * REAR_SHARE(X_FRAME_CG)
               + (M_CAB + M_SEAT + M_DRIVER) * REAR_SHARE(CAB_CG[0]))
SPRUNG_FRONT = M_SPRUNG_FRAME + M_CAB + M_SEAT + M_DRIVER - SPRUNG_REAR
AXLE_LOAD_FRONT, AXLE_LOAD_REAR = SPRUNG_FRONT + M_FRONT_AXLE, SPRUNG_REAR + M_REAR_AXLE

# Suspensions: leaf springs for body bounce near 1.6 Hz front and 1.8 Hz rear.
K_FRONT = SPRUNG_FRONT * (2 * math.pi * 1.6) ** 2
K_REAR = SPRUNG_REAR * (2 * math.pi * 1.8) ** 2
K_LINK = 1.0e6  # longitudinal stiffness of a leaf spring's eye and shackle [N/m]
LINK_LENGTH = 1.5  # the spring's front half: the longitudinal link's lever
# Tyres: 295/80 R22.5, about 900 kN/m each at rated load; two in front, four (twins) behind.
K_TYRE_FRONT, K_TYRE_REAR = 2 * 900e3, 4 * 850e3
LIFT_FRONT = AXLE_LOAD_FRONT * G / K_TYRE_FRONT  # static deflection: the tyre leaves the road
LIFT_REAR = AXLE_LOAD_REAR * G / K_TYRE_REAR  # when it extends by this much
# Cab mounts: coil springs with dampers, cab bounce near 2.5 Hz; a longitudinal link in front.
K_CAB_TOTAL = M_CAB * (2 * math.pi * 2.5) ** 2
K_CAB_FRONT, K_CAB_REAR = 0.55 * K_CAB_TOTAL, 0.45 * K_CAB_TOTAL
CAB_MOUNT_LENGTH = 0.2
# Seat: a suspended driver's seat near 1.5 Hz, the driver on a cushion near 4.5 Hz.
K_SEAT = (M_SEAT + M_DRIVER) * (2 * math.pi * 1.5) ** 2
K_CUSHION = M_DRIVER * (2 * math.pi * 4.5) ** 2
C_CUSHION = 0.3 * 2 * math.sqrt(K_CUSHION * M_DRIVER)  # 30 % of critical

# Limits of the constraints.
TRAVEL = 0.10  # suspension travel to the bump stops, either way [m]
SEAT_STROKE = 0.05  # seat suspension, either way from its ride height [m]
CAB_STROKE = 0.05  # cab mounts, either way [m]
LIFT_CASES = ["crossing", "rough"]  # road holding: no tyre lifts off on these roads

ROADS = [  # the quarter car's (problems/truck-damper/quarter-car-multibody.json)
    {"name": "hump", "height": "0.125*((1 - cos(pi*min(max(x, 0), 1)/1)) - "
     "(1 - cos(pi*min(max(x - 3.25, 0), 1)/1)))"},
    {"name": "wave", "height": "0.5*sin(pi*min(max(x, 0), 25)/25)^2"},
    {"name": "crossing", "height": "0.005*((1 - cos(pi*min(max(x, 0), 0.2)/0.2)) - "
     "(1 - cos(pi*min(max(x - 2.8, 0), 0.2)/0.2))) + "
     "0.015*(1 - cos(2*pi*min(max(x - 0.6, 0), 0.3)/0.3)) + "
     "0.015*(1 - cos(2*pi*min(max(x - 2.1, 0), 0.3)/0.3))"},
]

# The comfort road: ISO 8608 class C (average), displacement PSD Gd(n) = Gd(n0) (n/n0)^-2 with
# Gd(n0) = 256e-6 m^3 at n0 = 0.1 cycle/m, as a sum of sines at ROUGH_WAVES spatial
# frequencies n_k = k dn (dn = 0.05 cycle/m: wavelengths 20 m down to 0.5 m) with amplitudes
# sqrt(2 Gd(n_k) dn) and fixed pseudo-random phases (a seeded generator: the same road every
# time), faded in over the first 5 m so that the truck starts on a flat road.
ROUGH_GD0, ROUGH_N0, ROUGH_DN, ROUGH_WAVES, ROUGH_SEED = 256e-6, 0.1, 0.05, 20, 52


def rough_road():
    rng = random.Random(ROUGH_SEED)
    terms = []
    for k in range(1, ROUGH_WAVES + 1):
        n = k * ROUGH_DN
        amplitude = math.sqrt(2 * ROUGH_GD0 * (n / ROUGH_N0) ** -2 * ROUGH_DN)
        phase = rng.uniform(0, 2 * math.pi)
        terms.append(f"{amplitude:.4e}*sin({2 * math.pi * n:.6g}*x + {phase:.4f})")
    return {"name": "rough", "height": "min(max(x, 0)/5, 1)*(" + " + ".join(terms) + ")"}


ROADS.append(rough_road())
CASES = [("hump", 1, 15, 4.0), ("wave", 2, 80, 3.0), ("crossing", 3, 25, 3.0),
         ("rough", 4, 80, 4.0)]
POINTS_PER_S = 200


def r(v, digits=6):
    return float(f"{v:.{digits}g}")


def body(name, mass, inertia, x, y):
    return {"name": name, "mass": r(mass), "inertia": r(inertia), "position": [r(x), r(y)]}


def spring(name, a, b, pa, pb, stiffness, length, damping=None):
    f = {"type": "spring_damper", "name": name, "bodies": [a, b], "points": [pa, pb],
         "stiffness": r(stiffness), "length": r(length)}
    if damping is not None:
        f["damping"] = damping
    return f


def guide(name, a, b, pa=(0, 0), pb=(0, 0)):
    return {"type": "translational", "name": name, "bodies": [a, b],
            "points": [list(pa), list(pb)], "axis": "pi/2"}


def node(k):
    return f"frame_{k}"


def model():
    cx, cy = CAB_CG
    bodies = [body("road_front", 1, 1, 0, Y_ROAD), body("road_rear", 1, 1, WHEELBASE, Y_ROAD),
              body("front_axle", M_FRONT_AXLE, 1, 0, Y_AXLE),
              body("rear_axle", M_REAR_AXLE, 1, WHEELBASE, Y_AXLE),
              body("cab", M_CAB, I_CAB, cx, cy),
              body("seat", M_SEAT, 1, SEAT_X, Y_SEAT),
              body("driver", M_DRIVER, 1, SEAT_X, Y_DRIVER)]
    beams = [{"name": "frame", "elements": ELEMENTS, "start": [FRAME_START, Y_FRAME], "angle": 0,
              "length": FRAME_LENGTH, "area": r(RAIL_AREA), "second_moment":
              r(BODY_STIFFENING * RAIL_I), "modulus": E_STEEL, "density": r(FRAME_DENSITY),
              "damping": FRAME_DAMPING}]
    road = lambda start: {"road": ROADS, "select": "road", "speed": "speed/3.6",  # noqa: E731
                          "start": start}
    joints = [guide("road_front_guide", "ground", "road_front"),
              guide("road_rear_guide", "ground", "road_rear", (WHEELBASE, 0)),
              guide("front_axle_guide", "ground", "front_axle"),
              guide("rear_axle_guide", "ground", "rear_axle", (WHEELBASE, 0)),
              guide("seat_guide", "cab", "seat", (r(SEAT_X - cx), r(Y_SEAT - cy))),
              guide("driver_guide", "seat", "driver", (0, r(Y_DRIVER - Y_SEAT))),
              {"type": "driver", "name": "front_profile", "body": "road_front",
               "coordinate": "y", "motion": road("start")},
              {"type": "driver", "name": "rear_profile", "body": "road_rear",
               "coordinate": "y", "motion": road(f"start + {WHEELBASE}")}]
    cab_mount = lambda x: [r(x - cx), r(Y_FRAME + CAB_MOUNT_LENGTH - cy)]  # noqa: E731
    forces = [
        spring("front_tyre", "road_front", "front_axle", [0, 0], [0, 0], K_TYRE_FRONT,
               Y_AXLE - Y_ROAD),
        spring("rear_tyre", "road_rear", "rear_axle", [0, 0], [0, 0], K_TYRE_REAR,
               Y_AXLE - Y_ROAD),
        spring("front_suspension", "front_axle", node(FRONT_NODE), [0, 0], [0, 0], K_FRONT,
               Y_FRAME - Y_AXLE, "c_front*1e3"),
        spring("rear_suspension", "rear_axle", node(REAR_NODE), [0, 0], [0, 0], K_REAR,
               Y_FRAME - Y_AXLE, "c_rear*1e3"),
        # The leaf springs' front eyes hold the frame fore and aft (horizontal links).
        spring("front_link", "front_axle", node(FRONT_NODE), [0, 0],
               [-LINK_LENGTH, Y_AXLE - Y_FRAME], K_LINK, LINK_LENGTH),
        spring("rear_link", "rear_axle", node(REAR_NODE), [0, 0],
               [-LINK_LENGTH, Y_AXLE - Y_FRAME], K_LINK, LINK_LENGTH),
        spring("cab_front", node(CAB_FRONT_NODE), "cab", [0, 0], cab_mount(-1.25), K_CAB_FRONT,
               CAB_MOUNT_LENGTH, "c_cab*1e3"),
        spring("cab_rear", node(CAB_REAR_NODE), "cab", [0, 0], cab_mount(0.625), K_CAB_REAR,
               CAB_MOUNT_LENGTH, "c_cab*1e3"),
        spring("cab_link", node(CAB_FRONT_NODE), "cab", [0.5, CAB_MOUNT_LENGTH],
               cab_mount(-1.25), K_LINK, 0.5),
        spring("seat_suspension", "cab", "seat", [r(SEAT_X - cx), r(Y_FLOOR - cy)], [0, 0],
               K_SEAT, Y_SEAT - Y_FLOOR, "c_seat*1e3"),
        spring("cushion", "seat", "driver", [0, 0], [0, 0], K_CUSHION, Y_DRIVER - Y_SEAT,
               r(C_CUSHION)),
    ]
    return {"analysis": "dynamic",
            "parameters": {"c_front": 25, "c_rear": 45, "c_cab": 4, "c_seat": 1},
            "load_parameters": {"road": 1, "speed": 15, "start": 1},
            "gravity": [0, 0], "max_step": "0.05/(speed/3.6)",
            "bodies": bodies, "beams": beams, "joints": joints, "forces": forces}


def variable(name, label, lower, upper, initial):
    return {"name": name, "label": label, "unit": "kN s/m", "lower": lower, "upper": upper,
            "initial": initial, "move_limit": 0.3}


def history(name, label, unit, **kw):
    return {"name": name, "label": label, "unit": unit, "kind": "history", **kw}


# The strokes the constraints limit: (name, label, the length it is measured from: name and
# label, the spring-damper, its free length).
STROKES = [
    ("front_travel", "Front suspension deflection (compression < 0)", "front_length",
     "Front suspension length", "front_suspension", Y_FRAME - Y_AXLE),
    ("rear_travel", "Rear suspension deflection (compression < 0)", "rear_length",
     "Rear suspension length", "rear_suspension", Y_FRAME - Y_AXLE),
    ("front_tyre", "Front tyre extension from static (lift-off > 0)", "front_tyre_length",
     "Front tyre length", "front_tyre", Y_AXLE - Y_ROAD),
    ("rear_tyre", "Rear tyre extension from static (lift-off > 0)", "rear_tyre_length",
     "Rear tyre length", "rear_tyre", Y_AXLE - Y_ROAD),
    ("cab_front_stroke", "Front cab mount stroke", "cab_front_length", "Front cab mount length",
     "cab_front", CAB_MOUNT_LENGTH),
    ("cab_rear_stroke", "Rear cab mount stroke", "cab_rear_length", "Rear cab mount length",
     "cab_rear", CAB_MOUNT_LENGTH),
    ("seat_stroke", "Seat stroke", "seat_length", "Seat suspension length", "seat_suspension",
     Y_SEAT - Y_FLOOR),
]


def lift(name, end, case, bound):
    return {"name": name, "label": f"{end.capitalize()} tyre extension (lift-off), {case}",
            "unit": "m", "of": {"response": f"{end}_tyre", "case": case}, "upper": r(bound, 3)}


def study():
    rough_time = CASES[-1][3]
    both = lambda name, label, resp, upper: {  # noqa: E731
        "name": name, "label": label, "unit": "m", "of": {"response": resp, "abs": True},
        "upper": upper}
    return {
        "name": "truck-vehicle: pitch-plane truck, damper settings for ride comfort",
        "description": (
            "Issue 52 (seed 003, section 7.4, whose data were lost): a medium two-axle truck "
            f"({r((AXLE_LOAD_FRONT + AXLE_LOAD_REAR) / 1000, 3)} t) in the pitch plane on the "
            "internal multibody simulator: a flexible frame of "
            f"{ELEMENTS} beam elements carrying body and payload, front and rear axles on "
            "tyre springs, leaf-spring suspensions with the dampers to choose, a cab on four "
            "mounts (two per side, lumped front and rear) and a suspended seat with the driver "
            "on its cushion. The quarter car's three roads pass under the front axle and, "
            f"{WHEELBASE} m later, the rear one. Minimise the driver's RMS vertical acceleration "
            "over the three roads subject to suspension travel, tyre lift-off, cab-mount and "
            "seat strokes. Values chosen as plausible, not measured: README.md. Written by "
            "generate.py."),
        "constants": {"travel": TRAVEL},
        "design_variables": [
            variable("c_front", "Front suspension damping", 5, 200, 25),
            variable("c_rear", "Rear suspension damping", 5, 300, 45),
            variable("c_cab", "Cab-mount damping (each end)", 0.5, 40, 4),
            variable("c_seat", "Seat damping", 0.1, 5, 1)],
        # Start 1, near the optimum: the short end-to-end test (README.md).
        "starts": [{"c_front": 100, "c_rear": 75, "c_cab": 30, "c_seat": 4}],
        "load_cases": [{"name": n, "time": {"unit": "s", "start": 0.0, "end": t,
                                            "points": int(POINTS_PER_S * t) + 1},
                        "parameters": {"road": road, "speed": v}}
                       for n, road, v, t in CASES],
        "responses": [
            history("driver_acc", "Driver vertical acceleration", "m/s^2", source="driver.ay"),
            *[history(source, source_label, "m", source=f"{element}.length")
              for _, _, source, source_label, element, _ in STROKES],
            *[history(name, label, "m", expression=f"{source} - {r(free)}")
              for name, label, source, _, _, free in STROKES]],
        "objective": {"name": "rms_driver_acc", "label": "Driver's RMS vertical acceleration, "
                      "rough road", "unit": "m/s^2", "minimize":
                      f"sqrt(trapz(driver_acc@rough^2) / {rough_time})"},
        "constraints": [
            both("front_travel", "Front suspension travel", "front_travel", "travel"),
            both("rear_travel", "Rear suspension travel", "rear_travel", "travel"),
            *[lift(f"{end}_lift_{case}", end, case, bound) for case in LIFT_CASES
              for end, bound in (("front", LIFT_FRONT), ("rear", LIFT_REAR))],
            both("cab_front", "Front cab mount stroke", "cab_front_stroke", CAB_STROKE),
            both("cab_rear", "Rear cab mount stroke", "cab_rear_stroke", CAB_STROKE),
            both("seat", "Seat stroke", "seat_stroke", SEAT_STROKE)],
        "settings": {"objacc": 0.1, "vioacc": 0.1, "max_cycles": 30},
        "simulator": {"type": "internal", "model": "multibody", "rtol": 1e-6, "atol": 1e-9,
                      "gradients": {"method": "direct"}, "multibody": model()},
    }


def summary():
    print(f"frame {FRAME_LENGTH} m, {ELEMENTS} elements, density {FRAME_DENSITY:.0f} kg/m^3, "
          f"EI {E_STEEL * BODY_STIFFENING * RAIL_I:.3g} N m^2")
    print(f"sprung front {SPRUNG_FRONT:.0f} kg, rear {SPRUNG_REAR:.0f} kg; axle loads "
          f"{AXLE_LOAD_FRONT:.0f} / {AXLE_LOAD_REAR:.0f} kg")
    print(f"springs front {K_FRONT:.4g}, rear {K_REAR:.4g} N/m; tyres {K_TYRE_FRONT:.3g} / "
          f"{K_TYRE_REAR:.3g} N/m; lift-off at {LIFT_FRONT:.4f} / {LIFT_REAR:.4f} m")
    print(f"cab mounts {K_CAB_FRONT:.4g} / {K_CAB_REAR:.4g} N/m; seat {K_SEAT:.4g} N/m; "
          f"cushion {K_CUSHION:.4g} N/m, {C_CUSHION:.4g} N s/m")
    m = FRAME_DENSITY * RAIL_AREA
    w1 = 4.730**2 * math.sqrt(E_STEEL * BODY_STIFFENING * RAIL_I / (m * FRAME_LENGTH**4))
    print(f"free-free first bending of the loaded frame alone: {w1 / (2 * math.pi):.2f} Hz")


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "ride-comfort.json"), "w") as f:
        json.dump(study(), f, indent=1)
        f.write("\n")
    summary()
