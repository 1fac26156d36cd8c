// The internal simulator's speed in one run (issue 25), printed side by side:
//   1. the truck quarter car as a multibody model against the dedicated model: one analysis
//      (the three load cases of the study at its initial design, one thread) and the whole
//      study (`sao run FILE --no-store`, CPU and wall time, with its final objective);
//   2. the 10-link pendulum chain (bench/pendulum_chain.hpp): one analysis and the gradient /
//      analysis ratio of its integral response for 1..50 parameters by forward differences,
//      direct and adjoint (one thread);
//   3. the quarter car's gradients of every retained time point (3 histories x 601 points x 3
//      load cases, 6 design variables) by direct, the adjoint with one backward solve per value
//      (dedicated model only), the adjoint's shared backward sweep and auto, on one thread;
//   4. one analysis of the pendulum chain of N = 5..160 links and of a pinned beam of 5..100
//      elements (--largest-chain N, --largest-beam E: up to N and E; --beam-end T: the beams'
//      simulated time, default 1 s), CPU time, steps, time per step and the log-log slope
//      (issue 52): the chain in CVODES with dense and sparse linear algebra, the same chain
//      driven (a kinematic analysis) dense and sparse, with its direct and adjoint gradients
//      for N = 20, 80, 160 and one output gradient (Dynamics::out<AD>) on the dynamic chain
//      (kinematic_gradients.cpp), the beam in CVODES
//      dense (up to 20 elements) and sparse (up to --beam-cvodes-up-to E), sparse with
//      "jacobian_age" 0, and in the variational integrator at the step --beam-step H (default
//      1e-3 s), with the largest difference of its tip's trajectory from the column before
//      (--beam-damping MU: every element damped in proportion to its stiffness, the beam's
//      "damping" MU seconds; default 0, undamped; --beam-damping critical: the undamped beam
//      beside the same beam with the damping the simulator's warning names, 2 / (2 sqrt(3 E /
//      rho) / L0), which damps its elements' fastest waves critically, in CVODES sparse and
//      sparse with "jacobian_age" 0);
//   5. the same chain written with Simbody (the program sao_simbody_chain, CPodes BDF at 1e-8)
//      beside sao's default choice, N = 5..160: CPU per analysis, their ratio and the largest
//      difference of the tip's trajectory (built only when CMake found Simbody; without it the
//      section says so, and `--section 5` exits with status 4);
//   6. the gradients' cost on the chain of 80 links (--gradient-chain N): one analysis, the
//      direct and the adjoint method, the variational integrator's discrete direct and adjoint,
//      for 1..16 parameters and 1 or 3 responses, with the gradients' agreement
//      (gradient_cost.cpp);
//   7. a row of N = 10..640 sliders (--largest-slider-row N) in independent coordinates with
//      dense and sparse equations, in absolute coordinates (sparse) and under "auto" (issue 52).
// Each figure is the median CPU time of `repeats` runs (default 3; --repeats N); --skip-study
// leaves out the whole studies (the longest part); --section N runs section N only; --sao PATH
// runs the studies with another sao program; --chain-study FILE writes the chain of section 2 as a
// study file and stops (its gradients by any sao: `sao check-gradient FILE --json`);
// --size-study chain|driven|sliders N FILE writes a size bench's model as a study and stops
// (for `sao simulate FILE --set simulator.multibody.linear_algebra=sparse`, perf, callgrind).
//
//   nice -n 10 build/sao_speed
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/pendulum_chain.hpp"
#include "bench/speed/speed.hpp"
#include "sao/study/study_loader.hpp"
#include "simulators/internal_simulator.hpp"

