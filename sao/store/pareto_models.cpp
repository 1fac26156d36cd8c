#include "sao/store/pareto_models.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

#include "sao/metamodel/log_inputs.hpp"
#include "sao/optimizer/metamodel_responses.hpp"

namespace sao {
namespace {

// Every value of every response in every load case (a history's every point).
std::vector<DerivativeRequest> every_value(const Study& study) {
  std::vector<DerivativeRequest> out;
  for (const ResponseDef& r : study.responses) {
    for (size_t c = 0; c < study.load_cases.size(); ++c)
      out.push_back({static_cast<int>(c), r.source, {}});
  }
  return out;
}

class ValueModels final : public FrontModels {
 public:
  ValueModels(const Study& study, MetamodelKind kind, const Eigen::MatrixXd& points,
              const std::vector<const Evaluation*>& analyses, const metamodel::Bounds& box)
      : study_(study), model_(study, kind, points, analyses, every_value(study), box) {
    description_ = model_.description();
    worst_loo_ = model_.worst_loo_percent();
  }
  ParetoValues values(const Eigen::VectorXd& design) const override {
    return pareto_values(study_, design, model_);
  }

 private:
  const Study& study_;
  MetamodelResponses model_;
};

// Whether constraint `c` is a bound formulation's own (bounded by an auxiliary variable).
bool bounded_by_auxiliary(const Constraint& c) {
  return c.bound_auxiliary >= 0;
}

// One criterion's model: `kind` on the variables as they are and, for kriging when a variable has
// a positive lower bound, kriging on the logarithms of those variables too (LogInputsModel); the
// one of smaller leave-one-out RMS is kept (the first on a tie, or when the second cannot be
// fitted). Throws (fit_columns's message) when the first cannot be fitted.
struct Criterion {
  std::unique_ptr<metamodel::Metamodel> model;
  double loo_percent = 0.0;
  bool log = false;
};

Criterion fit_criterion(MetamodelKind kind, const Eigen::MatrixXd& points,
                        const Eigen::VectorXd& values, const metamodel::Bounds& box,
                        const std::vector<bool>& mask, std::string& fallback) {
  const auto no_label = [](Eigen::Index) { return std::string(); };
  FittedColumns plain = fit_columns(kind, points, values, box, no_label);
  if (fallback.empty()) fallback = plain.fallback;
  Criterion out{std::move(plain.models.front()), plain.loo_percent.front(), false};
  if (kind != MetamodelKind::kKriging || std::none_of(mask.begin(), mask.end(), std::identity()))
    return out;
  FittedColumns logged;
  try {
    logged = fit_columns(kind, metamodel::log_points(points, mask), values,
                         metamodel::log_bounds(box, mask), no_label);
  } catch (const std::exception&) {
    return out;  // a candidate that cannot be fitted is not chosen
  }
  if (logged.models.front()->accuracy().loo_rms < out.model->accuracy().loo_rms) {
    out.model =
        std::make_unique<metamodel::LogInputsModel>(std::move(logged.models.front()), box, mask);
    out.loo_percent = logged.loo_percent.front();
    out.log = true;
  }
  return out;
}

class CriteriaModels final : public FrontModels {
 public:
  CriteriaModels(const Study& study, MetamodelKind kind, const Eigen::MatrixXd& points,
                 const std::vector<const Evaluation*>& analyses, const metamodel::Bounds& box);
  ParetoValues values(const Eigen::VectorXd& design) const override;

