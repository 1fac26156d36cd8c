#include "adapters/external_config.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <utility>

#include "adapters/process.hpp"
#include "sao/seam/difference_batch.hpp"
#include "sao/seam/json_reader.hpp"

namespace sao::adapters {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The largest count (retries) the section accepts.
constexpr long kMaxCount = 100000;

// The items of an object; none for anything else.
auto object_items(const json& v) {
  static const json empty = json::object();
  return (v.is_object() ? v : empty).items();
}

std::string indexed(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

// A file name inside the run directory: relative, no "..", no leading '-', printable.
// "" after recording a problem.
std::string target_name(const json& v, const std::string& path, Problems& problems) {
  if (!v.is_string() || v.get<std::string>().empty()) {
    problems.add(path, "expected a file name, got " + json_excerpt(v));
    return {};
  }
  const std::string name = v.get<std::string>();
  const fs::path p(name);
  const bool escapes = p.is_absolute() || std::any_of(p.begin(), p.end(), [](const fs::path& part) {
                         return part == ".." || part == ".";
                       });
  const bool odd = std::any_of(name.begin(), name.end(), [](char c) {
    return static_cast<unsigned char>(c) < 32 || c == '\\';
  });
  if (escapes || odd || name[0] == '-') {
    problems.add(path,
                 "expected a relative path inside the run directory (no \"..\", no absolute "
                 "path), got \"" +
                     name + "\"");
    return {};
  }
  return name;
}

// The identifiers in an expression's text (what it may refer to).
std::set<std::string> names_in(const std::string& text) {
  std::set<std::string> out;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (std::isalpha(c) || c == '_') {
      size_t j = i;
      while (j < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) {
        ++j;
      }
      out.insert(text.substr(i, j - i));
      i = j;
    } else if (std::isdigit(c) || c == '.') {  // a number, exponent included
      ++i;
      while (i < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '.')) {
        ++i;
      }
    } else {
      ++i;
    }
  }
  return out;
}

// Reads the section into a config, one part after the other. A part that depends on another
// (placeholders on the names, templates on the delimiters) is checked only when that one had
// no problem, so that every problem reported is a real one.
class SectionReader {
 public:
  SectionReader(const SimulatorSetup& setup, ExternalConfig& config, Problems& problems)
      : config_(config),
        problems_(problems),
        section_(setup.section, "simulator", problems),
        base_(setup.study_directory.empty() ? fs::current_path()
                                            : fs::path(setup.study_directory)) {}

  void read(bool is_object) {
    if (!is_object) return;  // the reader has said so; nothing else is worth reporting
    section_.known({"type",
                    "command",
                    "shell",
                    "environment",
                    "inherit_environment",
                    "environment_allowlist",
                    "timeout",
                    "workers",
                    "run_directory",
                    "allow_outside_run_directory",
                    "allow_outside_input_files",
                    "keep",
                    "exit_codes",
                    "delimiters",
                    "constants",
                    "values",
                    "templates",
                    "support_files",
                    "responses",
                    "gradients",
                    "executor"});
    outside_files_ok_ = section_.boolean("allow_outside_input_files").value_or(false);
    read_command();
    read_environment();
    read_run_settings();
    read_gradients();
    read_names();
    bind_values();
    read_templates();
    if (names_ok_ && templates_ok_) check_use();
    read_support_files();
    read_responses();
    section_.finish();
  }

 private:
  void read_command();
  void read_environment();
  void read_run_settings();
  void read_gradients();
  void read_names();
  void bind_values();
  void read_templates();
  bool read_template(const json& entry, const std::string& path, std::set<std::string>& targets);
  void resolve_placeholders(TemplateFile& file, const std::string& path);
  void check_use();
  void read_support_files();
  void read_responses();
  // Whether an input file (template, support file) at `path` may be read: inside the study's
  // folder (symbolic links resolved), or anywhere with "allow_outside_input_files".
  bool input_file_allowed(const fs::path& file, const std::string& path);
  // Records that `path` writes `target`; a problem when something else writes it already.
  // `shared` targets (templates of other load cases) may repeat among themselves.
  void claim_target(const std::string& target, const std::string& path, bool shared);
  // The same problem found in several load cases is reported once.
  void add_once(const std::string& path, const std::string& what) {
    const std::string problem = path + ": " + what;
    const auto& list = problems_.list();
    if (std::find(list.begin(), list.end(), problem) == list.end()) problems_.add(path, what);
  }

