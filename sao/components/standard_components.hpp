// The simulators and batch executors every front end offers, registered by one function: the
// command line (and `sao serve`, which runs in it) and the Python module call it, so they
// cannot drift apart. The type "python" runs where the front end has an interpreter: the Python
// module's own process, the `sao` program's embedded one (sao/python/embedded_python.hpp);
// each gives its factory here.
#pragma once

#include "sao/seam/simulator.hpp"

namespace sao {

// Registers the simulator types "internal", "external", "plugin" and "python" and the batch
// executor "slurm" (sao/seam/simulator.hpp, sao/seam/executor.hpp). "python" is made by
// `python`; without one (a build without Python, SAO_PYTHON=OFF), a study naming it is refused
// with a problem of simulator.type saying so. Idempotent.
void register_standard_components(SimulatorFactory python = nullptr);

}  // namespace sao
