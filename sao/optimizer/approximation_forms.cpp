#include "sao/optimizer/approximation_forms.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace sao {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

double phi(const Study& study, int k, double b) {
  const Intermediate& i = study.design[k].intermediate;
  return i.identity() ? b : i.value(b);
}

double phi_slope(const Study& study, int k, double b) {
  const Intermediate& i = study.design[k].intermediate;
  return i.identity() ? 1.0 : i.slope(b);
}

// y = phi(b) of the design part of x.
Eigen::VectorXd to_y(const Study& study, const Eigen::VectorXd& x) {
  Eigen::VectorXd y(study.n_design());
  for (int k = 0; k < y.size(); ++k) y(k) = phi(study, k, x(k));
  return y;
}

// The gradient rows of a response in one load case (points x n), or null when the analysis
// has none of that shape.
const Eigen::MatrixXd* gradient_rows(const Study& study, const Evaluation& e, int response,
                                     int load_case) {
  if (!e.has_gradients || load_case >= static_cast<int>(e.cases.size())) return nullptr;
  const auto& gradients = e.cases[load_case].gradients;
  auto it = gradients.find(study.responses[response].source);
  if (it == gradients.end() || it->second.cols() != study.n_design()) return nullptr;
  return &it->second;
}

// The slope in y at b of a gradient row in b (NaN entries stay NaN).
Eigen::RowVectorXd slope_in_y(const Study& study, const Eigen::VectorXd& b,
                              const Eigen::RowVectorXd& g) {
  Eigen::RowVectorXd a(g.size());
  for (int k = 0; k < g.size(); ++k) a(k) = g(k) / phi_slope(study, k, b(k));
  return a;
}

// A response value of an analysis, or NaN when the analysis does not hold it.
double value_or_nan(const Study& study, const Evaluation& e, int response, int load_case,
                    int point) {
  if (!e.ok || e.cases.size() != study.load_cases.size()) return kNaN;
  try {
    return ExactResponses(study, e).value(response, load_case, point, Eigen::VectorXd());
  } catch (const std::out_of_range&) {
    return kNaN;
  }
}

// The scale S of a response value: its magnitude plus its change over the ranges w.
double response_scale(double r, const Eigen::RowVectorXd& a, const Eigen::VectorXd& w) {
  return std::abs(r) + a.cwiseAbs().dot(w.transpose());
}

}  // namespace

bool ResponseKey::operator<(const ResponseKey& o) const {
  if (response != o.response) return response < o.response;
  if (load_case != o.load_case) return load_case < o.load_case;
  return point < o.point;
}

ApproximationForm response_form(const Study& study, const Options& options, int response) {
  const auto& own = study.responses[response].form;
  const ApproximationForm form = own ? *own : options.form;
  if (form != ApproximationForm::kAuto) return form;
  if (options.strategy == Strategy::kSeed ||
      options.approximation == ApproximationSource::kMultipoint)
    return ApproximationForm::kLinear;
  if (study.responses[response].history) return ApproximationForm::kLinear;
  // A scalar response the objective reads: its coupled curvature (a curved valley) is what the
  // steps along the objective need, and the full matrix of quasi_newton has it where the
  // diagonal one crawls. The other responses (constraints) keep the diagonal form: there the
  // full matrix cost more analyses than it saved (docs/benchmarks.md).
  const std::vector<int> read =
      study.objective.f.program ? study.objective.f.program->responses() : std::vector<int>();
  return std::binary_search(read.begin(), read.end(), response) ? ApproximationForm::kQuasiNewton
                                                                : ApproximationForm::kQuadratic;
}

bool linear_form(const Study& study, const Options& options) {
  for (int i = 0; i < static_cast<int>(study.responses.size()); ++i) {
    if (response_form(study, options, i) != ApproximationForm::kLinear) return false;
  }
  return true;
}

// The coefficients of one response in one load case, one row per point.
struct Approximation::Table {
  ApproximationForm form = ApproximationForm::kLinear;
  double direction = 1.0;  // conservative: +1 from above (r~ >= r), -1 from below
  Eigen::VectorXd r0;
  Eigen::MatrixXd slope;                 // a, in y
  Eigen::MatrixXd first;                 // conservative: p
  Eigen::MatrixXd second;                // conservative: q; quadratic: c
  Eigen::VectorXd rho;                   // conservative
  std::vector<Eigen::MatrixXd> hessian;  // quasi-Newton: H (in y) per point
  std::vector<char> valid;               // the point has a finite gradient at b0
};

namespace {

// The exact responses at b0 with one response shifted by `delta` at every point and load case.
class Shifted final : public ResponseModel {
 public:
  Shifted(const Study& study, const Evaluation& e, int response, double delta)
      : exact_(study, e), response_(response), delta_(delta) {}
  double value(int response, int load_case, int point, const Eigen::VectorXd& x) const override {
    const double v = exact_.value(response, load_case, point, x);
    return response == response_ ? v + delta_ : v;
  }
  void add_gradient(int, int, int, const Eigen::VectorXd&, double,
                    Eigen::Ref<Eigen::VectorXd>) const override {
    throw std::logic_error("Shifted: values only");
  }

