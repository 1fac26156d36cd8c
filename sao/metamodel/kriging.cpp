// The kriging model: hyperparameters by maximum likelihood (NLopt), prediction, LOO.
#include "sao/metamodel/kriging.hpp"

#include <nlopt.h>

#include <algorithm>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "sao/metamodel/kriging_detail.hpp"

namespace sao::metamodel {

namespace {

const char* const kWhat = "kriging";

// The hyperparameters searched (log length scales unless given, log nugget if estimated) and
// the best likelihood seen.
struct Search {
  const Eigen::MatrixXd* u = nullptr;
  const Eigen::MatrixXd* f = nullptr;
  const Eigen::VectorXd* y = nullptr;
  const KrigingSettings* s = nullptr;
  int n = 0;
  bool lengths_free = true;
  int evaluations = 0;
  double best_value = -std::numeric_limits<double>::infinity();
  std::vector<double> best_x;

  int dims() const { return (lengths_free ? n : 0) + (s->estimate_nugget ? 1 : 0); }
  void unpack(const double* x, Eigen::VectorXd& lengths, double& nugget) const {
    int k = 0;
    if (lengths_free) {
      lengths.resize(n);
      for (; k < n; ++k) lengths(k) = std::exp(x[k]);
    } else {
      lengths = s->length_scales;
    }
    nugget = s->estimate_nugget ? std::exp(x[k]) : s->nugget;
  }
};

double negative_log_likelihood(unsigned dims, const double* x, double*, void* data) {
  auto& search = *static_cast<Search*>(data);
  Eigen::VectorXd lengths;
  double nugget = 0.0;
  search.unpack(x, lengths, nugget);
  ++search.evaluations;
  const auto fac =
      detail::factorise(*search.u, *search.f, *search.y, search.s->correlation, lengths, nugget);
  if (!fac || !std::isfinite(fac->log_likelihood)) return 1e30;
  if (fac->log_likelihood > search.best_value) {
    search.best_value = fac->log_likelihood;
    search.best_x.assign(x, x + dims);
  }
  return -fac->log_likelihood;
}

// Maximises the likelihood from settings.starts starts; returns the best point (log space).
std::vector<double> maximise_likelihood(Search& search) {
  const KrigingSettings& s = *search.s;
  const int d = search.dims();
  std::vector<double> lo, up;
  if (search.lengths_free) {
    lo.assign(search.n, std::log(s.length_min));
    up.assign(search.n, std::log(s.length_max));
  }
  if (s.estimate_nugget) {
    lo.push_back(std::log(s.nugget_min));
    up.push_back(std::log(s.nugget_max));
  }
  boost::random::mt19937 rng(s.seed);
  const int max_eval = s.max_evaluations > 0 ? s.max_evaluations : 50 * (d + 1);
  for (int start = 0; start < s.starts; ++start) {
    std::vector<double> x(d);
    for (int k = 0; k < d; ++k) {
      boost::random::uniform_real_distribution<double> draw(lo[k], up[k]);
      x[k] = start == 0 ? 0.5 * (lo[k] + up[k]) : draw(rng);
    }
    // BOBYQA needs two variables at least; one is searched with COBYLA.
    std::unique_ptr<nlopt_opt_s, decltype(&nlopt_destroy)> opt(
        nlopt_create(d >= 2 ? NLOPT_LN_BOBYQA : NLOPT_LN_COBYLA, static_cast<unsigned>(d)),
        nlopt_destroy);
    nlopt_set_lower_bounds(opt.get(), lo.data());
    nlopt_set_upper_bounds(opt.get(), up.data());
    nlopt_set_min_objective(opt.get(), negative_log_likelihood, &search);
    nlopt_set_xtol_abs1(opt.get(), 1e-4);
    nlopt_set_maxeval(opt.get(), max_eval);
    double value = 0.0;
    nlopt_optimize(opt.get(), x.data(), &value);  // the best point seen is kept by the search
  }
  return search.best_x;
}

// True when the trend's least-squares fit leaves no residual (e.g. constant values).
bool trend_is_exact(const Eigen::MatrixXd& f, const Eigen::VectorXd& y) {
  const Eigen::VectorXd coefficients = f.colPivHouseholderQr().solve(y);
  return (y - f * coefficients).norm() <= 1e-12 * y.norm();
}

}  // namespace

KrigingModel::KrigingModel(const Eigen::MatrixXd& points, const Eigen::VectorXd& values,
                           const Bounds& bounds, const KrigingSettings& settings)
    : bounds_(bounds), settings_(settings) {
  check_bounds(bounds, kWhat);
  const int n = bounds.size();
  detail::check_settings(settings, n);
  const int p = settings.trend == KrigingTrend::constant ? 1 : n + 1;
  check_training_data(points, values, bounds, p + 1, kWhat);
  centres_ = to_scaled(points, bounds, true);
  const Eigen::MatrixXd f = detail::trend_matrix(centres_, settings.trend);
  Search search;
  search.u = &centres_;
  search.f = &f;
  search.y = &values;
  search.s = &settings_;
  search.n = n;
  search.lengths_free = settings.length_scales.size() == 0;
  const bool exact = trend_is_exact(f, values);
  std::vector<double> x(search.dims());
  for (int k = 0; k < search.dims(); ++k) {
    const bool nugget = k == n || !search.lengths_free;
    x[k] = nugget ? 0.5 * (std::log(settings.nugget_min) + std::log(settings.nugget_max))
                  : 0.5 * (std::log(settings.length_min) + std::log(settings.length_max));
  }
  if (search.dims() > 0 && !exact) {
    x = maximise_likelihood(search);
    if (x.empty()) {
      std::ostringstream m;
      m << kWhat << ": no length scales in [" << settings.length_min << ", " << settings.length_max
        << "] give a factorisable correlation matrix for these " << points.rows()
        << " points (too close together: give a nugget)";
      throw std::runtime_error(m.str());
    }
  }
  evaluations_ = search.evaluations;
  search.unpack(x.data(), lengths_, nugget_);
  const auto fac = detail::factorise(centres_, f, values, settings.correlation, lengths_, nugget_);
  if (!fac) {
    std::ostringstream m;
    m << kWhat << ": the correlation matrix of " << points.rows()
      << " points cannot be factorised for length scales " << lengths_.transpose()
      << " (scaled unit) and nugget " << nugget_
      << ", even with a jitter of 1e-6: points too close for such long length scales; give "
         "a nugget or shorter length scales";
    throw std::runtime_error(m.str());
  }
  finish(*fac, values);
  if (exact) {
    sigma2_ = 0.0;
    log_likelihood_ = std::nan("");
    accuracy_.note = "the trend fits the values exactly: sigma^2 = 0, no likelihood search";
  }
}

void KrigingModel::finish(const detail::Factorisation& fac, const Eigen::VectorXd& values) {
  jitter_ = fac.jitter;
  sigma2_ = fac.sigma2;
  log_likelihood_ = fac.log_likelihood;
  beta_ = fac.beta;
  chol_ = fac.chol;
  linv_f_ = fac.linv_f;
  gls_chol_ = fac.gls_chol;
  const auto l = chol_.triangularView<Eigen::Lower>();
  alpha_ = chol_.transpose().triangularView<Eigen::Upper>().solve(fac.linv_resid);
  // Q_ii = (R^-1)_ii - [R^-1 F (F'R^-1F)^-1 F'R^-1]_ii.
  const Eigen::Index m = chol_.rows();
  const Eigen::MatrixXd linv = l.solve(Eigen::MatrixXd::Identity(m, m));
  const Eigen::MatrixXd w =
      chol_.transpose().triangularView<Eigen::Upper>().solve(linv_f_);  // R^-1 F
  const Eigen::MatrixXd z = gls_chol_.triangularView<Eigen::Lower>().solve(w.transpose());
  const Eigen::VectorXd q =
      linv.colwise().squaredNorm().transpose() - z.colwise().squaredNorm().transpose();
  Eigen::VectorXd loo(m);
  loo_std_errors_.resize(m);
  for (Eigen::Index i = 0; i < m; ++i) {
    loo(i) = q(i) > 0.0 ? alpha_(i) / q(i) : std::nan("");
    loo_std_errors_(i) = q(i) > 0.0 ? std::sqrt(sigma2_ / q(i)) : std::nan("");
  }
  accuracy_ = accuracy_from_loo(values, loo);
}

Eigen::VectorXd KrigingModel::predict(const Eigen::MatrixXd& points) const {
  return predict_in_blocks(points, bounds_, kWhat, [&](const Eigen::MatrixXd& u) {
    return Eigen::VectorXd(
        detail::trend_matrix(u, settings_.trend) * beta_ +
        detail::correlation_matrix(u, centres_, settings_.correlation, lengths_) * alpha_);
  });
}

KrigingPrediction KrigingModel::predict_with_error(const Eigen::MatrixXd& points) const {
  KrigingPrediction out;
  out.mean = predict(points);
  const Eigen::MatrixXd u = to_scaled(points, bounds_, true);
  out.std_error.resize(u.rows());
  const auto l = chol_.triangularView<Eigen::Lower>();
  const auto k = gls_chol_.triangularView<Eigen::Lower>();
  const Eigen::Index block = 256;
  for (Eigen::Index start = 0; start < u.rows(); start += block) {
    const Eigen::Index count = std::min(block, u.rows() - start);
    const Eigen::MatrixXd ub = u.middleRows(start, count);
    const Eigen::MatrixXd v =
        l.solve(detail::correlation_matrix(centres_, ub, settings_.correlation, lengths_));
    const Eigen::MatrixXd g =
        linv_f_.transpose() * v - detail::trend_matrix(ub, settings_.trend).transpose();
    const Eigen::MatrixXd z = k.solve(g);
    const Eigen::ArrayXd s2 =
        sigma2_ * (1.0 - v.colwise().squaredNorm().array() + z.colwise().squaredNorm().array());
    out.std_error.segment(start, count) = s2.max(0.0).sqrt().matrix().transpose();
  }
  return out;
}

}  // namespace sao::metamodel
