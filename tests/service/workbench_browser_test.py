#!/usr/bin/env python3
"""The workbench in a real browser (Debian's chromium, chromium-driver, python3-selenium):
with a server that needs a token, enter it, upload the slider-crank study, step, change a move
limit, step, restart from cycle 2 with an edited study, step, run to the end, and check the
cycle table, the branch list and the charts at each stage (during the run the table follows the
event stream, which the page reads with the token). The charts are Chart.js instances
(sao/web/charts.js), read in the page: Chart.getChart(canvas).data.datasets and .sao_spec (the
C++ chart spec, sao/report/report_plots.cpp). The errors chart has one Ef and one Eg point per
cycle (and, when the spec has them, the objacc/vioacc lines at the study's accuracies: the
cycle charts lack them since the move to Chart.js, which the test prints as a GAP); the branch
charts one line per branch and the branch points ringed. Then the impact absorber
(time-dependent constraints): three steps, a restart from cycle 1, a step; the history chart of
a picked cycle and constraint shows both designs' histories, the bound and exactly the retained
points the API (/histories) gives.

  tests/service/workbench_browser_test.py SAO_COMMAND SOURCE_DIR [--screenshot FILE]

Chromium runs headless with a fresh profile and no background network traffic."""
import json
import os
import re
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from headless import By, Select, WebDriverWait, workbench  # noqa: E402 (exits 77 without chromium)
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402


TOKEN = "workbench-test-token"






def rows(driver):
    """The cycle table's cells, read at once (the page re-renders it on every event)."""
    return driver.execute_script(
        "return [...document.querySelectorAll('#cycles tbody tr')]"
        ".map(tr => [...tr.cells].map(td => td.textContent));")


def column(driver, name):
    """The index of the cycle table's column `name` (the table has one column per variable)."""
    heads = driver.execute_script(
        "return [...document.querySelectorAll('#cycles thead th')].map(th => th.textContent);")
    check(name in heads, "the cycle table has a column %r: %s" % (name, heads))
    return heads.index(name)


def wait_rows(driver, count):
    table = []
    WebDriverWait(driver, 60).until(lambda d: len(table.__setitem__(slice(None), rows(d)) or table) == count)
    return table


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def drive(driver, url, study_text):
    driver.get(url)
    wait = WebDriverWait(driver, 60)
    # The API needs the token: without it the page says so; with it, it lists the studies.
    wait.until(lambda d: d.find_element(By.ID, "connection").text.startswith("401"))
    driver.find_element(By.ID, "token").send_keys(TOKEN + "\t")
    wait.until(lambda d: d.find_element(By.ID, "connection").text == "connected")
    driver.execute_script("document.getElementById('upload-text').value = arguments[0];",
                          study_text)
    driver.find_element(By.ID, "upload").click()
    wait.until(lambda d: d.find_element(By.ID, "study-title").text == json.loads(study_text)["name"])
    check(len(rows(driver)) == 0, "a new study has no cycle")
    for n in (1, 2):
        driver.find_element(By.ID, "step").click()
        table = wait_rows(driver, n)
    check([r[0] for r in table] == ["1", "2"], "cycles 1 and 2 in the table: %s" % table)
    # Halve b1's move limit: shown as set for cycle 3, then used by it.
    factors_at = column(driver, "factors")
    factors = [float(f) for f in table[-1][factors_at].split()]
    Select(driver.find_element(By.ID, "ml-variable")).select_by_visible_text("b1")
    driver.find_element(By.ID, "ml-value").send_keys(str(factors[0] / 2))
    driver.find_element(By.ID, "ml-set").click()
    wait.until(lambda d: "set for it: move_limit.b1=" in d.find_element(By.ID, "study-status").text)
    driver.find_element(By.ID, "step").click()
    table = wait_rows(driver, 3)
    check(abs(float(table[2][factors_at].split()[0]) - factors[0] / 2) < 1e-3 * factors[0],
          "cycle 3 used the halved move limit: %s" % table[2])
    # Restart from cycle 2 with another lower bound of b3, edited in the page.
    study = json.loads(driver.find_element(By.ID, "restart-study").get_attribute("value"))
    study["design_variables"][2]["lower"] = -40
    driver.execute_script(
        "const t = document.getElementById('restart-study'); t.value = arguments[0];"
        "t.dispatchEvent(new Event('input'));", json.dumps(study, indent=2))
    driver.find_element(By.ID, "restart-cycle").send_keys("2")
    driver.find_element(By.ID, "restart").click()
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#branches li")) == 2)
    table = wait_rows(driver, 2)
    driver.find_element(By.ID, "step").click()
    table = wait_rows(driver, 3)
    # The page redraws the branch list and the plots on every event: read them in one script
    # (an element found first and read afterwards may have been replaced meanwhile).
    branches = driver.execute_script(
        "return Array.from(document.querySelectorAll('#branches li')).map(e => e.textContent);")
    check(branches[1].startswith("* branch 2 (from branch 1 after cycle 2)"), str(branches))
    check(driver.find_element(By.ID, "action-errors").text == "",
          "no error: " + driver.find_element(By.ID, "action-errors").text)
    variables = len(json.loads(study_text)["design_variables"])
    check_cycle_charts(driver, 3, variables)
    check_branch_view(driver, 2)
    # Run to the end: the page learns of the cycles from the event stream only.
    driver.find_element(By.ID, "run").click()
    wait.until(lambda d: "idle; run converged" in d.find_element(By.ID, "study-status").text)
    table = rows(driver)
    outcome = column(driver, "outcome")
    check(len(table) > 3 and table[-1][outcome] == "converged", "converged: %s" % table[-1:])
    # The page redrew its charts on every event: Chart.js holds only those on the page now.
    live, shown = driver.execute_script(
        "return [Object.keys(Chart.instances).length,"
        " [...document.querySelectorAll('canvas')].filter(c => Chart.getChart(c)).length];")
    check(live == shown, "Chart.js holds %d charts, the page shows %d" % (live, shown))
    return table