 private:
  ExactResponses exact_;
  int response_;
  double delta_;
};

// Every criterion value at x, in the direction it must not grow: the objective (minimised) and
// each constraint point's g_hat sign (+ for <=, - for >=). Unnormalised: the change a shift of
// a response makes is compared with one tolerance of the criteria's own size.
Eigen::VectorXd criteria_values(const Study& study, const Eigen::VectorXd& x,
                                const ResponseModel& model) {
  std::vector<double> out;
  const Eigen::VectorXd f = criterion_values(study, study.objective.f, x, model);
  out.insert(out.end(), f.data(), f.data() + f.size());
  for (const Constraint& c : study.constraints) {
    const double sign = c.sense == Sense::kLessEqual ? 1.0 : -1.0;
    const Eigen::VectorXd g = criterion_values(study, c.g, x, model);
    for (Eigen::Index p = 0; p < g.size(); ++p) out.push_back(sign * g(p));
  }
  return Eigen::Map<const Eigen::VectorXd>(out.data(), static_cast<Eigen::Index>(out.size()));
}

// The earlier analysed design the quadratic form takes its curvature from: the newest one
// that differs from b0 (null when there is none).
const AnalysedPoint* previous_point(const ApproximationMemory& memory, const Eigen::VectorXd& b0) {
  for (auto it = memory.points.rbegin(); it != memory.points.rend(); ++it) {
    if (it->b.size() == b0.size() && it->b != b0) return &*it;
  }
  return nullptr;
}

struct CurvatureLimits {
  double lower = 0.0, upper = 1e3;  // on c_k w_k^2 / S
};

// Whether each variable moved in the step dy (in y; w the ranges): by more than kMovedShare of
// the largest scaled step |dy_j / w_j|. Less is rounding (the subproblem's tolerance, the
// simulator's last digits), with no direction: its sign and its quotients must not decide
// anything, or a variable that stayed put is treated unlike its mirror image in a symmetric
// design, rounded the other way.
constexpr double kMovedShare = 1e-4;

std::vector<bool> moved(const Eigen::VectorXd& dy, const Eigen::VectorXd& w) {
  const double largest = dy.size() ? dy.cwiseQuotient(w).cwiseAbs().maxCoeff() : 0.0;
  std::vector<bool> out(static_cast<size_t>(dy.size()));
  for (Eigen::Index k = 0; k < dy.size(); ++k) {
    out[static_cast<size_t>(k)] = std::abs(dy(k)) > kMovedShare * largest * w(k);
  }
  return out;
}

// Curvatures c (in y) of one response value with slope a and value r0 at y0, from the
// earlier point y0 + dy with value r_p and slope a_p (NaN entries: no gradient there).
Eigen::RowVectorXd curvatures(double r0, const Eigen::RowVectorXd& a, const Eigen::VectorXd& dy,
                              double r_p, const Eigen::RowVectorXd& a_p, const Eigen::VectorXd& w,
                              const CurvatureLimits& limits) {
  Eigen::RowVectorXd c = Eigen::RowVectorXd::Zero(a.size());
  const double norm2 = dy.cwiseQuotient(w).squaredNorm();
  if (!std::isfinite(r_p) || !(norm2 > 0.0)) return c;
  const double spherical = 2.0 * (r_p - r0 - a.dot(dy.transpose())) / norm2;  // c_k w_k^2
  const bool diagonal = a_p.allFinite();
  const double scale = response_scale(r0, a, w) + response_scale(r_p, diagonal ? a_p : a, w);
  // The secant (a_p - a) / dy per variable is its curvature only where the variable itself
  // moved; otherwise the quotient is the other variables' coupling over rounding, and the
  // variable takes the spherical curvature.
  const std::vector<bool> own = moved(dy, w);
  for (int k = 0; k < a.size(); ++k) {
    double scaled = spherical;
    if (diagonal && own[static_cast<size_t>(k)]) {
      scaled = (a_p(k) - a(k)) / dy(k) * w(k) * w(k);
    }
    scaled = std::clamp(scaled, limits.lower * scale, limits.upper * scale);
    c(k) = scaled / (w(k) * w(k));
  }
  return c;
}

// A design of the quasi-Newton path: y, and the value and slope in y of one response value
// there.
struct PathPoint {
  Eigen::VectorXd y;
  double r = 0.0;
  Eigen::RowVectorXd a;
};

// The quasi-Newton path of one response value: the remembered cycle starts whose gradient
// row of it is finite, then b0 (y0, value r0, slope a) unless it is the newest of them.
std::vector<PathPoint> quasi_newton_path(const Study& study, const ApproximationMemory& memory,
                                         const ResponseKey& key, const Eigen::VectorXd& b0,
                                         const Eigen::VectorXd& y0, double r0,
                                         const Eigen::RowVectorXd& a) {
  std::vector<PathPoint> path;
  for (const AnalysedPoint& p : memory.path) {
    if (p.b.size() != b0.size() || p.b == b0) continue;
    const Eigen::MatrixXd* rows = gradient_rows(study, p.evaluation, key.response, key.load_case);
    if (!rows || key.point >= rows->rows() || !rows->row(key.point).allFinite()) continue;
    path.push_back({to_y(study, p.b),
                    value_or_nan(study, p.evaluation, key.response, key.load_case, key.point),
                    slope_in_y(study, p.b, rows->row(key.point))});
  }
  path.push_back({y0, r0, a});
  return path;
}

// The scale S of one response value over a quasi-Newton path: the largest at its designs. The
// matrix is built from the whole path, so its bounds are those of the response over it, not
// of the newest design alone, whose S shrinks to |r0| where the slope vanishes: at a
// minimum whose value is small against the curvature (a tracking error near zero) the
// clamp would flatten the matrix exactly where its curvature decides the step.
double path_scale(const std::vector<PathPoint>& path, const Eigen::VectorXd& w) {
  double scale = 0.0;
  for (const PathPoint& p : path) {
    const double s = response_scale(std::isfinite(p.r) ? p.r : 0.0, p.a, w);
    if (std::isfinite(s)) scale = std::max(scale, s);
  }
  return scale;
}

// One BFGS update of the scaled curvature matrix B with the step s and slope change g (both
// in z = y / w), or none: a pair whose mean curvature s'g / s's is not above `floor` (no
// positive curvature: a nonconvex response, or rounding) is skipped (false), so B stays
// positive definite and holds only curvature the response showed. Every pair of positive
// curvature enters, also one far below what B holds along s: that is the pair that corrects B
// where its start (the newest step's mean curvature, in every direction) is too stiff.
// History: Powell's damping (g <- theta g + (1 - theta) B s, until 2026-11-30) blended the pairs
// with s'g < 0.2 s'Bs into B; along a nonconvex objective (HS 111: d2f/dx3^2 about -27 at the
// solution, the Lagrangian convex on the constraints' tangent space) the blended pairs drove
// eigenvalues to 240 and the run crawled to the cycle limit (925 runs). Skipping those pairs
// instead (until 2026-12-01) converged HS 111 after 443, but skipped up to 66 of the 60-variable
// suspension's 102 pairs, whose start came from a stiff newest step: B stayed too stiff along
// the later steps (from cycle 155 to 177, 20 of 23 accepted at ratios of 1.13 to 1.58, about
// twice the response's curvature along them). Only pairs without positive curvature skipped:
// the suite 10021 -> 9905 runs, HS 111 unchanged, HS 93 152 -> 101, the suspension 169 -> 157
// analyses to its optimum (docs/benchmarks.md).
bool bfgs_update_or_skip(Eigen::MatrixXd& B, const Eigen::VectorXd& s, const Eigen::VectorXd& g,
                         double floor) {
  const Eigen::VectorXd Bs = B * s;
  const double sBs = s.dot(Bs), sg = s.dot(g);
  if (!(sBs > 0.0) || !std::isfinite(sBs) || !g.allFinite() || !(sg > floor * s.squaredNorm())) {
    return false;
  }
  B += g * g.transpose() / sg - Bs * Bs.transpose() / sBs;
  B = 0.5 * (B + B.transpose()).eval();  // keep it exactly symmetric
  return true;
}

// The curvature matrix of a response that behaves as a quadratic along the path, or nothing.
// BFGS learns one direction per pair and needs about n pairs for a quadratic's Hessian; the
// gradients at the path's designs hold more: each design y_i gives n secant equations
// H s_i = g_i (s_i = z_i - z0, g_i the slope difference to b0's, in z = y / w), exact for a
// quadratic. H is the symmetric least-squares fit of them all,
//   min_H sum_i |H s_i - g_i|^2 + tau |H - B|^2,  tau = kSecantRegularisation trace(S S')
// (B: the BFGS matrix, kept in the directions no step explored), solved in the eigenvectors Q
// of M = S S' (eigenvalues l): Q' H Q = Q' (sym(G S') + tau B) Q / ((l_i + l_j) / 2 + tau).
// Used only where the equations overdetermine H (at least (n + 3) / 2 pairs: n more equations
// than H's n (n + 1) / 2 entries) and H fits them within kSecantFit of the slopes' size: a
// test that the response is a quadratic over the path. Elsewhere (a curvature that changes
// along the path) the fit averages curvatures from far designs: used everywhere, it took the
// suite from 11850 runs to 12539 (HS 93 125 -> 413, the pressure vessel 68 -> 103), and with
// the 1 % test alone HS 93 still took 264 (an underdetermined fit always fits), so BFGS is kept
// there (docs/benchmarks.md).
// The weight tau: 1e-5 of trace(S S') (the suite: 1e-4 11774 runs, 1e-5 11454, 1e-6 11476,
// 1e-8 11434 with HS 93 125 -> 223).
constexpr double kSecantRegularisation = 1e-5;
constexpr double kSecantFit = 1e-2;
std::optional<Eigen::MatrixXd> multi_secant_matrix(const Eigen::MatrixXd& B,
                                                   const std::vector<PathPoint>& path,
                                                   const Eigen::VectorXd& w) {
  const Eigen::Index n = w.size();
  const PathPoint& last = path.back();
  std::vector<Eigen::VectorXd> S, G;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    Eigen::VectorXd s = (path[i].y - last.y).cwiseQuotient(w);
    Eigen::VectorXd g = (path[i].a - last.a).transpose().cwiseProduct(w);
    if (!s.allFinite() || !g.allFinite()) continue;
    S.push_back(std::move(s));
    G.push_back(std::move(g));
  }
  const auto pairs = static_cast<Eigen::Index>(S.size());
  if (2 * pairs < n + 3) return std::nullopt;
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n, n), GS = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index i = 0; i < pairs; ++i) {
    M += S[i] * S[i].transpose();
    GS += G[i] * S[i].transpose();
  }
  const double tau = kSecantRegularisation * M.trace();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(M);
  if (!(tau > 0.0) || eigen.info() != Eigen::Success) return std::nullopt;
  const Eigen::MatrixXd& Q = eigen.eigenvectors();
  const Eigen::VectorXd& l = eigen.eigenvalues();
  Eigen::MatrixXd R = Q.transpose() * (0.5 * (GS + GS.transpose()) + tau * B) * Q;
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) R(i, j) /= 0.5 * (l(i) + l(j)) + tau;
  Eigen::MatrixXd H = Q * R * Q.transpose();
  H = 0.5 * (H + H.transpose()).eval();
  double misfit = 0.0, size = 0.0;
  for (Eigen::Index i = 0; i < pairs; ++i) {
    misfit += (H * S[i] - G[i]).squaredNorm();
    size += G[i].squaredNorm();
  }
  if (!H.allFinite() || !(misfit <= kSecantFit * kSecantFit * size)) return std::nullopt;
  return H;
}

