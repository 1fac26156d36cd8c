#!/usr/bin/env python3
"""Writes the data of identify.json (its "ay_measured" array): the synthetic accelerometer data of the
bar at the true parameters (k = 200 N/m, c = 2 N s/m, m = 0.5 kg), computed by `sao analyse`
with the study's own simulator section, plus Gaussian noise of 2 % of the largest |acceleration|
(Python's random.Random(24): the same numbers on every run).

    problems/accelerometer-identification/make-data.py build/sao
"""
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TRUE = {"k": 200.0, "c": 2.0, "m": 0.5}
NOISE = 0.02

sao = sys.argv[1] if len(sys.argv) > 1 else "build/sao"
study = json.load(open(os.path.join(HERE, "identify.json")))
names = [d["name"] for d in study["design_variables"]]
case = study["load_cases"][0]
request = {
    "format": "sao-analysis-request",
    "setup": {"section": study["simulator"], "design_names": names,
              "load_cases": [{"name": case["name"],
                              "grid": {"start": case["time"]["start"], "end": case["time"]["end"],
                                       "points": case["time"]["points"], "values": []},
                              "parameters": {}}],
              "study_directory": HERE},
    "design": [TRUE[n] for n in names],
    "derivatives": [],
    "values": None,
}
with tempfile.TemporaryDirectory() as tmp:
    with open(os.path.join(tmp, "request.json"), "w") as f:
        json.dump(request, f)
    subprocess.run([sao, "analyse", os.path.join(tmp, "request.json"),
                    os.path.join(tmp, "evaluation.json")], check=True)
    evaluation = json.load(open(os.path.join(tmp, "evaluation.json")))
case_result = evaluation["cases"][0]
ay = [float(v) for v in case_result["histories"]["sensor.ay"]]
rng = random.Random(24)
sigma = NOISE * max(abs(v) for v in ay)
study["data"]["ay_measured"] = [round(v + rng.gauss(0.0, sigma), 6) for v in ay]
with open(os.path.join(HERE, "identify.json"), "w") as f:
    json.dump(study, f, indent=2)
    f.write("\n")
print(f"identify.json: {len(ay)} points, noise sigma {sigma:.4g} m/s^2")
