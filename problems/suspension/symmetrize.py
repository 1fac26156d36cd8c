#!/usr/bin/env python3
"""Is an asymmetric design of the suspension study better than its symmetric part? (docs/variational.md)

python3 problems/suspension/symmetrize.py OUT CYCLE STEP T [T ...]

OUT: the --out folder of a `sao run` of problems/suspension/optimise.json; CYCLE: a row of its
history.csv; STEP: the integrator step the run used (e.g. 0.004). Splits that row's design b
into its symmetric part s (each mirror pair, module 1 and 4, 2 and 3, averaged) and its
antisymmetric part a = b - s, and prints the objective of s + T a for each T (`sao evaluate`,
run from the repository root): T = 1 is the design itself, T = -1 its mirror image (the same
objective, to rounding, if the model is mirror-symmetric), T = 0 its symmetric part.
"""
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STUDY = os.path.join(HERE, "optimise.json")


def mirror(name):
    """The name of a design variable's mirror image (m1_Av <-> m4_Av, z2 <-> z3, ...)."""
    for a, b in (("1", "4"), ("4", "1"), ("2", "3"), ("3", "2")):
        if name.startswith("m" + a + "_"):
            return "m" + b + name[2:]
        if name[0] in "zkc" and name[1:] == a:
            return name[0] + b
    raise KeyError(name)


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    out, cycle, step = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(os.path.join(out, "history.csv")) as f:
        rows = [r for r in csv.DictReader(f) if r["cycle"] == cycle]
    if not rows:
        sys.exit(f"{out}/history.csv has no cycle {cycle}")
    with open(STUDY) as f:
        names = [v["name"] for v in json.load(f)["design_variables"]]
    b = {n: float(rows[0][n]) for n in names}
    for t in (float(x) for x in sys.argv[4:]):
        args = [os.path.join(ROOT, "build", "sao"), "evaluate", STUDY, "--json",
                "--set", f"simulator.multibody.integrator.step={step}"]
        for i, n in enumerate(names):
            value = (b[n] + b[mirror(n)]) / 2 + t * (b[n] - b[mirror(n)]) / 2
            args += ["--set", f"design_variables.{i}.initial={value!r}"]
        done = subprocess.run(args, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            sys.exit(f"sao evaluate failed (exit {done.returncode}): {done.stderr.strip()}")
        print(f"T = {t:g}: objective {json.loads(done.stdout)['designs'][-1]['objective']:.10g}")


if __name__ == "__main__":
    main()
