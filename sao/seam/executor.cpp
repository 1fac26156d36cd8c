#include "sao/seam/executor.hpp"

#include <spdlog/spdlog.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>

namespace sao {
namespace {

std::mutex registry_mutex;
std::map<std::string, BatchExecutorFactory>& registry() {
  static std::map<std::string, BatchExecutorFactory> factories;
  return factories;
}

std::string hex_bits(double v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(bits));
  return buf;
}

}  // namespace

ExecutorSettings read_executor_settings(JsonReader& section) {
  ExecutorSettings s;
  if (!section.has("executor")) return s;
  JsonReader e = section.object("executor");
  if (auto type = e.string("type", true)) {
    if (*type == "local" || batch_executor_registered(*type)) {
      s.type = *type;
    } else {
      e.problems().add(e.at("type"),
                       "unknown executor \"" + *type + "\" (known: \"local\"" +
                           (batch_executor_registered("slurm") ? ", \"slurm\")" : ")"));
    }
  }
  if (auto v = e.string("partition")) s.partition = *v;
  if (auto v = e.string("account")) s.account = *v;
  if (auto v = e.string("time")) {
    // SLURM's forms: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS.
    bool digits = !v->empty();
    for (char c : *v)
      digits = digits && (std::isdigit(static_cast<unsigned char>(c)) || c == ':' || c == '-');
    if (digits) {
      s.time = *v;
    } else {
      e.problems().add(e.at("time"),
                       "expected a time limit such as \"00:10:00\" (HH:MM:SS), "
                       "\"30\" (minutes) or \"1-00:00:00\", got \"" +
                           *v + "\"");
    }
  }
  s.cpus = static_cast<int>(e.integer("cpus", 1, 4096).value_or(s.cpus));
  s.max_jobs = static_cast<int>(e.integer("max_jobs", 0, 1000000).value_or(s.max_jobs));
  if (auto p = e.positive("poll")) s.poll_seconds = *p;
  if (auto d = e.string("directory")) s.directory = *d;
  const nlohmann::json& extra = e.array("extra");
  for (size_t i = 0; i < extra.size(); ++i) {
    if (extra[i].is_string() && !extra[i].get<std::string>().empty()) {
      s.extra.push_back(extra[i].get<std::string>());
    } else {
      e.problems().add(
          e.at("extra") + "[" + std::to_string(i) + "]",
          "expected a non-empty string (one sbatch argument), got " + json_excerpt(extra[i]));
    }
  }
  e.finish();
  return s;
}

std::string run_key(const Eigen::VectorXd& design, int load_case, int variable, double step) {
  std::string key;
  for (Eigen::Index i = 0; i < design.size(); ++i) key += hex_bits(design(i)) + ",";
  key += "case" + std::to_string(load_case);
  if (variable >= 0) key += ",var" + std::to_string(variable) + "," + hex_bits(step);
  return key;
}

void register_batch_executor(const std::string& type, BatchExecutorFactory factory) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  registry()[type] = factory;
}

bool batch_executor_registered(const std::string& type) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  return registry().count(type) > 0;
}

std::unique_ptr<BatchExecutor> make_batch_executor(const ExecutorSettings& settings) {
  BatchExecutorFactory factory = nullptr;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = registry().find(settings.type);
    if (it != registry().end()) factory = it->second;
  }
  if (!factory) throw std::invalid_argument("unknown executor \"" + settings.type + "\"");
  return factory(settings);
}

std::vector<Evaluation> run_batch_as_jobs(const std::vector<EvaluationRequest>& batch,
                                          int load_cases, int design_variables,
                                          const DifferenceSettings& differences,
                                          BatchExecutor& executor, JobLedger* ledger,
                                          const StagedRunner& runner) {
  const auto start = std::chrono::steady_clock::now();
  BatchPlan plan = plan_batch(batch, load_cases, design_variables, differences, false);
  std::vector<BatchRun>& runs = plan.runs;
  std::vector<std::string> first_failure(runs.size());
  std::vector<size_t> pending;
  for (size_t j = 0; j < runs.size(); ++j) {
    if (!runs[j].known) pending.push_back(j);
  }
  for (int round = 0; !pending.empty(); ++round) {
    std::vector<JobSpec> specs;
    std::vector<size_t> submitted;
    for (size_t j : pending) {
      JobSpec spec;
      ++runs[j].runs;
      if (runner.prepare(runs[j], spec)) {
        specs.push_back(std::move(spec));
        submitted.push_back(j);
      } else {
        runs[j].ok = false;
      }
    }
    const std::vector<JobOutcome> outcomes = executor.execute(specs, ledger);
    for (size_t k = 0; k < submitted.size(); ++k) runner.finish(runs[submitted[k]], outcomes[k]);
    // A failed perturbed run is tried again with half its step (as the local runner does).
    std::vector<size_t> again;
    for (size_t j : pending) {
      BatchRun& run = runs[j];
      if (run.ok) continue;
      if (first_failure[j].empty()) first_failure[j] = run.message;
      if (run.variable >= 0 && round < runner.retries) {
        run.step *= 0.5;
        again.push_back(j);
      } else if (round > 0) {
        run.message = first_failure[j] + " (and " + std::to_string(round) +
                      " retries with halved steps failed too)";
      }
    }
    pending = std::move(again);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return assemble_batch(batch, plan, load_cases, design_variables, differences, seconds);
}

}  // namespace sao
