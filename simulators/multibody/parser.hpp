// Reading the "multibody" object of a study's simulator section into a MultibodyModel
// (model.hpp): every problem of the object is collected, each with its JSON path
// ("simulator.multibody.joints[1].bodies: unknown body \"rod\""), and thrown at once.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "simulators/multibody/model.hpp"

namespace sao::sim::multibody {

// The model of the "multibody" object at `path`; throws a SectionError with every problem.
MultibodyModel parse_multibody(const nlohmann::json& section, const std::string& path);

}  // namespace sao::sim::multibody
