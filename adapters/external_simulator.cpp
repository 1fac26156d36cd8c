#include "adapters/external_simulator.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "sao/seam/difference_batch.hpp"
#include "sao/seam/json_section.hpp"

namespace sao::adapters {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using section::bad;
using section::joined;
using section::reject_unknown_keys;

double number_at(const json& o, const std::string& key, double fallback, double minimum,
                 const std::string& path) {
  if (!o.contains(key)) return fallback;
  const json& v = o.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < minimum) {
    bad(path + "." + key, "expected a number >= " + std::to_string(minimum) + ", got " + v.dump());
  }
  return v.get<double>();
}

int int_at(const json& o, const std::string& key, int fallback, int minimum,
           const std::string& path) {
  if (!o.contains(key)) return fallback;
  const json& v = o.at(key);
  if (!v.is_number_integer() || v.get<long>() < minimum || v.get<long>() > 100000) {
    bad(path + "." + key,
        "expected an integer >= " + std::to_string(minimum) + ", got " + v.dump());
  }
  return v.get<int>();
}

// A file name inside the run directory: relative, no "..", no leading '-', printable.
std::string target_name(const json& v, const std::string& path) {
  if (!v.is_string() || v.get<std::string>().empty()) {
    bad(path, "expected a file name, got " + v.dump());
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
    bad(path,
        "expected a relative path inside the run directory (no \"..\", no absolute path), "
        "got \"" +
            name + "\"");
  }
  return name;
}

// Where the evaluator gets the design.
class DesignInputs final : public expr::Inputs {
 public:
  explicit DesignInputs(const Eigen::VectorXd& design) : design_(design) {}
  double variable(int i) const override { return design_(i); }
  double response(int, int, int) const override { return 0.0; }

 private:
  const Eigen::VectorXd& design_;
};

std::string tail_of(const fs::path& file, size_t bytes) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const auto size = static_cast<size_t>(in.tellg());
  in.seekg(static_cast<std::streamoff>(size > bytes ? size - bytes : 0));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
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

}  // namespace

// One run of the code: a request's design, possibly with one variable perturbed, in one
// load case.

