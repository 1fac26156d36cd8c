// The metamodel strategy's approximation (metamodel_strategy.hpp): a global model of every
// response value a cycle needs, fitted over analysed designs (sao/metamodel), as a ResponseModel
// so that the criteria, the subproblem and the accuracy measures of the driver use it as they
// use the local approximations.
//
// One model per response value (response, load case, time point), in the design variables
// (auxiliaries never enter a response):
//   quadratic / linear  a least-squares polynomial (metamodel::PolynomialModel) per value; a
//                       quadratic the points cannot determine (fewer points than coefficients,
//                       or a rank-deficient model matrix) falls back to the linear one, and
//                       fallback() says so;
//   kriging             per (response, load case) the length scales and nugget by maximum
//                       likelihood on the value that varies most over the points (for a history:
//                       its time point of the largest variance), then every value of it fitted
//                       with those hyperparameters fixed: the points of a history share their
//                       correlation structure, and one likelihood search per response keeps a
//                       history of hundreds of points cheap. The nugget is estimated (the
//                       responses of crash codes are noisy; a smooth response gets a tiny one).
// Gradients: analytic for the polynomials, central differences (1e-6 of the box) for kriging.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sao/metamodel/metamodel.hpp"
#include "sao/optimizer/approximation_forms.hpp"
#include "sao/study/criteria.hpp"

namespace sao {

// One model of each column of `values` (m x k, the values of k quantities at the rows of
// `points`), as MetamodelResponses fits a response's values: kriging with the length scales and
// nugget by maximum likelihood on the column that varies most, shared by every column;
// polynomials per column (a quadratic the points cannot determine falls back to the linear one,
// `fallback` says why). loo_percent: each model's leave-one-out RMS relative to its column's
// spread, percent (NaN for a constant column or without a leave-one-out error). Throws
// std::invalid_argument: label(k) + ": " + the fit's message for column k, ": " + the message
// when the likelihood fit fails.
struct FittedColumns {
  std::vector<std::unique_ptr<metamodel::Metamodel>> models;
  std::vector<double> loo_percent;
  std::string fallback;
};
FittedColumns fit_columns(MetamodelKind kind, const Eigen::MatrixXd& points,
                          const Eigen::MatrixXd& values, const metamodel::Bounds& box,
                          const std::function<std::string(Eigen::Index)>& label);

class MetamodelResponses final : public ResponseModel {
 public:
  // points: m x n designs (design variables only), analyses: theirs (successful), wanted: the
  // values to model (the screening's requests: load case, response source, time points; no
  // points: all of them), box: the box the models are scaled on. Throws std::invalid_argument
  // (the fit's message, naming the response) when a value cannot be modelled.
  MetamodelResponses(const Study& study, MetamodelKind kind, const Eigen::MatrixXd& points,
                     const std::vector<const Evaluation*>& analyses,
                     const std::vector<DerivativeRequest>& wanted, const metamodel::Bounds& box);
  ~MetamodelResponses() override;

  double value(int response, int load_case, int point, const Eigen::VectorXd& x) const override;
  void add_gradient(int response, int load_case, int point, const Eigen::VectorXd& x, double coef,
                    Eigen::Ref<Eigen::VectorXd> grad) const override;

  int models() const { return static_cast<int>(models_.size()); }
  int points() const { return points_; }
  // The models as fitted, in words: "quadratic", "linear (too few points for a quadratic: ...)",
  // "kriging".
  const std::string& description() const { return description_; }
  // The largest leave-one-out RMS of a response's values relative to their spread (its values'
  // range over the points), in percent, and the response's name: how far the worst model is from
  // predicting the analyses it leaves out. NaN when no model has one.
  double worst_loo_percent() const { return worst_loo_; }
  const std::string& worst_response() const { return worst_name_; }

 private:
  const metamodel::Metamodel& model(int response, int load_case, int point) const;
  void fit_group(const Study& study, MetamodelKind kind, int response, int load_case,
                 const std::vector<int>& wanted_points, const Eigen::MatrixXd& points,
                 const std::vector<const Evaluation*>& analyses, const metamodel::Bounds& box);

  std::map<ResponseKey, std::unique_ptr<metamodel::Metamodel>> models_;
  metamodel::Bounds box_;
  int n_ = 0;
  int points_ = 0;
  bool kriging_ = false;
  std::string description_;
  double worst_loo_;
  std::string worst_name_;
};

}  // namespace sao