# The Chart.js instance of the chart in `figure` (a CSS selector), read at once: the labels,
# points and reference flag of its datasets, and its spec.
CHART_JS = """
const figure = document.querySelector(arguments[0]);
const canvas = figure && figure.querySelector('canvas');
const chart = canvas && Chart.getChart(canvas);
if (!chart) return null;
return {title: figure.querySelector('figcaption').textContent, spec: chart.sao_spec,
        datasets: chart.data.datasets.map(d => ({label: d.label, reference: !!d.reference,
            line: !!d.showLine, radius: d.pointRadius, style: d.pointStyle,
            points: d.data.filter(p => Number.isFinite(p.x) && p.y !== null).map(p => [p.x, p.y])}))};
"""


def chart(driver, figure):
    return driver.execute_script(CHART_JS, figure)


def wait_chart(driver, figure, ready, what):
    """The chart once `ready(chart)` holds (the page redraws its charts on every event)."""
    seen = []
    try:
        WebDriverWait(driver, 90).until(
            lambda d: seen.insert(0, chart(d, figure)) or (seen[0] and ready(seen[0])))
    except Exception:
        raise AssertionError("%s: %s; the chart: %s" % (figure, what, json.dumps(seen[:1])[:2000]))
    return seen[0]


def datasets(c, prefix):
    return [d for d in c["datasets"] if d["label"].startswith(prefix)]


def branch_lines(c):
    """The datasets of the branches' lines ("branch 2, current (idle)"), not the branch points."""
    return [d for d in c["datasets"] if re.match(r"branch \d", d["label"])]


def check_cycle_charts(driver, cycles, variables):
    """The cycle charts: objective, violation, errors, predicted against computed (objective,
    constraints), move limits, scaled design, and one per variable; the objective's proposal
    line from cycle 0 (the start) on."""
    ids = driver.execute_script(
        "return [...document.querySelectorAll('#plots figure.chart')].map(f => f.id);")
    check(ids[:7] == ["plot-objective", "plot-violation", "plot-errors",
                      "plot-predicted-objective", "plot-predicted-constraints", "plot-move-limits",
                      "plot-design"] and len(ids) == 7 + variables,
          "seven cycle charts and one per design variable: %s" % ids)
    fractional = driver.execute_script(
        "return [...document.querySelectorAll('#plots canvas')].map(c => Chart.getChart(c))"
        ".filter(c => !c.sao_spec.id.startsWith('plot-predicted'))"
        ".filter(c => !c.sao_spec.x_integer || c.scales.x.ticks.some(t => t.value % 1))"
        ".map(c => c.sao_spec.id);")
    check(not fractional, "whole cycles on the x axis of every cycle chart: not %s" % fractional)
    objective = wait_chart(driver, "#plot-objective",
                           lambda c: len(datasets(c, "proposal")[0]["points"]) == cycles + 1,
                           "the proposal of every cycle and the start")
    check([p[0] for p in datasets(objective, "proposal")[0]["points"]] == list(range(cycles + 1)),
          "the objective at cycles 0..%d: %s" % (cycles, objective["datasets"][0]))
    check_errors_plot(driver, cycles)


