"""The impact absorber written as a Python function (problems/python-absorber/absorber.py)
reaches the internal simulator's optimum with the same counts, and the package's results are
result.json's document with NumPy histories and gradients."""
import json
import os
import unittest

import numpy as np

import sao
from support import problem, scratch


class AbsorberInPython(unittest.TestCase):
    def test_same_optimum_and_counts_as_the_internal_simulator(self):
        internal = sao.run(problem("impact-absorber/max-acceleration.json"))
        python = sao.run(problem("python-absorber/max-acceleration.json"))
        self.assertEqual(internal["status"], "converged", internal["message"])
        self.assertEqual(python["status"], "converged", python["message"])
        self.assertAlmostEqual(python["objective"], internal["objective"], delta=1e-4 * internal["objective"])
        for name in ("b1", "b2"):
            self.assertAlmostEqual(python["design"][name], internal["design"][name], delta=1e-3)
        for count in ("cycles", "analyses", "sensitivity_analyses", "simulator_runs"):
            self.assertEqual(python[count], internal[count], count)

    def test_result_is_the_result_json_document(self):
        out = scratch("absorber-result")
        seen = []
        result = sao.run(problem("python-absorber/max-acceleration.json"), out=out,
                         on_cycle=seen.append)
        with open(os.path.join(out, "result.json")) as f:
            written = json.load(f)
        for volatile in ("simulator_seconds",):
            result.pop(volatile)
            written.pop(volatile)
        self.assertEqual(result, written)
        self.assertEqual([r["cycle"] for r in seen], list(range(1, result["cycles"] + 1)))

    def test_histories_and_gradients_are_numpy_arrays(self):
        analysis = sao.evaluate(problem("python-absorber/max-acceleration.json"), gradients=True)
        self.assertTrue(analysis["ok"], analysis["message"])
        case = analysis["cases"][0]
        self.assertEqual(case["histories"]["y"].shape, (101,))
        self.assertEqual(case["gradients"]["y"].shape, (101, 2))
        internal = sao.evaluate(problem("impact-absorber/max-acceleration.json"), gradients=True)
        np.testing.assert_allclose(case["histories"]["y"], internal["cases"][0]["histories"]["y"],
                                   atol=1e-8)
        np.testing.assert_allclose(case["gradients"]["y"], internal["cases"][0]["gradients"]["y"],
                                   atol=1e-3)


if __name__ == "__main__":
    unittest.main()
