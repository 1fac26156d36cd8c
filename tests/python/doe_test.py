"""Session.doe() (docs/python.md, docs/doe.md): a DOE of the session's stored study into its
store, as `sao doe DIR --set doe.KEY=VALUE` runs it: the same plan, so the same analyses and the
same metamodel report as the command's; called again, the DOE is resumed with every point
re-used; bad settings raise sao.StudyError and leave the session usable."""
import json
import subprocess
import unittest

import sao
from support import SAO, problem, scratch

STUDY = problem("impact-absorber/max-acceleration.json")


class Doe(unittest.TestCase):
    def test_a_doe_from_python_is_the_commands(self):
        by_python, by_cli = scratch("doe-python"), scratch("doe-cli")
        session = sao.Session(by_python, study=STUDY)
        try:
            summary = session.doe({"method": "lhs", "points": 10, "seed": 4})
            self.assertEqual(summary["points"], 10)
            self.assertEqual(summary["analysed"], 10)
            self.assertEqual(summary["reused"], 0)
            self.assertEqual(summary["failed"], 0)
            self.assertFalse(summary["resumed"])
            self.assertEqual(summary["method"], "lhs")
            again = session.doe()  # the store's latest DOE, every point stored
            self.assertTrue(again["resumed"])
            self.assertEqual(again["id"], summary["id"])
            self.assertEqual((again["analysed"], again["reused"]), (0, 10))
            mine = session.metamodels(models=["linear", "rbf"], sobol_model="none")
            # The session is open again: it steps from the stored analyses.
            self.assertEqual(session.step()["event"], "cycle")
        finally:
            session.close()
        subprocess.run([SAO, "doe", STUDY, "--out", by_cli, "-q", "--set", "doe.method=lhs",
                        "--set", "doe.points=10", "--set", "doe.seed=4"], check=True)
        command = subprocess.run([SAO, "metamodel", by_cli, "--json", "--models", "linear,rbf",
                                  "--sobol-model", "none"],
                                 check=True, capture_output=True, text=True)
        theirs = json.loads(command.stdout)
        self.assertEqual(mine["points"], 10)
        self.assertEqual(mine["variables"], theirs["variables"])
        self.assertEqual(mine["values"], theirs["values"])

    def test_bad_settings_raise_and_the_session_stays_usable(self):
        session = sao.Session(scratch("doe-bad"), study=STUDY)
        try:
            with self.assertRaises(sao.StudyError) as caught:
                session.doe({"method": "random", "points": 10})
            self.assertIn("doe.method", str(caught.exception))
            with self.assertRaisesRegex(sao.StudyError, 'no "doe" section'):
                session.doe()
            self.assertEqual(session.step()["event"], "cycle")
        finally:
            session.close()


if __name__ == "__main__":
    unittest.main()
