#include "simulators/internal_simulator.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "sao/seam/difference_batch.hpp"
#include "sao/seam/json_section.hpp"
#include "simulators/multibody/multibody.hpp"

namespace sao::sim {
namespace {

using nlohmann::json;

using section::bad;
using section::joined;
using section::reject_unknown_keys;

const json& object_at(const json& section, const std::string& key, const std::string& path) {
  static const json empty = json::object();
  if (!section.contains(key)) return empty;
  if (!section.at(key).is_object()) {
    bad(path + "." + key, "expected an object, got " + section.at(key).dump());
  }
  return section.at(key);
}

double positive_number(const json& section, const std::string& key, double fallback,
                       const std::string& path) {
  if (!section.contains(key)) return fallback;
  const json& v = section.at(key);
  if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>())) {
    bad(path + "." + key, "expected a positive number, got " + v.dump());
  }
  return v.get<double>();
}

// An integer >= minimum; 1e5 is accepted as 100000.
long integer(const json& section, const std::string& key, long fallback, long minimum,
             const std::string& path) {
  if (!section.contains(key)) return fallback;
  const json& v = section.at(key);
  const double d = v.is_number() ? v.get<double>() : NAN;
  if (!(d >= static_cast<double>(minimum)) || d != std::floor(d) || d > 1e15) {
    bad(path + "." + key,
        "expected an integer >= " + std::to_string(minimum) + ", got " + v.dump());
  }
  return static_cast<long>(d);
}

InternalSettings parse_settings(const json& s) {
  InternalSettings out;
  out.integrator.rtol = positive_number(s, "rtol", out.integrator.rtol, "simulator");
  out.integrator.atol = positive_number(s, "atol", out.integrator.atol, "simulator");
  out.integrator.max_steps = integer(s, "max_steps", out.integrator.max_steps, 1, "simulator");
  if (s.contains("max_step"))
    out.integrator.max_step = positive_number(s, "max_step", 1.0, "simulator");
  {
    Problems problems;
    JsonReader reader(s, "simulator", problems);
    out.workers = read_workers(reader, out.workers, "threads");
    problems.throw_if_any();
  }
  if (s.contains("integrator")) {
    const json& m = s.at("integrator");
    if (m == "bdf") {
      out.integrator.method = Multistep::kBdf;
    } else if (m == "adams") {
      out.integrator.method = Multistep::kAdams;
    } else {
      bad("simulator.integrator",
          "expected \"bdf\" (stiff) or \"adams\" (non-stiff), got " + m.dump());
    }
  }
  const json& g = object_at(s, "gradients", "simulator");
  reject_unknown_keys(g, {"method", "step", "checkpoint_steps"}, "simulator.gradients");
  if (g.contains("method")) {
    const json& m = g.at("method");
    const std::pair<const char*, GradientMethod> methods[] = {{"forward", GradientMethod::kForward},
                                                              {"central", GradientMethod::kCentral},
                                                              {"direct", GradientMethod::kDirect},
                                                              {"adjoint", GradientMethod::kAdjoint},
                                                              {"auto", GradientMethod::kAuto}};
    bool known = false;
    for (const auto& [name, method] : methods) {
      if (m == name) {
        out.method = method;
        known = true;
      }
    }
    if (!known) {
      bad("simulator.gradients.method",
          "expected \"forward\", \"central\", \"direct\", \"adjoint\" or \"auto\", got " +
              m.dump());
    }
    out.central = out.method == GradientMethod::kCentral;
  }
  out.relative_step = positive_number(g, "step", out.relative_step, "simulator.gradients");
  out.integrator.checkpoint_steps =
      integer(g, "checkpoint_steps", out.integrator.checkpoint_steps, 1, "simulator.gradients");
  return out;
}