// A response with at least this many pairs along the path and none of positive curvature is
// not convex where the run goes: no positive definite matrix represents it, and BFGS, skipping
// every pair, leaves the model linear (HS 111's objective, concave along x3 where equalities hold
// the optimum: its Lagrangian model 10 to 30 times too stiff, 443 runs). It takes the diagonal
// secant curvature of either sign instead: 179 runs. One pair: HS 93 101 -> 172 (benchmarks.md).
constexpr int kNonconvexPairs = 2;

// The quasi-Newton form's curvature matrix (in y) of one response value: diagonal start
// `diagonal` (the quadratic form's c, in y), BFGS along the path (oldest first, the
// cycle start last; pairs whose mean curvature is not above 1e-6 S skipped), eigenvalues clamped
// to [max(lower, 0) S, upper S] in z = y / w; `either_sign` (the quadratic form's c with the floor
// -max_curvature) where kNonconvexPairs or more pairs and none with positive curvature.
Eigen::MatrixXd quasi_newton_matrix(const Eigen::RowVectorXd& diagonal,
                                    const Eigen::RowVectorXd& either_sign,
                                    const std::vector<PathPoint>& path, const Eigen::VectorXd& w,
                                    double scale, const CurvatureLimits& limits) {
  const Eigen::Index n = w.size();
  Eigen::MatrixXd B = Eigen::MatrixXd::Zero(n, n);
  if (path.size() < 2) {  // no pair: the quadratic form
    B.diagonal() = diagonal.transpose();
    return B;
  }
  // The start: the mean curvature s'g / s's along the newest step, in every direction (its
  // size right where the diagonal secants of coupled variables are not; BFGS then corrects the
  // directions stepped along). Without positive curvature along that step: the quadratic
  // form's diagonal. Floored at 1e-6 S: positive definite (and the same floor is the least
  // mean curvature a pair needs to enter).
  const double floor = 1e-6 * scale;
  const Eigen::VectorXd s_new = (path.back().y - path[path.size() - 2].y).cwiseQuotient(w);
  const Eigen::VectorXd g_new =
      (path.back().a - path[path.size() - 2].a).transpose().cwiseProduct(w);
  const double sg = s_new.dot(g_new), ss = s_new.squaredNorm();
  if (sg > 0.0 && ss > 0.0) {
    B.diagonal().setConstant(std::max(sg / ss, floor));
  } else {
    for (Eigen::Index k = 0; k < n; ++k) B(k, k) = std::max(diagonal(k) * w(k) * w(k), floor);
  }
  int taken = 0;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    const Eigen::VectorXd s = (path[i + 1].y - path[i].y).cwiseQuotient(w);
    const Eigen::VectorXd g = (path[i + 1].a - path[i].a).transpose().cwiseProduct(w);
    if (bfgs_update_or_skip(B, s, g, floor)) ++taken;
  }
  if (taken == 0 && path.size() > kNonconvexPairs) {
    B.setZero();
    B.diagonal() = either_sign.transpose();
    return B;
  }
  if (auto fitted = multi_secant_matrix(B, path, w)) B = std::move(*fitted);
  const double lo = std::max(limits.lower, 0.0) * scale, hi = limits.upper * scale;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(B);
  if (eigen.info() == Eigen::Success &&
      (eigen.eigenvalues().minCoeff() < lo || eigen.eigenvalues().maxCoeff() > hi)) {
    const Eigen::VectorXd clamped = eigen.eigenvalues().cwiseMax(lo).cwiseMin(hi);
    B = eigen.eigenvectors() * clamped.asDiagonal() * eigen.eigenvectors().transpose();
    B = 0.5 * (B + B.transpose()).eval();
  }
  const Eigen::VectorXd inv_w = w.cwiseInverse();
  return inv_w.asDiagonal() * B * inv_w.asDiagonal();
}

}  // namespace

