#!/usr/bin/env python3
"""The charts' layout in a real browser (Debian's chromium, chromium-driver, python3-selenium), on
the truck study (problems/truck-damper/quarter-car.json: six variables, three roads):

  - in the workbench (sao serve with a token): upload, three steps, then every entry of the
    histories picker drawn in turn;
  - in the HTML report of a finished run (sao run --out DIR, sao report DIR, as file://), at two
    window widths;

every chart renders (a canvas with a Chart.js instance, or its empty message); no two text items
of a chart (its title, axis titles, drawn tick labels, legend items) overlap, none is clipped
(beyond its canvas, its figure or the legend's box) or squeezed (Chart.js condenses an x-axis
title wider than the axis), no legend item or axis title lies over the plot area; every axis
shows at least 4 ticks; every history chart names its load case (@hump, @wave, @crossing).
The boxes are measured from the page (chart_layout.py: Chart.js' own layout and the canvas'
measureText). The check is shown not to be vacuous: on synthetic boxes, and on three charts
made bad on purpose in the report page (crowded tick labels, a legend over the plot, a y-axis
title longer than the chart).

Then the report of a long run (the truck study with --set max_cycles=N and a tiny move limit
under the seed strategy, so that it cycles N times): its file size (asserted < 5 MB) and the
time from navigation start until every chart is drawn (the page draws them in an inline script
before DOMContentLoaded), printed, not asserted.

  tests/service/charts_browser_test.py SAO_COMMAND SOURCE_DIR [--long-cycles N] [--keep DIR]

Exit 77 (CTest SKIP_RETURN_CODE) without selenium or chromium."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chart_layout  # noqa: E402

from headless import By, Select, WebDriverWait, chromium, serve  # noqa: E402 (exits 77 without chromium)

TOKEN = "charts-test-token"
STUDY = "problems/truck-damper/quarter-car.json"
CASES = ("@hump", "@wave", "@crossing")
MIN_TICKS = 4
MAX_REPORT_BYTES = 5 * 1024 * 1024




def settle(driver):
    """Two animation frames: Chart.js redraws a resized chart on its ResizeObserver's frame."""
    driver.execute_async_script(
        "const done = arguments[0];"
        "requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 50)));")


class Findings:
    """Every chart measured, its problems, the tick counts: printed, then asserted at the end."""

    def __init__(self):
        self.problems = []
        self.charts = 0
        self.ticks = []

    def add(self, where, charts, min_ticks=MIN_TICKS):
        print("%s: %d charts" % (where, len(charts)))
        for line in chart_layout.summary(charts):
            print(line)
        found = []
        for c in charts:
            found += chart_layout.problems(c, min_ticks)
            for sid, s in c["scales"].items():
                self.ticks.append(s["ticks"])
        for p in found:
            print("  PROBLEM", p)
        for c in charts:
            for n in chart_layout.notes(c):
                print("  NOTE", n)
        self.problems += ["%s: %s" % (where, p) for p in found]
        self.charts += len(charts)
        return found

    def need(self, condition, message):
        if not condition:
            print("  PROBLEM", message)
            self.problems.append(message)




def chart_count(driver, root):
    """Figures under `root` and how many hold a Chart.js instance or an empty message."""
    return driver.execute_script(
        "const f = [...document.querySelectorAll(arguments[0] + ' figure.chart')];"
        "return [f.length, f.filter(x => (x.querySelector('canvas') &&"
        " Chart.getChart(x.querySelector('canvas'))) || x.querySelector('p.empty')).length];", root)