ExternalSimulator::ExternalSimulator(const SimulatorSetup& setup)
    : design_names_(setup.design_names), load_cases_(setup.load_cases) {
  const json& s = setup.section;
  const std::string P = "simulator";
  if (!s.is_object()) bad(P, "expected an object, got " + s.dump());
  reject_unknown_keys(s,
                      {"type", "command", "shell", "environment", "inherit_environment", "timeout",
                       "workers", "run_directory", "keep", "exit_codes", "delimiters", "constants",
                       "values", "templates", "support_files", "responses", "gradients"},
                      P);
  const fs::path base =
      setup.study_directory.empty() ? fs::current_path() : fs::path(setup.study_directory);
  ExternalSettings& st = settings_;

  // The command.
  if (s.contains("shell")) {
    if (!s.at("shell").is_boolean()) bad(P + ".shell", "expected true or false");
    st.shell = s.at("shell").get<bool>();
  }
  if (!s.contains("command")) bad(P + ".command", "missing: the program and its arguments");
  const json& command = s.at("command");
  if (st.shell) {
    if (!command.is_string() || command.get<std::string>().empty()) {
      bad(P + ".command", "with \"shell\": true, expected one command line (a string)");
    }
    st.program = "/bin/sh";
    st.arguments = {"-c", command.get<std::string>()};
  } else {
    if (!command.is_array() || command.empty()) {
      bad(P + ".command",
          "expected a list [program, arguments...] (no shell is used; set \"shell\": true to "
          "run a command line), got " +
              command.dump());
    }
    for (size_t i = 0; i < command.size(); ++i) {
      if (!command[i].is_string() || (i == 0 && command[i].get<std::string>().empty())) {
        bad(P + ".command[" + std::to_string(i) + "]",
            "expected a string, got " + command[i].dump());
      }
      if (i > 0) st.arguments.push_back(command[i].get<std::string>());
    }
    const std::string program = command[0].get<std::string>();
    st.program = find_program(program, base);
    if (st.program.empty()) {
      bad(P + ".command[0]",
          "no executable \"" + program + "\" (" +
              (program.find('/') != std::string::npos ? "relative to " + base.string()
                                                      : std::string("searched in PATH")) +
              ")");
    }
  }
  if (s.contains("environment")) {
    const json& env = s.at("environment");
    if (!env.is_object()) bad(P + ".environment", "expected an object NAME -> value");
    for (const auto& [key, value] : env.items()) {
      if (!is_identifier(key)) bad(P + ".environment." + key, "not a variable name");
      if (value.is_string()) {
        st.environment[key] = value.get<std::string>();
      } else if (value.is_number()) {
        st.environment[key] = value.dump();
      } else {
        bad(P + ".environment." + key, "expected a string or a number, got " + value.dump());
      }
    }
  }
  if (s.contains("inherit_environment")) {
    if (!s.at("inherit_environment").is_boolean()) {
      bad(P + ".inherit_environment", "expected true or false");
    }
    st.inherit_environment = s.at("inherit_environment").get<bool>();
  }
  st.timeout_seconds = number_at(s, "timeout", st.timeout_seconds, 0.0, P);
  st.workers = int_at(s, "workers", st.workers, 1, P);
  if (s.contains("run_directory")) {
    if (!s.at("run_directory").is_string() || s.at("run_directory").get<std::string>().empty()) {
      bad(P + ".run_directory", "expected a folder name, got " + s.at("run_directory").dump());
    }
    st.run_directory = s.at("run_directory").get<std::string>();
  }
  if (s.contains("keep")) {
    const json& k = s.at("keep");
    if (k == "failed") {
      st.keep = Keep::kFailed;
    } else if (k == "all") {
      st.keep = Keep::kAll;
    } else {
      bad(P + ".keep",
          "expected \"failed\" (run directories of failed runs only) or \"all\", "
          "got " +
              k.dump());
    }
  }
  if (s.contains("exit_codes")) {
    const json& codes = s.at("exit_codes");
    if (!codes.is_array() || codes.empty()) bad(P + ".exit_codes", "expected a list of integers");
    st.exit_codes.clear();
    for (const json& c : codes) {
      if (!c.is_number_integer() || c.get<long>() < 0 || c.get<long>() > 255) {
        bad(P + ".exit_codes", "expected integers in [0, 255], got " + c.dump());
      }
      st.exit_codes.push_back(c.get<int>());
    }
  }
  if (s.contains("delimiters")) {
    const json& d = s.at("delimiters");
    if (!d.is_array() || d.size() != 2 || !d[0].is_string() || !d[1].is_string() ||
        d[0].get<std::string>().empty() || d[1].get<std::string>().empty()) {
      bad(P + ".delimiters", "expected [open, close], two non-empty strings, got " + d.dump());
    }
    st.delimiters = {d[0].get<std::string>(), d[1].get<std::string>()};
  }
  if (s.contains("gradients")) {
    const json& g = s.at("gradients");
    const std::string gp = P + ".gradients";
    if (!g.is_object()) bad(gp, "expected an object");
    reject_unknown_keys(g, {"method", "step", "retries"}, gp);
    if (g.contains("method")) {
      if (g.at("method") != "forward" && g.at("method") != "central") {
        bad(gp + ".method", "expected \"forward\" or \"central\" (finite differences), got " +
                                g.at("method").dump());
      }
      st.central = g.at("method") == "central";
    }
    st.relative_step = number_at(g, "step", st.relative_step, 0.0, gp);
    if (!(st.relative_step > 0.0)) bad(gp + ".step", "expected a positive number");
    st.retries = int_at(g, "retries", st.retries, 0, gp);
  }

  // What placeholders can name: design variables, "values" (explicit relations of them),
  // "constants", load-case parameters.
  std::set<std::string> taken(design_names_.begin(), design_names_.end());
  if (s.contains("constants")) {
    const json& c = s.at("constants");
    if (!c.is_object()) bad(P + ".constants", "expected an object name -> number");
    for (const auto& [key, value] : c.items()) {
      const std::string path = P + ".constants." + key;
      if (!is_identifier(key)) bad(path, "expected a name [A-Za-z_][A-Za-z0-9_]*");
      if (taken.count(key)) bad(path, "\"" + key + "\" is also a design variable");
      if (!value.is_number() || !std::isfinite(value.get<double>())) {
        bad(path, "expected a number, got " + value.dump());
      }
      constants_[key] = value.get<double>();
      taken.insert(key);
    }
  }
  std::vector<std::pair<std::string, expr::AstPtr>> relations;
  if (s.contains("values")) {
    const json& v = s.at("values");
    if (!v.is_object()) bad(P + ".values", "expected an object name -> expression");
    for (const auto& [key, value] : v.items()) {
      const std::string path = P + ".values." + key;
      if (!is_identifier(key)) bad(path, "expected a name [A-Za-z_][A-Za-z0-9_]*");
      if (taken.count(key)) bad(path, "\"" + key + "\" is already a variable or constant");
      if (!value.is_string()) bad(path, "expected an expression (a string), got " + value.dump());
      try {
        relations.emplace_back(key, expr::parse(value.get<std::string>()));
      } catch (const expr::Error& e) {
        bad(path, "column " + std::to_string(e.column()) + ": " + e.detail());
      }
      value_names_.push_back(key);
      taken.insert(key);
    }
  }
  for (size_t c = 0; c < load_cases_.size(); ++c) {
    CaseValues cv;
    cv.names = design_names_;
    expr::Symbols symbols;
    symbols.variables = design_names_;
    symbols.constants = constants_;
    for (const auto& [key, value] : load_cases_[c].parameters) {
      if (taken.count(key)) {
        bad("load_cases[" + std::to_string(c) + "].parameters." + key,
            "\"" + key + "\" is also a design variable, value or constant of the simulator");
      }
      symbols.constants[key] = value;
    }
    for (const auto& [name, ast] : relations) {
      try {
        cv.relations.push_back(expr::bind(ast, symbols, -1));
      } catch (const expr::Error& e) {
        bad(P + ".values." + name, "column " + std::to_string(e.column()) + ": " + e.detail());
      }
      if (cv.relations.back()->is_series()) bad(P + ".values." + name, "expected a scalar");
      cv.names.push_back(name);
    }
    for (const auto& [key, value] : constants_) cv.names.push_back(key);
    for (const auto& [key, value] : load_cases_[c].parameters) cv.names.push_back(key);
    case_values_.push_back(std::move(cv));
  }

  // Templates.
  if (!s.contains("templates") || !s.at("templates").is_array() || s.at("templates").empty()) {
    bad(P + ".templates", "expected a list of input templates [{\"file\": ...}, ...]");
  }
  std::set<std::string> used;
  std::set<std::string> targets;
  for (size_t i = 0; i < s.at("templates").size(); ++i) {
    const json& t = s.at("templates")[i];
    const std::string path = P + ".templates[" + std::to_string(i) + "]";
    if (!t.is_object()) bad(path, "expected an object {\"file\": ..., \"target\": ...}");
    reject_unknown_keys(t, {"file", "target", "load_cases"}, path);
    if (!t.contains("file") || !t.at("file").is_string()) {
      bad(path + ".file", "missing: the template file (relative to the study's folder)");
    }
    TemplateFile tf;
    tf.source = base / t.at("file").get<std::string>();
    std::ifstream in(tf.source, std::ios::binary);
    if (!in || fs::is_directory(tf.source)) {
      bad(path + ".file", "cannot read \"" + tf.source.string() + "\"");
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    tf.target =
        target_name(t.contains("target") ? t.at("target") : json(tf.source.filename().string()),
                    path + ".target");
    tf.cases.assign(load_cases_.size(), !t.contains("load_cases"));
    if (t.contains("load_cases")) {
      const json& lc = t.at("load_cases");
      if (!lc.is_array()) bad(path + ".load_cases", "expected a list of load case names");
      for (const json& name : lc) {
        auto it = std::find_if(load_cases_.begin(), load_cases_.end(),
                               [&](const LoadCaseSpec& l) { return name == l.name; });
        if (it == load_cases_.end()) {
          bad(path + ".load_cases", "unknown load case " + name.dump());
        }
        tf.cases[static_cast<size_t>(it - load_cases_.begin())] = true;
      }
    }
    for (size_t c = 0; c < load_cases_.size(); ++c) {
      if (tf.cases[c] && !targets.insert(std::to_string(c) + "/" + tf.target).second) {
        bad(path + ".target",
            "\"" + tf.target + "\" is written twice in load case \"" + load_cases_[c].name + "\"");
      }
    }
    try {
      tf.text = Template::parse(text, st.delimiters, t.at("file").get<std::string>());
    } catch (const std::invalid_argument& e) {
      bad(path + ".file", e.what());
    }
    tf.slots.resize(load_cases_.size());
    for (size_t c = 0; c < load_cases_.size(); ++c) {
      if (!tf.cases[c]) continue;
      const auto& names = case_values_[c].names;
      for (const Placeholder& p : tf.text.placeholders()) {
        auto it = std::find(names.begin(), names.end(), p.name);
        if (it == names.end()) {
          bad(path + ".file", tf.text.origin() + ":" + std::to_string(p.line) + ":" +
                                  std::to_string(p.column) + ": unknown placeholder \"" + p.name +
                                  "\" in load case \"" + load_cases_[c].name +
                                  "\" (known: " + joined(names) + ")");
        }
        tf.slots[c].push_back(static_cast<int>(it - names.begin()));
        used.insert(p.name);
      }
    }
    templates_.push_back(std::move(tf));
  }
  // Per load case: which design variables reach its templates (directly or through values).
  for (size_t c = 0; c < load_cases_.size(); ++c) {
    std::set<std::string> names;
    for (const TemplateFile& t : templates_) {
      if (!t.cases[c]) continue;
      for (const Placeholder& p : t.text.placeholders()) names.insert(p.name);
    }
    std::set<std::string> through = names;
    if (s.contains("values")) {
      for (const auto& [key, text] : s.at("values").items()) {
        if (!names.count(key)) continue;
        for (const std::string& n : names_in(text.get<std::string>())) through.insert(n);
      }
    }
    std::vector<bool> reaches;
    for (const std::string& name : design_names_) reaches.push_back(through.count(name) > 0);
    reaches_.push_back(std::move(reaches));
  }
  for (const std::string& name : value_names_) {
    if (!used.count(name)) bad(P + ".values." + name, "not used by any template");
  }
  // What reaches a template through a value's expression counts as used.
  std::set<std::string> reached = used;
  if (s.contains("values")) {
    for (const auto& [key, text] : s.at("values").items()) {
      for (const std::string& n : names_in(text.get<std::string>())) reached.insert(n);
    }
  }
  for (const auto& [name, value] : constants_) {
    if (!reached.count(name)) bad(P + ".constants." + name, "not used by any template");
  }
  for (const std::string& name : design_names_) {
    if (!reached.count(name)) {
      spdlog::warn(
          "external simulator: design variable \"{}\" reaches no template; its derivatives "
          "will be zero",
          name);
    }
  }

  // Support files: copied into every run directory.
  if (s.contains("support_files")) {
    const json& list = s.at("support_files");
    if (!list.is_array()) bad(P + ".support_files", "expected a list of files");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string path = P + ".support_files[" + std::to_string(i) + "]";
      const json& f = list[i];
      SupportFile sf;
      json target;
      if (f.is_string()) {
        sf.source = base / f.get<std::string>();
        target = sf.source.filename().string();
      } else if (f.is_object()) {
        reject_unknown_keys(f, {"file", "target"}, path);
        if (!f.contains("file") || !f.at("file").is_string()) bad(path + ".file", "missing");
        sf.source = base / f.at("file").get<std::string>();
        target = f.contains("target") ? f.at("target") : json(sf.source.filename().string());
      } else {
        bad(path, "expected a file name or {\"file\": ..., \"target\": ...}");
      }
      sf.target = target_name(target, path + (f.is_object() ? ".target" : ""));
      if (!fs::is_regular_file(sf.source)) bad(path, "no file \"" + sf.source.string() + "\"");
      support_.push_back(std::move(sf));
    }
  }

  // Responses.
  if (!s.contains("responses") || !s.at("responses").is_array() || s.at("responses").empty()) {
    bad(P + ".responses", "expected a list of responses and how to read them");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < s.at("responses").size(); ++i) {
    const std::string path = P + ".responses[" + std::to_string(i) + "]";
    outputs_.push_back(parse_output_spec(s.at("responses")[i], path));
    if (!names.insert(outputs_.back().name).second) {
      bad(path + ".name", "response \"" + outputs_.back().name + "\" is declared twice");
    }
  }

  // The folder of this session's runs: run_directory/<date>-<time>-<pid>.
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  std::ostringstream session;
  session << std::put_time(&tm, "%Y%m%d-%H%M%S") << "-" << ::getpid();
  static std::atomic<int> instances{0};
  const int instance = instances++;
  if (instance > 0) session << "-" << instance;
  session_ = fs::absolute(st.run_directory) / session.str();
}

