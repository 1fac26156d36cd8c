// What the service accepts of an uploaded study. A study file is code when its simulator is
// "external" (it names a command to run), "plugin" (a library) or "python" (Python code): such
// a study is refused unless the service was started with --allow-external. A Python study's
// modules come with it as files of its folder. An external study is held tighter: even then its
// files stay inside the study's own folder of the data directory: its templates and support files
// are read from there (the adapter refuses any other place unless "allow_outside_input_files",
// which the service refuses), and its run directory is made a folder of it.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace sao::service {

// The document as the service stores it (the run directory of an external simulator made
// absolute, inside `dir`); throws ApiError 403 naming the entry that is not allowed.
nlohmann::json admit_study(nlohmann::json document, const std::filesystem::path& dir,
                           bool allow_external);

// A study whose simulator reads files of its folder: an external code's templates and support
// files, a Python simulator's modules.
bool reads_study_files(const nlohmann::json& document);

// The files uploaded with an external or a Python study (POST /api/studies with a top-level "files"
// object, docs/service.md), taken out of `document`: {"NAME": "text"} or {"NAME": {"base64":
// "..."}}, decoded. Empty when the document has none. Throws ApiError: 400 for a name that is
// not a plain relative path (letters, digits, "._-+", "/" between parts; no "." or ".." part,
// at most 255 characters), a name that is both a file and a folder of another, a value of
// another form or bad base64, files with a study whose simulator is neither external nor
// python (nothing reads them); more than 256 files. The caller also checks them against the study's
// folder (check_files_against).
std::map<std::string, std::string> take_study_files(nlohmann::json& document);

// Refuses (ApiError 400, naming the file) an uploaded file that would be, or be inside, one of
// the service's own files in the study folder `dir`: the store (study.sqlite and its -wal,
// -shm, -journal and .lock files), study.json, result.json, history.csv, report.html, or the
// run directory of `admitted` (admit_study's document).
void check_files_against(const std::map<std::string, std::string>& files,
                         const nlohmann::json& admitted, const std::filesystem::path& dir);

// Writes the files into `dir` (folders made). Throws StoreIoError when one cannot be written.
void write_study_files(const std::map<std::string, std::string>& files,
                       const std::filesystem::path& dir);

}  // namespace sao::service