// Model parameter -> value source: simulator.parameters maps it onto a design variable;
// otherwise the design variable of the same name; otherwise simulator.constants.
std::vector<ParameterSource> parse_sources(const json& s, const Model& model,
                                           const std::vector<std::string>& design_names) {
  const json& mapping = object_at(s, "parameters", "simulator");
  const json& constants = object_at(s, "constants", "simulator");
  const std::vector<std::string> names = model.parameters();
  const std::string has = "model " + model.name() + " has parameters " + joined(names);
  auto design_index = [&](const std::string& name) {
    auto it = std::find(design_names.begin(), design_names.end(), name);
    return it == design_names.end() ? -1 : static_cast<int>(it - design_names.begin());
  };
  for (const auto& [key, value] : mapping.items()) {
    const std::string path = "simulator.parameters." + key;
    if (std::find(names.begin(), names.end(), key) == names.end()) bad(path, "unknown; " + has);
    if (!value.is_string() || design_index(value.get<std::string>()) < 0) {
      bad(path, "expected the name of a design variable (" + joined(design_names) + "), got " +
                    value.dump());
    }
  }
  for (const auto& [key, value] : constants.items()) {
    const std::string path = "simulator.constants." + key;
    if (std::find(names.begin(), names.end(), key) == names.end()) bad(path, "unknown; " + has);
    if (!value.is_number() || !std::isfinite(value.get<double>())) {
      bad(path, "expected a number, got " + value.dump());
    }
    if (mapping.contains(key)) bad(path, "also mapped by simulator.parameters." + key);
    if (design_index(key) >= 0) {
      bad(path, "\"" + key + "\" is also a design variable; give it in one place");
    }
  }
  const std::map<std::string, double> defaults = model.parameter_defaults();
  std::vector<ParameterSource> sources;
  for (const std::string& p : names) {
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
      bad("simulator.parameters." + p, "model parameter \"" + p +
                                           "\" is not mapped to a design variable and has no "
                                           "constant (simulator.constants." +
                                           p + ")");
    }
    sources.push_back(source);
  }
  return sources;
}

void check_load_cases(const std::vector<LoadCaseSpec>& load_cases, const Model& model) {
  const auto known = model.load_parameters();
  std::vector<std::string> known_names;
  for (const auto& [key, value] : known) known_names.push_back(key);
  for (size_t c = 0; c < load_cases.size(); ++c) {
    const std::string path = "load_cases[" + std::to_string(c) + "]";
    const TimeGrid& g = load_cases[c].grid;
    if (g.points < 2 || !(g.end > g.start)) {
      std::ostringstream got;
      got << g.points << " points on [" << g.start << ", " << g.end << "]";
      bad(path + ".grid", "expected >= 2 points and end > start, got " + got.str());
    }
    for (const auto& [key, value] : load_cases[c].parameters) {
      if (!known.count(key)) {
        bad(path + ".parameters." + key,
            "unknown to model " + model.name() + " (it reads: " + joined(known_names) + ")");
      }
    }
  }
}

}  // namespace

// One integration: a request's design, possibly with one variable perturbed, in one load case.

InternalSimulator::InternalSimulator(const SimulatorSetup& setup)
    : design_names_(setup.design_names), load_cases_(setup.load_cases) {
  const json& s = setup.section;
  if (!s.is_object()) bad("simulator", "expected an object, got " + s.dump());
  reject_unknown_keys(s,
                      {"type", "model", "multibody", "parameters", "constants", "rtol", "atol",
                       "max_steps", "max_step", "integrator", "gradients", "workers", "threads"},
                      "simulator");
  const std::string known = "known models: " + joined(model_names());
  if (!s.contains("model")) bad("simulator.model", "missing; " + known);
  if (!s.at("model").is_string()) {
    bad("simulator.model", "expected a string, got " + s.at("model").dump() + "; " + known);
  }
  if (s.at("model") == "multibody") {
    if (!s.contains("multibody")) {
      bad("simulator.multibody", "missing: the model description of \"model\": \"multibody\"");
    }
    owned_model_ = load_multibody_model(s.at("multibody"));
    model_ = owned_model_.get();
  } else {
    if (s.contains("multibody")) {
      bad("simulator.multibody", "only with \"model\": \"multibody\"");
    }
    model_ = find_model(s.at("model").get<std::string>());
  }
  if (!model_) {
    bad("simulator.model",
        "unknown model " + s.at("model").dump() + " (" + known + ", or multibody)");
  }
  settings_ = parse_settings(s);
  const bool analytic = settings_.method == GradientMethod::kDirect ||
                        settings_.method == GradientMethod::kAdjoint ||
                        settings_.method == GradientMethod::kAuto;
  if (analytic && dynamic_cast<const OdeModel*>(model_) == nullptr) {
    bad("simulator.gradients.method", std::string(to_string(settings_.method)) +
                                          " sensitivities need a differential-equation "
                                          "model; " +
                                          model_->name() +
                                          " is closed-form: use \"forward\" or \"central\"");
  }
  sources_ = parse_sources(s, *model_, design_names_);
  check_load_cases(load_cases_, *model_);
}

