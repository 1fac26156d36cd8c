// What the service accepts of an uploaded study. A study file is code when its simulator is
// "external" (it names a command to run): such a study is refused unless the service was
// started with --allow-external, and even then its files stay inside the study's own folder
// of the data directory: its templates and support files are read from there (the adapter
// refuses any other place unless "allow_outside_input_files", which the service refuses), and
// its run directory is made a folder of it.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

namespace sao::service {

// The document as the service stores it (the run directory of an external simulator made
// absolute, inside `dir`); throws ApiError 403 naming the entry that is not allowed.
nlohmann::json admit_study(nlohmann::json document, const std::filesystem::path& dir,
                           bool allow_external);

}  // namespace sao::service
