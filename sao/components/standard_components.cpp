#include "sao/components/standard_components.hpp"

#include "adapters/external_simulator.hpp"
#include "adapters/plugin_simulator.hpp"
#include "adapters/slurm_executor.hpp"
#include "simulators/internal_simulator.hpp"

namespace sao {

void register_standard_components() {
  sim::register_internal_simulator();
  adapters::register_external_simulator();
  adapters::register_plugin_simulator();
  adapters::register_slurm_executor();
}

}  // namespace sao
