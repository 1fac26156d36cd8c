"""sao: sequential approximate optimization of expensive simulations (docs/python.md).

The functions are those of the command line, on the same study files, stores and result
documents:

    sao.check(study)                      validate (raises sao.StudyError with .problems)
    sao.evaluate(study, design=None, gradients=False)   one analysis: NumPy histories, gradients
    sao.Evaluator(study).evaluate(designs)   the study's simulator opened once; a batch of designs
    sao.run(study, out=None)              run to the end; the result document (result.json's)
    s = sao.Session(DIR, study=None)      a stored run: s.step(), s.set([...]), s.restart(K),
                                          s.history(), s.arrays(), s.result(), s.analysis(),
                                          s.history_frame(), s.analyses() (pandas DataFrames)

`study` is a file name or a dict. A Python callable becomes a simulator with the decorator
`simulator` (or a subclass of `Simulator`), named in the study's "simulator" section as
{"type": "python", "module": ..., "function": ...} or registered with `register_simulator`.
"""

from ._sao import Evaluator, Session, StoreError, StudyError, check, evaluate, run, _simulators
from ._simulator import Simulator, simulator

__all__ = [
    "Evaluator", "Session", "Simulator", "StoreError", "StudyError", "check", "evaluate", "register_simulator",
    "run", "simulator",
]


def register_simulator(name, target):
    """Makes `target` (a Simulator or a decorated function) the simulator of studies whose
    section is {"type": "python", "object": name}, in this process."""
    if not hasattr(target, "responses"):
        raise TypeError("register_simulator: %r declares no responses (sao.simulator, "
                        "sao.Simulator)" % (target,))
    _simulators[name] = target
    return target
