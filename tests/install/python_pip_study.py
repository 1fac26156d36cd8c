"""Run by python_pip_test.sh with a venv's interpreter, fed on stdin from a scratch folder outside
the repository (so neither the source tree nor this file's folder is on sys.path): the package
`pip install` put into the venv imports from there, with NumPy and pandas, and runs a study to
the impact absorber's known optimum (docs/python.md; tests/python/absorber_test.py compares the
Python and the internal simulator at the same tolerances).

Usage: python - VENV STUDY SOURCE_DIR < python_pip_study.py
"""
import os
import sys

# The optimum of problems/impact-absorber/max-acceleration.json and of its Python twin
# problems/python-absorber/max-acceleration.json (docs/python.md, "A worked example").
OBJECTIVE = 0.520286
DESIGN = {"b1": 0.362761, "b2": 0.482307}


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def inside(path, folder, resolve=os.path.realpath):
    """path lies in folder (resolve=os.path.abspath: a venv's bin/python, a symbolic link to its
    base interpreter, is taken as it is named)."""
    path, folder = resolve(path), resolve(folder)
    return path == folder or path.startswith(folder + os.sep)


def check_interpreter(venv, source):
    if os.path.realpath(sys.prefix) != os.path.realpath(venv):
        fail("sys.prefix is %s, not the venv %s" % (sys.prefix, venv))
    if not inside(sys.executable, os.path.join(venv, "bin"), os.path.abspath):
        fail("sys.executable %s is not the venv's (%s/bin)" % (sys.executable, venv))
    if inside(os.getcwd(), source):
        fail("run from %s, inside the source tree %s" % (os.getcwd(), source))
    for entry in sys.path:
        if entry and inside(entry, source):
            fail("sys.path holds %s, inside the source tree" % entry)


def main():
    venv, study, source = sys.argv[1:4]
    check_interpreter(venv, source)
    import numpy
    import pandas
    import sao
    if not inside(sao.__file__, venv):
        fail("sao was imported from %s, not from the venv %s" % (sao.__file__, venv))
    print("python     %s (%s, base %s)" % (sys.executable, sys.version.split()[0], sys.base_prefix))
    print("sao        " + sao.__file__)
    print("numpy      %s %s" % (numpy.__version__, numpy.__file__))
    print("pandas     %s %s" % (pandas.__version__, pandas.__file__))
    import tempfile
    folder = tempfile.mkdtemp(prefix="sao-pip-study-")
    session = sao.Session(folder, study=study)
    result = session.run()
    if result["status"] != "converged":
        fail("%s: status %s (%s)" % (study, result["status"], result["message"]))
    if abs(result["objective"] - OBJECTIVE) > 1e-4 * OBJECTIVE:
        fail("objective %r, expected %r" % (result["objective"], OBJECTIVE))
    for name, value in DESIGN.items():
        if abs(result["design"][name] - value) > 1e-3:
            fail("design %s = %r, expected %r" % (name, result["design"][name], value))
    # The results as DataFrames: the history (one row per cycle) and every stored analysis.
    history = session.history_frame()
    if not isinstance(history, pandas.DataFrame) or len(history) != result["cycles"]:
        fail("history_frame: %s of %s rows, expected a DataFrame of %d" % (
            type(history).__name__, len(history), result["cycles"]))
    if list(history.columns[7:9]) != ["b1", "b2"] or history.attrs["units"]["b1"] != "N/m":
        fail("history_frame: columns %s, units %s" % (list(history.columns[:9]),
                                                      history.attrs.get("units")))
    analyses = session.analyses()
    if not isinstance(analyses, pandas.DataFrame) or len(analyses) < result["analyses"]:
        fail("analyses: %s of %d rows, expected at least %d" % (
            type(analyses).__name__, len(analyses), result["analyses"]))
    session.close()
    print("frames     history %d x %d, analyses %d x %d" % (history.shape + analyses.shape))
    print("study      %s: %s, objective %.6f, b1 %.5f, b2 %.5f, %d cycles" % (
        os.path.relpath(study, source), result["status"], result["objective"],
        result["design"]["b1"], result["design"]["b2"], result["cycles"]))


main()
