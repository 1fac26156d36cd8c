"""Results as pandas DataFrames (docs/python.md): Session.history_frame() holds what
history.csv holds and Session.analyses() what `sao export` writes, from the same tables, with
the study's units in DataFrame.attrs["units"]; and Session's messages name Session's methods,
not the command line's."""
import io
import math
import os
import subprocess
import unittest

import numpy as np
import pandas as pd

import sao
from support import SAO, problem, scratch

STUDY = problem("impact-absorber/max-acceleration.json")


def assert_frames_match(test, frame, expected):
    """`frame` against a CSV read back: the same columns in order, equal numbers to the
    CSV's digits, the same texts."""
    test.assertEqual(list(frame.columns), list(expected.columns))
    test.assertEqual(len(frame), len(expected))
    for name in expected.columns:
        ours, theirs = frame[name], expected[name]
        if theirs.dtype == object or ours.dtype == object:
            test.assertEqual([("" if isinstance(v, float) and math.isnan(v) else str(v))
                              for v in theirs],
                             [str(v) for v in ours], name)
        else:
            np.testing.assert_allclose(ours.to_numpy(float), theirs.to_numpy(float), rtol=5e-6,
                                       equal_nan=True, err_msg=name)


class Frames(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = scratch("frames")
        cls.session = sao.Session(cls.folder, study=STUDY)
        cls.result = cls.session.run()

    def test_history_frame_is_history_csv(self):
        frame = self.session.history_frame()
        self.assertIsInstance(frame, pd.DataFrame)
        self.assertEqual(self.result["status"], "converged")
        self.assertEqual(len(frame), self.result["cycles"])
        expected = pd.read_csv(os.path.join(self.folder, "history.csv"), keep_default_na=False,
                               na_values=[""])
        assert_frames_match(self, frame, expected)
        # Typed columns: counts as integers, figures as floats; designs in study order.
        self.assertEqual(frame["cycle"].dtype, np.int64)
        self.assertEqual(frame["b1"].dtype, np.float64)
        self.assertEqual(list(frame.columns[7:10]), ["b1", "b2", "b3"])
        np.testing.assert_array_equal(frame["F"], self.session.arrays()["F"])
        self.assertEqual(frame.attrs["units"]["b1"], "N/m")
        self.assertEqual(frame.attrs["units"]["b2"], "N s/m")
        self.assertEqual(frame.attrs["units"]["F"], "m/s^2")
        self.assertNotIn("ratio", frame.attrs["units"])

    def test_analyses_is_sao_export(self):
        frame = self.session.analyses()
        self.session.close()
        try:
            out = os.path.join(self.folder, "analyses.csv")
            done = subprocess.run([SAO, "export", self.folder, "--out", out],
                                  capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
        finally:
            type(self).session = sao.Session(self.folder)
        with open(out) as f:
            header, units, rows = f.readline(), f.readline(), f.read()
        expected = pd.read_csv(io.StringIO(header + rows), keep_default_na=False, na_values=[""])
        assert_frames_match(self, frame, expected)
        self.assertGreaterEqual(len(frame), self.result["analyses"])
        self.assertEqual(list(frame.columns[:4]), ["analysis", "branch", "b1", "b2"])
        self.assertEqual(set(frame["status"]), {"ok"})
        declared = dict(zip(header.strip().split(","), units.strip().split(",")))
        self.assertEqual(frame.attrs["units"],
                         {k: v for k, v in declared.items() if v and k != "analysis"})
        self.assertEqual(frame.attrs["units"]["impact.yddot.max"], "m/s^2")


class MessagesNameSessionMethods(unittest.TestCase):
    def test_set_undo_restart_advise_session_methods(self):
        folder = scratch("frames-messages")
        session = sao.Session(folder, study=STUDY)
        step = session.step()  # with the units of `sao step --json`
        self.assertEqual(step["units"], {"design": {"b1": "N/m", "b2": "N s/m"},
                                         "objective": "m/s^2"})
        session.run()
        calls = [lambda: session.set(["move_limit=0.5"]), session.undo_set,
                 lambda: session.restart(from_cycle=99),
                 lambda: session.restart(from_cycle=1, from_reported=True)]
        for call in calls:
            with self.assertRaises(sao.StudyError) as caught:
                call()
            text = str(caught.exception)
            self.assertRegex(text, r"^Session\.(set|undo_set|restart):")
            self.assertNotIn("sao restart", text)
            self.assertNotIn("sao set", text)
            self.assertNotIn("--from", text)
        with self.assertRaises(sao.StudyError) as caught:
            session.set(["move_limit=0.5"])
        self.assertIn("`Session.restart(from_cycle=5)`, then `Session.set([...])`",
                      str(caught.exception))
        # The store of an open Session is busy for this same process, said so.
        with self.assertRaises(sao.StoreError) as caught:
            sao.run(problem("impact-absorber/comfort.json"), out=folder)
        self.assertIn("in use by this process", str(caught.exception))
        session.close()
        with self.assertRaises(sao.StoreError) as caught:
            sao.run(problem("impact-absorber/comfort.json"), out=folder)
        self.assertIn('sao.Session("%s").restart(from_cycle=5, study=' % folder,
                      str(caught.exception))
        self.assertNotIn("--out", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