ExternalSimulator::~ExternalSimulator() {
  // An empty session folder (every run succeeded and was removed) is not left behind.
  std::error_code ec;
  if (fs::is_directory(session_, ec) && fs::is_empty(session_, ec)) fs::remove(session_, ec);
}

std::vector<ResponseInfo> ExternalSimulator::responses() const {
  std::vector<ResponseInfo> out;
  for (const OutputSpec& o : outputs_) out.push_back({o.name, o.history});
  return out;
}

std::string ExternalSimulator::label(const BatchRun& job, const Eigen::VectorXd& design) const {
  std::ostringstream msg;
  msg << "load case \"" << load_cases_[static_cast<size_t>(job.load_case)].name << "\", design (";
  for (size_t i = 0; i < design_names_.size(); ++i) {
    msg << (i ? ", " : "") << design_names_[i] << " = " << design(static_cast<Eigen::Index>(i));
  }
  msg << ")";
  if (job.variable >= 0) {
    msg << " (finite-difference run, " << design_names_[static_cast<size_t>(job.variable)]
        << " perturbed by " << job.step << ")";
  }
  return msg.str();
}

bool ExternalSimulator::render_inputs(size_t c, const Eigen::VectorXd& design,
                                      std::vector<std::string>& texts, std::string& error) const {
  // The values of the placeholders of this load case, by slot.
  const CaseValues& cv = case_values_[c];
  std::vector<double> values;
  values.reserve(cv.names.size());
  for (Eigen::Index i = 0; i < design.size(); ++i) values.push_back(design(i));
  const DesignInputs inputs(design);
  for (size_t r = 0; r < cv.relations.size(); ++r) {
    expr::Evaluator evaluator(*cv.relations[r], inputs);
    values.push_back(evaluator.value(0));
  }
  for (const auto& [key, value] : constants_) values.push_back(value);
  for (const auto& [key, value] : load_cases_[c].parameters) values.push_back(value);
  texts.assign(templates_.size(), std::string());
  for (size_t k = 0; k < templates_.size(); ++k) {
    if (templates_[k].cases[c] &&
        !templates_[k].text.render(templates_[k].slots[c], values, texts[k], error)) {
      return false;
    }
  }
  return true;
}

