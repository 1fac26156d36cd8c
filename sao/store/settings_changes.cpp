#include "sao/store/settings_changes.hpp"

#include <algorithm>
#include <cmath>

#include "sao/seam/number_text.hpp"
#include "sao/study/study_loader.hpp"

namespace sao::settings_changes {
namespace {

// `value` kept inside the numeric bounds of the design variable `v` (a JSON entry).
double inside_bounds(const nlohmann::json& v, double value) {
  if (v.contains("lower") && v["lower"].is_number())
    value = std::max(value, v["lower"].get<double>());
  if (v.contains("upper") && v["upper"].is_number())
    value = std::min(value, v["upper"].get<double>());
  return value;
}

void apply_bound(nlohmann::json& document, const std::string& key, const std::string& value) {
  apply_override(document, key + "=" + value, "sao set");
  const std::vector<std::string> parts = resolve_study_path(document, key, "sao set");
  nlohmann::json& v = document["design_variables"][std::stoul(parts[1])];
  if (v.contains("initial") && v["initial"].is_number()) {
    v["initial"] = inside_bounds(v, v["initial"].get<double>());
  }
  if (!v.contains("name") || !v["name"].is_string() || !document.contains("starts") ||
      !document["starts"].is_array()) {
    return;
  }
  const std::string name = v["name"].get<std::string>();
  for (nlohmann::json& start : document["starts"]) {
    if (start.is_object() && start.contains(name) && start[name].is_number()) {
      start[name] = inside_bounds(v, start[name].get<double>());
    }
  }
}

// Checks a bound assignment on `document` (applied there when valid) and adds it to
// `normalised` (the variable named, not indexed), or a problem.
void check_bound(nlohmann::json& document, const Assignment& a, std::vector<std::string>& problems,
                 std::vector<std::string>& normalised) {
  try {
    const std::vector<std::string> parts = resolve_study_path(document, a.key, "sao set");
    if (parts.size() != 3 || (parts[2] != "lower" && parts[2] != "upper")) {
      problems.push_back(a.key +
                         ": only a design variable's bounds can be set between cycles "
                         "(design_variables.NAME.lower or .upper); move limits are "
                         "move_limit.NAME=m");
      return;
    }
    const double value = number_or_nan(a.value);
    if (!std::isfinite(value)) {
      problems.push_back(a.key + ": expected a finite number, got " + a.value);
      return;
    }
    const nlohmann::json& variable = document["design_variables"][std::stoi(parts[1])];
    const std::string name = variable.value("name", parts[1]);
    const std::string key = "design_variables." + name + "." + parts[2];
    apply_bound(document, key, a.value);
    normalised.push_back(key + "=" + a.value);
  } catch (const StudyError& e) {
    problems.insert(problems.end(), e.problems().begin(), e.problems().end());
  }
}

// Checks a constraint bound assignment (constraints.NAME.lower / .upper / .equals) on
// `document` (applied there when valid): only a bound the constraint already has as a number
// changes between cycles; adding or removing one, or a bound that is an auxiliary variable,
// changes the problem's constraints (a reformulation: `sao restart --study`).
void check_constraint_bound(nlohmann::json& document, const Assignment& a,
                            const ActionNames& actions, std::vector<std::string>& problems,
                            std::vector<std::string>& normalised) {
  try {
    const std::vector<std::string> parts = resolve_study_path(document, a.key, "sao set");
    const bool side =
        parts.size() == 3 && (parts[2] == "lower" || parts[2] == "upper" || parts[2] == "equals");
    const nlohmann::json& entry = document["constraints"][std::stoul(parts[1])];
    if (!side || !entry.contains(parts[2]) || !entry[parts[2]].is_number()) {
      problems.push_back(a.key +
                         ": only a bound the constraint has as a number can be set between "
                         "cycles (constraints.NAME.lower, .upper or .equals); adding or removing "
                         "a bound, or one given by an auxiliary variable, is a reformulation "
                         "(" +
                         actions.restart_advice("K", "FILE") + ")");
      return;
    }
    const double value = number_or_nan(a.value);
    if (!std::isfinite(value)) {
      problems.push_back(a.key + ": expected a finite number, got " + a.value);
      return;
    }
    const std::string key = "constraints." + entry.value("name", parts[1]) + "." + parts[2];
    apply_override(document, key + "=" + a.value, "sao set");
    normalised.push_back(key + "=" + a.value);
  } catch (const StudyError& e) {
    problems.insert(problems.end(), e.problems().begin(), e.problems().end());
  }
}

// settings.KEY=null: the key leaves the study's settings, so that its default (or the default
// that follows from other keys) applies again.
bool is_removal(const Assignment& a) {
  return a.value == "null";
}

void remove_setting(nlohmann::json& document, const std::string& key) {
  if (document.contains("settings") && document["settings"].is_object()) {
    document["settings"].erase(key);
  }
}

}  // namespace

Assignment split(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw StudyError("sao set", {"\"" + text + "\": expected key=value"});
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

bool is_move_limit(const std::string& key) {
  return key == "move_limit" || key.rfind("move_limit.", 0) == 0;
}

bool is_start(const std::string& key) {
  return key.rfind("start.", 0) == 0;
}

bool edits_document(const std::string& key) {
  return !is_move_limit(key) && !is_start(key);
}

std::string settings_key(const std::string& key) {
  return key.rfind("settings.", 0) == 0 ? key.substr(9) : key;
}

bool is_bound(const std::string& key) {
  return key.rfind("design_variables.", 0) == 0;
}

bool is_constraint_bound(const std::string& key) {
  return key.rfind("constraints.", 0) == 0;
}

void apply_to(nlohmann::json& document, const Assignment& a) {
  if (is_bound(a.key)) {
    apply_bound(document, a.key, a.value);
  } else if (is_constraint_bound(a.key)) {
    apply_override(document, a.key + "=" + a.value, "sao set");
  } else if (is_removal(a)) {
    remove_setting(document, settings_key(a.key));
  } else {
    apply_override(document, "settings." + settings_key(a.key) + "=" + a.value, "sao set");
  }
}

void check_assignment(nlohmann::json& document, const Study& study, const std::string& text,
                      const ActionNames& actions, std::vector<std::string>& problems,
                      std::vector<std::string>& normalised) {
  Assignment a;
  try {
    a = split(text);
  } catch (const StudyError& e) {
    problems.insert(problems.end(), e.problems().begin(), e.problems().end());
    return;
  }
  if (is_move_limit(a.key)) {
    const std::string name = a.key == "move_limit" ? "" : a.key.substr(11);
    bool known = a.key == "move_limit";  // all of them; "move_limit." names none
    for (const DesignVariable& v : study.design) known = known || v.name == name;
    const double value = number_or_nan(a.value);
    if (!known) {
      problems.push_back(a.key + ": unknown design variable \"" + name + "\"");
    } else if (std::isnan(value)) {
      problems.push_back(a.key + ": expected a number, got " + a.value);
    } else if (!valid_move_factor(value)) {
      problems.push_back(a.key + ": " + move_factor_rule(value));
    } else {
      normalised.push_back(a.key + "=" + a.value);
    }
    return;
  }
  if (is_bound(a.key)) {
    check_bound(document, a, problems, normalised);
    return;
  }
  if (is_constraint_bound(a.key)) {
    check_constraint_bound(document, a, actions, problems, normalised);
    return;
  }
  const std::string key = settings_key(a.key);
  if (is_removal(a)) {
    if (!document.contains("settings") || !document["settings"].contains(key)) {
      problems.push_back("settings." + key +
                         ": not in the study's settings, so there is nothing to remove (KEY=null "
                         "removes a key, so that its default applies)");
    } else {
      remove_setting(document, key);
      normalised.push_back(key + "=null");
    }
    return;
  }
  try {
    apply_override(document, "settings." + key + "=" + a.value);
    normalised.push_back(key + "=" + a.value);
  } catch (const StudyError& e) {
    problems.insert(problems.end(), e.problems().begin(), e.problems().end());
  }
}

}  // namespace sao::settings_changes
