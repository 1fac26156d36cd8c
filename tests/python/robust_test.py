"""Session.robust() (docs/python.md, docs/robustness.md): the same document as `sao robust DIR
--json`, from the analyses the command stored (none analysed again); bad names raise and leave the
session usable."""
import json
import subprocess
import unittest

import sao
from support import SAO, problem, scratch

STUDY = problem("robustness/linear.json")


class Robust(unittest.TestCase):
    def test_the_sessions_estimate_is_the_commands_and_reuses_its_analyses(self):
        folder = scratch("robust-python")
        command = subprocess.run([SAO, "robust", STUDY, "--out", folder, "--json", "-q",
                                  "--samples", "4000", "--verify", "4"],
                                 check=True, capture_output=True, text=True)
        theirs = json.loads(command.stdout)
        session = sao.Session(folder)
        try:
            mine = session.robust(samples=4000, verify=4)
            self.assertEqual(mine["values"], theirs["values"])
            for analyses in mine["analyses"]:
                self.assertEqual(analyses["analysed"], 0)
            g = [v for v in mine["values"] if v["name"] == "constraint.g"][0]
            self.assertEqual(g["violation"]["count"], 4000)
            self.assertNotIn("sobol", g)
            # Sobol indices over the random variables: g = 3 x1 - x2 is 1.35 z1 - 0.26 z2 in the
            # independent components, S = (1.8225, 0.0675) / 1.89.
            with_sobol = session.robust(samples=4000, verify=4, sobol=1024)
            g = [v for v in with_sobol["values"] if v["name"] == "constraint.g"][0]
            self.assertAlmostEqual(g["sobol"]["first"][0], 1.8225 / 1.89, delta=0.03)
            self.assertAlmostEqual(g["sobol"]["total"][1], 0.0675 / 1.89, delta=0.03)
            other = session.robust(method="mc-analyses", samples=50, design={"x1": 0.5})
            self.assertEqual(other["design"]["x1"], 0.5)
            self.assertEqual(other["analyses"][0]["analysed"], 50)
            with self.assertRaises(ValueError):
                session.robust(design={"x9": 1.0})
            with self.assertRaises(ValueError):
                session.robust(method="sorm")
            self.assertEqual(session.step()["event"], "cycle")  # the session is open again
        finally:
            session.close()


if __name__ == "__main__":
    unittest.main()
