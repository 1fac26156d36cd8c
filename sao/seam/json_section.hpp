// Checking a JSON section handed to a simulator factory (the study's "simulator" section and
// what it holds): every problem is a std::invalid_argument "path: what", the form the study
// loader reports with the file name. Shared by the internal simulator, its multibody models
// and the external-code adapters.
#pragma once

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace sao::section {

[[noreturn]] inline void bad(const std::string& path, const std::string& what) {
  throw std::invalid_argument(path + ": " + what);
}

// "a, b, c"
inline std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out;
}

// A key of `object` outside `known` is an error naming path.key and the known keys.
inline void reject_unknown_keys(const nlohmann::json& object, const std::vector<std::string>& known,
                                const std::string& path) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      bad(path + "." + key, "unknown key (known: " + joined(known) + ")");
    }
  }
}

}  // namespace sao::section
