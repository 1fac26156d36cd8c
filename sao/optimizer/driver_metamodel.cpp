// The driver's part of the metamodel strategy (metamodel_strategy.hpp): the plan points of a
// cycle, the global fit over the analyses in and near the region, and the infill by expected
// improvement.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "sao/doe/plan.hpp"
#include "sao/metamodel/polynomial.hpp"
#include "sao/optimizer/discrete.hpp"
#include "sao/optimizer/driver.hpp"
#include "sao/optimizer/infill.hpp"
#include "sao/optimizer/metamodel_responses.hpp"
#include "sao/optimizer/metamodel_strategy.hpp"

namespace sao {
namespace {

// The analyses a fit wants: the model's coefficients + 1 (kriging: 2 n + 1), or the setting.
int wanted_points(const Options& options, int n) {
  if (options.metamodel_points > 0) return options.metamodel_points;
  switch (options.metamodel) {
    case MetamodelKind::kQuadratic:
      return metamodel::PolynomialBasis::term_count(n, metamodel::PolynomialOrder::quadratic) + 1;
    case MetamodelKind::kLinear:
      return n + 2;
    case MetamodelKind::kKriging:
      return 2 * n + 1;
  }
  return n + 2;
}

bool inside(const Eigen::VectorXd& b, const Eigen::VectorXd& lower, const Eigen::VectorXd& upper) {
  return (b.array() >= lower.array()).all() && (b.array() <= upper.array()).all();
}

// `count` new designs in the region [lower, upper] beside the analysed `points` (rows): D-optimal
// for a polynomial where the region's analyses and the new points can determine it; else (and
// for kriging) a maximin Latin hypercube that keeps away from the analyses. Throws
// doe::PlanError.
std::vector<Eigen::VectorXd> region_plan(const Options& options, const Eigen::VectorXd& lower,
                                         const Eigen::VectorXd& upper,
                                         const Eigen::MatrixXd& points, int count,
                                         std::uint64_t seed) {
  const int n = static_cast<int>(lower.size());
  const bool linear = options.metamodel == MetamodelKind::kLinear;
  const int terms = metamodel::PolynomialBasis::term_count(
      n, linear ? metamodel::PolynomialOrder::linear : metamodel::PolynomialOrder::quadratic);
  int in_region = 0;
  for (Eigen::Index r = 0; r < points.rows(); ++r) {
    in_region += inside(points.row(r).transpose(), lower, upper);
  }
  doe::Request request;
  request.settings.points = count;
  request.settings.seed = seed;
  request.settings.method =
      options.metamodel != MetamodelKind::kKriging && in_region + count >= terms
          ? doe::Method::kDOptimal
          : doe::Method::kLatinHypercube;
  request.settings.polynomial = linear ? doe::Polynomial::kLinear : doe::Polynomial::kQuadratic;
  request.region = doe::Region{lower, upper};
  request.existing = points;
  const doe::Plan plan = doe::make_plan(request);
  std::vector<Eigen::VectorXd> designs;
  for (Eigen::Index r = 0; r < plan.points.rows(); ++r)
    designs.push_back(plan.points.row(r).transpose());
  return designs;
}

}  // namespace

Driver::~Driver() = default;

bool Driver::metamodel_strategy() const {
  return noisy_.strategy == Strategy::kMetamodel;
}

void Driver::metamodel_fit_set(const Eigen::VectorXd& lower, const Eigen::VectorXd& upper,
                               Eigen::MatrixXd& points,
                               std::vector<const Evaluation*>& analyses) const {
  const int n = study_.n_design();
  const Eigen::ArrayXd width = (upper - lower).array().max(1e-300);
  std::vector<const std::vector<double>*> keys;
  for (const auto& [key, e] : values_) {
    const Eigen::VectorXd b = Eigen::Map<const Eigen::VectorXd>(key.data(), n);
    if (!inside(b, lower, upper)) continue;
    // Designs that differ by rounding only (less than 1e-8 of the box in every variable) are
    // one point to a model: the first is kept.
    const bool repeated = std::any_of(keys.begin(), keys.end(), [&](const auto* other) {
      const Eigen::Map<const Eigen::VectorXd> o(other->data(), n);
      return (((b - o).array().abs() / width) < 1e-8).all();
    });
    if (!repeated) keys.push_back(&key);
  }
  points.resize(static_cast<Eigen::Index>(keys.size()), n);
  analyses.clear();
  for (size_t r = 0; r < keys.size(); ++r) {
    points.row(static_cast<Eigen::Index>(r)) =
        Eigen::Map<const Eigen::RowVectorXd>(keys[r]->data(), n);
    analyses.push_back(&values_.at(*keys[r]));
  }
}

bool Driver::fit_metamodel(ApproximateProblem& problem,
                           const std::vector<DerivativeRequest>& wanted, CycleRecord& rec,
                           std::string& failure) {
  const int n = study_.n_design();
  const Eigen::VectorXd lower = problem.lower.head(n), upper = problem.upper.head(n);
  // The fit's box: the region widened by reuse_radius of its width on each side (within the
  // bounds): the analyses near the region fix the model's shape at its edges.
  Eigen::VectorXd fit_lower(n), fit_upper(n);
  for (int i = 0; i < n; ++i) {
    const double margin = noisy_.reuse_radius * (upper(i) - lower(i));
    fit_lower(i) = std::max(study_.design[i].lower, lower(i) - margin);
    fit_upper(i) = std::min(study_.design[i].upper, upper(i) + margin);
  }
  Eigen::MatrixXd points;
  std::vector<const Evaluation*> analyses;
  metamodel_fit_set(fit_lower, fit_upper, points, analyses);
  // Plan points up to the target; those whose analysis fails are replaced by a new plan
  // (another seed) that keeps away from them as from the analyses, at most twice.
  const int target = wanted_points(noisy_, n);
  constexpr int kPlans = 3;
  std::vector<Eigen::VectorXd> failed_designs;
  for (int attempt = 0; attempt < kPlans; ++attempt) {
    const int missing = target - static_cast<int>(points.rows());
    if (missing <= 0) break;
    Eigen::MatrixXd avoid(points.rows() + static_cast<Eigen::Index>(failed_designs.size()), n);
    avoid.topRows(points.rows()) = points;
    for (size_t k = 0; k < failed_designs.size(); ++k) {
      avoid.row(points.rows() + static_cast<Eigen::Index>(k)) = failed_designs[k].transpose();
    }
    std::vector<Eigen::VectorXd> plan;
    try {
      for (const Eigen::VectorXd& b :
           region_plan(noisy_, lower, upper, avoid, missing,
                       static_cast<std::uint64_t>(rec.cycle + 1000 * attempt))) {
        Eigen::VectorXd x = x0_;
        x.head(n) = b;
        plan.push_back(nearest_allowed(study_, x));  // discrete variables at allowed values
      }
    } catch (const std::exception& e) {
      failure = std::string("plan points of the metamodel: ") + e.what();
      return false;
    }
    const std::vector<const Evaluation*> results = analyse_batch(plan, {});
    for (size_t k = 0; k < results.size(); ++k) {
      if (!results[k]) failed_designs.push_back(plan[k].head(n));
    }
    const auto failed = std::count(results.begin(), results.end(), nullptr);
    if (failed > 0) {
      spdlog::warn(
          "cycle {}: {} of {} plan points failed (the last: {}); {}", rec.cycle, failed,
          plan.size(), message_headline(last_failure_),
          attempt + 1 < kPlans ? "planning others in their place" : "the fit goes on without them");
    }
    metamodel_fit_set(fit_lower, fit_upper, points, analyses);
  }
  rec.fit_points = static_cast<int>(points.rows());
  try {
    metamodel_ =
        std::make_unique<MetamodelResponses>(study_, noisy_.metamodel, points, analyses, wanted,
                                             metamodel::Bounds{fit_lower, fit_upper});
  } catch (const std::invalid_argument& e) {
    failure = "metamodel fit over " + std::to_string(points.rows()) + " analyses: " + e.what();
    return false;
  }
  spdlog::debug(
      "cycle {}: {} metamodels ({}) over {} analyses; worst leave-one-out error {:.3g} % "
      "of its spread ({})",
      rec.cycle, metamodel_->models(), metamodel_->description(), points.rows(),
      metamodel_->worst_loo_percent(), metamodel_->worst_response());
  if (metamodel_->description().rfind("linear (", 0) == 0) rec.message = metamodel_->description();
  // A multi-start search of the metamodel: from every analysed design in the region.
  problem.starts.clear();
  for (Eigen::Index r = 0; r < points.rows(); ++r) {
    if (!inside(points.row(r).transpose(), lower, upper)) continue;
    Eigen::VectorXd x = x0_;
    x.head(n) = points.row(r).transpose();
    problem.starts.push_back(x);
  }
  problem.model = metamodel_.get();
  return true;
}

SubproblemResult Driver::propose_by_infill(const ApproximateProblem& problem, CycleRecord& rec) {
  const int n = study_.n_design();
  SubproblemResult sub;
  sub.solver = "expected improvement (kriging, BOBYQA)";
  const Eigen::VectorXd lower = problem.lower.head(n), upper = problem.upper.head(n);
  Eigen::MatrixXd points;
  std::vector<const Evaluation*> analyses;
  metamodel_fit_set(lower, upper, points, analyses);
  InfillData data;
  data.points = points;
  data.objective.resize(points.rows());
  data.constraints.resize(points.rows(), static_cast<Eigen::Index>(study_.constraints.size()));
  data.feasible_level = noisy_.vioacc / 100.0;
  for (Eigen::Index r = 0; r < points.rows(); ++r) {
    Eigen::VectorXd x = x0_;
    x.head(n) = points.row(r).transpose();
    const ExactResponses exact(study_, *analyses[static_cast<size_t>(r)]);
    x = as_reported(x, exact);  // a bound formulation's auxiliaries at the maxima they bound
    data.objective(r) = criterion_value(study_, study_.objective.f, 0, x, exact);
    for (size_t j = 0; j < study_.constraints.size(); ++j) {
      data.constraints(r, static_cast<Eigen::Index>(j)) =
          normalised_history(study_, study_.constraints[j], x, exact).maxCoeff();
    }
  }
  try {
    const InfillProposal p = expected_improvement_infill(
        data, metamodel::Bounds{lower, upper}, lower, upper, static_cast<std::uint64_t>(rec.cycle));
    sub.x = x0_;
    sub.x.head(n) = p.design;
    sub.objective = problem.approximate_objective(sub.x);
    sub.status = SubproblemStatus::kOptimal;
    spdlog::debug(
        "cycle {}: {} {:.4g} at the proposal (kriging of F: {:.6g})", rec.cycle,
        p.feasible_known ? "constrained expected improvement" : "probability of feasibility",
        p.criterion, p.predicted);
  } catch (const std::exception& e) {
    sub.status = SubproblemStatus::kFailed;
    sub.message = std::string("expected improvement over ") + std::to_string(points.rows()) +
                  " analyses: " + e.what();
  }
  return sub;
}

Eigen::VectorXd Driver::allowed_proposal(const ApproximateProblem& problem,
                                         const Eigen::VectorXd& x_opt) {
  constexpr size_t kFixedSolves = 16;
  if (noisy_.infill == Infill::kExpectedImprovement)
    return best_allowed_neighbour(study_, problem, x_opt);
  const std::vector<Eigen::VectorXd> combinations = allowed_neighbours(study_, x_opt, kFixedSolves);
  const int n = study_.n_design();
  std::optional<Eigen::VectorXd> best;
  std::optional<PredictedMerit> best_merit;
  for (const Eigen::VectorXd& c : combinations) {
    ApproximateProblem fixed = problem;
    for (int i = 0; i < n; ++i) {
      if (!study_.design[i].discrete()) continue;
      fixed.lower(i) = fixed.upper(i) = c(i);
      for (Eigen::VectorXd& start : fixed.starts) start(i) = c(i);
    }
    fixed.starts.push_back(c);
    const SubproblemResult sub = solve_subproblem(fixed, noisy_);
    if (sub.status == SubproblemStatus::kFailed) continue;
    const Eigen::VectorXd y = sub.x.cwiseMax(fixed.lower).cwiseMin(fixed.upper);
    const std::optional<PredictedMerit> merit = predicted_merit(problem, y);
    if (merit && (!best_merit || merit->better_than(*best_merit))) {
      best = y;
      best_merit = merit;
    }
  }
  return best ? *best : best_allowed_neighbour(study_, problem, x_opt);
}

}  // namespace sao