def check_errors_plot(driver, cycles):
    """Ef and Eg: one point each per cycle (a zero is left out on the log axis), and the
    accuracies objacc and vioacc as lines."""
    c = wait_chart(driver, "#plot-errors",
                   lambda c: len(datasets(c, "Ef")) == 1 and
                   len(datasets(c, "Ef")[0]["points"]) + zeros(c, "Ef") == cycles,
                   "one Ef point per cycle")
    check(c["spec"]["log_y"], "the errors on a log axis")
    for name in ("Ef", "Eg"):
        series = [s for s in c["spec"]["series"] if s["name"].startswith(name)]
        check(len(series) == 1 and series[0]["x"] == list(range(1, cycles + 1)),
              "one %s value per cycle: %s" % (name, series))
        check(len(datasets(c, name)[0]["points"]) + zeros(c, name) == cycles,
              "one %s point per cycle (zeros left out): %s" % (name, datasets(c, name)))
    accuracies = driver.execute_script("return state.status.accuracies;")
    for name in ("objacc", "vioacc"):
        lines = [l for l in c["spec"]["lines"] if l["label"].startswith(name)]
        check(len(lines) == 1 and abs(lines[0]["y"] - accuracies[name]) < 1e-12,
              "the %s line at %g: %s" % (name, accuracies[name], c["spec"]["lines"]))


def zeros(c, name):
    """The values of series `name` a log axis leaves out (zeros and negatives)."""
    series = [s for s in c["spec"]["series"] if s["name"].startswith(name)]
    return sum(1 for y in series[0]["y"] if y is not None and y <= 0) if series else 0


def check_branch_view(driver, branches):
    """One line per branch in both charts; every branch but the first ringed where it starts."""
    for figure in ("#branches-objective", "#branches-violation"):
        c = wait_chart(driver, figure, lambda c: len(branch_lines(c)) == branches,
                       "one line per branch")
        lines = branch_lines(c)
        check(all(d["line"] and d["points"] for d in lines), "%s: the branch lines" % figure)
        check(sum(1 for d in lines if ", current" in d["label"]) == 1,
              "%s: one current branch: %s" % (figure, [d["label"] for d in lines]))
        rings = datasets(c, "branch point")
        check(sum(len(d["points"]) for d in rings) == branches - 1 and
              all(not d["line"] and d["radius"] >= 6 for d in rings),
              "%s: %d branch points ringed: %s" % (figure, branches - 1, rings))


def api_get(url, path):
    request = urllib.request.Request(url.rstrip("/") + path,
                                     headers={"Authorization": "Bearer " + TOKEN})
    with urllib.request.urlopen(request) as r:
        return json.loads(r.read())


def drive_histories(driver, url, study_text):
    """Time-dependent constraints: the history plot of a picked cycle and constraint."""
    wait = WebDriverWait(driver, 60)
    driver.execute_script("document.getElementById('upload-text').value = arguments[0];",
                          study_text)
    driver.find_element(By.ID, "upload").click()
    wait.until(lambda d: d.find_element(By.ID, "study-title").text == json.loads(study_text)["name"])
    for n in (1, 2, 3):
        driver.find_element(By.ID, "step").click()
        wait_rows(driver, n)
    driver.find_element(By.ID, "restart-cycle").clear()
    driver.find_element(By.ID, "restart-cycle").send_keys("1")
    driver.find_element(By.ID, "restart").click()
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#branches li")) == 2)
    wait_rows(driver, 1)
    driver.find_element(By.ID, "step").click()
    table = wait_rows(driver, 2)
    check_cycle_charts(driver, 2, len(json.loads(study_text)["design_variables"]))
    check_branch_view(driver, 2)
    study_id = driver.execute_script("return state.id;")
    wait.until(lambda d: len(Select(d.find_element(By.ID, "ch-cycle")).options) == 2)
    Select(driver.find_element(By.ID, "ch-cycle")).select_by_value("1")
    # The picker lists the charts of cycle 1 by title: the |y| constraint's, labelled by the
    # study ("label [unit]", not the bare name).
    wait.until(lambda d: "cycle 1" in (chart(d, "#constraint-history") or {"datasets": [{"label": ""}]})
               ["datasets"][0]["label"])
    options = [o.text for o in Select(driver.find_element(By.ID, "ch-constraint")).options]
    picked = [i for i, t in enumerate(options) if t.startswith("Displacement |y| [m]")]
    check(len(picked) == 1, "one history chart of the displacement constraint: %s" % options)
    Select(driver.find_element(By.ID, "ch-constraint")).select_by_value(str(picked[0]))
    c = wait_chart(driver, "#constraint-history",
                   lambda c: c["title"] == options[picked[0]], "the picked constraint's chart")
    expected = api_get(url, "/api/studies/%s/histories?cycle=1" % study_id)
    parts = [c for c in expected["constraints"] if c["name"] in ("displacement[+]", "displacement[-]")]
    check(len(parts) == 2, "the API gives both signs of |y|: %s" % [c["name"] for c in expected["constraints"]])
    designs = [d for d in c["datasets"] if not d["reference"] and d["line"]]
    check(len(designs) == 2 and designs[0]["label"] == "start of cycle 1" and
          designs[1]["label"].startswith("proposal of cycle 1 ("),
          "the start and the proposal g(t): %s" % [d["label"] for d in c["datasets"]])
    t = parts[0]["t"]
    for k, d in enumerate(designs):
        g = parts[0]["designs"][k]["g"]
        check(len(d["points"]) == len(t) and
              all(abs(p[0] - t[i]) < 1e-12 and abs(p[1] - g[i]) < 1e-9 * max(1, abs(g[i]))
                  for i, p in enumerate(d["points"])),
              "%s: the API's displacement[+] at every time point" % d["label"])
    bound = parts[0]["designs"][0]["bound"]
    bounds = [d for d in c["datasets"] if d["reference"]]
    check(any(abs(d["points"][0][1] - bound) < 1e-12 and "upper bound" in d["label"] for d in bounds),
          "the bound %g drawn: %s" % (bound, [(d["label"], d["points"][:1]) for d in bounds]))
    # Exactly the retained points of the API, of both signs, at each design.
    for k, d in enumerate(designs):
        shown = sorted(p[0] for r in datasets(c, d["label"] + ": retained points") for p in r["points"])
        wanted = sorted(t[p] for part in parts for p in part["designs"][k]["retained"])
        check(shown == wanted, "%s: the %d retained points of the API marked: %s, the API: %s" %
              (d["label"], len(wanted), shown, wanted))
    check(any(part["designs"][k]["retained"] for part in parts for k in range(len(designs))),
          "the API retains points of |y| in cycle 1")
    check_scatter_click(driver)
    check(driver.find_element(By.ID, "action-errors").text == "",
          "no error: " + driver.find_element(By.ID, "action-errors").text)
    return table


