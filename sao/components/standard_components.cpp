#include "sao/components/standard_components.hpp"

#include <stdexcept>

#include "adapters/external_simulator.hpp"
#include "adapters/plugin_simulator.hpp"
#include "adapters/slurm_executor.hpp"
#include "simulators/internal_simulator.hpp"

namespace sao {
namespace {

std::unique_ptr<Simulator> no_python(const SimulatorSetup& /*setup*/) {
  throw std::invalid_argument(
      "simulator.type: \"python\" needs a Python interpreter and this build of sao has none "
      "(configured with SAO_PYTHON=OFF, or without Debian's pybind11-dev and python3-dev); "
      "rebuild it with Python (docs/python.md)");
}

}  // namespace

void register_standard_components(SimulatorFactory python) {
  sim::register_internal_simulator();
  adapters::register_external_simulator();
  adapters::register_plugin_simulator();
  register_simulator("python", python != nullptr ? python : &no_python);
  adapters::register_slurm_executor();
}

}  // namespace sao
