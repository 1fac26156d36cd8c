#!/usr/bin/env python3
"""Compares two runs of the suspension study and the symmetry of each (docs/variational.md).

python3 problems/suspension/compare.py OUT_A OUT_B

OUT_A, OUT_B: the --out folders of two `sao run`s (e.g. at two integrator steps). Reads each
folder's history.csv (the last accepted cycle: a run still going or stopped is compared where
it stands) and prints, per run, its cycle, objective and largest asymmetry (module 1 against 4,
2 against 3, in the modules' own frames), then the objectives' relative difference and the
largest differences of the design variables between the runs (geometry in m, shock heights in
m, springs and dampers relative).
"""
import csv
import os
import sys


def last_accepted(folder):
    with open(os.path.join(folder, "history.csv")) as f:
        rows = list(csv.DictReader(f))
    accepted = [r for r in rows if r["accepted"] == "1"]
    return (accepted or rows)[-1], rows[-1]["cycle"]


def geometry(row, module):
    return {k[3:]: float(v) for k, v in row.items() if k.startswith(f"m{module}_")}


def asymmetry(row):
    worst = 0.0
    for a, b in ((1, 4), (2, 3)):
        ga, gb = geometry(row, a), geometry(row, b)
        worst = max([worst] + [abs(ga[k] - gb[k]) for k in ga])
        for kind in ("z", "k", "c"):
            va, vb = float(row[f"{kind}{a}"]), float(row[f"{kind}{b}"])
            worst = max(worst, abs(va - vb) / max(abs(va), 1.0) if kind != "z" else abs(va - vb))
    return worst


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    runs = [last_accepted(folder) for folder in sys.argv[1:]]
    for folder, (row, last) in zip(sys.argv[1:], runs):
        print(f"{folder}: accepted cycle {row['cycle']} (last {last}), F = {float(row['F']):.6g}, "
              f"largest asymmetry {asymmetry(row):.2g}")
        print("  " + ", ".join(f"{k}{m} = {float(row[f'{k}{m}']):.6g}"
                               for k in ("z", "k", "c") for m in (1, 2)))
    (a, _), (b, _) = runs
    fa, fb = float(a["F"]), float(b["F"])
    print(f"objective: relative difference {abs(fa - fb) / abs(fa):.2%}")
    geo = max(abs(float(a[k]) - float(b[k])) for k in a if k[:1] == "m" and k[1:2].isdigit())
    heights = max(abs(float(a[f"z{m}"]) - float(b[f"z{m}"])) for m in range(1, 5))
    rel = {kind: max(abs(float(a[f"{kind}{m}"]) - float(b[f"{kind}{m}"])) / float(a[f"{kind}{m}"])
                     for m in range(1, 5)) for kind in ("k", "c")}
    print(f"largest difference: attachment coordinates {geo:.3g} m, shock heights {heights:.3g} m, "
          f"springs {rel['k']:.2%}, dampers {rel['c']:.2%}")


if __name__ == "__main__":
    main()
