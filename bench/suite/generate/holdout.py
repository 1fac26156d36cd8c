"""Writes a holdout set: problems the optimizer was never tuned on, kept out of problems/suite so
that no change is ever measured against them before it lands (issue 47's "problems nobody here
tuned it to"). Hock-Schittkowski problems the suite does not have (bound-constrained ones,
equalities, Colville's function) and reciprocal sizing problems of 12, 30 and 60
variables whose optimum is built from their KKT conditions (convex: a linear objective over
constraints sum_j a_ij / x_j <= 1). Each optimum is the published one, or for the sizing problems
the constructed one; no optimizer refines them. Not HS 13: at its cusp every violation v of
its constraint buys a gain of about 2 v^(1/3) in f, so no f* holds within a feasibility
tolerance (SLSQP finds f = 0.996 at a violation of 8e-9, and the optima check fails).

    /usr/bin/python3 bench/suite/generate/holdout.py DIR
    build/sao_suite --path internal --methods sao,slsqp,ipopt --dir DIR

needs Debian's python3-numpy (the sizing problems' data, from a seeded generator).
"""
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import C, Problem, V, fmt_study  # noqa: E402
from hs import GEN, hs, xs  # noqa: E402
from hs import rosen as ROSEN  # noqa: E402


def hock_schittkowski():
    """(problem, x*, local minima [(x, source)])"""
    P = []
    P.append((hs(1, "Rosenbrock's function, one bound", xs(2, [-10, -1.5], [10, 10], [-2, 1]),
                 {"f": ROSEN}, [], 0, [1, 1], GEN), [1, 1], []))
    # x2 >= 1.5 active: f = 100 (1.5 - x1^2)^2 + (1 - x1)^2 has a minimum on either side of 0.
    P.append((hs(2, "Rosenbrock's function, an active bound", xs(2, [-10, 1.5], [10, 10], [-2, 1.5]),
                 {"f": ROSEN}, [], 0.0504261879, [1.2243707487363524, 1.5],
                 "the original start (-2, 1) is below the bound x2 >= 1.5: x2 starts on it"),
              [1.2243707487363524, 1.5],
              [([-1.2210262421071016, 1.5], "x2 on its bound 1.5, x1 at the minimum of the "
                "objective along it on the side of the start (found by SAO and SLSQP)")]))
    P.append((hs(4, "cubic objective, two bounds", xs(2, [1, 0], [10, 10], [1.125, 0.125]),
                 {"f": "(x1 + 1)^3/3 + x2"}, [], 8 / 3, [1, 0], GEN), [1, 0], []))
    P.append((hs(5, "trigonometric objective, bounds", xs(2, [-1.5, -3], [4, 3], [0, 0]),
                 {"f": "sin(x1 + x2) + (x1 - x2)^2 - 1.5*x1 + 2.5*x2 + 1"}, [],
                 -math.sqrt(3) / 2 - math.pi / 3, None),
              [0.5 - math.pi / 3, -0.5 - math.pi / 3], []))
    P.append((hs(6, "one quadratic equality", xs(2, -10, 10, [-1.2, 1]),
                 {"f": "(1 - x1)^2", "h1": "10*(x2 - x1^2)"}, [C("h1", equals=0, scale=1)], 0,
                 [1, 1], GEN, ["equality"]), [1, 1], []))
    P.append((hs(7, "a logarithm, one quartic equality", xs(2, -10, 10, [2, 2]),
                 {"f": "log(1 + x1^2) - x2", "h1": "(1 + x1^2)^2 + x2^2"}, [C("h1", equals=4)],
                 -math.sqrt(3), [0, math.sqrt(3)], GEN, ["equality"]), [0, math.sqrt(3)],
              [([0, -math.sqrt(3)], "the equality's other pole: along it f = sqrt(3) + "
                "(1 - 1/sqrt(3)) x1^2 + ..., least at x1 = 0; found by SAO from the random starts "
                "of `sao_suite --starts random --seed 9` and `--seed 11`")]))
    a = math.sqrt((25 + math.sqrt(625 - 324)) / 2)
    P.append((hs(8, "constant objective, two equalities", xs(2, -10, 10, [2, 1]),
                 {"f": "-1 + 0*x1", "h1": "x1^2 + x2^2", "h2": "x1*x2"},
                 [C("h1", equals=25), C("h2", equals=9)], -1, None, GEN, ["equality"]),
              [a, 9 / a], []))
    P.append((hs(9, "trigonometric objective, one linear equality", xs(2, -10, 10, [0, 0]),
                 {"f": "sin(pi*x1/12)*cos(pi*x2/16)", "h1": "4*x1 - 3*x2"},
                 [C("h1", equals=0, scale=1)], -0.5, [-3, -4], GEN, ["equality"]), [-3, -4],
              [([7.5, 10], "x2 at its upper bound 10 (a bound added here), the equality active: "
                           "f = sin(pi x2 / 8) / 2 along it falls towards the bound; found by SAO "
                           "from the random start of `sao_suite --starts random --seed 4`")]))
    P.append((hs(38, "Colville's function, bounds", xs(4, -10, 10, [-3, -1, -3, -1]),
                 {"f": "100*(x2 - x1^2)^2 + (1 - x1)^2 + 90*(x4 - x3^2)^2 + (1 - x3)^2"
                       " + 10.1*((x2 - 1)^2 + (x4 - 1)^2) + 19.8*(x2 - 1)*(x4 - 1)"},
                 [], 0, [1, 1, 1, 1]), [1, 1, 1, 1], []))
    P.append((hs(45, "a product, bounds", xs(5, 0, [1, 2, 3, 4, 5], [1, 2, 2, 2, 2]),
                 {"f": "2 - x1*x2*x3*x4*x5/120"}, [], 1, [1, 2, 3, 4, 5],
                 "the original start (2, ..., 2) is outside the bound x1 <= 1: x1 starts at 1"),
              [1, 2, 3, 4, 5], []))
    # x* on c2 (x1^2 = x2) and c3 (x1^2 + x2^2 = 1): x2 = t, t + t^2 = 1. The book's
    # f* = 3.19033354957 is that of its rounded x* = (-0.786150334, 0.618034), which violates c2
    # by 1.7e-6; the exact x* gives 3.1903367.
    t = (math.sqrt(5) - 1) / 2
    P.append((hs(58, "Rosenbrock's function, three quadratic inequalities",
                 xs(2, [-2, -10], [0.5, 10], [-2, 1]),
                 {"f": ROSEN, "c1": "x2^2 - x1", "c2": "x1^2 - x2", "c3": "x1^2 + x2^2"},
                 [C("c1", lower=0, scale=1), C("c2", lower=0, scale=1), C("c3", lower=1)],
                 None, None, GEN), [-math.sqrt(t), t],
              [([0.009901006798161242, -0.999950983830899],
                "c3 active (the unit circle) near (0, -1): along it f = 100.990099 is least there "
                "(the Hessian along the circle 202); found by SAO from the random start of "
                "`sao_suite --starts random --seed 5`")]))
    f110 = " + ".join("log(x%d - 2)^2 + log(10 - x%d)^2" % (i, i) for i in range(1, 11))
    product = "*".join("x%d" % i for i in range(1, 11))
    P.append((hs(110, "logarithms and a product, bounds", xs(10, 2.001, 9.999, 9),
                 {"f": f110 + " - (" + product + ")^0.2"}, [], -45.7784697, [9.35025655] * 10),
              [9.35025655] * 10, []))
    return P


