#include "sao/optimizer/multipoint.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

namespace sao {

void multipoint_subregion(const Study& study, const Eigen::VectorXd& b0,
                          const Eigen::VectorXd& factors, const Eigen::VectorXi& direction,
                          double alpha, Eigen::VectorXd& lower, Eigen::VectorXd& upper) {
  const int n = study.n_design();
  for (int i = 0; i < n; ++i) {
    const DesignVariable& v = study.design[i];
    const double s = factors(i) * v.span();  // (3.27)
    const double d = direction(i) >= 0 ? 1.0 : -1.0;
    lower(i) = std::clamp(b0(i) - 0.5 * (1.0 - d + d * alpha) * s, v.lower, v.upper);  // (3.25)
    upper(i) = std::clamp(b0(i) + 0.5 * (1.0 + d - d * alpha) * s, v.lower, v.upper);  // (3.26)
  }
}

std::vector<Eigen::VectorXd> plan_points(const Eigen::VectorXd& b0, const Eigen::VectorXd& lower,
                                         const Eigen::VectorXd& upper,
                                         const Eigen::VectorXi& direction) {
  std::vector<Eigen::VectorXd> points;
  for (int k = 0; k < b0.size(); ++k) {
    const double tol = 1e-12 * std::max(1.0, std::abs(b0(k)));
    double edge = direction(k) >= 0 ? upper(k) : lower(k);
    if (std::abs(edge - b0(k)) <= tol) edge = direction(k) >= 0 ? lower(k) : upper(k);
    if (std::abs(edge - b0(k)) <= tol) {
      throw std::invalid_argument("plan_points: the subregion of design variable " +
                                  std::to_string(k + 1) +
                                  " has zero width: no plan point can move it");
    }
    Eigen::VectorXd p = b0;
    p(k) = edge;
    points.push_back(p);
  }
  return points;
}

Eigen::VectorXi next_direction(const Eigen::VectorXd& b_opt, const Eigen::VectorXd& lower,
                               const Eigen::VectorXd& upper, const Eigen::VectorXi& direction) {
  Eigen::VectorXi d = direction;
  for (int i = 0; i < d.size(); ++i) {
    const double offset = b_opt(i) - 0.5 * (lower(i) + upper(i));  // (3.28)
    if (offset > 0) d(i) = 1;
    if (offset < 0) d(i) = -1;
  }
  return d;
}

double reuse_weight(const Eigen::VectorXd& b, const Eigen::VectorXd& lower,
                    const Eigen::VectorXd& upper, double radius) {
  double excess = 0.0;  // in subregion widths
  for (int i = 0; i < b.size(); ++i) {
    const double width = std::max(upper(i) - lower(i), 1e-300);
    const double outside = std::max({lower(i) - b(i), b(i) - upper(i), 0.0});
    excess = std::max(excess, outside / width);
  }
  if (excess == 0.0) return 1.0;
  return radius > 0 ? std::max(0.0, 1.0 - excess / radius) : 0.0;
}

LinearFit fit_linear(const Eigen::MatrixXd& points, const Eigen::MatrixXd& values,
                     const Eigen::VectorXd& weights, const Eigen::VectorXd& b0,
                     bool through_first) {
  const int m = static_cast<int>(points.rows()), n = static_cast<int>(points.cols());
  if (values.rows() != m || weights.size() != m || b0.size() != n) {
    throw std::invalid_argument("fit_linear: expected " + std::to_string(m) +
                                " rows of values and weights");
  }
  // Through the first point: its row is subtracted from the others and only the slopes are
  // fitted, so the first point counts whatever its weight.
  const int first = through_first ? 1 : 0;
  if (m < first) throw std::invalid_argument("fit_linear: no point to pass through");
  const Eigen::VectorXd w = weights.tail(m - first).cwiseMax(0.0);
  const int used = static_cast<int>((w.array() > 0).count()) + first;
  if (used < n + 1) {
    throw std::invalid_argument("fit_linear: expected at least " + std::to_string(n + 1) +
                                " points of positive weight, got " + std::to_string(used));
  }
  const int unknowns = n + 1 - first;
  Eigen::MatrixXd A(m - first, unknowns);
  Eigen::MatrixXd Y = values.bottomRows(m - first);
  if (through_first) {
    A = points.bottomRows(m - 1).rowwise() - points.row(0);
    Y.rowwise() -= values.row(0);
  } else {
    A.col(0).setOnes();
    A.rightCols(n) = points.rowwise() - b0.transpose();
  }
  const Eigen::VectorXd sw = w.cwiseSqrt();
  const Eigen::MatrixXd WA = sw.asDiagonal() * A;
  const Eigen::MatrixXd WY = sw.asDiagonal() * Y;
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(WA);
  if (qr.rank() < unknowns) {
    throw std::invalid_argument("fit_linear: the points do not span the " + std::to_string(n) +
                                " design directions (rank " + std::to_string(qr.rank()) + ")");
  }
  const Eigen::MatrixXd X = qr.solve(WY);
  LinearFit fit;
  fit.slopes = X.bottomRows(n);
  if (through_first) {
    fit.intercept = values.row(0) + (b0 - points.row(0).transpose()).transpose() * fit.slopes;
  } else {
    fit.intercept = X.row(0);
  }
  fit.dof = used - (n + 1);
  fit.residual_rms = Eigen::RowVectorXd::Zero(values.cols());
  if (fit.dof > 0) {
    const Eigen::MatrixXd residual = WA * X - WY;  // weighted residuals
    const double scale = static_cast<double>(used - first) / (w.sum() * fit.dof);
    fit.residual_rms = (residual.colwise().squaredNorm() * scale).cwiseSqrt();
  }
  return fit;
}

bool plan_slopes_significant(const Eigen::VectorXd& plan_differences, double sigma,
                             double significance) {
  if (!(sigma > 0.0) || plan_differences.size() == 0) return false;
  return (plan_differences.array().abs() > significance * std::sqrt(2.0) * sigma).all();
}

Evaluation fit_evaluation(const std::vector<Eigen::VectorXd>& designs,
                          const std::vector<const Evaluation*>& analyses,
                          const Eigen::VectorXd& weights, const Eigen::VectorXd& b0,
                          double& noise_percent, const ReuseRule& rule) {
  const int m = static_cast<int>(designs.size()), n = static_cast<int>(b0.size());
  Eigen::MatrixXd points(m, n);
  for (int j = 0; j < m; ++j) points.row(j) = designs[j].transpose();
  const Evaluation& first = *analyses.front();
  Evaluation out;
  out.has_gradients = true;
  out.cases.resize(first.cases.size());
  noise_percent = -1.0;
  const int plan = rule.plan_points;
  if (plan < 0 || plan + 1 > m) {
    throw std::invalid_argument("fit_evaluation: " + std::to_string(plan) + " plan points among " +
                                std::to_string(m) + " points");
  }
  // Weights of the interpolation through b0 and the plan points (the rule's fallback).
  Eigen::VectorXd plan_weights = Eigen::VectorXd::Zero(m);
  plan_weights.head(plan + 1).setOnes();
  auto fit_one = [&](const Eigen::MatrixXd& values, Eigen::VectorXd& fitted,
                     Eigen::MatrixXd& gradient) {
    const LinearFit plain = fit_linear(points, values, weights, b0);
    const double magnitude = std::max(values.cwiseAbs().maxCoeff(), 1e-300);
    if (plain.dof > 0) {
      const double rms = std::sqrt(plain.residual_rms.squaredNorm() / plain.residual_rms.size());
      noise_percent = std::max(noise_percent, rms / magnitude * 100.0);
    }
    LinearFit fit = plain;
    if (plan > 0) {
      fit = fit_linear(points, values, weights, b0, /*through_first=*/true);
      const double sigma = rule.noise * magnitude;
      std::optional<LinearFit> interpolation;
      for (int c = 0; c < values.cols(); ++c) {
        const Eigen::VectorXd differences = values.col(c).segment(1, plan).array() - values(0, c);
        if (!plan_slopes_significant(differences, sigma, rule.significance)) continue;
        if (!interpolation) {
          interpolation = fit_linear(points, values, plan_weights, b0, /*through_first=*/true);
        }
        fit.intercept(c) = interpolation->intercept(c);
        fit.slopes.col(c) = interpolation->slopes.col(c);
      }
    }
    fitted = fit.intercept.transpose();
    gradient = fit.slopes.transpose();  // rows = values, cols = design variables
  };
  for (size_t c = 0; c < first.cases.size(); ++c) {
    for (const auto& [name, h] : first.cases[c].histories) {
      Eigen::MatrixXd values(m, h.size());
      for (int j = 0; j < m; ++j)
        values.row(j) = analyses[j]->cases[c].histories.at(name).transpose();
      fit_one(values, out.cases[c].histories[name], out.cases[c].gradients[name]);
    }
    for (const auto& [name, v] : first.cases[c].scalars) {
      Eigen::MatrixXd values(m, 1);
      for (int j = 0; j < m; ++j) values(j, 0) = analyses[j]->cases[c].scalars.at(name);
      Eigen::VectorXd fitted;
      fit_one(values, fitted, out.cases[c].gradients[name]);
      out.cases[c].scalars[name] = fitted(0);
    }
  }
  return out;
}

}  // namespace sao