 private:
  const Study& study_;
  std::vector<int> modelled_;     // the constraints modelled (a numeric bound), in study order
  std::vector<int> objective_x_;  // per objective: its auxiliary's place in x, or -1
  std::vector<std::unique_ptr<metamodel::Metamodel>> models_;  // objectives, then modelled_
};

CriteriaModels::CriteriaModels(const Study& study, MetamodelKind kind,
                               const Eigen::MatrixXd& points,
                               const std::vector<const Evaluation*>& analyses,
                               const metamodel::Bounds& box)
    : study_(study) {
  for (size_t j = 0; j < study.constraints.size(); ++j) {
    if (!bounded_by_auxiliary(study.constraints[j])) modelled_.push_back(static_cast<int>(j));
  }
  for (const Objective& o : study.objectives)
    objective_x_.push_back(o.bound_formulation ? study.variable_index(o.f.text) : -1);
  const auto k = static_cast<Eigen::Index>(study.objectives.size());
  std::vector<std::string> names;
  for (const Objective& o : study.objectives) names.push_back(o.name);
  for (int j : modelled_) names.push_back(study.constraints[static_cast<size_t>(j)].name);
  // The criteria of every training analysis, as an analysis gives them.
  Eigen::MatrixXd values(points.rows(), static_cast<Eigen::Index>(names.size()));
  for (Eigen::Index r = 0; r < points.rows(); ++r) {
    const ExactResponses exact(study, *analyses[static_cast<size_t>(r)]);
    const ParetoValues v = pareto_values(study, points.row(r).transpose(), exact);
    values.row(r).head(k) = v.objectives.transpose();
    for (size_t j = 0; j < modelled_.size(); ++j)
      values(r, k + static_cast<Eigen::Index>(j)) = v.normalised(modelled_[j]);
  }
  for (Eigen::Index c = 0; c < values.cols(); ++c) {
    if (!values.col(c).allFinite()) {
      throw std::invalid_argument("criterion \"" + names[static_cast<size_t>(c)] +
                                  "\": an analysis in the fit gives a non-finite value");
    }
  }
  // One fit per criterion: each its own hyperparameters (fit_columns shares them by column).
  std::string fallback;
  const std::vector<bool> mask = metamodel::log_scaled_variables(box);
  worst_loo_ = std::numeric_limits<double>::quiet_NaN();
  for (Eigen::Index c = 0; c < values.cols(); ++c) {
    const std::string& name = names[static_cast<size_t>(c)];
    Criterion fitted;
    try {
      fitted = fit_criterion(kind, points, values.col(c), box, mask, fallback);
    } catch (const std::exception& e) {
      throw std::invalid_argument("criterion \"" + name + "\"" + e.what());
    }
    errors_.push_back({name, fitted.model->accuracy().loo_rms, fitted.loo_percent, fitted.log});
    if (std::isfinite(fitted.loo_percent) && !(fitted.loo_percent <= worst_loo_))
      worst_loo_ = fitted.loo_percent;
    models_.push_back(std::move(fitted.model));
  }
  description_ = metamodel_kind_name(kind);
  if (!fallback.empty() && kind == MetamodelKind::kQuadratic)
    description_ = "linear (a quadratic cannot be fitted: " + fallback + ")";
}

ParetoValues CriteriaModels::values(const Eigen::VectorXd& design) const {
  const Study& study = study_;
  const auto k = static_cast<Eigen::Index>(study.objectives.size());
  ParetoValues v;
  v.objectives.resize(k);
  Eigen::VectorXd x(study.n_total());
  x.head(study.n_design()) = design;
  for (int a = 0; a < study.n_aux(); ++a) x(study.n_design() + a) = study.auxiliaries[a].initial;
  for (Eigen::Index i = 0; i < k; ++i) {
    v.objectives(i) = models_[static_cast<size_t>(i)]->value(design);
    // A bound formulation's auxiliary at the largest value it bounds: the objective.
    if (const int at = objective_x_[static_cast<size_t>(i)]; at >= 0) x(at) = v.objectives(i);
  }
  v.normalised = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(study.constraints.size()));
  for (size_t j = 0; j < modelled_.size(); ++j)
    v.normalised(modelled_[j]) = models_[static_cast<size_t>(k) + j]->value(design);
  finish_pareto_values(study, x, v);
  return v;
}

}  // namespace

std::unique_ptr<FrontModels> fit_front_models(const Study& study, ParetoModelling modelling,
                                              MetamodelKind kind, const Eigen::MatrixXd& points,
                                              const std::vector<const Evaluation*>& analyses,
                                              const metamodel::Bounds& box) {
  if (modelling == ParetoModelling::kCriteria)
    return std::make_unique<CriteriaModels>(study, kind, points, analyses, box);
  return std::make_unique<ValueModels>(study, kind, points, analyses, box);
}

int response_value_count(const Study& study, const Evaluation& analysis) {
  int count = 0;
  for (const ResponseDef& r : study.responses) {
    for (const CaseResult& c : analysis.cases) {
      if (!r.history) {
        ++count;
      } else if (const auto it = c.histories.find(r.source); it != c.histories.end()) {
        count += static_cast<int>(it->second.size());
      }
    }
  }
  return count;
}

}  // namespace sao