bool ExternalSimulator::run_once(BatchRun& job, const Eigen::VectorXd& design) {
  const size_t c = static_cast<size_t>(job.load_case);
  std::ostringstream name;
  name << std::setw(6) << std::setfill('0') << ++counter_ << "-case" << c;
  const fs::path dir = session_ / name.str();
  ++job.runs;
  job.result = CaseResult{};
  auto fail = [&](const std::string& why) {
    job.message = label(job, design) + ", run directory " + dir.string() + ": " + why;
    spdlog::warn("external simulator: {}", job.message);
    return false;
  };
  try {
    std::vector<std::string> texts;
    std::string error;
    if (!render_inputs(c, design, texts, error)) return fail(error);
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::create_directories(dir);
    for (size_t k = 0; k < templates_.size(); ++k) {
      if (!templates_[k].cases[c]) continue;
      const fs::path target = dir / templates_[k].target;
      if (target.has_parent_path()) fs::create_directories(target.parent_path());
      std::ofstream out(target, std::ios::binary);
      out << texts[k];
      if (!out) return fail("cannot write " + target.string());
    }
    for (const SupportFile& f : support_) {
      const fs::path target = dir / f.target;
      if (target.has_parent_path()) fs::create_directories(target.parent_path());
      fs::copy_file(f.source, target, fs::copy_options::overwrite_existing);
    }

    ProcessSpec spec;
    spec.program = settings_.program;
    spec.arguments = settings_.arguments;
    spec.environment = settings_.environment;
    spec.inherit_environment = settings_.inherit_environment;
    spec.directory = dir;
    spec.stdout_file = dir / "stdout.txt";
    spec.stderr_file = dir / "stderr.txt";
    spec.timeout_seconds = settings_.timeout_seconds;
    const ProcessResult r = run_process(spec);
    const bool exit_ok = r.started && !r.timed_out && !r.signaled &&
                         std::find(settings_.exit_codes.begin(), settings_.exit_codes.end(),
                                   r.exit_code) != settings_.exit_codes.end();
    if (!exit_ok) {
      std::string why = settings_.program.filename().string() + ": " + describe(r);
      const std::string err = tail_of(spec.stderr_file, 300);
      if (!err.empty()) why += "; stderr ends: " + err;
      return fail(why);
    }
    for (const OutputSpec& o : outputs_) {
      const std::string why = read_output(o, dir, load_cases_[c].grid, job.result);
      if (!why.empty()) return fail(why);
    }
    if (settings_.keep != Keep::kAll) fs::remove_all(dir, ec);
    return true;
  } catch (const std::exception& e) {  // file system trouble: still a failed run, not a crash
    return fail(e.what());
  }
}

