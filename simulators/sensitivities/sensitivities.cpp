#include "simulators/sensitivities/sensitivities.hpp"

#include <algorithm>

namespace sao::sim {

std::string wanted_values(const OdeModel& model, const LoadCaseSpec& lc, int load_case,
                          const std::vector<DerivativeRequest>& requests,
                          std::vector<WantedValue>& wanted) {
  const auto histories = model.history_outputs();
  const auto integrals = model.integral_outputs();
  for (const DerivativeRequest& d : requests) {
    if (d.load_case != load_case) continue;
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
      return "model " + model.name() + ": response \"" + d.response +
             "\" has no direct or adjoint derivative (it is computed from the histories, "
             "e.g. a maximum): use finite differences for it";
    }
  }
  return "";
}

std::string self_differentiated(const SensitivityProblem& problem, bool adjoint, CaseResult& out,
                                Eigen::MatrixXd& rows) {
  std::vector<OutputPoint> points;
  for (const WantedValue& w : problem.wanted) points.push_back({w.output, w.point});
  const std::string failure = problem.model.analyse_with_derivatives(
      problem.p, problem.lc, problem.active, points, adjoint, out, rows);
  if (failure.empty()) problem.model.scalars_from_histories(out);
  return failure;
}

Eigen::RowVectorXd output_partials(const SensitivityProblem& problem, const WantedValue& w,
                                   const Eigen::MatrixXd& states, Eigen::RowVectorXd& hx) {
  const LoadCaseSpec& lc = problem.lc;
  const double t = w.point >= 0 ? lc.grid.at(w.point) : lc.grid.end;
  const Eigen::VectorXd x = states.row(std::max(w.point, 0)).transpose();
  const Eigen::RowVectorXd g =
      problem.model.output_gradient(w.output, t, x, problem.p, lc, problem.active);
  hx = g.head(problem.model.state_size());
  return Eigen::RowVectorXd(g.tail(problem.active.size()));
}

}  // namespace sao::sim
