// Correlations, the factorisation of the kriging system and its concentrated likelihood.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "sao/metamodel/kriging_detail.hpp"

namespace sao::metamodel {

namespace detail {

// See kriging.hpp, "numerical safeguards".
constexpr double kGaussianJitter = 1e-10;
constexpr double kMinRcond = 1e-13;

Eigen::MatrixXd correlation_matrix(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b,
                                   Correlation correlation, const Eigen::VectorXd& lengths) {
  const Eigen::RowVectorXd inv = lengths.cwiseInverse().transpose();
  const Eigen::MatrixXd as = a.array().rowwise() * inv.array();
  const Eigen::MatrixXd bs = b.array().rowwise() * inv.array();
  Eigen::MatrixXd r(a.rows(), b.rows());
  const double s5 = std::sqrt(5.0);
  for (Eigen::Index j = 0; j < b.rows(); ++j) {
    for (Eigen::Index i = 0; i < a.rows(); ++i) {
      const double d2 = (as.row(i) - bs.row(j)).squaredNorm();
      if (correlation == Correlation::gaussian) {
        r(i, j) = std::exp(-0.5 * d2);
      } else {
        const double d = std::sqrt(d2);
        r(i, j) = (1.0 + s5 * d + 5.0 / 3.0 * d2) * std::exp(-s5 * d);
      }
    }
  }
  return r;
}

Eigen::MatrixXd trend_matrix(const Eigen::MatrixXd& u, KrigingTrend trend) {
  if (trend == KrigingTrend::constant) return Eigen::MatrixXd::Ones(u.rows(), 1);
  Eigen::MatrixXd f(u.rows(), u.cols() + 1);
  f.col(0).setOnes();
  f.rightCols(u.cols()) = u;
  return f;
}

std::optional<Factorisation> factorise(const Eigen::MatrixXd& u, const Eigen::MatrixXd& f,
                                       const Eigen::VectorXd& y, Correlation correlation,
                                       const Eigen::VectorXd& lengths, double nugget) {
  const Eigen::MatrixXd r = correlation_matrix(u, u, correlation, lengths);
  const Eigen::Index m = u.rows();
  Factorisation out;
  bool factored = false;
  // Gaussian correlation matrices approach singularity smoothly as the length scales grow: a
  // floor keeps the likelihood continuous there (no jump where the ladder would start).
  const double floor = correlation == Correlation::gaussian ? kGaussianJitter : 0.0;
  for (double jitter : {0.0, 1e-12, 1e-10, 1e-8, 1e-6}) {
    if (jitter < floor) continue;
    Eigen::MatrixXd rj = r;
    rj.diagonal().array() += nugget + jitter;
    Eigen::LLT<Eigen::MatrixXd> llt(rj);
    if (llt.info() != Eigen::Success || !(llt.rcond() > kMinRcond)) continue;
    out.chol = llt.matrixL();
    out.jitter = jitter;
    factored = true;
    break;
  }
  if (!factored) return std::nullopt;
  const auto l = out.chol.triangularView<Eigen::Lower>();
  out.linv_f = l.solve(f);
  const Eigen::VectorXd linv_y = l.solve(y);
  Eigen::LLT<Eigen::MatrixXd> gls(out.linv_f.transpose() * out.linv_f);
  if (gls.info() != Eigen::Success) return std::nullopt;
  out.gls_chol = gls.matrixL();
  out.beta = gls.solve(out.linv_f.transpose() * linv_y);
  out.linv_resid = linv_y - out.linv_f * out.beta;
  out.sigma2 = out.linv_resid.squaredNorm() / static_cast<double>(m);
  const double log_det = 2.0 * out.chol.diagonal().array().log().sum();
  const double md = static_cast<double>(m);
  out.log_likelihood = -0.5 * (md * std::log(2.0 * std::numbers::pi * out.sigma2) + md + log_det);
  return out;
}

void check_settings(const KrigingSettings& s, int n) {
  auto fail = [](const std::string& m) { throw std::invalid_argument("kriging: " + m); };
  if (s.length_scales.size() != 0) {
    if (s.length_scales.size() != n)
      fail(std::to_string(s.length_scales.size()) + " length scales given for " +
           std::to_string(n) + " variables");
    if (!s.length_scales.allFinite() || (s.length_scales.array() <= 0.0).any())
      fail("given length scales must be finite and > 0");
  }
  if (!(s.length_min > 0.0 && s.length_min < s.length_max && std::isfinite(s.length_max)))
    fail("length scale bounds need 0 < length_min < length_max (finite)");
  if (!(s.nugget >= 0.0 && std::isfinite(s.nugget))) fail("nugget must be finite and >= 0");
  if (s.estimate_nugget &&
      !(s.nugget_min > 0.0 && s.nugget_min < s.nugget_max && std::isfinite(s.nugget_max)))
    fail("nugget bounds need 0 < nugget_min < nugget_max (finite)");
  if (s.starts < 1) fail("starts must be >= 1");
  if (s.max_evaluations < 0) fail("max_evaluations must be >= 0 (0: the default)");
}

}  // namespace detail

double concentrated_log_likelihood(const Eigen::MatrixXd& points, const Eigen::VectorXd& values,
                                   const Bounds& bounds, const KrigingSettings& settings,
                                   const Eigen::VectorXd& length_scales, double nugget) {
  const int n = bounds.size();
  detail::check_settings(settings, n);
  const int p = settings.trend == KrigingTrend::constant ? 1 : n + 1;
  check_training_data(points, values, bounds, p + 1, "kriging likelihood");
  if (length_scales.size() != n || !length_scales.allFinite() ||
      (length_scales.array() <= 0.0).any())
    throw std::invalid_argument("kriging likelihood: need " + std::to_string(n) +
                                " finite length scales > 0");
  if (!(nugget >= 0.0 && std::isfinite(nugget)))
    throw std::invalid_argument("kriging likelihood: nugget must be finite and >= 0");
  const Eigen::MatrixXd u = to_scaled(points, bounds, true);
  const auto fac = detail::factorise(u, detail::trend_matrix(u, settings.trend), values,
                                     settings.correlation, length_scales, nugget);
  return fac ? fac->log_likelihood : -std::numeric_limits<double>::infinity();
}

}  // namespace sao::metamodel
