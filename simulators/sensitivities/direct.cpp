// The direct method: CVODES forward sensitivities, one integration for every parameter.
#include <algorithm>

#include "simulators/sensitivities/sensitivities.hpp"

namespace sao::sim {

std::string direct_sensitivities(const SensitivityProblem& problem, CaseResult& out,
                                 Eigen::MatrixXd& rows) {
  const OdeModel& model = problem.model;
  if (model.differentiates_itself()) return self_differentiated(problem, false, out, rows);
  const LoadCaseSpec& lc = problem.lc;
  const OdeSystem system = model.system(problem.p, lc, problem.active);
  const int nh = static_cast<int>(model.history_outputs().size());
  // The integrals' sensitivities only when an integral's derivative is wanted.
  const bool integrals = std::any_of(problem.wanted.begin(), problem.wanted.end(),
                                     [](const WantedValue& w) { return w.point < 0; });
  const SystemResult r = integrate_system(system, lc.grid, problem.settings, true, integrals);
  if (!r.ok) return r.message;
  for (size_t f = 0; f < problem.wanted.size(); ++f) {
    const WantedValue& w = problem.wanted[f];
    const auto row = static_cast<Eigen::Index>(f);
    if (w.point < 0) {
      rows.row(row) = r.integral_sensitivities.row(w.output - nh);
      continue;
    }
    Eigen::RowVectorXd hx;
    const Eigen::RowVectorXd hp = output_partials(problem, w, r.states, hx);
    rows.row(row) = hx * r.state_sensitivities[w.point] + hp;
  }
  model.fill_outputs(r.states, r.integrals, problem.p, lc, out);
  out.integrator_steps = r.steps;
  return "";
}

}  // namespace sao::sim