  ExternalConfig& config_;
  Problems& problems_;
  JsonReader section_;
  fs::path base_;
  std::vector<std::string> value_names_;                         // "values", in order
  std::map<std::string, std::string> value_texts_;               // name -> expression
  std::vector<std::pair<std::string, expr::AstPtr>> relations_;  // parsed "values"
  std::set<std::string> used_;  // names that some template's placeholder uses
  // Files written into a run directory before the code runs: target -> who writes it.
  std::map<std::string, std::string> writers_ = {{kStdoutFile, "the code's stdout"},
                                                 {kStderrFile, "the code's stderr"}};
  bool outside_files_ok_ = false;  // "allow_outside_input_files"
  bool delimiters_ok_ = true;
  bool names_ok_ = true;
  bool templates_ok_ = true;
};

// The program and its arguments (a list), or one command line for /bin/sh with "shell".
void SectionReader::read_command() {
  ExternalSettings& st = config_.settings;
  const bool shell_given = section_.has("shell");
  const std::optional<bool> shell = section_.boolean("shell");
  st.shell = shell.value_or(false);
  const std::string path = section_.at("command");
  if (!section_.has("command")) {
    problems_.add(path, "missing: the program and its arguments");
    return;
  }
  const json& command = section_.raw("command");
  if (shell_given && !shell) return;  // how to read it is unknown
  if (st.shell) {
    if (!command.is_string() || command.get<std::string>().empty()) {
      problems_.add(path, "with \"shell\": true, expected one command line (a string)");
      return;
    }
    st.program = "/bin/sh";
    st.arguments = {"-c", command.get<std::string>()};
    return;
  }
  if (!command.is_array() || command.empty()) {
    problems_.add(path,
                  "expected a list [program, arguments...] (no shell is used; set \"shell\": "
                  "true to run a command line), got " +
                      json_excerpt(command));
    return;
  }
  bool program_named = true;
  for (size_t i = 0; i < command.size(); ++i) {
    if (!command[i].is_string() || (i == 0 && command[i].get<std::string>().empty())) {
      problems_.add(indexed(path, i), "expected a string, got " + json_excerpt(command[i]));
      if (i == 0) program_named = false;
    } else if (i > 0) {
      st.arguments.push_back(command[i].get<std::string>());
    }
  }
  if (!program_named) return;
  const std::string program = command[0].get<std::string>();
  st.program = find_program(program, base_);
  if (st.program.empty()) {
    problems_.add(indexed(path, 0),
                  "no executable \"" + program + "\" (" +
                      (program.find('/') != std::string::npos ? "relative to " + base_.string()
                                                              : std::string("searched in PATH")) +
                      ")");
  }
}

// The variables set for the code, and whether it sees the rest of sao's environment.
void SectionReader::read_environment() {
  ExternalSettings& st = config_.settings;
  st.inherit_environment = section_.boolean("inherit_environment").value_or(true);
  if (section_.has("environment_allowlist")) {
    const std::string path = section_.at("environment_allowlist");
    const json& names = section_.raw("environment_allowlist");
    if (!names.is_array() || names.empty()) {
      problems_.add(path, "expected a list of variable names, e.g. [\"PATH\", \"HOME\"]");
    } else if (section_.has("inherit_environment") && !st.inherit_environment) {
      problems_.add(path, "with \"inherit_environment\": false nothing is inherited: remove one");
    }
    for (size_t i = 0; names.is_array() && i < names.size(); ++i) {
      if (names[i].is_string() && is_identifier(names[i].get<std::string>())) {
        st.environment_allowlist.push_back(names[i].get<std::string>());
      } else {
        problems_.add(indexed(path, i), "expected a variable name, got " + json_excerpt(names[i]));
      }
    }
  }
  if (!section_.has("environment")) return;
  const std::string path = section_.at("environment");
  const json& env = section_.raw("environment");
  if (!env.is_object()) {
    problems_.add(path, "expected an object NAME -> value");
    return;
  }
  for (const auto& [key, value] : env.items()) {
    if (!is_identifier(key)) {
      problems_.add(path + "." + key, "not a variable name");
    } else if (value.is_string()) {
      st.environment[key] = value.get<std::string>();
    } else if (value.is_number()) {
      st.environment[key] = value.dump();
    } else {
      problems_.add(path + "." + key, "expected a string or a number, got " + json_excerpt(value));
    }
  }
}

