"""Session.metamodels() (docs/python.md, docs/metamodels.md): after `sao doe`, the same report
as `sao metamodel DIR --json`, as a dict; an exactly quadratic response is fitted exactly by the
quadratic model, marked best; bad names raise ValueError."""
import json
import os
import subprocess
import unittest

import sao
from support import SAO, scratch

STUDY = {
    "name": "metamodel python",
    "design_variables": [
        {"name": "x1", "unit": "mm", "lower": 0, "upper": 2, "initial": 1},
        {"name": "x2", "lower": -1, "upper": 3, "initial": 1},
    ],
    "load_cases": [{"name": "main"}],
    "responses": [{"name": "q", "kind": "scalar", "unit": "J"}],
    "objective": {"name": "energy", "minimize": "q", "unit": "J"},
    "simulator": {
        "type": "internal",
        "model": "functions",
        "functions": {"q": "1 + 2*x1 - x2 + 0.5*x1*x2 + 3*x1^2 - 0.7*x2^2"},
        "gradients": {"method": "forward", "step": 1e-6},
    },
    "doe": {"method": "lhs", "points": 15, "seed": 2},
}


class Metamodels(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = scratch("metamodels")
        study = os.path.join(cls.folder, "study.json")
        with open(study, "w") as f:
            json.dump(STUDY, f)
        cls.out = os.path.join(cls.folder, "out")
        subprocess.run([SAO, "doe", study, "--out", cls.out, "-q"], check=True)

    def test_the_report_is_the_commands_and_fits_a_quadratic_exactly(self):
        session = sao.Session(self.out)
        try:
            report = session.metamodels(sobol_samples=256)
        finally:
            session.close()
        command = subprocess.run([SAO, "metamodel", self.out, "--json", "--sobol-samples", "256"],
                                 check=True, capture_output=True, text=True)
        expected = json.loads(command.stdout)
        self.assertEqual(report["values"], expected["values"])
        self.assertEqual(report["variables"], expected["variables"])
        self.assertEqual(report["points"], 15)
        q = report["values"][0]
        self.assertEqual(q["name"], "main.q")
        self.assertEqual(q["unit"], "J")
        self.assertEqual(q["best"], "quadratic")
        quadratic = [m for m in q["models"] if m["model"] == "quadratic"][0]
        self.assertLess(quadratic["loo_rms"], 1e-9)
        # Predicted against computed: one point per design; exact, the quadratic's LOO
        # prediction is the computed value.
        self.assertEqual(len(q["loo_points"]), 15)
        for p in q["loo_points"]:
            self.assertEqual(sorted(p["design"]), ["x1", "x2"])
            self.assertAlmostEqual(p["predicted_loo"], p["computed"], delta=1e-8)
        self.assertEqual(len(q["sobol"]["variables"]), 2)

    def test_unknown_names_raise_value_error(self):
        session = sao.Session(self.out)
        try:
            with self.assertRaisesRegex(ValueError, 'unknown model "cubic"'):
                session.metamodels(models=["cubic"])
            with self.assertRaisesRegex(ValueError, 'unknown response "z"'):
                session.metamodels(responses=["z"])
        finally:
            session.close()


if __name__ == "__main__":
    unittest.main()
