#include "simulators/internal_simulator.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace sao::sim {
namespace {

using nlohmann::json;

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

double positive_number(const json& section, const std::string& key, double fallback,
                       const std::string& path) {
  if (!section.contains(key)) return fallback;
  const json& v = section.at(key);
  if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>())) {
    throw std::invalid_argument(path + "." + key + ": expected a positive number, got " + v.dump());
  }
  return v.get<double>();
}

void reject_unknown_keys(const json& section, const std::set<std::string>& known,
                         const std::string& path) {
  for (const auto& [key, value] : section.items()) {
    if (!known.count(key)) {
      throw std::invalid_argument(
          path + "." + key + ": unknown key (known: " + joined({known.begin(), known.end()}) + ")");
    }
  }
}

}  // namespace

// One integration: a design (possibly perturbed) in one load case.
struct InternalSimulator::Job {
  Eigen::VectorXd design;
  int load_case = 0;
  CaseResult result;
  bool ok = false;
  std::string message;
};

InternalSimulator::InternalSimulator(const SimulatorSetup& setup)
    : load_cases_(setup.load_cases), n_design_(static_cast<int>(setup.design_names.size())) {
  const json& s = setup.section;
  reject_unknown_keys(s,
                      {"type", "model", "parameters", "constants", "rtol", "atol", "max_steps",
                       "gradients", "threads"},
                      "simulator");
  if (!s.contains("model") || !s.at("model").is_string()) {
    throw std::invalid_argument("simulator.model: missing (expected a string; known models: " +
                                joined(model_names()) + ")");
  }
  model_ = find_model(s.at("model").get<std::string>());
  if (!model_) {
    throw std::invalid_argument("simulator.model: unknown model \"" +
                                s.at("model").get<std::string>() +
                                "\" (known models: " + joined(model_names()) + ")");
  }
  settings_.integrator.rtol = positive_number(s, "rtol", 1e-8, "simulator");
  settings_.integrator.atol = positive_number(s, "atol", 1e-10, "simulator");
  settings_.integrator.max_steps =
      static_cast<long>(positive_number(s, "max_steps", 100000, "simulator"));
  if (s.contains("threads")) {
    if (!s.at("threads").is_number_integer() || s.at("threads").get<int>() < 0) {
      throw std::invalid_argument("simulator.threads: expected an integer >= 0, got " +
                                  s.at("threads").dump());
    }
    settings_.threads = s.at("threads").get<int>();
  }
  if (s.contains("gradients")) {
    const json& g = s.at("gradients");
    if (!g.is_object()) throw std::invalid_argument("simulator.gradients: expected an object");
    reject_unknown_keys(g, {"method", "step"}, "simulator.gradients");
    if (g.contains("method")) {
      const std::string method =
          g.at("method").is_string() ? g.at("method").get<std::string>() : "";
      if (method != "forward" && method != "central") {
        throw std::invalid_argument(
            "simulator.gradients.method: expected \"forward\" or \"central\", got " +
            g.at("method").dump());
      }
      settings_.central = method == "central";
    }
    settings_.relative_step = positive_number(g, "step", 1e-3, "simulator.gradients");
  }

  // Model parameters from design variables (by mapping or by name) or constants.
  const json params = s.value("parameters", json::object());
  const json constants = s.value("constants", json::object());
  if (!params.is_object()) throw std::invalid_argument("simulator.parameters: expected an object");
  if (!constants.is_object())
    throw std::invalid_argument("simulator.constants: expected an object");
  const std::vector<std::string> model_params = model_->parameters();
  for (const auto& [key, value] : params.items()) {
    if (std::find(model_params.begin(), model_params.end(), key) == model_params.end()) {
      throw std::invalid_argument("simulator.parameters." + key + ": model " + model_->name() +
                                  " has no parameter \"" + key +
                                  "\" (it has: " + joined(model_params) + ")");
    }
  }
  auto design_index = [&](const std::string& name) {
    auto it = std::find(setup.design_names.begin(), setup.design_names.end(), name);
    return it == setup.design_names.end() ? -1 : static_cast<int>(it - setup.design_names.begin());
  };
  for (const std::string& p : model_params) {
    int source = -1;
    double constant = 0.0;
    if (params.contains(p)) {
      if (!params.at(p).is_string() ||
          (source = design_index(params.at(p).get<std::string>())) < 0) {
        throw std::invalid_argument("simulator.parameters." + p +
                                    ": expected the name of a design variable, got " +
                                    params.at(p).dump());
      }
    } else if (constants.contains(p)) {
      if (!constants.at(p).is_number()) {
        throw std::invalid_argument("simulator.constants." + p + ": expected a number");
      }
      constant = constants.at(p).get<double>();
    } else if ((source = design_index(p)) < 0) {
      throw std::invalid_argument("simulator.parameters." + p + ": model parameter \"" + p +
                                  "\" is not mapped to a design variable and has no constant");
    }
    parameter_source_.push_back(source);
    parameter_constant_.push_back(constant);
  }
  const auto known_load = model_->load_parameters();
  for (size_t c = 0; c < load_cases_.size(); ++c) {
    for (const auto& [key, value] : load_cases_[c].parameters) {
      if (!known_load.count(key)) {
        throw std::invalid_argument("load_cases[" + std::to_string(c) + "].parameters." + key +
                                    ": model " + model_->name() + " has no load-case parameter \"" +
                                    key + "\"");
      }
    }
  }
}

std::vector<ResponseInfo> InternalSimulator::responses() const {
  return model_->responses();
}

