#!/usr/bin/env python3
"""The workbench in a real browser (Debian's chromium, chromium-driver, python3-selenium):
with a server that needs a token, enter it, upload the slider-crank study, step, change a move
limit, step, restart from cycle 2 with an edited study, step, run to the end, and check the
cycle table, the branch list and the charts at each stage (during the run the table follows the
event stream, which the page reads with the token): the charts are drawn by Chart.js (read back
from each canvas' chart), one per cycle chart the API gives, the objective with one point per
cycle from cycle 0 on, the errors chart one Ef and one Eg value per cycle, the branch view one
line per branch and the branch point ringed. Then the impact absorber (time-dependent
constraints): three steps, a restart from cycle 1, a step; the history chart of a picked cycle
and constraint shows both designs' histories, both bounds of |y| <= 1 and exactly the retained
points the API gives.

  tests/service/workbench_browser_test.py SAO_COMMAND SOURCE_DIR [--screenshot FILE]

Chromium runs headless with a fresh profile and no background network traffic."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request

# An optional part (scripts/bootstrap --with browser; scripts/test installs it): without it the
# test is skipped (exit 77, CTest SKIP_RETURN_CODE), not failed.
try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError:
    print("SKIP: python3-selenium is not installed (scripts/bootstrap --with browser)")
    sys.exit(77)
if not (shutil.which("chromium") and os.path.exists("/usr/bin/chromedriver")):
    print("SKIP: chromium or chromium-driver is not installed (scripts/bootstrap --with browser)")
    sys.exit(77)


TOKEN = "workbench-test-token"


def start_server(sao, data):
    server = subprocess.Popen([sao, "serve", "--port", "0", "--data", data, "--token", TOKEN],
                              stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    match = re.search(r"serving (http://\S+/)", line)
    if not match:
        server.kill()
        sys.exit("sao serve did not start: " + line)
    return server, match.group(1)


def browser(profile):
    options = webdriver.ChromeOptions()
    for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--user-data-dir=" + profile, "--window-size=1400,2300"]:
        options.add_argument(flag)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    return webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"),
                            options=options)


def rows(driver):
    """The cycle table's cells, read at once (the page re-renders it on every event)."""
    return driver.execute_script(
        "return [...document.querySelectorAll('#cycles tbody tr')]"
        ".map(tr => [...tr.cells].map(td => td.textContent));")


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
    # The table's columns: cycle, outcome, mvl, kept, each variable, F, Ef, Eg, V, factors,
    # subproblem.
    factors = [float(f) for f in table[-1][-2].split()]
    Select(driver.find_element(By.ID, "ml-variable")).select_by_visible_text("b1")
    driver.find_element(By.ID, "ml-value").send_keys(str(factors[0] / 2))
    driver.find_element(By.ID, "ml-set").click()
    wait.until(lambda d: "set for it: move_limit.b1=" in d.find_element(By.ID, "study-status").text)
    driver.find_element(By.ID, "step").click()
    table = wait_rows(driver, 3)
    check(abs(float(table[2][-2].split()[0]) - factors[0] / 2) < 1e-3 * factors[0],
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
    # 13 charts: objective, violation, errors, move limits, the scaled design, each of the 8
    # variables; all drawn on canvases.
    # (The charts follow the table: each status asks for them anew.)
    WebDriverWait(driver, 30).until(
        lambda d: ((drawn(d, "plot-objective") or [{}])[0].get("values")) == 4)
    check(count(driver, "#plots figure.chart canvas") == 13,
          "13 charts: %d" % count(driver, "#plots figure.chart canvas"))
    objective = drawn(driver, "plot-objective")
    check(objective[0]["points"] == 4, "the objective at cycle 0 and one point per cycle: %s"
          % objective)
    check_errors_plot(driver, 3)
    check_branch_view(driver, 2)
    # Run to the end: the page learns of the cycles from the event stream only.
    driver.find_element(By.ID, "run").click()
    wait.until(lambda d: "idle; run converged" in d.find_element(By.ID, "study-status").text)
    table = rows(driver)
    check(len(table) > 3 and table[-1][1] == "converged", "converged: %s" % table[-1:])
    return table


def count(driver, selector):
    return driver.execute_script("return document.querySelectorAll(arguments[0]).length;", selector)


# The datasets Chart.js draws in the chart of figure `id`: label, whether a line joins them,
# whether it is a reference line (a bound), how many values and how many of them are drawn
# (finite, and positive on a log axis); None while there is no chart.
DRAWN = """
const figure = document.getElementById(arguments[0]);
const canvas = figure && figure.querySelector('canvas');
const chart = canvas && Chart.getChart(canvas);
if (!chart) return null;
return chart.data.datasets.map(d => ({label: d.label, line: !!d.showLine, reference: !!d.reference,
  values: d.data.length,
  points: d.data.filter(p => Number.isFinite(p.x) && p.y !== null && Number.isFinite(p.y))
    .length}));
"""


def drawn(driver, figure_id):
    return driver.execute_script(DRAWN, figure_id)


def dataset(datasets, prefix):
    found = [d for d in datasets or [] if d["label"].startswith(prefix)]
    return found[0] if len(found) == 1 else None


def check_errors_plot(driver, cycles):
    """Ef and Eg: one value each per cycle (a zero is left off the log axis)."""
    WebDriverWait(driver, 30).until(
        lambda d: (dataset(drawn(d, "plot-errors"), "Ef") or {}).get("values") == cycles)
    errors = drawn(driver, "plot-errors")
    check(dataset(errors, "Eg")["values"] == cycles, "one Eg value per cycle: %s" % errors)
    check(dataset(errors, "Ef")["points"] + dataset(errors, "Eg")["points"] > 0,
          "errors drawn: %s" % errors)


def check_branch_view(driver, branches):
    """One line per branch in both views; every branch but the first ringed where it starts."""
    def lines(d, figure_id):
        return [x for x in drawn(d, figure_id) or []
                if x["label"].startswith("branch ") and x["line"]]
    WebDriverWait(driver, 30).until(lambda d: len(lines(d, "branches-objective")) == branches)
    check(len(lines(driver, "branches-violation")) == branches, "V per branch")
    rings = [x for x in drawn(driver, "branches-objective")
             if x["label"].startswith("branch point")]
    check(sum(x["points"] for x in rings) == branches - 1, "branch points ringed: %s" % rings)


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
    check_errors_plot(driver, 2)
    check_branch_view(driver, 2)
    study_id = driver.execute_script("return state.id;")
    wait.until(lambda d: len(Select(d.find_element(By.ID, "ch-cycle")).options) == 2)
    Select(driver.find_element(By.ID, "ch-cycle")).select_by_value("1")
    wait.until(lambda d: any(x["label"] == "start of cycle 1"
                             for x in drawn(d, "constraint-history") or []))
    # The study labels the constraint: the picker and the chart show "label [unit]", not the
    # bare name.
    picker = Select(driver.find_element(By.ID, "ch-constraint"))
    titles = [o.text for o in picker.options]
    displacement = [t for t in titles if t.startswith("Displacement |y| [m]")]
    check(len(displacement) == 1, "one chart of |y| <= 1: %s" % titles)
    picker.select_by_visible_text(displacement[0])
    wait.until(lambda d: d.execute_script(
        "return document.querySelector('#constraint-history figcaption').textContent;")
        == displacement[0])
    expected = api_get(url, "/api/studies/%s/histories?cycle=1" % study_id)
    parts = [c for c in expected["constraints"]
             if c["name"] in ("displacement[+]", "displacement[-]")]
    check(len(parts) == 2, "y <= 1 and -y <= 1: %s" % [c["name"] for c in expected["constraints"]])
    retained = sum(len(d["retained"]) for c in parts for d in c["designs"])
    chart = drawn(driver, "constraint-history")
    histories = [d for d in chart if d["line"] and not d["reference"]]
    check([d["label"].split(" (")[0] for d in histories]
          == ["start of cycle 1", "proposal of cycle 1"], "start and proposal g(t): %s" % chart)
    check(all(d["points"] == 101 for d in histories), "101 time points each: %s" % histories)
    check(len([d for d in chart if d["reference"]]) == 2, "both bounds: %s" % chart)
    marked = sum(d["points"] for d in chart if d["label"].endswith(": retained points"))
    check(retained > 0, "the API retains points of |y| <= 1 in cycle 1")
    check(marked == retained, "the %d retained points marked: %d" % (retained, marked))
    check(driver.find_element(By.ID, "action-errors").text == "",
          "no error: " + driver.find_element(By.ID, "action-errors").text)
    return table


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("sao")
    parser.add_argument("source")
    parser.add_argument("--screenshot")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="sao-workbench-")
    server, url = start_server(args.sao, os.path.join(work, "data"))
    driver = None
    try:
        driver = browser(os.path.join(work, "profile"))
        with open(os.path.join(args.source, "problems/slider-crank/path.json")) as f:
            table = drive(driver, url, f.read())
        with open(os.path.join(args.source, "problems/impact-absorber/max-acceleration.json")) as f:
            drive_histories(driver, url, f.read())
    except Exception:
        if driver:  # what the page said, for the failure's log
            print("page:", driver.execute_script(
                "return ['connection', 'upload-errors', 'action-errors', 'study-title',"
                " 'study-status', 'progress'].map(id => id + ': ' +"
                " document.getElementById(id).textContent);"), file=sys.stderr)
        raise
    else:
        if args.screenshot:
            driver.save_screenshot(args.screenshot)
        print("workbench: upload, 2 steps, move limit, step, restart, step, run: table", table)
        print("workbench: impact absorber, 3 steps, restart from cycle 1, step: histories, "
              "errors and branch plots checked")
    finally:
        if driver:
            driver.quit()
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
