// load_study(): the sections of a study file read in order (load_sections.hpp), every problem
// collected; reading the file, overrides, starts, and the check against the simulator.
#include "sao/study/study_loader.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "sao/seam/json_reader.hpp"
#include "sao/seam/json_text.hpp"
#include "sao/study/load_sections.hpp"

namespace sao {
namespace loading {

std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

bool expect_object(const nlohmann::json& v, const std::string& path, Problems& problems) {
  if (v.is_object()) return true;
  problems.add(path, "expected an object, got " + json_type_name(v));
  return false;
}

bool expect_array(const nlohmann::json& v, const std::string& path, Problems& problems) {
  if (v.is_array()) return true;
  problems.add(path, "expected an array, got " + json_type_name(v));
  return false;
}

std::string indexed(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

Annotation read_annotation(JsonReader& r) {
  Annotation note;
  note.unit = r.string("unit", false).value_or("");
  note.label = r.string("label", false).value_or("");
  return note;
}

expr::ProgramPtr compile(const expr::AstPtr& ast, const expr::Symbols& symbols, int load_case,
                         const std::string& path, Problems& problems) {
  try {
    return expr::bind(ast, symbols, load_case);
  } catch (const expr::Error& e) {
    problems.add(e.origin().empty() ? path : "relations." + e.origin(), e.what());
    return nullptr;
  }
}

expr::AstPtr parse_at(const std::string& text, const std::string& path, Problems& problems) {
  try {
    return expr::parse(text);
  } catch (const expr::Error& e) {
    problems.add(path, e.what());
    return nullptr;
  }
}

}  // namespace loading

StudyError::StudyError(std::string source, std::vector<std::string> problems)
    : std::runtime_error(source + ": " + std::to_string(problems.size()) + " problem(s):\n  " +
                         joined(problems, "\n  ")),
      problems_(std::move(problems)) {}

namespace {

// A study, or with `model` a model file (no design variables or objective required).
LoadedStudy load(const nlohmann::json& document, const std::string& source, bool model) {
  Problems problems;
  LoadedStudy study;
  study.file = source;
  if (!document.is_object()) throw StudyError(source, {"(top level): expected an object"});
  // JsonLimits' defaults are the limits of a study file (docs/study-format.md).
  if (std::string beyond = json_beyond(document, JsonLimits{}); !beyond.empty()) {
    throw StudyError(source, {beyond});
  }
  JsonReader top(document, "", problems);
  study.name = top.string("name", false).value_or(source);
  study.description = top.string("description", false).value_or("");
  // An editor's reference to the study files' JSON Schema (docs/installation.md): read (a
  // string) and otherwise ignored.
  (void)top.string("$schema", false);

  double default_move = 0.4;
  if (top.has("settings"))
    loading::read_settings(top.raw("settings"), study.options, default_move, problems);
  if (top.has("constants")) loading::read_constants(top.raw("constants"), study, problems);
  if (top.has("data")) loading::read_data(top.raw("data"), study, problems);
  if (top.has("relations")) loading::read_relations(top.raw("relations"), study, problems);
  if (top.has("design_variables")) {
    loading::read_design(top.raw("design_variables"), study, default_move, problems);
  } else if (!model) {
    problems.add("design_variables", "missing");
  }
  if (top.has("auxiliary_variables"))
    loading::read_auxiliaries(top.raw("auxiliary_variables"), study, problems);
  if (top.has("load_cases")) {
    loading::read_load_cases(top.raw("load_cases"), study, problems);
  } else {
    problems.add("load_cases", "missing");
  }
  if (top.has("responses")) loading::read_responses(top.raw("responses"), study, problems);
  loading::check_names(study, problems);
  for (size_t i = 0; i < study.responses.size(); ++i) {
    if (!study.responses[i].history) continue;
    for (size_t c = 0; c < study.load_cases.size(); ++c) {
      if (study.load_cases[c].grid.points < 2) {
        problems.add(loading::indexed("load_cases", c) + ".time",
                     "missing: response \"" + study.responses[i].name + "\" is a history");
      }
    }
  }
  loading::build_symbols(study);
  loading::bind_derived(study, problems);
  if (top.has("objective") && top.has("objectives")) {
    problems.add("objectives",
                 "give \"objective\" (one) or \"objectives\" (two or more), not both");
  } else if (top.has("objective")) {
    loading::read_objective(top.raw("objective"), study, problems);
  } else if (top.has("objectives")) {
    loading::read_objectives(top.raw("objectives"), study, problems);
  } else if (!model) {
    problems.add("objective", "missing (or \"objectives\": two or more)");
  }
  if (top.has("constraints")) loading::read_constraints(top.raw("constraints"), study, problems);
  if (top.has("starts")) loading::read_starts(top.raw("starts"), study, problems);
  if (top.has("doe")) loading::read_doe(top.raw("doe"), study, problems);
  if (top.has("random_variables")) {
    const nlohmann::json* correlations =
        top.has("correlations") ? &top.raw("correlations") : nullptr;
    loading::read_random(top.raw("random_variables"), correlations, study, problems);
  } else if (top.has("correlations")) {
    problems.add("correlations", "needs a \"random_variables\" section (docs/robustness.md)");
  }
  std::set<std::string> reliability_paths;  // one problem per constraint entry, not per part
  for (const Constraint& c : study.constraints) {
    if (c.reliability.k > 0 && !top.has("random_variables") &&
        reliability_paths.insert(c.path).second) {
      problems.add(c.path + ".reliability",
                   "needs a \"random_variables\" section: the variation it is held against "
                   "(docs/robustness.md)");
    }
  }
  if (top.has("simulator") && loading::expect_object(top.raw("simulator"), "simulator", problems)) {
    study.simulator = top.raw("simulator");
  } else if (!top.has("simulator")) {
    problems.add("simulator", "missing");
  }
  top.finish();

  for (const std::string& rule : study.options.validate()) problems.add("", rule);
  // A global model lives on a box: the metamodel strategy needs both bounds of every variable.
  if (study.options.strategy == Strategy::kMetamodel) {
    for (size_t i = 0; i < study.design.size(); ++i) {
      const DesignVariable& v = study.design[i];
      if (std::isfinite(v.lower) && std::isfinite(v.upper)) continue;
      problems.add("design_variables[" + std::to_string(i) + "]",
                   "\"" + v.name +
                       "\" needs finite lower and upper bounds with "
                       "\"strategy\": \"metamodel\" (its models are fitted on the bounds' box)");
    }
  }
  if (!problems.empty()) throw StudyError(source, problems.list());
  return study;
}

}  // namespace

LoadedStudy load_study(const nlohmann::json& document, const std::string& source) {
  return load(document, source, false);
}

LoadedStudy load_model(const nlohmann::json& document, const std::string& source) {
  return load(document, source, true);
}

namespace {

[[noreturn]] void refuse_several(const std::string& source, const std::string& names) {
  throw StudyError(
      source,
      {"objectives: the study has several objectives (" + names +
       "); this command optimises one. Use `sao pareto " + source +
       "` for the Pareto front (docs/pareto.md), or keep one objective as \"objective\", make "
       "the others constraints and vary their bound with `sao sweep` (the epsilon-constraint "
       "compromise curve, docs/sweep.md)"});
}

}  // namespace

void require_single_objective(const Study& study, const std::string& source) {
  if (!study.multi_objective()) return;
  std::string names;
  for (const Objective& o : study.objectives) names += (names.empty() ? "" : ", ") + o.name;
  refuse_several(source, names);
}

void require_single_objective(const nlohmann::json& document, const std::string& source) {
  if (!document.is_object() || !document.contains("objectives")) return;
  std::string names;
  const nlohmann::json& list = document["objectives"];
  if (list.is_array()) {
    for (const auto& o : list) {
      const std::string name =
          o.is_object() && o.contains("name") && o["name"].is_string() ? o["name"] : "?";
      names += (names.empty() ? "" : ", ") + name;
    }
  }
  refuse_several(source, names);
}

nlohmann::json read_study_document(const std::string& path,
                                   const std::vector<std::string>& overrides) {
  nlohmann::json document = read_study_document(path);
  for (const std::string& assignment : overrides) apply_override(document, assignment);
  return document;
}

nlohmann::json read_study_document(const std::string& path) {
  std::error_code error;
  const auto bytes = std::filesystem::file_size(path, error);
  if (!error && bytes > loading::kMaxFileBytes) {
    throw StudyError(path,
                     {"a file of " + std::to_string(bytes) + " bytes, more than the " +
                      std::to_string(loading::kMaxFileBytes >> 20) + " MiB a study file may have"});
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw StudyError(path, {"cannot open the file"});
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  try {
    return parse_json_text(text);
  } catch (const JsonTextError& e) {  // with its line, column and JSON path
    throw StudyError(path, {e.what()});
  }
}

LoadedStudy load_study_file(const std::string& path) {
  return load_study(read_study_document(path), path);
}

namespace {

std::string element_names(const nlohmann::json& array) {
  std::string names;
  for (size_t i = 0; i < array.size(); ++i) {
    const nlohmann::json& e = array[i];
    const bool named = e.is_object() && e.contains("name") && e["name"].is_string();
    names += (i ? ", " : "") + std::to_string(i) +
             (named ? " \"" + e["name"].get<std::string>() + "\"" : std::string());
  }
  return names.empty() ? "none" : names;
}

}  // namespace

std::vector<std::string> resolve_study_path(const nlohmann::json& document,
                                            const std::string& dotted, const std::string& source) {
  std::vector<std::string> parts;
  std::stringstream path(dotted);
  for (std::string part; std::getline(path, part, '.');) parts.push_back(part);
  if (parts.empty() || dotted.back() == '.') {
    throw StudyError(source, {"\"" + dotted + "\": expected path.to.key"});
  }
  const nlohmann::json* node = &document;
  std::string walked;
  for (std::string& part : parts) {
    const std::string where = walked.empty() ? "the study" : "\"" + walked + "\"";
    if (part.empty()) throw StudyError(source, {"\"" + dotted + "\": an empty name in the path"});
    if (node == nullptr || node->is_null()) {
      node = nullptr;  // below a key the override adds: nothing to resolve
    } else if (node->is_array()) {
      const bool digits = part.find_first_not_of("0123456789") == std::string::npos;
      size_t index = node->size();
      if (digits && part.size() < 10) {
        index = std::stoul(part);
      } else {
        for (size_t i = 0; i < node->size(); ++i) {
          const nlohmann::json& e = (*node)[i];
          if (e.is_object() && e.contains("name") && e["name"] == part) index = i;
        }
      }
      if (index >= node->size()) {
        throw StudyError(source, {"\"" + dotted + "\": " + where + " has no element " +
                                  (digits ? "at index " : "named ") + "\"" + part +
                                  "\" (its elements: " + element_names(*node) + ")"});
      }
      part = std::to_string(index);
      node = &(*node)[index];
    } else if (node->is_object()) {
      auto it = node->find(part);
      node = it == node->end() ? nullptr : &*it;
    } else {
      throw StudyError(source, {"\"" + dotted + "\": " + where + " is a " + node->type_name() +
                                ", not an object or a list"});
    }
    walked += (walked.empty() ? "" : ".") + part;
  }
  return parts;
}

namespace {

// The named list element a resolved path's key belongs to ("constraints.0.upper": constraints[0]),
// or null (a path of another shape, an element that is not an object).
const nlohmann::json* path_element(const nlohmann::json& document,
                                   const std::vector<std::string>& path) {
  if (path.size() != 3 || !document.contains(path[0]) || !document[path[0]].is_array())
    return nullptr;
  const nlohmann::json& element = document[path[0]][std::stoul(path[1])];
  return element.is_object() ? &element : nullptr;
}

// A string entry of the element, "" when it has none.
std::string element_text(const nlohmann::json& element, const char* key) {
  return element.contains(key) && element[key].is_string() ? element[key].get<std::string>()
                                                           : std::string();
}

// The element's "unit" and "label" (Annotation, as the loader reads them).
Annotation element_note(const nlohmann::json& element) {
  return {element_text(element, "unit"), element_text(element, "label")};
}

}  // namespace

std::string study_path_title(const nlohmann::json& document, const std::string& dotted) {
  const std::vector<std::string> path = resolve_study_path(document, dotted, "--vary");
  const nlohmann::json* element = path_element(document, path);
  if (!element) return dotted;
  const std::string given = element_text(*element, "name");
  const std::string name = given.empty() ? path[0] + "[" + path[1] + "]" : given;
  return element_note(*element).title(name) + ": " + path[2] + " (" + dotted + ")";
}

std::string study_path_unit(const nlohmann::json& document, const std::string& dotted) {
  const std::vector<std::string> path = resolve_study_path(document, dotted, "--vary");
  const nlohmann::json* element = path_element(document, path);
  if (!element) return "";
  static const std::map<std::string, std::set<std::string>> kInUnit = {
      {"design_variables", {"lower", "upper", "initial", "size"}},
      {"constraints", {"lower", "upper", "equals", "scale"}}};
  const auto keys = kInUnit.find(path[0]);
  if (keys == kInUnit.end() || keys->second.count(path[2]) == 0) return "";
  return element_note(*element).unit;
}

void apply_override(nlohmann::json& document, const std::string& assignment,
                    const std::string& source) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw StudyError(source, {"\"" + assignment + "\": expected path.to.key=value"});
  }
  nlohmann::json::json_pointer pointer;
  for (const std::string& part : resolve_study_path(document, assignment.substr(0, eq), source)) {
    pointer /= part;
  }
  const std::string text = assignment.substr(eq + 1);
  nlohmann::json value = nlohmann::json::parse(text, nullptr, false);
  if (value.is_discarded()) value = text;
  try {
    document[pointer] = value;
  } catch (const nlohmann::json::exception& e) {  // e.g. a key below a number
    throw StudyError(
        source, {"\"" + assignment + "\": cannot set that entry (" + json_error_text(e) + ")"});
  }
}

void use_start(Study& study, int k) {
  if (k < 1 || k > static_cast<int>(study.starts.size())) {
    throw StudyError(study.file, {"--start " + std::to_string(k) + ": the study has " +
                                  std::to_string(study.starts.size()) + " start(s) in \"starts\""});
  }
  for (const auto& [name, value] : study.starts[k - 1]) {
    for (auto& d : study.design) {
      if (d.name == name) d.initial = value;
    }
    for (auto& a : study.auxiliaries) {
      if (a.name == name) a.initial = value;
    }
  }
}

void check_against_simulator(const Study& study, const Simulator& simulator) {
  std::map<std::string, bool> offered;
  std::vector<std::string> names;
  for (const auto& info : simulator.responses()) {
    offered[info.name] = info.history;
    names.push_back(info.name + (info.history ? " (history)" : " (scalar)"));
  }
  std::vector<std::string> problems;
  for (size_t i = 0; i < study.responses.size(); ++i) {
    const ResponseDef& d = study.responses[i];
    auto it = offered.find(d.source);
    const std::string path = loading::indexed("responses", i);
    if (it == offered.end()) {
      problems.push_back(path + ".source: the simulator has no response \"" + d.source +
                         "\" (it offers: " + joined(names, ", ") + ")");
    } else if (it->second != d.history) {
      problems.push_back(path + ".kind: \"" + d.source + "\" is a " +
                         (it->second ? "history" : "scalar") + " in the simulator");
    }
  }
  if (!problems.empty()) throw StudyError(study.file, problems);
}

}  // namespace sao
