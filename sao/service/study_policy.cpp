#include "sao/service/study_policy.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>

#include "sao/seam/run_directory.hpp"
#include "sao/service/api_error.hpp"
#include "sao/store/store.hpp"

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
  // A plug-in is a library of the study's choosing loaded into this process, a Python
  // simulator Python code of its choosing run in it: as trusted as a command (docs/python.md).
  const nlohmann::json type =
      simulator.is_object() ? simulator.value("type", nlohmann::json()) : nlohmann::json();
  if (type == "plugin" && !allow_external) {
    refuse("simulator.type",
           "a \"plugin\" simulator loads a library of the study's choosing into the service; "
           "this service was started without --allow-external and refuses such studies");
  }
  if (type == "python" && !allow_external) {
    refuse("simulator.type",
           "a \"python\" simulator runs Python code of the study's choosing in the service; "
           "this service was started without --allow-external and refuses such studies");
  }
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
  std::string runs = kRunDirectory;
  if (simulator.contains("run_directory")) {
    const nlohmann::json& given = simulator["run_directory"];
    if (!given.is_string() || !stays_inside(given.get<std::string>())) {
      refuse("simulator.run_directory",
             "expected a relative folder without \"..\" (it is made a folder of the study's "
             "own folder in the service's data directory)");
    }
    runs = given.get<std::string>();
  }
  simulator["run_directory"] = run_directory_in(dir, runs);
  return document;
}

}  // namespace sao::service

namespace sao::service {
namespace {

[[noreturn]] void bad_file(const std::string& name, const std::string& message) {
  const std::string path = "files." + name.substr(0, 300);
  throw ApiError(400, path + ": " + message, problems_json({path + ": " + message}));
}

bool plain_name(const std::string& name) {
  if (name.empty() || name.size() > 255 || name.front() == '/' || name.back() == '/') return false;
  size_t start = 0;
  for (;;) {
    const size_t end = std::min(name.find('/', start), name.size());
    const std::string part = name.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (end == name.size()) break;
    start = end + 1;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
           c == '+' || c == '/';
  });
}

// Strict base64 (RFC 4648, padded, no line breaks) with OpenSSL's decoder.
std::optional<std::string> from_base64(const std::string& text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out(text.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  size_t pad = 0;
  if (!text.empty() && text.back() == '=') ++pad;
  if (text.size() > 1 && text[text.size() - 2] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

}  // namespace

bool reads_study_files(const nlohmann::json& document) {
  if (!document.is_object() || !document.contains("simulator") ||
      !document["simulator"].is_object()) {
    return false;
  }
  const nlohmann::json type = document["simulator"].value("type", nlohmann::json());
  return type == "external" || type == "python";
}

std::map<std::string, std::string> take_study_files(nlohmann::json& document) {
  std::map<std::string, std::string> out;
  if (!document.is_object() || !document.contains("files")) return out;
  const nlohmann::json files = std::move(document["files"]);
  document.erase("files");
  if (!files.is_object()) {
    throw ApiError(400, "files: expected an object {\"NAME\": \"text\" or {\"base64\": ...}}",
                   problems_json({"files: expected an object"}));
  }
  if (!reads_study_files(document)) {
    const std::string why =
        "files: only a study with an \"external\" or a \"python\" simulator reads files";
    throw ApiError(400, why, problems_json({why}));
  }
  if (files.size() > 256) bad_file("", "more than 256 files");
  for (const auto& [name, value] : files.items()) {
    if (!plain_name(name)) {
      bad_file(name,
               "expected a relative name of letters, digits and \"._-+\", parts separated by "
               "\"/\", no \".\" or \"..\" part, at most 255 characters");
    }
    if (value.is_string()) {
      out[name] = value.get<std::string>();
    } else if (value.is_object() && value.size() == 1 && value.contains("base64") &&
               value["base64"].is_string()) {
      const std::optional<std::string> bytes = from_base64(value["base64"].get<std::string>());
      if (!bytes) bad_file(name, "\"base64\": not valid base64 (padded, without line breaks)");
      out[name] = *bytes;
    } else {
      bad_file(name, "expected the file's text, or {\"base64\": \"...\"}");
    }
  }
  // "a" and "a/b": one cannot be both a file and a folder.
  for (const auto& [name, text] : out) {
    const auto next = out.upper_bound(name + "/");
    if (next != out.end() && next->first.starts_with(name + "/")) {
      bad_file(next->first, "inside \"" + name + "\", which is a file too");
    }
  }
  return out;
}

void check_files_against(const std::map<std::string, std::string>& files,
                         const nlohmann::json& admitted, const std::filesystem::path& dir) {
  const std::filesystem::path base = std::filesystem::absolute(dir).lexically_normal();
  std::filesystem::path runs;
  if (admitted.contains("simulator") && admitted["simulator"].contains("run_directory")) {
    runs = std::filesystem::path(admitted["simulator"]["run_directory"].get<std::string>())
               .lexically_normal();
  }
  for (const auto& [name, text] : files) {
    const std::string first = name.substr(0, name.find('/'));
    const bool own = first.starts_with("study.sqlite") || first == "study.json" ||
                     first == "result.json" || first == "history.csv" || first == "report.html";
    const std::filesystem::path path = (base / name).lexically_normal();
    const std::string inside_runs = path.lexically_relative(runs).string();
    const bool in_runs = !runs.empty() && !inside_runs.empty() && !inside_runs.starts_with("..");
    if (own || in_runs) {
      bad_file(name, own ? "a file of the service's own in the study's folder (the store, "
                           "study.json, result.json, history.csv, report.html): choose another "
                           "name"
                         : "inside the study's run directory (simulator.run_directory), which "
                           "the analyses write: choose another name");
    }
  }
}

void write_study_files(const std::map<std::string, std::string>& files,
                       const std::filesystem::path& dir) {
  for (const auto& [name, bytes] : files) {
    const std::filesystem::path path = dir / name;
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (ec || !out) throw StoreIoError(path.string() + ": cannot write the uploaded file");
  }
}

}  // namespace sao::service
