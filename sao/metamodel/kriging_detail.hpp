// Internal to sao/metamodel/kriging*.cpp: correlation matrices and one factorisation of the
// kriging system for given hyperparameters.
#pragma once

#include <optional>

#include "sao/metamodel/kriging.hpp"

namespace sao::metamodel::detail {

// Correlations between the rows of a and b (scaled points).
Eigen::MatrixXd correlation_matrix(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b,
                                   Correlation correlation, const Eigen::VectorXd& lengths);

// The trend's terms at scaled points: 1 (constant) or 1, u_1, ..., u_n (linear).
Eigen::MatrixXd trend_matrix(const Eigen::MatrixXd& u, KrigingTrend trend);

struct Factorisation {
  Eigen::MatrixXd chol;  // L, R + (nugget + jitter) I = L L'
  double jitter = 0.0;
  Eigen::MatrixXd linv_f;    // L^-1 F
  Eigen::MatrixXd gls_chol;  // lower Cholesky factor of F' R^-1 F
  Eigen::VectorXd beta;
  Eigen::VectorXd linv_resid;  // L^-1 (y - F beta)
  double sigma2 = 0.0;
  double log_likelihood = 0.0;
};

// The factorisation for given length scales and nugget; nullopt when R cannot be factorised
// with any jitter, or F' R^-1 F is singular.
std::optional<Factorisation> factorise(const Eigen::MatrixXd& u, const Eigen::MatrixXd& f,
                                       const Eigen::VectorXd& y, Correlation correlation,
                                       const Eigen::VectorXd& lengths, double nugget);

// Checks the settings against n variables (std::invalid_argument).
void check_settings(const KrigingSettings& s, int n);

}  // namespace sao::metamodel::detail
