"""A Python simulator that raises inside a nested function for a stiffness below 0.9
(tests/e2e/python_cli_test.cpp): the user must see the whole traceback, the file, the line and
the function of the raise."""
import numpy as np

import sao


def stiffness(designs):
    k = designs[:, :1]
    if np.any(k < 0.9):
        raise ValueError("stiffness below 0.9")
    return k


@sao.simulator(responses={"y": "history", "ydot": "history", "yddot": "history"})
def simulate(designs, load_case):
    t = np.asarray(load_case["times"])[None, :]
    k = stiffness(designs)
    return {"y": 0.1 * k * np.sin(t), "ydot": 0.1 * k * np.cos(t),
            "yddot": -0.1 * k * np.sin(t) + 0 * designs[:, 1:2]}
