"""The impact absorber of seed 003 (2.5.1) as a Python simulator (docs/python.md).

A mass m = 1 kg on a spring k [N/m] and a damper c [Ns/m], hit with velocity v0:
y'' + c y' + k y = 0, y(0) = y0, y'(0) = v0, solved in closed form for a whole batch of
designs at once: with s = -c/2 and q = sqrt(c^2/4 - k) (complex when underdamped),
x(t) = e^(s t) [cosh(q t) I + sinh(q t)/q (A - s I)] x0, A = [[0, 1], [-k, -c]].
The design variables are (k, c).
"""
import numpy as np

import sao


@sao.simulator(responses={"y": "history", "ydot": "history", "yddot": "history"},
               thread_safe=True)
def simulate(designs, load_case):
    k, c = designs[:, :1], designs[:, 1:2]              # (runs, 1): broadcast over the times
    t = np.asarray(load_case["times"])[None, :]         # (1, points)
    y0 = load_case["parameters"].get("y0", 0.0)
    v0 = load_case["parameters"].get("v0", 1.0)
    s = -c / 2
    q = np.sqrt((c * c / 4 - k).astype(complex))
    qt = q * t
    sinhc = np.where(np.abs(qt) < 1e-8, t + 0j, np.sinh(qt) / np.where(q == 0, 1, q))
    e = np.exp(s * t)
    y = e * (np.cosh(qt) * y0 + sinhc * (c / 2 * y0 + v0)).real
    ydot = e * (np.cosh(qt) * v0 + sinhc * (-k * y0 - c / 2 * v0)).real
    return {"y": y, "ydot": ydot, "yddot": -c * ydot - k * y}
