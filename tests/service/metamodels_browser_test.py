#!/usr/bin/env python3
"""The workbench's Metamodels panel in a real browser (headless chromium, as
workbench_browser_test.py): the impact absorber posted to a server that needs a token, picked in
the page, a 30-point DOE run from the panel ("Run DOE" with doe.method=lhs doe.points=30: POST
.../doe; its progress from the event stream); "Fit metamodels" clicked, a value picked: the scatter of predicted (leave-one-out) against computed has one point per design,
each the API's (GET .../metamodels: loo_points), and the line y = x; the accuracy table has a
row per model with the API's best marked; the Sobol indices are drawn as bars (first order and
total per variable) with their intervals in the table. A bad model name shows the API's message.

  tests/service/metamodels_browser_test.py SAO_COMMAND SOURCE_DIR [--screenshot FILE]"""
import json
import os
import sys
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from headless import By, Select, WebDriverWait, workbench  # noqa: E402 (exits 77 without chromium)

TOKEN = "metamodels-test-token"
POINTS = 30
VALUE = "objective.max_acceleration"

CHART_JS = """
const c = document.querySelector(arguments[0] + ' canvas'), chart = c && Chart.getChart(c);
if (!chart) return null;
return {title: chart.sao_spec.title, type: chart.config.type, labels: chart.data.labels || null,
        datasets: chart.data.datasets.map(d => ({label: d.label, showLine: !!d.showLine,
          points: d.data.map(p => p === null || typeof p === 'number' ? p : [p.x, p.y])}))};
"""


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def api_get(url, path):
    request = urllib.request.Request(url.rstrip("/") + path,
                                     headers={"Authorization": "Bearer " + TOKEN})
    with urllib.request.urlopen(request) as r:
        return json.loads(r.read())


def api_post(url, path, body):
    request = urllib.request.Request(url.rstrip("/") + path, data=json.dumps(body).encode(),
                                     headers={"Authorization": "Bearer " + TOKEN,
                                              "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as r:
        return json.loads(r.read())


def table(driver, selector):
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0] + ' tbody tr')]"
        ".map(tr => [...tr.cells].map(td => td.textContent));", selector)


def chart(driver, figure):
    return driver.execute_script(CHART_JS, figure)


def drive(driver, url, study_id):
    wait = WebDriverWait(driver, 60)
    driver.get(url)
    driver.find_element(By.ID, "token").send_keys(TOKEN + "\t")
    wait.until(lambda d: d.find_element(By.ID, "connection").text == "connected")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#study-list li"))
    driver.find_element(By.CSS_SELECTOR, "#study-list li[data-id='%s']" % study_id).click()
    wait.until(lambda d: d.find_element(By.ID, "study-title").text != "")
    # Too few analyses yet: the service's message, suggesting a DOE.
    driver.find_element(By.ID, "mm-fit").click()
    wait.until(lambda d: "409: metamodel: the store holds 0 successful analyses" in
               d.find_element(By.ID, "mm-errors").text)
    driver.find_element(By.ID, "doe-settings").send_keys("method=lhs doe.points=%d" % POINTS)
    driver.find_element(By.ID, "doe-run").click()
    wait.until(lambda d: d.find_element(By.ID, "progress").text.startswith(
        "DOE: %d of %d points (0 re-used, 0 failed)" % (POINTS, POINTS)))
    wait.until(lambda d: "; idle; " in d.find_element(By.ID, "study-status").text and
               "store: %d analyses" % POINTS in d.find_element(By.ID, "study-status").text)
    # A model the service does not know: its message, naming the known ones.
    driver.find_element(By.ID, "mm-models").send_keys("linear,cubic")
    driver.find_element(By.ID, "mm-fit").click()
    wait.until(lambda d: 'unknown model "cubic"' in d.find_element(By.ID, "mm-errors").text)
    driver.find_element(By.ID, "mm-models").clear()
    driver.find_element(By.ID, "mm-fit").click()  # the default models
    wait.until(lambda d: len(Select(d.find_element(By.ID, "mm-value")).options) > 1)
    check(driver.find_element(By.ID, "mm-errors").text == "",
          "no error: " + driver.find_element(By.ID, "mm-errors").text)
    Select(driver.find_element(By.ID, "mm-value")).select_by_value(VALUE)
    wait.until(lambda d: (chart(d, "#metamodel-loo") or {"title": ""})["title"].startswith(VALUE))
    report = api_get(url, "/api/studies/%s/metamodels" % study_id)
    value = [v for v in report["values"] if v["name"] == VALUE][0]

    scatter = chart(driver, "#metamodel-loo")
    designs, line = scatter["datasets"]
    check(len(designs["points"]) == POINTS and not designs["showLine"],
          "one point per design (%d): %d" % (POINTS, len(designs["points"])))
    wanted = [[p["computed"], p["predicted_loo"]] for p in value["loo_points"]]
    check(all(abs(a - b) <= 1e-12 * max(1, abs(b)) for p, q in zip(designs["points"], wanted)
              for a, b in zip(p, q)), "the points are the API's loo_points")
    check(line["label"] == "y = x" and line["showLine"] and len(line["points"]) == 2 and
          all(p[0] == p[1] for p in line["points"]), "the line y = x: %s" % line)

    rows = table(driver, "#mm-accuracy")
    check([r[0] for r in rows] == report["models"],
          "a row per model %s: %s" % (report["models"], rows))
    best = [r[0] for r in rows if r[-1] == "*"]
    check(best == [value["best"]], "the best model %s marked: %s" % (value["best"], rows))

    bars = chart(driver, "#metamodel-sobol")
    names = [v["name"] for v in report["variables"] if v["input"]]
    check(bars["type"] == "bar" and bars["labels"] == names, "a bar per variable: %s" % bars)
    check([d["label"] for d in bars["datasets"]] == ["first order S_i", "total S_Ti"],
          "first order and total: %s" % [d["label"] for d in bars["datasets"]])
    sobol = value["sobol"]["variables"]
    check(all(abs(bars["datasets"][1]["points"][i] - s["ST"]) < 1e-12 for i, s in enumerate(sobol)),
          "the total indices are the API's")
    intervals = table(driver, "#mm-sobol")
    check(len(intervals) == len(names) and all("[" in r[1] and "[" in r[2] for r in intervals),
          "the Sobol table, a row per variable with intervals: %s" % intervals)
    print("metamodels: %s, %d points, models %s, best %s, Sobol %s" %
          (VALUE, len(designs["points"]), [r[0] for r in rows], best[0], intervals))


def main():
    with workbench("sao-metamodels-", TOKEN,
                   ["connection", "action-errors", "mm-summary", "mm-errors"]) as (args, driver, url):
        with open(os.path.join(args.source, "problems/impact-absorber/max-acceleration.json")) as f:
            study_id = api_post(url, "/api/studies", json.load(f))["id"]
        drive(driver, url, study_id)
        if args.screenshot:
            panel = driver.find_element(By.ID, "metamodels-panel")
            driver.execute_script("arguments[0].scrollIntoView();", panel)
            panel.screenshot(args.screenshot)


if __name__ == "__main__":
    main()