Approximation::Approximation(const Study& study, const Options& options, const Evaluation& at_b0,
                             const Eigen::VectorXd& x0, const Eigen::VectorXd& lower,
                             const Eigen::VectorXd& upper, const ApproximationMemory& memory)
    : study_(study),
      options_(options),
      at_b0_(at_b0),
      linear_(study, at_b0, x0),
      b0_(x0.head(study.n_design())) {
  const int n = study.n_design();
  y0_ = to_y(study, b0_);
  width_.resize(n);
  Eigen::VectorXd box_lo(n), box_hi(n);
  for (int k = 0; k < n; ++k) {
    const DesignVariable& v = study.design[k];
    const auto [from, to] = v.interval(b0_(k));
    width_(k) = std::max(std::abs(phi(study, k, to) - phi(study, k, from)),
                         1e-6 * std::max(1.0, std::abs(y0_(k))));
    const double lo = lower.size() >= n ? lower(k) : v.lower;
    const double hi = upper.size() >= n ? upper(k) : v.upper;
    box_lo(k) = std::min(phi(study, k, lo), phi(study, k, hi));
    box_hi(k) = std::max(phi(study, k, lo), phi(study, k, hi));
  }
  directions_.assign(study.responses.size(), 1.0);
  if (uses(ApproximationForm::kConservative)) {
    place_asymptotes(memory, box_lo, box_hi);
    find_directions(x0);
  }
  build_tables(memory);
}

