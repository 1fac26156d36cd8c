// The discrete adjoint: one backward sweep of linear solves with the transposed Newton
// matrices of the variational integrator's steps (simulators/multibody/variational.hpp).
#include "simulators/sensitivities/sensitivities.hpp"

namespace sao::sim {

std::string discrete_adjoint_sensitivities(const SensitivityProblem& problem, CaseResult& out,
                                           Eigen::MatrixXd& rows) {
  if (!problem.model.discrete_map()) {
    return "model " + problem.model.name() +
           ": discrete_adjoint needs the variational integrator (simulator.multibody.integrator)";
  }
  return self_differentiated(problem, true, out, rows);
}

}  // namespace sao::sim
