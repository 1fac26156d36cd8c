#!/usr/bin/env python3
"""Is the best symmetric design a minimum of the 60-variable study? (docs/variational.md)

python3 problems/suspension/antisymmetric.py OUT [--sao build/sao] [--step H]

OUT: the --out folder of a finished `sao run` of symmetric.json (the mirror pairs linked). Its
design, module 1's and 2's variables copied to their mirror images 4 and 3, is a design of
optimise.json (the 60 variables). For every linked variable that is free there (not on a
bound), the objective of optimise.json is evaluated (`sao evaluate`, one process each) at the
design moved antisymmetrically: the variable up by d, its mirror image down by d, for d a
share of the variable's range. By the mirror symmetry of the model the gradient along such a
direction is zero at a symmetric design, so the change of the objective is second order: a
negative change means negative curvature there, and the symmetric design is a saddle of the
60-variable problem, not a minimum. The moved design and its mirror image have the same
objective, so one side is evaluated. H is the integrator step of the evaluations (default: the
study's).
"""
import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile

from generate import mirror_name as mirror

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARES = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2)


def objective(sao, study, design, folder):
    s = copy.deepcopy(study)
    for v in s["design_variables"]:
        v["initial"] = design[v["name"]]
    path = os.path.join(folder, "design.json")
    with open(path, "w") as f:
        json.dump(s, f)
    run = subprocess.run([sao, "evaluate", path, "--json"], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"sao evaluate failed ({run.returncode}): {run.stderr.strip()}")
    return json.loads(run.stdout)["designs"][0]["objective"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--sao", default=os.path.join(ROOT, "build", "sao"))
    p.add_argument("--step", type=float)
    a = p.parse_args()
    with open(os.path.join(a.out, "result.json")) as f:
        result = json.load(f)
    with open(os.path.join(HERE, "optimise.json")) as f:
        study = json.load(f)
    if a.step:
        study["simulator"]["multibody"]["integrator"]["step"] = a.step
    linked = result["design"]
    if "k4" in linked:
        sys.exit(f"{a.out}: a run of optimise.json; give a run of symmetric.json (linked pairs)")
    design = dict(linked)
    design.update({mirror(k): v for k, v in linked.items()})
    bounds = {v["name"]: (v["lower"], v["upper"]) for v in study["design_variables"]}
    with tempfile.TemporaryDirectory(prefix="sao-antisymmetric-") as folder:
        f0 = objective(a.sao, study, design, folder)
        print(f"{a.out}: status {result.get('status')}, F = {f0:.6g} on optimise.json "
              f"(the linked design mirrored)")
        print("| variable | value | share of range d | F(moved) - F | (F(moved) - F) / d^2 |")
        print("|---|---|---|---|---|")
        for name in sorted(linked):
            lo, hi = bounds[name]
            width = hi - lo
            value = linked[name]
            if min(value - lo, hi - value) <= 1e-9 * width:
                continue  # on a bound: the antisymmetric move leaves the box on one side
            for share in SHARES:
                d = share * width
                if min(value - lo, hi - value) < d:
                    continue
                moved = dict(design)
                moved[name] += d
                moved[mirror(name)] -= d
                change = objective(a.sao, study, moved, folder) - f0
                print(f"| {name} / {mirror(name)} | {value:.6g} | {share:g} | {change:.4e} | "
                      f"{change / d ** 2:.4e} |")


if __name__ == "__main__":
    main()
