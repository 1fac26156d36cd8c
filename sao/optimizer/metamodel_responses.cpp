#include "sao/optimizer/metamodel_responses.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <stdexcept>

#include "sao/metamodel/kriging.hpp"
#include "sao/metamodel/polynomial.hpp"

namespace sao {
namespace {

// The values of one response (its source) in one load case at `wanted` points, per design.
Eigen::MatrixXd group_values(const ResponseDef& def, int load_case, const std::vector<int>& wanted,
                             const std::vector<const Evaluation*>& analyses) {
  Eigen::MatrixXd values(static_cast<Eigen::Index>(analyses.size()),
                         static_cast<Eigen::Index>(wanted.size()));
  for (size_t r = 0; r < analyses.size(); ++r) {
    const CaseResult& c = analyses[r]->cases.at(load_case);
    for (size_t k = 0; k < wanted.size(); ++k) {
      double v = std::numeric_limits<double>::quiet_NaN();
      if (def.history) {
        const auto it = c.histories.find(def.source);
        if (it != c.histories.end() && wanted[k] < it->second.size()) v = it->second(wanted[k]);
      } else if (const auto it = c.scalars.find(def.source); it != c.scalars.end()) {
        v = it->second;
      }
      values(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(k)) = v;
    }
  }
  return values;
}

std::unique_ptr<metamodel::Metamodel> fit_polynomial(const Eigen::MatrixXd& points,
                                                     const Eigen::VectorXd& values,
                                                     const metamodel::Bounds& box,
                                                     MetamodelKind kind, std::string& fallback) {
  if (kind == MetamodelKind::kQuadratic) {
    try {
      return std::make_unique<metamodel::PolynomialModel>(points, values, box,
                                                          metamodel::PolynomialOrder::quadratic);
    } catch (const std::invalid_argument& e) {
      if (fallback.empty()) fallback = e.what();
    }
  }
  return std::make_unique<metamodel::PolynomialModel>(points, values, box,
                                                      metamodel::PolynomialOrder::linear);
}

}  // namespace

MetamodelResponses::MetamodelResponses(const Study& study, MetamodelKind kind,
                                       const Eigen::MatrixXd& points,
                                       const std::vector<const Evaluation*>& analyses,
                                       const std::vector<DerivativeRequest>& wanted,
                                       const metamodel::Bounds& box)
    : box_(box),
      n_(study.n_design()),
      points_(static_cast<int>(points.rows())),
      kriging_(kind == MetamodelKind::kKriging),
      worst_loo_(std::numeric_limits<double>::quiet_NaN()) {
  description_ = metamodel_kind_name(kind);
  for (const DerivativeRequest& r : wanted) {
    for (size_t i = 0; i < study.responses.size(); ++i) {
      const ResponseDef& def = study.responses[i];
      if (def.source != r.response) continue;
      std::vector<int> at = r.time_indices;
      if (at.empty()) {
        int count = 1;
        if (def.history && !analyses.empty()) {
          const auto& h = analyses.front()->cases.at(r.load_case).histories;
          if (const auto it = h.find(def.source); it != h.end()) {
            count = static_cast<int>(it->second.size());
          }
        }
        for (int p = 0; p < count; ++p) at.push_back(p);
      }
      fit_group(study, kind, static_cast<int>(i), r.load_case, at, points, analyses, box);
    }
  }
}

MetamodelResponses::~MetamodelResponses() = default;

FittedColumns fit_columns(MetamodelKind kind, const Eigen::MatrixXd& points,
                          const Eigen::MatrixXd& values, const metamodel::Bounds& box,
                          const std::function<std::string(Eigen::Index)>& label) {
  FittedColumns out;
  metamodel::KrigingSettings shared;
  const bool kriging = kind == MetamodelKind::kKriging;
  if (kriging) {
    // The hyperparameters from the value that varies most over the points.
    Eigen::Index widest = 0;
    (values.rowwise() - values.colwise().mean()).colwise().squaredNorm().maxCoeff(&widest);
    shared.estimate_nugget = true;
    try {
      const metamodel::KrigingModel ml(points, values.col(widest), box, shared);
      shared.length_scales = ml.length_scales();
      shared.nugget = ml.nugget();
      shared.estimate_nugget = false;
    } catch (const std::exception& e) {
      throw std::invalid_argument(std::string(": ") + e.what());
    }
  }
  for (Eigen::Index k = 0; k < values.cols(); ++k) {
    const Eigen::VectorXd v = values.col(k);
    try {
      if (kriging) {
        out.models.push_back(std::make_unique<metamodel::KrigingModel>(points, v, box, shared));
      } else {
        out.models.push_back(fit_polynomial(points, v, box, kind, out.fallback));
      }
    } catch (const std::exception& e) {
      throw std::invalid_argument(label(k) + ": " + e.what());
    }
    // The leave-one-out error relative to the value's spread over the points.
    const double spread = v.maxCoeff() - v.minCoeff();
    const double loo = out.models.back()->accuracy().loo_rms;
    out.loo_percent.push_back(spread > 0.0 && std::isfinite(loo)
                                  ? 100.0 * loo / spread
                                  : std::numeric_limits<double>::quiet_NaN());
  }
  return out;
}

void MetamodelResponses::fit_group(const Study& study, MetamodelKind kind, int response,
                                   int load_case, const std::vector<int>& wanted_points,
                                   const Eigen::MatrixXd& points,
                                   const std::vector<const Evaluation*>& analyses,
                                   const metamodel::Bounds& box) {
  const ResponseDef& def = study.responses[response];
  const Eigen::MatrixXd values = group_values(def, load_case, wanted_points, analyses);
  const std::string where =
      "response \"" + def.name + "\" in load case \"" + study.load_cases[load_case].name + "\"";
  if (!values.allFinite()) {
    throw std::invalid_argument(where +
                                ": an analysis in the fit lacks it or holds a non-finite value");
  }
  FittedColumns fitted;
  try {
    fitted = fit_columns(kind, points, values, box, [&](Eigen::Index k) {
      return def.history ? " at time point " + std::to_string(wanted_points[k]) : std::string();
    });
  } catch (const std::exception& e) {
    throw std::invalid_argument(where + e.what());
  }
  for (size_t k = 0; k < wanted_points.size(); ++k) {
    if (std::isfinite(fitted.loo_percent[k]) && !(fitted.loo_percent[k] <= worst_loo_)) {
      worst_loo_ = fitted.loo_percent[k];
      worst_name_ = def.name;
    }
    models_[ResponseKey{response, load_case, wanted_points[k]}] = std::move(fitted.models[k]);
  }
  if (!fitted.fallback.empty() && description_ == "quadratic") {
    description_ = "linear (a quadratic cannot be fitted: " + fitted.fallback + ")";
  }
}

const metamodel::Metamodel& MetamodelResponses::model(int response, int load_case,
                                                      int point) const {
  const auto it = models_.find(ResponseKey{response, load_case, point});
  if (it == models_.end()) {
    throw std::logic_error("metamodel: response " + std::to_string(response) + " in load case " +
                           std::to_string(load_case) + " point " + std::to_string(point) +
                           " was not fitted (the cycle's screening did not ask for it)");
  }
  return *it->second;
}

double MetamodelResponses::value(int response, int load_case, int point,
                                 const Eigen::VectorXd& x) const {
  return model(response, load_case, point).value(x.head(n_));
}

void MetamodelResponses::add_gradient(int response, int load_case, int point,
                                      const Eigen::VectorXd& x, double coef,
                                      Eigen::Ref<Eigen::VectorXd> grad) const {
  const metamodel::Metamodel& m = model(response, load_case, point);
  if (!kriging_) {
    grad.head(n_) += coef * static_cast<const metamodel::PolynomialModel&>(m).gradient(x.head(n_));
    return;
  }
  Eigen::VectorXd b = x.head(n_);
  for (int i = 0; i < n_; ++i) {
    const double h = 1e-6 * (box_.upper(i) - box_.lower(i));
    const double keep = b(i);
    b(i) = keep + h;
    const double up = m.value(b);
    b(i) = keep - h;
    const double down = m.value(b);
    b(i) = keep;
    grad(i) += coef * (up - down) / (2.0 * h);
  }
}

}  // namespace sao
