// Single-point linear approximation of the responses (SPEC 4, seed 003 eqs. 3.12-3.13).
//
// Built once per cycle from the analysis of b0 and its sensitivities, in the intermediate
// design variables b'_k = phi_k(b_k) of the study (Intermediate in study.hpp):
//   r~(b) = r(b0) + sum_k (phi_k(b_k) - phi_k(b0_k)) dr/db_k (b0) / phi_k'(b0_k)
// for every response value the subproblem uses (a scalar, or one time point of a history).
// It is a ResponseModel, so criteria evaluate on it exactly as on an analysis; auxiliary
// variables never enter it. Intermediate design variables (b' = phi(b)) slot in here.
#pragma once

#include "sao/study/criteria.hpp"

namespace sao {

class LinearApproximation final : public ResponseModel {
 public:
  // `at_b0` must hold gradients for every (response, case, point) asked for later;
  // x0 is the full variable vector of the cycle start.
  LinearApproximation(const Study& study, const Evaluation& at_b0, const Eigen::VectorXd& x0);

  double value(int response, int load_case, int point, const Eigen::VectorXd& x) const override;
  void add_gradient(int response, int load_case, int point, const Eigen::VectorXd& x, double coef,
                    Eigen::Ref<Eigen::VectorXd> grad) const override;

 private:
  Eigen::Ref<const Eigen::RowVectorXd> slope(int response, int load_case, int point) const;

  const Study& study_;
  ExactResponses exact_;
  const Evaluation& at_b0_;
  Eigen::VectorXd b0_;  // design part of x0
};

// True when every design variable uses the identity intermediate variable.
bool all_identity(const Study& study);

}  // namespace sao
