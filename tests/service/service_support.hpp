// What the service tests share: the `sao serve` process (server_process.hpp, also the load
// bench's) and the requests they make, through cpp-httplib's client.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/service/server_process.hpp"
#include "tests/support.hpp"

namespace sao::testing {

// The body of a response as JSON (null when it is not JSON).
inline nlohmann::json json_of(const httplib::Result& r) {
  if (!r) return nullptr;
  return nlohmann::json::parse(r->body, nullptr, false);
}

inline std::string problem_file(const std::string& relative) {
  return std::string(SAO_SOURCE_DIR) + "/problems/" + relative;
}

}  // namespace sao::testing