Approximation::~Approximation() = default;

void Approximation::find_directions(const Eigen::VectorXd& x0) {
  const ExactResponses exact(study_, at_b0_);
  Eigen::VectorXd base;
  try {
    base = criteria_values(study_, x0, exact);
  } catch (const std::exception&) {
    return;  // a value missing at b0: every direction stays "from above"
  }
  for (int i = 0; i < static_cast<int>(study_.responses.size()); ++i) {
    if (response_form(study_, options_, i) != ApproximationForm::kConservative) continue;
    double size = 0.0;
    for (int c = 0; c < static_cast<int>(study_.load_cases.size()); ++c) {
      const Eigen::MatrixXd* rows = gradient_rows(study_, at_b0_, i, c);
      for (int j = 0; rows && j < rows->rows(); ++j)
        size = std::max(size, std::abs(value_or_nan(study_, at_b0_, i, c, j)));
    }
    const double delta = 1e-6 * std::max(1.0, std::isfinite(size) ? size : 1.0);
    Eigen::VectorXd shifted;
    try {
      shifted = criteria_values(study_, x0, Shifted(study_, at_b0_, i, delta));
    } catch (const std::exception&) {
      continue;
    }
    const Eigen::ArrayXd change = (shifted - base).array();
    const double tolerance = 1e-12 * (base.cwiseAbs().maxCoeff() + 1.0);
    const bool grows = (change > tolerance).any(), falls = (change < -tolerance).any();
    if (falls && !grows) directions_[static_cast<size_t>(i)] = -1.0;
  }
}

void Approximation::place_asymptotes(const ApproximationMemory& memory,
                                     const Eigen::VectorXd& box_lo, const Eigen::VectorXd& box_hi) {
  const int n = static_cast<int>(y0_.size());
  const bool known = memory.lower_asymptote.size() == n && memory.upper_asymptote.size() == n &&
                     !memory.starts.empty();
  if (known && memory.starts.back() == b0_) {  // the same cycle start again: keep them
    lower_ = memory.lower_asymptote;
    upper_ = memory.upper_asymptote;
  } else if (known && memory.starts.size() >= 2) {  // the oscillation rule
    const Eigen::VectorXd y1 = to_y(study_, memory.starts.back());
    const Eigen::VectorXd y2 = to_y(study_, memory.starts[memory.starts.size() - 2]);
    lower_.resize(n);
    upper_.resize(n);
    const std::vector<bool> last = moved(y0_ - y1, width_), before = moved(y1 - y2, width_);
    for (int k = 0; k < n; ++k) {
      const auto K = static_cast<size_t>(k);
      const double turn = last[K] && before[K] ? (y0_(k) - y1(k)) * (y1(k) - y2(k)) : 0.0;
      const double gamma = turn < 0 ? 0.7 : (turn > 0 ? 1.2 : 1.0);
      lower_(k) = std::clamp(y0_(k) - gamma * (y1(k) - memory.lower_asymptote(k)),
                             y0_(k) - 10.0 * width_(k), y0_(k) - 0.01 * width_(k));
      upper_(k) = std::clamp(y0_(k) + gamma * (memory.upper_asymptote(k) - y1(k)),
                             y0_(k) + 0.01 * width_(k), y0_(k) + 10.0 * width_(k));
    }
  } else {
    lower_ = y0_ - 0.5 * width_;
    upper_ = y0_ + 0.5 * width_;
  }
  // The subproblem's box inside GCMMA's: lo >= L + 0.1 (y0 - L), hi <= U - 0.1 (U - y0).
  for (int k = 0; k < n; ++k) {
    lower_(k) = std::min(lower_(k), y0_(k) - (y0_(k) - box_lo(k)) / 0.9);
    upper_(k) = std::max(upper_(k), y0_(k) + (box_hi(k) - y0_(k)) / 0.9);
  }
}

