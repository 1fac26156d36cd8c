// Where an external simulator's run directories go by default (docs/adapters.md): "sao-runs"
// inside the run's output folder (`sao run`'s DIR, a service study's folder), so that nothing
// is written outside the output folder unless the study asks ("run_directory"). One default,
// one function, for the command line and the service.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace sao {

inline constexpr const char* kRunDirectory = "sao-runs";

// The absolute folder `relative` (default: sao-runs) inside `folder`.
inline std::string run_directory_in(const std::filesystem::path& folder,
                                    const std::string& relative = kRunDirectory) {
  return (std::filesystem::absolute(folder) / relative).lexically_normal().string();
}

// An external code's run directories, unless the study says where ("run_directory"):
// DIR/sao-runs inside the output folder DIR the user chose (which may lie outside the study's
// and the current folder), written into the study document's simulator section (sao run,
// sao simulate, sweep members).
inline void place_run_directory(nlohmann::json& document, const std::string& dir) {
  if (!document.is_object() || !document.contains("simulator")) return;
  nlohmann::json& simulator = document["simulator"];
  if (!simulator.is_object() || simulator.value("type", "") != "external" ||
      simulator.contains("run_directory")) {
    return;
  }
  simulator["run_directory"] = run_directory_in(dir);
  simulator["allow_outside_run_directory"] = true;  // the output folder: the user's choice
}

}  // namespace sao