Eigen::VectorXd InternalSimulator::model_parameters(const Eigen::VectorXd& design) const {
  Eigen::VectorXd p(parameter_source_.size());
  for (size_t i = 0; i < parameter_source_.size(); ++i) {
    p(i) = parameter_source_[i] >= 0 ? design(parameter_source_[i]) : parameter_constant_[i];
  }
  return p;
}

void InternalSimulator::run_job(Job& job) const {
  const LoadCaseSpec& lc = load_cases_[job.load_case];
  const Eigen::VectorXd p = model_parameters(job.design);
  const RightHandSide rhs = [&](double t, const double* x, double* xdot) {
    return model_->rhs(t, x, xdot, p, lc);
  };
  const IntegrationResult r =
      integrate(rhs, model_->initial_state(p, lc), lc.grid, settings_.integrator);
  if (!r.ok) {
    std::ostringstream msg;
    msg << "model " << model_->name() << ", load case " << lc.name << ", design ("
        << job.design.transpose() << "): " << r.message;
    job.message = msg.str();
    return;
  }
  model_->outputs(r.states, p, lc, job.result);
  for (const auto& [name, h] : job.result.histories) {
    if (!h.allFinite()) {
      job.message = "model " + model_->name() + ", load case " + lc.name + ": history " + name +
                    " is not finite";
      return;
    }
  }
  job.ok = true;
}

std::vector<Evaluation> InternalSimulator::evaluate(const std::vector<EvaluationRequest>& batch) {
  const auto start = std::chrono::steady_clock::now();
  const int n_cases = static_cast<int>(load_cases_.size());
  // Jobs: per request, per load case: the nominal design, then the perturbations
  // (+h_i for forward; +h_i and -h_i for central).
  std::vector<Job> jobs;
  std::vector<size_t> first_job(batch.size());
  std::vector<Eigen::VectorXd> steps(batch.size());
  const int per_variable = settings_.central ? 2 : 1;
  for (size_t r = 0; r < batch.size(); ++r) {
    const Eigen::VectorXd& b = batch[r].design;
    if (b.size() != n_design_) {
      throw std::invalid_argument("InternalSimulator::evaluate: expected " +
                                  std::to_string(n_design_) + " design variables, got " +
                                  std::to_string(b.size()));
    }
    first_job[r] = jobs.size();
    const bool gradients = !batch[r].derivatives.empty();
    steps[r] = ((1.0 + b.array().abs()) * settings_.relative_step).matrix();  // (4.10)
    for (int c = 0; c < n_cases; ++c) {
      jobs.push_back({b, c, {}, false, {}});
      if (!gradients) continue;
      for (int i = 0; i < n_design_; ++i) {
        for (int side = 0; side < per_variable; ++side) {
          Eigen::VectorXd perturbed = b;
          perturbed(i) += side == 0 ? steps[r](i) : -steps[r](i);
          jobs.push_back({perturbed, c, {}, false, {}});
        }
      }
    }
  }

  // Run every job on a small pool; each job writes only its own slot.
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const size_t n_threads =
      std::min<size_t>(settings_.threads > 0 ? settings_.threads : hw, jobs.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t j = next++; j < jobs.size(); j = next++) run_job(jobs[j]);
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < n_threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<Evaluation> out(batch.size());
  for (size_t r = 0; r < batch.size(); ++r) {
    Evaluation& e = out[r];
    const bool gradients = !batch[r].derivatives.empty();
    const size_t per_case = 1 + (gradients ? n_design_ * per_variable : 0);
    e.cost.runs = static_cast<int>(per_case * n_cases);
    e.cost.wall_seconds = seconds / batch.size();
    e.has_gradients = gradients;
    for (int c = 0; c < n_cases && e.ok; ++c) {
      const size_t base = first_job[r] + c * per_case;
      for (size_t j = base; j < base + per_case; ++j) {
        if (!jobs[j].ok) {
          e.ok = false;
          e.message = jobs[j].message;
          break;
        }
      }
      if (!e.ok) break;
      CaseResult result = jobs[base].result;
      if (gradients) {
        auto column = [&](int i, auto get) -> Eigen::VectorXd {
          const Eigen::VectorXd plus = get(jobs[base + 1 + i * per_variable].result);
          if (!settings_.central) return (plus - get(result)) / steps[r](i);
          const Eigen::VectorXd minus = get(jobs[base + 2 + i * per_variable].result);
          return (plus - minus) / (2.0 * steps[r](i));
        };
        for (const auto& [name, h] : result.histories) {
          Eigen::MatrixXd g(h.size(), n_design_);
          for (int i = 0; i < n_design_; ++i) {
            g.col(i) = column(
                i, [&](const CaseResult& cr) -> Eigen::VectorXd { return cr.histories.at(name); });
          }
          result.gradients[name] = g;
        }
        for (const auto& [name, v] : result.scalars) {
          Eigen::MatrixXd g(1, n_design_);
          for (int i = 0; i < n_design_; ++i) {
            g.col(i) = column(i, [&](const CaseResult& cr) -> Eigen::VectorXd {
              return Eigen::VectorXd::Constant(1, cr.scalars.at(name));
            });
          }
          result.gradients[name] = g;
        }
      }
      e.cases.push_back(std::move(result));
    }
    if (!e.ok) e.cases.clear();
  }
  return out;
}

void register_internal_simulator() {
  register_simulator("internal", [](const SimulatorSetup& setup) -> std::unique_ptr<Simulator> {
    return std::make_unique<InternalSimulator>(setup);
  });
}

}  // namespace sao::sim
