// Direct and adjoint sensitivities of an OdeModel in one load case (seed 003, 4.11-4.33): the
// derivatives of requested history values and integrals with respect to the model parameters.
//
// Both methods share one signature (SensitivityMethod): a SensitivityProblem in, every response
// and the derivative rows out. For an integrated model the direct method integrates the CVODES
// forward sensitivities once; the adjoint method integrates forward with checkpoints, then one
// backward problem per requested value. A model solved point by point (the kinematic
// multibody analysis, OdeModel::differentiates_itself) differentiates its own equations by
// the same two methods. Finite differences are not here: they are the seam's run_batch.
#pragma once

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "sao/seam/simulator.hpp"
#include "simulators/integrator/cvodes_integrator.hpp"
#include "simulators/models/model.hpp"

namespace sao::sim {

// One value asked for: history output `output` (history_outputs order) at grid point `point`,
// or, with point -1, integral output output - history_outputs().size().
struct WantedValue {
  std::string response;
  int output = 0;
  int point = -1;
};

// What one sensitivity run differentiates: the model at parameters p in load case lc, with
// respect to the parameters `active` (indices into p).
struct SensitivityProblem {
  const OdeModel& model;
  const LoadCaseSpec& lc;
  const Eigen::VectorXd& p;
  const std::vector<int>& active;
  const std::vector<WantedValue>& wanted;
  const IntegratorSettings& settings;
  // The forward pass of an analysis at p in lc (OdeModel::analyse_keeping), or empty: the
  // adjoint method takes it (and integrates no forward pass); the direct method leaves it.
  std::unique_ptr<ForwardPass>* kept = nullptr;
};

// Every response into `out` and the derivatives of the wanted values into `rows` (wanted x
// active, sized by the caller); returns "" or why the run failed.
using SensitivityMethod = std::string (*)(const SensitivityProblem& problem, CaseResult& out,
                                          Eigen::MatrixXd& rows);
std::string direct_sensitivities(const SensitivityProblem& problem, CaseResult& out,
                                 Eigen::MatrixXd& rows);
std::string adjoint_sensitivities(const SensitivityProblem& problem, CaseResult& out,
                                  Eigen::MatrixXd& rows);
// The adjoint of the discrete map of a model integrated by the variational integrator
// (OdeModel::discrete_map): the exact gradient of the computed values at any step size.
std::string discrete_adjoint_sensitivities(const SensitivityProblem& problem, CaseResult& out,
                                           Eigen::MatrixXd& rows);

// The values the derivative requests ask for in load case `load_case` (grid `lc`), into
// `wanted`; returns "" or why one of them has no direct or adjoint derivative.
std::string wanted_values(const OdeModel& model, const LoadCaseSpec& lc, int load_case,
                          const std::vector<DerivativeRequest>& requests,
                          std::vector<WantedValue>& wanted);

// The direct (adjoint false) or adjoint derivatives of a model that differentiates itself
// (OdeModel::differentiates_itself), with the SensitivityMethod contract.
std::string self_differentiated(const SensitivityProblem& problem, bool adjoint, CaseResult& out,
                                Eigen::MatrixXd& rows);

// The explicit part of wanted value w (a history value) at the states on the grid: dh/dx into
// `hx`, and dh/dp_active returned.
Eigen::RowVectorXd output_partials(const SensitivityProblem& problem, const WantedValue& w,
                                   const Eigen::MatrixXd& states, Eigen::RowVectorXd& hx);

}  // namespace sao::sim
