// The simulator of type "python": a Python callable evaluating a batch of designs of one load
// case. One implementation for both of its hosts (docs/python.md): the Python module sao._sao,
// in a python3 process, and the `sao` program, in its embedded interpreter
// (embedded_python.hpp). What differs between them is a PythonHost.
//   {"type": "python", "module": "absorber", "function": "simulate",
//    "gradients": {"method": "forward" | "central" | "provided", "step": 1e-6}, "workers": 0}
// or {"type": "python", "object": NAME} for an object given to sao.register_simulator(NAME, obj)
// (a sao.Simulator subclass' instance, say; inside the Python package only). The module is
// imported with the study's folder at the front of sys.path (a module of that name imported
// earlier from elsewhere is imported afresh from the study's folder when it holds the module).
// The callable (or the object's evaluate method) is called as
//   f(designs, load_case) -> {"y": array (runs, points), "max_y": array (runs,), ...}
// designs an array (runs, design variables), load_case a dict (name, index, times, parameters,
// design_names, gradients: whether gradients are asked for). It declares what it delivers in
// attributes: `responses` ({"y": "history", "max_y": "scalar"}), `provides_gradients` (then the
// result holds "gradients": {name: array (runs, rows, design variables)} when asked),
// `thread_safe` (then calls may run concurrently), set by the decorator sao.simulator or as
// class attributes of sao.Simulator. A result may hold "errors": a message (or None) per run. A
// Python exception fails every run of the call: its message's first line names the exception
// and where it was raised (file, line, function), the lines after it are the traceback as
// Python prints it. The GIL is taken only for the call.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string>

#include "sao/seam/simulator.hpp"

namespace sao::python {

class PythonHost {
 public:
  virtual ~PythonHost() = default;
  // Makes the interpreter ready for calls from any thread, with the GIL free: nothing to do in
  // the module; the embedded interpreter starts at the first call. Called without the GIL.
  // Throws std::invalid_argument ("simulator.type: ...") when there is no interpreter to use.
  virtual void start() const = 0;
  // The simulator registered as `name` ({"object": NAME}), under the GIL; none, with the reason
  // in `why_not`, when there is no such simulator.
  virtual pybind11::object registered(const std::string& name, std::string& why_not) const = 0;
};

// The simulator of the study's {"type": "python", ...} section, in `host` (which must outlive
// it). Throws SectionError naming every problem of the section.
std::unique_ptr<Simulator> make_python_simulator(const SimulatorSetup& setup,
                                                 const PythonHost& host);

// The failure of Python code as a simulator's message: the exception's type and text with
// where it was raised, "ValueError: k < 0 (absorber.py, line 12, in stiffness)", then, on the
// following lines, the traceback as Python prints it. Under the GIL, with the error fetched.
std::string python_failure(pybind11::error_already_set& e);

}  // namespace sao::python