void ExternalSimulator::run(BatchRun& job) {
  Eigen::VectorXd design = *job.design;
  if (job.variable < 0) {
    job.ok = run_once(job, design);
    return;
  }
  // A perturbation that does not change the input files (a format with too few digits for
  // the step) would give a zero derivative without any warning.
  const size_t c = static_cast<size_t>(job.load_case);
  if (reaches_[c][static_cast<size_t>(job.variable)]) {
    std::vector<std::string> nominal, perturbed;
    std::string error;
    design(job.variable) += job.step;
    if (render_inputs(c, *job.design, nominal, error) &&
        render_inputs(c, design, perturbed, error) && nominal == perturbed) {
      job.message = label(job, design) + ": the perturbation does not change the input files " +
                    "(the placeholders' formats have too few digits for the step): increase " +
                    "simulator.gradients.step or the precision of the formats";
      spdlog::warn("external simulator: {}", job.message);
      job.ok = false;
      return;
    }
  }
  // A perturbed run that fails is retried with half the step: a code that fails next to a
  // design it can analyse usually fails for the perturbation, not for the design.
  std::string first;
  for (int attempt = 0; attempt <= settings_.retries; ++attempt) {
    design = *job.design;
    design(job.variable) += job.step;
    job.ok = run_once(job, design);
    if (job.ok) return;
    if (first.empty()) first = job.message;
    if (attempt < settings_.retries) job.step *= 0.5;
  }
  job.message = first + (settings_.retries > 0 ? " (and " + std::to_string(settings_.retries) +
                                                     " retries with halved steps failed too)"
                                               : std::string());
}