def reciprocal_sizing(n, m, seed):
    """Minimise sum c_j x_j subject to sum_j a_ij / x_j <= 1 (i = 1..m), 0.1 <= x <= 20, from
    x = 10: x* drawn in [1, 4], a_ij >= 0 (60 % nonzero) scaled so that every row is active at
    x*, multipliers lambda_i in [0.5, 2] and c_j = sum_i lambda_i a_ij / x*_j^2 (stationarity).
    The problem is convex, so x* is its minimum."""
    rng = np.random.default_rng(seed)
    xstar = rng.uniform(1, 4, n)
    a = rng.uniform(0.1, 1, (m, n)) * (rng.uniform(0, 1, (m, n)) < 0.6)
    for i in range(m):
        if not a[i].any():
            a[i, rng.integers(n)] = 1
        a[i] /= np.sum(a[i] / xstar)
    c = (rng.uniform(0.5, 2, m) @ a) / xstar ** 2
    if not (c > 0).all():
        raise SystemExit("reciprocal sizing %d-%d: a variable in no constraint" % (n, m))
    functions = {"f": " + ".join("%.17g*x%d" % (c[j], j + 1) for j in range(n))}
    constraints = []
    for i in range(m):
        functions["g%d" % (i + 1)] = " + ".join(
            "%.17g/x%d" % (a[i, j], j + 1) for j in range(n) if a[i, j] > 0)
        constraints.append(C("g%d" % (i + 1), upper=1))
    variables = [V("x%d" % (j + 1), 0.1, 20, 10) for j in range(n)]
    name = "reciprocal-sizing-%d" % n
    description = ("Reciprocal sizing: %d variables, %d constraints sum_j a_ij / x_j <= 1, a "
                   "linear objective; the optimum built from its KKT conditions (convex)" % (n, m))
    return Problem(name, description, "this project (bench/suite/generate/holdout.py)",
                   variables, functions, "f", constraints, None, list(xstar)), list(xstar), []


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: holdout.py DIR")
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    problems = hock_schittkowski() + [reciprocal_sizing(12, 6, 1), reciprocal_sizing(30, 12, 2),
                                      reciprocal_sizing(60, 20, 3)]
    entries = []
    for p, x, local in problems:
        f = p.f(x)
        violation = p.rows(x).max() if p.m() else 0.0
        assert violation <= 1e-9, (p.name, violation)
        if p.f_literature is not None:
            assert abs(f - p.f_literature) <= 1e-8 * max(1.0, abs(f)), (p.name, f)
        e = {"problem": p.name, "n": p.n(), "m": p.m(), "f": f, "x": [float(v) for v in x],
             "source": p.source}
        if local:
            e["local_minima"] = [{"f": p.f(lx), "x": lx, "source": s} for lx, s in local]
        entries.append(e)
        with open(os.path.join(folder, p.name + ".json"), "w") as out:
            out.write(fmt_study(p.study()))
        print("%-22s n=%3d m=%3d f*=%.12g" % (p.name, p.n(), p.m(), f))
    with open(os.path.join(folder, "optima.json"), "w") as out:
        json.dump({"problems": entries}, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
