#include "sao/cli/result_file.hpp"

#include <filesystem>

#include "sao/optimizer/cycle_record_json.hpp"
#include "sao/report/evaluate.hpp"
#include "sao/report/report.hpp"
#include "sao/store/atomic_file.hpp"

#ifndef SAO_VERSION
#error "SAO_VERSION (CMake's project version) must be defined"
#endif

namespace sao::cli {

const char* program_version() {
  return SAO_VERSION;
}

nlohmann::ordered_json result_document(const Study& study, const RunSummary& summary,
                                       const std::optional<Evaluation>& final_analysis) {
  // result_to_json's object sorts its keys: rebuilt with the design in study order and the
  // additions after the study's name.
  const nlohmann::json base = result_to_json(study, summary);
  nlohmann::ordered_json out;
  out["study"] = base["study"];
  out["version"] = program_version();
  for (const auto& [key, value] : base.items()) {
    if (key == "study") continue;
    if (key == "design") {
      nlohmann::ordered_json design = nlohmann::ordered_json::object();
      const std::vector<std::string> names = variable_names(study);
      for (int i = 0; i < summary.x.size() && i < static_cast<int>(names.size()); ++i) {
        design[names[i]] = summary.x(i);
      }
      out["design"] = design;
      continue;
    }
    out[key] = nlohmann::ordered_json::parse(value.dump());  // dump/parse keeps every double
  }
  if (!final_analysis || summary.x.size() == 0) {
    out["constraints"] = nullptr;  // the final design's analysis is not at hand
    out["active_set"] = nullptr;
    return out;
  }
  const DesignSummary s = summarise_design(study, *final_analysis, summary.x);
  nlohmann::ordered_json constraints = nlohmann::ordered_json::array();
  nlohmann::ordered_json active = nlohmann::ordered_json::array();
  for (const ConstraintSummary& c : s.constraints) {
    // A place for the constraint's unit and label (issue 26, item 2) when the study has them.
    const bool is_active = c.normalised >= -kActiveTolerance;
    constraints.push_back({{"name", c.name},
                           {"worst", c.worst},
                           {"bound", c.bound},
                           {"normalised", c.normalised},
                           {"point", c.point},
                           {"time", c.time},
                           {"active", is_active}});
    if (is_active) active.push_back(c.name);
  }
  out["constraints"] = constraints;
  out["active_set"] = active;
  return out;
}

void write_result_files(const std::string& dir, const Study& study, const RunSummary& summary,
                        const std::optional<Evaluation>& final_analysis) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create the output folder " + dir + ": " + ec.message());
  const std::filesystem::path base(dir);
  write_file_atomically(base / "result.json",
                        result_document(study, summary, final_analysis).dump(2) + "\n");
  write_file_atomically(base / "history.csv", history_csv(study, summary));
}

}  // namespace sao::cli
