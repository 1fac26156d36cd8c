// The changes `sao set` stores for the next cycle of a branch (StudySession::set, the service's
// PATCH, Python's Session.set), as "key=value" assignments: a setting (a key of the study file's
// "settings"; KEY=null removes it, so that its default applies), a design variable's bound
// (design_variables.NAME.lower / .upper), a constraint's numeric bound (constraints.NAME.lower,
// .upper or .equals), a move-limit factor (move_limit=m for all, move_limit.NAME=m), or where a
// restarted branch starts (start.NAME=v, written by `sao restart --from-reported`). A setting or
// a bound edits the study document, which the loader then reads as it reads a study file (one
// reader, one validation, the same dependent defaults); a factor goes to the driver directly.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sao/store/action_names.hpp"
#include "sao/study/study.hpp"

namespace sao::settings_changes {

struct Assignment {
  std::string key;
  std::string value;
};

// "key=value" split at the first '='; StudyError ("sao set") when there is none or no key.
Assignment split(const std::string& text);
bool is_move_limit(const std::string& key);
// start.NAME=v: where a branch restarted with `sao restart --from-reported` starts (the design
// its parent reported), stored for the branch's first cycle; not a setting of the study.
bool is_start(const std::string& key);
// A change that edits the study document (a setting or a bound), not the driver's state.
bool edits_document(const std::string& key);
// design_variables.NAME.lower / .upper (NAME a name or an index): a bound set between cycles.
bool is_bound(const std::string& key);
// constraints.NAME.lower / .upper / .equals: a constraint's numeric bound set between cycles.
bool is_constraint_bound(const std::string& key);
// The settings key of an assignment ("settings.noise" and "noise" are the same).
std::string settings_key(const std::string& key);

// A stored change (a setting or a bound) applied to a study document. A bound keeps the
// variable's "initial" and its value in every alternative start inside the new bounds (only the
// first cycle reads them, and only the start the run was opened with), so that the document
// still loads; whether the design the next cycle starts from lies inside is the caller's check.
void apply_to(nlohmann::json& document, const Assignment& a);

// Checks one assignment `text` of `sao set` against `study` (the current branch's problem) and
// `document` (the study document as the next cycle will see it, edited here when the
// assignment is valid): adds its normal form ("design_variables.NAME.upper=v", "noise=2", ...)
// to `normalised`, or what is wrong to `problems`. The whole document is validated by the
// loader afterwards.
// `actions` names the restart its advice points to.
void check_assignment(nlohmann::json& document, const Study& study, const std::string& text,
                      const ActionNames& actions, std::vector<std::string>& problems,
                      std::vector<std::string>& normalised);

}  // namespace sao::settings_changes
