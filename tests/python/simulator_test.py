"""Python simulators: an exception is a failed analysis carrying the traceback (its first line
naming the exception and where it was raised; the package's log showing it whole); a sao.Simulator
subclass registered by name, with gradients it provides; per-run errors; results of the wrong
shape named; bad sections refused with their JSON paths."""
import copy
import json
import os
import subprocess
import sys
import threading
import time
import unittest

import numpy as np

import sao
from support import SOURCE, problem


def study_with(simulator):
    with open(problem("python-absorber/max-acceleration.json")) as f:
        study = json.load(f)
    study["simulator"] = simulator
    return study


@sao.simulator(responses={"y": "history", "yddot": "history"})
def broken(designs, load_case):
    return {"y": designs[:, 0] / 0.0 + missing_name}  # noqa: F821 (raises NameError)


class Quadratic(sao.Simulator):
    """y(t) = k t^2 + c t, yddot = 2 k, with exact gradients; records its threads."""
    responses = {"y": "history", "yddot": "history"}
    provides_gradients = True
    thread_safe = True

    def __init__(self):
        self.threads = set()
        self.calls = 0

    def evaluate(self, designs, load_case):
        self.threads.add(threading.get_ident())
        self.calls += 1
        t = np.asarray(load_case["times"])
        k, c = designs[:, :1], designs[:, 1:2]
        out = {"y": k * t * t + c * t, "yddot": np.repeat(2 * k, t.size, axis=1)}
        if load_case["gradients"]:
            runs, points = designs.shape[0], t.size
            gy = np.zeros((runs, points, 2))
            gy[:, :, 0] = t * t
            gy[:, :, 1] = t
            ga = np.zeros((runs, points, 2))
            ga[:, :, 0] = 2.0
            out["gradients"] = {"y": gy, "yddot": ga}
        return out


