#include "sao/seam/simulator.hpp"

#include <algorithm>
#include <stdexcept>

namespace sao {
namespace {

// Filled by the program at start-up (register_simulator), read by make_simulator.
std::map<std::string, SimulatorFactory>& registry() {
  static std::map<std::string, SimulatorFactory> factories;
  return factories;
}

std::string known_types() {
  std::string known;
  for (const auto& name : registered_simulators()) known += (known.empty() ? "" : ", ") + name;
  return known.empty() ? "none registered" : known;
}

}  // namespace

void register_simulator(const std::string& type, SimulatorFactory factory) {
  if (type.empty() || factory == nullptr) {
    throw std::invalid_argument("register_simulator: expected a type name and a factory");
  }
  registry()[type] = factory;
}

std::vector<std::string> registered_simulators() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : registry()) names.push_back(name);
  return names;
}

std::unique_ptr<Simulator> make_simulator(const SimulatorSetup& setup) {
  const nlohmann::json& section = setup.section;
  if (!section.is_object()) {
    throw std::invalid_argument("simulator: expected an object, got " + section.dump());
  }
  if (!section.contains("type")) {
    throw std::invalid_argument("simulator.type: missing; known types: " + known_types());
  }
  if (!section.at("type").is_string()) {
    throw std::invalid_argument("simulator.type: expected a string, got " +
                                section.at("type").dump() + "; known types: " + known_types());
  }
  const std::string type = section.at("type").get<std::string>();
  auto it = registry().find(type);
  if (it == registry().end()) {
    throw std::invalid_argument("simulator.type: unknown type \"" + type +
                                "\"; known types: " + known_types());
  }
  return it->second(setup);
}

std::string message_headline(const std::string& message) {
  return message.substr(0, message.find('\n'));
}

std::string message_details(const std::string& message) {
  const size_t end = message.find('\n');
  return end == std::string::npos ? std::string() : message.substr(end + 1);
}

void check_request(const EvaluationRequest& request, const std::string& who,
                   size_t design_variables, const std::vector<LoadCaseSpec>& load_cases,
                   const std::vector<ResponseInfo>& responses) {
  if (request.design.size() != static_cast<Eigen::Index>(design_variables)) {
    throw std::invalid_argument(who + "::evaluate: expected " + std::to_string(design_variables) +
                                " design variables, got " + std::to_string(request.design.size()));
  }
  for (const DerivativeRequest& d : request.derivatives) {
    const std::string what = who + "::evaluate: derivative of \"" + d.response +
                             "\" in load case " + std::to_string(d.load_case) + ": ";
    if (d.load_case < 0 || d.load_case >= static_cast<int>(load_cases.size())) {
      throw std::invalid_argument(what + "expected a load case in [0, " +
                                  std::to_string(load_cases.size()) + ")");
    }
    auto r = std::find_if(responses.begin(), responses.end(),
                          [&](const ResponseInfo& info) { return info.name == d.response; });
    if (r == responses.end()) throw std::invalid_argument(what + "unknown response");
    const int rows = r->history ? load_cases[static_cast<size_t>(d.load_case)].grid.points : 1;
    for (int p : d.time_indices) {
      if (p < 0 || p >= rows) {
        throw std::invalid_argument(what + "expected time indices in [0, " + std::to_string(rows) +
                                    "), got " + std::to_string(p));
      }
    }
  }
}

}  // namespace sao
