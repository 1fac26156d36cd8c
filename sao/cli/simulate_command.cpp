#include "sao/cli/simulate_command.hpp"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "sao/cli/exit_codes.hpp"
#include "sao/cli/store_commands.hpp"
#include "sao/report/evaluate.hpp"
#include "sao/report/units_json.hpp"
#include "sao/seam/number_text.hpp"
#include "sao/seam/run_directory.hpp"
#include "sao/store/atomic_file.hpp"
#include "sao/study/open_study.hpp"
#include "sao/version.hpp"
#include "simulators/internal_simulator.hpp"

namespace sao::cli {
namespace {

namespace fs = std::filesystem;

// "name=value" of --design.
std::pair<std::string, double> assignment(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw UsageError("--design " + text + ": expected name=value");
  }
  const std::string name = text.substr(0, eq), value = text.substr(eq + 1);
  const double v = number_or_nan(value);
  if (!std::isfinite(v)) {
    throw UsageError("--design " + text + ": \"" + value + "\" is not a finite number");
  }
  return {name, v};
}

// The study or model of the file, its design (study order) with the --design values.
Study study_of(const SimulateRequest& request, const std::string& dir, Eigen::VectorXd& design,
               std::vector<std::string>& model_names) {
  nlohmann::json document = read_study_document(request.file, request.overrides);
  place_run_directory(document, dir);
  const bool is_study =
      document.is_object() && (document.contains("objective") || document.contains("objectives"));
  Study study = is_study ? load_study(document, request.file) : load_model(document, request.file);
  for (const std::string& d : request.designs) {
    const std::pair<std::string, double> given = assignment(d);
    const std::string& name = given.first;  // not a structured binding: a lambda reads it
    const double value = given.second;
    auto it = std::find_if(study.design.begin(), study.design.end(),
                           [&](const DesignVariable& v) { return v.name == name; });
    if (it != study.design.end()) {
      it->initial = value;
      continue;
    }
    if (is_study) {
      std::string known;
      for (const DesignVariable& v : study.design) known += (known.empty() ? "" : ", ") + v.name;
      throw UsageError("--design " + d + ": \"" + name +
                       "\" is not a design variable of the study (" + known + ")");
    }
    DesignVariable v;  // a model parameter of the same name (check_model_parameters)
    v.name = name;
    v.initial = value;
    study.design.push_back(v);
    model_names.push_back(name);
  }
  design.resize(study.n_design());
  for (int i = 0; i < study.n_design(); ++i) design(i) = study.design[i].initial;
  return study;
}

// A model file's --design names must be parameters of its internal model (or mapped onto them
// by simulator.parameters); an unused name would be a silent no-op.
void check_model_parameters(const Study& study, const std::vector<std::string>& given) {
  if (given.empty() || study.simulator.value("type", "") != "internal") return;
  const sim::InternalSimulator simulator(study.simulator_setup());
  std::vector<std::string> known = simulator.model().parameters();
  const nlohmann::json mapping = study.simulator.value("parameters", nlohmann::json::object());
  for (const auto& [parameter, variable] : mapping.items()) {
    if (variable.is_string()) known.push_back(variable.get<std::string>());
  }
  for (const std::string& name : given) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string list;
    for (const std::string& k : simulator.model().parameters()) {
      list += (list.empty() ? "" : ", ") + k;
    }
    throw UsageError("--design " + name + "=...: not a parameter of the model (" + list + ")");
  }
}

// Process CPU seconds, this process and its finished children (external codes).
double cpu_seconds() {
  double total = 0.0;
  for (const int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage{};
    getrusage(who, &usage);
    total += usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
             1e-6 * (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  }
  return total;
}

// A load case's histories as CSV: t, then one column per history, at full precision.
std::string histories_csv(const LoadCaseSpec& lc, const CaseResult& result) {
  std::string out = "t";
  for (const auto& [name, h] : result.histories) out += "," + name;
  out += "\n";
  char cell[40];
  for (int k = 0; k < lc.grid.points; ++k) {
    std::snprintf(cell, sizeof cell, "%.17g", lc.grid.at(k));
    out += cell;
    for (const auto& [name, h] : result.histories) {
      std::snprintf(cell, sizeof cell, ",%.17g", k < h.size() ? h(k) : NAN);
      out += cell;
    }
    out += "\n";
  }
  return out;
}

// The units of a load case's entry in simulation.json (units_json.hpp): the study's declared
// responses among its histories and scalars, by the simulator's names.
nlohmann::ordered_json case_units(const Study& study, const CaseResult& result) {
  nlohmann::ordered_json histories = nlohmann::ordered_json::object();
  for (const auto& [name, h] : result.histories) {
    if (const std::string unit = declared_unit(study, name); !unit.empty()) histories[name] = unit;
  }
  nlohmann::ordered_json scalars = nlohmann::ordered_json::object();
  for (const auto& [name, v] : result.scalars) {
    if (const std::string unit = declared_unit(study, name); !unit.empty()) scalars[name] = unit;
  }
  return {{"histories", histories}, {"scalars", scalars}};
}

}  // namespace