def workbench(args, work, findings):
    server, url = serve(args.sao, os.path.join(work, "data"), TOKEN)
    driver = chromium(os.path.join(work, "profile-workbench"), 1400, 2300)
    try:
        wait = WebDriverWait(driver, 120)
        driver.get(url)
        wait.until(lambda d: d.find_element(By.ID, "connection").text.startswith("401"))
        driver.find_element(By.ID, "token").send_keys(TOKEN + "\t")
        wait.until(lambda d: d.find_element(By.ID, "connection").text == "connected")
        with open(os.path.join(args.source, STUDY)) as f:
            text = f.read()
        study = json.loads(text)
        driver.execute_script("document.getElementById('upload-text').value = arguments[0];", text)
        driver.find_element(By.ID, "upload").click()
        wait.until(lambda d: d.find_element(By.ID, "study-title").text == study["name"])
        for n in (1, 2, 3):
            driver.find_element(By.ID, "step").click()
            wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#cycles tbody tr")) == n)
        cycle_charts = 7 + len(study["design_variables"])  # workbench_browser_test: the list
        wait.until(lambda d: chart_count(d, "#plots") == [cycle_charts, cycle_charts] and
                   chart_count(d, "#branch-plots") == [2, 2] and
                   d.execute_script("return Chart.getChart(document.querySelector("
                                    "'#plot-objective canvas')).data.datasets[0].data.length") == 4)
        settle(driver)
        findings.add("workbench, cycle charts after 3 steps",
                     driver.execute_script(chart_layout.MEASURE_JS, "#plots"))
        findings.add("workbench, branch charts",
                     driver.execute_script(chart_layout.MEASURE_JS, "#branch-plots"))
        # The histories of the last cycle: every entry of the picker drawn in turn.
        wait.until(lambda d: len(Select(d.find_element(By.ID, "ch-constraint")).options) > 0)
        options = [o.text for o in Select(driver.find_element(By.ID, "ch-constraint")).options]
        print("workbench: the histories picker (cycle 3) lists %d entries:" % len(options))
        for i, title in enumerate(options):
            print("  %d: %s" % (i, title))
            findings.need(any(c in title for c in CASES),
                          "workbench: histories entry %d names no load case: %r" % (i, title))
            Select(driver.find_element(By.ID, "ch-constraint")).select_by_value(str(i))
            wait.until(lambda d: d.execute_script(
                "const f = document.querySelector('#constraint-history');"
                "return f && f.querySelector('figcaption').textContent === arguments[0] &&"
                " (Chart.getChart(f.querySelector('canvas')) || f.querySelector('p.empty')) ?"
                " true : false;", title))
            settle(driver)
            findings.add("workbench, histories entry %d" % i,
                         driver.execute_script(chart_layout.MEASURE_JS, "#constraint-plot"))
        # Besides: what the simulator delivers beside the study's responses (road, damper
        # force), one entry per output and road, titled as such.
        outputs = [t for t in options if "(delivered by the simulator" in t]
        print("workbench: %d of them are simulator outputs the study does not declare" % len(outputs))
        findings.need(any(t.startswith("road @") for t in outputs),
                      "workbench: the road of each load case among the histories entries")
        findings.need(len(options) - len(outputs) == 3 * len(study["constraints"]) + 3,
                      "workbench: %d histories entries, expected one per constraint and the "
                      "objective's bound per road (%d)" % (len(options), 3 * len(study["constraints"]) + 3))
        findings.need(driver.find_element(By.ID, "action-errors").text == "",
                      "workbench: an error: " + driver.find_element(By.ID, "action-errors").text)
        if args.keep:
            driver.save_screenshot(os.path.join(args.keep, "workbench.png"))
    finally:
        driver.quit()
        server.terminate()
        server.wait()


def run_and_report(sao, source, out, extra=()):
    started = time.monotonic()
    run = subprocess.run([sao, "run", os.path.join(source, STUDY), "--out", out, "-q"] + list(extra),
                         capture_output=True, text=True)
    ran = time.monotonic() - started
    if run.returncode not in (0, 1):  # 1: ended without convergence (the long run's cycle limit)
        sys.exit("sao run failed (%d): %s" % (run.returncode, run.stderr))
    report = subprocess.run([sao, "report", out], capture_output=True, text=True)
    if report.returncode != 0:
        sys.exit("sao report failed: " + report.stderr)
    return os.path.join(out, "report.html"), ran


