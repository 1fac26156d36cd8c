#include "sao/service/study_registry.hpp"

#include <random>

#include "sao/service/api_error.hpp"
#include "sao/service/study_policy.hpp"
#include "sao/store/store.hpp"

namespace fs = std::filesystem;

namespace sao::service {

StudyRegistry::StudyRegistry(fs::path data, bool allow_external)
    : data_(fs::absolute(std::move(data)).lexically_normal()), allow_external_(allow_external) {
  std::error_code ec;
  fs::create_directories(data_, ec);
  if (ec || !fs::is_directory(data_)) {
    throw StoreIoError("cannot create the data folder " + data_.string() + ": " + ec.message());
  }
  for (const fs::directory_entry& entry : fs::directory_iterator(data_)) {
    const std::string id = entry.path().filename().string();
    if (entry.is_directory() && valid_id(id) && fs::exists(entry.path() / "study.sqlite")) {
      studies_[id] = std::make_shared<StudyHost>(id, entry.path());
    }
  }
}

StudyRegistry::~StudyRegistry() {
  shutdown();
}

bool StudyRegistry::valid_id(const std::string& id) {
  return id.size() == 16 && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string StudyRegistry::new_id() const {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  for (;;) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(random()));
    if (!studies_.count(text) && !fs::exists(data_ / text)) return text;
  }
}

std::string StudyRegistry::source_of(const StudyHost& host) {
  return (host.dir() / "study.json").string();
}

std::shared_ptr<StudyHost> StudyRegistry::create(const nlohmann::json& document) {
  std::string id;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    id = new_id();
    fs::create_directory(data_ / id);  // reserves the id
  }
  auto host = std::make_shared<StudyHost>(id, data_ / id);
  try {
    nlohmann::json study = document;
    const std::map<std::string, std::string> files = take_study_files(study);
    nlohmann::json admitted = admit(study, *host);
    check_files_against(files, admitted, host->dir());
    write_study_files(files, host->dir());  // before the loader reads the templates
    host->create(admitted, source_of(*host));
  } catch (...) {
    host.reset();
    std::error_code ec;
    fs::remove_all(data_ / id, ec);
    throw;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  studies_[id] = host;
  return host;
}

std::shared_ptr<StudyHost> StudyRegistry::create_from(const StudyHost& origin,
                                                      nlohmann::json document) {
  if (reads_study_files(document)) {
    // The policy judges the simulator; the origin's run directory (absolute, in its folder) is
    // not the new study's.
    document["simulator"].erase("run_directory");
    (void)admit(document, origin);  // 403 without --allow-external, as POST /api/studies
    throw ApiError(409, "the study's simulator (\"" +
                            document["simulator"].value("type", std::string()) +
                            "\") reads files uploaded with study " + origin.id() +
                            ", which a new study would lack: POST the study to /api/studies "
                            "with its \"files\" (sao pareto DIR --start-study K OUT.json writes "
                            "it)");
  }
  return create(document);
}

nlohmann::json StudyRegistry::admit(const nlohmann::json& document, const StudyHost& host) const {
  return admit_study(document, host.dir(), allow_external_);
}

std::shared_ptr<StudyHost> StudyRegistry::find(const std::string& id) const {
  if (!valid_id(id)) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = studies_.find(id);
  return it == studies_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<StudyHost>> StudyRegistry::all() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::shared_ptr<StudyHost>> out;
  for (const auto& [id, host] : studies_) out.push_back(host);
  return out;
}

void StudyRegistry::shutdown() {
  for (const auto& host : all()) host->shutdown();
}

}  // namespace sao::service
