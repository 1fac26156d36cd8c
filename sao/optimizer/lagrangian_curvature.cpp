#include "sao/optimizer/lagrangian_curvature.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>

namespace sao {
namespace {

// SR1 skips a pair whose denominator is below this share of |s| |r| (Nocedal & Wright 6.26).
constexpr double kSkip = 1e-8;
// The objective's part enters a pair of feasible starts only (largest g_hat at most this: 0.1 %):
// from far outside, the steps are long and the objective's gradient error along them is not the
// curvature near the constraints (from infeasible starts, the pressure vessel ended infeasible
// and HS 41 at a first-order point that is not its minimum with it).
constexpr double kFeasibleRows = 1e-3;

// An objective of scalar responses only, not a bound formulation's auxiliary: a sum over a
// history (the slider-crank's path error) moves with its points like a history's rows (with its
// part in y, 25 analyses instead of 8), and a bound formulation's objective is an auxiliary.
bool scalar_objective(const Study& study) {
  const Objective& objective = study.objective;
  if (objective.bound_formulation || objective.f.time_dependent()) return false;
  for (int k : objective.f.program->responses()) {
    if (study.responses[static_cast<size_t>(k)].history) return false;
  }
  return true;
}

}  // namespace

void LagrangianCurvature::update(const ApproximateProblem& problem, const RowsAtStart& at,
                                 const Optimality& at_b0, double bound) {
  const int n = problem.study->n_design();
  const Eigen::VectorXd& x0 = problem.x0;
  const Eigen::MatrixXd& J = at.jacobian;
  Start now;
  now.b = x0.head(n);
  now.objective = at.objective_gradient.head(n);
  now.feasible = at.values.size() == 0 || at.values.maxCoeff() <= kFeasibleRows;
  for (size_t r = 0; r < problem.rows.size(); ++r) {
    const RetainedRow& row = problem.rows[r];
    now.rows[{row.constraint, row.point}] =
        J.row(static_cast<Eigen::Index>(r)).head(n).transpose() * row.normaliser;
  }
  if (sizes_.size() == 0) {
    Eigen::VectorXd lower, upper;
    problem.study->variable_bounds(lower, upper);
    sizes_ = variable_sizes(x0, lower, upper).head(n);
    C_ = Eigen::MatrixXd::Zero(n, n);
    scalar_objective_ = scalar_objective(*problem.study);
  }
  if (last_ && at_b0.computed && (now.b - last_->b).cwiseAbs().maxCoeff() > 0.0) {
    // The approximation's gradient of L at the previous start against the true one there.
    Eigen::VectorXd x = x0;
    x.head(n) = last_->b;
    Eigen::MatrixXd Jm;
    problem.row_values(x, &Jm);
    Eigen::VectorXd y = Eigen::VectorXd::Zero(n);
    bool matched = true;
    for (size_t a = 0; a < at_b0.active_rows.size(); ++a) {
      const int r = at_b0.active_rows[a];
      const RetainedRow& row = problem.rows[static_cast<size_t>(r)];
      // A history's rows: its critical points move between designs, so the row of the same
      // time point at b is another point of the peak, and their gradients' difference is the
      // peak's shift, not curvature (on the impact absorber's bounded maximum it cost a cycle).
      if (problem.study->constraints[row.constraint].g.time_dependent()) continue;
      const auto old = last_->rows.find({row.constraint, row.point});
      if (old == last_->rows.end()) {
        matched = false;
        break;
      }
      const double lambda = at_b0.multipliers[a];
      y += lambda * (Jm.row(r).head(n).transpose() - old->second / row.normaliser);
    }
    // The objective's part (scalar_objective), between feasible starts (kFeasibleRows).
    if (scalar_objective_ && now.feasible && last_->feasible) {
      y += problem.objective_gradient(x).head(n) - last_->objective;
    }
    const Eigen::VectorXd s = (now.b - last_->b).cwiseQuotient(sizes_);
    y = y.cwiseProduct(sizes_);
    if (matched && y.allFinite()) {
      const Eigen::VectorXd r = y - C_ * s;
      const double denominator = r.dot(s);
      if (std::abs(denominator) > kSkip * s.norm() * r.norm() && r.norm() > 0.0) {
        C_ += r * r.transpose() / denominator;
        ++updates_;
        if (bound > 0.0 && std::isfinite(bound)) {
          Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(0.5 * (C_ + C_.transpose()));
          const Eigen::VectorXd v = eig.eigenvalues();
          if (v.cwiseAbs().maxCoeff() > bound) {
            C_ = eig.eigenvectors() * v.cwiseMax(-bound).cwiseMin(bound).asDiagonal() *
                 eig.eigenvectors().transpose();
          }
        }
      }
    }
  }
  last_ = std::move(now);
}

Eigen::MatrixXd LagrangianCurvature::matrix() const {
  if (updates_ == 0) return {};
  const Eigen::VectorXd inverse = sizes_.cwiseInverse();
  return inverse.asDiagonal() * C_ * inverse.asDiagonal();
}

}  // namespace sao
