"""step, set and restart from Python (sao.Session) against the command line (sao step, sao set,
sao restart) on the same study: the same cycle records, the same history in result.json, the
same branches; and the history as NumPy arrays."""
import json
import os
import subprocess
import unittest

import numpy as np

import sao
from support import SAO, problem, scratch

STUDY = problem("impact-absorber/max-acceleration.json")


def cli(*arguments):
    done = subprocess.run([SAO, *arguments], capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError("sao %s: exit %d\n%s" % (" ".join(arguments), done.returncode,
                                                       done.stderr))
    return json.loads(done.stdout) if "--json" in arguments else done.stdout


def result_history(folder):
    with open(os.path.join(folder, "result.json")) as f:
        return json.load(f)["history"]


class SessionAgainstTheCommandLine(unittest.TestCase):
    def test_step_set_restart_match_the_command_line(self):
        by_cli, by_python = scratch("session-cli"), scratch("session-python")
        session = sao.Session(by_python, study=STUDY)
        cli_records, python_records = [], []

        def step_both(first=False):
            extra = ["--study", STUDY] if first else []
            out = cli("step", by_cli, *extra, "--json")
            cli_records.append(out["record"])
            mine = session.step()
            self.assertEqual(mine["event"], "cycle")
            self.assertEqual(mine["simulator_runs"], out["simulator_runs"])
            python_records.append(mine["record"])

        step_both(first=True)
        step_both()
        self.assertEqual(cli("set", by_cli, "design_variables.b1.upper=0.9", "--json")["cycle"],
                         session.set(["design_variables.b1.upper=0.9"]))
        self.assertEqual(session.settings, sao.Session(by_cli).settings)
        step_both()
        step_both()
        restarted = cli("restart", by_cli, "--from-cycle", "2", "--reset-region", "--json")
        self.assertEqual(restarted["branch"], session.restart(2, reset_region=True))
        self.assertEqual(session.branch, 2)
        step_both()
        step_both()
        self.assertEqual(python_records, cli_records)
        self.assertEqual(session.result()["history"], result_history(by_cli))
        self.assertEqual(result_history(by_python), result_history(by_cli))
        self.assertEqual(session.history(branch=1), sao.Session(by_cli).history(branch=1))
        self.assertEqual(len(session.history(branch=1)), 4)

    def test_history_arrays(self):
        folder = scratch("session-arrays")
        session = sao.Session(folder, study=STUDY)
        result = session.run()
        self.assertEqual(result["status"], "converged")
        arrays = session.arrays()
        history = session.history()
        self.assertEqual(arrays["variables"], ["b1", "b2", "b3"])
        self.assertEqual(arrays["x_opt"].shape, (len(history), 3))
        np.testing.assert_array_equal(arrays["F"], [r["F_opt"] for r in history])
        np.testing.assert_array_equal(arrays["accepted"], [r["accepted"] for r in history])
        self.assertEqual(session.step()["event"], "ended")
        analysis = session.analysis()
        self.assertTrue(analysis["ok"])
        self.assertEqual(analysis["cases"][0]["histories"]["yddot"].shape, (101,))
        report = session.report()
        self.assertEqual(report, os.path.join(folder, "report.html"))
        with open(report) as f:
            page = f.read()
        # The report's charts: one spec per chart, the objective's per cycle (cycle 0 on).
        opening = '<script type="application/json" class="chart-spec">'
        specs = [json.loads(part.split("</script>", 1)[0]) for part in page.split(opening)[1:]]
        objective = [s for s in specs if s["id"] == "plot-objective"]
        self.assertEqual(len(objective), 1, [s["id"] for s in specs])
        self.assertEqual(objective[0]["series"][0]["x"], list(range(len(history) + 1)))
        # Another process (the command line) sees the same store.
        session.close()
        self.assertIn("converged", cli("status", folder))

    def test_store_errors(self):
        with self.assertRaises(sao.StoreError):
            sao.Session(scratch("session-empty"))


class DesignsInStudyOrder(unittest.TestCase):
    """Designs in the study's order (issue 46): variables named k, c (design) and amax
    (auxiliary), which sort as amax, c, k."""

    def test_result_and_records_keep_the_study_order(self):
        with open(STUDY) as f:
            study = json.load(f)
        study["design_variables"][0]["name"] = "k"
        study["design_variables"][1]["name"] = "c"
        study["auxiliary_variables"][0]["name"] = "amax"
        study["objective"]["auxiliary"] = "amax"
        study["simulator"]["parameters"] = {"k": "k", "c": "c"}
        records = []
        result = sao.run(study, max_cycles=2, on_cycle=records.append)
        self.assertEqual(list(result["design"]), ["k", "c", "amax"])
        self.assertTrue(records)
        for record in records + result["history"]:
            self.assertEqual(list(record["b0"]), ["k", "c", "amax"])
            self.assertEqual(list(record["b_opt"]), ["k", "c", "amax"])


if __name__ == "__main__":
    unittest.main()
