// The store's record forms, shared by store.cpp and the fuzz target of the record decoding:
// the checksum of a row, and the reading of a stored cycle row (either form).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "sao/optimizer/driver.hpp"

namespace sao {

// SHA-256 (OpenSSL) of the fields, each preceded by its length: 64 hex digits.
std::string record_checksum(const std::vector<std::string_view>& fields);

// A stored cycle row's record text: {"variables": [...], "record": {...}} (version 2 on) or the
// version-1 form. Throws (StoreError, nlohmann::json exceptions, std::invalid_argument) when
// it is not one.
CycleRecord decode_cycle_record(const std::string& text);

}  // namespace sao