# Three charts laid out badly on purpose (drawn by Chart.js directly, in figures like
# charts.js's): many long tick labels kept unrotated, a legend inside the plot area, a y-axis
# title longer than the chart is high.
BAD_CHARTS_JS = r"""
const section = document.createElement('div');
section.id = 'bad-charts';
section.className = 'charts';
document.body.append(section);
function bad(id, options, labels) {
  const f = document.createElement('figure');
  f.className = 'chart';
  f.id = id;
  const cap = document.createElement('figcaption');
  cap.textContent = id;
  const box = document.createElement('div');
  box.className = 'chart-box';
  box.style.height = '260px';
  const canvas = document.createElement('canvas');
  box.append(canvas);
  f.append(cap, box);
  section.append(f);
  const data = {datasets: labels.map((l, k) => ({label: l, data: [...Array(40).keys()].map(
      i => ({x: 1000000 + i, y: k + Math.sin(i)})), showLine: true}))};
  new Chart(canvas, {type: 'scatter', data, options: Object.assign({animation: false,
      responsive: true, maintainAspectRatio: false}, options)});
}
bad('bad-crowded-ticks', {scales: {x: {ticks: {autoSkip: false, maxRotation: 0, minRotation: 0,
    stepSize: 1, callback: (v) => 'cycle ' + v}}}}, ['a']);
bad('bad-legend-over-plot', {plugins: {legend: {position: 'chartArea'}}},
    ['a long legend entry', 'another long legend entry']);
bad('bad-long-y-title', {scales: {y: {title: {display: true, text:
    'a y-axis title much longer than the chart is high, which the canvas cuts at both ends'}}}}, ['a']);
"""


def report(args, work, findings):
    out = os.path.join(work, "truck-run")
    path, ran = run_and_report(args.sao, args.source, out)
    size = os.path.getsize(path)
    print("report: sao run %s --out DIR -q took %.1f s; DIR/report.html %d bytes" % (STUDY, ran, size))
    with open(os.path.join(args.source, STUDY)) as f:
        study = json.load(f)
    for width in (1400, 900):
        driver = chromium(os.path.join(work, "profile-report-%d" % width), width, 1200)
        try:
            driver.get("file://" + path)
            WebDriverWait(driver, 60).until(
                lambda d: d.execute_script("return document.readyState") == "complete")
            settle(driver)
            total, drawn = chart_count(driver, "")
            findings.need(total == drawn and total > 0,
                          "report at %d px: %d of %d charts drawn" % (width, drawn, total))
            charts = driver.execute_script(chart_layout.MEASURE_JS, None)
            findings.add("report at %d px" % width, charts)
            histories = [c for c in charts if c["id"].startswith(("constraint-", "quantity-"))]
            findings.need(len(histories) == 3 * len(study["constraints"]) + 3,
                          "report: %d history charts, expected %d" %
                          (len(histories), 3 * len(study["constraints"]) + 3))
            for c in histories:
                findings.need(any(k in c["title"] for k in CASES),
                              "report: history chart %s names no load case: %r" % (c["id"], c["title"]))
            if width == 1400:
                self_check_in_page(driver)
            if args.keep:
                driver.save_screenshot(os.path.join(args.keep, "report-%d.png" % width))
        finally:
            driver.quit()


def self_check_in_page(driver):
    """The measurement finds what is wrong with charts made bad on purpose: not vacuous."""
    driver.execute_script(BAD_CHARTS_JS)
    settle(driver)
    bad = driver.execute_script(chart_layout.MEASURE_JS, "#bad-charts")
    found = {c["id"]: chart_layout.problems(c) for c in bad}
    for chart_id, problems in found.items():
        print("self-check %s: %d problems found, e.g. %s" % (chart_id, len(problems), problems[:2]))
    expect = {"bad-crowded-ticks": "overlaps tick x",
              "bad-legend-over-plot": "over the plot area",
              "bad-long-y-title": "clipped"}
    for chart_id, words in expect.items():
        if not any(words in p and chart_id in p for p in found[chart_id]):
            raise AssertionError("the layout check misses the bad chart %s (%r expected): %s" %
                                 (chart_id, words, found[chart_id]))


