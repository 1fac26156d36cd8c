// The sections of a study file, each read by one function of the study loader (internal to
// sao/study); load_study() in study_loader.cpp reads them in order.
//
// Settings and variables: load_settings_variables.cpp; load cases, responses and the names
// relations may use: load_cases_responses.cpp; objective and constraints: load_criteria.cpp.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "sao/expr/expression.hpp"
#include "sao/seam/json_reader.hpp"
#include "sao/seam/time_grid.hpp"
#include "sao/study/study.hpp"

namespace sao::loading {

// Limits of a study file (docs/study-format.md, "Limits"): far beyond real studies, so that a
// malformed or hostile file gets a message instead of exhausting the stack or the memory.
constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{64} << 20;  // of a study file
using sao::kMaxGridPoints;  // points of one load case's time grid (time_grid.hpp)

// --- helpers shared by the sections (study_loader.cpp) ---

// A number as printed in messages (shortest of the stream's default format).
std::string number_text(double v);
// Record a problem at `path` unless `v` is an object (an array).
bool expect_object(const nlohmann::json& v, const std::string& path, Problems& problems);
bool expect_array(const nlohmann::json& v, const std::string& path, Problems& problems);
// "path[i]"
std::string indexed(const std::string& path, size_t i);

// Calls each(entry, path, index) for every object of the array `node` found at `key`;
// reports the array or an entry that is not what it should be.
template <typename Each>
void for_each_object(const nlohmann::json& node, const std::string& key, Problems& problems,
                     Each each) {
  if (!expect_array(node, key, problems)) return;
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string path = indexed(key, i);
    if (expect_object(node[i], path, problems)) each(node[i], path, i);
  }
}

// Parses and binds an expression, reporting a syntax or name error at `path` (or at the
// relation it came from). Returns null on error.
expr::ProgramPtr compile(const expr::AstPtr& ast, const expr::Symbols& symbols, int load_case,
                         const std::string& path, Problems& problems);
expr::AstPtr parse_at(const std::string& text, const std::string& path, Problems& problems);

// The optional free-text keys "unit" and "label" of `r` (a variable, response, relation,
// constraint or the objective); a value that is not a string is a problem at its path.
Annotation read_annotation(JsonReader& r);

// --- settings and variables (load_settings_variables.cpp) ---

void read_settings(const nlohmann::json& node, Options& options, double& default_move,
                   Problems& problems);
void read_design(const nlohmann::json& node, Study& study, double default_move, Problems& problems);
void read_auxiliaries(const nlohmann::json& node, Study& study, Problems& problems);
void read_starts(const nlohmann::json& node, Study& study, Problems& problems);
// The optional key "form" of `r` (settings, or one response): "linear" | "conservative" |
// "quadratic" | "quasi_newton"; a wrong value is a problem at its path and gives nothing.
std::optional<ApproximationForm> read_form(JsonReader& r);

// --- load cases, responses, names for relations (load_cases_responses.cpp) ---

void read_load_cases(const nlohmann::json& node, Study& study, Problems& problems);
void read_responses(const nlohmann::json& node, Study& study, Problems& problems);
void read_constants(const nlohmann::json& node, Study& study, Problems& problems);
void read_data(const nlohmann::json& node, Study& study, Problems& problems);
void read_relations(const nlohmann::json& node, Study& study, Problems& problems);
// Every name used once, and usable in expressions; load case names unique.
void check_names(const Study& study, Problems& problems);
// What names mean in the study's expressions (symbols.relations is filled by read_relations).
void build_symbols(Study& study);
// Derived responses: explicit relations of simulator responses and design variables, one
// program per load case, with the shape their "kind" declares.
void bind_derived(Study& study, Problems& problems);

// --- criteria (load_criteria.cpp) ---

void read_objective(const nlohmann::json& node, Study& study, Problems& problems);
// "objectives": two or more objective objects, each named, names unique (study.objectives;
// study.objective is the first).
void read_objectives(const nlohmann::json& node, Study& study, Problems& problems);
void read_constraints(const nlohmann::json& node, Study& study, Problems& problems);

// --- designs of experiments (load_doe.cpp) ---

// The "doe" section, resolved against the design variables (read after them).
void read_doe(const nlohmann::json& node, LoadedStudy& study, Problems& problems);
// The "random_variables" section and the "correlations" that go with it (null when absent;
// load_random.cpp, docs/robustness.md).
void read_random(const nlohmann::json& variables, const nlohmann::json* correlations,
                 LoadedStudy& study, Problems& problems);

}  // namespace sao::loading
