#include "sao/simulator.hpp"

#include <stdexcept>

namespace sao {
namespace {

std::map<std::string, SimulatorFactory>& registry() {
  static std::map<std::string, SimulatorFactory> factories;
  return factories;
}

}  // namespace

std::vector<double> TimeGrid::times() const {
  std::vector<double> out(points);
  for (int p = 0; p < points; ++p) out[p] = at(p);
  return out;
}

void register_simulator(const std::string& type, SimulatorFactory factory) {
  registry()[type] = factory;
}

std::vector<std::string> registered_simulators() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : registry()) names.push_back(name);
  return names;
}

std::unique_ptr<Simulator> make_simulator(const SimulatorSetup& setup) {
  std::string known;
  for (const auto& name : registered_simulators()) known += (known.empty() ? "" : ", ") + name;
  if (!setup.section.is_object() || !setup.section.contains("type") ||
      !setup.section.at("type").is_string()) {
    throw std::invalid_argument(
        "simulator.type: missing (expected a string; known types: " + known + ")");
  }
  const std::string type = setup.section.at("type").get<std::string>();
  auto it = registry().find(type);
  if (it == registry().end()) {
    throw std::invalid_argument("simulator.type: unknown type \"" + type +
                                "\" (known types: " + known + ")");
  }
  return it->second(setup);
}

}  // namespace sao
