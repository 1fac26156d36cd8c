// Where an external simulator's run directories go by default (docs/adapters.md): "sao-runs"
// inside the run's output folder (`sao run`'s DIR, a service study's folder), so that nothing
// is written outside the output folder unless the study asks ("run_directory"). One default,
// one function, for the command line and the service.
#pragma once

#include <unistd.h>

#include <chrono>
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

// An external code's run directories, unless the study says where ("run_directory"): the
// folder `runs` (absolute), written into the study document's simulator section with the
// opt-in for a folder outside the study's (the user's choice). Returns whether it was placed
// (an external simulator without its own "run_directory").
inline bool place_run_directory_at(nlohmann::json& document, const std::string& runs) {
  if (!document.is_object() || !document.contains("simulator")) return false;
  nlohmann::json& simulator = document["simulator"];
  if (!simulator.is_object() || simulator.value("type", "") != "external" ||
      simulator.contains("run_directory")) {
    return false;
  }
  simulator["run_directory"] = runs;
  simulator["allow_outside_run_directory"] = true;
  return true;
}

// DIR/sao-runs inside the output folder DIR the user chose (which may lie outside the study's
// and the current folder): sao run, sao simulate, sweep members, evaluate/check-gradient --out.
inline void place_run_directory(nlohmann::json& document, const std::string& dir) {
  place_run_directory_at(document, run_directory_in(dir));
}

// The commands without an output folder (evaluate, check-gradient, a sweep's reference design
// without --out) and without --out: a fresh folder under the system's temporary folder
// ($TMPDIR), "sao-<command>-<pid>-<time>". The external simulator creates it on its first run
// and removes it at its end when it is empty, so nothing is left unless a run is kept (a
// failed one, or "keep": "all"), and its message names the folder.
inline void place_scratch_run_directory(nlohmann::json& document, const std::string& command) {
  std::error_code ec;
  std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  if (ec) tmp = "/tmp";
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  const std::string name =
      "sao-" + command + "-" + std::to_string(::getpid()) + "-" +
      std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(now).count());
  place_run_directory_at(document, (tmp / name).string());
}

}  // namespace sao