def long_report(args, work, findings):
    out = os.path.join(work, "truck-long")
    settings = ["--set", "settings.max_cycles=%d" % args.long_cycles,
                "--set", 'settings.strategy="seed"', "--set", "settings.move_limit=0.002",
                "--set", "settings.objacc=1e-9", "--set", "settings.vioacc=1e-9"]
    for v in range(6):
        settings += ["--set", "design_variables.%d.move_limit=0.002" % v]
    path, ran = run_and_report(args.sao, args.source, out, settings)
    with open(os.path.join(out, "result.json")) as f:
        cycles = len(json.load(f)["history"])
    size = os.path.getsize(path)
    print("long report: sao run %s --out DIR -q %s: %d cycles in %.1f s" %
          (STUDY, " ".join("'%s'" % a if '"' in a else a for a in settings), cycles, ran))
    driver = chromium(os.path.join(work, "profile-long"), 1400, 1200)
    try:
        driver.get("file://" + path)
        WebDriverWait(driver, 120).until(
            lambda d: d.execute_script("return document.readyState") == "complete")
        timing = driver.execute_script(
            "const n = performance.getEntriesByType('navigation')[0];"
            "return {response: n.responseEnd, interactive: n.domInteractive,"
            " drawn: n.domContentLoadedEventStart, load: n.loadEventEnd};")
        total, drawn = chart_count(driver, "")
        points = driver.execute_script(
            "return Chart.getChart(document.querySelector('#plot-objective canvas'))"
            ".data.datasets[0].data.length;")
        settle(driver)
        findings.add("long report (%d cycles) at 1400 px" % cycles,
                     driver.execute_script(chart_layout.MEASURE_JS, None))
        # The drawing alone: every chart drawn again from its spec.
        redraw = driver.execute_script(
            "const t0 = performance.now();"
            "for (const f of document.querySelectorAll('figure.chart')) {"
            "  const c = f.querySelector('canvas');"
            "  if (c && Chart.getChart(c)) sao_charts.draw(f, Chart.getChart(c).sao_spec); }"
            "return performance.now() - t0;")
    finally:
        driver.quit()
    print("long report: %d bytes (%.2f MB), %d charts drawn of %d, objective chart %d points" %
          (size, size / 1048576, drawn, total, points))
    print("long report: from navigation start: file read %.0f ms, parsed %.0f ms, every chart "
          "drawn (DOMContentLoaded, after the inline draw_all) %.0f ms, load end %.0f ms" %
          (timing["response"], timing["interactive"], timing["drawn"], timing["load"]))
    print("long report: every chart drawn again from its spec (sao_charts.draw): %.0f ms" % redraw)
    return size, cycles, total == drawn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("sao")
    parser.add_argument("source")
    parser.add_argument("--long-cycles", type=int, default=200)
    parser.add_argument("--keep", help="keep screenshots here")
    parser.add_argument("--skip-long", action="store_true")
    parser.add_argument("--skip-workbench", action="store_true")
    args = parser.parse_args()
    args.sao = os.path.abspath(args.sao)
    print("self-check on synthetic boxes:", chart_layout.self_test())
    work = tempfile.mkdtemp(prefix="sao-charts-")
    findings = Findings()
    try:
        if not args.skip_workbench:
            workbench(args, work, findings)
        report(args, work, findings)
        if not args.skip_long:
            size, cycles, all_drawn = long_report(args, work, findings)
            findings.need(size < MAX_REPORT_BYTES,
                          "the %d-cycle report is %d bytes, over 5 MB" % (cycles, size))
            findings.need(all_drawn, "the long report: not every chart drawn")
            findings.need(cycles >= args.long_cycles * 0.9,
                          "the long run made %d cycles, not about %d" % (cycles, args.long_cycles))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d charts measured; ticks per axis: min %d, max %d" %
          (findings.charts, min(findings.ticks), max(findings.ticks)))
    if findings.problems:
        print("\nFAILED: %d problems:" % len(findings.problems))
        for p in findings.problems:
            print("  " + p)
        sys.exit(1)
    print("charts: no overlap, no clipping, every axis with %d+ ticks" % MIN_TICKS)


if __name__ == "__main__":
    main()
