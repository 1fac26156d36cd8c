#include "sao/criteria.hpp"

#include <cmath>
#include <stdexcept>

namespace sao {

ExactResponses::ExactResponses(const Study& study, const Evaluation& evaluation)
    : study_(study), evaluation_(evaluation) {
  if (evaluation.cases.size() != study.load_cases.size()) {
    throw std::invalid_argument("ExactResponses: expected " +
                                std::to_string(study.load_cases.size()) + " load cases, got " +
                                std::to_string(evaluation.cases.size()));
  }
}

double ExactResponses::value(int response, int load_case, int point, const Eigen::VectorXd&) const {
  const ResponseDef& def = study_.responses[response];
  const CaseResult& result = evaluation_.cases[load_case];
  if (def.history) {
    auto it = result.histories.find(def.source);
    if (it == result.histories.end() || point >= it->second.size()) {
      throw std::out_of_range("analysis has no history \"" + def.source + "\" point " +
                              std::to_string(point));
    }
    return it->second(point);
  }
  auto it = result.scalars.find(def.source);
  if (it == result.scalars.end())
    throw std::out_of_range("analysis has no scalar \"" + def.source + "\"");
  return it->second;
}

void ExactResponses::add_gradient(int, int, int, const Eigen::VectorXd&, double,
                                  Eigen::Ref<Eigen::VectorXd>) const {
  throw std::logic_error("ExactResponses has no gradients: use the approximation");
}

int criterion_points(const Study& study, const Criterion& criterion) {
  return criterion.time_dependent ? study.load_cases[criterion.grid_case].grid.points : 1;
}

double criterion_value(const Study& study, const Criterion& criterion, int point,
                       const Eigen::VectorXd& x, const ResponseModel& model) {
  double value = criterion.constant;
  const int n = study.n_design();
  for (const Term& t : criterion.terms) {
    switch (t.kind) {
      case Term::Kind::kResponse: {
        const int p = study.responses[t.index].history ? point : 0;
        value += t.coef * model.value(t.index, t.load_case, p, x);
        break;
      }
      case Term::Kind::kDesign:
        value += t.coef * x(t.index);
        break;
      case Term::Kind::kAuxiliary:
        value += t.coef * x(n + t.index);
        break;
    }
  }
  return value;
}

void add_criterion_gradient(const Study& study, const Criterion& criterion, int point,
                            const Eigen::VectorXd& x, const ResponseModel& model,
                            Eigen::Ref<Eigen::VectorXd> grad) {
  const int n = study.n_design();
  for (const Term& t : criterion.terms) {
    switch (t.kind) {
      case Term::Kind::kResponse: {
        const int p = study.responses[t.index].history ? point : 0;
        model.add_gradient(t.index, t.load_case, p, x, t.coef, grad);
        break;
      }
      case Term::Kind::kDesign:
        grad(t.index) += t.coef;
        break;
      case Term::Kind::kAuxiliary:
        grad(n + t.index) += t.coef;
        break;
    }
  }
}

double constraint_bound(const Study& study, const Constraint& constraint,
                        const Eigen::VectorXd& x) {
  return constraint.bound_auxiliary >= 0 ? x(study.n_design() + constraint.bound_auxiliary)
                                         : constraint.bound;
}

double constraint_normaliser(const Study& study, const Constraint& constraint,
                             const Eigen::VectorXd& x) {
  const double c = std::abs(constraint_bound(study, constraint, x));
  if (c > 1e-12) return c;
  return constraint.scale > 0 ? constraint.scale : 1.0;
}

double normalised_constraint(const Study& study, const Constraint& constraint, int point,
                             const Eigen::VectorXd& x, const ResponseModel& model,
                             double normaliser) {
  const double g = criterion_value(study, constraint.g, point, x, model);
  const double c = constraint_bound(study, constraint, x);
  const double s = constraint.sense == Sense::kLessEqual ? 1.0 : -1.0;
  return s * (g - c) / normaliser;
}

Eigen::VectorXd normalised_history(const Study& study, const Constraint& constraint,
                                   const Eigen::VectorXd& x, const ResponseModel& model) {
  const int np = criterion_points(study, constraint.g);
  const double normaliser = constraint_normaliser(study, constraint, x);
  Eigen::VectorXd out(np);
  for (int p = 0; p < np; ++p)
    out(p) = normalised_constraint(study, constraint, p, x, model, normaliser);
  return out;
}

double user_objective(const Study& study, double internal_value) {
  return study.objective.maximize ? -internal_value : internal_value;
}

}  // namespace sao
