// The simulator type "python" in the `sao` program (docs/python.md, "From the command line and
// the service"): the implementation the Python module uses (python_simulator.hpp), in an
// interpreter embedded in the process (the libpython3 sao was built against, through
// pybind11's embed). The interpreter starts when the first python simulator is made (a run of
// another type never starts Python), then releases the GIL, so that the optimizer's workers and
// the service's threads each take it around a call; it is never finalized nor restarted.
//
// Its modules: `import sao` gives the declarations sao.simulator and sao.Simulator (not the
// package's core, which the program is); the study's folder is at the front of sys.path while
// its module is imported, then PYTHONPATH, the standard library and Debian's dist-packages;
// with VIRTUAL_ENV set, that environment's site-packages when its Python has the embedded one's
// minor version. {"object": NAME} is refused: registered simulators exist in the Python package
// only.
#pragma once

#include <memory>

#include "sao/seam/simulator.hpp"

namespace sao::python {

// The factory of "python" for register_standard_components (sao/components).
std::unique_ptr<Simulator> embedded_python_simulator(const SimulatorSetup& setup);

}  // namespace sao::python
