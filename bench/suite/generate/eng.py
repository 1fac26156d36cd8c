import math
import numpy as np
from lib import Problem, V, C

P = []
ST = {"objacc": 0.001, "vioacc": 0.001, "max_cycles": 100}

# Svanberg's two-bar truss
P.append(Problem("two-bar-truss",
    "two-bar truss: weight of a symmetric two-bar truss under an oblique load, the area x1 and the half span x2, stress limits in both bars. Source: Svanberg, The method of moving asymptotes, IJNME 24 (1987), the two-bar truss (c1 = 1, c2 = 0.124): x* = (1.41, 0.38), f* = 1.51.",
    "Svanberg, The method of moving asymptotes, IJNME 24 (1987), two-bar truss: x* = (1.41, 0.38), f* = 1.51",
    [V("x1", 0.2, 4.0, 1.5, label="bar cross-section area", unit="cm^2"), V("x2", 0.1, 1.6, 0.5, label="half span", unit="m")],
    {"f": "x1*sqrt(1 + x2^2)", "s1": "0.124*sqrt(1 + x2^2)*(8/x1 + 1/(x1*x2))", "s2": "0.124*sqrt(1 + x2^2)*(8/x1 - 1/(x1*x2))"},
    "f", [C("s1", upper=1), C("s2", upper=1)], 1.51, [1.41, 0.38],
    labels={"f": "weight (c1 = 1)", "s1": "stress of bar 1 / allowable", "s2": "stress of bar 2 / allowable"}))

# Rao's tubular column
P.append(Problem("tubular-column",
    "tubular column: cost of a uniform tubular column (mean diameter d, wall thickness t) carrying P = 2500 kgf over l = 250 cm, yield stress 500 kgf/cm^2, Euler buckling with E = 0.85e6 kgf/cm^2. Source: Rao, Engineering Optimization: Theory and Practice, example 1.1: x* = (5.44, 0.293), f* = 26.53.",
    "Rao, Engineering Optimization: Theory and Practice (4th ed. 2009), example 1.1 (graphical solution): x* = (5.44, 0.293), f* = 26.53",
    [V("d", 2, 14, 7, label="mean diameter", unit="cm"), V("t", 0.2, 0.8, 0.4, label="wall thickness", unit="cm")],
    {"f": "9.82*d*t + 2*d", "stress": "2500/(pi*d*t)", "buckling": "8*2500*250^2/(pi^3*0.85e6*d*t*(d^2 + t^2))"},
    "f", [C("stress", upper=500), C("buckling", upper=1)], 26.53, [5.44, 0.293],
    notes="start (7, 0.4) chosen here (the source solves it graphically)",
    labels={"f": "cost", "stress": "compressive stress", "buckling": "load / Euler buckling load"},
    units={"stress": "kgf/cm^2"}))

# Corrugated bulkhead
P.append(Problem("corrugated-bulkhead",
    "corrugated bulkhead of a chemical tanker: weight per unit width in the width b, depth h, length l and plate thickness t of the corrugation, section modulus, moment of inertia and plate thickness limits. Source: Ravindran & Ragsdell (1979) after Kvalie, e.g. Kumar et al., A test-suite of non-convex constrained optimization problems from the real world, Swarm Evol. Comput. 56 (2020), RC07: f* = 6.8429580.",
    "Ravindran & Ragsdell (1979), corrugated bulkhead; e.g. Kumar et al., Swarm Evol. Comput. 56 (2020), problem RC07: f* = 6.8429580",
    [V("b", 0.001, 100, 50, label="width", unit="-"), V("h", 0.001, 100, 40, label="depth", unit="-"),
     V("l", 0.001, 100, 60, label="length", unit="-"), V("t", 0.001, 5, 2, label="plate thickness", unit="-")],
    {"f": "5.885*t*(b + l)/(b + sqrt(abs(l^2 - h^2)))",
     "g1": "-t*h*(0.4*b + l/6) + 8.94*(b + sqrt(abs(l^2 - h^2)))",
     "g2": "-t*h^2*(0.2*b + l/12) + 2.2*(8.94*(b + sqrt(abs(l^2 - h^2))))^(4/3)",
     "g3": "t - 0.0156*b", "g4": "t - 0.0156*l", "g6": "l - h"},
    "f", [C("g1", upper=0, scale=100), C("g2", upper=0, scale=1000), C("g3", lower=0.15), C("g4", lower=0.15), C("t", of="t", lower=1.05) if False else C("g6", lower=0, scale=10)],
    6.8429580, [57.69231, 34.14762, 57.69231, 1.05],
    notes="lower bounds 0.001 instead of 0; t >= 1.05 (g5 of the source) is folded into the bounds: 1.05 <= t; sqrt(abs(l^2 - h^2)) keeps the functions finite where h > l (infeasible by g6); start chosen here",
    labels={"f": "weight", "g1": "section modulus constraint", "g2": "moment of inertia constraint", "g3": "thickness for the width", "g4": "thickness for the length", "g6": "length - depth"}))
