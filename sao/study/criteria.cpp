#include "sao/study/criteria.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
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

namespace {

// The variables and responses of an explicit relation, read from a response model at x.
class ModelInputs final : public expr::Inputs {
 public:
  ModelInputs(const ResponseModel& model, const Eigen::VectorXd& x) : model_(model), x_(x) {}
  double variable(int i) const override { return x_(i); }
  double response(int response, int load_case, int point) const override {
    return model_.value(response, load_case, point, x_);
  }
  int gradient_size() const override { return static_cast<int>(x_.size()); }
  void response_gradient(int response, int load_case, int point,
                         Eigen::Ref<Eigen::VectorXd> gradient) const override {
    gradient.setZero();
    model_.add_gradient(response, load_case, point, x_, 1.0, gradient);
  }

 private:
  const ResponseModel& model_;
  const Eigen::VectorXd& x_;
};

}  // namespace

int criterion_points(const Study&, const Criterion& criterion) {
  return criterion.points();
}

double criterion_value(const Study&, const Criterion& criterion, int point,
                       const Eigen::VectorXd& x, const ResponseModel& model) {
  const ModelInputs inputs(model, x);
  return expr::Evaluator(*criterion.program, inputs).value(point);
}

Eigen::VectorXd criterion_values(const Study&, const Criterion& criterion, const Eigen::VectorXd& x,
                                 const ResponseModel& model) {
  const ModelInputs inputs(model, x);
  expr::Evaluator evaluator(*criterion.program, inputs);
  Eigen::VectorXd out(criterion.points());
  for (int p = 0; p < out.size(); ++p) out(p) = evaluator.value(p);
  return out;
}

double largest_term(const Study&, const Criterion& criterion, const Eigen::VectorXd& x,
                    const ResponseModel& model) {
  const ModelInputs inputs(model, x);
  expr::Evaluator evaluator(*criterion.program, inputs);
  double largest = 0.0;
  for (int p = 0; p < criterion.points(); ++p) {
    largest = std::max(largest, evaluator.term_magnitude(p));
  }
  return largest;
}

void add_criterion_gradient(const Study&, const Criterion& criterion, int point,
                            const Eigen::VectorXd& x, const ResponseModel& model,
                            Eigen::Ref<Eigen::VectorXd> grad) {
  const ModelInputs inputs(model, x);
  Eigen::VectorXd g(x.size());
  expr::Evaluator(*criterion.program, inputs).value(point, g);
  grad += g;
}

double constraint_bound(const Study& study, const Constraint& constraint,
                        const Eigen::VectorXd& x) {
  return constraint.bound_auxiliary >= 0 ? x(study.n_design() + constraint.bound_auxiliary)
                                         : constraint.bound;
}

double constraint_normaliser(const Study& study, const Constraint& constraint,
                             const Eigen::VectorXd& x) {
  const double c = std::abs(constraint_bound(study, constraint, x));
  if (c > kZeroBound) return c;
  return constraint.scale > 0 ? constraint.scale : 1.0;
}

Eigen::VectorXd normalised_constraint_points(const Study& study, const Constraint& constraint,
                                             const std::vector<int>& points,
                                             const Eigen::VectorXd& x, const ResponseModel& model,
                                             double normaliser, Eigen::MatrixXd* gradients) {
  const double c = constraint_bound(study, constraint, x);
  const double s = (constraint.sense == Sense::kLessEqual ? 1.0 : -1.0) / normaliser;
  const double margin = constraint.margin / normaliser;  // a reliability target's shift
  const ModelInputs inputs(model, x);
  expr::Evaluator evaluator(*constraint.g.program, inputs);
  Eigen::VectorXd values(points.size());
  if (gradients) gradients->resize(static_cast<Eigen::Index>(points.size()), x.size());
  Eigen::VectorXd g(x.size());
  for (size_t i = 0; i < points.size(); ++i) {
    const auto row = static_cast<Eigen::Index>(i);
    if (gradients) {
      values(row) = s * (evaluator.value(points[i], g) - c) + margin;
      if (constraint.bound_auxiliary >= 0) g(study.n_design() + constraint.bound_auxiliary) -= 1.0;
      gradients->row(row) = s * g.transpose();
    } else {
      values(row) = s * (evaluator.value(points[i]) - c) + margin;
    }
  }
  return values;
}

double normalised_constraint(const Study& study, const Constraint& constraint, int point,
                             const Eigen::VectorXd& x, const ResponseModel& model,
                             double normaliser) {
  return normalised_constraint_points(study, constraint, {point}, x, model, normaliser, nullptr)(0);
}

Eigen::VectorXd normalised_history(const Study& study, const Constraint& constraint,
                                   const Eigen::VectorXd& x, const ResponseModel& model,
                                   const Eigen::VectorXd* normalise_at) {
  std::vector<int> points(constraint.g.points());
  for (size_t p = 0; p < points.size(); ++p) points[p] = static_cast<int>(p);
  const double normaliser =
      constraint_normaliser(study, constraint, normalise_at ? *normalise_at : x);
  return normalised_constraint_points(study, constraint, points, x, model, normaliser, nullptr);
}

double user_objective(const Study& study, double internal_value) {
  return study.objective.maximize ? -internal_value : internal_value;
}

double objective_value(const Study& study, const Objective& objective, const Eigen::VectorXd& x,
                       const ResponseModel& model) {
  const double f = criterion_value(study, objective.f, 0, x, model);
  return objective.maximize ? -f : f;
}

Eigen::VectorXd bounded_maxima(const Study& study, const Eigen::VectorXd& x,
                               const ResponseModel& model) {
  Eigen::VectorXd worst =
      Eigen::VectorXd::Constant(study.n_aux(), -std::numeric_limits<double>::infinity());
  for (const Constraint& c : study.constraints) {
    if (c.bound_auxiliary < 0 || c.sense != Sense::kLessEqual) continue;
    worst(c.bound_auxiliary) =
        std::max(worst(c.bound_auxiliary), criterion_values(study, c.g, x, model).maxCoeff());
  }
  return worst;
}

Eigen::VectorXd with_bounded_maxima(const Study& study, const Eigen::VectorXd& x,
                                    const ResponseModel& model) {
  Eigen::VectorXd out = x;
  if (study.n_aux() == 0 || x.size() != study.n_total()) return out;
  const Eigen::VectorXd worst = bounded_maxima(study, x, model);
  for (int a = 0; a < study.n_aux(); ++a) {
    if (std::isfinite(worst(a))) out(study.n_design() + a) = worst(a);
  }
  return out;
}

double max_violation(const Study& study, const Eigen::VectorXd& x, const ResponseModel& model,
                     const Eigen::VectorXd* normalise_at) {
  if (study.constraints.empty()) return -100.0;
  double v = -std::numeric_limits<double>::infinity();
  for (const Constraint& c : study.constraints) {
    v = std::max(v, normalised_history(study, c, x, model, normalise_at).maxCoeff() * 100.0);
  }
  return v;
}

}  // namespace sao
