#!/usr/bin/env python3
"""`sao report`: the summary at the top of the page lists the active constraints. Runs the
impact absorber (its optimum holds |y| <= 1 m on its bound), writes the report and parses the
page with Python's HTML parser: the summary comes first, its table of active constraints names
the displacement constraint (by its label and unit from the study) with a value on the bound,
and the bound formulation's own rows are not listed. Then the same study with the bound raised
to 100 m, beyond any displacement the bounds on k and c allow (at most about 32 m): the
optimum is on the variables' lower bounds, and the summary must say that no constraint is
active and list both bounds.

  tests/e2e/report_summary_test.py SAO_COMMAND SOURCE_DIR WORK_DIR"""
import html.parser
import shutil
import subprocess
import sys
from pathlib import Path


class Page(html.parser.HTMLParser):
    """The ids of the sections in order, and the rows of every table by its class."""

    def __init__(self):
        super().__init__()
        self.ids = []
        self.tables = {}
        self.text = []
        self._table = None
        self._row = None
        self._cell = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs and tag in ("h2", "section", "nav"):
            self.ids.append(attrs["id"])
        if tag == "table":
            self._table = self.tables.setdefault(attrs.get("class", ""), [])
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append(self._cell.strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self._table.append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data
        self.text.append(data)


def report(sao, study, out, *settings):
    shutil.rmtree(out, ignore_errors=True)
    args = [sao, "run", study, "-q", "--out", str(out)]
    for s in settings:
        args += ["--set", s]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"sao run failed ({run.returncode}): {run.stdout}{run.stderr}")
    rep = subprocess.run([sao, "report", str(out)], capture_output=True, text=True)
    if rep.returncode != 0:
        sys.exit(f"sao report failed ({rep.returncode}): {rep.stdout}{rep.stderr}")
    page = Page()
    page.feed((out / "report.html").read_text())
    return page


def main():
    sao, source, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    study = str(source / "problems/impact-absorber/max-acceleration.json")
    failures = []

    def check(condition, what):
        if not condition:
            failures.append(what)

    page = report(sao, study, work / "active")
    check(page.ids[:1] == ["summary"], f"the summary is not the first section: {page.ids[:3]}")
    check("cycles" in page.ids and "history" in page.ids, f"sections missing: {page.ids}")
    rows = page.tables.get("active-constraints", [])
    check(len(rows) >= 2, f"no active constraints listed: {rows}")
    body = rows[1:]
    # Named with its side, as every list names a constraint part ("..., upper").
    check(any(r[0] in ("Displacement |y| [m], upper", "Displacement |y| [m], lower") and
              r[1].startswith("displacement[") for r in body),
          f"the displacement constraint is not listed as active: {body}")
    check(not any(r[1].startswith("objective:") for r in body),
          f"the bound formulation's rows are listed: {body}")
    for r in body:
        value, bound = float(r[3]), float(r[4].split()[-1])
        check(abs(abs(value) - abs(bound)) <= 0.01 * abs(bound), f"not on its bound: {r}")
    optimum = page.tables.get("optimum", [])
    check(len(optimum) == 3 and optimum[1][0] == "Spring stiffness k [N/m]",
          f"the optimum table lacks the labelled variables: {optimum}")

    page = report(sao, study, work / "inactive", "constraints.0.upper=100")
    check("active-constraints" not in page.tables,
          f"a constraint far from its bound is listed as active: {page.tables.get('active-constraints')}")
    check("No constraint is within 0.1 % of its bound" in "".join(page.text),
          "the summary does not say that no constraint is active")
    optimum = page.tables.get("optimum", [])
    check([r[-1] for r in optimum[1:]] == ["lower", "lower"],
          f"the variables on their lower bounds are not marked: {optimum}")

    for f in failures:
        print("FAILED:", f)
    print("report summary:", "ok" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
