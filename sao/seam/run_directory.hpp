// Where an external simulator's run directories go by default (docs/adapters.md): "sao-runs"
// inside the run's output folder (`sao run`'s DIR, a service study's folder), so that nothing
// is written outside the output folder unless the study asks ("run_directory"). One default,
// one function, for the command line and the service.
#pragma once

#include <filesystem>
#include <string>

namespace sao {

inline constexpr const char* kRunDirectory = "sao-runs";

// The absolute folder `relative` (default: sao-runs) inside `folder`.
inline std::string run_directory_in(const std::filesystem::path& folder,
                                    const std::string& relative = kRunDirectory) {
  return (std::filesystem::absolute(folder) / relative).lexically_normal().string();
}

}  // namespace sao
