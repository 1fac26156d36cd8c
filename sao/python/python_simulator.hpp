// The simulator of type "python" (inside the Python package only: docs/python.md, "The sao
// command and Python"): a Python callable evaluating a batch of designs of one load case.
//   {"type": "python", "module": "absorber", "function": "simulate",
//    "gradients": {"method": "forward" | "central" | "provided", "step": 1e-6}, "workers": 0}
// or {"type": "python", "object": NAME} for an object given to sao.register_simulator(NAME, obj)
// (a sao.Simulator subclass' instance, say). The module is imported with the study's folder at
// the front of sys.path. The callable (or the object's evaluate method) is called as
//   f(designs, load_case) -> {"y": array (runs, points), "max_y": array (runs,), ...}
// designs an array (runs, design variables), load_case a dict (name, index, times, parameters,
// design_names, gradients: whether gradients are asked for). It declares what it delivers in
// attributes: `responses` ({"y": "history", "max_y": "scalar"}), `provides_gradients` (then the
// result holds "gradients": {name: array (runs, rows, design variables)} when asked),
// `thread_safe` (then calls may run concurrently), set by the decorator sao.simulator or as
// class attributes of sao.Simulator. A result may hold "errors": a message (or None) per run. A
// Python exception fails every run of the call, with the traceback as the message. The GIL is
// taken only for the call.
#pragma once

namespace sao::python {

// Registers the factory of type "python" with sao::register_simulator (idempotent).
void register_python_simulator();

}  // namespace sao::python
