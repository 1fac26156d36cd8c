#include "sao/cli/export_command.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>
#include <utility>

#include "sao/report/evaluate.hpp"
#include "sao/study/study_loader.hpp"

namespace sao::cli {
namespace {

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Appends ",FIELD" (appended piecewise: GCC 12 warns falsely on "," + std::string).
void cell(std::string& out, const std::string& text) {
  out += ',';
  out += field(text);
}

std::string number(double v) {
  return std::isfinite(v) ? fmt::format("{}", v) : "nan";
}

}  // namespace

std::string analyses_csv(const StudyStore& store) {
  const int current = store.current_branch();
  if (current == 0) throw StoreError(store.path() + ": the store holds no study yet");
  const StoredStudy stored = store.study(store.branch(current).study);
  const Study study = load_study(stored.document, stored.source);
  const std::vector<StoredAnalysis> analyses = store.analyses(true);
  // The columns: every (load case, response) any analysis holds, scalars and histories.
  std::set<std::pair<size_t, std::string>> scalars, histories;
  for (const StoredAnalysis& a : analyses) {
    for (size_t c = 0; c < a.evaluation.cases.size(); ++c) {
      for (const auto& [name, value] : a.evaluation.cases[c].scalars) scalars.insert({c, name});
      for (const auto& [name, value] : a.evaluation.cases[c].histories) {
        histories.insert({c, name});
      }
    }
  }
  auto case_name = [&](size_t c) {
    return c < study.load_cases.size() ? study.load_cases[c].name : "case" + std::to_string(c);
  };
  std::string out = "analysis,branch";
  for (const DesignVariable& v : study.design) cell(out, v.name);
  out += ",status,message,sensitivities,seconds,runs";
  for (const auto& [c, name] : scalars) cell(out, case_name(c) + "." + name);
  for (const auto& [c, name] : histories) {
    const std::string base = case_name(c) + "." + name;
    cell(out, base + ".max");
    cell(out, base + ".min");
    cell(out, base + ".t_max");
  }
  out += "\n";
  // The units row: "unit" in the analysis column, then each column's unit as the study declares
  // it (the time of a maximum in the load case's time unit is not declared: empty).
  out += "unit,";
  for (const DesignVariable& v : study.design) cell(out, v.note.unit);
  out += ",,,,s,";  // status, message, sensitivities, seconds, runs
  for (const auto& [c, name] : scalars) cell(out, declared_unit(study, name));
  for (const auto& [c, name] : histories) {
    const std::string unit = declared_unit(study, name);
    cell(out, unit);
    cell(out, unit);
    cell(out, "");
  }
  out += "\n";
  int row = 0;
  for (const StoredAnalysis& a : analyses) {
    const Evaluation& e = a.evaluation;
    out += fmt::format("{},{}", ++row, a.branch);
    for (int i = 0; i < study.n_design(); ++i) {
      cell(out, i < a.design.size() ? number(a.design(i)) : std::string());
    }
    out += fmt::format(",{},{},{},{},{}", e.ok ? "ok" : "failed", field(e.message),
                       e.has_gradients ? 1 : 0, number(e.cost.wall_seconds), e.cost.runs);
    for (const auto& [c, name] : scalars) {
      out += ",";
      if (c < e.cases.size() && e.cases[c].scalars.count(name)) {
        out += number(e.cases[c].scalars.at(name));
      }
    }
    for (const auto& [c, name] : histories) {
      if (c >= e.cases.size() || !e.cases[c].histories.count(name) ||
          e.cases[c].histories.at(name).size() == 0) {
        out += ",,,";
        continue;
      }
      const HistoryRange range = history_range(study, c, e.cases[c].histories.at(name));
      cell(out, number(range.max));
      cell(out, number(range.min));
      cell(out, std::isnan(range.time_of_max) ? std::string() : number(range.time_of_max));
    }
    out += "\n";
  }
  return out;
}

}  // namespace sao::cli