// Time limit, concurrency, run directories, exit codes and placeholder delimiters.
void SectionReader::read_run_settings() {
  ExternalSettings& st = config_.settings;
  st.timeout_seconds = section_.positive("timeout", true).value_or(st.timeout_seconds);
  st.workers = read_workers(section_, st.workers);
  st.executor = read_executor_settings(section_);
  const bool outside_ok = section_.boolean("allow_outside_run_directory").value_or(false);
  if (auto folder = section_.string("run_directory")) {
    st.run_directory = *folder;
    // Run directories go under the study's folder or the folder `sao` is started in (the
    // user's choice), anywhere else only when the study opts out.
    const fs::path here = fs::current_path();
    if (!lies_inside(*folder, base_) && !lies_inside(*folder, here) && !outside_ok) {
      problems_.add(section_.at("run_directory"),
                    "\"" + *folder + "\" lies outside the study's folder " + base_.string() +
                        " and the current folder " + here.string() +
                        ": set \"allow_outside_run_directory\": true to write there "
                        "(docs/trust.md)");
    }
  }
  if (section_.has("keep")) {
    const json& k = section_.raw("keep");
    if (k == "failed" || k == "all") {
      st.keep = k == "all" ? Keep::kAll : Keep::kFailed;
    } else {
      problems_.add(section_.at("keep"),
                    "expected \"failed\" (run directories of failed runs only) or \"all\", got " +
                        json_excerpt(k));
    }
  }
  if (section_.has("exit_codes")) {
    const std::string path = section_.at("exit_codes");
    const json& codes = section_.raw("exit_codes");
    if (!codes.is_array() || codes.empty()) {
      problems_.add(path, "expected a list of integers");
    } else {
      st.exit_codes.clear();
      for (size_t i = 0; i < codes.size(); ++i) {
        const json& c = codes[i];
        if (!c.is_number_integer() || c.get<long>() < 0 || c.get<long>() > 255) {
          problems_.add(indexed(path, i),
                        "expected an integer in [0, 255], got " + json_excerpt(c));
        } else {
          st.exit_codes.push_back(c.get<int>());
        }
      }
    }
  }
  if (section_.has("delimiters")) {
    const json& d = section_.raw("delimiters");
    if (!d.is_array() || d.size() != 2 || !d[0].is_string() || !d[1].is_string() ||
        d[0].get<std::string>().empty() || d[1].get<std::string>().empty()) {
      problems_.add(section_.at("delimiters"),
                    "expected [open, close], two non-empty strings, got " + json_excerpt(d));
      delimiters_ok_ = false;
    } else {
      st.delimiters = {d[0].get<std::string>(), d[1].get<std::string>()};
    }
  }
}

// Finite differences: forward or central, the relative step p, the retries with half the step.
void SectionReader::read_gradients() {
  ExternalSettings& st = config_.settings;
  JsonReader g = section_.object("gradients");
  if (g.has("method")) {
    const json& method = g.raw("method");
    if (method == "forward" || method == "central") {
      st.central = method == "central";
    } else {
      problems_.add(
          g.at("method"),
          "expected \"forward\" or \"central\" (finite differences), got " + json_excerpt(method));
    }
  }
  st.relative_step = g.positive("step").value_or(st.relative_step);
  st.retries = static_cast<int>(g.integer("retries", 0, kMaxCount).value_or(st.retries));
  g.finish();
}

