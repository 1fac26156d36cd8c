#include "bench/suite/suite.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>

#include "bench/compare/direct_coupling.hpp"
#include "sao/optimizer/driver.hpp"
#include "sao/report/evaluate.hpp"
#include "sao/study/criteria.hpp"
#include "sao/study/open_study.hpp"
#include "sao/study/study_loader.hpp"
#include "simulators/models/functions.hpp"

namespace sao::suite {

using nlohmann::json;

std::vector<Known> read_optima(const std::string& directory) {
  const std::string path = directory + "/optima.json";
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot read " + path);
  std::vector<Known> out;
  try {
    const json doc = json::parse(file);
    for (const json& e : doc.at("problems")) {
      Known k;
      k.problem = e.at("problem").get<std::string>();
      k.n = e.at("n").get<int>();
      k.m = e.at("m").get<int>();
      k.f = e.at("f").get<double>();
      k.x = e.at("x").get<std::vector<double>>();
      k.ci = e.value("ci", false);
      k.tags = e.value("tags", std::vector<std::string>{});
      for (const json& l : e.value("local_minima", json::array())) {
        k.local_minima.push_back({l.at("f").get<double>(), l.at("x").get<std::vector<double>>()});
      }
      out.push_back(std::move(k));
    }
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  return out;
}

std::string identifier(const Known& known) {
  std::string name = known.problem;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

double f_error(double f, double f_star) {
  return std::abs(f - f_star) / std::max(1.0, std::abs(f_star));
}

Accuracy accuracy_asked(double objacc, double vioacc) {
  const Accuracy table;
  return {std::max(table.f_error, objacc / 100.0), std::max(table.violation, vioacc)};
}

bool solved(double f, double violation_percent, double f_star, const Accuracy& accuracy) {
  return f_error(f, f_star) <= accuracy.f_error && violation_percent <= accuracy.violation;
}

json external_variant(const json& internal, const std::string& evaluator,
                      const std::string& directory) {
  const json& section = internal.at("simulator");
  std::vector<sao::sim::FunctionsModel::Function> functions;
  for (const auto& [name, text] : section.at("functions").items())
    functions.emplace_back(name, text.get<std::string>());
  const sao::sim::FunctionsModel model(functions, [](const std::string& f, const std::string& why) {
    throw std::runtime_error("function " + f + ": " + why);
  });
  const json mapping = section.value("parameters", json::object());
  const json constants = section.value("constants", json::object());
  std::string text = "# sao_functions_eval input, written by the external adapter\n";
  for (const std::string& p : model.parameters()) {
    const std::string source = mapping.contains(p) ? mapping.at(p).get<std::string>() : p;
    text += "parameter " + p + " = {{" + source + "}}\n";
  }
  json responses = json::array();
  for (const auto& [name, expression] : functions) {
    text += "function " + name + " = " + expression + "\n";
    responses.push_back({{"name", name},
                         {"kind", "scalar"},
                         {"file", "responses.json"},
                         {"parser", "json"},
                         {"pointer", "/" + name}});
  }
  std::filesystem::create_directories(directory);
  std::ofstream(directory + "/functions.tpl") << text;
  json external = {{"type", "external"},
                   {"command", {evaluator, "input.txt", "responses.json"}},
                   {"workers", 2},
                   {"timeout", 60},
                   {"run_directory", directory + "/runs"},
                   {"templates", {{{"file", "functions.tpl"}, {"target", "input.txt"}}}},
                   {"responses", responses}};
  if (!constants.empty()) external["constants"] = constants;
  if (section.contains("gradients")) external["gradients"] = section.at("gradients");
  json variant = internal;
  variant["simulator"] = external;
  return variant;
}

namespace {

void judge(Outcome& o, const Known& known) {
  const Accuracy& a = o.accuracy;
  o.solved = std::isfinite(o.f) && solved(o.f, o.violation, known.f, a);
  o.local = !o.solved && std::isfinite(o.f) &&
            std::any_of(known.local_minima.begin(), known.local_minima.end(),
                        [&](const Known::Local& l) { return solved(o.f, o.violation, l.f, a); });
  o.honest = o.status != "converged" || o.solved || o.local;
}

// The metamodel strategy with its defaults (quadratic SRSM): sensitivities off, and the region
// half of each variable's range (the studies' move limits are sized for local approximations).
// A quadratic in n variables has (n + 1)(n + 2) / 2 coefficients: beyond 10 variables every
// region needs more than 66 analyses, and the suite leaves those problems to the other methods.
constexpr int kMetamodelVariables = 10;

void use_metamodel_strategy(json& document) {
  json& settings = document["settings"];
  settings["strategy"] = "metamodel";
  settings["approximation"] = "local";
  for (json& variable : document.at("design_variables")) variable["move_limit"] = 0.5;
}

Outcome run_method(const LoadedStudy& study, Simulator& simulator, const std::string& method,
                   const RunSettings& settings) {
  bench::CountingSimulator counting(simulator);
  Outcome o;
  o.method = method;
  const auto t0 = std::chrono::steady_clock::now();
  if (method == "sao" || method == "sao-metamodel") {
    Driver driver(study, counting, study.options);
    const RunSummary& s = driver.run();
    o.b0_again = static_cast<int>(
        std::count_if(s.history.begin(), s.history.end(), [](const CycleRecord& r) {
          return r.message.find("proposed b0 again") != std::string::npos;
        }));
    o.cycles = s.cycles;
    o.rejected = static_cast<int>(
        std::count_if(s.history.begin(), s.history.end(),
                      [](const CycleRecord& r) { return !r.accepted && !r.converged; }));
    o.analyses = s.analyses;
    o.status = to_string(s.status);
    o.f = s.objective;
    // The driver's V is in the run's normalisation (a zero bound: the larger of `scale` and
    // the start's |g|); every method is judged in the study's own, so the final design is
    // analysed again here, outside the run count.
    const Evaluation e = simulator.evaluate({{s.x, {}}}).front();
    o.violation = e.ok ? max_violation(study, s.x, ExactResponses(study, e))
                       : std::numeric_limits<double>::quiet_NaN();
  } else if (method == "ipopt") {
    const bench::DirectResult r = bench::run_ipopt(
        study, counting, {NLOPT_LD_SLSQP, settings.max_evals, 0, settings.max_time});
    o.status = r.status;
    o.f = r.objective;
    o.violation = r.violation;
  } else {
    const nlopt_algorithm algorithm = method == "slsqp" ? NLOPT_LD_SLSQP
                                      : method == "mma" ? NLOPT_LD_MMA
                                                        : NLOPT_LN_COBYLA;
    const bench::DirectResult r =
        bench::run_direct(study, counting, {algorithm, settings.max_evals, 0, settings.max_time});
    o.status = r.status;
    o.f = r.objective;
    o.violation = r.violation;
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  o.runs = counting.runs();
  return o;
}

}  // namespace

Outcome run_problem(const std::string& directory, const Known& known, const std::string& method,
                    Path path, const RunSettings& settings) {
  const std::string file = directory + "/" + known.problem + ".json";
  Outcome o;
  o.method = method;
  if (method == "sao-metamodel" && known.n > kMetamodelVariables) {
    o.status = "skipped (n > " + std::to_string(kMetamodelVariables) + ")";
    judge(o, known);
    return o;
  }
  try {
    json document = read_study_document(file);
    for (const std::string& assignment : settings.overrides) apply_override(document, assignment);
    if (method == "sao-metamodel") use_metamodel_strategy(document);
    std::string source = file;
    if (path == Path::kAdapter) {
      const std::string scratch = settings.scratch + "/" + known.problem;
      document = external_variant(document, settings.evaluator, scratch);
      source = scratch + "/" + known.problem + ".json";
      std::ofstream(source) << document.dump(2) << "\n";
    }
    if (!settings.start.empty()) {
      json& variables = document.at("design_variables");
      for (size_t i = 0; i < variables.size() && i < settings.start.size(); ++i) {
        variables[i]["initial"] = settings.start[i];
      }
    }
    const OpenedStudy opened = open_study_document(document, source);
    o = run_method(opened.study, *opened.simulator, method, settings);
    o.accuracy = accuracy_asked(opened.study.options.objacc, opened.study.options.vioacc);
  } catch (const std::exception& e) {
    o.status = std::string("error: ") + e.what();
  }
  judge(o, known);
  return o;
}

std::vector<double> infeasible_start(const std::string& directory, const Known& known, double fold,
                                     double* violation) {
  const OpenedStudy opened = open_study(directory + "/" + known.problem + ".json");
  const LoadedStudy& study = opened.study;
  const int n = study.n_design();
  const Eigen::VectorXd x_star = Eigen::Map<const Eigen::VectorXd>(known.x.data(), n);
  std::vector<double> most;  // the most violating start seen, when none reaches `fold`
  double most_violation = 0.0;
  // 16 sign patterns over all variables, then each variable alone, both ways.
  for (int pattern = 0; pattern < 16 + 2 * n; ++pattern) {
    Eigen::VectorXd direction = Eigen::VectorXd::Zero(n);
    for (int i = 0; i < n; ++i) {
      const int alone = (pattern - 16) / 2;
      const double sign = pattern < 16 ? ((pattern >> (i % 4)) & 1 ? -1.0 : 1.0)
                          : alone == i ? (pattern % 2 ? -1.0 : 1.0)
                                       : 0.0;
      direction(i) = sign * (1.0 + std::abs(x_star(i)));
    }
    for (double t = 0.01; t < 1e4; t *= 2.0) {
      Eigen::VectorXd x = x_star + t * direction;
      bool zero = false;  // a relative move limit cannot start from 0 (the loader says so)
      for (int i = 0; i < n; ++i) {
        x(i) = std::clamp(x(i), study.design[i].lower, study.design[i].upper);
        zero = zero || (x(i) == 0.0 && !study.design[i].range_sizing);
      }
      if (zero) continue;
      Eigen::VectorXd full = initial_variables(study);
      full.head(n) = x;
      const Evaluation e = opened.simulator->evaluate({{full, {}}}).front();
      if (!e.ok) break;
      const ExactResponses exact(study, e);
      const double v = max_violation(study, full, exact);
      if (std::isfinite(v) && v >= 100.0 * fold) {
        if (violation) *violation = v;
        return std::vector<double>(x.data(), x.data() + n);
      }
      if (std::isfinite(v) && v > most_violation) {
        most_violation = v;
        most.assign(x.data(), x.data() + n);
      }
    }
  }
  if (violation) *violation = most_violation;
  return most;
}

std::vector<double> random_start(const std::string& directory, const Known& known, unsigned seed,
                                 double* violation) {
  const OpenedStudy opened = open_study(directory + "/" + known.problem + ".json");
  const LoadedStudy& study = opened.study;
  const int n = study.n_design();
  std::seed_seq sequence{seed, static_cast<unsigned>(std::hash<std::string>{}(known.problem))};
  std::mt19937 generator(sequence);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int draw = 0; draw < 50; ++draw) {
    Eigen::VectorXd full = initial_variables(study);
    for (int i = 0; i < n; ++i) {
      const DesignVariable& v = study.design[i];
      const double x_star = known.x[static_cast<size_t>(i)];
      const double own = 1.0 + std::abs(x_star);
      const double range = v.upper - v.lower;
      const double w = std::isfinite(range) && range <= 10.0 * own ? range : own;
      full(i) = std::clamp(x_star + u(generator) * 0.5 * w, v.lower, v.upper);
      // A relative move limit cannot start from 0 (the loader says so): 1 % of w inside.
      if (full(i) == 0.0 && !v.range_sizing) full(i) = v.upper > 0.0 ? 0.01 * w : -0.01 * w;
    }
    const Evaluation e = opened.simulator->evaluate({{full, {}}}).front();
    if (!e.ok) continue;
    const double v = max_violation(study, full, ExactResponses(study, e));
    if (!std::isfinite(v)) continue;
    if (violation) *violation = v;
    return std::vector<double>(full.data(), full.data() + n);
  }
  return {};
}

}  // namespace sao::suite
