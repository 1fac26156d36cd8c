#include "sao/report/result_file.hpp"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>

#include "sao/optimizer/cycle_record_json.hpp"
#include "sao/report/evaluate.hpp"
#include "sao/report/report.hpp"
#include "sao/report/units_json.hpp"
#include "sao/store/atomic_file.hpp"
#include "sao/version.hpp"

namespace sao {

Eigen::VectorXd current_design(const RunSummary& summary) {
  if (summary.status != RunStatus::kRunning || summary.history.empty()) return summary.x;
  return design_after(summary.history.back());
}

nlohmann::ordered_json named_in_order(const Study& study, const Eigen::VectorXd& x) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  const std::vector<std::string> names = variable_names(study);
  for (int i = 0; i < x.size() && i < static_cast<int>(names.size()); ++i) out[names[i]] = x(i);
  return out;
}

nlohmann::ordered_json constraint_json(const ConstraintSummary& c) {
  nlohmann::ordered_json out = {{"name", c.name}};
  if (!c.note.label.empty()) out["label"] = c.note.label;
  put_unit(out, c.note.unit);  // of worst and bound
  out.update(nlohmann::ordered_json{{"worst", c.worst},
                                    {"bound", c.bound},
                                    {"normalised", c.normalised},
                                    {"normaliser", c.normaliser},
                                    {"point", c.point},
                                    {"time", c.time}});
  return out;
}

nlohmann::ordered_json result_document(const Study& study, const RunSummary& summary,
                                       const std::optional<Evaluation>& final_analysis) {
  const Eigen::VectorXd x = current_design(summary);
  // result_to_json's object sorts its keys: rebuilt with the designs (the result's and the
  // cycles') in study order and the additions after the study's name.
  const nlohmann::json base = result_to_json(study, summary);
  nlohmann::ordered_json out;
  out["study"] = base["study"];
  out["version"] = kVersion;
  for (const auto& [key, value] : base.items()) {
    if (key == "study") continue;
    if (key == "design") {
      out["design"] = named_in_order(study, x);
      out["units"] = units_of(study);
      continue;
    }
    if (key == "history") {  // the cycles' designs in study order too
      nlohmann::ordered_json history = nlohmann::ordered_json::array();
      for (const CycleRecord& r : summary.history) history.push_back(cycle_to_json(study, r));
      out["history"] = history;
      continue;
    }
    out[key] = nlohmann::ordered_json::parse(value.dump());  // dump/parse keeps every double
  }
  if (summary.status == RunStatus::kRunning) out["cycles"] = summary.history.size();
  if (!final_analysis || x.size() == 0) {
    out["constraints"] = nullptr;  // the final design's analysis is not at hand
    out["active_set"] = nullptr;
    return out;
  }
  const DesignSummary s =
      summarise_design(as_measured(study, summary.constraint_scales), *final_analysis, x);
  nlohmann::ordered_json constraints = nlohmann::ordered_json::array();
  nlohmann::ordered_json active = nlohmann::ordered_json::array();
  for (const ConstraintSummary& c : s.constraints) {
    const bool active_here = is_active(c.normalised);
    nlohmann::ordered_json entry = constraint_json(c);
    entry["active"] = active_here;
    constraints.push_back(entry);
    if (active_here) active.push_back(c.name);
  }
  out["constraints"] = constraints;
  out["active_set"] = active;
  return out;
}

namespace {

// The folders this process wrote result files to, and whether an interruption has marked
// them (no write after that: the process is about to end).
struct WrittenResults {
  std::mutex mutex;
  std::set<std::string> folders;
  std::multiset<std::string> computing;  // folders with a cycle in progress (CycleInProgress)
  bool interrupted = false;
};
WrittenResults& written_results() {
  static WrittenResults w;
  return w;
}

}  // namespace

CycleInProgress::CycleInProgress(std::string dir) : dir_(std::move(dir)) {
  WrittenResults& w = written_results();
  const std::lock_guard<std::mutex> lock(w.mutex);
  w.computing.insert(dir_);
}

CycleInProgress::~CycleInProgress() {
  WrittenResults& w = written_results();
  const std::lock_guard<std::mutex> lock(w.mutex);
  w.computing.erase(w.computing.find(dir_));
}

void write_result_files(const std::string& dir, const Study& study, const RunSummary& summary,
                        const std::optional<Evaluation>& final_analysis) {
  WrittenResults& w = written_results();
  const std::lock_guard<std::mutex> lock(w.mutex);
  if (w.interrupted) return;
  make_output_folder(dir);
  const std::filesystem::path base(dir);
  write_file_atomically(base / "result.json",
                        result_document(study, summary, final_analysis).dump(2) + "\n");
  write_file_atomically(base / "history.csv", history_csv(study, summary));
  w.folders.insert(dir);
}

std::vector<std::string> mark_results_interrupted(const std::string& why) {
  WrittenResults& w = written_results();
  const std::lock_guard<std::mutex> lock(w.mutex);
  w.interrupted = true;
  std::vector<std::string> marked;
  for (const std::string& dir : w.folders) {
    if (w.computing.count(dir) == 0) continue;  // waiting between cycles: not interrupted in one
    const std::filesystem::path path = std::filesystem::path(dir) / "result.json";
    try {
      std::ifstream in(path);
      nlohmann::ordered_json doc = nlohmann::ordered_json::parse(in);
      if (doc.value("status", "") != "running") continue;
      doc["status"] = "interrupted";
      doc["message"] = why;
      write_file_atomically(path, doc.dump(2) + "\n");
      marked.push_back(path.string());
    } catch (const std::exception&) {
      // Unreadable or not writable: left as it is (the process is ending; nothing to report to).
    }
  }
  return marked;
}

std::optional<Evaluation> final_analysis(const StudySession& session) {
  const Eigen::VectorXd x = current_design(session.driver().summary());
  const int n = session.study().n_design();
  if (x.size() < n) return std::nullopt;
  return session.analysis_of(x.head(n));
}

bool write_run_results(const StudySession& session, const std::string& dir, bool final) {
  const RunSummary& s = session.driver().summary();
  const bool keep = session.status_at_open() == "converged" && s.status != RunStatus::kConverged;
  if (keep) {
    if (final) {
      spdlog::warn(
          "{}/result.json and history.csv of the converged run are kept: this run "
          "ended {}: {}",
          dir, to_string(s.status), s.message);
    }
    return false;
  }
  write_result_files(dir, session.study(), s, final_analysis(session));
  return true;
}

}  // namespace sao
