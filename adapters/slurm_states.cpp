#include "adapters/slurm_states.hpp"

#include <array>
#include <cctype>
#include <sstream>

namespace sao::adapters {
namespace {

// The job state codes of squeue(1) and sacct(1): long name and compact code.
struct StateCode {
  const char* name;
  const char* code;
  bool ended;
  const char* description;  // of an ended state that did not run the program to its end
};
constexpr std::array<StateCode, 24> kStates = {{
    {"BOOT_FAIL", "BF", true, "its node failed to boot"},
    {"CANCELLED", "CA", true, "cancelled with scancel, by its user or an administrator"},
    {"COMPLETED", "CD", true, ""},
    {"CONFIGURING", "CF", false, ""},
    {"COMPLETING", "CG", false, ""},
    {"DEADLINE", "DL", true, "not run: past its deadline"},
    {"FAILED", "F", true, ""},
    {"NODE_FAIL", "NF", true, "its node failed"},
    {"OUT_OF_MEMORY", "OOM", true, "ran out of memory"},
    {"PENDING", "PD", false, ""},
    {"PREEMPTED", "PR", true, "preempted: ended to make room for another job"},
    {"RUNNING", "R", false, ""},
    {"RESV_DEL_HOLD", "RD", false, ""},
    {"REQUEUE_FED", "RF", false, ""},
    {"REQUEUE_HOLD", "RH", false, ""},
    {"REQUEUED", "RQ", false, ""},
    {"RESIZING", "RS", false, ""},
    {"REVOKED", "RV", true, "revoked: run by another cluster of the federation"},
    {"SIGNALING", "SI", false, ""},
    {"SPECIAL_EXIT", "SE", true, "held by SLURM for its exit status"},
    {"STAGE_OUT", "SO", false, ""},
    {"STOPPED", "ST", false, ""},
    {"SUSPENDED", "S", false, ""},
    {"TIMEOUT", "TO", true, "it reached its SLURM time limit (--time)"},
}};

const StateCode* find_state(const std::string& name) {
  for (const StateCode& s : kStates) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

std::string trimmed(const std::string& text) {
  size_t a = 0, b = text.size();
  while (a < b && std::isspace(static_cast<unsigned char>(text[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(text[b - 1]))) --b;
  return text.substr(a, b - a);
}

bool all_digits(const std::string& text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// The fields of a line split at '|'.
std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string field; std::getline(in, field, '|');) out.push_back(trimmed(field));
  return out;
}

// "0-4%2", "1,3,5-7": the task numbers, {} when the text is not such a list or names more
// than kMaxTasks (no job array of sao has that many).
std::vector<long> task_numbers(std::string list) {
  constexpr long kMaxTasks = 1000000;
  list = list.substr(0, list.find('%'));  // the limit of tasks running at once
  std::vector<long> out;
  std::istringstream in(list);
  for (std::string part; std::getline(in, part, ',');) {
    const size_t dash = part.find('-');
    const std::string first = part.substr(0, dash);
    const std::string last = dash == std::string::npos ? first : part.substr(dash + 1);
    if (!all_digits(first) || !all_digits(last) || first.size() > 9 || last.size() > 9) return {};
    const long a = std::stol(first), b = std::stol(last);
    if (b < a || b - a + static_cast<long>(out.size()) >= kMaxTasks) return {};
    for (long t = a; t <= b; ++t) out.push_back(t);
  }
  return out;
}

}  // namespace

std::string slurm_state_name(const std::string& field) {
  std::string state = trimmed(field);
  state = state.substr(0, state.find(' '));  // "CANCELLED by 1000"
  if (!state.empty() && state.back() == '+') {
    // A name cut to its column ("CANCELLED+", "OUT_OF_ME+"): the known state it begins, when
    // there is exactly one.
    state.pop_back();
    const StateCode* match = nullptr;
    int matches = 0;
    for (const StateCode& s : kStates) {
      if (std::string(s.name).rfind(state, 0) == 0) {
        match = &s;
        ++matches;
      }
    }
    if (matches == 1) return match->name;
    return state;
  }
  if (find_state(state)) return state;
  for (const StateCode& s : kStates) {
    if (state == s.code) return s.name;  // squeue's compact codes (%t)
  }
  return state;
}

bool slurm_state_ended(const std::string& state) {
  const StateCode* s = find_state(state);
  return s && s->ended;
}

std::string slurm_state_description(const std::string& state) {
  const StateCode* s = find_state(state);
  return s && s->ended ? s->description : "";
}

std::vector<std::string> slurm_task_ids(const std::string& field) {
  const std::string id = trimmed(field);
  if (id.find('.') != std::string::npos) return {};  // a job step: 123_4.batch, 123.0
  const size_t bar = id.find('_');
  const std::string job = id.substr(0, bar);
  if (!all_digits(job)) return {};
  if (bar == std::string::npos) return {id};
  const std::string task = id.substr(bar + 1);
  if (all_digits(task)) return {id};
  if (task.size() < 2 || task.front() != '[' || task.back() != ']') return {};
  std::vector<std::string> out;
  for (long t : task_numbers(task.substr(1, task.size() - 2))) {
    out.push_back(job + "_" + std::to_string(t));
  }
  return out;
}

std::map<std::string, std::pair<std::string, std::string>> parse_squeue_lines(
    const std::string& text) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const std::vector<std::string> f = fields_of(line);
    if (f.size() < 3) continue;
    for (const std::string& id : slurm_task_ids(f[0])) {
      out[id] = {slurm_state_name(f[1]), f[2]};
    }
  }
  return out;
}

std::map<std::string, std::string> parse_sacct_lines(const std::string& text) {
  std::map<std::string, std::string> tasks, arrays;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const std::vector<std::string> f = fields_of(line);
    if (f.size() < 2) continue;
    const std::vector<std::string> ids = slurm_task_ids(f[0]);
    const bool range = f[0].find('[') != std::string::npos;
    for (const std::string& id : ids) (range ? arrays : tasks)[id] = slurm_state_name(f[1]);
  }
  for (const auto& [id, state] : arrays) tasks.emplace(id, state);  // a task's own line first
  return tasks;
}

}  // namespace sao::adapters