std::vector<Evaluation> ExternalSimulator::evaluate(const std::vector<EvaluationRequest>& batch) {
  const std::vector<ResponseInfo> known = responses();
  for (const EvaluationRequest& request : batch) {
    check_request(request, "ExternalSimulator", design_names_.size(), load_cases_, known);
  }
  // The pool: `workers` runs at a time; each run writes only its own slot.
  return run_batch(batch, static_cast<int>(load_cases_.size()),
                   static_cast<int>(design_names_.size()),
                   {settings_.central, settings_.relative_step}, false, settings_.workers,
                   [&](BatchRun& job) { run(job); });
}

void register_external_simulator() {
  register_simulator("external", [](const SimulatorSetup& setup) -> std::unique_ptr<Simulator> {
    return std::make_unique<ExternalSimulator>(setup);
  });
}

std::string ExternalSimulator::fingerprint() const {
  std::string out;
  auto add = [&](const std::filesystem::path& source, const std::string& target) {
    std::ifstream in(source, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    out += target + '\0' + std::to_string(bytes.size()) + '\0' + bytes;
  };
  for (const TemplateFile& t : templates_) add(t.source, "template:" + t.target);
  for (const SupportFile& f : support_) add(f.source, "support:" + f.target);
  return out;
}

}  // namespace sao::adapters