namespace {

// Per response: whether constraints bound it from both sides (an equality, or a lower and an
// upper bound). Such a response has no conservative side: a convex model of x1^3 + x2^3 = -1
// (concave near its solution) misses the second-order change of every step along it, each
// proposal violates the equality by that much and the merit rejects it or keeps the region
// small (HS 81: 57 cycles, 49 with the curvature of either sign).
std::vector<bool> bounded_both_ways(const Study& study) {
  std::vector<bool> below(study.responses.size(), false), above(study.responses.size(), false);
  for (const Constraint& c : study.constraints) {
    for (int r : c.g.program->responses()) {
      (c.sense == Sense::kLessEqual ? above : below)[static_cast<size_t>(r)] = true;
    }
  }
  std::vector<bool> both(study.responses.size());
  for (size_t r = 0; r < both.size(); ++r) both[r] = below[r] && above[r];
  return both;
}

}  // namespace

void Approximation::build_tables(const ApproximationMemory& memory) {
  const int n = static_cast<int>(y0_.size());
  const AnalysedPoint* earlier = previous_point(memory, b0_);
  const bool same_start = !memory.starts.empty() && memory.starts.back() == b0_;
  const std::vector<bool> both_ways = bounded_both_ways(study_);
  tables_.resize(study_.responses.size());
  for (int i = 0; i < static_cast<int>(study_.responses.size()); ++i) {
    // The floor: min_curvature, or -max_curvature (either sign) for a response bounded both ways.
    const CurvatureLimits limits{
        both_ways[static_cast<size_t>(i)] ? -options_.max_curvature : options_.min_curvature,
        options_.max_curvature};
    const ApproximationForm form = response_form(study_, options_, i);
    if (form == ApproximationForm::kLinear) continue;
    for (int c = 0; c < static_cast<int>(study_.load_cases.size()); ++c) {
      auto t = std::make_unique<Table>();
      t->form = form;
      const Eigen::MatrixXd* rows = gradient_rows(study_, at_b0_, i, c);
      const Eigen::MatrixXd* rows_p =
          earlier ? gradient_rows(study_, earlier->evaluation, i, c) : nullptr;
      const int points = rows ? static_cast<int>(rows->rows()) : 0;
      t->r0 = Eigen::VectorXd::Zero(points);
      t->slope = t->first = t->second = Eigen::MatrixXd::Zero(points, n);
      t->rho = Eigen::VectorXd::Zero(points);
      t->valid.assign(points, 0);
      if (form == ApproximationForm::kQuasiNewton) t->hessian.resize(points);
      for (int j = 0; j < points; ++j) {
        if (!rows->row(j).allFinite()) continue;
        t->valid[j] = 1;
        t->r0(j) = value_or_nan(study_, at_b0_, i, c, j);
        const Eigen::RowVectorXd a = slope_in_y(study_, b0_, rows->row(j));
        t->slope.row(j) = a;
        const bool curved =
            form == ApproximationForm::kQuadratic || form == ApproximationForm::kQuasiNewton;
        Eigen::RowVectorXd either_sign = Eigen::RowVectorXd::Zero(n);
        if (curved && earlier) {
          const Eigen::VectorXd dy = to_y(study_, earlier->b) - y0_;
          const double r_p = value_or_nan(study_, earlier->evaluation, i, c, j);
          const Eigen::RowVectorXd a_p = rows_p && j < rows_p->rows()
                                             ? slope_in_y(study_, earlier->b, rows_p->row(j))
                                             : Eigen::RowVectorXd::Constant(n, kNaN);
          t->second.row(j) = curvatures(t->r0(j), a, dy, r_p, a_p, width_, limits);
          if (form == ApproximationForm::kQuasiNewton) {
            either_sign = curvatures(t->r0(j), a, dy, r_p, a_p, width_,
                                     {-options_.max_curvature, options_.max_curvature});
          }
        }
        if (form == ApproximationForm::kQuasiNewton) {
          const std::vector<PathPoint> path =
              quasi_newton_path(study_, memory, {i, c, j}, b0_, y0_, t->r0(j), a);
          t->hessian[static_cast<size_t>(j)] = quasi_newton_matrix(
              t->second.row(j), either_sign, path, width_, path_scale(path, width_), limits);
        } else if (form == ApproximationForm::kConservative) {
          t->direction = directions_[static_cast<size_t>(i)];
          t->rho(j) = initial_rho(memory, {i, c, j}, t->r0(j), a, same_start);
          Eigen::RowVectorXd p, q;
          conservative_terms(t->direction * a, t->rho(j), p, q);  // of direction * r
          t->first.row(j) = p;
          t->second.row(j) = q;
        }
      }
      tables_[i].push_back(std::move(t));
    }
  }
}

