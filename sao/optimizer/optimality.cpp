#include "sao/optimizer/optimality.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include "sao/optimizer/glpk_problem.hpp"

namespace sao {

Eigen::VectorXd variable_sizes(const Eigen::VectorXd& x, const Eigen::VectorXd& lower,
                               const Eigen::VectorXd& upper) {
  Eigen::VectorXd s(x.size());
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double range = upper(i) - lower(i);
    if (std::isfinite(range) && range > 0.0) {
      s(i) = std::clamp(std::abs(x(i)), 0.01 * range, range);
    } else {
      s(i) = std::max(std::abs(x(i)), 1.0);
    }
  }
  return s;
}

double scaled_gradient_norm(const Eigen::VectorXd& gradient, const Eigen::VectorXd& sizes) {
  return gradient.size() == 0 ? 0.0 : gradient.cwiseProduct(sizes).cwiseAbs().maxCoeff();
}

namespace {
// |F| at least this share of its slope is not falling to 0 (residual_normaliser).
constexpr double kNotFalling = 1.0;
}  // namespace

double residual_normaliser(double gradient_scale, double objective, double reference) {
  const double F = std::abs(objective);
  // The floor is for an objective falling to 0; one at least kNotFalling of its slope is not.
  const double floor = F >= kNotFalling * gradient_scale ? 0.0 : kReferenceShare * reference;
  return std::max(gradient_scale, std::clamp(F, std::min(floor, reference), reference));
}