class PythonSimulators(unittest.TestCase):
    def test_exception_is_a_failed_analysis_with_the_traceback(self):
        sao.register_simulator("broken", broken)
        analysis = sao.evaluate(study_with({"type": "python", "object": "broken"}))
        self.assertFalse(analysis["ok"])
        message = analysis["message"]
        self.assertIn("Python simulator broken", message)
        self.assertIn("Traceback (most recent call last)", message)
        self.assertIn("NameError: name 'missing_name' is not defined", message)
        self.assertIn("simulator_test.py", message)
        result = sao.run(study_with({"type": "python", "object": "broken"}))
        self.assertEqual(result["status"], "failed")
        self.assertIn("NameError", result["message"])

    def test_the_message_and_the_log_carry_the_whole_traceback(self):
        # tests/data/python-raising/raising.py raises in a nested function below k = 0.9.
        study = os.path.join(SOURCE, "tests", "data", "python-raising", "study.json")
        analysis = sao.evaluate(study, design=np.array([0.5, 0.3]))
        first, rest = analysis["message"].split("\n", 1)
        self.assertEqual(first, "Python simulator raising.simulate: ValueError: stiffness below "
                                "0.9 (raising.py, line 12, in stiffness)")
        self.assertIn('raising.py", line 19, in simulate\n    k = stiffness(designs)\n', rest)
        self.assertIn('raising.py", line 12, in stiffness\n    raise ValueError', rest)
        # The package's log (spdlog's default logger: stdout) while a run rejects a cycle: the
        # whole traceback.
        done = subprocess.run(
            [sys.executable, "-c", "import sao; sao.run(%r, overrides=['settings.max_cycles=1'])"
             % study], capture_output=True, text=True)
        self.assertIn("cycle 1: analysis of b* failed (" + first + "): cycle rejected, move limits "
                      "reduced\nTraceback (most recent call last):\n", done.stdout)
        self.assertIn('raising.py", line 12, in stiffness\n    raise ValueError', done.stdout)

    def test_subclass_with_provided_gradients(self):
        quadratic = sao.register_simulator("quadratic", Quadratic())
        study = study_with({"type": "python", "object": "quadratic",
                            "gradients": {"method": "provided"}})
        analysis = sao.evaluate(study, design=np.array([0.5, 0.25]), gradients=True)
        self.assertTrue(analysis["ok"], analysis["message"])
        case = analysis["cases"][0]
        t = np.asarray(case["times"])
        np.testing.assert_allclose(case["histories"]["y"], 0.5 * t * t + 0.25 * t)
        np.testing.assert_allclose(case["gradients"]["y"][:, 0], t * t)
        np.testing.assert_allclose(case["gradients"]["yddot"][:, 1], 0.0)
        self.assertEqual(quadratic.calls, 1)  # one call: no finite differences

    def test_thread_safe_batches_run_in_parallel_shares(self):
        quadratic = sao.register_simulator("parallel", Quadratic())
        study = study_with({"type": "python", "object": "parallel", "workers": 4,
                            "gradients": {"method": "forward", "step": 1e-6}})
        analysis = sao.evaluate(study, gradients=True)  # 1 + 2 runs: up to 3 calls
        self.assertTrue(analysis["ok"], analysis["message"])
        self.assertEqual(quadratic.calls, 3)
        np.testing.assert_allclose(analysis["cases"][0]["gradients"]["y"][:, 1],
                                   np.asarray(analysis["cases"][0]["times"]), atol=1e-5)

    def test_the_gil_is_released_while_the_optimizer_works(self):
        # A Python thread keeps ticking (every millisecond) during one long call of an analysis
        # batch and of a run on the internal simulator. With the GIL held by the calls it ticks
        # only where they convert results to Python objects: 4 and 1 times when this was
        # checked by holding it, against 366 and 38 with the GIL released.
        ticks, stop = [], threading.Event()

        def tick():
            while not stop.is_set():
                ticks.append(1)
                time.sleep(0.001)

        def ticks_during(call):
            before = len(ticks)
            call()
            return len(ticks) - before

        evaluator = sao.Evaluator(problem("impact-absorber/max-acceleration.json"))
        designs = np.tile([[0.5, 0.4]], (400, 1))
        ticker = threading.Thread(target=tick)
        ticker.start()
        try:
            time.sleep(0.01)
            batch = ticks_during(lambda: evaluator.evaluate(designs))
            run = ticks_during(
                lambda: sao.run(problem("impact-absorber/max-acceleration-multibody.json")))
        finally:
            stop.set()
            ticker.join()
        self.assertGreaterEqual(batch, 50)
        self.assertGreaterEqual(run, 5)

    def test_wrong_shape_and_run_errors_are_named(self):
        @sao.simulator(responses={"y": "history", "yddot": "history"})
        def short(designs, load_case):
            return {"y": np.zeros(3), "yddot": np.zeros((designs.shape[0], 101))}

        @sao.simulator(responses={"y": "history", "yddot": "history"})
        def refuses(designs, load_case):
            zeros = np.zeros((designs.shape[0], 101))
            return {"y": zeros, "yddot": zeros, "errors": ["diverged at t = 3"] * len(designs)}

        sao.register_simulator("short", short)
        sao.register_simulator("refuses", refuses)
        a = sao.evaluate(study_with({"type": "python", "object": "short"}))
        self.assertFalse(a["ok"])
        self.assertIn('response "y": expected 1 x 101 numbers, got shape (3,)', a["message"])
        b = sao.evaluate(study_with({"type": "python", "object": "refuses"}))
        self.assertFalse(b["ok"])
        self.assertIn("diverged at t = 3", b["message"])

    def test_bad_sections_are_study_errors_with_paths(self):
        with self.assertRaises(sao.StudyError) as raised:
            sao.check(study_with({"type": "python", "module": "no_such_module",
                                  "function": "f", "speed": 3}))
        problems = "\n".join(raised.exception.problems)
        self.assertIn("simulator.module: cannot import", problems)
        self.assertIn("No module named 'no_such_module'", problems)
        self.assertIn("simulator.speed: unknown key", problems)
        with self.assertRaises(sao.StudyError) as raised:
            sao.check(study_with({"type": "python", "object": "nobody"}))
        self.assertIn('no Python simulator "nobody" registered', str(raised.exception))
        with self.assertRaises(sao.StudyError) as raised:
            sao.check(problem("python-absorber/max-acceleration.json"),
                      overrides=["simulator.gradients.method=provided"])
        self.assertIn('simulator.gradients.method: "provided", but the Python simulator',
                      str(raised.exception))

    def test_the_command_lines_simulators_and_executors_are_known(self):
        # One registration (register_standard_components): the SLURM executor as in `sao`.
        with open(problem("impact-absorber/max-acceleration.json")) as f:
            study = json.load(f)
        study["simulator"]["executor"] = {"type": "slurm", "partition": "short"}
        sao.check(study)  # before, "unknown executor \"slurm\" (known: \"local\")"
        study["simulator"]["executor"] = {"type": "pbs"}
        with self.assertRaises(sao.StudyError) as raised:
            sao.check(study)
        self.assertIn('simulator.executor.type: unknown executor "pbs" (known: "local", "slurm")',
                      str(raised.exception))
        for kind in ("external", "plugin"):  # known types: their own problems, not "unknown type"
            with self.assertRaises(sao.StudyError) as raised:
                sao.check(study_with({"type": kind}))
            self.assertNotIn("unknown type", str(raised.exception))


if __name__ == "__main__":
    unittest.main()
