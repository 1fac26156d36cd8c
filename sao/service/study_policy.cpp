#include "sao/service/study_policy.hpp"

#include "sao/service/api_error.hpp"

namespace sao::service {
namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& message) {
  throw ApiError(403, path + ": " + message, problems_json({path + ": " + message}));
}

// A relative path that does not climb out of its folder.
bool stays_inside(const std::string& text) {
  const std::filesystem::path p(text);
  if (text.empty() || p.is_absolute() || p.has_root_name()) return false;
  for (const auto& part : p.lexically_normal()) {
    if (part == "..") return false;
  }
  return true;
}

}  // namespace

nlohmann::json admit_study(nlohmann::json document, const std::filesystem::path& dir,
                           bool allow_external) {
  if (!document.is_object() || !document.contains("simulator")) return document;
  nlohmann::json& simulator = document["simulator"];
  if (!simulator.is_object() || simulator.value("type", nlohmann::json()) != "external") {
    return document;
  }
  if (!allow_external) {
    refuse("simulator.type",
           "an \"external\" simulator runs a command of the study's choosing; this service "
           "was started without --allow-external and refuses such studies");
  }
  for (const char* key : {"allow_outside_input_files", "allow_outside_run_directory"}) {
    if (simulator.contains(key) && simulator[key] != false) {
      refuse(std::string("simulator.") + key,
             "not allowed in the service: a study's files stay inside its folder of the data "
             "directory");
    }
  }
  std::string runs = "sao-runs";
  if (simulator.contains("run_directory")) {
    const nlohmann::json& given = simulator["run_directory"];
    if (!given.is_string() || !stays_inside(given.get<std::string>())) {
      refuse("simulator.run_directory",
             "expected a relative folder without \"..\" (it is made a folder of the study's "
             "own folder in the service's data directory)");
    }
    runs = given.get<std::string>();
  }
  simulator["run_directory"] = (std::filesystem::absolute(dir) / runs).lexically_normal().string();
  return document;
}

}  // namespace sao::service
