#include "simulators/multibody/multibody.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "simulators/multibody/dynamics.hpp"
#include "simulators/multibody/parser.hpp"
#include "simulators/multibody/reduced.hpp"
#include "simulators/multibody/variational.hpp"

namespace sao::sim {
namespace {

using namespace multibody;  // NOLINT: the multibody internals, used throughout

// A multibody model as an OdeModel: the model data and its equations.
class Multibody final : public OdeModel {
 public:
  explicit Multibody(MultibodyModel model) : model_(std::move(model)), dynamics_(model_) {
    std::string why;
    reduced_ = find_reduction(dynamics_, reduction_, why);
    spdlog::info(reduction_summary(dynamics_, reduced_ ? &reduction_ : nullptr, why));
    if (!reduced_ && !model_.variational.on) spdlog::info(dynamics_.linear_algebra_summary());
  }

  std::string name() const override { return "multibody"; }
  std::vector<std::string> parameters() const override { return model_.parameter_names; }
  std::map<std::string, double> parameter_defaults() const override {
    std::map<std::string, double> out;
    for (size_t i = 0; i < model_.parameter_names.size(); ++i)
      out[model_.parameter_names[i]] = model_.parameter_defaults[i];
    return out;
  }
  std::map<std::string, double> load_parameters() const override {
    std::map<std::string, double> out;
    for (size_t i = 0; i < model_.load_names.size(); ++i)
      out[model_.load_names[i]] = model_.load_defaults[i];
    return out;
  }
  // (q, q'), or (z, z') in independent coordinates (reduced.hpp).
  int state_size() const override { return reduced_ ? 2 * reduction_.size() : 2 * model_.nq(); }
  double max_step(const LoadCaseSpec& lc) const override {
    if (!model_.has_max_step) return 0.0;
    const double h =
        model_.max_step.at(dynamics_.vars(model_.parameter_defaults.data(), lc.grid.start, lc));
    if (!(h > 0.0)) {
      throw std::runtime_error("max_step is " + std::to_string(h) + " in load case \"" + lc.name +
                               "\" (expected > 0)");
    }
    return h;
  }
  // Beam elements: their stiffness, in absolute coordinates, turns with each link, so a
  // Jacobian a few steps old is a poor Newton matrix for stiff links (docs/four-bar-flexible.md:
  // at 10 E, 15030 steps and 372 Newton failures with CVODES's default of 51 steps, 2423 and 2
  // with a fresh one every step). The model's "jacobian_age" overrides it (a beam that turns
  // little: docs/performance.md).
  long jacobian_age() const override {
    if (model_.jacobian_age >= 0) return model_.jacobian_age;
    return model_.beam_elements.empty() ? 0 : 1;
  }
  // CVODES resolves every wave the start excites in an undamped beam, and the fastest of its
  // elements (axial, and the nodes' rotations against their small rotary inertia: about
  // 2 sqrt(3) sqrt(E / rho) / L0 rad/s) grow with their number; the steps follow them
  // (docs/performance.md: 426,565 steps for 1 s of a pinned beam of 100 elements, 1,109 with a
  // damping of 2e-3 s). Said when the mean step resolves such a wave (omega h < 1) over at least
  // kManySteps steps.
  std::string step_note(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                        long steps) const override {
    constexpr long kManySteps = 5000;
    if (!model_.dynamic || model_.variational.on || model_.beams.empty() || steps < kManySteps) {
      return {};
    }
    const double span = lc.grid.at(lc.grid.points - 1) - lc.grid.at(0);
    const double h = span / static_cast<double>(steps);
    const Env<double> env = dynamics_.vars(p.data(), lc.grid.at(0), lc);
    for (const Beam& beam : model_.beams) {
      double fastest = 0.0;
      for (int k = 0; k < beam.elements; ++k) {
        const BeamElement& e = model_.beam_elements[static_cast<size_t>(beam.first + k)];
        if (e.damping.at(env) > 0.0) continue;
        fastest = std::max(fastest, 2.0 * std::sqrt(3.0 * e.modulus.at(env) / e.density.at(env)) /
                                        e.length.at(env));
      }
      if (!(fastest * h < 1.0)) continue;
      return fmt::format(
          "load case \"{}\": {} steps of CVODES over {:.3g} s (a mean step of {:.3g} s): beam "
          "\"{}\" has no damping, and CVODES resolves every wave the start excites in it; these "
          "steps resolve its elements' fastest (axial, and the nodes' rotations: about {:.3g} "
          "rad/s, 2 sqrt(3 E / rho) / L0, faster with every element added), which alone set "
          "steps this short. A "
          "\"damping\" on the beam (a time constant mu: a mode of frequency omega gets mu omega / "
          "2 of critical damping; mu >= {:.2g} s damps those waves at least critically, and a "
          "structure's own damping, mu = 2 zeta / omega1 for a ratio zeta on its first mode, is "
          "often more) or the variational integrator (\"integrator\": {{\"type\": "
          "\"variational\", \"step\": h}}) takes the steps the outputs need "
          "(docs/performance.md)",
          lc.name, steps, span, h, beam.name, fastest, 2.0 / fastest);
    }
    return {};
  }
  std::vector<std::string> history_outputs() const override { return model_.history_names; }
  std::vector<std::string> integral_outputs() const override {
    std::vector<std::string> out;
    for (const auto& i : model_.integrals) out.push_back(i.name);
    return out;
  }
  std::string analyse(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                      const IntegratorSettings& settings, CaseResult& out) const override {
    try {
      if (!model_.dynamic) return dynamics_.analyse(p, lc, nullptr, out);
      if (model_.variational.on) return analyse_variational(p, lc, nullptr, out);
      return OdeModel::analyse(p, lc, settings, out);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
  }
  bool differentiates_itself() const override { return !model_.dynamic || model_.variational.on; }
  bool discrete_map() const override { return model_.variational.on; }
  std::unique_ptr<Instance> instance(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                     const std::vector<int>& active) const override {
    if (!model_.dynamic) return OdeModel::instance(p, lc, active);
    if (reduced_) return reduced_run(dynamics_, reduction_, p, lc, active);
    return dynamics_.run(p, lc, active);
  }
  std::string analyse_with_derivatives(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                       const std::vector<int>& active,
                                       const std::vector<OutputPoint>& wanted, bool adjoint,
                                       CaseResult& out, Eigen::MatrixXd& rows) const override {
    rows.setZero(static_cast<Eigen::Index>(wanted.size()),
                 static_cast<Eigen::Index>(active.size()));
    const KinematicRequest request{&active, &wanted, adjoint, &rows};
    try {
      if (model_.variational.on) return analyse_variational(p, lc, &request, out);
      return dynamics_.analyse(p, lc, &request, out);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
  }

  void initial_state(const double* p, double* x0, const LoadCaseSpec& lc) const override {
    initial<double>(p, x0, lc);
  }
  void initial_state(const AD* p, AD* x0, const LoadCaseSpec& lc) const override {
    set_ad_size(p, static_cast<Eigen::Index>(model_.parameter_names.size()));
    initial<AD>(p, x0, lc);
  }
  int rhs(double t, const double* x, double* xdot, const double* p,
          const LoadCaseSpec& lc) const override {
    // A singular system: let CVODES retry with a smaller step.
    return equations<double>(t, x, xdot, p, lc) ? 0 : 1;
  }
  std::string diagnose(double t, const double* xs, const double* p,
                       const LoadCaseSpec& lc) const override {
    std::vector<double> full;
    const double* x = absolute<double>(t, xs, p, lc, full);
    Vec<double> qdd;
    return dynamics_.accelerations(x, x + model_.nq(), dynamics_.vars(p, t, lc), qdd)
               ? ""
               : dynamics_.singular_motion(t, x, p, lc);
  }
  void rhs(double t, const AD* x, AD* xdot, const AD* p, const LoadCaseSpec& lc) const override {
    set_ad_size(x, state_size());
    if (!equations<AD>(t, x, xdot, p, lc)) {
      std::vector<AD> full;
      throw std::runtime_error(
          dynamics_.singular_motion(t, absolute<AD>(t, x, p, lc, full), p, lc));
    }
  }
  double output(int k, double t, const double* x, const double* p,
                const LoadCaseSpec& lc) const override {
    std::vector<double> full;
    return dynamics_.out<double>(k, t, absolute<double>(t, x, p, lc, full), p, lc);
  }
  void history_outputs_at(double t, const double* xs, const double* p, const LoadCaseSpec& lc,
                          Eigen::Ref<Eigen::VectorXd> h) const override {
    if (reduced_) return reduced_histories(dynamics_, reduction_, t, xs, p, lc, h);
    // In absolute coordinates (reduced runs returned above).
    if (!dynamics_.history_values_at(xs, dynamics_.vars(p, t, lc), h)) {
      throw std::runtime_error(dynamics_.singular_motion(t, xs, p, lc));
    }
  }
  AD output(int k, double t, const AD* x, const AD* p, const LoadCaseSpec& lc) const override {
    set_ad_size(x, state_size());
    std::vector<AD> full;
    return dynamics_.out<AD>(k, t, absolute<AD>(t, x, p, lc, full), p, lc);
  }

 private:
  // The absolute state (q, q') of the integrated state x at t: x itself in absolute
  // coordinates (no copy), else expanded from the independent coordinates into `full`.
  template <class S>
  const S* absolute(double t, const S* x, const S* p, const LoadCaseSpec& lc,
                    std::vector<S>& full) const {
    if (!reduced_) return x;
    full.resize(2 * model_.nq());
    full_state(dynamics_, reduction_, t, x, p, lc, full.data());
    return full.data();
  }
  template <class S>
  void initial(const S* p, S* x0, const LoadCaseSpec& lc) const {
    if (!reduced_) return dynamics_.initial<S>(p, x0, lc);
    std::vector<S> full(2 * model_.nq());
    dynamics_.initial<S>(p, full.data(), lc);
    reduced_state(dynamics_, reduction_, full.data(), x0);
  }
  // x' at x; false when the equations of motion are singular there.
  template <class S>
  bool equations(double t, const S* x, S* xdot, const S* p, const LoadCaseSpec& lc) const {
    const Env<S> env = dynamics_.vars(p, t, lc);
    if (!reduced_) return dynamics_.equations<S>(x, xdot, env);
    std::vector<S> full;
    const S* q = absolute<S>(t, x, p, lc, full);
    std::vector<S> rates(full.size());
    if (!dynamics_.equations<S>(q, rates.data(), env)) return false;
    reduced_state(dynamics_, reduction_, rates.data(), xdot);
    return true;
  }

  // The variational integrator's analysis and, with a request, its discrete direct or
  // adjoint derivatives.
  std::string analyse_variational(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                  const KinematicRequest* request, CaseResult& out) const {
    const Variational variational(dynamics_);
    VariationalRun run;
    std::string failure = variational.integrate(p, lc, request != nullptr, run);
    if (!failure.empty()) return failure;
    if (request) {
      failure = variational.derivatives(p, lc, *request->active, *request->wanted, request->adjoint,
                                        run, *request->rows);
      if (!failure.empty()) return failure;
    }
    fill_outputs(run.states, run.integrals, p, lc, out);
    out.integrator_steps = static_cast<long>(run.times.size()) - 1;
    return "";
  }

  MultibodyModel model_;
  Dynamics dynamics_;  // views model_
  Reduction reduction_;
  bool reduced_ = false;
};

}  // namespace

std::unique_ptr<Model> load_multibody_model(const nlohmann::json& multibody,
                                            const std::string& path) {
  return std::make_unique<Multibody>(parse_multibody(multibody, path));
}

}  // namespace sao::sim
