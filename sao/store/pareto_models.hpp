// The models a front is searched on (`sao pareto`, docs/pareto.md "What is modelled"): the
// predicted values of a design, fitted over a round's training analyses, in one of two ways:
//   values    every response value (MetamodelResponses, the metamodel strategy's: each response,
//             load case and time point) and the study's criteria evaluated on them as on an
//             analysis (pareto_values);
//   criteria  one model per objective (its value as an analysis gives it: for "minimize_max" the
//             largest value over the time points and load cases) and one per constraint with a
//             numeric bound (its largest g_hat), fitted (fit_columns, the same kriging or
//             polynomials) on the criteria computed from the analyses (pareto_values on the
//             analysis). A bound formulation's own constraints (q <= b, b the objective) hold by
//             construction: their g_hat is 0 and their value the bound, as pareto_values gives
//             it for the one that attains the largest value.
// The criteria models keep a study of long histories cheap (the truck: 11 models of the
// criteria, against 5409 models of its values), at the price of modelling maxima, which are
// less smooth than the values they are taken over.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sao/metamodel/metamodel.hpp"
#include "sao/store/pareto_run.hpp"

namespace sao {

class FrontModels {
 public:
  virtual ~FrontModels() = default;
  // The predicted values of `design` (design variables only).
  virtual ParetoValues values(const Eigen::VectorXd& design) const = 0;
  const std::string& description() const { return description_; }
  double worst_loo_percent() const { return worst_loo_; }
  const std::vector<ParetoModelError>& errors() const { return errors_; }

 protected:
  std::string description_;
  double worst_loo_ = 0.0;
  std::vector<ParetoModelError> errors_;
};

// The models over `points` (m x n) and their successful analyses; `modelling` kValues or
// kCriteria. Throws std::invalid_argument when a model cannot be fitted (naming it).
std::unique_ptr<FrontModels> fit_front_models(const Study& study, ParetoModelling modelling,
                                              MetamodelKind kind, const Eigen::MatrixXd& points,
                                              const std::vector<const Evaluation*>& analyses,
                                              const metamodel::Bounds& box);

// The number of response values of an analysis: every response's points (a history's time
// points, 1 for a scalar) in every load case.
int response_value_count(const Study& study, const Evaluation& analysis);

}  // namespace sao