namespace {

// || w (.) (dF + sum_a lambda_a J_a - mu_lower + mu_upper) ||_inf with the LP's multipliers
// (clamped at 0): the residual those multipliers really leave, whatever the LP solver's own
// figure for t says (GLPK's scaled simplex has called rows satisfied that were not).
double stationarity_residual(const OptimalityInput& in, const Optimality& out,
                             const Eigen::VectorXd& w, const std::vector<double>& columns) {
  const std::size_t k = out.active_rows.size(), nl = out.at_lower.size();
  Eigen::VectorXd r = in.objective_gradient;
  for (std::size_t a = 0; a < k; ++a)
    r += std::max(columns[a], 0.0) * in.row_jacobian.row(out.active_rows[a]).transpose();
  for (std::size_t a = 0; a < nl; ++a) r(out.at_lower[a]) -= std::max(columns[k + a], 0.0);
  for (std::size_t a = 0; a < out.at_upper.size(); ++a)
    r(out.at_upper[a]) += std::max(columns[k + nl + a], 0.0);
  return r.size() == 0 ? 0.0 : r.cwiseProduct(w).cwiseAbs().maxCoeff();
}

// The rows active at input.x (g_hat_j >= -active_tolerance) and the bounds x_i is at.
void find_active_set(const OptimalityInput& in, Optimality& out) {
  for (Eigen::Index j = 0; j < in.row_values.size(); ++j) {
    if (in.row_values(j) >= -in.active_tolerance) out.active_rows.push_back(static_cast<int>(j));
  }
  for (Eigen::Index i = 0; i < in.x.size(); ++i) {
    const double range = in.upper(i) - in.lower(i);
    const double tol = 1e-9 * std::max(1.0, std::isfinite(range) ? range : std::abs(in.x(i)));
    if (std::isfinite(in.lower(i)) && in.x(i) <= in.lower(i) + tol)
      out.at_lower.push_back(static_cast<int>(i));
    if (std::isfinite(in.upper(i)) && in.x(i) >= in.upper(i) - tol)
      out.at_upper.push_back(static_cast<int>(i));
  }
}

// Complementarity: lambda_j |g_hat_j| / D <= t on an active row inside its bound (not a
// violated one: there the multipliers estimate the penalty the merit needs), so that t is the
// residual the driver reports (the larger of stationarity and complementarity) minimised over the
// multipliers together. Minimising stationarity alone put the multiplier on a row 0.09 % inside
// its bound next to one exactly at it (two time points of one peak of the truck's seat stroke)
// and reported 0.0034 from complementarity where the row at its bound alone met both conditions
// (Driver::measure_optimality).
void add_complementarity_rows(glp_prob* lp, const OptimalityInput& in, const Optimality& out,
                              double D, const std::vector<double>& row_scale, int t,
                              std::vector<int>& ia, std::vector<int>& ja, std::vector<double>& ar) {
  for (size_t a = 0; a < out.active_rows.size(); ++a) {
    const double slack = -in.row_values(out.active_rows[a]);
    const double coefficient = slack / D / row_scale[a];
    if (!(coefficient > 0.0) || !std::isfinite(coefficient)) continue;
    const int row = glp_add_rows(lp, 1);
    glp_set_row_bnds(lp, row, GLP_UP, 0.0, 0.0);
    for (auto [col, value] :
         {std::pair{static_cast<int>(a) + 1, coefficient}, std::pair{t, -1.0}}) {
      ia.push_back(row);
      ja.push_back(col);
      ar.push_back(value);
    }
  }
}

// Loads the matrix into `lp` and solves it by the simplex, again in exact arithmetic where that
// did not reach an optimum. Empty when solved, else why not.
std::string solve_multiplier_lp(glp_prob* lp, const std::vector<int>& ia,
                                const std::vector<int>& ja, const std::vector<double>& ar) {
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  int ret = 0;
  try {
    glpk_call([&] {
      glp_load_matrix(lp, static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
    });
    ret = simplex_with_fallbacks(
        lp, parm, [&](int code) { return code != 0 || glp_get_status(lp) != GLP_OPT; });
  } catch (const GlpkError& e) {
    return "the multiplier estimate: " + std::string(e.what());
  }
  if (ret != 0 || glp_get_status(lp) != GLP_OPT) {
    return "the multiplier estimate (GLPK) did not solve (code " + std::to_string(ret) + ")";
  }
  return {};
}

}  // namespace

Optimality first_order_optimality(const OptimalityInput& in) {
  Optimality out;
  const auto n = in.x.size();
  const Eigen::VectorXd s = variable_sizes(in.x, in.lower, in.upper);
  out.gradient_scale = scaled_gradient_norm(in.objective_gradient, s);
  const double reference = in.reference > 0.0 ? in.reference : out.gradient_scale;
  const double D = residual_normaliser(out.gradient_scale, in.objective, reference);
  out.normaliser = D;
  find_active_set(in, out);
  out.computed = true;
  if (!(D > 0.0)) {  // the objective does not depend on the variables: every point is optimal
    out.multipliers.assign(out.active_rows.size(), 0.0);
    return out;
  }
  // Columns: lambda (active rows), mu_lower, mu_upper, t. Rows: +-R_i - t <= -+w_i dF_i.
  const int k = static_cast<int>(out.active_rows.size());
  const int nl = static_cast<int>(out.at_lower.size()), nu = static_cast<int>(out.at_upper.size());
  const int t = k + nl + nu + 1;
  // Each row's column is scaled to a largest entry of 1 (lambda' = lambda * row_scale): a row
  // whose gradient is 1e-9 in these units would otherwise sit below GLPK's pivot tolerance.
  std::vector<double> row_scale(static_cast<std::size_t>(k), 1.0);
  for (int a = 0; a < k; ++a) {
    const double m = (in.row_jacobian.row(out.active_rows[a]).transpose().cwiseProduct(s) / D)
                         .cwiseAbs()
                         .maxCoeff();
    if (m > 0.0 && std::isfinite(m)) row_scale[static_cast<std::size_t>(a)] = m;
  }
  GlpkProblem lp(glp_create_prob());
  glp_set_obj_dir(lp.get(), GLP_MIN);
  glp_add_cols(lp.get(), t);
  for (int c = 1; c <= t; ++c) glp_set_col_bnds(lp.get(), c, GLP_LO, 0.0, 0.0);
  glp_set_obj_coef(lp.get(), t, 1.0);
  glp_add_rows(lp.get(), static_cast<int>(2 * n));
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0.0};
  for (Eigen::Index i = 0; i < n; ++i) {
    const double w = s(i) / D;
    for (int sign : {1, -1}) {
      const int row = static_cast<int>(2 * i) + (sign > 0 ? 1 : 2);
      glp_set_row_bnds(lp.get(), row, GLP_UP, 0.0, -sign * w * in.objective_gradient(i));
      auto add = [&](int col, double value) {
        if (value == 0.0) return;
        ia.push_back(row);
        ja.push_back(col);
        ar.push_back(value);
      };
      for (int a = 0; a < k; ++a)
        add(a + 1, sign * w * in.row_jacobian(out.active_rows[a], i) / row_scale[a]);
      // A bound's column has one entry, w_i: scaled to 1 (mu' = w_i mu) like the rows, else a
      // tiny w_i (a variable whose size is small next to D) leaves its multiplier unfound.
      for (int a = 0; a < nl; ++a) add(k + a + 1, out.at_lower[a] == i ? -sign : 0.0);
      for (int a = 0; a < nu; ++a) add(k + nl + a + 1, out.at_upper[a] == i ? sign : 0.0);
      add(t, -1.0);
    }
  }
  add_complementarity_rows(lp.get(), in, out, D, row_scale, t, ia, ja, ar);
  out.message = solve_multiplier_lp(lp.get(), ia, ja, ar);
  if (!out.message.empty()) {
    out.computed = false;
    return out;
  }
  std::vector<double> columns(static_cast<std::size_t>(t - 1));
  for (int c = 1; c < t; ++c)
    columns[static_cast<std::size_t>(c - 1)] = glp_get_col_prim(lp.get(), c);
  for (int a = 0; a < k; ++a)
    columns[static_cast<std::size_t>(a)] /= row_scale[static_cast<std::size_t>(a)];
  for (int a = 0; a < nl; ++a) columns[static_cast<std::size_t>(k + a)] /= s(out.at_lower[a]) / D;
  for (int a = 0; a < nu; ++a)
    columns[static_cast<std::size_t>(k + nl + a)] /= s(out.at_upper[a]) / D;
  out.residual = stationarity_residual(in, out, s / D, columns);
  for (int a = 0; a < k; ++a)
    out.multipliers.push_back(std::max(columns[static_cast<std::size_t>(a)], 0.0));
  return out;
}

}  // namespace sao