// "constants" (name -> number) and "values" (name -> expression of the design).
void SectionReader::read_names() {
  const size_t before = problems_.size();
  std::set<std::string> taken(config_.design_names.begin(), config_.design_names.end());
  const char* const kName = "expected a name [A-Za-z_][A-Za-z0-9_]*";
  if (section_.has("constants")) {
    const json& constants = section_.raw("constants");
    if (!constants.is_object()) {
      problems_.add(section_.at("constants"), "expected an object name -> number");
    }
    for (const auto& [key, value] : object_items(constants)) {
      const std::string path = section_.at("constants") + "." + key;
      if (!is_identifier(key)) {
        problems_.add(path, kName);
      } else if (taken.count(key)) {
        problems_.add(path, "\"" + key + "\" is also a design variable");
      } else if (!value.is_number() || !std::isfinite(value.get<double>())) {
        problems_.add(path, "expected a number, got " + json_excerpt(value));
      } else {
        config_.constants[key] = value.get<double>();
        taken.insert(key);
      }
    }
  }
  if (section_.has("values")) {
    const json& values = section_.raw("values");
    if (!values.is_object()) {
      problems_.add(section_.at("values"), "expected an object name -> expression");
    }
    for (const auto& [key, value] : object_items(values)) {
      const std::string path = section_.at("values") + "." + key;
      if (!is_identifier(key)) {
        problems_.add(path, kName);
        continue;
      }
      if (taken.count(key)) {
        problems_.add(path, "\"" + key + "\" is already a variable or constant");
        continue;
      }
      if (!value.is_string()) {
        problems_.add(path, "expected an expression (a string), got " + json_excerpt(value));
        continue;
      }
      try {
        relations_.emplace_back(key, expr::parse(value.get<std::string>()));
      } catch (const expr::Error& e) {
        problems_.add(path, "column " + std::to_string(e.column()) + ": " + e.detail());
        continue;
      }
      value_names_.push_back(key);
      value_texts_[key] = value.get<std::string>();
      taken.insert(key);
    }
  }
  names_ok_ = problems_.size() == before;
}

// Per load case: the slots placeholders can name and the values bound to its parameters.
void SectionReader::bind_values() {
  const std::vector<std::string>& design = config_.design_names;
  std::set<std::string> taken(design.begin(), design.end());
  for (const auto& [key, value] : config_.constants) taken.insert(key);
  taken.insert(value_names_.begin(), value_names_.end());
  const std::string values_path = section_.at("values");
  // With a bad constant or value, a relation that names it would fail for that reason only.
  const bool names_read = names_ok_;
  for (size_t c = 0; c < config_.load_cases.size(); ++c) {
    const LoadCaseSpec& load_case = config_.load_cases[c];
    CaseValues cv;
    cv.names = design;
    expr::Symbols symbols;
    symbols.variables = design;
    symbols.constants = config_.constants;
    for (const auto& [key, value] : load_case.parameters) {
      if (taken.count(key)) {
        problems_.add(
            "load_cases[" + std::to_string(c) + "].parameters." + key,
            "\"" + key + "\" is also a design variable, value or constant of the simulator");
        names_ok_ = false;
      }
      symbols.constants[key] = value;
    }
    for (const auto& [name, ast] : relations_) {
      if (!names_read) break;
      try {
        cv.relations.push_back(expr::bind(ast, symbols, -1));
      } catch (const expr::Error& e) {
        add_once(values_path + "." + name,
                 "column " + std::to_string(e.column()) + ": " + e.detail());
        names_ok_ = false;
        continue;
      }
      if (cv.relations.back()->is_series()) {
        add_once(values_path + "." + name, "expected a scalar");
        names_ok_ = false;
      }
      cv.names.push_back(name);
    }
    for (const auto& [key, value] : config_.constants) cv.names.push_back(key);
    for (const auto& [key, value] : load_case.parameters) cv.names.push_back(key);
    config_.case_values.push_back(std::move(cv));
  }
}

void SectionReader::read_templates() {
  const std::string path = section_.at("templates");
  const json* list = section_.has("templates") ? &section_.raw("templates") : nullptr;
  if (!list || !list->is_array() || list->empty()) {
    problems_.add(path, "expected a list of input templates [{\"file\": ...}, ...]");
    templates_ok_ = false;
    return;
  }
  std::set<std::string> targets;  // "<load case>/<target>"
  for (size_t i = 0; i < list->size(); ++i) {
    if (!read_template((*list)[i], indexed(path, i), targets)) templates_ok_ = false;
  }
}

