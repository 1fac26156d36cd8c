// The simulators and batch executors every front end offers, registered by one function: the
// command line (and `sao serve`, which runs in it) and the Python module call it, so they
// cannot drift apart. The Python module adds its own "python" simulator on top.
#pragma once

namespace sao {

// Registers the simulator types "internal", "external" and "plugin" and the batch executor
// "slurm" (sao/seam/simulator.hpp, sao/seam/executor.hpp). Idempotent.
void register_standard_components();

}  // namespace sao
