// The adjoint method: one forward integration with checkpoints, then one shared backward sweep
// for all requested values (or one backward solve per value; CVODES adjoint, adjoint_system).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "simulators/sensitivities/sensitivities.hpp"

namespace sao::sim {

std::string adjoint_sensitivities(const SensitivityProblem& problem, CaseResult& out,
                                  Eigen::MatrixXd& rows) {
  const OdeModel& model = problem.model;
  if (model.differentiates_itself()) return self_differentiated(problem, true, out, rows);
  const LoadCaseSpec& lc = problem.lc;
  const std::vector<WantedValue>& wanted = problem.wanted;
  const OdeSystem system = model.system(problem.p, lc, problem.active);
  const int nh = static_cast<int>(model.history_outputs().size());
  auto functionals = [&](const Eigen::MatrixXd& forward) {
    std::vector<AdjointFunctional> fns;
    for (const WantedValue& w : wanted) {
      AdjointFunctional fn;
      if (w.point < 0) {
        fn.quadrature = w.output - nh;
      } else {
        Eigen::RowVectorXd hx;
        output_partials(problem, w, forward, hx);
        fn.point = w.point;
        fn.state_weight = hx.transpose();
      }
      fns.push_back(fn);
    }
    return fns;
  };
  std::unique_ptr<ForwardPass> kept = problem.kept ? std::move(*problem.kept) : nullptr;
  const AdjointResult r =
      adjoint_system(system, lc.grid, problem.settings, functionals, std::move(kept));
  if (!r.ok) return r.message;
  spdlog::debug(
      "internal simulator: adjoint in load case \"{}\": {} forward steps{}, {} checkpoint(s) "
      "after the start{}, {}",
      lc.name, r.forward_steps, r.forward_kept ? " (the analysis's, kept)" : "", r.checkpoints,
      r.checkpoints > 0 ? " (the forward problem integrated again between them; "
                          "simulator.gradients.checkpoint_steps keeps more steps in memory)"
                        : "",
      r.shared
          ? fmt::format("one shared backward sweep of {} adjoint vectors ({} stops, {} steps)",
                        wanted.size(), r.sweep_stops, r.backward_steps)
          : fmt::format("{} backward solve(s) ({} steps)", r.backward_solves, r.backward_steps));
  for (size_t f = 0; f < wanted.size(); ++f) {
    const auto row = static_cast<Eigen::Index>(f);
    rows.row(row) = r.gradients.row(row);
    if (wanted[f].point >= 0) {
      Eigen::RowVectorXd hx;
      rows.row(row) += output_partials(problem, wanted[f], r.states, hx);
    }
  }
  model.fill_outputs(r.states, r.integrals, problem.p, lc, out);
  out.integrator_steps = r.forward_steps;
  return "";
}

}  // namespace sao::sim