// One entry of "templates": its file read and parsed, its target, its load cases and the
// slot of every placeholder. False when it had a problem.
bool SectionReader::read_template(const json& entry, const std::string& path,
                                  std::set<std::string>& targets) {
  const size_t before = problems_.size();
  JsonReader t(entry, path, problems_);
  TemplateFile tf;
  std::optional<std::string> file;
  std::string text;
  if (!t.has("file")) {
    problems_.add(t.at("file"), "missing: the template file (relative to the study's folder)");
  } else {
    file = t.string("file");
  }
  if (file) tf.source = base_ / *file;
  if (file && !input_file_allowed(tf.source, t.at("file"))) file.reset();
  if (file) {
    std::ifstream in(tf.source, std::ios::binary);
    if (!in || fs::is_directory(tf.source)) {
      problems_.add(t.at("file"), "cannot read \"" + tf.source.string() + "\"");
      file.reset();
    } else {
      text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
  }
  if (t.has("target")) {
    tf.target = target_name(t.raw("target"), t.at("target"), problems_);
  } else if (!tf.source.empty()) {
    tf.target = target_name(json(tf.source.filename().string()), t.at("target"), problems_);
  }
  const std::vector<LoadCaseSpec>& cases = config_.load_cases;
  tf.cases.assign(cases.size(), !t.has("load_cases"));
  if (t.has("load_cases")) {
    const json& names = t.raw("load_cases");
    if (!names.is_array()) problems_.add(t.at("load_cases"), "expected a list of load case names");
    for (const json& name : names.is_array() ? names : json::array()) {
      auto it = std::find_if(cases.begin(), cases.end(),
                             [&](const LoadCaseSpec& l) { return name == l.name; });
      if (it == cases.end()) {
        problems_.add(t.at("load_cases"), "unknown load case " + json_excerpt(name));
      } else {
        tf.cases[static_cast<size_t>(it - cases.begin())] = true;
      }
    }
  }
  t.finish();
  if (!tf.target.empty()) claim_target(tf.target, path, true);
  for (size_t c = 0; c < cases.size() && !tf.target.empty(); ++c) {
    if (tf.cases[c] && !targets.insert(std::to_string(c) + "/" + tf.target).second) {
      problems_.add(t.at("target"), "\"" + tf.target + "\" is written twice in load case \"" +
                                        cases[c].name + "\"");
    }
  }
  if (!file || !delimiters_ok_) return false;
  try {
    tf.text = Template::parse(text, config_.settings.delimiters, *file);
  } catch (const std::invalid_argument& e) {
    problems_.add(t.at("file"), e.what());
    return false;
  }
  if (names_ok_) resolve_placeholders(tf, t.at("file"));
  config_.templates.push_back(std::move(tf));
  return problems_.size() == before;
}

// The slot of every placeholder in every load case the template applies to.
void SectionReader::resolve_placeholders(TemplateFile& tf, const std::string& path) {
  tf.slots.resize(config_.load_cases.size());
  for (size_t c = 0; c < config_.load_cases.size(); ++c) {
    if (!tf.cases[c]) continue;
    const auto& names = config_.case_values[c].names;
    for (const Placeholder& p : tf.text.placeholders()) {
      auto it = std::find(names.begin(), names.end(), p.name);
      if (it == names.end()) {
        problems_.add(path, tf.text.origin() + ":" + std::to_string(p.line) + ":" +
                                std::to_string(p.column) + ": unknown placeholder \"" + p.name +
                                "\" in load case \"" + config_.load_cases[c].name +
                                "\" (known: " + joined(names) + ")");
        continue;
      }
      tf.slots[c].push_back(static_cast<int>(it - names.begin()));
      used_.insert(p.name);
    }
  }
}

// Which design variables reach the templates of each load case; every value and constant
// must reach one.
void SectionReader::check_use() {
  for (size_t c = 0; c < config_.load_cases.size(); ++c) {
    std::set<std::string> names;
    for (const TemplateFile& t : config_.templates) {
      if (!t.cases[c]) continue;
      for (const Placeholder& p : t.text.placeholders()) names.insert(p.name);
    }
    std::set<std::string> through = names;
    for (const auto& [key, text] : value_texts_) {
      if (!names.count(key)) continue;
      for (const std::string& n : names_in(text)) through.insert(n);
    }
    std::vector<bool> reaches;
    for (const std::string& name : config_.design_names) reaches.push_back(through.count(name) > 0);
    config_.reaches.push_back(std::move(reaches));
  }
  for (const std::string& name : value_names_) {
    if (!used_.count(name))
      problems_.add(section_.at("values") + "." + name, "not used by any template");
  }
  // What reaches a template through a value's expression counts as used.
  std::set<std::string> reached = used_;
  for (const auto& [key, text] : value_texts_) {
    for (const std::string& n : names_in(text)) reached.insert(n);
  }
  for (const auto& [name, value] : config_.constants) {
    if (!reached.count(name)) {
      problems_.add(section_.at("constants") + "." + name, "not used by any template");
    }
  }
  if (!problems_.empty()) return;
  for (const std::string& name : config_.design_names) {
    if (!reached.count(name)) {
      spdlog::warn(
          "external simulator: design variable \"{}\" reaches no template; its derivatives "
          "will be zero",
          name);
    }
  }
}

// Files copied into every run directory: "name" or {"file": ..., "target": ...}.
void SectionReader::read_support_files() {
  const json& list = section_.array("support_files");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = indexed(section_.at("support_files"), i);
    const json& f = list[i];
    SupportFile sf;
    if (f.is_string()) {
      sf.source = base_ / f.get<std::string>();
      sf.target = target_name(json(sf.source.filename().string()), path, problems_);
    } else if (f.is_object()) {
      JsonReader entry(f, path, problems_);
      if (!entry.has("file") || !entry.raw("file").is_string()) {
        problems_.add(entry.at("file"), "missing");
        entry.known({"target"});
        entry.finish();
        continue;
      }
      sf.source = base_ / entry.raw("file").get<std::string>();
      sf.target = target_name(
          entry.has("target") ? entry.raw("target") : json(sf.source.filename().string()),
          entry.at("target"), problems_);
      entry.finish();
    } else {
      problems_.add(path, "expected a file name or {\"file\": ..., \"target\": ...}");
      continue;
    }
    if (!sf.target.empty()) claim_target(sf.target, path, false);
    if (!input_file_allowed(sf.source, path)) continue;
    if (!fs::is_regular_file(sf.source)) {
      problems_.add(path, "no file \"" + sf.source.string() + "\"");
    } else if (!sf.target.empty()) {
      config_.support.push_back(std::move(sf));
    }
  }
}

