"""Per-evaluation overhead of the four ways a simulator plugs in, side by side in one run
(docs/python.md, "Overhead per evaluation"): the same trivial model, f = x^2 + y^2 and g = x y,
as the internal simulator's "functions" model, a C plug-in (tests/plugin/test_plugin.c built
with SAO_TEST_QUADRATIC), a Python function and an external program (the tests' fake code,
through files). Each is timed two ways, interleaved so that all see the same load:
  single   one design per batch (the simulator called N times): the cost of one call
  batched  N designs in one batch (one call): the cost per evaluation when the optimizer batches
Prints microseconds per evaluation (median of R repetitions) and the ratio to the internal
simulator.
    PYTHONPATH=build/python python3 bench/python/evaluation_overhead.py build [N] [R]
"""
import os
import statistics
import sys
import tempfile
import time

import numpy as np

import sao


@sao.simulator(responses={"f": "scalar", "g": "scalar"})
def quadratic(designs, load_case):
    x, y = designs[:, 0], designs[:, 1]
    return {"f": x * x + y * y, "g": x * y}


def study(simulator):
    return {
        "name": "overhead",
        "design_variables": [{"name": "x", "lower": -10, "upper": 10, "initial": 1.0},
                             {"name": "y", "lower": -10, "upper": 10, "initial": 2.0}],
        "load_cases": [{"name": "only"}],
        "responses": [{"name": "f", "kind": "scalar"}, {"name": "g", "kind": "scalar"}],
        "objective": {"minimize": "f"},
        "constraints": [{"name": "g", "of": "g", "upper": 10}],
        "simulator": simulator,
    }


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    repetitions = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    folder = tempfile.mkdtemp(prefix="sao-overhead-")
    os.chdir(folder)  # an in-memory study's relative paths (the template) resolve here
    with open("input.tpl", "w") as f:
        f.write("x {{x:.10g}}\ny {{y:.10g}}\n")
    sao.register_simulator("quadratic", quadratic)
    paths = {
        "internal": {"type": "internal", "model": "functions",
                     "functions": {"f": "x^2 + y^2", "g": "x*y"}, "workers": 1},
        "plug-in": {"type": "plugin", "workers": 1,
                    "library": os.path.join(build, "plugins", "bench", "libsao_quadratic_plugin.so")},
        "Python": {"type": "python", "object": "quadratic", "workers": 1},
        "external": {"type": "external", "command": [os.path.join(build, "bench", "bench_fake_code"), "ok"],
                     "workers": 1, "run_directory": os.path.join(folder, "runs"),
                     "templates": [{"file": "input.tpl", "target": "input.txt"}],
                     "responses": [{"name": "f", "kind": "scalar", "file": "result.txt",
                                    "parser": "regex", "pattern": "f = (\\S+)"},
                                   {"name": "g", "kind": "scalar", "file": "result.txt",
                                    "parser": "regex", "pattern": "g = (\\S+)"}]},
    }
    evaluators = {name: sao.Evaluator(study(section)) for name, section in paths.items()}
    rng = np.random.default_rng(1)
    designs = rng.uniform(-2, 2, size=(n, 2))
    times = {(name, way): [] for name in paths for way in ("single", "batched")}
    for name, e in evaluators.items():  # warm up: libraries, imports, page cache
        e.evaluate(designs[:2])
    for _ in range(repetitions):
        for name, e in evaluators.items():
            count = n if name != "external" else max(1, n // 10)  # a process per evaluation
            start = time.perf_counter()
            for row in designs[:count]:
                assert e.evaluate(row)[0]["ok"]
            times[(name, "single")].append((time.perf_counter() - start) / count)
            start = time.perf_counter()
            out = e.evaluate(designs[:count])
            assert all(a["ok"] for a in out)
            times[(name, "batched")].append((time.perf_counter() - start) / count)
    median = {key: statistics.median(value) * 1e6 for key, value in times.items()}
    print("%d evaluations per batch (external: %d), median of %d repetitions, microseconds per "
          "evaluation (ratio to internal)" % (n, max(1, n // 10), repetitions))
    print("| path | single (one design per call) | batched (one call) |")
    print("|---|---|---|")
    for name in paths:
        print("| %s | %.1f (%.2f) | %.1f (%.2f) |" % (
            name, median[(name, "single")], median[(name, "single")] / median[("internal", "single")],
            median[(name, "batched")], median[(name, "batched")] / median[("internal", "batched")]))


if __name__ == "__main__":
    main()
