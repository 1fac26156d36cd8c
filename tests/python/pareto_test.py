"""Session.pareto() and Session.front_point_study() (docs/python.md, docs/pareto.md): the same
front as `sao pareto DIR` from the analyses the command stored (none analysed again), the front
as a DataFrame with its verified and agrees columns, the same start study as `sao pareto DIR
--start-study K`; bad settings raise and leave the session usable; a study of several objectives
has no run to step."""
import json
import os
import subprocess
import unittest

import sao
from support import SAO, problem, scratch

STUDY = problem("pareto/srn.json")
SETTINGS = ["--population", "40", "--generations", "60", "--verify", "5"]


def read(path):
    with open(path) as f:
        return json.load(f)


class Pareto(unittest.TestCase):
    def test_the_sessions_front_is_the_commands_and_reuses_its_analyses(self):
        folder = scratch("pareto-python")
        subprocess.run([SAO, "pareto", STUDY, "--out", folder, "-q"] + SETTINGS, check=True,
                       capture_output=True)
        theirs = read(os.path.join(folder, "pareto.json"))
        session = sao.Session(folder)
        try:
            mine = session.pareto(population=40, generations=60, verify=5)
            self.assertEqual(mine["analysed"], 0)
            self.assertEqual(mine["reused"], theirs["analysed"])
            self.assertEqual(mine["front"], theirs["front"])
            self.assertEqual(mine["balanced"], theirs["balanced"])
            self.assertEqual(mine["settings"], theirs["settings"])
            self.assertEqual(read(os.path.join(folder, "pareto.json"))["front"], mine["front"])

            frame = session.pareto(frame=True, population=40, generations=60, verify=5)
            self.assertEqual(len(frame), len(mine["front"]))
            self.assertEqual(list(frame.columns[:5]), ["point", "verified", "agrees", "x1", "x2"])
            verified = [p for p in mine["front"] if p["verified"]]
            self.assertEqual(int((frame["verified"] == "yes").sum()), len(verified))
            self.assertEqual(int((frame["agrees"] == "yes").sum()),
                             sum(1 for p in verified if p["agrees"]))
            row = frame[frame["verified"] == "yes"].iloc[0]
            first = verified[0]
            self.assertAlmostEqual(row["f1 computed"], first["computed"]["objectives"]["f1"],
                                   delta=1e-8 * abs(first["computed"]["objectives"]["f1"]))
            self.assertTrue(frame[frame["verified"] == "no"]["f1 computed"].isna().all())

            k = mine["balanced"]
            by_python = os.path.join(folder, "start-python.json")
            study = session.front_point_study(k, objective="f2", out=by_python)
            by_cli = os.path.join(folder, "start-cli.json")
            subprocess.run([SAO, "pareto", folder, "--start-study", str(k), by_cli,
                            "--objective", "f2"], check=True, capture_output=True)
            self.assertEqual(study, read(by_cli))
            self.assertEqual(read(by_python), read(by_cli))
            self.assertEqual(study["objective"]["name"], "f2")
        finally:
            session.close()

    def test_bad_settings_raise_and_the_session_stays_usable(self):
        session = sao.Session(scratch("pareto-bad"), study=STUDY)
        try:
            with self.assertRaisesRegex(ValueError, "population"):
                session.pareto(population=3)
            with self.assertRaisesRegex(ValueError, "unknown setting"):
                session.pareto(colour="red")
            with self.assertRaisesRegex(ValueError, "algorithm"):
                session.pareto(algorithm="spea2")
            with self.assertRaisesRegex(ValueError, "model: expected auto, values or criteria"):
                session.pareto(model="maxima")
            with self.assertRaisesRegex(ValueError, "refine: expected an integer 0..100"):
                session.pareto(refine=-1)
            with self.assertRaisesRegex(ValueError, "refine_objective: expected an objective"):
                session.pareto(refine_objective=2)
            with self.assertRaisesRegex(ValueError, "pareto.json"):
                session.front_point_study(1)  # no front yet
            with self.assertRaisesRegex(sao.StudyError, "objectives"):
                session.step()
            front = session.pareto(population=40, generations=40, verify=3, rounds=1,
                                   model="criteria")
            self.assertEqual(front["analysed"], front["doe"]["points"] + 3)
            self.assertEqual(front["settings"]["model"], "criteria")  # as `--model criteria`
            with self.assertRaisesRegex(ValueError, "points 1.."):
                session.front_point_study(len(front["front"]) + 1)
            with self.assertRaisesRegex(ValueError, "no such objective"):
                session.front_point_study(1, objective="f9")
        finally:
            session.close()


if __name__ == "__main__":
    unittest.main()
