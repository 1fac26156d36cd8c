#include "simulators/internal_simulator.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "sao/seam/analysis_request.hpp"
#include "sao/seam/difference_batch.hpp"
#include "sao/seam/json_reader.hpp"
#include "simulators/models/functions.hpp"
#include "simulators/multibody/multibody.hpp"
#include "simulators/sensitivities/sensitivities.hpp"

namespace sao::sim {
namespace {

using nlohmann::json;

// The object at key, or an empty one (a problem when it is not an object).
const json& object_at(JsonReader& section, const std::string& key) {
  static const json empty = json::object();
  if (!section.has(key)) return empty;
  const json& v = section.raw(key);
  if (v.is_object()) return v;
  section.problems().add(section.at(key), "expected an object, got " + json_excerpt(v));
  return empty;
}

// An integer >= minimum (1e5 is accepted as 100000), or the fallback (with a problem when the
// value is not one).
long integer(JsonReader& section, const std::string& key, long fallback, long minimum) {
  if (!section.has(key)) return fallback;
  const json& v = section.raw(key);
  const double d = v.is_number() ? v.get<double>() : NAN;
  if (!(d >= static_cast<double>(minimum)) || d != std::floor(d) || d > 1e15) {
    section.problems().add(section.at(key), "expected an integer >= " + std::to_string(minimum) +
                                                ", got " + json_excerpt(v));
    return fallback;
  }
  return static_cast<long>(d);
}

// CVODES allocates the Hermite data of checkpoint_steps steps up front (2 n values each): the
// bound keeps a typo (2147483648) from asking for tens of gigabytes.
constexpr long kMostCheckpointSteps = 100000;

void parse_gradients(JsonReader& section, InternalSettings& out) {
  JsonReader g = section.object("gradients");
  if (g.has("method")) {
    const json& m = g.raw("method");
    const std::pair<const char*, GradientMethod> methods[] = {
        {"forward", GradientMethod::kForward},
        {"central", GradientMethod::kCentral},
        {"direct", GradientMethod::kDirect},
        {"adjoint", GradientMethod::kAdjoint},
        {"auto", GradientMethod::kAuto},
        {"discrete_adjoint", GradientMethod::kDiscreteAdjoint}};
    bool known = false;
    for (const auto& [name, method] : methods) {
      if (m == name) {
        out.method = method;
        known = true;
      }
    }
    if (!known) {
      g.problems().add(g.at("method"),
                       "expected \"forward\", \"central\", \"direct\", \"adjoint\", "
                       "\"discrete_adjoint\" or \"auto\", got " +
                           json_excerpt(m));
    }
    out.central = out.method == GradientMethod::kCentral;
  }
  out.relative_step = g.positive("step").value_or(out.relative_step);
  out.integrator.checkpoint_steps = g.integer("checkpoint_steps", 1, kMostCheckpointSteps)
                                        .value_or(out.integrator.checkpoint_steps);
  out.keep_forward = g.boolean("keep_forward").value_or(out.keep_forward);
  if (g.has("adjoint_sweep")) {
    const json& m = g.raw("adjoint_sweep");
    if (m == "shared" || m == "per_value") {
      out.integrator.shared_sweep = m == "shared";
    } else {
      g.problems().add(g.at("adjoint_sweep"),
                       "expected \"shared\" (one backward sweep for all values) or "
                       "\"per_value\" (one backward solve per value), got " +
                           json_excerpt(m));
    }
  }
  g.finish();
}

InternalSettings parse_settings(JsonReader& s) {
  InternalSettings out;
  out.integrator.rtol = s.positive("rtol").value_or(out.integrator.rtol);
  out.integrator.atol = s.positive("atol").value_or(out.integrator.atol);
  out.integrator.max_steps = integer(s, "max_steps", out.integrator.max_steps, 1);
  if (s.has("max_step")) out.integrator.max_step = s.positive("max_step").value_or(1.0);
  out.workers = read_workers(s, out.workers, "threads");
  if (s.has("integrator")) {
    const json& m = s.raw("integrator");
    if (m == "bdf") {
      out.integrator.method = Multistep::kBdf;
    } else if (m == "adams") {
      out.integrator.method = Multistep::kAdams;
    } else {
      s.problems().add(s.at("integrator"),
                       "expected \"bdf\" (stiff) or \"adams\" (non-stiff), got " + json_excerpt(m));
    }
  }
  parse_gradients(s, out);
  return out;
}

// The model-parameter names of simulator.parameters (mapped onto design variables) and
// simulator.constants, checked.
void check_mappings(const json& mapping, const json& constants, const Model& model,
                    const std::vector<std::string>& design_names, Problems& problems) {
  const std::vector<std::string> names = model.parameters();
  const std::string has = "model " + model.name() + " has parameters " + joined(names);
  auto known = [&](const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  auto design_index = [&](const std::string& name) {
    return std::find(design_names.begin(), design_names.end(), name) != design_names.end();
  };
  for (const auto& [key, value] : mapping.items()) {
    const std::string path = "simulator.parameters." + key;
    if (!known(key)) {
      problems.add(path, "unknown; " + has);
    } else if (!value.is_string() || !design_index(value.get<std::string>())) {
      problems.add(path, "expected the name of a design variable (" + joined(design_names) +
                             "), got " + json_excerpt(value));
    }
  }
  for (const auto& [key, value] : constants.items()) {
    const std::string path = "simulator.constants." + key;
    if (!known(key)) {
      problems.add(path, "unknown; " + has);
    } else if (!value.is_number() || !std::isfinite(value.get<double>())) {
      problems.add(path, "expected a number, got " + json_excerpt(value));
    } else if (mapping.contains(key)) {
      problems.add(path, "also mapped by simulator.parameters." + key);
    } else if (design_index(key)) {
      problems.add(path, "\"" + key + "\" is also a design variable; give it in one place");
    }
  }
}

// Model parameter -> value source: simulator.parameters maps it onto a design variable;
// otherwise the design variable of the same name; otherwise simulator.constants; otherwise the
// model's default.
std::vector<ParameterSource> parse_sources(JsonReader& s, const Model& model,
                                           const std::vector<std::string>& design_names) {
  const json& mapping = object_at(s, "parameters");
  const json& constants = object_at(s, "constants");
  const size_t before = s.problems().size();
  check_mappings(mapping, constants, model, design_names, s.problems());
  if (s.problems().size() > before) return {};
  auto design_index = [&](const std::string& name) {
    auto it = std::find(design_names.begin(), design_names.end(), name);
    return it == design_names.end() ? -1 : static_cast<int>(it - design_names.begin());
  };
  const std::map<std::string, double> defaults = model.parameter_defaults();
  std::vector<ParameterSource> sources;
  for (const std::string& p : model.parameters()) {
    ParameterSource source;
    if (mapping.contains(p)) {
      source.design_index = design_index(mapping.at(p).get<std::string>());
    } else if (design_index(p) >= 0) {
      source.design_index = design_index(p);
    } else if (constants.contains(p)) {
      source.constant = constants.at(p).get<double>();
    } else if (defaults.count(p)) {
      source.constant = defaults.at(p);
    } else {
      s.problems().add("simulator.parameters." + p,
                       "model parameter \"" + p +
                           "\" is not mapped to a design variable and has no constant "
                           "(simulator.constants." +
                           p + ")");
    }
    sources.push_back(source);
  }
  return sources;
}

void check_load_cases(const std::vector<LoadCaseSpec>& load_cases, const Model& model,
                      Problems& problems) {
  const auto known = model.load_parameters();
  std::vector<std::string> known_names;
  for (const auto& [key, value] : known) known_names.push_back(key);
  const auto responses = model.responses();
  const bool histories = std::any_of(responses.begin(), responses.end(),
                                     [](const ResponseInfo& r) { return r.history; });
  for (size_t c = 0; c < load_cases.size(); ++c) {
    const std::string path = "load_cases[" + std::to_string(c) + "]";
    const TimeGrid& g = load_cases[c].grid;
    if (histories && (g.points < 2 || !(g.end > g.start))) {
      std::ostringstream got;
      got << g.points << " points on [" << g.start << ", " << g.end << "]";
      problems.add(path + ".grid", "expected >= 2 points and end > start, got " + got.str());
    }
    for (const auto& [key, value] : load_cases[c].parameters) {
      if (!known.count(key)) {
        problems.add(path + ".parameters." + key, "unknown to model " + model.name() +
                                                      " (it reads: " + joined(known_names) + ")");
      }
    }
  }
}

}  // namespace

const Model* InternalSimulator::read_model(JsonReader& s) {
  const std::string known = "known models: " + joined(model_names());
  if (!s.has("model")) {
    s.problems().add("simulator.model", "missing; " + known);
    return nullptr;
  }
  const json& name = s.raw("model");
  if (!name.is_string()) {
    s.problems().add("simulator.model",
                     "expected a string, got " + json_excerpt(name) + "; " + known);
    return nullptr;
  }
  if (name == "multibody") {
    if (!s.has("multibody")) {
      s.problems().add("simulator.multibody",
                       "missing: the model description of \"model\": \"multibody\"");
      return nullptr;
    }
    try {
      owned_model_ = load_multibody_model(s.raw("multibody"));
    } catch (const SectionError& e) {
      for (const std::string& problem : e.problems()) s.problems().add("", problem);
    }
    return owned_model_.get();
  }
  if (s.has("multibody"))
    s.problems().add("simulator.multibody", "only with \"model\": \"multibody\"");
  if (name == "functions") return read_functions(s);
  if (s.has("functions"))
    s.problems().add("simulator.functions", "only with \"model\": \"functions\"");
  const Model* model = find_model(name.get<std::string>());
  if (!model) {
    s.problems().add("simulator.model", "unknown model " + json_excerpt(name) + " (" + known +
                                            ", functions or multibody)");
  }
  return model;
}

const Model* InternalSimulator::read_functions(JsonReader& s) {
  const json& functions = object_at(s, "functions");
  if (functions.empty()) {
    s.problems().add("simulator.functions",
                     "missing or empty: the responses of \"model\": \"functions\" as "
                     "{\"name\": \"expression\"}");
    return nullptr;
  }
  std::vector<FunctionsModel::Function> list;
  for (const auto& [key, value] : functions.items()) {
    if (value.is_string()) {
      list.emplace_back(key, value.get<std::string>());
    } else {
      s.problems().add("simulator.functions." + key,
                       "expected an expression (a string), got " + json_excerpt(value));
    }
  }
  const size_t before = s.problems().size();
  owned_model_ = std::make_unique<FunctionsModel>(
      list, [&](const std::string& function, const std::string& problem) {
        s.problems().add("simulator.functions." + function, problem);
      });
  return s.problems().size() == before ? owned_model_.get() : nullptr;
}

namespace {

// The CPU time of the calling thread (a job runs on one worker thread): the costs "auto"
// compares, far less scattered than wall time on a loaded machine.
double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

InternalSimulator::InternalSimulator(const SimulatorSetup& setup)
    : design_names_(setup.design_names),
      load_cases_(setup.load_cases),
      chooser_(std::make_unique<MethodChooser>(static_cast<int>(setup.load_cases.size()))),
      kept_(setup.load_cases.size()) {
  Problems problems;
  JsonReader s(setup.section, "simulator", problems);
  s.known({"type", "model", "multibody", "functions", "parameters", "constants", "rtol", "atol",
           "max_steps", "max_step", "integrator", "gradients", "workers", "threads", "executor"});
  model_ = read_model(s);
  settings_ = parse_settings(s);
  settings_.executor = read_executor_settings(s);
  if (!settings_.executor.local()) {
    setup_ = setup;
    try {
      executor_ = make_batch_executor(settings_.executor);
    } catch (const std::invalid_argument& e) {
      problems.add("simulator.executor.type", e.what());
    }
  }
  const bool analytic = settings_.method == GradientMethod::kDirect ||
                        settings_.method == GradientMethod::kAdjoint ||
                        settings_.method == GradientMethod::kAuto ||
                        settings_.method == GradientMethod::kDiscreteAdjoint;
  if (model_ && settings_.method == GradientMethod::kDiscreteAdjoint && model_->ode() &&
      !model_->ode()->discrete_map()) {
    problems.add(
        "simulator.gradients.method",
        "discrete_adjoint differentiates the variational integrator's steps: " + model_->name() +
            " is not integrated by it (a multibody model with "
            "\"integrator\": {\"type\": \"variational\", \"step\": h})");
  }
  if (model_ && analytic && model_->ode() == nullptr) {
    problems.add("simulator.gradients.method",
                 std::string(to_string(settings_.method)) +
                     " sensitivities need a differential-equation model; " + model_->name() +
                     " is closed-form: use \"forward\" or \"central\"");
  }
  if (model_) {
    sources_ = parse_sources(s, *model_, design_names_);
    check_load_cases(load_cases_, *model_, problems);
  }
  s.finish();
  problems.throw_if_any();
}

std::vector<ResponseInfo> InternalSimulator::responses() const {
  return model_->responses();
}

void InternalSimulator::run(BatchRun& job) const {
  if (job.request) return run_sensitivities(job);
  // The design itself (not a finite-difference run): keep its forward pass for an adjoint
  // gradient at this design next (gradients.keep_forward).
  analyse(job, job.variable < 0 && keeps_forward(job.load_case));
}

void InternalSimulator::analyse(BatchRun& job, bool keep) const {
  const LoadCaseSpec& lc = load_cases_[job.load_case];
  Eigen::VectorXd design = *job.design;
  if (job.variable >= 0) design(job.variable) += job.step;
  Eigen::VectorXd p(sources_.size());
  for (size_t i = 0; i < sources_.size(); ++i) {
    const ParameterSource& s = sources_[i];
    p(i) = s.design_index >= 0 ? design(s.design_index) : s.constant;
  }
  auto fail = [&](const std::string& why) {
    std::ostringstream msg;
    msg << "model " << model_->name() << ", load case \"" << lc.name << "\", design (";
    for (size_t i = 0; i < design_names_.size(); ++i) {
      msg << (i ? ", " : "") << design_names_[i] << " = " << design(i);
    }
    msg << ")";
    if (job.variable >= 0) {
      msg << " (finite-difference run, " << design_names_[job.variable] << " perturbed by "
          << job.step << ")";
    }
    job.message = msg.str() + ": " + why;
  };
  const double start = thread_seconds();
  std::unique_ptr<ForwardPass> pass;
  const std::string failure =
      keep ? model_->ode()->analyse_keeping(p, lc, settings_.integrator, job.result, pass)
           : model_->analyse(p, lc, settings_.integrator, job.result);
  if (!failure.empty()) return fail(failure);
  chooser_->record_analysis(job.load_case, thread_seconds() - start, job.result.integrator_steps);
  note_steps(p, lc, job.result.integrator_steps);
  for (const auto& [name, h] : job.result.histories) {
    if (!h.allFinite()) return fail("history \"" + name + "\" is not finite");
  }
  for (const auto& [name, v] : job.result.scalars) {
    if (!std::isfinite(v)) return fail("scalar \"" + name + "\" is not finite");
  }
  if (pass) {
    const std::lock_guard<std::mutex> lock(kept_mutex_);
    kept_[static_cast<size_t>(job.load_case)] = {p, std::move(pass)};
  }
  job.ok = true;
}

void InternalSimulator::note_steps(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                   long steps) const {
  if (steps < 0 || steps_noted_.load()) return;
  const std::string note = model_->step_note(p, lc, steps);
  if (!note.empty() && !steps_noted_.exchange(true)) spdlog::warn("{}", note);
}

void InternalSimulator::expect_no_gradients() {
  settings_.keep_forward = false;
  const std::lock_guard<std::mutex> lock(kept_mutex_);
  for (KeptPass& k : kept_) k = {};
}

bool InternalSimulator::keeps_forward(int load_case) const {
  if (!settings_.keep_forward || !model_->ode() || model_->ode()->differentiates_itself()) {
    return false;
  }
  return settings_.method == GradientMethod::kAdjoint ||
         (settings_.method == GradientMethod::kAuto && chooser_->expects_adjoint(load_case));
}

std::unique_ptr<ForwardPass> InternalSimulator::take_kept(int load_case,
                                                          const Eigen::VectorXd& p) const {
  const std::lock_guard<std::mutex> lock(kept_mutex_);
  KeptPass& k = kept_[static_cast<size_t>(load_case)];
  std::unique_ptr<ForwardPass> out;
  // Only the very parameters the pass ran at (every bit: a rounded design is another one).
  if (k.pass && k.p.size() == p.size() &&
      std::memcmp(k.p.data(), p.data(), sizeof(double) * static_cast<size_t>(p.size())) == 0) {
    out = std::move(k.pass);
  }
  k = {};
  return out;
}

namespace {

// What each method's cost grows with (method_choice.hpp): the direct method's sensitivity
// systems, and the adjoint's backward block (adjoint_system, cvodes_integrator.hpp: one vector
// per value, or with the shared sweep and more values than states and integrals, the n unit
// vectors and one per integral) over the distinct times where the shared sweep restarts (an
// integral joins at the last grid point; one backward solve per value restarts nowhere).
MethodChooser::Request cost_request(const OdeModel& model, const LoadCaseSpec& lc,
                                    const std::vector<WantedValue>& wanted, int parameters,
                                    const IntegratorSettings& settings) {
  MethodChooser::Request r;
  r.values = static_cast<int>(wanted.size());
  r.parameters = parameters;
  r.width = r.values;
  if (!settings.shared_sweep || r.values <= 1) return r;
  int integrals = 0;
  std::vector<int> joins;
  for (const WantedValue& w : wanted) {
    integrals += w.point < 0 ? 1 : 0;
    const int at = w.point < 0 ? lc.grid.points - 1 : w.point;
    if (at > 0) joins.push_back(at);
  }
  std::sort(joins.begin(), joins.end());
  r.stops =
      std::max<int>(1, static_cast<int>(std::unique(joins.begin(), joins.end()) - joins.begin()));
  r.width = std::min(r.values, model.state_size() + integrals);
  return r;
}

}  // namespace

std::string InternalSimulator::differentiate(BatchRun& job, const SensitivityProblem& problem,
                                             GradientMethod method, Eigen::MatrixXd& rows) const {
  const SensitivityMethod run = method == GradientMethod::kDiscreteAdjoint
                                    ? discrete_adjoint_sensitivities
                                : method == GradientMethod::kAdjoint ? adjoint_sensitivities
                                                                     : direct_sensitivities;
  MethodChooser::Request request =
      cost_request(problem.model, problem.lc, problem.wanted,
                   static_cast<int>(problem.active.size()), problem.settings);
  request.forward_kept = method == GradientMethod::kAdjoint && problem.kept && *problem.kept;
  const double start = thread_seconds();
  std::string failure = run(problem, job.result, rows);
  if (failure.empty()) failure = non_finite(rows, problem);
  if (failure.empty() &&
      (method == GradientMethod::kDirect || method == GradientMethod::kAdjoint)) {
    chooser_->record(job.load_case, method == GradientMethod::kAdjoint, request,
                     thread_seconds() - start);
  }
  return failure;
}

std::string InternalSimulator::non_finite(const Eigen::MatrixXd& rows,
                                          const SensitivityProblem& problem) const {
  for (Eigen::Index f = 0; f < rows.rows(); ++f) {
    for (Eigen::Index a = 0; a < rows.cols(); ++a) {
      if (std::isfinite(rows(f, a))) continue;
      const WantedValue& w = problem.wanted[static_cast<size_t>(f)];
      std::ostringstream msg;
      msg << "the derivative of \"" << w.response << "\"";
      if (w.point >= 0) msg << " at t = " << problem.lc.grid.at(w.point);
      msg << " with respect to "
          << design_names_[sources_[problem.active[static_cast<size_t>(a)]].design_index] << " is "
          << rows(f, a)
          << ": the model is not differentiable at this design (an expression such as sqrt or "
             "abs at 0)";
      return msg.str();
    }
  }
  return "";
}

DifferenceOrder InternalSimulator::fallback_order(const BatchRun& job) const {
  const DifferenceSettings own{DifferenceOrder::kForward, settings_.relative_step};
  return request_differences(own, *job.request).order;
}

std::string InternalSimulator::fallback_differences(BatchRun& job, GradientMethod first,
                                                    GradientMethod second,
                                                    const std::string& why) const {
  const DifferenceOrder order = fallback_order(job);
  spdlog::warn(
      "internal simulator: {} sensitivities failed too in load case \"{}\" ({}); auto takes {} "
      "(relative step {}) at this design",
      to_string(second), load_cases_[job.load_case].name, why, difference_method(order),
      settings_.relative_step);
  // The nominal run, then the perturbed ones of the order the request asks for (forward unless
  // the driver raised it), inside its bounds.
  std::vector<BatchRun> runs(1);
  runs[0].design = job.design;
  runs[0].load_case = job.load_case;
  const int variables = static_cast<int>(design_names_.size());
  add_difference_runs(runs, *job.design, variables, job.load_case, {order, settings_.relative_step},
                      job.request->lower, job.request->upper);
  for (BatchRun& run : runs) {
    analyse(run, false);
    ++job.runs;
    if (!run.ok) return run.message;
  }
  add_difference_gradients(runs[0].result,
                           stencils(runs.data(), variables, difference_runs(order)));
  job.result = std::move(runs[0].result);
  job.result.gradient_method = std::string(difference_method(order)) + " (auto, after " +
                               to_string(first) + " and " + to_string(second) + " failed)";
  job.result.difference_step = settings_.relative_step;
  job.ok = true;
  return "";
}

void InternalSimulator::run_sensitivities(BatchRun& job) const {
  const OdeModel& model = *model_->ode();  // checked by the constructor
  const LoadCaseSpec& lc = load_cases_[job.load_case];
  const Eigen::VectorXd& design = *job.design;
  const int n_design = static_cast<int>(design_names_.size());
  Eigen::VectorXd p(sources_.size());
  std::vector<int> active;  // model parameters that are design variables
  for (size_t i = 0; i < sources_.size(); ++i) {
    p(i) = sources_[i].design_index >= 0 ? design(sources_[i].design_index) : sources_[i].constant;
    if (sources_[i].design_index >= 0) active.push_back(static_cast<int>(i));
  }
  std::vector<WantedValue> wanted;
  job.message = wanted_values(model, lc, job.load_case, job.request->derivatives, wanted);
  if (!job.message.empty()) return;
  GradientMethod method = settings_.method;
  std::string reason;
  // The forward pass of the analysis of this design, when it was kept: the adjoint method
  // integrates no forward pass of its own.
  std::unique_ptr<ForwardPass> kept = take_kept(job.load_case, p);
  if (method == GradientMethod::kAuto && model.discrete_map()) {
    method = GradientMethod::kDiscreteAdjoint;
  } else if (method == GradientMethod::kAuto) {
    // The cheaper of the adjoint's backward block (one vector per value, at most the states
    // and integrals with the shared sweep) and one sensitivity system per parameter, by the
    // costs measured in this load case (method_choice.hpp).
    MethodChooser::Request request =
        cost_request(model, lc, wanted, static_cast<int>(active.size()), settings_.integrator);
    request.forward_kept = kept != nullptr;
    const MethodChooser::Choice choice = chooser_->choose(job.load_case, request);
    method = choice.adjoint ? GradientMethod::kAdjoint : GradientMethod::kDirect;
    reason = ": " + choice.reason;
  }
  // Info level: which method a study's "auto" chose, and why, is part of what a run did
  // (issues 22, 25).
  spdlog::info(
      "internal simulator: {} sensitivities{} for {} values and {} parameters in load "
      "case \"{}\"{}",
      to_string(method), settings_.method == GradientMethod::kAuto ? " (auto)" : "", wanted.size(),
      active.size(), lc.name, reason);
  job.result.gradient_method =
      std::string(to_string(method)) + (settings_.method == GradientMethod::kAuto ? " (auto)" : "");
  Eigen::MatrixXd rows(static_cast<Eigen::Index>(wanted.size()), static_cast<int>(active.size()));
  const SensitivityProblem problem{model, lc, p, active, wanted, settings_.integrator, &kept};
  std::string failure = differentiate(job, problem, method, rows);
  if (!failure.empty() && settings_.method == GradientMethod::kAuto &&
      (method == GradientMethod::kDirect || method == GradientMethod::kAdjoint)) {
    // auto: the other method once, and the failed one is not chosen again in this load case
    // (an adjoint backward solve can fail where the forward sensitivities do not, and back).
    const GradientMethod other =
        method == GradientMethod::kAdjoint ? GradientMethod::kDirect : GradientMethod::kAdjoint;
    chooser_->record_failure(job.load_case, method == GradientMethod::kAdjoint);
    spdlog::warn(
        "internal simulator: {} sensitivities failed in load case \"{}\" ({}); auto "
        "takes {} instead",
        to_string(method), lc.name, failure, to_string(other));
    const std::string second = differentiate(job, problem, other, rows);
    if (second.empty()) {
      job.result.gradient_method =
          std::string(to_string(other)) + " (auto, after " + to_string(method) + " failed)";
      failure.clear();
    } else {
      // Both analytic methods failed at this design (typically where the model is not
      // differentiable): finite differences, whose error is that of the step, rather than no
      // gradient at all.
      const std::string differences = fallback_differences(job, method, other, second);
      if (differences.empty()) return;
      failure = std::string(to_string(method)) + ": " + failure + "; " + to_string(other) + ": " +
                second + "; " + difference_method(fallback_order(job)) + ": " + differences;
    }
  }
  if (!failure.empty()) {
    job.message = "model " + model.name() + ", load case \"" + lc.name + "\": " + failure;
    return;
  }
  // d/db_j: the parameters mapped onto design variable j, summed.
  for (size_t f = 0; f < wanted.size(); ++f) {
    const WantedValue& w = wanted[f];
    Eigen::MatrixXd& g = job.result.gradients[w.response];
    if (g.rows() == 0) {
      g.setConstant(w.point < 0 ? 1 : lc.grid.points, n_design,
                    std::numeric_limits<double>::quiet_NaN());
    }
    g.row(std::max(w.point, 0)).setZero();
    for (size_t a = 0; a < active.size(); ++a) {
      g(std::max(w.point, 0), sources_[active[a]].design_index) +=
          rows(static_cast<Eigen::Index>(f), static_cast<Eigen::Index>(a));
    }
  }
  note_steps(p, lc, job.result.integrator_steps);
  job.ok = true;
}

std::vector<Evaluation> InternalSimulator::evaluate(const std::vector<EvaluationRequest>& batch) {
  const std::vector<ResponseInfo> known = responses();
  for (const EvaluationRequest& request : batch) {
    check_request(request, "InternalSimulator", design_names_.size(), load_cases_, known);
  }
  if (executor_) {  // each request a job: `sao analyse` on a node (analysis_request.hpp)
    std::error_code ec;
    static const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    static const std::string session = std::to_string(::getpid());
    return evaluate_as_jobs(batch, setup_, self,
                            std::filesystem::absolute(settings_.executor.directory) / session,
                            *executor_, ledger_);
  }
  const bool analytic =
      settings_.method != GradientMethod::kForward && settings_.method != GradientMethod::kCentral;
  return run_batch(batch, static_cast<int>(load_cases_.size()),
                   static_cast<int>(design_names_.size()),
                   {difference_order(settings_.central), settings_.relative_step}, analytic,
                   settings_.workers, [&](BatchRun& job) {
                     job.runs = 1;
                     run(job);
                   });
}

const char* to_string(GradientMethod method) {
  switch (method) {
    case GradientMethod::kForward:
      return "forward";
    case GradientMethod::kCentral:
      return "central";
    case GradientMethod::kDirect:
      return "direct";
    case GradientMethod::kAdjoint:
      return "adjoint";
    case GradientMethod::kAuto:
      return "auto";
    case GradientMethod::kDiscreteAdjoint:
      return "discrete_adjoint";
  }
  return "?";
}

void register_internal_simulator() {
  register_simulator("internal", [](const SimulatorSetup& setup) -> std::unique_ptr<Simulator> {
    return std::make_unique<InternalSimulator>(setup);
  });
}

}  // namespace sao::sim