SCATTER_TARGET = (
    "const c = document.querySelector('#scatter-plot canvas'), chart = c && Chart.getChart(c);"
    "if (!chart) return null;"
    "const ids = chart.sao_spec.series[0].ids, k = ids.length - 1;"
    "const p = chart.getDatasetMeta(0).data[k], r = c.getBoundingClientRect();"
    "return [ids[k], p.x - r.width / 2, p.y - r.height / 2];")


def settled_scatter_target(driver):
    """The last stored analysis' point in the scatter, once two reads 0.3 s apart agree: the
    chart grows its box after each layout to keep its plot's height (charts.js, sao_room), and a
    status poll may draw it again, so a point read mid-layout can move before the click."""
    last = None
    for _ in range(100):
        target = driver.execute_script(SCATTER_TARGET)
        if target is not None and target == last:
            return target
        last = target
        time.sleep(0.3)
    raise RuntimeError("the scatter's last point did not settle: %s" % (last,))


def check_scatter_click(driver):
    """A click on a point of the stored analyses' scatter draws that analysis' histories."""
    wait = WebDriverWait(driver, 90)
    wait.until(lambda d: d.execute_script(
        "const c = document.querySelector('#scatter-plot canvas');"
        "return c && Chart.getChart(c) && Chart.getChart(c).sao_spec.series[0].ids.length > 1;"))
    target = settled_scatter_target(driver)
    canvas = driver.find_element(By.CSS_SELECTOR, "#scatter-plot canvas")
    ActionChains(driver).move_to_element_with_offset(canvas, target[1], target[2]).click().perform()
    label = "stored analysis %d" % target[0]
    wait.until(lambda d: d.find_element(By.ID, "ch-analysis").get_attribute("value") == str(target[0]))
    wait.until(lambda d: label in d.execute_script(
        "const c = document.querySelector('#constraint-history canvas');"
        "return c && Chart.getChart(c) ? Chart.getChart(c).data.datasets.map(d => d.label).join('|') : '';"))
    print("workbench: a click on analysis %d of the scatter drew its histories" % target[0])


def main():
    with workbench("sao-workbench-", TOKEN,
                   ["connection", "upload-errors", "action-errors", "study-title", "study-status",
                    "progress"]) as (args, driver, url):
        with open(os.path.join(args.source, "problems/slider-crank/path.json")) as f:
            table = drive(driver, url, f.read())
        with open(os.path.join(args.source, "problems/impact-absorber/max-acceleration.json")) as f:
            drive_histories(driver, url, f.read())
        if args.screenshot:
            driver.save_screenshot(args.screenshot)
        print("workbench: upload, 2 steps, move limit, step, restart, step, run: table", table)
        print("workbench: impact absorber, 3 steps, restart from cycle 1, step: histories, "
              "errors, branch and history charts checked")


if __name__ == "__main__":
    main()
