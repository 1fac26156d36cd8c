#!/usr/bin/env python3
"""How the start-up and the damping move the four-bar's peak stresses (docs/four-bar-flexible.md).

python3 problems/four-bar-flexible/startup_table.py [--design D1 D2 D3] [--cpu-limit S]
    [variant ...]

A variant is START:MU, START one of `ramp` (flexible.json: from rest, the crank brought to
10 pi rad/s over 0.1 s) or `sudden` (flexible-sudden-start.json: every link in its rigid motion
at t = 0, unbent, the crank at 10 pi rad/s from then on), MU the stiffness-proportional damping
in s. Each is one `build/sao evaluate` at the design (default: the flexible run's optimum,
34.99, 22.33, 18.84 mm), stopped after --cpu-limit CPU seconds (default 600). Prints one
Markdown row each: the largest |stress| of each link over [0.3, 0.5] s relative to the limit
(% above it, the evaluate table's g_hat), and the mass that design would need for these peaks.

The implied mass rescales each link to its peak: coupler and rocker bend under their own inertia
(M ~ d^2 against W ~ d^3, so d ~ peak), the crank under the pin force at A (d1 ~ peak^(1/3)),
and the crank's moment follows the new d2 and d3 as the rigid links' (rigid_reference.py). An
estimate, not a run: a vibration's frequency moves with d, its amplitude does not scale so.
"""
import argparse
import math
import os
import re
import resource
import subprocess
import sys

import rigid_reference

HERE = os.path.dirname(os.path.abspath(__file__))
SAO = os.path.join(HERE, "..", "..", "build", "sao")
STUDIES = {"ramp": "flexible.json", "sudden": "flexible-sudden-start.json"}
DEFAULT = ["ramp:2e-4", "ramp:1e-4", "ramp:4e-4", "ramp:2e-5", "sudden:2e-4", "sudden:1e-4",
           "sudden:2e-5", "sudden:1e-5", "sudden:0", "ramp:0"]
ROW = re.compile(r"^\s+stress_(crank|coupler|rocker)_\d\[[+-]\]\s+\S+\s+\S+\s+(\S+)\s", re.M)


def crank_peak(d2, d3):
    return max(rigid_reference.root_moment(0.3 + 0.001 * k, d2, d3, True) for k in range(201))


def implied_mass(design, ratio):
    d1, d2, d3 = design
    n2, n3 = d2 * ratio["coupler"], d3 * ratio["rocker"]
    n1 = d1 * (ratio["crank"] * crank_peak(n2, n3) / crank_peak(d2, d3)) ** (1 / 3)
    L1, L2, L3 = rigid_reference.L1, rigid_reference.L2, rigid_reference.L3
    return rigid_reference.RHO * math.pi / 4 * (L1 * n1**2 + L2 * n2**2 + L3 * n3**2)


def evaluate(start, mu, design, cpu_limit):
    args = [SAO, "evaluate", os.path.join(HERE, STUDIES[start]),
            "--set", f"simulator.multibody.parameters.mu={mu}"]
    for i, d in enumerate(design):
        args += ["--set", f"design_variables.{i}.initial={d}"]

    def limit():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit))

    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    run = subprocess.run(args, capture_output=True, text=True, preexec_fn=limit, check=False)
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
    peaks = {}
    for link, g_hat in ROW.findall(run.stdout):
        peaks[link] = max(peaks.get(link, -math.inf), float(g_hat))
    return run.returncode, peaks, cpu, (run.stderr.strip().splitlines() or [""])[-1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--design", nargs=3, type=float, default=[0.03499, 0.02233, 0.01884])
    parser.add_argument("--cpu-limit", type=int, default=600)
    parser.add_argument("variants", nargs="*", default=DEFAULT)
    a = parser.parse_args()
    print("| start | damping (s) | crank % | coupler % | rocker % | implied mass kg | CPU s |")
    print("|---|---|---|---|---|---|---|")
    for variant in a.variants:
        start, _, mu = variant.partition(":")
        if start not in STUDIES or not mu:
            sys.exit(f"startup_table.py: bad variant {variant!r} (expected ramp:MU or sudden:MU)")
        code, peaks, cpu, last = evaluate(start, float(mu), a.design, a.cpu_limit)
        if len(peaks) != 3:
            why = f"stopped after {cpu:.0f} CPU s" if code < 0 else f"exit {code}: {last}"
            print(f"| {start} | {mu} | {why} | | | | {cpu:.1f} |")
            continue
        ratio = {link: 1 + g / 100 for link, g in peaks.items()}
        mass = implied_mass(a.design, ratio)
        print(f"| {start} | {mu} | {peaks['crank']:+.3f} | {peaks['coupler']:+.3f} | "
              f"{peaks['rocker']:+.3f} | {mass:.3f} | {cpu:.1f} |", flush=True)


if __name__ == "__main__":
    main()
