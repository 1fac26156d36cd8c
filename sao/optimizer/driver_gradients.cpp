// The cycle's approximation at b0 (Driver::approximate): from a sensitivity analysis of b0, a fit
// over plan points (multi-point), or, in a secant cycle, from the previous cycle's approximation
// updated by what the analysis of b0 told about it (Driver::secant_start, secant_evaluation).
#include <algorithm>
#include <cmath>
#include <set>

#include "sao/optimizer/approximation_forms.hpp"
#include "sao/optimizer/driver.hpp"
#include "sao/optimizer/optimality.hpp"
#include "sao/optimizer/reliability_margins.hpp"
#include "sao/study/criteria.hpp"

namespace sao {
namespace {

// How the simulator computed e's gradients: the one method its load cases name, else each
// case's ("steady: direct (auto); crash: forward differences"); "" when none says.
std::string gradient_method(const Study& study, const Evaluation& e) {
  std::set<std::string> methods;
  for (const CaseResult& c : e.cases) {
    if (!c.gradient_method.empty()) methods.insert(c.gradient_method);
  }
  if (methods.size() <= 1) return methods.empty() ? std::string() : *methods.begin();
  std::string out;
  for (size_t c = 0; c < e.cases.size() && c < study.load_cases.size(); ++c) {
    if (e.cases[c].gradient_method.empty()) continue;
    out += (out.empty() ? "" : "; ") + study.load_cases[c].name + ": " + e.cases[c].gradient_method;
  }
  return out;
}

// The study response a derivative request's response (the simulator's name, its source) is
// read by; null when none is. Any study response reading it has the same approximation.
const ResponseDef* reading(const Study& study, const std::string& source) {
  const auto it = std::find_if(study.responses.begin(), study.responses.end(),
                               [&](const ResponseDef& d) { return d.source == source; });
  return it == study.responses.end() ? nullptr : &*it;
}

// A secant cycle follows a proposal accepted with its ratio within kSecantAgreement of 1 while
// held by a move limit, and only where the gradients cost at least kSecantCost analyses.
constexpr double kSecantAgreement = 0.2;
constexpr double kSecantCost = 2.0;
// The gradient method a secant cycle's record names (no analysis computed them).
constexpr const char* kSecantMethod = "secant update";

}  // namespace

bool Driver::secant_start(const std::vector<DerivativeRequest>& derivatives) const {
  if (noisy_.secant_cycles <= 0 || noisy_.strategy != Strategy::kTrustRegion ||
      !last_approximation_ || secant_run_ >= noisy_.secant_cycles ||
      measured_gradient_cost_ < kSecantCost || summary_.history.empty() ||
      has_reliability_targets(study_) || !unsized_.empty() || noisy_.noise > 0.0) {
    return false;
  }
  const CycleRecord& last = summary_.history.back();
  const int n = study_.n_design();
  if (!last.accepted || std::abs(last.ratio - 1.0) > kSecantAgreement ||
      last.active_move_limits == 0 || last_approximation_->b0() == x0_.head(n)) {
    return false;
  }
  // Scalar responses only: a history's critical points move between designs, and its values
  // there follow the peak's shift, which no model's gradient at the last start foresees (with
  // them the slider-crank took 13 analyses instead of 8, the impact absorber 6 instead of 5).
  for (const DerivativeRequest& r : derivatives) {
    const ResponseDef* d = reading(study_, r.response);
    if (!d || d->history) return false;
  }
  return covers(study_, last_approximation_->at_b0(), derivatives, DifferenceOrder::kForward);
}

Evaluation Driver::secant_evaluation(const Evaluation& e0,
                                     const std::vector<DerivativeRequest>& derivatives) const {
  const Approximation& a = *last_approximation_;
  const int n = study_.n_design();
  Eigen::VectorXd lower, upper;
  study_.variable_bounds(lower, upper);
  const Eigen::VectorXd s = x0_.head(n) - a.b0();
  const Eigen::VectorXd w = variable_sizes(x0_, lower, upper).head(n);
  // The correction's direction: the step in the variables scaled by their sizes.
  const Eigen::VectorXd v = s.cwiseQuotient(w.cwiseProduct(w));
  const double vs = v.dot(s);
  Evaluation e = e0;
  e.has_gradients = true;
  e.cost = {};
  const ExactResponses exact(study_, e0);
  for (const DerivativeRequest& r : derivatives) {
    const int response = static_cast<int>(reading(study_, r.response) - study_.responses.data());
    CaseResult& c = e.cases[static_cast<size_t>(r.load_case)];
    const Eigen::Index points =
        a.at_b0().cases[static_cast<size_t>(r.load_case)].gradients.at(r.response).rows();
    Eigen::MatrixXd G = Eigen::MatrixXd::Constant(points, n, std::nan(""));
    for (int p : r.time_indices) {
      Eigen::VectorXd g = Eigen::VectorXd::Zero(x0_.size());
      a.add_gradient(response, r.load_case, p, x0_, 1.0, g);
      Eigen::VectorXd gb = g.head(n);
      // The model's error at b0 grows from 0 (exact in value and gradient at the last start)
      // about as the square of the step: its derivative along s is twice the error.
      const double error =
          exact.value(response, r.load_case, p, x0_) - a.value(response, r.load_case, p, x0_);
      if (vs > 0.0) gb += (2.0 * error / vs) * v;
      G.row(p) = gb.transpose();
    }
    c.gradients[r.response] = G;
    c.gradient_method = kSecantMethod;
  }
  return e;
}

void Driver::keep_approximation(std::unique_ptr<Approximation> approximation,
                                std::unique_ptr<Evaluation> owned) {
  // The secant cycle's own evaluation outlives the approximation that refers to it. None is kept
  // from a cycle without one, or from a fit (it refers to the cycle's fitted evaluation).
  if (!approximation || noisy_.approximation == ApproximationSource::kMultipoint) {
    last_approximation_.reset();
    last_owned_.reset();
    return;
  }
  last_approximation_ = std::move(approximation);
  last_owned_ = std::move(owned);
}

bool Driver::size_and_margin(ApproximateProblem& problem, bool approximated, CycleRecord& rec,
                             std::string& failure) {
  if (!unsized_.empty()) {
    strategy_->size_by_gradients(study_, unsized_, problem);
    summary_.note_scales(study_);
  }
  // Reliability targets: their margins measured at b0 hold in this cycle's subproblem and in the
  // judgement of its proposal.
  if (approximated && has_reliability_targets(study_)) {
    failure = set_reliability_margins(problem, rec);
    if (!failure.empty()) return false;
  }
  return true;
}

bool Driver::approximate(ApproximateProblem& problem, const Evaluation& e0,
                         const ExactResponses& exact0,
                         const std::vector<DerivativeRequest>& derivatives, CycleRecord& rec,
                         std::unique_ptr<Approximation>& approximation, Evaluation& fitted,
                         std::string& failure, bool secant) {
  // The approximation: sensitivities of what the retained rows and the objective need, or
  // a fit over plan points (multi-point).
  gradient_cost_ = 0.0;
  secant_cycle_ = false;
  if (derivatives.empty()) {
    problem.model = &exact0;  // no response enters the subproblem
    return true;
  }
  if (metamodel_strategy()) return fit_metamodel(problem, derivatives, rec, failure);
  if (noisy_.approximation == ApproximationSource::kMultipoint) {
    if (!fit_plan_points(problem, e0, rec, fitted, failure)) return false;
    approximation =
        make_approximation(study_, noisy_, fitted, x0_, problem.lower, problem.upper, memory_);
  } else if (secant && secant_start(derivatives)) {
    secant_cycle_ = true;
    ++secant_run_;
    secant_owned_ = std::make_unique<Evaluation>(secant_evaluation(e0, derivatives));
    rec.gradient_method = kSecantMethod;
    approximation = make_approximation(study_, noisy_, *secant_owned_, x0_, problem.lower,
                                       problem.upper, memory_);
  } else {
    const Evaluation* with_gradients = analyse(x0_, derivatives);
    if (!with_gradients) {
      failure = "sensitivity analysis of b0 failed: " + last_failure_;
      return false;
    }
    rec.gradient_method = gradient_method(study_, *with_gradients);
    gradient_cost_ = static_cast<double>(with_gradients->cost.runs) /
                     static_cast<double>(std::max<size_t>(1, study_.load_cases.size()));
    measured_gradient_cost_ = gradient_cost_;
    secant_run_ = 0;
    approximation = make_approximation(study_, noisy_, *with_gradients, x0_, problem.lower,
                                       problem.upper, memory_);
  }
  problem.model = approximation.get();
  return true;
}

}  // namespace sao