CLI::App* add_simulate_command(CLI::App& app, SimulateRequest& request) {
  CLI::App* cmd = app.add_subcommand(
      "simulate",
      "one analysis of a model or study file (no objective needed): every history at full "
      "precision as CSV, with the timing");
  cmd->add_option("file", request.file, "model or study file (JSON)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--design", request.designs,
                  "a design variable's (study) or model parameter's (model) value: name=value; "
                  "repeatable");
  cmd->add_option("--set", request.overrides,
                  "override an entry of the file: path.to.key=value (as on `sao run`)");
  cmd->add_option("--out", request.out_dir,
                  "output folder (default: out/<folder>-<file stem>-simulate)");
  cmd->add_flag("--json", request.json, "the summary (simulation.json) on stdout");
  return cmd;
}

int simulate(const SimulateRequest& request) {
  Eigen::VectorXd design;
  const std::string dir =
      request.out_dir.empty() ? default_output_folder(request.file) + "-simulate" : request.out_dir;
  std::vector<std::string> model_names;
  const Study study = study_of(request, dir, design, model_names);
  const auto simulator = open_simulator(study);
  simulator->expect_no_gradients();  // histories only: no forward pass kept for a gradient
  check_model_parameters(study, model_names);
  const double cpu0 = cpu_seconds();
  const auto wall0 = std::chrono::steady_clock::now();
  const std::vector<Evaluation> e = simulator->evaluate({{design, {}}});
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double cpu = cpu_seconds() - cpu0;
  if (e.empty() || !e.front().ok) {
    throw std::runtime_error("the analysis failed: " +
                             (e.empty() ? std::string("no result") : e.front().message));
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create the output folder " + dir + ": " + ec.message());
  nlohmann::ordered_json doc = {{"file", request.file}, {"version", kVersion}};
  nlohmann::ordered_json named = nlohmann::ordered_json::object();
  for (int i = 0; i < study.n_design(); ++i) named[study.design[i].name] = design(i);
  doc["design"] = named;
  doc["units"] = {{"design", design_units(study)}};  // a model file's parameters have none
  doc["load_cases"] = nlohmann::ordered_json::array();
  for (size_t c = 0; c < study.load_cases.size() && c < e.front().cases.size(); ++c) {
    const LoadCaseSpec& lc = study.load_cases[c];
    const CaseResult& result = e.front().cases[c];
    nlohmann::ordered_json entry = {{"name", lc.name}, {"points", lc.grid.points}};
    if (!result.histories.empty()) {
      const std::string file = (fs::path(dir) / (lc.name + ".csv")).string();
      write_file_atomically(file, histories_csv(lc, result));
      entry["file"] = file;
      entry["histories"] = nlohmann::ordered_json::array();
      for (const auto& [name, h] : result.histories) entry["histories"].push_back(name);
    }
    entry["scalars"] = nlohmann::ordered_json::object();
    for (const auto& [name, v] : result.scalars) entry["scalars"][name] = v;
    entry["units"] = case_units(study, result);
    if (result.integrator_steps >= 0) entry["integrator_steps"] = result.integrator_steps;
    doc["load_cases"].push_back(entry);
  }
  // The integrator's time steps summed over the load cases (each case's in its entry); null
  // when the simulator does not say (external codes, explicit functions).
  long steps = 0;
  bool counted = false;
  for (const CaseResult& result : e.front().cases) {
    if (result.integrator_steps < 0) continue;
    steps += result.integrator_steps;
    counted = true;
  }
  doc["timing"] = {{"wall_seconds", wall},
                   {"cpu_seconds", cpu},
                   {"integrator_steps", counted ? nlohmann::ordered_json(steps) : nullptr}};
  write_file_atomically(fs::path(dir) / "simulation.json", doc.dump(2) + "\n");
  if (request.json) {
    std::cout << doc.dump(2) << "\n";
    return kOk;
  }
  for (const auto& entry : doc["load_cases"]) {
    std::printf("%-12s %zu histories, %zu scalars%s%s\n", entry["name"].get<std::string>().c_str(),
                entry.contains("histories") ? entry["histories"].size() : size_t{0},
                entry["scalars"].size(), entry.contains("file") ? " -> " : "",
                entry.contains("file") ? entry["file"].get<std::string>().c_str() : "");
  }
  std::printf("timing       wall %.3f s, CPU %.3f s", wall, cpu);
  if (counted) std::printf(", %ld integrator steps", steps);
  std::printf("\nwritten      %s/simulation.json\n", dir.c_str());
  return kOk;
}

}  // namespace sao::cli
