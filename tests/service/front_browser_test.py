#!/usr/bin/env python3
"""The workbench's Pareto front and Robustness panels in a real browser (headless chromium, as
metamodels_browser_test.py): SRN (two objectives) posted and picked: the front panel is shown,
the cycles' charts are not; "Compute front" (population=40 generations=60 verify=5: POST
.../pareto) draws one chart whose series are the API's (GET .../pareto): the predicted front as
a line through every point, the verified points' predictions and analyses as markers, and a
table row per front point; "Start a study" on the last verified point with f2 chosen (POST
.../front-study) opens the new study: one objective, f2, starting at the point's design. The
robustness study (problems/robustness/linear.json) picked:
"Estimate robustness" (samples=4000 verify=4: POST .../robust) fills the statistics table, a row
per value of the API's document with its mean and interval, and P(violated) for the constraint.

  tests/service/front_browser_test.py SAO_COMMAND SOURCE_DIR [--screenshot FILE]"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from headless import By, Select, WebDriverWait, workbench  # noqa: E402 (77 without chromium)
from metamodels_browser_test import TOKEN, api_get, api_post, chart, check, table  # noqa: E402


def pick(driver, wait, study_id):
    driver.find_element(By.CSS_SELECTOR, "#study-list li[data-id='%s']" % study_id).click()
    wait.until(lambda d: d.find_element(By.ID, "study-title").text != "")


def front(driver, wait, url, study_id):
    pick(driver, wait, study_id)
    wait.until(lambda d: d.find_element(By.ID, "front-panel").is_displayed())
    wait.until(lambda d: d.find_element(By.ID, "front-summary").text == "no front computed yet")
    check(not driver.find_element(By.ID, "robust-panel").is_displayed(), "no robustness panel")
    check(not driver.find_elements(By.CSS_SELECTOR, "#plots canvas"), "no cycle charts")
    driver.find_element(By.ID, "front-settings").send_keys("population=40 generations=60 verify=5")
    driver.find_element(By.ID, "front-run").click()
    wait.until(lambda d: "front points predicted" in d.find_element(By.ID, "front-summary").text)
    pareto = api_get(url, "/api/studies/%s/pareto" % study_id)["pareto"]
    points = pareto["front"]
    verified = [p for p in points if p["verified"]]
    wait.until(lambda d: chart(d, "#front-plots"))
    drawn = chart(driver, "#front-plots")
    curve, predicted, analysed = drawn["datasets"][:3]
    check(curve["showLine"] and len(curve["points"]) == len(points),
          "the predicted front as a curve through its %d points: %s" % (len(points), curve))
    check([p[0] for p in curve["points"]] == [p["predicted"]["objectives"]["f1"] for p in points],
          "the curve is the API's predicted front")
    check(not predicted["showLine"] and len(predicted["points"]) == len(verified),
          "the verified points' predictions as markers: %s" % predicted)
    check(not analysed["showLine"] and
          [p[1] for p in analysed["points"]] == [p["computed"]["objectives"]["f2"] for p in verified],
          "the verified points' analyses as markers: %s" % analysed)
    rows = table(driver, "#front-table")
    check(len(rows) == len(points) and sum(r[1] == "yes" for r in rows) == len(verified),
          "a row per front point, the verified ones said: %d rows" % len(rows))
    print("front: %d points, %d verified, chart series %s" %
          (len(points), len(verified), [d["label"] for d in drawn["datasets"][:3]]))


def start_study(driver, wait, url, study_id):
    points = api_get(url, "/api/studies/%s/pareto" % study_id)["pareto"]["front"]
    point = [p for p in points if p["verified"]][-1]
    Select(driver.find_element(By.ID, "front-objective")).select_by_value("f2")
    rows = table(driver, "#front-table")
    check([r[-1] == "Start a study" for r in rows] == [p["verified"] for p in points],
          "a \"Start a study\" button on each verified point, none on the others")
    row = driver.find_elements(By.CSS_SELECTOR, "#front-table tbody tr")[point["point"] - 1]
    check(rows[point["point"] - 1][0] == str(point["point"]), "the point's row")
    row.find_element(By.TAG_NAME, "button").click()
    wait.until(lambda d: not d.find_element(By.ID, "front-panel").is_displayed())
    picked = driver.find_element(By.CSS_SELECTOR, "#study-list li.current").get_attribute("data-id")
    check(picked != study_id, "the new study is picked")
    status = api_get(url, "/api/studies/%s" % picked)
    check([o["name"] for o in status["objectives"]] == ["f2"],
          "it optimises f2: %s" % status["objectives"])
    check(status["design"] == [point["design"]["x1"], point["design"]["x2"]],
          "it starts at point %d's design: %s" % (point["point"], status["design"]))
    print("start a study: point %d, f2, study %s at %s" % (point["point"], picked, status["design"]))


def robustness(driver, wait, url, study_id):
    pick(driver, wait, study_id)
    wait.until(lambda d: d.find_element(By.ID, "robust-panel").is_displayed())
    check(not driver.find_element(By.ID, "front-panel").is_displayed(), "no front panel")
    driver.find_element(By.ID, "robust-settings").send_keys("samples=4000 verify=4")
    driver.find_element(By.ID, "robust-run").click()
    wait.until(lambda d: d.find_element(By.ID, "robust-summary").text.startswith("method lhs"))
    document = api_get(url, "/api/studies/%s/robust" % study_id)
    rows = table(driver, "#robust-table")
    check([r[0].split(" ")[0] for r in rows] == [v["name"] for v in document["values"]],
          "a row per value: %s" % [r[0] for r in rows])
    g = [r for r, v in zip(rows, document["values"]) if v["name"] == "constraint.g"][0]
    value = [v for v in document["values"] if v["name"] == "constraint.g"][0]
    mean = value["statistics"]["mean"]
    check(float(g[1].split(" [")[0]) == float("%.5g" % mean["value"]) and "[" in g[1],
          "g's mean (%s) with its interval: %s" % (mean["value"], g))
    check("[" in g[-3], "P(violated) with its interval: %s" % g)
    print("robustness: %d values; constraint.g: mean %s, P(violated) %s" % (len(rows), g[1], g[-3]))


def main():
    with workbench("sao-front-", TOKEN, ["connection", "action-errors", "front-summary",
                                         "robust-summary", "progress"]) as (args, driver, url):
        ids = []
        for study in ["problems/pareto/srn.json", "problems/robustness/linear.json"]:
            with open(os.path.join(args.source, study)) as f:
                ids.append(api_post(url, "/api/studies", json.load(f))["id"])
        wait = WebDriverWait(driver, 60)
        driver.get(url)
        driver.find_element(By.ID, "token").send_keys(TOKEN + "\t")
        wait.until(lambda d: d.find_element(By.ID, "connection").text == "connected")
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#study-list li")) == 2)
        front(driver, wait, url, ids[0])
        if args.screenshot:
            panel = driver.find_element(By.ID, "front-panel")
            driver.execute_script("arguments[0].scrollIntoView();", panel)
            panel.screenshot(args.screenshot)
        start_study(driver, wait, url, ids[0])
        robustness(driver, wait, url, ids[1])


if __name__ == "__main__":
    main()
