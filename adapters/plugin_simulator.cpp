#include "adapters/plugin_simulator.hpp"

#include <boost/dll/shared_library.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "adapters/function_simulator.hpp"
#include "sao/plugin/sao_plugin.h"

namespace sao::adapters {
namespace fs = std::filesystem;

std::string find_plugin_library(const std::string& library, const std::string& study_directory,
                                std::string& why) {
  const fs::path base = study_directory.empty() ? fs::current_path() : fs::path(study_directory);
  if (library.find('/') != std::string::npos) {
    const fs::path path = fs::path(library).is_absolute() ? fs::path(library) : base / library;
    if (fs::is_regular_file(path)) return path.string();
    why = "no file " + path.string();
    return {};
  }
  std::vector<std::string> looked{base.string()};
  if (fs::is_regular_file(base / library)) return (base / library).string();
  if (const char* env = std::getenv("SAO_PLUGIN_PATH")) {
    std::stringstream folders(env);
    for (std::string folder; std::getline(folders, folder, ':');) {
      if (folder.empty()) continue;
      looked.push_back(folder);
      if (fs::is_regular_file(fs::path(folder) / library))
        return (fs::path(folder) / library).string();
    }
  }
  // The installed plug-ins: LIBDIR/sao beside the running program's bin/ (the package's
  // /usr/lib/<arch>/sao for /usr/bin/sao and /usr/bin/python3).
  std::error_code ec;
  const fs::path program = fs::canonical("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = program.parent_path().parent_path() / SAO_INSTALLED_PLUGINS;
    looked.push_back(installed.string());
    if (fs::is_regular_file(installed / library)) return (installed / library).string();
  }
  why = "no file " + library + " in the study's folder, SAO_PLUGIN_PATH or the installed " +
        "plug-ins (looked in " + joined(looked) + ")";
  return {};
}

namespace {

constexpr size_t kMessageSize = 1024;

// A loaded library, its function table and one instance made from the study.
class PluginSimulator final : public FunctionSimulator {
 public:
  explicit PluginSimulator(const SimulatorSetup& setup);
  ~PluginSimulator() override {
    if (instance_ != nullptr) api_->destroy(instance_);
  }
  std::string fingerprint() const override { return fingerprint_; }

 protected:
  void call(FunctionCall& call) override;
  bool thread_safe() const override { return api_->thread_safe != 0; }

 private:
  // Loads and checks the library; false with the problems recorded.
  bool load(const std::string& path, const std::string& where, Problems& problems);
  bool create(const SimulatorSetup& setup, const std::string& path, Problems& problems);

