#!/usr/bin/env python3
"""The crank's root stress of the four-bar with rigid links (docs/four-bar-flexible.md).

python3 problems/four-bar-flexible/rigid_reference.py [d1 d2 d3]   # diameters in m

Independent of the simulator: closed-form positions (open branch, crank angle 10 pi t from the
ground line), accelerations by central differences, and the pin forces from Newton-Euler for
coupler and rocker (six linear equations). The crank turns at constant speed, so its own
inertia loads are radial and the bending moment at its driven node is the moment of the pin
force at A about O. Prints the peak ratio 32|M|/(pi d1^3)/sigma_a on the seed's 201 points
over [0.3, 0.5] s twice: for slender links (J = m l^2/12, PROBLEMS.md's reference) and for
solid cylinders (J = m (l^2/12 + d^2/16): the sections' rotary inertia, which the beam
elements carry).

python3 problems/four-bar-flexible/rigid_reference.py --optimum

The rigid-link optimum, independently of the simulator and its optimiser: the bending moments
at the links' nodes (sixths of each link) from the same pin forces and the links' distributed
inertia (rigid motion: the acceleration is linear along a link), for slender links and with
the sections' rotary inertia. Coupler and rocker are pinned at both ends, so their moments come
from their own inertia only and scale as d^2 (slender) against W = pi d^3/32: each diameter is
the one at which its peak stress is sigma_a (a fixed point, exact in one step for slender
links). The crank's root moment then sets d1 = (32 M / (pi sigma_a))^(1/3). Prints d1 d2 d3 in
mm and the mass in kg for each model.
"""
import math
import sys

L1, L2, L3, L4 = 0.3048, 0.9144, 0.762, 0.9144
RHO, SIGMA_A, OMEGA = 2757.0, 2.758e7, 10 * math.pi


def pose(t):
    """Crank pin A, coupler-rocker pin B, and the coupler's and rocker's angles at t."""
    theta = OMEGA * t
    return close_loop((L1 * math.cos(theta), L1 * math.sin(theta)))


def close_loop(a):
    """Pin A at a: pin B (open branch) and the coupler's and rocker's angles."""
    dx, dy = L4 - a[0], -a[1]
    dist = math.hypot(dx, dy)
    along = (L2**2 - L3**2 + dist**2) / (2 * dist)
    h = math.sqrt(L2**2 - along**2)
    b = (a[0] + (along * dx - h * dy) / dist, a[1] + (along * dy + h * dx) / dist)
    return a, b, math.atan2(b[1] - a[1], b[0] - a[0]), math.atan2(b[1], b[0] - L4)


def second_derivative(f, t, h=1e-5):
    return (f(t + h) - 2 * f(t) + f(t - h)) / (h * h)


