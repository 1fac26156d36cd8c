#include "sao/metamodel/d_optimal.hpp"

#include <algorithm>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace sao::metamodel {

namespace {

const char* const kWhat = "D-optimal points";

// log det of a symmetric positive semi-definite matrix from its eigenvalues; -inf when the
// smallest is not above 1e-12 of the largest (singular for the purpose of a design).
double log_det_spd(const Eigen::MatrixXd& info) {
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(info, Eigen::EigenvaluesOnly);
  const Eigen::VectorXd& v = eig.eigenvalues();
  if (v.size() == 0 || v(0) <= 1e-12 * std::max(v(v.size() - 1), 1e-300))
    return -std::numeric_limits<double>::infinity();
  return v.array().log().sum();
}

struct Problem {
  Eigen::MatrixXd f;           // candidates' model matrix, N x p
  Eigen::MatrixXd fixed_info;  // X_f' X_f of the fixed points, p x p
  std::vector<char> taken;     // candidates that coincide with a fixed point: never chosen
  int count = 0;
  int max_passes = 0;
};

Eigen::MatrixXd information(const Problem& pr, const std::vector<int>& design) {
  Eigen::MatrixXd m = pr.fixed_info;
  for (int i : design) m.selfadjointView<Eigen::Lower>().rankUpdate(pr.f.row(i).transpose());
  return m.selfadjointView<Eigen::Lower>();
}

// One exchange at position pos of the design: the candidate j not in the design maximising
// the determinant ratio 1 + Delta(i, j) of replacing i = design[pos] (Fedorov's formula
// Delta = d_j - d_i - (d_i d_j - d_ij^2), d with respect to the current information matrix,
// slightly regularised so that a singular start can still move). True when made.
bool exchange_at(const Problem& pr, std::vector<int>& design, std::vector<char>& in_design,
                 int pos) {
  const Eigen::Index p = pr.f.cols();
  Eigen::MatrixXd info = information(pr, design);
  const double ridge = 1e-9 * std::max(1.0, info.trace() / static_cast<double>(p));
  info.diagonal().array() += ridge;
  const Eigen::MatrixXd inv = info.llt().solve(Eigen::MatrixXd::Identity(p, p));
  const Eigen::MatrixXd g = pr.f * inv;
  const Eigen::VectorXd d = (g.array() * pr.f.array()).rowwise().sum();
  const int i = design[pos];
  const Eigen::VectorXd dij = pr.f * g.row(i).transpose();
  int best = -1;
  double best_delta = 1e-9;
  for (Eigen::Index j = 0; j < pr.f.rows(); ++j) {
    if (in_design[j]) continue;
    const double delta = d(j) - d(i) - (d(i) * d(j) - dij(j) * dij(j));
    if (delta > best_delta) {
      best_delta = delta;
      best = static_cast<int>(j);
    }
  }
  if (best < 0) return false;
  in_design[i] = 0;
  in_design[best] = 1;
  design[pos] = best;
  return true;
}

// Exchanges from one start until a pass improves nothing; returns the exchanges made.
int improve(const Problem& pr, std::vector<int>& design) {
  std::vector<char> in_design = pr.taken;  // a taken candidate counts as in the design
  for (int i : design) in_design[i] = 1;
  int exchanges = 0;
  for (int pass = 0; pass < pr.max_passes; ++pass) {
    bool improved = false;
    for (int pos = 0; pos < static_cast<int>(design.size()); ++pos) {
      if (exchange_at(pr, design, in_design, pos)) {
        improved = true;
        ++exchanges;
      }
    }
    if (!improved) break;
  }
  return exchanges;
}

// `count` distinct candidates drawn at random among those not taken.
std::vector<int> random_subset(const std::vector<char>& taken, int count,
                               boost::random::mt19937& rng) {
  std::vector<int> free;
  for (int i = 0; i < static_cast<int>(taken.size()); ++i)
    if (!taken[i]) free.push_back(i);
  for (int k = 0; k < count; ++k) {
    boost::random::uniform_int_distribution<int> pick(k, static_cast<int>(free.size()) - 1);
    std::swap(free[k], free[pick(rng)]);
  }
  free.resize(count);
  return free;
}

// Candidates closer than 1e-12 of the box's width in every variable to a fixed point.
std::vector<char> taken_by_fixed(const Eigen::MatrixXd& candidates, const Eigen::MatrixXd& fixed,
                                 const Bounds& bounds) {
  std::vector<char> taken(candidates.rows(), 0);
  if (fixed.rows() == 0) return taken;
  const Eigen::MatrixXd c = to_scaled(candidates, bounds, true);
  const Eigen::MatrixXd f = to_scaled(fixed, bounds, true);
  for (Eigen::Index i = 0; i < c.rows(); ++i)
    for (Eigen::Index j = 0; j < f.rows() && !taken[i]; ++j)
      taken[i] = (c.row(i) - f.row(j)).cwiseAbs().maxCoeff() <= 1e-12;
  return taken;
}

void check_inputs(const Eigen::MatrixXd& candidates, const PolynomialBasis& basis, int count,
                  const Eigen::MatrixXd& fixed, const DOptimalSettings& settings) {
  const int n = basis.bounds().size();
  const Eigen::VectorXd none = Eigen::VectorXd::Zero(candidates.rows());
  check_training_data(candidates, none, basis.bounds(), 1, std::string(kWhat) + ", candidates");
  if (fixed.size() > 0) {
    check_training_data(fixed, Eigen::VectorXd::Zero(fixed.rows()), basis.bounds(), 1,
                        std::string(kWhat) + ", fixed points");
  } else if (fixed.cols() != 0 && fixed.cols() != n) {
    throw std::invalid_argument(std::string(kWhat) + ": fixed points have " +
                                std::to_string(fixed.cols()) + " columns for " + std::to_string(n) +
                                " variables");
  }
  const auto prefix = std::string(kWhat) + ": ";
  if (count < 1 || count > candidates.rows())
    throw std::invalid_argument(prefix + std::to_string(count) + " points asked of " +
                                std::to_string(candidates.rows()) + " candidates");
  if (count + fixed.rows() < basis.size())
    throw std::invalid_argument(prefix + std::to_string(count) + " points and " +
                                std::to_string(fixed.rows()) + " fixed ones for " +
                                std::to_string(basis.size()) + " coefficients of a " +
                                to_string(basis.order()) + " polynomial (at least " +
                                std::to_string(basis.size()) + " are needed)");
  if (settings.starts < 0 || settings.max_passes < 1)
    throw std::invalid_argument(prefix + "starts must be >= 0 and max_passes >= 1");
  if (settings.starts == 0 && settings.initial.empty())
    throw std::invalid_argument(prefix + "no start: give starts >= 1 or an initial subset");
  if (settings.initial.empty()) return;
  std::vector<int> sorted = settings.initial;
  std::sort(sorted.begin(), sorted.end());
  if (static_cast<int>(sorted.size()) != count || sorted.front() < 0 ||
      sorted.back() >= candidates.rows() ||
      std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw std::invalid_argument(prefix + "the initial subset must be " + std::to_string(count) +
                                " distinct candidate indices");
}

}  // namespace

double log_det_information(const PolynomialBasis& basis, const Eigen::MatrixXd& points) {
  const Eigen::MatrixXd x = basis.model_matrix(points);
  return log_det_spd(x.transpose() * x);
}

DOptimalDesign d_optimal(const Eigen::MatrixXd& candidates, const PolynomialBasis& basis, int count,
                         const Eigen::MatrixXd& fixed, const DOptimalSettings& settings) {
  check_inputs(candidates, basis, count, fixed, settings);
  Problem pr;
  pr.f = basis.model_matrix(candidates);
  pr.fixed_info = Eigen::MatrixXd::Zero(basis.size(), basis.size());
  if (fixed.rows() > 0) {
    const Eigen::MatrixXd xf = basis.model_matrix(fixed);
    pr.fixed_info = xf.transpose() * xf;
  }
  pr.count = count;
  pr.max_passes = settings.max_passes;
  pr.taken = taken_by_fixed(candidates, fixed, basis.bounds());
  const auto free = std::count(pr.taken.begin(), pr.taken.end(), 0);
  if (free < count)
    throw std::invalid_argument(std::string(kWhat) + ": " + std::to_string(count) +
                                " points asked of " + std::to_string(free) +
                                " candidates that are not fixed points already");
  for (int i : settings.initial)
    if (pr.taken[i])
      throw std::invalid_argument(std::string(kWhat) + ": the initial subset holds candidate " +
                                  std::to_string(i) + ", which is a fixed point already");
  boost::random::mt19937 rng(settings.seed);
  DOptimalDesign best;
  best.log_det = -std::numeric_limits<double>::infinity();
  const int starts = settings.starts + (settings.initial.empty() ? 0 : 1);
  for (int s = 0; s < starts; ++s) {
    std::vector<int> design = (s == 0 && !settings.initial.empty())
                                  ? settings.initial
                                  : random_subset(pr.taken, count, rng);
    const std::vector<int> start = design;
    const double start_value = log_det_spd(information(pr, design));
    best.start_log_det.push_back(start_value);
    best.exchanges += improve(pr, design);
    double value = log_det_spd(information(pr, design));
    if (value < start_value) {  // the regularised exchange misled by a nearly singular matrix
      design = start;
      value = start_value;
    }
    best.final_log_det.push_back(value);
    if (best.chosen.empty() || value > best.log_det) {
      best.log_det = value;
      best.chosen = design;
    }
  }
  std::sort(best.chosen.begin(), best.chosen.end());
  return best;
}

}  // namespace sao::metamodel
