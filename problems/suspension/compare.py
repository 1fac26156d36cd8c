#!/usr/bin/env python3
"""Compares two runs of the suspension study and the symmetry of each (docs/variational.md).

python3 problems/suspension/compare.py OUT_A OUT_B

OUT_A, OUT_B: the --out folders of two `sao run`s (e.g. at two integrator steps) of optimise.json
or of symmetric.json (the mirror pairs linked: symmetric by construction), or one of each (the
linked run's design then mirrored onto the 60 variables). Reads each
folder's history.csv (the last accepted cycle: a run still going or stopped is compared where
it stands) and prints, per run, its cycle, objective and largest asymmetry (module 1 against 4,
2 against 3, in the modules' own frames; and the largest over every cycle, of the designs and
of the move-limit factors), then the objectives' relative difference and the
largest differences of the design variables between the runs (geometry in m, shock heights in
m, springs and dampers relative).

Parameters are compared two ways: each design variable's difference as a share of its range
(its bounds, from generate.py), and the springs and dampers relative to their values. The status
of each run is read from its result.json when it has one (a finished run).
"""
import csv
import json
import os
import sys

import generate


def history(folder):
    with open(os.path.join(folder, "history.csv")) as f:
        return list(csv.DictReader(f))


def last_accepted(folder):
    rows = history(folder)
    accepted = [r for r in rows if r["accepted"] == "1"]
    return (accepted or rows)[-1], rows[-1]["cycle"]


def linked(row):
    """A row of symmetric.json's run: modules 3 and 4 read 2's and 1's variables."""
    return "k4" not in row


def mirrored(row):
    """A linked run's row with the mirror images' variables (module 4 = 1, 3 = 2) added, so
    that it compares with a run of optimise.json on all 60 variables; other rows as they are."""
    if not linked(row):
        return row
    out = dict(row)
    for v in generate.design_variables():
        if v["name"] in row:  # the linked study's own: modules 1 and 2
            out[generate.mirror_name(v["name"])] = row[v["name"]]
    return out


def factor_asymmetry(row):
    """The largest relative difference of the move-limit factors of a mirror pair."""
    if linked(row):
        return 0.0
    worst = 0.0
    for a, b in ((1, 4), (2, 3)):
        names = [k[len(f"m_m{a}_"):] for k in row if k.startswith(f"m_m{a}_")]
        pairs = [(f"m_m{a}_{n}", f"m_m{b}_{n}") for n in names]
        pairs += [(f"m_{kind}{a}", f"m_{kind}{b}") for kind in ("z", "k", "c")]
        for x, y in pairs:
            fx, fy = float(row[x]), float(row[y])
            worst = max(worst, abs(fx - fy) / max(fx, fy, 1e-300))
    return worst


def symmetry_over_cycles(folder):
    """Per run: the largest asymmetry of any cycle's design and of its move-limit factors."""
    rows = history(folder)
    design = max(asymmetry(r) for r in rows)
    factors = max(factor_asymmetry(r) for r in rows)
    return design, factors


def geometry(row, module):
    return {k[3:]: float(v) for k, v in row.items() if k.startswith(f"m{module}_")}


def asymmetry(row):
    """The largest difference of a mirror pair: m for coordinates, relative above 1."""
    if linked(row):
        return 0.0
    worst = 0.0
    for a, b in ((1, 4), (2, 3)):
        ga, gb = geometry(row, a), geometry(row, b)
        worst = max([worst] + [abs(ga[k] - gb[k]) for k in ga])
        for kind in ("z", "k", "c"):
            va, vb = float(row[f"{kind}{a}"]), float(row[f"{kind}{b}"])
            worst = max(worst, abs(va - vb) / max(abs(va), 1.0))
    return worst


def status(folder):
    path = os.path.join(folder, "result.json")
    if not os.path.exists(path):
        return "no result.json (running or stopped)"
    with open(path) as f:
        return json.load(f)["status"]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    runs = [last_accepted(folder) for folder in sys.argv[1:]]
    for folder, (row, last) in zip(sys.argv[1:], runs):
        print(f"{folder}: {status(folder)}; accepted cycle {row['cycle']} (last {last}), "
              f"F = {float(row['F']):.6g}, largest asymmetry {asymmetry(row):.2g}")
        design, factors = symmetry_over_cycles(folder)
        print(f"  over cycles 0-{last}: largest asymmetry of a design {design:.2g}, of the "
              f"move-limit factors {factors:.2g} (relative)")
        print("  " + ", ".join(f"{k}{m} = {float(row[f'{k}{m}']):.6g}"
                               for k in ("z", "k", "c") for m in (1, 2)))
    (a, _), (b, _) = runs
    if linked(a) != linked(b):  # one run of each study: compare on all 60 variables
        a, b = mirrored(a), mirrored(b)
    fa, fb = float(a["F"]), float(b["F"])
    print(f"objective: relative difference {abs(fa - fb) / abs(fa):.2%}")
    share = {v["name"]: abs(float(a[v["name"]]) - float(b[v["name"]])) / (v["upper"] - v["lower"])
             for v in generate.design_variables() if v["name"] in a and v["name"] in b}
    worst = max(share, key=share.get)
    print(f"design variables: largest difference {share[worst]:.2%} of the range ({worst}); "
          f"{sum(x > 0.01 for x in share.values())} of {len(share)} differ by more than 1 %")
    geo = max(abs(float(a[k]) - float(b[k]))
              for k in a if k[:1] == "m" and k[1:2].isdigit() and k in b)
    modules = [m for m in range(1, 5) if f"z{m}" in a and f"z{m}" in b]
    tower = max(abs(float(a[f"z{m}"]) - float(b[f"z{m}"])) for m in modules)
    rel = {kind: max(abs(float(a[f"{kind}{m}"]) - float(b[f"{kind}{m}"])) / float(a[f"{kind}{m}"])
                     for m in modules) for kind in ("k", "c")}
    print(f"largest difference: attachment coordinates {geo:.3g} m, shock heights {tower:.3g} m, "
          f"springs {rel['k']:.2%}, dampers {rel['c']:.2%} (relative to their values)")


if __name__ == "__main__":
    main()
