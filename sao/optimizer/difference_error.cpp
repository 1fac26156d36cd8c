#include "sao/optimizer/difference_error.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sao/seam/difference_batch.hpp"

namespace sao {
namespace {

// L~ = F~ + sum_a lambda_a g_hat~_a at x, and with `gradient` its gradient.
double lagrangian(const ApproximateProblem& model, const Optimality& at, const Eigen::VectorXd& x,
                  Eigen::VectorXd* gradient) {
  Eigen::MatrixXd jacobian;
  const Eigen::VectorXd g = model.row_values(x, gradient ? &jacobian : nullptr);
  double L = model.objective(x);
  if (gradient) *gradient = model.objective_gradient(x);
  for (size_t a = 0; a < at.active_rows.size(); ++a) {
    const int r = at.active_rows[a];
    L += at.multipliers[a] * g(r);
    if (gradient) *gradient += at.multipliers[a] * jacobian.row(r).transpose();
  }
  return L;
}

// The directions (columns, in the variables) that keep the active rows, the active bounds
// and the variables past n_design; the rank test in the variables scaled by `sizes`.
Eigen::MatrixXd free_directions(const DifferenceErrorInput& in, const Eigen::VectorXd& sizes) {
  const Eigen::Index N = in.x.size();
  std::vector<Eigen::VectorXd> kept;
  Eigen::MatrixXd jacobian;
  in.problem->row_values(in.x, &jacobian);
  for (int r : in.at_x->active_rows) kept.push_back(jacobian.row(r).transpose());
  auto unit = [N](Eigen::Index i) {
    Eigen::VectorXd u = Eigen::VectorXd::Zero(N);
    u(i) = 1.0;
    return u;
  };
  for (int i : in.at_x->at_lower) kept.push_back(unit(i));
  for (int i : in.at_x->at_upper) kept.push_back(unit(i));
  for (Eigen::Index i = in.n_design; i < N; ++i) kept.push_back(unit(i));
  if (kept.empty()) return sizes.asDiagonal();
  Eigen::MatrixXd A(static_cast<Eigen::Index>(kept.size()), N);
  for (size_t k = 0; k < kept.size(); ++k) {
    A.row(static_cast<Eigen::Index>(k)) = kept[k].cwiseProduct(sizes).transpose();
  }
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(A);
  if (lu.rank() >= N) return Eigen::MatrixXd(N, 0);
  return sizes.asDiagonal() * lu.kernel();
}

}  // namespace

double hidden_improvement(const DifferenceErrorInput& in) {
  const int n = in.n_design;
  const Eigen::Index N = in.x.size();
  if (!in.problem || !in.at_x || !in.at_x->computed || !(in.relative_step > 0.0) || n == 0) {
    return 0.0;
  }
  const Eigen::MatrixXd Z = free_directions(in, variable_sizes(in.x, in.lower, in.upper));
  if (Z.cols() == 0) return 0.0;
  // The approximations alone: the curvature C enters once, below.
  ApproximateProblem model = *in.problem;
  model.curvature.resize(0, 0);
  Eigen::VectorXd gradient;
  const double L0 = lagrangian(model, *in.at_x, in.x, &gradient);
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(N, N);
  if (in.curvature.rows() == n && in.curvature.cols() == n) H.topLeftCorner(n, n) = in.curvature;
  Eigen::VectorXd error = Eigen::VectorXd::Zero(N);
  for (int i = 0; i < n; ++i) {
    const double h = difference_step(in.x(i), in.relative_step);  // as the planner steps
    Eigen::VectorXd x = in.x;
    x(i) += h;
    Eigen::VectorXd at_step;
    const double L = lagrangian(model, *in.at_x, x, &at_step);
    error(i) = (L - L0) / h - gradient(i) + 0.5 * h * H(i, i);
    H.col(i) += (at_step - gradient) / h;
  }
  H = (0.5 * (H + H.transpose())).eval();
  const Eigen::VectorXd reduced_error = Z.transpose() * error;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(Z.transpose() * H * Z);
  const Eigen::VectorXd magnitude = eigen.eigenvalues().cwiseAbs();
  const double floor = std::max(1e-8 * magnitude.maxCoeff(), 1e-300);
  const Eigen::VectorXd along = eigen.eigenvectors().transpose() * reduced_error;
  return 0.5 * along.cwiseAbs2().cwiseQuotient(magnitude.cwiseMax(floor)).sum();
}

}  // namespace sao
