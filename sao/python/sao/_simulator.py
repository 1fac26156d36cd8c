"""How a Python callable declares itself a simulator (docs/python.md): the decorator simulator and
the base class Simulator. Pure Python, shared by the package sao and the `sao` program's embedded
interpreter, whose module sao holds these two (sao/python/embedded_python.cpp): a simulator's
module imports sao in both.
"""


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
