// What the service answers when a request cannot be served: an HTTP status and a JSON body
// with a "message" (and, for a study or a setting that does not validate, "errors": every
// problem the loader found, each {"path", "message"} as the loader words it).
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace sao::service {

class ApiError : public std::runtime_error {
 public:
  ApiError(int status, const std::string& message, nlohmann::json errors = nullptr)
      : std::runtime_error(message), status_(status), errors_(std::move(errors)) {}
  int status() const { return status_; }
  // {"message": ..., "errors": [...]} (errors only when there are any).
  nlohmann::json body() const;

 private:
  int status_;
  nlohmann::json errors_;
};

// The loader's problems ("path: what") as [{"path": path, "message": what}]; a problem
// without a path keeps its whole text as the message and "" as the path.
nlohmann::json problems_json(const std::vector<std::string>& problems);

// The exception being handled (call inside a catch block) as a status and a body:
// ApiError as it is, StudyError 400 with its problems, StoreBusyError (the store held by
// another process) 409 with "reason": "store_busy", any other StoreIoError (disk full, I/O,
// read-only) 500 with "reason": "store_io", StoreError 409, anything else 500.
std::pair<int, nlohmann::json> current_error();

// The request body as JSON: 400 (ApiError) when it is not JSON or not an object.
nlohmann::json parse_body(const std::string& body);

}  // namespace sao::service
