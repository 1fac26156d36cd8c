// The simulator section and setup of the impact absorber that the simulator tests share.
#pragma once

#include "sao/seam/simulator.hpp"

namespace sao::sim::testing {

// One load case "impact" on 0..12 s with 101 points; k and c mapped from b1 and b2.
inline SimulatorSetup impact_absorber_setup(
    const nlohmann::json& extra = nlohmann::json::object()) {
  SimulatorSetup s;
  s.section = {{"type", "internal"},
               {"model", "impact-absorber"},
               {"parameters", {{"k", "b1"}, {"c", "b2"}}}};
  s.section.update(extra);
  s.design_names = {"b1", "b2"};
  s.load_cases = {{"impact", {0.0, 12.0, 101}, {}}};
  return s;
}

}  // namespace sao::sim::testing