def solve(matrix, rhs):
    """Gaussian elimination with partial pivoting."""
    n = len(rhs)
    m = [row[:] + [rhs[i]] for i, row in enumerate(matrix)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                for k in range(c, n + 1):
                    m[r][k] -= f * m[c][k]
    return [m[i][n] / m[i][i] for i in range(n)]


def root_moment(t, d2, d3, rotary):
    return moments(t, d2, d3, rotary)[0]


def moments(t, d2, d3, rotary):
    """|M| at the crank's root, and at the 7 nodes of the coupler (from A) and rocker (from D)."""
    a, b, phi2, phi3 = pose(t)
    m2, m3 = RHO * math.pi * d2**2 / 4 * L2, RHO * math.pi * d3**2 / 4 * L3
    j2 = m2 * (L2**2 / 12 + (d2**2 / 16 if rotary else 0.0))
    j3 = m3 * (L3**2 / 12 + (d3**2 / 16 if rotary else 0.0))
    g2 = lambda s, i: (pose(s)[0][i] + pose(s)[1][i]) / 2  # noqa: E731
    g3 = lambda s, i: (pose(s)[1][i] + (L4 if i == 0 else 0.0)) / 2  # noqa: E731
    a2 = [second_derivative(lambda s: g2(s, i), t) for i in range(2)]
    a3 = [second_derivative(lambda s: g3(s, i), t) for i in range(2)]
    alpha2 = second_derivative(lambda s: pose(s)[2], t)
    alpha3 = second_derivative(lambda s: pose(s)[3], t)
    ra = (a[0] - g2(t, 0), a[1] - g2(t, 1))
    rb = (b[0] - g2(t, 0), b[1] - g2(t, 1))
    rb3 = (b[0] - g3(t, 0), b[1] - g3(t, 1))
    rd = (L4 - g3(t, 0), -g3(t, 1))
    # Unknowns: the forces on the coupler at A and B, on the rocker from the ground at D.
    matrix = [[1, 0, 1, 0, 0, 0], [0, 1, 0, 1, 0, 0],
              [-ra[1], ra[0], -rb[1], rb[0], 0, 0],
              [0, 0, -1, 0, 1, 0], [0, 0, 0, -1, 0, 1],
              [0, 0, rb3[1], -rb3[0], -rd[1], rd[0]]]
    f = solve(matrix, [m2 * a2[0], m2 * a2[1], j2 * alpha2, m3 * a3[0], m3 * a3[1], j3 * alpha3])
    # Along a link from its pin P (unit vector e, acceleration a_P, angular acceleration alpha,
    # end force F): the moment at distance s of the forces on [0, s] about that point,
    # -s e x F + rho A (e x a_P s^2/2 + alpha s^3/6) - rho I alpha s.
    a_a = [second_derivative(lambda s: pose(s)[0][i], t) for i in range(2)]

    def along(length, d, phi, a_p, alpha, force):
        e = (math.cos(phi), math.sin(phi))
        area, inertia = math.pi * d**2 / 4, (math.pi * d**4 / 64 if rotary else 0.0)
        cross_f, cross_a = e[0] * force[1] - e[1] * force[0], e[0] * a_p[1] - e[1] * a_p[0]
        return [abs(-s * cross_f + RHO * area * (cross_a * s**2 / 2 + alpha * s**3 / 6)
                    - RHO * inertia * alpha * s)
                for s in (length * k / 6 for k in range(7))]

    crank = abs(a[0] * f[1] - a[1] * f[0])  # |A x F_A|: the crank's moment at O
    return (crank, along(L2, d2, phi2, a_a, alpha2, f[0:2]),
            along(L3, d3, phi3, (0.0, 0.0), alpha3, f[4:6]))


def optimum(rotary):
    """The diameters at which each link's peak stress over the seed's grid is sigma_a."""
    grid = [0.3 + 0.001 * k for k in range(201)]
    d = [0.035, 0.023, 0.018]
    for _ in range(20):
        peaks = [0.0, 0.0, 0.0]
        for t in grid:
            crank, coupler, rocker = moments(t, d[1], d[2], rotary)
            peaks = [max(peaks[0], crank), max(peaks[1], *coupler), max(peaks[2], *rocker)]
        ratio = [32 * m / (math.pi * di**3) / SIGMA_A for m, di in zip(peaks, d)]
        new = [d[0] * ratio[0] ** (1 / 3), d[1] * ratio[1], d[2] * ratio[2]]
        done = max(abs(n - o) for n, o in zip(new, d)) < 1e-9
        d = new
        if done:
            break
    mass = RHO * math.pi / 4 * (L1 * d[0] ** 2 + L2 * d[1] ** 2 + L3 * d[2] ** 2)
    return d, mass


def main():
    if sys.argv[1:] == ["--optimum"]:
        for label, rotary in (("slender", False), ("rotary", True)):
            d, mass = optimum(rotary)
            print(f"{label} {1000 * d[0]:.3f} {1000 * d[1]:.3f} {1000 * d[2]:.3f} mm {mass:.4f} kg")
        return
    d1, d2, d3 = (float(v) for v in sys.argv[1:4]) if len(sys.argv) == 4 else (0.3568,) * 3
    w = math.pi * d1**3 / 32
    for label, rotary in (("slender", False), ("rotary", True)):
        peak = max(root_moment(0.3 + 0.001 * k, d2, d3, rotary) for k in range(201))
        print(f"{label} {peak / w / SIGMA_A:.5f}")


if __name__ == "__main__":
    main()
