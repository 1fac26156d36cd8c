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

__all__ = [
    "Evaluator", "Session", "Simulator", "StoreError", "StudyError", "check", "evaluate", "register_simulator",
    "run", "simulator",
]


def simulator(responses, thread_safe=False, provides_gradients=False):
    """Declares a function f(designs, load_case) -> {response: array} a simulator.

    responses: {"name": "history" | "scalar"}; thread_safe: calls may run concurrently (set it
    only when the function is safe to call from several threads); provides_gradients: the
    result holds "gradients" {name: array (runs, rows, design variables)} when
    load_case["gradients"] is true (the study then says "gradients": {"method": "provided"}).
    """
    def declare(function):
        function.responses = dict(responses)
        function.thread_safe = bool(thread_safe)
        function.provides_gradients = bool(provides_gradients)
        return function
    return declare


class Simulator:
    """Base of a simulator object: set `responses` (and `thread_safe`, `provides_gradients`) and
    define evaluate(self, designs, load_case) -> {response: array}; then
    sao.register_simulator(NAME, instance) and {"type": "python", "object": NAME}."""

    responses = {}
    thread_safe = False
    provides_gradients = False

    def evaluate(self, designs, load_case):
        raise NotImplementedError(type(self).__name__ + ".evaluate")


def register_simulator(name, target):
    """Makes `target` (a Simulator or a decorated function) the simulator of studies whose
    section is {"type": "python", "object": name}, in this process."""
    if not hasattr(target, "responses"):
        raise TypeError("register_simulator: %r declares no responses (sao.simulator, "
                        "sao.Simulator)" % (target,))
    _simulators[name] = target
    return target
