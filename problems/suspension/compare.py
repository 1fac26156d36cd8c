#!/usr/bin/env python3
"""Compares two runs of the suspension study and the symmetry of each (docs/variational.md).

python3 problems/suspension/compare.py OUT_A OUT_B

OUT_A, OUT_B: the --out folders of two `sao run`s (e.g. at two integrator steps). Reads each
folder's history.csv (the last accepted cycle: a run still going or stopped is compared where
it stands) and prints, per run, its cycle, objective and largest asymmetry (module 1 against 4,
2 against 3, in the modules' own frames; and the largest over every cycle, of the designs and
of the move-limit factors), then the objectives' relative difference and the
largest differences of the design variables between the runs (geometry in m, shock heights in
m, springs and dampers relative).

The objective is flat along four directions: raising every v of a module (A to E and W) and
its shock's chassis height z together changes nothing (the road follows the wheel's start).
So each comparison is printed twice: as it is, and with each module's common vertical shift
(the mean difference of its seven heights) taken out, with that shift printed: only the
second is a property of the optimum.
"""
import csv
import os
import sys


def history(folder):
    with open(os.path.join(folder, "history.csv")) as f:
        return list(csv.DictReader(f))


def last_accepted(folder):
    rows = history(folder)
    accepted = [r for r in rows if r["accepted"] == "1"]
    return (accepted or rows)[-1], rows[-1]["cycle"]


def factor_asymmetry(row):
    """The largest relative difference of the move-limit factors of a mirror pair."""
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
    design = max(asymmetry(r, modulo_flat=True) for r in rows)
    factors = max(factor_asymmetry(r) for r in rows)
    return design, factors


def geometry(row, module):
    return {k[3:]: float(v) for k, v in row.items() if k.startswith(f"m{module}_")}


HEIGHTS = [f"{p}v" for p in "ABCDEW"]


def heights(row, module):
    """The seven heights of a module that shift together along its flat direction."""
    return [float(row[f"m{module}_{h}"]) for h in HEIGHTS] + [float(row[f"z{module}"])]


def flat_shift(a, b):
    """The common shift of two modules' heights (lists), and the differences without it."""
    d = [y - x for x, y in zip(a, b)]
    t = sum(d) / len(d)
    return t, [x - t for x in d]


def asymmetry(row, modulo_flat=False):
    worst = 0.0
    for a, b in ((1, 4), (2, 3)):
        ga, gb = geometry(row, a), geometry(row, b)
        t = flat_shift(heights(row, a), heights(row, b))[0] if modulo_flat else 0.0
        worst = max([worst] + [abs(ga[k] - gb[k] + (t if k[-1] == "v" else 0.0)) for k in ga])
        for kind in ("z", "k", "c"):
            va, vb = float(row[f"{kind}{a}"]), float(row[f"{kind}{b}"])
            va += t if kind == "z" else 0.0
            worst = max(worst, abs(va - vb) / max(abs(va), 1.0) if kind != "z" else abs(va - vb))
    return worst


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    runs = [last_accepted(folder) for folder in sys.argv[1:]]
    for folder, (row, last) in zip(sys.argv[1:], runs):
        print(f"{folder}: accepted cycle {row['cycle']} (last {last}), F = {float(row['F']):.6g}, "
              f"largest asymmetry {asymmetry(row):.2g} "
              f"({asymmetry(row, modulo_flat=True):.2g} without the flat shifts)")
        design, factors = symmetry_over_cycles(folder)
        print(f"  over cycles 0-{last}: largest asymmetry of a design {design:.2g} (without the "
              f"flat shifts), of the move-limit factors {factors:.2g} (relative)")
        print("  " + ", ".join(f"{k}{m} = {float(row[f'{k}{m}']):.6g}"
                               for k in ("z", "k", "c") for m in (1, 2)))
    (a, _), (b, _) = runs
    fa, fb = float(a["F"]), float(b["F"])
    print(f"objective: relative difference {abs(fa - fb) / abs(fa):.2%}")
    geo = max(abs(float(a[k]) - float(b[k])) for k in a if k[:1] == "m" and k[1:2].isdigit())
    tower = max(abs(float(a[f"z{m}"]) - float(b[f"z{m}"])) for m in range(1, 5))
    shifts = [flat_shift(heights(a, m), heights(b, m)) for m in range(1, 5)]
    us = max(abs(float(a[k]) - float(b[k])) for k in a
             if k[:1] == "m" and k[1:2].isdigit() and k[-1] == "u")
    rest = max(max(abs(x) for x in d) for _, d in shifts)
    print("flat shifts of the modules' heights (B - A): " +
          ", ".join(f"{t:.3g} m" for t, _ in shifts) +
          f"; without them, largest difference of a height {rest:.3g} m, of a u {us:.3g} m")
    rel = {kind: max(abs(float(a[f"{kind}{m}"]) - float(b[f"{kind}{m}"])) / float(a[f"{kind}{m}"])
                     for m in range(1, 5)) for kind in ("k", "c")}
    print(f"largest difference: attachment coordinates {geo:.3g} m, shock heights {tower:.3g} m, "
          f"springs {rel['k']:.2%}, dampers {rel['c']:.2%}")


if __name__ == "__main__":
    main()