  boost::dll::shared_library library_;
  const struct sao_plugin_v1* api_ = nullptr;
  void* instance_ = nullptr;
  std::string path_, fingerprint_;
};

PluginSimulator::PluginSimulator(const SimulatorSetup& setup) : FunctionSimulator(setup, "plugin") {
  Problems problems;
  JsonReader section(setup.section, "simulator", problems);
  section.known({"type", "options"});
  const std::optional<std::string> library = section.string("library", true);
  bool loaded = false;
  if (library) {
    std::string why;
    path_ = find_plugin_library(*library, setup.study_directory, why);
    if (path_.empty()) {
      problems.add(section.at("library"), why);
    } else {
      loaded = load(path_, section.at("library"), problems);
    }
  }
  set_settings(read_function_settings(section, !loaded || api_->provides_gradients != 0,
                                      "plug-in " + library.value_or("")));
  section.finish();
  if (loaded && problems.empty()) create(setup, path_, problems);
  problems.throw_if_any();
}

bool PluginSimulator::load(const std::string& path, const std::string& where, Problems& problems) {
  try {
    library_.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    problems.add(where, path + ": cannot be loaded: " + e.what());
    return false;
  }
  if (!library_.has("sao_plugin_api_version") || !library_.has("sao_plugin_v1")) {
    problems.add(where, path +
                            ": not a sao plug-in: it exports no sao_plugin_api_version and "
                            "sao_plugin_v1 (sao/plugin/sao_plugin.h)");
    return false;
  }
  const int version = library_.get<int()>("sao_plugin_api_version")();
  if (version != SAO_PLUGIN_API_VERSION) {
    problems.add(where, path + ": plug-in API version " + std::to_string(version) +
                            ", but this sao supports version " +
                            std::to_string(SAO_PLUGIN_API_VERSION) +
                            " (sao/plugin/sao_plugin.h): rebuild the plug-in against it");
    return false;
  }
  api_ = library_.get<const struct sao_plugin_v1*()>("sao_plugin_v1")();
  if (api_ == nullptr || !api_->create || !api_->destroy || !api_->response_count ||
      !api_->response || !api_->evaluate) {
    problems.add(where, path + ": sao_plugin_v1() returned no table or one without functions");
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The library's contents decide the analyses a store may re-use (a rebuilt plug-in differs).
  fingerprint_ = "plugin:" + std::to_string(bytes.size()) + ":" +
                 std::to_string(std::hash<std::string>{}(bytes));
  return true;
}

bool PluginSimulator::create(const SimulatorSetup& setup, const std::string& path,
                             Problems& problems) {
  const std::string section = setup.section.dump();
  std::vector<const char*> names;
  for (const std::string& name : design_names()) names.push_back(name.c_str());
  // Parameters of each load case, kept alive for the call.
  std::vector<std::vector<const char*>> parameter_names(load_cases().size());
  std::vector<std::vector<double>> parameter_values(load_cases().size());
  std::vector<std::vector<double>> times(load_cases().size());
  std::vector<sao_plugin_load_case> cases;
  for (size_t c = 0; c < load_cases().size(); ++c) {
    const LoadCaseSpec& lc = load_cases()[c];
    for (const auto& [name, value] : lc.parameters) {
      parameter_names[c].push_back(name.c_str());
      parameter_values[c].push_back(value);
    }
    times[c] = lc.grid.times();
    cases.push_back({lc.name.c_str(), lc.grid.points, times[c].data(),
                     static_cast<int>(lc.parameters.size()), parameter_names[c].data(),
                     parameter_values[c].data()});
  }
  const sao_plugin_setup plugin_setup{
      section.c_str(), setup.study_directory.c_str(),  static_cast<int>(names.size()),
      names.data(),    static_cast<int>(cases.size()), cases.data()};
  char error[kMessageSize] = "";
  instance_ = api_->create(&plugin_setup, error, sizeof error);
  if (instance_ == nullptr) {
    problems.add("simulator", "the plug-in " + path + " refused the section: " + error);
    return false;
  }
  std::vector<ResponseInfo> responses;
  for (int k = 0, count = api_->response_count(instance_); k < count; ++k) {
    const char* name = nullptr;
    int history = 0;
    if (api_->response(instance_, k, &name, &history) != 0 || name == nullptr) {
      problems.add("simulator", "the plug-in " + path + " gave no response " + std::to_string(k));
      return false;
    }
    responses.push_back({name, history != 0});
  }
  set_responses(std::move(responses));
  return true;
}

void PluginSimulator::call(FunctionCall& call) {
  const LoadCaseSpec& lc = load_cases()[static_cast<size_t>(call.load_case)];
  const FunctionLayout layout = function_layout(this->responses(), lc.grid.points);
  const int runs = static_cast<int>(call.runs.size());
  const int n = static_cast<int>(call.designs.cols());
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const RowMajor designs = call.designs;
  std::vector<double> values(static_cast<size_t>(runs) * layout.value_count);
  std::vector<double> gradients(call.gradients ? values.size() * n : 0);
  std::vector<int> failed(static_cast<size_t>(runs), 0);
  std::vector<char> messages(static_cast<size_t>(runs) * kMessageSize, '\0');
  sao_plugin_batch batch{call.load_case,
                         runs,
                         n,
                         designs.data(),
                         layout.value_count,
                         values.data(),
                         call.gradients ? gradients.data() : nullptr,
                         failed.data(),
                         messages.data(),
                         kMessageSize};
  char error[kMessageSize] = "";
  const int status = api_->evaluate(instance_, &batch, error, sizeof error);
  for (int j = 0; j < runs; ++j) {
    BatchRun& run = *call.runs[static_cast<size_t>(j)];
    if (status != 0) {
      run.message = "plug-in " + path_ + ": " + error;
    } else if (failed[static_cast<size_t>(j)] != 0) {
      messages[(static_cast<size_t>(j) + 1) * kMessageSize - 1] = '\0';
      run.message = "plug-in " + path_ + ": " + &messages[static_cast<size_t>(j) * kMessageSize];
    } else {
      run.ok = true;
      const size_t row = static_cast<size_t>(j) * layout.value_count;
      run.result = case_from_values(this->responses(), layout, values.data() + row,
                                    call.gradients ? gradients.data() + row * n : nullptr, n);
    }
  }
}

}  // namespace

void register_plugin_simulator() {
  register_simulator("plugin", [](const SimulatorSetup& setup) -> std::unique_ptr<Simulator> {
    return std::make_unique<PluginSimulator>(setup);
  });
}

}  // namespace sao::adapters