namespace {

int g_repeats = 3;
std::string g_sao = SAO_COMMAND;  // the sao program of the whole studies (--sao PATH)

using sao::bench::speed::cpu_seconds;
using sao::bench::speed::median;

// The median CPU time of `g_repeats` calls of `body` (speed.hpp).
double median_seconds(const std::function<void()>& body, double* wall = nullptr,
                      double* spread = nullptr) {
  return sao::bench::speed::median_seconds(g_repeats, body, wall, spread);
}

std::string study_path(const char* name) {
  return std::string(SAO_SOURCE_DIR) + "/problems/truck-damper/" + name;
}

// The simulator of a study file with the given gradient method, on one thread.
struct StudySimulator {
  sao::Study study;
  std::unique_ptr<sao::Simulator> simulator;
  Eigen::VectorXd start;
};

// `sweep`, when given: simulator.gradients.adjoint_sweep ("shared" or "per_value").
StudySimulator study_simulator(const char* name, const std::string& method,
                               const char* sweep = nullptr) {
  StudySimulator s{sao::load_study_file(study_path(name)), nullptr, {}};
  s.study.simulator["workers"] = 1;
  s.study.simulator["gradients"]["method"] = method;
  if (sweep) s.study.simulator["gradients"]["adjoint_sweep"] = sweep;
  s.simulator = sao::make_simulator(s.study.simulator_setup());
  s.start.resize(s.study.n_design());
  for (int i = 0; i < s.study.n_design(); ++i) s.start(i) = s.study.design[i].initial;
  return s;
}

// The time of one evaluation of `s` at its start with the derivative requests `wanted`;
// `method` gets the gradient method of each load case of the last run ("; " between them).
double evaluation_seconds(StudySimulator& s, const std::vector<sao::DerivativeRequest>& wanted,
                          std::string* method = nullptr, double* spread = nullptr) {
  return median_seconds(
      [&] {
        const auto e = s.simulator->evaluate({{s.start, wanted}});
        if (!e[0].ok) throw std::runtime_error(e[0].message);
        if (!method) return;
        method->clear();
        for (const auto& c : e[0].cases)
          *method += (method->empty() ? "" : "; ") + c.gradient_method;
      },
      nullptr, spread);
}

// Every point of the model's histories behind the study's responses, every load case.
std::vector<sao::DerivativeRequest> all_points(const StudySimulator& s,
                                               const std::vector<std::string>& histories) {
  std::vector<sao::DerivativeRequest> out;
  for (int c = 0; c < static_cast<int>(s.study.load_cases.size()); ++c) {
    for (const std::string& h : histories) out.push_back({c, h, {}});
  }
  return out;
}

// `sao run FILE --no-store`: its CPU time (wall time into `wall`) and its "objective" line.
double run_study(const std::string& file, std::string& result, double& wall) {
  const std::string out = "/tmp/sao-speed-" + std::to_string(getpid());
  const std::string command = g_sao + " run " + file + " --no-store --out " + out + " 2>&1";
  return median_seconds(
      [&] {
        std::filesystem::remove_all(out);  // --no-store refuses a folder with a result
        FILE* pipe = popen(command.c_str(), "r");
        if (!pipe) throw std::runtime_error("cannot run " + command);
        std::array<char, 4096> line{};
        std::string last;
        while (fgets(line.data(), line.size(), pipe)) {
          const std::string text(line.data());
          if (text.find("objective") != std::string::npos || last.empty()) last = text;
        }
        const int status = pclose(pipe);
        if (status != 0 && WEXITSTATUS(status) > 1) throw std::runtime_error(command + " failed");
        result = last.substr(0, last.find_last_not_of('\n') + 1);
      },
      &wall);
}

void quarter_car_analysis() {
  fmt::print("\n1. Truck quarter car: multibody model against the dedicated model\n");
  auto dedicated = study_simulator("quarter-car.json", "direct");
  auto multibody = study_simulator("quarter-car-multibody.json", "direct");
  const double a = evaluation_seconds(dedicated, {});
  const double b = evaluation_seconds(multibody, {});
  fmt::print("{:<46} {:>12} {:>12} {:>8}\n", "", "dedicated", "multibody", "ratio");
  fmt::print("{:<46} {:>10.1f}ms {:>10.1f}ms {:>8.2f}\n", "one analysis (3 load cases), CPU",
             1e3 * a, 1e3 * b, b / a);
}

void quarter_car_study() {
  std::string dedicated_result, multibody_result;
  double wall_a = 0, wall_b = 0;
  const double a = run_study(study_path("quarter-car.json"), dedicated_result, wall_a);
  const double b = run_study(study_path("quarter-car-multibody.json"), multibody_result, wall_b);
  fmt::print("{:<46} {:>11.2f}s {:>11.2f}s {:>8.2f}\n", "whole study, wall", wall_a, wall_b,
             wall_b / wall_a);
  fmt::print("{:<46} {:>11.2f}s {:>11.2f}s {:>8.2f}\n", "whole study, CPU (sao run --no-store)", a,
             b, b / a);
  fmt::print("  dedicated: {}\n  multibody: {}\n", dedicated_result, multibody_result);
}

// One analysis and one gradient of the chain's "tip" with the first n parameters, by method.
struct ChainFigures {
  double analysis = 0.0, gradient = 0.0;
};

// The internal simulator's section of section 2, gradients by `method`; `keep`:
// gradients.keep_forward (an analysis keeps its forward pass for an adjoint gradient next).
nlohmann::json chain_section(const std::string& method, bool keep = true) {
  return {{"type", "internal"},
          {"model", "multibody"},
          {"rtol", 1e-6},
          {"atol", 1e-8},
          {"workers", 1},
          {"gradients", {{"method", method}, {"step", 1e-4}, {"keep_forward", keep}}}};
}

// The chain's simulator with its first n parameters as design variables (their values into b),
// through the seam only: no layout of the simulator in this program.
std::unique_ptr<sao::Simulator> chain_simulator(const nlohmann::json& section, int n,
                                                Eigen::VectorXd& b) {
  return sao::make_simulator(
      sao::bench::chain_setup(sao::bench::pendulum_chain(10), section, n, b));
}

void evaluate_chain(sao::Simulator& sim, const Eigen::VectorXd& b,
                    const std::vector<sao::DerivativeRequest>& wanted) {
  const auto e = sim.evaluate({{b, wanted}});
  if (!e[0].ok) throw std::runtime_error(e[0].message);
}

const std::vector<sao::DerivativeRequest> kTip = {{0, "tip", {}}};

// Analyses and gradients from nothing, each timed on its own (the adjoint without a kept
// forward pass: it integrates its own).
ChainFigures chain_figures(const std::string& method, int n) {
  Eigen::VectorXd b;
  const auto sim = chain_simulator(chain_section(method, false), n, b);
  return {median_seconds([&] { evaluate_chain(*sim, b, {}); }),
          median_seconds([&] { evaluate_chain(*sim, b, kTip); })};
}

// The adjoint gradient at the design just analysed, the order of an SAO cycle: each analysis
// keeps its forward pass, the gradient after it integrates the backward problem only. The
// medians of the analyses and of the gradients after them.
ChainFigures chain_after_analysis(int n) {
  Eigen::VectorXd b;
  const auto sim = chain_simulator(chain_section("adjoint", true), n, b);
  std::vector<double> analyses, gradients;
  for (int r = 0; r < g_repeats; ++r) {
    const double c0 = cpu_seconds();
    evaluate_chain(*sim, b, {});
    const double c1 = cpu_seconds();
    evaluate_chain(*sim, b, kTip);
    analyses.push_back(c1 - c0);
    gradients.push_back(cpu_seconds() - c1);
  }
  return {median(analyses), median(gradients)};
}

// `study` into the file `path`.
void write_json(const std::string& path, const nlohmann::json& study) {
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (!out) throw std::runtime_error("cannot write " + path);
  fmt::print(out, "{}\n", study.dump(1));
  std::fclose(out);
}

// The chain of section 2 as a study file (every one of its 50 parameters a design variable,
// within +-(50 % + 0.1) of its value; objective "tip"; adjoint gradients), so that any `sao`
// can compare its gradients: `sao check-gradient FILE --json`.
void write_chain_study(const std::string& path) {
  nlohmann::json chain = sao::bench::pendulum_chain(10), section = chain_section("adjoint");
  section["gradients"].erase("keep_forward");  // the default; older `sao` do not know it
  nlohmann::json variables = nlohmann::json::array();
  for (const auto& [name, value] : chain.at("parameters").items()) {
    const double v = value.get<double>(), room = 0.5 * std::abs(v) + 0.1;
    nlohmann::json variable = {
        {"name", name}, {"lower", v - room}, {"upper", v + room}, {"initial", v}};
    if (v == 0.0) variable["sizing"] = "range";
    variables.push_back(variable);
  }
  section["multibody"] = chain;
  write_json(path, {{"name", "10-link pendulum chain (sao_speed section 2)"},
                    {"design_variables", variables},
                    {"load_cases",
                     {{{"name", "swing"}, {"time", {{"start", 0}, {"end", 1}, {"points", 11}}}}}},
                    {"responses", {{{"name", "tip"}, {"kind", "scalar"}}}},
                    {"objective", {{"name", "tip"}, {"minimize", "tip"}}},
                    {"simulator", section}});
}

// --size-study MODEL N FILE: a size bench's model (issue 52, docs/performance.md) as a study for
// `sao simulate FILE` (and perf or callgrind), with `--set simulator.multibody.linear_algebra=`,
// `.coordinates=` or `load_cases.0.time.points=` on its command line: "chain" (section 4's
// pendulum chain of N links), "driven" (the same chain driven: a kinematic analysis) or
// "sliders" (N masses on guides: linear constraints). Its first parameter a design variable;
// the watched history the last link's vertical acceleration or the last slider's x; 1 s in 11
// points, rtol 1e-8, atol 1e-10, one thread.
void write_size_study(const std::string& kind, int n, const std::string& path) {
  nlohmann::json model;
  std::string watched;
  if (kind == "chain" || kind == "driven") {
    model = kind == "chain" ? sao::bench::pendulum_chain(n) : sao::bench::driven_chain(n);
    watched = fmt::format("link{}.ay", n);
  } else if (kind == "sliders") {
    model = sao::bench::slider_row(n);
    watched = fmt::format("s{}.x", n);
  } else {
    throw std::runtime_error("--size-study expects chain, driven or sliders, not " + kind);
  }
  const auto first = model.at("parameters").begin();
  const double value = first.value().get<double>();
  write_json(
      path,
      {{"name", fmt::format("{} of {} (sao_speed --size-study)", kind, n)},
       {"design_variables",
        {{{"name", first.key()},
          {"initial", value},
          {"lower", 0.5 * value},
          {"upper", 2.0 * value}}}},
       {"load_cases", {{{"name", "run"}, {"time", {{"start", 0}, {"end", 1}, {"points", 11}}}}}},
       {"responses", {{{"name", "watched"}, {"kind", "history"}, {"source", watched}}}},
       {"objective", {{"name", "objective"}, {"minimize", "watched[1]"}}},
       {"simulator",
        {{"type", "internal"},
         {"model", "multibody"},
         {"rtol", 1e-8},
         {"atol", 1e-10},
         {"workers", 1},
         {"multibody", model}}}});
}

void chain() {
  fmt::print(
      "\n2. 10-link pendulum chain (30 coordinates, 20 constraints), integral response, 1 s, "
      "1 thread: gradient / analysis\n");
  fmt::print(
      "     (adjoint: the gradient from nothing; kept: an analysis keeping its forward pass, and "
      "the adjoint gradient after it, both / analysis)\n");
  fmt::print("{:>4} {:>12} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "P", "analysis", "forward",
             "direct", "adjoint", "kept", "after it");
  for (int n : {1, 2, 5, 10, 20, 50}) {
    const ChainFigures f = chain_figures("forward", n), d = chain_figures("direct", n),
                       a = chain_figures("adjoint", n), k = chain_after_analysis(n);
    fmt::print("{:>4} {:>10.1f}ms {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f}\n", n,
               1e3 * a.analysis, f.gradient / f.analysis, d.gradient / d.analysis,
               a.gradient / a.analysis, k.analysis / a.analysis, k.gradient / a.analysis);
  }
}

// Section 3: every method's row, then auto against direct and the shared sweep side by side.
void quarter_car_points() {
  fmt::print(
      "\n3. Quarter car: gradients of every retained point (3 histories x 601 points x 3 load "
      "cases, 6 variables), 1 thread; spread: (max - min) / median of the runs\n");
  fmt::print("{:<10} {:<18} {:>12} {:>8} {:>12}   {}\n", "model", "method", "time", "spread",
             "/ analysis", "chosen (per load case)");
  const std::vector<std::pair<const char*, std::vector<std::string>>> models = {
      {"quarter-car.json", {"deflection", "chassis_acceleration", "tyre_deflection"}},
      {"quarter-car-multibody.json", {"suspension.length", "chassis.ay", "tyre.length"}}};
  struct Method {
    const char* label;
    const char* method;
    const char* sweep;  // simulator.gradients.adjoint_sweep, or null
  };
  for (const auto& [file, histories] : models) {
    const bool multibody = std::strstr(file, "multibody") != nullptr;
    const char* model = multibody ? "multibody" : "dedicated";
    // The multibody model's per-value adjoint (5418 backward solves) would take minutes.
    std::vector<Method> methods = {{"direct", "direct", nullptr}};
    if (!multibody) methods.push_back({"adjoint per value", "adjoint", "per_value"});
    methods.push_back({"adjoint shared", "adjoint", "shared"});
    methods.push_back({"auto", "auto", nullptr});
    std::vector<std::pair<double, double>> times(methods.size(), {0.0, -1.0});  // median, spread
    for (size_t i = 0; i < methods.size(); ++i) {
      const Method& m = methods[i];
      auto s = study_simulator(file, m.method, m.sweep);
      const double analysis = evaluation_seconds(s, {});
      std::string chosen;
      double spread = 0.0, t = 0.0;
      try {  // a failed method is a row of the table, not the end of the run
        t = evaluation_seconds(s, all_points(s, histories), &chosen, &spread);
      } catch (const std::runtime_error& e) {
        fmt::print("{:<10} {:<18} failed: {}\n", model, m.label, e.what());
        continue;
      }
      times[i] = {t, spread};
      fmt::print("{:<10} {:<18} {:>10.1f}ms {:>7.0f}% {:>12.2f}   {}\n", model, m.label, 1e3 * t,
                 100.0 * spread, t / analysis, chosen);
    }
    // Issue 25: the chosen method no slower than direct (within the runs' scatter).
    const auto& direct = times.front();
    const auto& sweep = times[methods.size() - 2];
    const auto& chosen = times.back();
    if (direct.second < 0 || chosen.second < 0) continue;
    fmt::print(
        "{:<10} auto / direct {:.2f}, shared sweep / direct {}; scatter of the three "
        "{:.0f}%, {:.0f}%, {:.0f}%\n",
        model, chosen.first / direct.first,
        sweep.second < 0 ? std::string("failed")
                         : fmt::format("{:.2f}", sweep.first / direct.first),
        100.0 * chosen.second, 100.0 * direct.second, std::max(0.0, 100.0 * sweep.second));
  }
}

// Section 4 (issue 52): how one analysis's cost grows with the model. The simulator's default
// settings (BDF, rtol 1e-8, atol 1e-10), 1 s, 11 points, no gradient, one thread.
struct Growth {
  double seconds = 0.0;
  long steps = 0;
  sao::CaseResult result;  // the last run's
};

// The CPU time of `once`: the median of g_repeats runs, or one run when that one took more
// than 2 s (speed.hpp).
double growth_seconds(const std::function<void()>& once) {
  return sao::bench::speed::long_or_median_seconds(g_repeats, once);
}

// One analysis of the multibody model `model` (its parameters not design variables) from 0 to
// `end` (11 points).
Growth analysis_growth(const nlohmann::json& model, double end = 1.0) {
  Eigen::VectorXd b;
  // CVODES's step limit per output interval raised from 100,000: a beam of 100 elements takes
  // about 120,000 steps per 0.1 s.
  sao::SimulatorSetup setup = sao::bench::chain_setup(
      model,
      {{"type", "internal"}, {"model", "multibody"}, {"workers", 1}, {"max_steps", 10000000}}, 0,
      b);
  setup.load_cases[0].grid = sao::TimeGrid(0.0, end, 11);
  const auto sim = sao::make_simulator(setup);
  Growth g;
  g.seconds = growth_seconds([&] {
    auto e = sim->evaluate({{b, {}}});
    if (!e[0].ok) throw std::runtime_error(e[0].message);
    g.steps = e[0].cases[0].integrator_steps;
    g.result = std::move(e[0].cases[0]);
  });
  return g;
}

// One way of running the models of a growth table: its name, the model's settings, the largest
// size it runs.
struct Configuration {
  std::string name;
  std::function<void(nlohmann::json&)> set;
  int up_to = 1 << 30;
};

// The largest difference of the histories <node>.x and <node>.y between two analyses.
double tip_difference(const Growth& a, const Growth& b, const std::string& node) {
  double worst = 0.0;
  for (const char* c : {".x", ".y"}) {
    const Eigen::VectorXd& u = a.result.histories.at(node + c);
    const Eigen::VectorXd& v = b.result.histories.at(node + c);
    worst = std::max(worst, (u - v).cwiseAbs().maxCoeff());
  }
  return worst;
}

// A table of one analysis (from 0 to `end`) per size in each configuration ("-" above its
// up_to), with each configuration's CPU ratio to the one before it and, when `tip` names the
// size's tip node, the largest difference of its trajectory from the one before; then the
// log-log slopes of the CPU times from `from` to the largest size.
void growth_table(const char* what, const std::vector<int>& sizes, int from,
                  const std::function<nlohmann::json(int)>& model, double end,
                  const std::vector<Configuration>& configurations,
                  const std::function<std::string(int)>& tip = nullptr) {
  const size_t count = configurations.size();
  std::string header = fmt::format("{:>6}", what);
  for (size_t k = 0; k < count; ++k) {
    header += fmt::format(" {:>11} {:>7} {:>11}", configurations[k].name, "steps", "per step");
    if (k > 0) header += fmt::format(" {:>8}", "ratio");
    if (k > 0 && tip) header += fmt::format(" {:>9}", "tip diff");
  }
  fmt::print("{}\n", header);
  std::vector<double> first(count, 0.0), last(count, 0.0);
  std::vector<int> to(count, 0);
  for (int n : sizes) {
    std::vector<Growth> g(count);
    std::string line = fmt::format("{:>6}", n);
    for (size_t k = 0; k < count; ++k) {
      const bool runs = n <= configurations[k].up_to;
      const bool before = k > 0 && n <= configurations[k - 1].up_to;
      if (runs) {
        nlohmann::json m = model(n);
        configurations[k].set(m);
        g[k] = analysis_growth(m, end);
        if (n == from) first[k] = g[k].seconds;
        last[k] = g[k].seconds;
        to[k] = n;
        if (g[k].steps < 0) {  // a kinematic analysis: no integrator steps
          line += fmt::format(" {:>10.3f}s {:>7} {:>11}", g[k].seconds, "-", "-");
        } else {
          line += fmt::format(" {:>10.3f}s {:>7} {:>9.1f}us", g[k].seconds, g[k].steps,
                              1e6 * g[k].seconds / static_cast<double>(std::max(1L, g[k].steps)));
        }
      } else {
        line += fmt::format(" {:>11} {:>7} {:>11}", "-", "-", "-");
      }
      if (k == 0) continue;
      const bool both = runs && before;
      line += both ? fmt::format(" {:>8.2f}", g[k].seconds / g[k - 1].seconds)
                   : fmt::format(" {:>8}", "-");
      if (tip) {
        line += both ? fmt::format(" {:>7.1e} m", tip_difference(g[k], g[k - 1], tip(n)))
                     : fmt::format(" {:>9}", "-");
      }
    }
    fmt::print("{}\n", line);
  }
  for (size_t k = 0; k < count; ++k) {
    if (first[k] > 0.0 && to[k] > from) {
      fmt::print("log-log slope of the CPU time from {} to {}, {}: {:.2f}\n", from, to[k],
                 configurations[k].name,
                 std::log(last[k] / first[k]) / std::log(static_cast<double>(to[k]) / from));
    }
  }
}

// "linear_algebra" forced to `choice`.
Configuration linear_algebra(const char* choice, int up_to = 1 << 30) {
  return {choice, [choice](nlohmann::json& m) { m["linear_algebra"] = choice; }, up_to};
}

// Section 4's settings: the largest chain and beam, the beams' simulated time, the variational
// integrator's step and the largest beam run by CVODES.
struct GrowthSettings {
  int largest_chain = 160;
  int largest_beam = 100;
  double beam_end = 1.0;
  double beam_step = 1e-3;
  int beam_cvodes_up_to = 100;
  double beam_damping = 0.0;   // the beams' "damping" (stiffness-proportional time constant, s)
  bool beam_critical = false;  // --beam-damping critical
};

// The damping that sao's warning on an undamped beam names (multibody.cpp, step_note): 2 over
// its elements' fastest wave, 2 sqrt(3 E / rho) / L0, for the first beam of a beam_link model
// (its modulus and density the names of parameters, its length a number).
double critical_element_damping(const nlohmann::json& model) {
  const nlohmann::json& beam = model.at("beams").at(0);
  const nlohmann::json& parameters = model.at("parameters");
  const double modulus = parameters.at(beam.at("modulus").get<std::string>()).get<double>();
  const double density = parameters.at(beam.at("density").get<std::string>()).get<double>();
  const double element = beam.at("length").get<double>() / beam.at("elements").get<double>();
  return 2.0 / (2.0 * std::sqrt(3.0 * modulus / density) / element);
}

// The beams' dense runs stop at 20 elements (75 s at 20, growing as E^2.7: docs/performance.md).
// A beam runs in CVODES (BDF) with dense and sparse linear algebra (its default Jacobian age, 1),
// sparse with "jacobian_age" 0 (CVODES's defaults), and in the variational integrator at a
// fixed step (docs/variational.md), its tip (the last node) compared with the column before.
void growth(const GrowthSettings& settings) {
  fmt::print(
      "\n4. One analysis against the model's size (rtol 1e-8, atol 1e-10, 1 thread), CPU, "
      "\"linear_algebra\" dense and sparse (ratio: to the column before)\n"
      "pendulum chain (bench/pendulum_chain_model.hpp), N links, 1 s:\n");
  std::vector<int> links;
  for (int n : {5, 10, 20, 40, 80, 160}) {
    if (n <= settings.largest_chain) links.push_back(n);
  }
  if (!links.empty()) {
    growth_table("N", links, 20, sao::bench::pendulum_chain, 1.0,
                 {linear_algebra("dense"), linear_algebra("sparse")});
    fmt::print(
        "the same chain driven (bench/pendulum_chain_model.hpp driven_chain: a kinematic analysis, "
        "11 points; tip diff: the last link's largest difference from the column before)\n");
    growth_table("N", links, 20, sao::bench::driven_chain, 1.0,
                 {linear_algebra("dense"), linear_algebra("sparse")},
                 [](int n) { return fmt::format("link{}", n); });
    sao::bench::speed::kinematic_gradient_cost(settings.largest_chain, g_repeats);
  }
  const std::string columns =
      settings.beam_critical
          ? "CVODES sparse undamped, then damped with 2 / (2 sqrt(3 E / rho) / L0) s (its "
            "elements' fastest waves critically) sparse and with \"jacobian_age\" 0"
          : fmt::format(
                "CVODES dense and sparse (a Newton matrix every step), sparse with "
                "\"jacobian_age\" 0 (CVODES's own) and the variational integrator at h = {} s{}",
                settings.beam_step,
                settings.beam_damping > 0.0
                    ? fmt::format("; every element damped in proportion to its stiffness, "
                                  "\"damping\" {} s",
                                  settings.beam_damping)
                    : std::string());
  fmt::print(
      "beam link (a pinned beam of E elements), from 0 to {} s: {} (tip diff: the last node's "
      "largest difference from the column before over the 11 points)\n",
      settings.beam_end, columns);
  std::vector<int> elements;
  for (int e : {5, 10, 20, 50, 100}) {
    if (e <= settings.largest_beam) elements.push_back(e);
  }
  const int cvodes = settings.beam_cvodes_up_to;
  const double h = settings.beam_step;
  const Configuration reuse{"sparse-age0", [](nlohmann::json& m) {
                              m["linear_algebra"] = "sparse";
                              m["jacobian_age"] = 0;
                            }};
  const Configuration variational{"variational", [h](nlohmann::json& m) {
                                    m["integrator"] = {{"type", "variational"}, {"step", h}};
                                  }};
  if (!elements.empty()) {
    const double damping = settings.beam_damping;
    const auto beam = [damping](int e) {
      nlohmann::json model = sao::bench::beam_link(e);
      if (damping > 0.0) model["beams"][0]["damping"] = damping;
      return model;
    };
    const auto node = [](int e) { return fmt::format("b_{}", e); };
    if (settings.beam_critical) {
      const auto critical = [](const std::string& name, long age) {
        return Configuration{name, [age](nlohmann::json& m) {
                               m["linear_algebra"] = "sparse";
                               if (age >= 0) m["jacobian_age"] = age;
                               m["beams"][0]["damping"] = critical_element_damping(m);
                             }};
      };
      growth_table("E", elements, 10, beam, settings.beam_end,
                   {linear_algebra("sparse", cvodes), critical("sparse-critical", -1),
                    critical("age0-critical", 0)},
                   node);
      return;
    }
    growth_table("E", elements, 10, beam, settings.beam_end,
                 {linear_algebra("dense", std::min(20, cvodes)), linear_algebra("sparse", cvodes),
                  reuse, variational},
                 node);
  }
}

// Section 7 (issue 52, branch redsparse): a row of N sliders (bench/pendulum_chain_model.hpp
// slider_row: k = N independent coordinates, a banded reduced Jacobian) in independent
// coordinates with dense and with sparse equations, in absolute coordinates (sparse) and under
// "auto", N = 10..`largest`.
void slider_row(int largest) {
  fmt::print(
      "\n7. A row of N sliders (k = N independent coordinates), 1 s, CPU: independent coordinates "
      "dense and sparse, absolute sparse, auto (ratio: to the column before; tip diff: the last "
      "slider's)\n");
  std::vector<int> sizes;
  for (int n : {10, 20, 40, 80, 160, 320, 640}) {
    if (n <= largest) sizes.push_back(n);
  }
  const Configuration absolute{"absolute", [](nlohmann::json& m) {
                                 m["coordinates"] = "absolute";
                                 m["linear_algebra"] = "sparse";
                               }};
  const Configuration automatic{"auto", [](nlohmann::json&) {}};
  growth_table("N", sizes, 80, sao::bench::slider_row, 1.0,
               {linear_algebra("dense"), linear_algebra("sparse"), absolute, automatic},
               [](int n) { return fmt::format("s{}", n); });
  sao::bench::speed::slider_gradient_cost(largest, g_repeats);
}

// One analysis of the chain of `links` links by sao_simbody_chain (bench/speed/simbody_chain.cpp):
// its CPU seconds (the median of g_repeats), steps and the tip's (x, y) at its 11 points.
struct SimbodyRun {
  double seconds = 0.0;
  long steps = 0;
  std::vector<std::array<double, 2>> tip;
};

SimbodyRun simbody_chain([[maybe_unused]] int links) {
  SimbodyRun run;
#ifdef SAO_SIMBODY_CHAIN
  const std::string command =
      fmt::format("{} {} 1e-8 {}", SAO_SIMBODY_CHAIN, links, std::max(1, g_repeats));
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run " + command);
  std::array<double, 3> point{};
  bool read = std::fscanf(pipe, "cpu %lf steps %ld", &run.seconds, &run.steps) == 2;
  while (read && std::fscanf(pipe, "%lf %lf %lf", &point[0], &point[1], &point[2]) == 3) {
    run.tip.push_back({point[1], point[2]});
  }
  if (pclose(pipe) != 0 || !read) throw std::runtime_error(command + " failed");
#endif
  return run;
}

// Section 5 (issue 52): the chain in sao ("linear_algebra" auto) and in Simbody, side by side;
// false when sao_speed was built without Simbody.
bool simbody_side_by_side(int largest_chain) {
  fmt::print(
      "\n5. The pendulum chain in sao (linear algebra auto) and in Simbody (CPodes BDF, accuracy "
      "1e-8, relative coordinates), one analysis (1 s, 11 points), CPU\n");
#ifndef SAO_SIMBODY_CHAIN
  fmt::print(
      "Simbody was not found when sao_speed was configured: install Debian's libsimbody-dev "
      "(scripts/bootstrap --with simbody), configure again and rebuild sao_speed\n");
  return false;
#endif
  fmt::print("{:>6} {:>9} {:>7} {:>10} {:>7} {:>13} {:>14}\n", "N", "sao", "steps", "Simbody",
             "steps", "sao/Simbody", "tip max diff");
  std::array<double, 2> first{}, last{};
  int to = 0;
  for (int n : {5, 10, 20, 40, 80, 160}) {
    if (n > largest_chain) break;
    const Growth g = analysis_growth(sao::bench::pendulum_chain(n));
    const SimbodyRun simbody = simbody_chain(n);
    const Eigen::VectorXd& x = g.result.histories.at(fmt::format("link{}.x", n));
    const Eigen::VectorXd& y = g.result.histories.at(fmt::format("link{}.y", n));
    if (static_cast<Eigen::Index>(simbody.tip.size()) != x.size()) {
      throw std::runtime_error("sao_simbody_chain reported another number of points");
    }
    double difference = 0.0;
    for (Eigen::Index k = 0; k < x.size(); ++k) {
      difference = std::max(
          {difference, std::abs(x(k) - simbody.tip[k][0]), std::abs(y(k) - simbody.tip[k][1])});
    }
    fmt::print("{:>6} {:>8.3f}s {:>7} {:>9.3f}s {:>7} {:>13.2f} {:>12.1e} m\n", n, g.seconds,
               g.steps, simbody.seconds, simbody.steps, g.seconds / simbody.seconds, difference);
    if (n == 20) first = {g.seconds, simbody.seconds};
    last = {g.seconds, simbody.seconds};
    to = n;
  }
  if (first[0] > 0.0 && to > 20) {
    const double span = std::log(to / 20.0);
    fmt::print("log-log slope of the CPU time from 20 to {}: sao {:.2f}, Simbody {:.2f}\n", to,
               std::log(last[0] / first[0]) / span, std::log(last[1] / first[1]) / span);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bool study = true;
  int section = 0;                 // 0: every section
  GrowthSettings growth_settings;  // section 4
  int gradient_chain = 80;         // section 6's chain (--gradient-chain N)
  int largest_slider_row = 640;    // section 7's (--largest-slider-row N)
  std::string chain_study;  // --chain-study FILE: write section 2's chain as a study, nothing else
  std::vector<std::string> size_study;  // --size-study MODEL N FILE: the same for a size bench
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--skip-study") == 0) {
      study = false;
    } else if (std::strcmp(argv[i], "--section") == 0 && i + 1 < argc) {
      section = std::atoi(argv[++i]);
      if (section < 1 || section > 7) {
        fmt::print(stderr, "sao_speed: --section expects 1 to 7\n");
        return 2;
      }
    } else if (std::strcmp(argv[i], "--sao") == 0 && i + 1 < argc) {
      g_sao = argv[++i];
    } else if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
      g_repeats = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--largest-chain") == 0 && i + 1 < argc) {
      growth_settings.largest_chain = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--largest-beam") == 0 && i + 1 < argc) {
      growth_settings.largest_beam = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--beam-end") == 0 && i + 1 < argc) {
      growth_settings.beam_end = std::atof(argv[++i]);
      if (!(growth_settings.beam_end > 0.0)) {
        fmt::print(stderr, "sao_speed: --beam-end expects a time > 0 (seconds)\n");
        return 2;
      }
    } else if (std::strcmp(argv[i], "--beam-step") == 0 && i + 1 < argc) {
      growth_settings.beam_step = std::atof(argv[++i]);
      if (!(growth_settings.beam_step > 0.0)) {
        fmt::print(stderr, "sao_speed: --beam-step expects a step > 0 (seconds)\n");
        return 2;
      }
    } else if (std::strcmp(argv[i], "--beam-damping") == 0 && i + 1 < argc &&
               std::strcmp(argv[i + 1], "critical") == 0) {
      growth_settings.beam_critical = true;
      ++i;
    } else if (std::strcmp(argv[i], "--beam-damping") == 0 && i + 1 < argc) {
      growth_settings.beam_damping = std::atof(argv[++i]);
      if (!(growth_settings.beam_damping >= 0.0)) {
        fmt::print(stderr, "sao_speed: --beam-damping expects a time constant >= 0 (seconds)\n");
        return 2;
      }
    } else if (std::strcmp(argv[i], "--beam-cvodes-up-to") == 0 && i + 1 < argc) {
      growth_settings.beam_cvodes_up_to = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--gradient-chain") == 0 && i + 1 < argc) {
      gradient_chain = std::atoi(argv[++i]);
      if (gradient_chain < 1) {
        fmt::print(stderr, "sao_speed: --gradient-chain expects a number of links >= 1\n");
        return 2;
      }
    } else if (std::strcmp(argv[i], "--largest-slider-row") == 0 && i + 1 < argc) {
      largest_slider_row = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--chain-study") == 0 && i + 1 < argc) {
      chain_study = argv[++i];
    } else if (std::strcmp(argv[i], "--size-study") == 0 && i + 3 < argc) {
      size_study.assign(argv + i + 1, argv + i + 4);
      i += 3;
    } else {
      fmt::print(stderr,
                 "usage: sao_speed [--repeats N] [--skip-study] [--section 1..7] [--sao PATH] "
                 "[--largest-chain N] [--largest-beam E] [--beam-end T] [--beam-step H] "
                 "[--beam-cvodes-up-to E] [--beam-damping MU|critical] [--gradient-chain N] "
                 "[--largest-slider-row N] "
                 "[--chain-study FILE] "
                 "[--size-study chain|driven|sliders N FILE]\n");
      return 2;
    }
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line when it is measured
  spdlog::set_level(spdlog::level::warn);    // the chosen methods are printed in the table
  // Warnings (an undamped beam's steps) on stderr, out of the tables.
  spdlog::set_default_logger(spdlog::stderr_color_mt("sao_speed"));
  sao::sim::register_internal_simulator();
  try {
    if (!chain_study.empty()) {
      write_chain_study(chain_study);
      return 0;
    }
    if (!size_study.empty()) {
      write_size_study(size_study[0], std::atoi(size_study[1].c_str()), size_study[2]);
      return 0;
    }
    fmt::print("sao_speed: medians of {} runs\n", g_repeats);
    if (section == 0 || section == 1) {
      quarter_car_analysis();
      if (study) quarter_car_study();
    }
    if (section == 0 || section == 2) chain();
    if (section == 0 || section == 3) quarter_car_points();
    if (section == 0 || section == 4) growth(growth_settings);
    if ((section == 0 || section == 5) && !simbody_side_by_side(growth_settings.largest_chain) &&
        section == 5) {
      return 4;
    }
    if (section == 0 || section == 6) sao::bench::speed::gradient_cost(gradient_chain, g_repeats);
    if (section == 0 || section == 7) slider_row(largest_slider_row);
  } catch (const std::exception& e) {
    fmt::print(stderr, "sao_speed: {}\n", e.what());
    return 3;
  }
  return 0;
}