double Approximation::initial_rho(const ApproximationMemory& memory, const ResponseKey& key,
                                  double r0, const Eigen::RowVectorXd& a, bool same_start) const {
  auto it = memory.rho.find(key);
  if (same_start && it != memory.rho.end()) return it->second;
  const double scale = response_scale(r0, a, width_);
  double rho = std::max(0.1 / static_cast<double>(a.size()) * a.cwiseAbs().dot(width_.transpose()),
                        scale > 0 ? 1e-6 * scale : 1e-6);
  if (it != memory.rho.end()) rho = std::max(rho, 0.1 * it->second);
  return rho;
}

void Approximation::conservative_terms(const Eigen::RowVectorXd& a, double rho,
                                       Eigen::RowVectorXd& p, Eigen::RowVectorXd& q) const {
  p.resize(a.size());
  q.resize(a.size());
  for (int k = 0; k < a.size(); ++k) {
    const double plus = std::max(a(k), 0.0), minus = std::max(-a(k), 0.0);
    const double to_upper = upper_(k) - y0_(k), to_lower = y0_(k) - lower_(k);
    p(k) = to_upper * to_upper * (1.001 * plus + 0.001 * minus + rho / width_(k));
    q(k) = to_lower * to_lower * (0.001 * plus + 1.001 * minus + rho / width_(k));
  }
}

const Approximation::Table& Approximation::table(int response, int load_case, int point) const {
  const auto& per_case = tables_[response];
  const Table* t =
      load_case < static_cast<int>(per_case.size()) ? per_case[load_case].get() : nullptr;
  if (!t || point >= static_cast<int>(t->valid.size()) || !t->valid[point]) {
    throw std::logic_error("Approximation: no gradient of \"" + study_.responses[response].source +
                           "\" point " + std::to_string(point) +
                           " was computed or it is not finite");
  }
  return *t;
}

double Approximation::value(int response, int load_case, int point,
                            const Eigen::VectorXd& x) const {
  if (tables_[response].empty()) return linear_.value(response, load_case, point, x);
  const Table& t = table(response, load_case, point);
  double r = t.r0(point);
  if (t.form == ApproximationForm::kQuasiNewton) {
    const Eigen::VectorXd dy = to_y(study_, x.head(y0_.size())) - y0_;
    const Eigen::MatrixXd& H = t.hessian[static_cast<size_t>(point)];
    return r + t.slope.row(point).dot(dy.transpose()) + 0.5 * dy.dot(H * dy);
  }
  for (int k = 0; k < y0_.size(); ++k) {
    const double y = phi(study_, k, x(k)), dy = y - y0_(k);
    if (t.form == ApproximationForm::kQuadratic) {
      r += (t.slope(point, k) + 0.5 * t.second(point, k) * dy) * dy;
      continue;
    }
    if (!(y > lower_(k) && y < upper_(k))) return t.direction * kInf;
    r += t.direction * (t.first(point, k) * dy / ((upper_(k) - y) * (upper_(k) - y0_(k))) -
                        t.second(point, k) * dy / ((y - lower_(k)) * (y0_(k) - lower_(k))));
  }
  return r;
}

void Approximation::add_gradient(int response, int load_case, int point, const Eigen::VectorXd& x,
                                 double coef, Eigen::Ref<Eigen::VectorXd> grad) const {
  if (tables_[response].empty()) {
    linear_.add_gradient(response, load_case, point, x, coef, grad);
    return;
  }
  const Table& t = table(response, load_case, point);
  if (t.form == ApproximationForm::kQuasiNewton) {
    const Eigen::VectorXd dy = to_y(study_, x.head(y0_.size())) - y0_;
    const Eigen::VectorXd dr_dy =
        t.slope.row(point).transpose() + t.hessian[static_cast<size_t>(point)] * dy;
    for (int k = 0; k < y0_.size(); ++k) grad(k) += coef * dr_dy(k) * phi_slope(study_, k, x(k));
    return;
  }
  for (int k = 0; k < y0_.size(); ++k) {
    const double y = phi(study_, k, x(k)), dy = y - y0_(k);
    double dr_dy = 0.0;
    if (t.form == ApproximationForm::kQuadratic) {
      dr_dy = t.slope(point, k) + t.second(point, k) * dy;
    } else {
      const double to_upper = upper_(k) - y, to_lower = y - lower_(k);
      dr_dy = t.direction * (t.first(point, k) / (to_upper * to_upper) -
                             t.second(point, k) / (to_lower * to_lower));
    }
    grad(k) += coef * dr_dy * phi_slope(study_, k, x(k));
  }
}