bool SectionReader::input_file_allowed(const fs::path& file, const std::string& path) {
  if (outside_files_ok_ || lies_inside(file, base_)) return true;
  problems_.add(path, "\"" + file.lexically_normal().string() +
                          "\" lies outside the study's folder " + base_.string() +
                          " (through \"..\", an absolute path or a symbolic link): set "
                          "\"allow_outside_input_files\": true to read it (docs/trust.md)");
  return false;
}

void SectionReader::claim_target(const std::string& target, const std::string& path, bool shared) {
  const std::string key = fs::path(target).lexically_normal().string();
  const auto [it, fresh] = writers_.emplace(key, path);
  if (fresh) return;
  const bool both_templates = shared && it->second.find(".templates[") != std::string::npos;
  if (both_templates) return;  // checked per load case (read_template)
  problems_.add(path, "target \"" + target + "\" is also written by " + it->second +
                          ": one of them would silently replace the other");
}

// How each response is read (parsers.hpp); names are unique.
void SectionReader::read_responses() {
  const std::string path = section_.at("responses");
  const json* list = section_.has("responses") ? &section_.raw("responses") : nullptr;
  if (!list || !list->is_array() || list->empty()) {
    problems_.add(path, "expected a list of responses and how to read them");
    return;
  }
  std::set<std::string> names;
  for (size_t i = 0; i < list->size(); ++i) {
    const size_t before = problems_.size();
    OutputSpec output = parse_output_spec((*list)[i], indexed(path, i), problems_);
    if (!output.name.empty() && !names.insert(output.name).second) {
      problems_.add(indexed(path, i) + ".name",
                    "response \"" + output.name + "\" is declared twice");
    }
    if (problems_.size() == before) config_.outputs.push_back(std::move(output));
  }
}

}  // namespace

ExternalConfig read_external_config(const SimulatorSetup& setup) {
  ExternalConfig config;
  config.design_names = setup.design_names;
  config.load_cases = setup.load_cases;
  Problems problems;
  SectionReader(setup, config, problems).read(setup.section.is_object());
  problems.throw_if_any();
  return config;
}

}  // namespace sao::adapters
