#include "sao/optimizer/metamodel_strategy.hpp"

#include <algorithm>
#include <cmath>

namespace sao {
namespace {

constexpr double kPan = 1.0;          // gamma_pan
constexpr double kOscillation = 0.6;  // gamma_osc
constexpr double kZoom = 0.6;         // eta

// The move of a variable in half-widths of its region, in [-1, 1].
double normalised_move(double step, double factor, double span) {
  const double half = 0.5 * factor * span;
  if (!(half > 0.0)) return 0.0;
  return std::clamp(step / half, -1.0, 1.0);
}

}  // namespace

void metamodel_region(const Study& study, const Eigen::VectorXd& b0, const Eigen::VectorXd& factors,
                      Eigen::VectorXd& lower, Eigen::VectorXd& upper) {
  const int n = study.n_design();
  for (int i = 0; i < n; ++i) {
    const DesignVariable& v = study.design[i];
    const double width = std::min(factors(i), 1.0) * v.span();
    double lo = b0(i) - 0.5 * width, hi = b0(i) + 0.5 * width;
    if (lo < v.lower) {
      hi = std::min(v.upper, hi + (v.lower - lo));
      lo = v.lower;
    }
    if (hi > v.upper) {
      lo = std::max(v.lower, lo - (hi - v.upper));
      hi = v.upper;
    }
    if (v.discrete()) {
      // Out to the allowed values next to its ends, and at least two of them: plan points
      // moved to allowed values must still spread along the variable.
      lo = v.neighbours(lo).first;
      hi = v.neighbours(hi).second;
      const double nudge = 1e-6 * v.span();
      if (lo == hi && hi < v.upper) hi = v.neighbours(hi + nudge).second;
      if (lo == hi && lo > v.lower) lo = v.neighbours(lo - nudge).first;
    }
    lower(i) = lo;
    upper(i) = hi;
  }
}

StepJudgement MetamodelStrategy::judge(const AnalysedProposal& p) const {
  const Study& study = p.study;
  const int n = study.n_design();
  const CycleFacts& f = p.facts;
  const double vioacc = p.noisy.vioacc;
  const bool feasible = f.V <= vioacc, feasible0 = f.V0 <= vioacc;
  StepJudgement j;
  j.accept = feasible ? (!feasible0 || f.Fopt < f.F0) : (!feasible0 && f.V < f.V0);
  j.Fchg = std::abs(f.Fopt - f.F0) / std::max(std::abs(f.F0), 1e-300) * 100.0;
  j.E = f.approximated ? std::max(f.Ef, f.Eg) : 0.0;
  double largest_move = 0.0;  // percent of the range
  for (int i = 0; i < n; ++i) {
    largest_move = std::max(largest_move, 100.0 * std::abs(f.delta_b(i)) / study.design[i].span());
  }
  j.factors = p.factors;
  j.actions.assign(n, MoveAction::kKept);
  // A step held by the region says nothing of the optimum: it may be crawling towards it.
  const bool free = std::none_of(f.move_limit_active.begin(), f.move_limit_active.end(),
                                 [](bool active) { return active; });
  if (feasible && free && j.Fchg <= p.noisy.objacc && largest_move <= p.noisy.design_tolerance) {
    j.converged = true;
    j.actions.assign(n, MoveAction::kConverged);
    j.message = "the metamodel's optimum, analysed, changed F by " + three_digits(j.Fchg) +
                " % (objacc " + three_digits(p.noisy.objacc) + " %) and the design by " +
                three_digits(largest_move) + " % of a range (design_tolerance " +
                three_digits(p.noisy.design_tolerance) + " %)";
    return j;
  }
  // Expected improvement balances exploration and exploitation itself: its region stays.
  if (p.noisy.infill == Infill::kExpectedImprovement) {
    if (!j.accept) j.actions.assign(n, MoveAction::kRejected);
    return j;
  }
  for (int i = 0; i < n; ++i) {
    const double span = study.design[i].span();
    if (!j.accept) {
      j.factors(i) = kZoom * p.factors(i);
      j.actions[i] = MoveAction::kRejected;
      continue;
    }
    const double d = normalised_move(f.delta_b(i), p.factors(i), span);
    const double d_previous = p.previous && p.previous->delta_b.size() == n
                                  ? normalised_move(p.previous->delta_b(i), p.factors(i), span)
                                  : 0.0;
    const double product = d * d_previous;
    const double c = (product < 0.0 ? -1.0 : 1.0) * std::sqrt(std::abs(product));
    const double gamma = 0.5 * (kPan * (1.0 + c) + kOscillation * (1.0 - c));
    const double lambda = std::min(1.0, kZoom + std::abs(d) * (gamma - kZoom));
    j.factors(i) = lambda * p.factors(i);
    j.actions[i] = lambda >= 1.0 - 1e-12 ? MoveAction::kKept
                   : c < 0.0             ? MoveAction::kOscillation
                                         : MoveAction::kShrunk;
  }
  return j;
}

bool MetamodelStrategy::stalled(const Options& noisy, const Eigen::VectorXd& factors) const {
  return factors.size() > 0 && factors.maxCoeff() < noisy.min_move_factor;
}

}  // namespace sao