double Approximation::direction(int response) const {
  return directions_.at(static_cast<size_t>(response));
}

namespace {

// The table of a response value in `form` (null when it is in another form, or has no finite
// gradient at b0); `tables` is Approximation's, its element type deduced.
template <class Tables>
auto table_in_form(const Tables& tables, const ResponseKey& key, ApproximationForm form) -> const
    typename Tables::value_type::value_type::element_type* {
  const auto& per_case = tables[static_cast<size_t>(key.response)];
  if (key.load_case >= static_cast<int>(per_case.size())) return nullptr;
  const auto* t = per_case[static_cast<size_t>(key.load_case)].get();
  if (t->form != form || key.point >= static_cast<int>(t->valid.size()) || !t->valid[key.point])
    return nullptr;
  return t;
}

}  // namespace

double Approximation::rho(const ResponseKey& key) const {
  const auto* t = table_in_form(tables_, key, ApproximationForm::kConservative);
  return t ? t->rho(key.point) : kNaN;
}

Eigen::VectorXd Approximation::curvature(const ResponseKey& key) const {
  const auto* t = table_in_form(tables_, key, ApproximationForm::kQuadratic);
  return t ? Eigen::VectorXd(t->second.row(key.point).transpose()) : Eigen::VectorXd();
}

Eigen::MatrixXd Approximation::curvature_matrix(const ResponseKey& key) const {
  const auto* t = table_in_form(tables_, key, ApproximationForm::kQuasiNewton);
  return t ? t->hessian[static_cast<size_t>(key.point)] : Eigen::MatrixXd();
}

std::vector<ResponseKey> Approximation::conservative_keys() const {
  std::vector<ResponseKey> keys;
  for (int i = 0; i < static_cast<int>(tables_.size()); ++i) {
    for (int c = 0; c < static_cast<int>(tables_[i].size()); ++c) {
      const Table& t = *tables_[i][c];
      if (t.form != ApproximationForm::kConservative) continue;
      for (int j = 0; j < static_cast<int>(t.valid.size()); ++j)
        if (t.valid[j]) keys.push_back({i, c, j});
    }
  }
  return keys;
}

double Approximation::distance(const Eigen::VectorXd& x) const {
  if (lower_.size() == 0) return 0.0;
  double d = 0.0;
  for (int k = 0; k < y0_.size(); ++k) {
    const double y = phi(study_, k, x(k)), dy = y - y0_(k);
    if (!(y > lower_(k) && y < upper_(k))) return kInf;
    d += (upper_(k) - lower_(k)) * dy * dy / ((upper_(k) - y) * (y - lower_(k)) * width_(k));
  }
  return d;
}

bool Approximation::uses(ApproximationForm form) const {
  for (int i = 0; i < static_cast<int>(study_.responses.size()); ++i)
    if (response_form(study_, options_, i) == form) return true;
  return false;
}

std::unique_ptr<Approximation> make_approximation(
    const Study& study, const Options& options, const Evaluation& at_b0, const Eigen::VectorXd& x0,
    const Eigen::VectorXd& lower, const Eigen::VectorXd& upper, const ApproximationMemory& memory) {
  return std::make_unique<Approximation>(study, options, at_b0, x0, lower, upper, memory);
}

int update_conservatism(ApproximationMemory& memory, const Approximation& used,
                        const Eigen::VectorXd& x_star, const Evaluation& at_star) {
  if (!used.uses(ApproximationForm::kConservative)) return 0;
  const Eigen::VectorXd& b0 = used.b0();
  if (memory.starts.empty() || memory.starts.back() != b0) {
    memory.starts.push_back(b0);
    if (memory.starts.size() > 2) memory.starts.erase(memory.starts.begin());
    memory.rho.clear();
  }
  memory.lower_asymptote = used.lower_asymptote();
  memory.upper_asymptote = used.upper_asymptote();
  const double d = used.distance(x_star);
  int raised = 0;
  for (const ResponseKey& key : used.conservative_keys()) {
    double rho = used.rho(key);
    const double truth =
        value_or_nan(used.study(), at_star, key.response, key.load_case, key.point);
    const double approx = used.value(key.response, key.load_case, key.point, x_star);
    const double tolerance = 1e-10 * (std::abs(truth) + std::abs(approx));
    const double miss = used.direction(key.response) * (truth - approx);  // > 0: not covered
    if (std::isfinite(truth) && std::isfinite(approx) && d > 0 && std::isfinite(d) &&
        miss > tolerance) {
      rho = std::min(1.1 * (rho + miss / d), 10.0 * rho);
      ++raised;
    }
    memory.rho[key] = rho;
  }
  return raised;
}

}  // namespace sao
