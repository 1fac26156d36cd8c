#include "adapters/external_simulator.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "adapters/process.hpp"
#include "adapters/process_tree.hpp"

namespace sao::adapters {
namespace {

namespace fs = std::filesystem;

// Where the evaluator gets the design.
class DesignInputs final : public expr::Inputs {
 public:
  explicit DesignInputs(const Eigen::VectorXd& design) : design_(design) {}
  double variable(int i) const override { return design_(i); }
  double response(int, int, int) const override { return 0.0; }

 private:
  const Eigen::VectorXd& design_;
};

std::string tail_of(const fs::path& file, size_t bytes) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const auto size = static_cast<size_t>(in.tellg());
  in.seekg(static_cast<std::streamoff>(size > bytes ? size - bytes : 0));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

// The run directories this process created (`add`: one more); every session of the process
// (a sweep has several) may remove one it finds empty at its end.
bool created_by_this_process(const fs::path& folder, bool add) {
  static std::mutex mutex;
  static std::set<fs::path> created;
  const std::lock_guard<std::mutex> lock(mutex);
  if (add) created.insert(folder);
  return created.count(folder) > 0;
}

}  // namespace

ExternalSimulator::ExternalSimulator(const SimulatorSetup& setup)
    : ExternalSimulator(read_external_config(setup)) {}

ExternalSimulator::ExternalSimulator(ExternalConfig config) : config_(std::move(config)) {
  if (!config_.settings.executor.local()) {
    try {
      executor_ = make_batch_executor(config_.settings.executor);
    } catch (const std::invalid_argument& e) {
      throw SectionError({"simulator.executor.type: " + std::string(e.what())});
    }
  }
  // The folder of this session's runs: run_directory/<date>-<time>-<pid>.
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  std::ostringstream session;
  session << std::put_time(&tm, "%Y%m%d-%H%M%S") << "-" << ::getpid();
  static std::atomic<int> instances{0};
  const int instance = instances++;
  if (instance > 0) session << "-" << instance;
  session_ = fs::absolute(config_.settings.run_directory).lexically_normal() / session.str();
}

ExternalSimulator::~ExternalSimulator() {
  // An empty session folder (every run succeeded and was removed) is not left behind, nor the
  // run directory this process created for it when nothing else is in it (issue 26: an empty
  // sao-runs/ was left in the working folder after every successful run).
  std::error_code ec;
  fs::remove(owner_file(), ec);
  if (fs::is_directory(session_, ec) && fs::is_empty(session_, ec)) fs::remove(session_, ec);
  const fs::path runs = session_.parent_path();
  if (created_by_this_process(runs, false) && fs::is_directory(runs, ec) &&
      fs::is_empty(runs, ec)) {
    fs::remove(runs, ec);
  }
}

std::vector<ResponseInfo> ExternalSimulator::responses() const {
  std::vector<ResponseInfo> out;
  for (const OutputSpec& o : config_.outputs) out.push_back({o.name, o.history});
  return out;
}

std::string ExternalSimulator::label(const BatchRun& job, const Eigen::VectorXd& design) const {
  std::ostringstream msg;
  msg << "load case \"" << config_.load_cases[static_cast<size_t>(job.load_case)].name
      << "\", design (";
  for (size_t i = 0; i < config_.design_names.size(); ++i) {
    msg << (i ? ", " : "") << config_.design_names[i] << " = "
        << design(static_cast<Eigen::Index>(i));
  }
  msg << ")";
  if (job.variable >= 0) {
    msg << " (finite-difference run, " << config_.design_names[static_cast<size_t>(job.variable)]
        << " perturbed by " << job.step << ")";
  }
  return msg.str();
}

bool ExternalSimulator::render_inputs(size_t c, const Eigen::VectorXd& design,
                                      std::vector<std::string>& texts, std::string& error) const {
  // The values of the placeholders of this load case, by slot.
  const CaseValues& cv = config_.case_values[c];
  std::vector<double> values;
  values.reserve(cv.names.size());
  for (Eigen::Index i = 0; i < design.size(); ++i) values.push_back(design(i));
  const DesignInputs inputs(design);
  for (size_t r = 0; r < cv.relations.size(); ++r) {
    expr::Evaluator evaluator(*cv.relations[r], inputs);
    values.push_back(evaluator.value(0));
  }
  for (const auto& [key, value] : config_.constants) values.push_back(value);
  for (const auto& [key, value] : config_.load_cases[c].parameters) values.push_back(value);
  texts.assign(config_.templates.size(), std::string());
  for (size_t k = 0; k < config_.templates.size(); ++k) {
    if (config_.templates[k].cases[c] &&
        !config_.templates[k].text.render(config_.templates[k].slots[c], values, texts[k], error)) {
      return false;
    }
  }
  return true;
}

bool ExternalSimulator::fail(BatchRun& job, const Eigen::VectorXd& design, const fs::path& dir,
                             const std::string& why) const {
  job.message = label(job, design) + ", run directory " + dir.string() + ": " + why;
  spdlog::warn("external simulator: {}", job.message);
  return false;
}

fs::path ExternalSimulator::next_directory(const BatchRun& job) {
  std::ostringstream name;
  name << std::setw(6) << std::setfill('0') << ++counter_ << "-case" << job.load_case;
  return session_ / name.str();
}

bool ExternalSimulator::write_run_directory(BatchRun& job, const Eigen::VectorXd& design,
                                            const fs::path& dir) {
  const size_t c = static_cast<size_t>(job.load_case);
  std::vector<std::string> texts;
  std::string error;
  if (!render_inputs(c, design, texts, error)) return fail(job, design, dir, error);
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  for (size_t k = 0; k < config_.templates.size(); ++k) {
    if (!config_.templates[k].cases[c]) continue;
    const fs::path target = dir / config_.templates[k].target;
    if (target.has_parent_path()) fs::create_directories(target.parent_path());
    std::ofstream out(target, std::ios::binary);
    out << texts[k];
    if (!out) return fail(job, design, dir, "cannot write " + target.string());
  }
  for (const SupportFile& f : config_.support) {
    const fs::path target = dir / f.target;
    if (target.has_parent_path()) fs::create_directories(target.parent_path());
    fs::copy_file(f.source, target, fs::copy_options::overwrite_existing);
  }
  return true;
}

bool ExternalSimulator::read_run(BatchRun& job, const Eigen::VectorXd& design,
                                 const fs::path& dir) {
  const size_t c = static_cast<size_t>(job.load_case);
  for (const OutputSpec& o : config_.outputs) {
    const std::string why = read_output(o, dir, config_.load_cases[c].grid, job.result);
    if (!why.empty()) return fail(job, design, dir, why);
  }
  std::error_code ec;
  if (config_.settings.keep != Keep::kAll) fs::remove_all(dir, ec);
  return true;
}

bool ExternalSimulator::run_once(BatchRun& job, const Eigen::VectorXd& design) {
  const fs::path dir = next_directory(job);
  ++job.runs;
  job.result = CaseResult{};
  try {
    if (!write_run_directory(job, design, dir)) return false;
    ProcessSpec spec;
    spec.program = config_.settings.program;
    spec.arguments = config_.settings.arguments;
    spec.environment = config_.settings.environment;
    spec.inherit_environment = config_.settings.inherit_environment;
    spec.environment_allowlist = config_.settings.environment_allowlist;
    spec.directory = dir;
    spec.stdout_file = dir / kStdoutFile;
    spec.stderr_file = dir / kStderrFile;
    spec.timeout_seconds = config_.settings.timeout_seconds;
    spec.run_id = dir.string();
    const ProcessResult r = run_process(spec);
    const bool exit_ok =
        r.started && !r.timed_out && !r.signaled &&
        std::find(config_.settings.exit_codes.begin(), config_.settings.exit_codes.end(),
                  r.exit_code) != config_.settings.exit_codes.end();
    if (!exit_ok) {
      std::string why = config_.settings.program.filename().string() + ": " + describe(r);
      const std::string err = tail_of(spec.stderr_file, 300);
      if (!err.empty()) why += "; stderr ends: " + err;
      return fail(job, design, dir, why);
    }
    return read_run(job, design, dir);
  } catch (const std::exception& e) {  // file system trouble: still a failed run, not a crash
    return fail(job, design, dir, e.what());
  }
}

bool ExternalSimulator::perturbation_changes_inputs(BatchRun& job) const {
  // A perturbation that does not change the input files (a format with too few digits for
  // the step) would give a zero derivative without any warning.
  const size_t c = static_cast<size_t>(job.load_case);
  if (!config_.reaches[c][static_cast<size_t>(job.variable)]) return true;
  Eigen::VectorXd design = *job.design;
  std::vector<std::string> nominal, perturbed;
  std::string error;
  design(job.variable) += job.step;
  if (render_inputs(c, *job.design, nominal, error) && render_inputs(c, design, perturbed, error) &&
      nominal == perturbed) {
    job.message = label(job, design) + ": the perturbation does not change the input files " +
                  "(the placeholders' formats have too few digits for the step): increase " +
                  "simulator.gradients.step or the precision of the formats";
    spdlog::warn("external simulator: {}", job.message);
    job.ok = false;
    return false;
  }
  return true;
}

void ExternalSimulator::run(BatchRun& job) {
  Eigen::VectorXd design = *job.design;
  if (job.variable < 0) {
    job.ok = run_once(job, design);
    return;
  }
  if (!perturbation_changes_inputs(job)) return;
  // A perturbed run that fails is retried with half the step: a code that fails next to a
  // design it can analyse usually fails for the perturbation, not for the design.
  std::string first;
  for (int attempt = 0; attempt <= config_.settings.retries; ++attempt) {
    design = *job.design;
    design(job.variable) += job.step;
    job.ok = run_once(job, design);
    if (job.ok) return;
    if (first.empty()) first = job.message;
    if (attempt < config_.settings.retries) job.step *= 0.5;
  }
  job.message =
      first + (config_.settings.retries > 0 ? " (and " + std::to_string(config_.settings.retries) +
                                                  " retries with halved steps failed too)"
                                            : std::string());
}

Eigen::VectorXd ExternalSimulator::run_design(const BatchRun& job) {
  Eigen::VectorXd design = *job.design;
  if (job.variable >= 0) design(job.variable) += job.step;
  return design;
}

bool ExternalSimulator::prepare_job(BatchRun& job, JobSpec& spec) {
  if (job.variable >= 0 && job.runs == 1 && !perturbation_changes_inputs(job)) return false;
  const Eigen::VectorXd design = run_design(job);
  const fs::path dir = next_directory(job);
  job.result = CaseResult{};
  try {
    if (!write_run_directory(job, design, dir)) return false;
  } catch (const std::exception& e) {
    return fail(job, design, dir, e.what());
  }
  spec.key = run_key(*job.design, job.load_case, job.variable, job.step);
  spec.directory = dir;
  spec.command = {config_.settings.program.string()};
  spec.command.insert(spec.command.end(), config_.settings.arguments.begin(),
                      config_.settings.arguments.end());
  spec.environment = config_.settings.environment;
  spec.inherit_environment = config_.settings.inherit_environment;
  spec.environment_allowlist = config_.settings.environment_allowlist;
  spec.timeout_seconds = config_.settings.timeout_seconds;
  spec.stdout_file = dir / kStdoutFile;
  spec.stderr_file = dir / kStderrFile;
  return true;
}

void ExternalSimulator::finish_job(BatchRun& job, const JobOutcome& outcome,
                                   const fs::path& prepared) {
  const Eigen::VectorXd design = run_design(job);
  const fs::path& dir = outcome.directory.empty() ? prepared : outcome.directory;
  std::error_code ec;
  if (dir != prepared) fs::remove_all(prepared, ec);  // re-attached: ran in an earlier folder
  const std::string program = config_.settings.program.filename().string();
  if (!outcome.ran) {
    job.ok = fail(job, design, dir, program + ": " + outcome.message);
    return;
  }
  const auto& codes = config_.settings.exit_codes;
  if (std::find(codes.begin(), codes.end(), outcome.exit_code) == codes.end()) {
    std::string why = program + ": exit status " + std::to_string(outcome.exit_code) + " (job " +
                      outcome.job_id + " ended " + outcome.state + ")";
    const std::string err = tail_of(dir / kStderrFile, 300);
    if (!err.empty()) why += "; stderr ends: " + err;
    job.ok = fail(job, design, dir, why);
    return;
  }
  try {
    job.ok = read_run(job, design, dir);
  } catch (const std::exception& e) {
    job.ok = fail(job, design, dir, e.what());
  }
}

void ExternalSimulator::start_session() {
  // Orphans of the runs are re-parented to this process and reaped, not left as zombies.
  become_subreaper();
  // Runs left over from a `sao` killed by SIGKILL (which cannot be caught) would keep licences,
  // cores and files busy: found by their cookie under this run directory, whose session's
  // owner is dead, reported and killed before any run starts.
  for (const std::string& session :
       kill_leftovers(session_.parent_path().string(),  // the run directory
                      kOwnerSuffix)) {
    spdlog::warn(
        "external simulator: killed processes left over from an earlier sao that was killed "
        "({})",
        session);
  }
  std::error_code ec;
  if (!fs::exists(session_.parent_path(), ec))
    created_by_this_process(session_.parent_path(), true);
  fs::create_directories(session_);
  std::ofstream(owner_file()) << owner_marker() << "\n";
}

std::vector<Evaluation> ExternalSimulator::evaluate(const std::vector<EvaluationRequest>& batch) {
  const std::vector<ResponseInfo> known = responses();
  for (const EvaluationRequest& request : batch) {
    check_request(request, "ExternalSimulator", config_.design_names.size(), config_.load_cases,
                  known);
  }
  try {
    std::call_once(session_started_, [&] { start_session(); });
  } catch (const std::exception& e) {  // the runs will name the folder when they fail
    spdlog::warn("external simulator: cannot prepare {}: {}", session_.string(), e.what());
  }
  if (executor_) {  // a batch scheduler: one submission per batch (and per round of retries)
    std::map<const BatchRun*, fs::path> prepared;
    std::mutex prepared_mutex;
    StagedRunner runner;
    runner.retries = config_.settings.retries;
    runner.prepare = [&](BatchRun& job, JobSpec& spec) {
      const bool ok = prepare_job(job, spec);
      std::lock_guard<std::mutex> lock(prepared_mutex);
      prepared[&job] = spec.directory;
      return ok;
    };
    runner.finish = [&](BatchRun& job, const JobOutcome& outcome) {
      finish_job(job, outcome, prepared[&job]);
    };
    return run_batch_as_jobs(
        batch, static_cast<int>(config_.load_cases.size()),
        static_cast<int>(config_.design_names.size()),
        {difference_order(config_.settings.central), config_.settings.relative_step}, *executor_,
        ledger_, runner);
  }
  // The pool: `workers` runs at a time; each run writes only its own slot.
  return run_batch(batch, static_cast<int>(config_.load_cases.size()),
                   static_cast<int>(config_.design_names.size()),
                   {difference_order(config_.settings.central), config_.settings.relative_step},
                   false, config_.settings.workers, [&](BatchRun& job) { run(job); });
}

void register_external_simulator() {
  register_simulator("external", [](const SimulatorSetup& setup) -> std::unique_ptr<Simulator> {
    return std::make_unique<ExternalSimulator>(setup);
  });
}

std::string ExternalSimulator::fingerprint() const {
  std::string out;
  // The store hashes the fingerprint as JSON text, which must be UTF-8: a file that is not
  // (a binary support file) enters as hexadecimal digits; text files as they are, so that
  // stores made before keep matching.
  auto add = [&](const std::filesystem::path& source, const std::string& target) {
    std::ifstream in(source, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
      (void)nlohmann::json(bytes).dump();
    } catch (const nlohmann::json::type_error&) {  // invalid UTF-8
      std::ostringstream hex;
      hex << "hex:" << std::hex << std::setfill('0');
      for (const unsigned char c : bytes) hex << std::setw(2) << static_cast<int>(c);
      bytes = hex.str();
    }
    out += target + '\0' + std::to_string(bytes.size()) + '\0' + bytes;
  };
  for (const TemplateFile& t : config_.templates) add(t.source, "template:" + t.target);
  for (const SupportFile& f : config_.support) add(f.source, "support:" + f.target);
  return out;
}

}  // namespace sao::adapters
