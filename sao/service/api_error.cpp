#include "sao/service/api_error.hpp"

#include <spdlog/spdlog.h>

#include "sao/seam/json_reader.hpp"
#include "sao/seam/json_text.hpp"
#include "sao/store/store.hpp"
#include "sao/study/study_loader.hpp"

namespace sao::service {

nlohmann::json ApiError::body() const {
  nlohmann::json out = {{"message", what()}};
  if (!errors_.is_null()) out["errors"] = errors_;
  return out;
}

nlohmann::json problems_json(const std::vector<std::string>& problems) {
  nlohmann::json out = nlohmann::json::array();
  for (const std::string& p : problems) {
    const auto colon = p.find(": ");
    if (colon == std::string::npos) {
      out.push_back({{"path", ""}, {"message", p}});
    } else {
      out.push_back({{"path", p.substr(0, colon)}, {"message", p.substr(colon + 2)}});
    }
  }
  return out;
}

std::pair<int, nlohmann::json> current_error() {
  try {
    throw;
  } catch (const ApiError& e) {
    return {e.status(), e.body()};
  } catch (const StudyError& e) {
    return {400,
            {{"message", std::to_string(e.problems().size()) + " problem(s)"},
             {"errors", problems_json(e.problems())}}};
  } catch (const StoreBusyError& e) {
    // Another process (`sao run`, `sao step` on the same folder) holds the store: a conflict
    // with the study's state that ends when that process ends, not an unavailable server.
    return {
        409,
        {{"message", std::string("the study's store is in use by another process: ") + e.what()},
         {"reason", "store_busy"}}};
  } catch (const StoreIoError& e) {
    // Disk full, read-only file, I/O error: the server cannot use its own data.
    spdlog::error("service: {}", e.what());
    return {500, {{"message", e.what()}, {"reason", "store_io"}}};
  } catch (const StoreError& e) {
    return {409, {{"message", e.what()}}};
  } catch (const std::exception& e) {
    spdlog::error("service: {}", e.what());
    return {500, {{"message", std::string("internal error: ") + e.what()}}};
  } catch (...) {
    return {500, {{"message", "internal error"}}};
  }
}

nlohmann::json parse_body(const std::string& body) {
  nlohmann::json value;
  try {
    value = parse_json_text(body);
  } catch (const JsonTextError& e) {  // its line, column and path; a number beyond a double
    throw ApiError(400, std::string("the request body: ") + e.what());
  }
  // Before anything copies it (a copy recurses): a document nested a million deep is refused
  // here with the study file's limits (json_reader.hpp), not by a stack overflow.
  if (const std::string beyond = json_beyond(value, JsonLimits{}); !beyond.empty()) {
    throw ApiError(400, "the request body goes beyond the limits of a study file: " + beyond);
  }
  if (!value.is_object()) {
    throw ApiError(400,
                   "the request body must be a JSON object, got " + std::string(value.type_name()));
  }
  return value;
}

}  // namespace sao::service
