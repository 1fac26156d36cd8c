// The studies of the service: one folder per study under the data directory, named by an id
// the service makes (16 hexadecimal digits). A request names a study by its id only; an id
// that is not of that form is unknown before anything looks at the file system.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sao/service/study_host.hpp"

namespace sao::service {

class StudyRegistry {
 public:
  // Takes the studies already in `data` (created when missing).
  StudyRegistry(std::filesystem::path data, bool allow_external);
  ~StudyRegistry();

  // A new study from an uploaded document: admitted (study_policy.hpp), validated and stored.
  // Throws ApiError 403 / StudyError 400; nothing is left behind then.
  std::shared_ptr<StudyHost> create(const nlohmann::json& document);
  // A new study made by the service from a document of `origin` (a front point's start study):
  // as create(), the same policy and validation, so that a study the service would refuse now
  // (a plug-in, Python or external simulator without --allow-external) is refused (403) however
  // it came to be hosted. A simulator that reads files of its study's folder (external, Python)
  // is refused with 409 when allowed: the new folder would lack the files uploaded with the
  // origin.
  std::shared_ptr<StudyHost> create_from(const StudyHost& origin, nlohmann::json document);
  // nullptr for an unknown id.
  std::shared_ptr<StudyHost> find(const std::string& id) const;
  std::vector<std::shared_ptr<StudyHost>> all() const;
  // An uploaded document for a restart of `host` (same policy as create).
  nlohmann::json admit(const nlohmann::json& document, const StudyHost& host) const;
  // The name messages and relative paths of a study's documents use.
  static std::string source_of(const StudyHost& host);
  // Stops every run, closes every event stream.
  void shutdown();

  static bool valid_id(const std::string& id);

 private:
  std::string new_id() const;

  std::filesystem::path data_;
  bool allow_external_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<StudyHost>> studies_;
};

}  // namespace sao::service
