import math, sys
import numpy as np
from scipy.optimize import minimize

def central_grad(fun, y, h=1e-7):
    g = np.zeros_like(y)
    for i in range(len(y)):
        s = h * (1 + abs(y[i]))
        e = np.zeros_like(y); e[i] = s
        g[i] = (fun(y + e) - fun(y - e)) / (2 * s)
    return g

def refine(p, starts_extra=0, seed=1, verbose=False, maxiter=3000):
    x0 = p.start()
    xp = np.array(p.x_published, float) if p.x_published is not None else None
    s = np.maximum(np.abs(x0), 1.0)
    if xp is not None:
        s = np.maximum(s, np.abs(xp))
    bnds = p.bounds()
    ybnds = [((lo / si) if lo is not None else None, (hi / si) if hi is not None else None) for (lo, hi), si in zip(bnds, s)]
    fs = max(1.0, abs(p.f(xp if xp is not None else x0)))
    def fy(y):
        try:
            return p.f(y * s) / fs
        except (ValueError, ZeroDivisionError, OverflowError):
            return 1e30
    cons = []
    for c in p.constraints:
        def mk(c, key, sign):
            b = c[key]; N = p.normaliser(c, b)
            def fun(y):
                try:
                    return sign * (p.values(y * s)[c["of"]] - b) / N
                except (ValueError, ZeroDivisionError, OverflowError):
                    return -1e30
            return fun
        if "equals" in c:
            fn = mk(c, "equals", 1.0); cons.append({"type": "eq", "fun": fn, "jac": (lambda fn: lambda y: central_grad(fn, y))(fn)})
        if "upper" in c:
            fn = mk(c, "upper", -1.0); cons.append({"type": "ineq", "fun": fn, "jac": (lambda fn: lambda y: central_grad(fn, y))(fn)})
        if "lower" in c:
            fn = mk(c, "lower", 1.0); cons.append({"type": "ineq", "fun": fn, "jac": (lambda fn: lambda y: central_grad(fn, y))(fn)})
    starts = []
    if xp is not None: starts.append(xp / s)
    starts.append(x0 / s)
    rng = np.random.default_rng(seed)
    for k in range(starts_extra):
        y = []
        for (lo, hi), yi in zip(ybnds, x0 / s):
            a = lo if lo is not None else yi - 2
            b = hi if hi is not None else yi + 2
            y.append(rng.uniform(a, b))
        starts.append(np.array(y))
    best = None
    results = []
    for y0 in starts:
        y0 = np.array([min(max(v, lo if lo is not None else -np.inf), hi if hi is not None else np.inf) for v, (lo, hi) in zip(y0, ybnds)])
        try:
            r = minimize(fy, y0, jac=lambda y: central_grad(fy, y), bounds=ybnds, constraints=cons, method="SLSQP",
                         options={"ftol": 1e-15, "maxiter": maxiter})
        except Exception as e:
            continue
        x = r.x * s
        try:
            viol = max(p.rows(x).max(), 0) if p.m() else 0
            f = p.f(x)
        except Exception:
            continue
        results.append((f, viol, x))
        if viol <= 1e-9 and math.isfinite(f) and (best is None or f < best[0] - 1e-12 * max(1, abs(f))):
            best = (f, viol, x)
    return best, results

def start_violation(p):
    r = p.rows(p.start())
    return float(r.max()) if len(r) else 0.0

def sig(v, d=12):
    return float("%.*g" % (d, v))