std::vector<ResponseInfo> InternalSimulator::responses() const {
  return model_->responses();
}

void InternalSimulator::run(BatchRun& job) const {
  if (job.derivatives) return run_sensitivities(job);
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
  const std::string failure = model_->analyse(p, lc, settings_.integrator, job.result);
  if (!failure.empty()) return fail(failure);
  for (const auto& [name, h] : job.result.histories) {
    if (!h.allFinite()) return fail("history \"" + name + "\" is not finite");
  }
  for (const auto& [name, v] : job.result.scalars) {
    if (!std::isfinite(v)) return fail("scalar \"" + name + "\" is not finite");
  }
  job.ok = true;
}

void InternalSimulator::run_sensitivities(BatchRun& job) const {
  const auto& model = dynamic_cast<const OdeModel&>(*model_);
  const LoadCaseSpec& lc = load_cases_[job.load_case];
  const Eigen::VectorXd& design = *job.design;
  const int n_design = static_cast<int>(design_names_.size());
  Eigen::VectorXd p(sources_.size());
  std::vector<int> active;  // model parameters that are design variables
  for (size_t i = 0; i < sources_.size(); ++i) {
    p(i) = sources_[i].design_index >= 0 ? design(sources_[i].design_index) : sources_[i].constant;
    if (sources_[i].design_index >= 0) active.push_back(static_cast<int>(i));
  }
  // The values asked for in this load case: (output index, grid point), -1 for an integral.
  const auto histories = model.history_outputs();
  const auto integrals = model.integral_outputs();
  struct Wanted {
    std::string response;
    int output;
    int point;  // -1: an integral output
  };
  std::vector<Wanted> wanted;
  for (const DerivativeRequest& d : *job.derivatives) {
    if (d.load_case != job.load_case) continue;
    auto h = std::find(histories.begin(), histories.end(), d.response);
    auto q = std::find(integrals.begin(), integrals.end(), d.response);
    if (h != histories.end()) {
      const int k = static_cast<int>(h - histories.begin());
      if (d.time_indices.empty()) {
        for (int i = 0; i < lc.grid.points; ++i) wanted.push_back({d.response, k, i});
      } else {
        for (int i : d.time_indices) wanted.push_back({d.response, k, i});
      }
    } else if (q != integrals.end()) {
      wanted.push_back(
          {d.response, static_cast<int>(histories.size() + (q - integrals.begin())), -1});
    } else {
      job.message = "model " + model.name() + ": response \"" + d.response +
                    "\" has no direct or adjoint derivative (it is computed from the histories, "
                    "e.g. a maximum): use finite differences for it";
      return;
    }
  }
  GradientMethod method = settings_.method;
  if (method == GradientMethod::kAuto) {
    // One backward solve per value against one forward solve with one sensitivity system per
    // parameter.
    method = wanted.size() <= active.size() ? GradientMethod::kAdjoint : GradientMethod::kDirect;
  }
  spdlog::debug(
      "internal simulator: {} sensitivities for {} values and {} parameters in load "
      "case \"{}\"",
      to_string(method), wanted.size(), active.size(), lc.name);
  Eigen::MatrixXd rows(static_cast<Eigen::Index>(wanted.size()), static_cast<int>(active.size()));
  if (model.differentiates_itself()) {
    std::vector<OutputPoint> points;
    for (const Wanted& w : wanted) points.push_back({w.output, w.point});
    const std::string failure = model.analyse_with_derivatives(
        p, lc, active, points, method == GradientMethod::kAdjoint, job.result, rows);
    if (!failure.empty()) {
      job.message = "model " + model.name() + ", load case \"" + lc.name + "\": " + failure;
      return;
    }
    model.scalars_from_histories(job.result);
  } else {
    const OdeSystem system = model.system(p, lc, active);
    const int n = model.state_size();
    const int nh = static_cast<int>(histories.size());
    Eigen::MatrixXd states;
    Eigen::VectorXd integral_values;
    auto explicit_part = [&](const Wanted& w, Eigen::RowVectorXd& hx) {
      const double t = w.point >= 0 ? lc.grid.at(w.point) : lc.grid.end;
      const Eigen::VectorXd x = states.row(std::max(w.point, 0)).transpose();
      const Eigen::RowVectorXd g = model.output_gradient(w.output, t, x, p, lc, active);
      hx = g.head(n);
      return Eigen::RowVectorXd(g.tail(active.size()));
    };
    // The forward solution of a direct or adjoint solve, or its failure into the job.
    auto take = [&](const auto& result) {
      if (!result.ok) {
        job.message =
            "model " + model.name() + ", load case \"" + lc.name + "\": " + result.message;
        return false;
      }
      states = result.states;
      integral_values = result.integrals;
      return true;
    };
    if (method == GradientMethod::kDirect) {
      const SystemResult r = integrate_system(system, lc.grid, settings_.integrator, true);
      if (!take(r)) return;
      for (size_t f = 0; f < wanted.size(); ++f) {
        const auto row = static_cast<Eigen::Index>(f);
        if (wanted[f].point < 0) {
          rows.row(row) = r.integral_sensitivities.row(wanted[f].output - nh);
          continue;
        }
        Eigen::RowVectorXd hx;
        const Eigen::RowVectorXd hp = explicit_part(wanted[f], hx);
        rows.row(row) = hx * r.state_sensitivities[wanted[f].point] + hp;
      }
    } else {
      auto functionals = [&](const Eigen::MatrixXd& forward) {
        states = forward;
        std::vector<AdjointFunctional> out;
        for (const Wanted& w : wanted) {
          AdjointFunctional fn;
          if (w.point < 0) {
            fn.quadrature = w.output - nh;
          } else {
            Eigen::RowVectorXd hx;
            explicit_part(w, hx);
            fn.point = w.point;
            fn.state_weight = hx.transpose();
          }
          out.push_back(fn);
        }
        return out;
      };
      const AdjointResult r = adjoint_system(system, lc.grid, settings_.integrator, functionals);
      if (!take(r)) return;
      spdlog::debug(
          "internal simulator: adjoint in load case \"{}\": {} forward steps, {} checkpoint(s) "
          "after "
          "the start{}, {} backward solve(s)",
          lc.name, r.forward_steps, r.checkpoints,
          r.checkpoints > 0 ? " (the forward problem integrated again between them; "
                              "simulator.gradients.checkpoint_steps keeps more steps in memory)"
                            : "",
          r.backward_solves);
      for (size_t f = 0; f < wanted.size(); ++f) {
        const auto row = static_cast<Eigen::Index>(f);
        rows.row(row) = r.gradients.row(row);
        if (wanted[f].point >= 0) {
          Eigen::RowVectorXd hx;
          rows.row(row) += explicit_part(wanted[f], hx);
        }
      }
    }
    model.fill_outputs(states, integral_values, p, lc, job.result);
  }
  // d/db_j: the parameters mapped onto design variable j, summed.
  for (size_t f = 0; f < wanted.size(); ++f) {
    const Wanted& w = wanted[f];
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
  job.ok = true;
}

std::vector<Evaluation> InternalSimulator::evaluate(const std::vector<EvaluationRequest>& batch) {
  const std::vector<ResponseInfo> known = responses();
  for (const EvaluationRequest& request : batch) {
    check_request(request, "InternalSimulator", design_names_.size(), load_cases_, known);
  }
  const bool analytic =
      settings_.method != GradientMethod::kForward && settings_.method != GradientMethod::kCentral;
  return run_batch(batch, static_cast<int>(load_cases_.size()),
                   static_cast<int>(design_names_.size()),
                   {settings_.central, settings_.relative_step}, analytic, settings_.workers,
                   [&](BatchRun& job) {
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
  }
  return "?";
}

void register_internal_simulator() {
  register_simulator("internal", [](const SimulatorSetup& setup) -> std::unique_ptr<Simulator> {
    return std::make_unique<InternalSimulator>(setup);
  });
}

}  // namespace sao::sim