# fold g5 into the bound on t
P[-1].variables[3]["lower"] = 1.05

# Svanberg's cantilever with N segments (scalable form of cantilever-5)
def svanberg_cantilever(N):
    names = ["x%d" % (j + 1) for j in range(N)]
    coef = [((N - j) ** 3 - (N - j - 1) ** 3) * (5.0 / N) ** 3 for j in range(N)]
    g = " + ".join("%s/%s^3" % (repr(float("%.15g" % c)), v) for c, v in zip(coef, names))
    f = "%s*(%s)" % (repr(0.0624 * 5.0 / N), " + ".join(names))
    # analytic optimum: x_j = (3 lam a_j / c)^(1/4); constraint active
    c = 0.0624 * 5.0 / N
    a = np.array(coef)
    # x_j = k a_j^(1/4); sum a_j / (k^3 a_j^(3/4)) = 1 -> k^3 = sum a_j^(1/4)
    k = np.sum(a ** 0.25) ** (1 / 3)
    x = k * a ** 0.25
    fstar = c * np.sum(x)
    return Problem("cantilever-%d" % N,
        "cantilever of %d segments of square hollow section (%d variables): weight under a tip deflection limit. Source: Svanberg, The method of moving asymptotes, IJNME 24 (1987), the 5-segment cantilever of cantilever-5 divided into %d segments of the same total length (its deflection coefficients ((N - j + 1)^3 - (N - j)^3)(5/N)^3); optimum computed here." % (N, N, N),
        "Svanberg, The method of moving asymptotes, IJNME 24 (1987), 5-segment cantilever, generalised here to %d segments; optimum computed here" % N,
        [V(v, 1, 10, 5, label="segment %d width" % (j + 1)) for j, v in enumerate(names)],
        {"f": f, "c1": g}, "f", [C("c1", upper=1)], None, list(np.clip(x, 1, 10)),
        notes="bounds 1 <= x <= 10 added, as in cantilever-5; f*, x* computed here (SLSQP from the Lagrange solution x_j = k a_j^(1/4) clipped to the bounds: the shortest segments stay at the lower bound)",
        labels={"f": "weight", "c1": "tip deflection / allowable"})
P.append(svanberg_cantilever(50))

# Vanderplaats' stepped cantilever with N segments
def stepped(N):
    P_, L, E = 50000.0, 500.0, 2e7
    l = L / N
    vs = [V("b%d" % (i + 1), 1, 20, 5, label="segment %d width" % (i + 1), unit="cm") for i in range(N)] + \
         [V("h%d" % (i + 1), 5, 100, 60, label="segment %d height" % (i + 1), unit="cm") for i in range(N)]
    fun = {"f": " + ".join("%s*b%d*h%d" % (repr(l), i + 1, i + 1) for i in range(N))}
    cons_s, cons_r = [], []
    labels, units = {"f": "volume"}, {"f": "cm^3"}
    dcoef = []
    for i in range(N):
        a = i * l
        M = P_ * (L - a)
        fun["s%d" % (i + 1)] = "%s/(b%d*h%d^2)" % (repr(float("%.15g" % (6 * M))), i + 1, i + 1)
        fun["r%d" % (i + 1)] = "h%d/b%d" % (i + 1, i + 1)
        labels["s%d" % (i + 1)] = "segment %d bending stress" % (i + 1); units["s%d" % (i + 1)] = "N/cm^2"
        labels["r%d" % (i + 1)] = "segment %d height / width" % (i + 1)
        cons_s.append(C("s%d" % (i + 1), upper=14000)); cons_r.append(C("r%d" % (i + 1), upper=20))
        dcoef.append(4 * P_ / E * ((L - a) ** 3 - (L - a - l) ** 3))
    fun["delta"] = " + ".join("%s/(b%d*h%d^3)" % (repr(float("%.15g" % c)), i + 1, i + 1) for i, c in enumerate(dcoef))
    labels["delta"] = "tip deflection"; units["delta"] = "cm"
    # reorder responses as the 10-segment file: f, s1, r1, s2, r2, ..., delta
    order = ["f"] + [k for i in range(N) for k in ("s%d" % (i + 1), "r%d" % (i + 1))] + ["delta"]
    fun = {k: fun[k] for k in order}
    return Problem("stepped-cantilever-%d" % N,
        "stepped cantilever of %d segments (%d variables): volume under stress, aspect and tip deflection limits. Source: Vanderplaats (1984) stepped cantilever (P = 50 kN, L = 500 cm, E = 2e7 N/cm^2, stress <= 14000 N/cm^2, h/b <= 20, tip deflection <= 2.7 cm) with %d segments, as stepped-cantilever-10; optimum computed here." % (N, 2 * N, N),
        "Vanderplaats (1984) stepped cantilever with %d segments; optimum computed here" % N,
        vs, fun, "f", cons_s + cons_r + [C("delta", upper=2.7)], None, None,
        notes="f*, x* computed here (SLSQP from several starts)", labels=labels, units=units)
P.append(stepped(25))
P.append(stepped(50))
