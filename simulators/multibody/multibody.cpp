#include "simulators/multibody/multibody.hpp"

#include <math.h>  // before pchip.hpp, which calls isnan unqualified

#include <algorithm>
#include <boost/math/interpolators/pchip.hpp>
#include <cmath>
#include <numbers>
#include <set>
#include <sstream>
#include <stdexcept>

#include "sao/expr/expression.hpp"
#include "sao/seam/json_section.hpp"
#include "simulators/models/damper_law.hpp"

namespace sao::sim {
namespace {

using nlohmann::json;
template <class S>
using Vec = Eigen::Matrix<S, Eigen::Dynamic, 1>;
template <class S>
using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;

using section::bad;

// Scalars of the equations: double, AD (model.hpp: a derivative vector on the heap), and
// LocalAD, at most kLocal derivatives in fixed storage (no allocation per operation), for the
// element-by-element linearisation of a run (Multibody::Run).
constexpr int kLocal = 32;
using LocalAD = Eigen::AutoDiffScalar<Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kLocal, 1>>;

double value_of(double v) {
  return v;
}
template <class D>
double value_of(const Eigen::AutoDiffScalar<D>& v) {
  return v.value();
}

// Eigen's AutoDiffScalar does not combine a value without derivatives with one that has them
// in every operation, so every AD value of one evaluation carries a derivative vector of the
// same size: set by the entry points (the sizes of the seeded x and p), used by constants.
thread_local Eigen::Index ad_size = 0;

template <class S>
S C(double v) {
  if constexpr (std::is_same_v<S, double>) {
    return v;
  } else {
    return S(v, S::DerType::Zero(ad_size));
  }
}

void set_ad_size(const AD* seeded, Eigen::Index count) {
  ad_size = count > 0 ? seeded[0].derivatives().size() : 0;
}

// ---------------------------------------------------------------------------------------
// Expressions of the model: numbers or strings over named variables (parameters, t, ...).

class Values final : public expr::Inputs {
 public:
  explicit Values(const std::vector<double>& v) : v_(v) {}
  double variable(int i) const override { return v_[i]; }
  double response(int, int, int) const override { return 0.0; }
  int gradient_size() const override { return static_cast<int>(v_.size()); }

 private:
  const std::vector<double>& v_;
};

// An expression evaluated on scalars of type S: for AD, the chain rule through the exact
// gradient of the expression with respect to its variables.
template <class S>
S evaluate(const expr::Program& program, const std::vector<S>& vars) {
  if constexpr (std::is_same_v<S, double>) {
    return expr::Evaluator(program, Values(vars)).value();
  } else {
    std::vector<double> values(vars.size());
    for (size_t i = 0; i < vars.size(); ++i) values[i] = value_of(vars[i]);
    Eigen::VectorXd g(vars.size());
    S out = C<S>(expr::Evaluator(program, Values(values)).value(0, g));
    for (size_t i = 0; i < vars.size(); ++i) {
      const auto& di = vars[i].derivatives();
      if (di.size() == ad_size && g(i) != 0.0) out.derivatives() += g(i) * di;
    }
    return out;
  }
}

// The values, in one run, of the quantities that depend on the parameters only (masses, joint
// points, stiffnesses): computed once per run instead of once per call, with their
// derivatives with respect to the run's active parameters.
struct Frozen {
  std::vector<double> value;
  std::vector<std::vector<std::pair<int, double>>> gradient;  // (active position, derivative)
};

// What the quantities of the model are evaluated with at time t: the symbols (parameters, t,
// load-case parameters) and, in a run, the frozen quantities. A run's element evaluation in
// LocalAD leaves `symbols` empty when the element reads frozen quantities only, and maps each
// active parameter to its local derivative direction (-1: not seeded).
template <class S>
struct Env {
  std::vector<S> symbols;
  int t_index = 0;  // symbols[t_index] is t
  double t = 0.0;
  const LoadCaseSpec* lc = nullptr;
  const Frozen* frozen = nullptr;
  const int* direction = nullptr;
  void set_time(double time) {
    t = time;
    if (!symbols.empty()) symbols[t_index] = C<S>(time);
  }
};

struct Quantity {
  double constant = 0.0;
  expr::ProgramPtr program;     // null: the constant
  int frozen = -1;              // index in a run's Frozen table; -1: evaluated at every call
  std::vector<int> parameters;  // the model parameters the program reads
  bool live() const { return program && frozen < 0; }
  template <class S>
  S at(const Env<S>& env) const {
    if (!program) return C<S>(constant);
    if (frozen >= 0 && env.frozen) {
      S out = C<S>(env.frozen->value[frozen]);
      if constexpr (!std::is_same_v<S, double>) {
        if (env.direction) {
          for (const auto& [a, d] : env.frozen->gradient[frozen]) {
            if (env.direction[a] >= 0) out.derivatives()(env.direction[a]) += d;
          }
        }
      }
      return out;
    }
    return evaluate(*program, symbols(env));
  }
  // With values of further names after the symbols (d and v of a force law, x of a road).
  template <class S>
  S at(const Env<S>& env, std::initializer_list<S> extra) const {
    if (!program) return C<S>(constant);
    std::vector<S> vars = symbols(env);
    vars.insert(vars.end(), extra.begin(), extra.end());
    return evaluate(*program, vars);
  }

 private:
  template <class S>
  static const std::vector<S>& symbols(const Env<S>& env) {
    if (env.symbols.empty()) throw std::logic_error("multibody: an expression without its symbols");
    return env.symbols;
  }
};

// ---------------------------------------------------------------------------------------
// The model description

// What the equations of one element (a body, a joint, a force) read: the model parameters of
// its quantities, and whether one of them is evaluated at every call (a function of t, of a
// force law's d and v, or of a road's x) and so needs the symbols.
struct Reads {
  std::vector<int> parameters;
  bool live = false;
  void add(const Quantity& q) {
    parameters.insert(parameters.end(), q.parameters.begin(), q.parameters.end());
    live = live || q.live();
  }
  void finish() {
    std::sort(parameters.begin(), parameters.end());
    parameters.erase(std::unique(parameters.begin(), parameters.end()), parameters.end());
  }
};

struct Point {
  int body = -1;  // -1: ground (global coordinates)
  Quantity u, v;
};

// A road profile: height of the road at distance x, a formula of x (and the parameters) or a
// table of (x, height) interpolated by a monotone cubic (PCHIP), constant beyond its ends.
struct Profile {
  std::string name;
  Quantity height;  // formula: over the symbols plus x
  std::shared_ptr<boost::math::interpolators::pchip<std::vector<double>>> table;
  double first = 0.0, last = 0.0;  // the table's range of x
};

// A prescribed motion of time: an expression of t, or a road passing at `speed` that reaches
// x = 0 of the profile `start` metres after t = 0 (x = speed t - start).
struct Motion {
  Quantity value;  // expression of t
  std::vector<Profile> profiles;
  std::string select;  // load-case parameter choosing the profile (1-based)
  Quantity speed, start;
};

enum class JointKind {
  kRevolute,
  kTranslational,
  kAngleDriver,
  kTranslationalDriver,
  kFixed,
  kDriver
};

struct Joint {
  std::string name;
  JointKind kind;
  int a = -1, b = -1;
  Point pa, pb;
  Quantity axis;      // translational (and its driver): axis angle in a's frame
  Quantity angle;     // angle driver: theta_b - theta_a = f(t); fixed/translational: relative angle
  Quantity distance;  // translational driver: (r_Pb - r_Pa) along the axis = f(t)
  int coordinate = -1;  // kDriver: q[3 b + coordinate] = motion(t)
  Motion motion;        // kDriver
  Reads reads;
  int equations() const {
    switch (kind) {
      case JointKind::kRevolute:
      case JointKind::kTranslational:
        return 2;
      case JointKind::kAngleDriver:
      case JointKind::kTranslationalDriver:
      case JointKind::kDriver:
        return 1;
      case JointKind::kFixed:
        return 3;
    }
    return 0;
  }
};

enum class ForceKind { kSpringDamper, kRotational, kPointForce };

struct Force {
  std::string name;
  ForceKind kind;
  int a = -1, b = -1;
  Point pa, pb;
  Quantity stiffness, damping, length, preload;  // rotational: length is the free angle
  Quantity fx, fy;                               // point force (may use t)
  // spring_damper: a nonlinear law of d = length - free length and its rate v, and the staged
  // damper law (damper_law.hpp) with B0..B3 per stage, times a weight of d.
  bool has_law = false, has_damper = false;
  Quantity law, weight;
  Quantity compression[4], rebound[4];
  Reads reads;
};

struct Body {
  std::string name;
  Quantity mass, inertia;
  Quantity x, y, angle, vx, vy, omega;
  Reads reads;  // of its mass, inertia and gravity force
};

struct InitialCondition {
  int body;
  int coordinate;  // 0 x, 1 y, 2 theta
  Quantity value;
  Quantity rate;
};

// A named point of a body whose global position, velocity and acceleration are responses.
struct Marker {
  std::string name;
  Point at;
};

struct Integral {
  std::string name;
  expr::ProgramPtr integrand;  // of (parameters, t, <body>_<x|y|theta|vx|vy|omega>)
};

// The solution of the kinematic equations at one time point, and every history value there.
template <class S>
struct KinematicState {
  Vec<S> q, qd, qdd, lambda, values;
  Mat<S> phi_q;
};

// What a kinematic analysis differentiates, and where the derivatives go.
struct KinematicRequest {
  const std::vector<int>* active = nullptr;          // parameter indices
  const std::vector<OutputPoint>* wanted = nullptr;  // (history output, grid point)
  bool adjoint = false;
  Eigen::MatrixXd* rows = nullptr;  // wanted x active
};

const char* const kCoordinates[] = {"x", "y", "theta", "vx", "vy", "omega", "ax", "ay", "alpha"};
const char* const kPointComponents[] = {"x", "y", "vx", "vy", "ax", "ay"};

// The equations of one joint at (t, q, q'): its rows of Phi, Phi_t, gamma (Phi_q q'' = gamma)
// and of Phi_q, whose columns are x, y, theta of the first body, then of the second.
template <class S>
struct JointTerms {
  S phi[3], phi_t[3], gamma[3];
  S phi_q[3][6];  // S(0.0), without derivatives, where the joint writes nothing
};

// Whether a factorised matrix is safely invertible. Eigen's condition estimate alone is not
// enough: it reports 1 for an exactly zero pivot (a massless free body), so the pivots are
// checked too.
bool regular(const Eigen::PartialPivLU<Eigen::MatrixXd>& lu) {
  const Eigen::VectorXd pivots = lu.matrixLU().diagonal().cwiseAbs();
  if (pivots.size() == 0) return true;
  return lu.rcond() > 1e-13 && pivots.minCoeff() > 1e-13 * pivots.maxCoeff();
}

template <class S>
Mat<S> augmented_matrix(const Vec<S>& mass, const Mat<S>& phi_q) {
  const auto n = mass.size(), m = phi_q.rows();
  Mat<S> A = Mat<S>::Constant(n + m, n + m, C<S>(0.0));
  A.topLeftCorner(n, n).diagonal() = mass;
  A.block(0, n, n, m) = phi_q.transpose();
  A.block(n, 0, m, n) = phi_q;
  return A;
}

// The augmented matrix A = [M Phi_q'; Phi_q 0] of the equations of motion (M diagonal),
// factored once for any number of solves. With every mass positive and a well-conditioned
// Schur complement S = Phi_q M^-1 Phi_q' (cond < 1e6, so that forming it loses at most
// 1e-10), through S: a Cholesky factorisation of m x m instead of a dense LU of
// (n + m) x (n + m). Otherwise (massless bodies, near lock-up) the dense LU, whose test
// `regular` decides whether A is singular.
class AugmentedSolver {
 public:
  // False when A is singular.
  bool factor(const Eigen::VectorXd& mass, const Eigen::MatrixXd& phi_q) {
    n_ = mass.size();
    m_ = phi_q.rows();
    dense_ = false;
    if ((mass.array() > 0.0).all()) {
      inverse_mass_ = mass.cwiseInverse();
      if (m_ == 0) return true;
      phi_q_ = phi_q;
      schur_.compute(phi_q * inverse_mass_.asDiagonal() * phi_q.transpose());
      if (schur_.info() == Eigen::Success && schur_.rcond() > 1e-6) return true;
    }
    dense_ = true;
    lu_.compute(augmented_matrix<double>(mass, phi_q));
    return regular(lu_);
  }
  // A^-1 R for every column of R (n + m rows); A is symmetric, so this is also A^-T R.
  Eigen::MatrixXd solve(const Eigen::Ref<const Eigen::MatrixXd>& R) const {
    if (dense_) return lu_.solve(R);
    Eigen::MatrixXd z(n_ + m_, R.cols());
    z.topRows(n_) = inverse_mass_.asDiagonal() * R.topRows(n_);
    if (m_ == 0) return z;
    // M a + Phi_q' mu = F, Phi_q a = G: S mu = Phi_q M^-1 F - G, a = M^-1 (F - Phi_q' mu).
    z.bottomRows(m_) = schur_.solve(phi_q_ * z.topRows(n_) - R.bottomRows(m_));
    z.topRows(n_) -= inverse_mass_.asDiagonal() * (phi_q_.transpose() * z.bottomRows(m_));
    return z;
  }

 private:
  Eigen::Index n_ = 0, m_ = 0;
  bool dense_ = false;
  Eigen::VectorXd inverse_mass_;
  Eigen::MatrixXd phi_q_;
  Eigen::LLT<Eigen::MatrixXd> schur_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
};

class Multibody final : public OdeModel {
 public:
  Multibody(const json& m, const std::string& path);

  std::string name() const override { return "multibody"; }
  std::vector<std::string> parameters() const override { return parameter_names_; }
  std::map<std::string, double> parameter_defaults() const override {
    std::map<std::string, double> out;
    for (size_t i = 0; i < parameter_names_.size(); ++i)
      out[parameter_names_[i]] = parameter_defaults_[i];
    return out;
  }
  std::map<std::string, double> load_parameters() const override {
    std::map<std::string, double> out;
    for (size_t i = 0; i < load_names_.size(); ++i) out[load_names_[i]] = load_defaults_[i];
    return out;
  }
  int state_size() const override { return 2 * nq(); }
  double max_step(const LoadCaseSpec& lc) const override {
    if (!has_max_step_) return 0.0;
    const double h = max_step_.at(vars(parameter_defaults_.data(), lc.grid.start, lc));
    if (!(h > 0.0)) {
      throw std::runtime_error("max_step is " + std::to_string(h) + " in load case \"" + lc.name +
                               "\" (expected > 0)");
    }
    return h;
  }
  std::vector<std::string> history_outputs() const override { return history_names_; }
  std::vector<std::string> integral_outputs() const override {
    std::vector<std::string> out;
    for (const auto& i : integrals_) out.push_back(i.name);
    return out;
  }
  std::string analyse(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                      const IntegratorSettings& settings, CaseResult& out) const override;
  bool differentiates_itself() const override { return !dynamic_; }
  std::unique_ptr<Instance> instance(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                     const std::vector<int>& active) const override;
  std::string analyse_with_derivatives(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                       const std::vector<int>& active,
                                       const std::vector<OutputPoint>& wanted, bool adjoint,
                                       CaseResult& out, Eigen::MatrixXd& rows) const override {
    rows.setZero(static_cast<Eigen::Index>(wanted.size()),
                 static_cast<Eigen::Index>(active.size()));
    const KinematicRequest request{&active, &wanted, adjoint, &rows};
    try {
      return kinematic(p, lc, &request, out);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
  }

  void initial_state(const double* p, double* x0, const LoadCaseSpec& lc) const override {
    initial<double>(p, x0, lc);
  }
  void initial_state(const AD* p, AD* x0, const LoadCaseSpec& lc) const override {
    set_ad_size(p, static_cast<Eigen::Index>(parameter_names_.size()));
    initial<AD>(p, x0, lc);
  }
  int rhs(double t, const double* x, double* xdot, const double* p,
          const LoadCaseSpec& lc) const override {
    // A singular system: let CVODES retry with a smaller step.
    return equations<double>(x, xdot, vars(p, t, lc)) ? 0 : 1;
  }
  std::string diagnose(double t, const double* x, const double* p,
                       const LoadCaseSpec& lc) const override {
    Vec<double> qdd;
    return accelerations(x, x + nq(), vars(p, t, lc), qdd) ? "" : singular_motion(t, x, p, lc);
  }
  void rhs(double t, const AD* x, AD* xdot, const AD* p, const LoadCaseSpec& lc) const override {
    set_ad_size(x, state_size());
    if (!equations<AD>(x, xdot, vars(p, t, lc))) {
      throw std::runtime_error(singular_motion(t, x, p, lc));
    }
  }
  double output(int k, double t, const double* x, const double* p,
                const LoadCaseSpec& lc) const override {
    return out<double>(k, t, x, p, lc);
  }
  void history_outputs_at(double t, const double* x, const double* p, const LoadCaseSpec& lc,
                          Eigen::Ref<Eigen::VectorXd> h) const override {
    const int n = nq();
    const Env<double> env = vars(p, t, lc);
    Vec<double> qdd, lambda;
    Mat<double> phi_q;
    if (!accelerations(x, x + n, env, qdd, &lambda, &phi_q)) {
      throw std::runtime_error(singular_motion(t, x, p, lc));
    }
    const Eigen::Map<const Eigen::VectorXd> q(x, n), qd(x + n, n);
    h = history_values<double>(q, qd, qdd, lambda, phi_q, env);
  }
  AD output(int k, double t, const AD* x, const AD* p, const LoadCaseSpec& lc) const override {
    set_ad_size(x, state_size());
    return out<AD>(k, t, x, p, lc);
  }

 private:
  class Run;

  int nq() const { return 3 * static_cast<int>(bodies_.size()); }
  int n_constraints() const {
    int m = 0;
    for (const Joint& j : joints_) m += j.equations();
    return m;
  }
  // Calls visit(local, column) for the columns of a joint's (or force's) bodies a and b:
  // local 0-2 are x, y, theta of a, 3-5 those of b; the ground has none.
  template <class Visit>
  static void for_each_column(int a, int b, Visit visit) {
    for (int side = 0; side < 2; ++side) {
      const int body = side == 0 ? a : b;
      if (body < 0) continue;
      for (int c = 0; c < 3; ++c) visit(3 * side + c, 3 * body + c);
    }
  }

  // --- reading -------------------------------------------------------------------------
  // An expression of the symbols (parameters, t, load-case parameters) and `extra` names.
  Quantity quantity(const json& v, const std::string& path, bool time = false,
                    const std::vector<std::string>& extra = {});
  Motion motion(const json& v, const std::string& path);
  int body_index(const json& v, const std::string& path) const;
  Point point(int body, const json& v, const std::string& path);

  // --- kinematics ----------------------------------------------------------------------
  // The symbols at time t: parameters, t, load-case parameters.
  template <class S>
  Env<S> vars(const S* p, double t, const LoadCaseSpec& lc) const {
    Env<S> env;
    env.symbols.assign(p, p + parameter_names_.size());
    env.t_index = static_cast<int>(parameter_names_.size());
    env.symbols.push_back(C<S>(t));
    for (size_t i = 0; i < load_names_.size(); ++i) {
      const auto it = lc.parameters.find(load_names_[i]);
      env.symbols.push_back(C<S>(it == lc.parameters.end() ? load_defaults_[i] : it->second));
    }
    env.t = t;
    env.lc = &lc;
    return env;
  }
  // The value of a prescribed motion at time env.t.
  template <class S>
  S motion_at(const Motion& m, const Env<S>& env) const;
  template <class S>
  struct Pose {
    S x, y, c, s;  // reference point, cos and sin of the angle
  };
  template <class S>
  Pose<S> pose(int body, const S* q) const {
    if (body < 0) return {C<S>(0.0), C<S>(0.0), C<S>(1.0), C<S>(0.0)};
    using std::cos;
    using std::sin;
    return {q[3 * body], q[3 * body + 1], cos(q[3 * body + 2]), sin(q[3 * body + 2])};
  }
  template <class S>
  S omega(int body, const S* qd) const {
    return body < 0 ? C<S>(0.0) : qd[3 * body + 2];
  }

  // --- the equations, element by element (every analysis and its derivatives use these) --
  // A joint's rows of Phi, Phi_q, Phi_t and gamma at (t, q, q').
  template <class S>
  void joint_terms(const Joint& j, const S* q, const S* qd, const Env<S>& env,
                   JointTerms<S>& out) const;
  // Row k of a joint in the stabilised acceleration equations: gamma - 2 alpha Phi' - beta^2
  // Phi, with Phi' = Phi_q q' + Phi_t.
  template <class S>
  S stabilised_gamma(const Joint& j, const JointTerms<S>& terms, int k, const S* qd) const;
  // The generalised forces of a force element on its bodies a (fa: x, y, theta) and b (fb).
  template <class S>
  void force_terms(const Force& f, const S* q, const S* qd, const Env<S>& env, S* fa, S* fb) const;
  // A body's masses (m, m, inertia) and weight (m gx, m gy).
  template <class S>
  void body_terms(const Body& b, const Env<S>& env, S* mass, S* weight) const;

  // --- the same, assembled ---------------------------------------------------------------
  // Phi_q of every joint into phi_q, and visit(row, joint, terms, k) for every constraint row
  // (row k of the joint's terms).
  template <class S, class Visit>
  void joint_rows(const S* q, const S* qd, const Env<S>& env, Mat<S>& phi_q, Visit visit) const;
  // Phi, Phi_q, Phi_t and gamma (Phi_q q'' = gamma) of every joint at (t, q, q').
  template <class S>
  void constraints(const S* q, const S* qd, const Env<S>& env, Vec<S>& phi, Mat<S>& phi_q,
                   Vec<S>& phi_t, Vec<S>& gamma) const;
  // The diagonal mass matrix and the generalised forces Q (weights and force elements) at
  // (t, q, q').
  template <class S>
  void mass_and_forces(const S* q, const S* qd, const Env<S>& env, Vec<S>& mass, Vec<S>& Q) const;
  // Length, its rate, the tension and the unit vector from Pa to Pb of a spring-damper.
  template <class S>
  void spring_state(const Force& f, const S* q, const S* qd, const Env<S>& env, S& length,
                    S& velocity, S& tension, S& ux, S& uy) const;
  // The augmented system A z = r of the accelerations and multipliers: the diagonal mass
  // matrix, Phi_q, and r = (Q, gamma with Baumgarte stabilisation), at (t, q, q').
  template <class S>
  void augmented(const S* q, const S* qd, const Env<S>& env, Vec<S>& mass, Mat<S>& phi_q,
                 Vec<S>& rhs) const;
  // Solves for q'' and the multipliers lambda at (t, q, q'); false when the system is singular.
  template <class S>
  bool accelerations(const S* q, const S* qd, const Env<S>& env, Vec<S>& qdd,
                     Vec<S>* lambda = nullptr, Mat<S>* phi_q = nullptr) const;
  // Reaction of joint `joint` (0 fx, 1 fy, 2 torque) on its second body (the first when the
  // second is the ground): -Phi_q' lambda over the joint's rows, the torque from its angle row.
  template <class S>
  S reaction(int joint, int component, const Mat<S>& phi_q, const Vec<S>& lambda) const;
  // Component c (x, y, vx, vy, ax, ay) of a marked point's global motion.
  template <class S>
  S marker(const Marker& mk, int c, const S* q, const S* qd, const S* qdd, const Env<S>& env) const;
  template <class S>
  bool equations(const S* x, S* xdot, const Env<S>& env) const;
  // The symbols of the integrands at (t, x): the model's, then x, y, theta, vx, vy, omega of
  // every body.
  template <class S>
  std::vector<S> integrand_symbols(const Env<S>& env, const S* x) const;
  template <class S>
  void initial(const S* p, S* x0, const LoadCaseSpec& lc) const;
  template <class S>
  S out(int k, double t, const S* x, const S* p, const LoadCaseSpec& lc) const;

  // Newton on the position equations (plus `fix` rows for the initial conditions).
  std::string assemble(double t, const double* p, const LoadCaseSpec& lc, Eigen::VectorXd& q,
                       bool initial_conditions, int* iterations = nullptr) const;
  // The kinematic analysis; with a request, also the derivatives it asks for.
  std::string kinematic(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                        const KinematicRequest* request, CaseResult& out) const;
  // Velocities, accelerations, reactions and history values at the solved positions q; for AD
  // parameters with their derivatives (the direct method).
  template <class S>
  bool kinematic_point(double t, const Eigen::VectorXd& q, const S* p, const LoadCaseSpec& lc,
                       KinematicState<S>& out) const;
  template <class S>
  Vec<S> history_values(const Vec<S>& q, const Vec<S>& qd, const Vec<S>& qdd, const Vec<S>& lambda,
                        const Mat<S>& phi_q, const Env<S>& env) const;
  // The requested derivatives at grid point `point` (direct or adjoint); "" or why not.
  std::string kinematic_sensitivities(double t, int point, const Eigen::VectorXd& q,
                                      const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                      const KinematicRequest& request) const;
  std::string worst_joint(const Eigen::VectorXd& phi) const;
  // The joint (or initial condition) of constraint row `row`.
  std::string row_owner(Eigen::Index row) const;
  // "" when the rows of J (joints, then initial conditions) are independent, else "the
  // equations of joint ... depend on the others' (lock-up or a redundant joint)".
  std::string dependent_rows(const Eigen::MatrixXd& J) const;
  // Why the equations of motion are singular at (t, x): the joints whose equations depend on
  // the others' (lock-up, a redundant joint), else the bodies without mass or inertia.
  template <class S>
  std::string singular_motion(double t, const S* x, const S* p, const LoadCaseSpec& lc) const;

  bool dynamic_ = true;
  std::vector<std::string> parameter_names_;
  std::vector<double> parameter_defaults_;
  std::vector<std::string> load_names_;  // load-case parameters the expressions may use
  std::vector<double> load_defaults_;
  std::vector<Body> bodies_;
  std::vector<Joint> joints_;
  std::vector<Force> forces_;
  std::vector<InitialCondition> initial_conditions_;
  std::vector<Marker> markers_;
  std::vector<Integral> integrals_;
  Quantity gx_, gy_;
  double alpha_ = 10.0, beta_ = 10.0;
  bool has_max_step_ = false;
  Quantity max_step_;  // of the load-case parameters (and the parameters' defaults)
  std::vector<std::string> history_names_;
  expr::Symbols symbols_;  // parameters and t
  // The programs of the quantities that depend on the parameters only (Quantity::frozen).
  std::vector<expr::ProgramPtr> frozen_;
};

// ---------------------------------------------------------------------------------------
// Reading

void only_keys(const json& o, const std::vector<std::string>& known, const std::string& path) {
  if (!o.is_object()) bad(path, "expected an object, got " + o.dump());
  section::reject_unknown_keys(o, known, path);
}

const json& array_at(const json& o, const std::string& key, const std::string& path,
                     bool required = false) {
  static const json empty = json::array();
  if (!o.contains(key)) {
    if (required) bad(path + "." + key, "missing");
    return empty;
  }
  if (!o.at(key).is_array()) bad(path + "." + key, "expected an array, got " + o.at(key).dump());
  return o.at(key);
}

std::string at(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

Quantity Multibody::quantity(const json& v, const std::string& path, bool time,
                             const std::vector<std::string>& extra) {
  Quantity q;
  if (v.is_number()) {
    q.constant = v.get<double>();
    if (!std::isfinite(q.constant)) bad(path, "expected a finite number");
    return q;
  }
  if (!v.is_string()) bad(path, "expected a number or an expression, got " + v.dump());
  expr::Symbols symbols = symbols_;
  symbols.variables.insert(symbols.variables.end(), extra.begin(), extra.end());
  try {
    q.program = expr::bind(expr::parse(v.get<std::string>()), symbols, -1);
  } catch (const expr::Error& e) {
    bad(path, e.what());
  }
  if (q.program->is_series()) bad(path, "expected a scalar expression");
  const int n_parameters = static_cast<int>(parameter_names_.size());
  const int t_index = n_parameters;  // symbols_: parameters, t, load-case parameters
  bool reads_t = false;
  for (int i : expr::variables_read(*q.program)) {
    if (i < n_parameters) q.parameters.push_back(i);
    reads_t = reads_t || i == t_index;
  }
  // Only drivers and point forces may depend on t.
  if (reads_t && !time) bad(path, "may not depend on the time t");
  if (!reads_t && extra.empty()) {  // a function of the parameters only: frozen in a run
    q.frozen = static_cast<int>(frozen_.size());
    frozen_.push_back(q.program);
  }
  return q;
}

Motion Multibody::motion(const json& v, const std::string& path) {
  Motion m;
  if (!v.is_object()) {
    m.value = quantity(v, path, true);
    return m;
  }
  only_keys(v, {"road", "select", "speed", "start"}, path);
  if (!v.contains("road") || !v.at("road").is_array() || v.at("road").empty()) {
    bad(path + ".road",
        "expected a list of road profiles [{\"name\": ..., \"height\": "
        "\"formula of x\"} or {\"name\": ..., \"table\": [[x, h], ...]}]");
  }
  const json& road = v.at("road");
  for (size_t i = 0; i < road.size(); ++i) {
    const std::string rp = path + ".road[" + std::to_string(i) + "]";
    only_keys(road[i], {"name", "height", "table"}, rp);
    Profile profile;
    profile.name = road[i].value("name", "profile" + std::to_string(i + 1));
    if (road[i].contains("height") == road[i].contains("table")) {
      bad(rp, "give either \"height\" (a formula of x) or \"table\" ([[x, h], ...])");
    }
    if (road[i].contains("height")) {
      profile.height = quantity(road[i].at("height"), rp + ".height", false, {"x"});
    } else {
      const json& table = road[i].at("table");
      std::vector<double> xs, hs;
      if (!table.is_array() || table.size() < 4) {
        bad(rp + ".table", "expected at least 4 points [[x, h], ...]");
      }
      for (size_t k = 0; k < table.size(); ++k) {
        const json& row = table[k];
        const std::string kp = rp + ".table[" + std::to_string(k) + "]";
        if (!row.is_array() || row.size() != 2 || !row[0].is_number() || !row[1].is_number()) {
          bad(kp, "expected [x, h], got " + row.dump());
        }
        xs.push_back(row[0].get<double>());
        hs.push_back(row[1].get<double>());
        if (!std::isfinite(xs.back()) || !std::isfinite(hs.back())) bad(kp, "not finite");
        if (k > 0 && !(xs[k] > xs[k - 1])) bad(kp, "x must increase along the table");
      }
      profile.first = xs.front();
      profile.last = xs.back();
      profile.table = std::make_shared<boost::math::interpolators::pchip<std::vector<double>>>(
          std::move(xs), std::move(hs));
    }
    m.profiles.push_back(std::move(profile));
  }
  if (v.contains("select")) {
    const json& sel = v.at("select");
    if (!sel.is_string() || std::find(load_names_.begin(), load_names_.end(),
                                      sel.get<std::string>()) == load_names_.end()) {
      bad(path + ".select",
          "expected the name of a load-case parameter declared in "
          "\"load_parameters\", got " +
              sel.dump());
    }
    m.select = sel.get<std::string>();
  } else if (m.profiles.size() > 1) {
    bad(path + ".select", "missing: the load-case parameter that picks one of the " +
                              std::to_string(m.profiles.size()) + " profiles (1-based)");
  }
  if (!v.contains("speed")) bad(path + ".speed", "missing (m/s; may be an expression)");
  m.speed = quantity(v.at("speed"), path + ".speed");
  m.start = quantity(v.value("start", json(0.0)), path + ".start");
  return m;
}

int Multibody::body_index(const json& v, const std::string& path) const {
  if (!v.is_string()) bad(path, "expected a body name, got " + v.dump());
  const std::string name = v.get<std::string>();
  if (name == "ground") return -1;
  for (size_t i = 0; i < bodies_.size(); ++i) {
    if (bodies_[i].name == name) return static_cast<int>(i);
  }
  std::string known = "ground";
  for (const auto& b : bodies_) known += ", " + b.name;
  bad(path, "unknown body \"" + name + "\" (bodies: " + known + ")");
}

Point Multibody::point(int body, const json& v, const std::string& path) {
  if (!v.is_array() || v.size() != 2) bad(path, "expected [u, v], got " + v.dump());
  Point pt;
  pt.body = body;
  pt.u = quantity(v[0], path + "[0]");
  pt.v = quantity(v[1], path + "[1]");
  return pt;
}

Multibody::Multibody(const json& m, const std::string& path) {
  only_keys(m,
            {"analysis", "parameters", "load_parameters", "gravity", "bodies", "joints", "forces",
             "initial", "points", "integrals", "baumgarte", "max_step"},
            path);
  if (m.contains("analysis")) {
    if (m.at("analysis") == "kinematic") {
      dynamic_ = false;
    } else if (m.at("analysis") != "dynamic") {
      bad(path + ".analysis",
          "expected \"dynamic\" or \"kinematic\", got " + m.at("analysis").dump());
    }
  }
  if (m.contains("parameters")) {
    if (!m.at("parameters").is_object()) bad(path + ".parameters", "expected an object");
    for (const auto& [name, value] : m.at("parameters").items()) {
      if (!value.is_number()) bad(path + ".parameters." + name, "expected a number (its default)");
      parameter_names_.push_back(name);
      parameter_defaults_.push_back(value.get<double>());
    }
  }
  if (m.contains("load_parameters")) {
    const json& lp = m.at("load_parameters");
    if (!lp.is_object()) bad(path + ".load_parameters", "expected an object name -> default");
    for (const auto& [name, value] : lp.items()) {
      if (!value.is_number()) {
        bad(path + ".load_parameters." + name, "expected a number (its default)");
      }
      if (std::find(parameter_names_.begin(), parameter_names_.end(), name) !=
              parameter_names_.end() ||
          name == "t") {
        bad(path + ".load_parameters." + name, "already a model parameter or the time");
      }
      load_names_.push_back(name);
      load_defaults_.push_back(value.get<double>());
    }
  }
  symbols_.variables = parameter_names_;
  symbols_.variables.push_back("t");
  symbols_.variables.insert(symbols_.variables.end(), load_names_.begin(), load_names_.end());

  const json& bodies = array_at(m, "bodies", path, true);
  if (bodies.empty()) bad(path + ".bodies", "at least one body is needed");
  for (size_t i = 0; i < bodies.size(); ++i) {
    const std::string bp = at(path + ".bodies", i);
    const json& b = bodies[i];
    only_keys(b, {"name", "mass", "inertia", "position", "angle", "velocity", "angular_velocity"},
              bp);
    Body body;
    if (!b.contains("name") || !b.at("name").is_string()) bad(bp + ".name", "missing");
    body.name = b.at("name").get<std::string>();
    if (body.name == "ground") bad(bp + ".name", "\"ground\" is the fixed frame");
    for (const Body& other : bodies_) {
      if (other.name == body.name) bad(bp + ".name", "duplicate body \"" + body.name + "\"");
    }
    // Kinematic models need masses only for the joint reactions (inverse dynamics).
    if (dynamic_ && !b.contains("mass")) bad(bp + ".mass", "missing (a dynamic model needs it)");
    if (dynamic_ && !b.contains("inertia")) {
      bad(bp + ".inertia", "missing (a dynamic model needs it)");
    }
    body.mass = quantity(b.value("mass", json(0.0)), bp + ".mass");
    body.inertia = quantity(b.value("inertia", json(0.0)), bp + ".inertia");
    const json pos = b.value("position", json::array({0.0, 0.0}));
    const json vel = b.value("velocity", json::array({0.0, 0.0}));
    if (!pos.is_array() || pos.size() != 2) bad(bp + ".position", "expected [x, y]");
    if (!vel.is_array() || vel.size() != 2) bad(bp + ".velocity", "expected [vx, vy]");
    body.x = quantity(pos[0], bp + ".position[0]");
    body.y = quantity(pos[1], bp + ".position[1]");
    body.angle = quantity(b.value("angle", json(0.0)), bp + ".angle");
    body.vx = quantity(vel[0], bp + ".velocity[0]");
    body.vy = quantity(vel[1], bp + ".velocity[1]");
    body.omega = quantity(b.value("angular_velocity", json(0.0)), bp + ".angular_velocity");
    bodies_.push_back(body);
  }

  const json& joints = array_at(m, "joints", path);
  for (size_t i = 0; i < joints.size(); ++i) {
    const std::string jp = at(path + ".joints", i);
    const json& j = joints[i];
    Joint joint;
    joint.name = j.value("name", "joint" + std::to_string(i + 1));
    const std::string type = j.value("type", "");
    if (type == "driver") {
      only_keys(j, {"type", "name", "body", "coordinate", "motion"}, jp);
      joint.kind = JointKind::kDriver;
      joint.b = body_index(j.value("body", json()), jp + ".body");
      if (joint.b < 0) bad(jp + ".body", "the ground does not move");
      const json c = j.value("coordinate", json());
      joint.coordinate = c == "x" ? 0 : (c == "y" ? 1 : (c == "angle" ? 2 : -1));
      if (joint.coordinate < 0) {
        bad(jp + ".coordinate", "expected \"x\", \"y\" or \"angle\", got " + c.dump());
      }
      if (!j.contains("motion")) bad(jp + ".motion", "missing: an expression of t or a road");
      joint.motion = motion(j.at("motion"), jp + ".motion");
      joints_.push_back(joint);
      continue;
    }
    only_keys(j, {"type", "name", "bodies", "points", "axis", "angle", "distance"}, jp);
    if (type == "translational_driver") {
      joint.kind = JointKind::kTranslationalDriver;
      if (!j.contains("distance")) bad(jp + ".distance", "missing: an expression of t");
      if (j.contains("angle")) bad(jp + ".angle", "belongs to an angle driver or a joint");
      joint.distance = quantity(j.at("distance"), jp + ".distance", true);
    } else if (j.contains("distance")) {
      bad(jp + ".distance", "belongs to a translational_driver");
    }
    if (type == "revolute") {
      joint.kind = JointKind::kRevolute;
    } else if (type == "translational") {
      joint.kind = JointKind::kTranslational;
    } else if (type == "angle_driver") {
      joint.kind = JointKind::kAngleDriver;
    } else if (type == "fixed") {
      joint.kind = JointKind::kFixed;
    } else if (type != "translational_driver") {
      bad(jp + ".type",
          "expected \"revolute\", \"translational\", \"angle_driver\", "
          "\"translational_driver\", \"fixed\" or \"driver\", got " +
              j.value("type", json()).dump());
    }
    const json& bs = j.value("bodies", json());
    if (!bs.is_array() || bs.size() != 2) bad(jp + ".bodies", "expected [first, second]");
    joint.a = body_index(bs[0], jp + ".bodies[0]");
    joint.b = body_index(bs[1], jp + ".bodies[1]");
    if (joint.a == joint.b) bad(jp + ".bodies", "a joint connects two different bodies");
    const json pts =
        j.value("points", json::array({json::array({0.0, 0.0}), json::array({0.0, 0.0})}));
    if (!pts.is_array() || pts.size() != 2) bad(jp + ".points", "expected [[u, v], [u, v]]");
    joint.pa = point(joint.a, pts[0], jp + ".points[0]");
    joint.pb = point(joint.b, pts[1], jp + ".points[1]");
    joint.axis = quantity(j.value("axis", json(0.0)), jp + ".axis");
    joint.angle =
        quantity(j.value("angle", json(0.0)), jp + ".angle", joint.kind == JointKind::kAngleDriver);
    joints_.push_back(joint);
  }

  const json& forces = array_at(m, "forces", path);
  for (size_t i = 0; i < forces.size(); ++i) {
    const std::string fp = at(path + ".forces", i);
    const json& f = forces[i];
    Force force;
    force.name = f.value("name", "force" + std::to_string(i + 1));
    const std::string type = f.value("type", "");
    if (type == "spring_damper" || type == "rotational_spring_damper") {
      only_keys(f,
                {"type", "name", "bodies", "points", "stiffness", "damping", "length", "angle",
                 "force", "law", "damper"},
                fp);
      if (type != "spring_damper" && (f.contains("law") || f.contains("damper"))) {
        bad(fp, "\"law\" and \"damper\" belong to a spring_damper");
      }
      force.kind = type == "spring_damper" ? ForceKind::kSpringDamper : ForceKind::kRotational;
      const json& bs = f.value("bodies", json());
      if (!bs.is_array() || bs.size() != 2) bad(fp + ".bodies", "expected [first, second]");
      force.a = body_index(bs[0], fp + ".bodies[0]");
      force.b = body_index(bs[1], fp + ".bodies[1]");
      const json pts =
          f.value("points", json::array({json::array({0.0, 0.0}), json::array({0.0, 0.0})}));
      if (!pts.is_array() || pts.size() != 2) bad(fp + ".points", "expected [[u, v], [u, v]]");
      force.pa = point(force.a, pts[0], fp + ".points[0]");
      force.pb = point(force.b, pts[1], fp + ".points[1]");
      force.stiffness = quantity(f.value("stiffness", json(0.0)), fp + ".stiffness");
      force.damping = quantity(f.value("damping", json(0.0)), fp + ".damping");
      force.length =
          quantity(f.value(force.kind == ForceKind::kRotational ? "angle" : "length", json(0.0)),
                   fp + (force.kind == ForceKind::kRotational ? ".angle" : ".length"));
      force.preload = quantity(f.value("force", json(0.0)), fp + ".force");
      if (f.contains("law")) {
        force.has_law = true;
        force.law = quantity(f.at("law"), fp + ".law", false, {"d", "v"});
      }
      if (f.contains("damper")) {
        const std::string dp = fp + ".damper";
        const json& d = f.at("damper");
        only_keys(d, {"compression", "rebound", "weight"}, dp);
        force.has_damper = true;
        for (const char* stage : {"compression", "rebound"}) {
          const json& b = d.value(stage, json());
          if (!b.is_array() || b.size() != 4) {
            bad(dp + "." + stage, "expected [B0, B1, B2, B3] (bleed, preload, blow-off, port)");
          }
          Quantity* out = std::string(stage) == "compression" ? force.compression : force.rebound;
          for (int k = 0; k < 4; ++k) {
            out[k] = quantity(b[k], dp + "." + stage + "[" + std::to_string(k) + "]");
          }
        }
        force.weight = quantity(d.value("weight", json(1.0)), dp + ".weight", false, {"d"});
      }
    } else if (type == "point_force") {
      only_keys(f, {"type", "name", "body", "point", "force"}, fp);
      force.kind = ForceKind::kPointForce;
      force.b = body_index(f.value("body", json()), fp + ".body");
      if (force.b < 0) bad(fp + ".body", "a force on the ground does nothing");
      force.pb = point(force.b, f.value("point", json::array({0.0, 0.0})), fp + ".point");
      const json fv = f.value("force", json());
      if (!fv.is_array() || fv.size() != 2) bad(fp + ".force", "expected [fx, fy]");
      force.fx = quantity(fv[0], fp + ".force[0]", true);
      force.fy = quantity(fv[1], fp + ".force[1]", true);
    } else {
      bad(fp + ".type",
          "expected \"spring_damper\", \"rotational_spring_damper\" or "
          "\"point_force\", got " +
              f.value("type", json()).dump());
    }
    forces_.push_back(force);
  }

  if (m.contains("max_step")) {
    has_max_step_ = true;
    max_step_ = quantity(m.at("max_step"), path + ".max_step");
  }
  const json g = m.value("gravity", json::array({0.0, -9.81}));
  if (!g.is_array() || g.size() != 2) bad(path + ".gravity", "expected [gx, gy]");
  gx_ = quantity(g[0], path + ".gravity[0]");
  gy_ = quantity(g[1], path + ".gravity[1]");
  if (m.contains("baumgarte")) {
    only_keys(m.at("baumgarte"), {"alpha", "beta"}, path + ".baumgarte");
    alpha_ = m.at("baumgarte").value("alpha", alpha_);
    beta_ = m.at("baumgarte").value("beta", beta_);
  }

  const json& init = array_at(m, "initial", path);
  for (size_t i = 0; i < init.size(); ++i) {
    const std::string ip = at(path + ".initial", i);
    only_keys(init[i], {"body", "x", "y", "angle"}, ip);
    const int body = body_index(init[i].value("body", json()), ip + ".body");
    if (body < 0) bad(ip + ".body", "the ground does not move");
    int count = 0;
    for (int c = 0; c < 3; ++c) {
      const char* key = c == 0 ? "x" : (c == 1 ? "y" : "angle");
      if (!init[i].contains(key)) continue;
      ++count;
      const Body& b = bodies_[body];
      initial_conditions_.push_back({body, c, quantity(init[i].at(key), ip + "." + key),
                                     c == 0 ? b.vx : (c == 1 ? b.vy : b.omega)});
    }
    if (count == 0) bad(ip, "give \"x\", \"y\" or \"angle\"");
  }

  const int m_eq = n_constraints();
  if (!dynamic_ && m_eq != nq()) {
    bad(path + ".joints", "a kinematic model must be driven: " + std::to_string(m_eq) +
                              " constraint equations for " + std::to_string(nq()) +
                              " coordinates (add drivers or use \"analysis\": \"dynamic\")");
  }
  if (dynamic_ && m_eq > nq()) {
    bad(path + ".joints", std::to_string(m_eq) + " constraint equations for " +
                              std::to_string(nq()) + " coordinates: over-constrained");
  }
  if (dynamic_ && !init.empty() && m_eq + static_cast<int>(initial_conditions_.size()) != nq()) {
    bad(path + ".initial", "assembly needs " + std::to_string(nq() - m_eq) +
                               " initial conditions (the degrees of freedom), got " +
                               std::to_string(initial_conditions_.size()));
  }

  for (const Body& b : bodies_) {
    for (const char* c : kCoordinates) history_names_.push_back(b.name + "." + c);
  }
  for (const Force& f : forces_) {
    if (f.kind != ForceKind::kSpringDamper) continue;
    for (const char* c : {"length", "velocity", "force"})
      history_names_.push_back(f.name + "." + c);
  }
  for (const Joint& j : joints_) {
    for (const char* c : {"fx", "fy", "torque"}) history_names_.push_back(j.name + "." + c);
  }
  const json& markers = array_at(m, "points", path);
  for (size_t i = 0; i < markers.size(); ++i) {
    const std::string mp = at(path + ".points", i);
    only_keys(markers[i], {"name", "body", "at"}, mp);
    Marker marker;
    marker.name = markers[i].value("name", "");
    if (marker.name.empty()) bad(mp + ".name", "missing");
    if (std::find(history_names_.begin(), history_names_.end(), marker.name + ".x") !=
        history_names_.end()) {
      bad(mp + ".name", "\"" + marker.name + "\" already names a body or another point");
    }
    const int body = body_index(markers[i].value("body", json()), mp + ".body");
    marker.at = point(body, markers[i].value("at", json::array({0.0, 0.0})), mp + ".at");
    markers_.push_back(marker);
    for (const char* c : kPointComponents) history_names_.push_back(marker.name + "." + c);
  }

  // Integrands see the parameters, t and every body coordinate and velocity.
  expr::Symbols integrand_symbols = symbols_;
  for (const Body& b : bodies_) {
    for (int c = 0; c < 6; ++c)
      integrand_symbols.variables.push_back(b.name + "_" + kCoordinates[c]);
  }
  const json& integrals = array_at(m, "integrals", path);
  for (size_t i = 0; i < integrals.size(); ++i) {
    const std::string ip = at(path + ".integrals", i);
    only_keys(integrals[i], {"name", "integrand"}, ip);
    Integral integral;
    integral.name = integrals[i].value("name", "");
    if (integral.name.empty()) bad(ip + ".name", "missing");
    if (!dynamic_) bad(ip, "integrals need a dynamic analysis");
    try {
      integral.integrand =
          expr::bind(expr::parse(integrals[i].value("integrand", "")), integrand_symbols, -1);
    } catch (const expr::Error& e) {
      bad(ip + ".integrand", e.what());
    }
    integrals_.push_back(integral);
  }

  // What every element reads (for the element-by-element linearisation of a run).
  for (Body& b : bodies_) {
    for (const Quantity* q : {&b.mass, &b.inertia, &gx_, &gy_}) b.reads.add(*q);
    b.reads.finish();
  }
  for (Joint& j : joints_) {
    for (const Quantity* q : {&j.pa.u, &j.pa.v, &j.pb.u, &j.pb.v, &j.axis, &j.angle, &j.distance,
                              &j.motion.value, &j.motion.speed, &j.motion.start}) {
      j.reads.add(*q);
    }
    for (const Profile& profile : j.motion.profiles) j.reads.add(profile.height);
    j.reads.finish();
  }
  for (Force& f : forces_) {
    for (const Quantity* q : {&f.pa.u, &f.pa.v, &f.pb.u, &f.pb.v, &f.stiffness, &f.damping,
                              &f.length, &f.preload, &f.fx, &f.fy, &f.law, &f.weight}) {
      f.reads.add(*q);
    }
    for (int k = 0; k < 4; ++k) {
      f.reads.add(f.compression[k]);
      f.reads.add(f.rebound[k]);
    }
    f.reads.finish();
  }
}

// ---------------------------------------------------------------------------------------
// Equations

template <class S>
S Multibody::motion_at(const Motion& m, const Env<S>& env) const {
  if (m.profiles.empty()) return m.value.at(env);
  const LoadCaseSpec& lc = *env.lc;
  size_t which = 0;
  if (!m.select.empty()) {
    const auto it = lc.parameters.find(m.select);
    const double k =
        it != lc.parameters.end()
            ? it->second
            : load_defaults_[std::find(load_names_.begin(), load_names_.end(), m.select) -
                             load_names_.begin()];
    if (!(k >= 1 && k <= static_cast<double>(m.profiles.size())) || k != std::floor(k)) {
      std::ostringstream why;
      why << "load case \"" << lc.name << "\": " << m.select << " = " << k
          << " does not pick one of the " << m.profiles.size() << " road profiles (1-based)";
      throw std::runtime_error(why.str());
    }
    which = static_cast<size_t>(k) - 1;
  }
  const Profile& profile = m.profiles[which];
  const S x = m.speed.at(env) * env.t - m.start.at(env);
  if (!profile.table) return profile.height.at(env, {x});
  const double xv = std::clamp(value_of(x), profile.first, profile.last);
  const double h = (*profile.table)(xv);
  if constexpr (std::is_same_v<S, double>) {
    return h;
  } else {
    const bool inside = value_of(x) > profile.first && value_of(x) < profile.last;
    return S(h, (inside ? profile.table->prime(xv) : 0.0) * x.derivatives());
  }
}

template <class S>
void Multibody::joint_terms(const Joint& j, const S* q, const S* qd, const Env<S>& env,
                            JointTerms<S>& out) const {
  for (int k = 0; k < j.equations(); ++k) {
    out.phi[k] = C<S>(0.0);
    out.phi_t[k] = C<S>(0.0);
    out.gamma[k] = C<S>(0.0);
    for (int c = 0; c < 6; ++c) out.phi_q[k][c] = S(0.0);  // for AD: no derivative vector yet
  }
  // Global position of a point, A s, and B s = dA/dtheta s.
  struct At {
    S rx, ry, asx, asy, bsx, bsy;
  };
  auto locate = [&](const Point& pt) {
    const Pose<S> ps = pose(pt.body, q);
    const S u = pt.u.at(env), w = pt.v.at(env);
    At r;
    r.asx = ps.c * u - ps.s * w;
    r.asy = ps.s * u + ps.c * w;
    r.bsx = -r.asy;
    r.bsy = r.asx;
    r.rx = ps.x + r.asx;
    r.ry = ps.y + r.asy;
    return r;
  };
  // d Phi_r / d (coordinate c of `body`), body a or b of the joint.
  auto add_q = [&](int r, int body, int c, const S& value) {
    if (body >= 0) out.phi_q[r][(body == j.a ? 0 : 3) + c] += value;
  };
  // Rows r, r + 1: the points pa of body a and pb of body b coincide (revolute, fixed).
  auto coincide = [&](int r, const S& wa, const S& wb) {
    const At a = locate(j.pa), b = locate(j.pb);
    out.phi[r] = a.rx - b.rx;
    out.phi[r + 1] = a.ry - b.ry;
    add_q(r, j.a, 0, C<S>(1.0));
    add_q(r, j.a, 2, a.bsx);
    add_q(r + 1, j.a, 1, C<S>(1.0));
    add_q(r + 1, j.a, 2, a.bsy);
    add_q(r, j.b, 0, C<S>(-1.0));
    add_q(r, j.b, 2, -b.bsx);
    add_q(r + 1, j.b, 1, C<S>(-1.0));
    add_q(r + 1, j.b, 2, -b.bsy);
    out.gamma[r] = a.asx * wa * wa - b.asx * wb * wb;
    out.gamma[r + 1] = a.asy * wa * wa - b.asy * wb * wb;
  };
  // Row r: theta_b - theta_a - angle = 0 (translational, angle driver, fixed).
  auto relative_angle = [&](int r, const S& angle) {
    const S ta = j.a >= 0 ? q[3 * j.a + 2] : C<S>(0.0), tb = j.b >= 0 ? q[3 * j.b + 2] : C<S>(0.0);
    out.phi[r] = tb - ta - angle;
    add_q(r, j.b, 2, C<S>(1.0));
    add_q(r, j.a, 2, C<S>(-1.0));
  };
  // Row r: g' (r_Pb - r_Pa) = 0 with g = A_a (gx, gy) fixed in body a (translational joints
  // and their drivers).
  auto along = [&](int r, const S& glx, const S& gly, const S& wa, const S& wb) {
    const Pose<S> pa = pose(j.a, q);
    const S nx = pa.c * glx - pa.s * gly, ny = pa.s * glx + pa.c * gly;  // A g
    const S bnx = -ny, bny = nx;                                         // B g
    const At a = locate(j.pa), b = locate(j.pb);
    const S dx = b.rx - a.rx, dy = b.ry - a.ry;
    out.phi[r] = nx * dx + ny * dy;
    add_q(r, j.a, 0, -nx);
    add_q(r, j.a, 1, -ny);
    add_q(r, j.a, 2, bnx * dx + bny * dy - (nx * a.bsx + ny * a.bsy));
    add_q(r, j.b, 0, nx);
    add_q(r, j.b, 1, ny);
    add_q(r, j.b, 2, nx * b.bsx + ny * b.bsy);
    // d' = velocity of Pb - velocity of Pa.
    auto vel = [&](int body, const At& at) {
      const S vx = body >= 0 ? qd[3 * body] : C<S>(0.0),
              vy = body >= 0 ? qd[3 * body + 1] : C<S>(0.0);
      const S w = omega(body, qd);
      return std::pair<S, S>(vx + at.bsx * w, vy + at.bsy * w);
    };
    const auto [vax, vay] = vel(j.a, a);
    const auto [vbx, vby] = vel(j.b, b);
    const S ddx = vbx - vax, ddy = vby - vay;
    // gamma = -(terms of Phi'' without q''): g'' = B g theta_a'' - g w_a^2, and
    // r_P'' = R'' + B s theta'' - A s w^2.
    const S rest = -(nx * dx + ny * dy) * wa * wa + 2.0 * wa * (bnx * ddx + bny * ddy) +
                   nx * (-b.asx * wb * wb + a.asx * wa * wa) +
                   ny * (-b.asy * wb * wb + a.asy * wa * wa);
    out.gamma[r] = -rest;
  };
  const S wa = omega(j.a, qd), wb = omega(j.b, qd);
  switch (j.kind) {
    case JointKind::kRevolute:
      coincide(0, wa, wb);
      break;
    case JointKind::kTranslational: {
      // theta_b - theta_a - angle = 0, and n' (r_Pb - r_Pa) = 0 with n normal to the axis.
      relative_angle(0, j.angle.at(env));
      const S ax = j.axis.at(env);
      using std::cos;
      using std::sin;
      along(1, -sin(ax), cos(ax), wa, wb);
      break;
    }
    case JointKind::kAngleDriver:
    case JointKind::kTranslationalDriver:
    case JointKind::kDriver: {
      // f(t), and f', f'' by central differences of the motion (h = 1e-4 (1 + |t|)).
      const double h = 1e-4 * (1.0 + std::abs(env.t));
      auto f_of = [&](const Env<S>& e) {
        switch (j.kind) {
          case JointKind::kDriver:
            return motion_at(j.motion, e);
          case JointKind::kTranslationalDriver:
            return j.distance.at(e);
          default:
            return j.angle.at(e);
        }
      };
      Env<S> shifted = env;  // one copy of the symbols for both neighbours in t
      shifted.set_time(env.t + h);
      const S f = f_of(env), fp = f_of(shifted);
      shifted.set_time(env.t - h);
      const S fm = f_of(shifted);
      if (j.kind == JointKind::kAngleDriver) {
        relative_angle(0, f);
      } else if (j.kind == JointKind::kTranslationalDriver) {
        // e' (r_Pb - r_Pa) - f(t) = 0 with e along the axis.
        const S ax = j.axis.at(env);
        using std::cos;
        using std::sin;
        along(0, cos(ax), sin(ax), wa, wb);
        out.phi[0] -= f;
      } else {
        out.phi[0] = q[3 * j.b + j.coordinate] - f;
        add_q(0, j.b, j.coordinate, C<S>(1.0));
      }
      out.phi_t[0] = -(fp - fm) / (2.0 * h);
      out.gamma[0] += (fp - 2.0 * f + fm) / (h * h);
      break;
    }
    case JointKind::kFixed:
      coincide(0, wa, wb);
      relative_angle(2, j.angle.at(env));
      break;
  }
}

template <class S>
S Multibody::stabilised_gamma(const Joint& j, const JointTerms<S>& terms, int k,
                              const S* qd) const {
  S phi_dot = terms.phi_t[k];
  for_each_column(j.a, j.b,
                  [&](int local, int col) { phi_dot += terms.phi_q[k][local] * qd[col]; });
  return terms.gamma[k] - (2.0 * alpha_) * phi_dot - (beta_ * beta_) * terms.phi[k];
}

template <class S>
void Multibody::force_terms(const Force& f, const S* q, const S* qd, const Env<S>& env, S* fa,
                            S* fb) const {
  for (int c = 0; c < 3; ++c) fa[c] = fb[c] = C<S>(0.0);
  // A force (fx, fy) at point pt: Q_R += F, Q_theta += (B s)' F.
  auto apply = [&](const Point& pt, S* to, const S& fx, const S& fy) {
    if (pt.body < 0) return;
    const Pose<S> ps = pose(pt.body, q);
    const S u = pt.u.at(env), w = pt.v.at(env);
    const S bsx = -(ps.s * u + ps.c * w), bsy = ps.c * u - ps.s * w;
    to[0] += fx;
    to[1] += fy;
    to[2] += bsx * fx + bsy * fy;
  };
  switch (f.kind) {
    case ForceKind::kSpringDamper: {
      S length, velocity, tension, ux, uy;
      spring_state(f, q, qd, env, length, velocity, tension, ux, uy);
      apply(f.pa, fa, tension * ux, tension * uy);
      apply(f.pb, fb, -tension * ux, -tension * uy);
      break;
    }
    case ForceKind::kRotational: {
      const S ta = f.a >= 0 ? q[3 * f.a + 2] : C<S>(0.0),
              tb = f.b >= 0 ? q[3 * f.b + 2] : C<S>(0.0);
      const S torque = f.stiffness.at(env) * (tb - ta - f.length.at(env)) +
                       f.damping.at(env) * (omega(f.b, qd) - omega(f.a, qd)) + f.preload.at(env);
      fb[2] -= torque;
      fa[2] += torque;
      break;
    }
    case ForceKind::kPointForce:
      apply(f.pb, fb, f.fx.at(env), f.fy.at(env));
      break;
  }
}

template <class S>
void Multibody::body_terms(const Body& b, const Env<S>& env, S* mass, S* weight) const {
  const S m = b.mass.at(env);
  mass[0] = m;
  mass[1] = m;
  mass[2] = b.inertia.at(env);
  weight[0] = m * gx_.at(env);
  weight[1] = m * gy_.at(env);
}

template <class S, class Visit>
void Multibody::joint_rows(const S* q, const S* qd, const Env<S>& env, Mat<S>& phi_q,
                           Visit visit) const {
  phi_q = Mat<S>::Constant(n_constraints(), nq(), S(0.0));  // for AD: no derivatives until written
  JointTerms<S> terms;
  int row = 0;
  for (const Joint& j : joints_) {
    joint_terms(j, q, qd, env, terms);
    for (int k = 0; k < j.equations(); ++k) {
      for_each_column(j.a, j.b,
                      [&](int local, int col) { phi_q(row + k, col) = terms.phi_q[k][local]; });
      visit(row + k, j, terms, k);
    }
    row += j.equations();
  }
}

template <class S>
void Multibody::constraints(const S* q, const S* qd, const Env<S>& env, Vec<S>& phi, Mat<S>& phi_q,
                            Vec<S>& phi_t, Vec<S>& gamma) const {
  const int m = n_constraints();
  phi.resize(m);
  phi_t.resize(m);
  gamma.resize(m);
  joint_rows(q, qd, env, phi_q, [&](int row, const Joint&, const JointTerms<S>& terms, int k) {
    phi(row) = terms.phi[k];
    phi_t(row) = terms.phi_t[k];
    gamma(row) = terms.gamma[k];
  });
}

template <class S>
void Multibody::mass_and_forces(const S* q, const S* qd, const Env<S>& env, Vec<S>& mass,
                                Vec<S>& Q) const {
  mass.resize(nq());
  Q = Vec<S>::Constant(nq(), C<S>(0.0));
  S m[3], weight[2], fa[3], fb[3];
  for (size_t i = 0; i < bodies_.size(); ++i) {
    body_terms(bodies_[i], env, m, weight);
    for (int c = 0; c < 3; ++c) mass(3 * i + c) = m[c];
    Q(3 * i) += weight[0];
    Q(3 * i + 1) += weight[1];
  }
  for (const Force& f : forces_) {
    force_terms(f, q, qd, env, fa, fb);
    for_each_column(f.a, f.b,
                    [&](int local, int col) { Q(col) += local < 3 ? fa[local] : fb[local - 3]; });
  }
}

template <class S>
void Multibody::spring_state(const Force& f, const S* q, const S* qd, const Env<S>& env, S& length,
                             S& velocity, S& tension, S& ux, S& uy) const {
  using std::sqrt;
  auto where = [&](const Point& pt, S& x, S& y, S& vx, S& vy) {
    const Pose<S> ps = pose(pt.body, q);
    const S u = pt.u.at(env), w = pt.v.at(env);
    const S asx = ps.c * u - ps.s * w, asy = ps.s * u + ps.c * w;
    x = ps.x + asx;
    y = ps.y + asy;
    const S om = omega(pt.body, qd);
    vx = (pt.body >= 0 ? qd[3 * pt.body] : C<S>(0.0)) - asy * om;
    vy = (pt.body >= 0 ? qd[3 * pt.body + 1] : C<S>(0.0)) + asx * om;
  };
  S xa, ya, vxa, vya, xb, yb, vxb, vyb;
  where(f.pa, xa, ya, vxa, vya);
  where(f.pb, xb, yb, vxb, vyb);
  const S dx = xb - xa, dy = yb - ya;
  length = sqrt(dx * dx + dy * dy);
  if (value_of(length) == 0.0)
    throw std::runtime_error("spring-damper " + f.name + " has zero length");
  ux = dx / length;
  uy = dy / length;
  velocity = ux * (vxb - vxa) + uy * (vyb - vya);
  const S d = length - f.length.at(env);
  tension = f.stiffness.at(env) * d + f.damping.at(env) * velocity + f.preload.at(env);
  if (f.has_damper) {
    // Rebound (extension, v > 0) or compression stage, weighted by a function of d.
    const Quantity* b = value_of(velocity) > 0.0 ? f.rebound : f.compression;
    tension += f.weight.at(env, {d}) *
               damper_stage(velocity, b[0].at(env), b[1].at(env), b[2].at(env), b[3].at(env));
  }
  if (f.has_law) tension += f.law.at(env, {d, velocity});
}

// x = A^-1 b; for AD scalars through the derivative of the solution, dx = A^-1 (db - dA x).
template <class S>
bool solve(const Mat<S>& A, const Vec<S>& b, Vec<S>& x) {
  Eigen::MatrixXd Av(A.rows(), A.cols());
  Eigen::VectorXd bv(b.size());
  for (Eigen::Index i = 0; i < A.rows(); ++i) {
    for (Eigen::Index j = 0; j < A.cols(); ++j) Av(i, j) = value_of(A(i, j));
    bv(i) = value_of(b(i));
  }
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(Av);
  if (!regular(lu)) return false;
  const Eigen::VectorXd xv = lu.solve(bv);
  if constexpr (std::is_same_v<S, double>) {
    x = xv;
  } else {
    Eigen::Index size = 0;
    for (Eigen::Index i = 0; i < b.size(); ++i) size = std::max(size, b(i).derivatives().size());
    for (Eigen::Index i = 0; i < A.size(); ++i) size = std::max(size, A(i).derivatives().size());
    auto d = [size](const AD& a, Eigen::Index k) {
      return a.derivatives().size() == size ? a.derivatives()(k) : 0.0;
    };
    Eigen::MatrixXd dx(xv.size(), size);
    for (Eigen::Index k = 0; k < size; ++k) {
      Eigen::VectorXd r(bv.size());
      for (Eigen::Index i = 0; i < A.rows(); ++i) {
        r(i) = d(b(i), k);
        for (Eigen::Index j = 0; j < A.cols(); ++j) r(i) -= d(A(i, j), k) * xv(j);
      }
      dx.col(k) = lu.solve(r);
    }
    x.resize(xv.size());
    for (Eigen::Index i = 0; i < xv.size(); ++i) x(i) = AD(xv(i), dx.row(i).transpose());
  }
  return true;
}

template <class S>
S Multibody::reaction(int joint, int component, const Mat<S>& phi_q, const Vec<S>& lambda) const {
  int row = 0;
  for (int i = 0; i < joint; ++i) row += joints_[i].equations();
  const Joint& j = joints_[joint];
  const int on = j.b >= 0 ? j.b : j.a;
  S r = C<S>(0.0);
  if (on < 0) return r;
  // The rows of the relative angle (or of a driven angle) carry the torque.
  int angle_row = -1;
  switch (j.kind) {
    case JointKind::kTranslational:
    case JointKind::kAngleDriver:
      angle_row = row;
      break;
    case JointKind::kFixed:
      angle_row = row + 2;
      break;
    case JointKind::kDriver:
      if (j.coordinate == 2) angle_row = row;
      break;
    case JointKind::kRevolute:
    case JointKind::kTranslationalDriver:
      break;
  }
  if (component == 2) {
    if (angle_row >= 0) r -= phi_q(angle_row, 3 * on + 2) * lambda(angle_row);
    return r;
  }
  for (int k = row; k < row + j.equations(); ++k) {
    if (k != angle_row) r -= phi_q(k, 3 * on + component) * lambda(k);
  }
  return r;
}

template <class S>
void Multibody::augmented(const S* q, const S* qd, const Env<S>& env, Vec<S>& mass, Mat<S>& phi_q,
                          Vec<S>& rhs) const {
  const int n = nq();
  Vec<S> Q;
  mass_and_forces(q, qd, env, mass, Q);
  rhs.resize(n + n_constraints());
  rhs.head(n) = Q;
  // Baumgarte stabilisation of the acceleration constraints.
  joint_rows(q, qd, env, phi_q, [&](int row, const Joint& j, const JointTerms<S>& terms, int k) {
    rhs(n + row) = stabilised_gamma(j, terms, k, qd);
  });
}

template <class S>
bool Multibody::accelerations(const S* q, const S* qd, const Env<S>& env, Vec<S>& qdd,
                              Vec<S>* lambda, Mat<S>* jacobian) const {
  const int n = nq(), m = n_constraints();
  Vec<S> mass, rhs;
  Mat<S> phi_q;
  augmented(q, qd, env, mass, phi_q, rhs);
  Vec<S> z;
  if constexpr (std::is_same_v<S, double>) {
    AugmentedSolver solver;
    if (!solver.factor(mass, phi_q)) return false;
    z = solver.solve(rhs);
  } else if (!solve(augmented_matrix(mass, phi_q), rhs, z)) {
    return false;
  }
  qdd = z.head(n);
  if (lambda) *lambda = z.tail(m);
  if (jacobian) *jacobian = phi_q;
  return true;
}

// f = (q', q'') with A(x, p) z = r(x, p), z = (q'', multipliers): at the solution z,
// d q''/d(x, p) = [I 0] A^-1 G with G = d(r - A z)/d(x, p) for z held, so the derivatives
// of the assembly (no AD through the solve) give the Jacobian, and any lambda' [f_x | f_p]
// costs one solve with A' (= A) and a product with G.
class AugmentedLinearization final : public OdeModel::Linearization {
 public:
  AugmentedLinearization(int n, AugmentedSolver solver, Eigen::MatrixXd gt)
      : n_(n), solver_(std::move(solver)), gt_(std::move(gt)) {}

  void jacobian(Eigen::MatrixXd& out) const override {
    out.setZero(2 * n_, gt_.rows());
    out.block(0, n_, n_, n_).setIdentity();  // (q')' = q'
    out.bottomRows(n_) = solver_.solve(gt_.transpose()).topRows(n_);
  }
  void vector_jacobian(const double* lambda, Eigen::VectorXd& out) const override {
    Eigen::VectorXd top = Eigen::VectorXd::Zero(gt_.cols());
    top.head(n_) = Eigen::Map<const Eigen::VectorXd>(lambda + n_, n_);
    const Eigen::VectorXd w = solver_.solve(top);
    out.noalias() = gt_ * w;
    out.segment(n_, n_) += Eigen::Map<const Eigen::VectorXd>(lambda, n_);
  }

 private:
  int n_;
  AugmentedSolver solver_;
  Eigen::MatrixXd gt_;  // G': (2n + na) x (n + m)
};

// One run of a dynamic model: the model at parameters p in load case lc, differentiated with
// respect to the parameters `active`. The quantities that depend on the parameters only are
// evaluated once, here, with their derivatives; the linearisation goes element by element
// (every body, force and joint), each in LocalAD seeded on its own coordinates and the active
// parameters it reads, in chunks of at most kLocal directions: its cost grows with the size of
// the model, not with the number of design variables, and allocates nothing per operation.
class Multibody::Run final : public OdeModel::Instance {
 public:
  Run(const Multibody& model, const Eigen::VectorXd& p, const LoadCaseSpec& lc,
      const std::vector<int>& active)
      : model_(model),
        p_(p),
        n_(model.nq()),
        m_(model.n_constraints()),
        width_(2 * model.nq() + static_cast<int>(active.size())),
        position_(p.size(), -1),
        direction_(active.size(), -1) {
    for (size_t a = 0; a < active.size(); ++a) position_[active[a]] = static_cast<int>(a);
    env_ = model.vars(p.data(), lc.grid.start, lc);
    // The frozen quantities: values, and derivatives in the active parameters.
    frozen_.value.resize(model.frozen_.size());
    frozen_.gradient.resize(model.frozen_.size());
    Eigen::VectorXd g(static_cast<Eigen::Index>(env_.symbols.size()));
    const Values symbols(env_.symbols);
    for (size_t k = 0; k < model.frozen_.size(); ++k) {
      expr::Evaluator evaluator(*model.frozen_[k], symbols);
      if (active.empty()) {
        frozen_.value[k] = evaluator.value();
        continue;
      }
      frozen_.value[k] = evaluator.value(0, g);
      for (int i = 0; i < static_cast<int>(p.size()); ++i) {
        if (position_[i] >= 0 && g(i) != 0.0) frozen_.gradient[k].push_back({position_[i], g(i)});
      }
    }
    env_.frozen = &frozen_;
    // The columns of G' each element's derivatives go to: the coordinates and velocities of
    // its bodies, then the active parameters it reads.
    auto columns = [&](int a, int b, const Reads& reads) {
      std::vector<int> out;
      for_each_column(a, b, [&](int, int col) { out.push_back(col); });
      for_each_column(a, b, [&](int, int col) { out.push_back(n_ + col); });
      for (int i : reads.parameters) {
        if (position_[i] >= 0) out.push_back(2 * n_ + position_[i]);
      }
      return out;
    };
    for (const Body& b : model.bodies_) body_columns_.push_back(columns(-1, -1, b.reads));
    for (const Joint& j : model.joints_) joint_columns_.push_back(columns(j.a, j.b, j.reads));
    for (const Force& f : model.forces_) force_columns_.push_back(columns(f.a, f.b, f.reads));
    q_.resize(n_);
    qd_.resize(n_);
  }

  int rhs(double t, const double* x, double* xdot) override {
    if (!solve_at(t, x)) return 1;  // singular: let CVODES retry with a smaller step
    for (int i = 0; i < n_; ++i) {
      xdot[i] = x[n_ + i];
      xdot[n_ + i] = z_(i);
    }
    return 0;
  }

  std::unique_ptr<OdeModel::Linearization> linearize(double t, const double* x) override {
    if (!solve_at(t, x)) {
      throw std::runtime_error(model_.singular_motion(t, x, p_.data(), *env_.lc));
    }
    gt_.setZero(width_, n_ + m_);  // G', a column per equation
    // Bodies: the weight, and -M q'' with q'' held, in their force rows.
    for (size_t i = 0; i < model_.bodies_.size(); ++i) {
      const Body& b = model_.bodies_[i];
      by_chunks(body_columns_[i], -1, -1, b.reads, x, [&](const Env<LocalAD>& env) {
        LocalAD mass[3], weight[2];
        model_.body_terms(b, env, mass, weight);
        const int r = 3 * static_cast<int>(i);
        add(r, weight[0], 1.0);
        add(r + 1, weight[1], 1.0);
        for (int d = 0; d < 3; ++d) add(r + d, mass[d], -z_(r + d));
      });
    }
    // Force elements: their generalised forces.
    for (size_t e = 0; e < model_.forces_.size(); ++e) {
      const Force& f = model_.forces_[e];
      by_chunks(force_columns_[e], f.a, f.b, f.reads, x, [&](const Env<LocalAD>& env) {
        LocalAD fa[3], fb[3];
        model_.force_terms(f, q_.data(), qd_.data(), env, fa, fb);
        for_each_column(f.a, f.b, [&](int local, int col) {
          add(col, local < 3 ? fa[local] : fb[local - 3], 1.0);
        });
      });
    }
    // Joints: their stabilised rows minus Phi_q q'', and -Phi_q' multipliers in the force rows.
    int row = 0;
    for (size_t e = 0; e < model_.joints_.size(); ++e) {
      const Joint& j = model_.joints_[e];
      by_chunks(joint_columns_[e], j.a, j.b, j.reads, x, [&](const Env<LocalAD>& env) {
        JointTerms<LocalAD> terms;
        model_.joint_terms(j, q_.data(), qd_.data(), env, terms);
        for (int r = 0; r < j.equations(); ++r) {
          LocalAD g = model_.stabilised_gamma(j, terms, r, qd_.data());
          for_each_column(j.a, j.b, [&](int local, int col) {
            if (has_derivatives(terms.phi_q[r][local])) g -= terms.phi_q[r][local] * z_(col);
          });
          add(n_ + row + r, g, 1.0);
          for_each_column(j.a, j.b, [&](int local, int col) {
            add(col, terms.phi_q[r][local], -z_(n_ + row + r));
          });
        }
      });
      row += j.equations();
    }
    return std::make_unique<AugmentedLinearization>(n_, solver_, gt_);
  }

  void integrands(double t, const double* x, double* g) override {
    env_.set_time(t);
    const std::vector<double> symbols = model_.integrand_symbols(env_, x);
    for (size_t k = 0; k < model_.integrals_.size(); ++k) {
      g[k] = evaluate(*model_.integrals_[k].integrand, symbols);
    }
  }

  // The integrands' own gradients in their symbols, mapped onto (x, p_active): no AD needed.
  void integrand_jacobian(double t, const double* x, Eigen::MatrixXd& jac) override {
    env_.set_time(t);
    const std::vector<double> symbols = model_.integrand_symbols(env_, x);
    const auto size = static_cast<Eigen::Index>(symbols.size());
    const int first_coordinate = static_cast<int>(env_.symbols.size());
    jac.setZero(static_cast<Eigen::Index>(model_.integrals_.size()), width_);
    Eigen::VectorXd g(size);
    for (size_t k = 0; k < model_.integrals_.size(); ++k) {
      expr::Evaluator(*model_.integrals_[k].integrand, Values(symbols)).value(0, g);
      const auto row = static_cast<Eigen::Index>(k);
      for (int i = 0; i < static_cast<int>(position_.size()); ++i) {
        if (position_[i] >= 0) jac(row, 2 * n_ + position_[i]) = g(i);
      }
      for (int b = 0; b < n_ / 3; ++b) {
        for (int c = 0; c < 6; ++c) {
          const int col = c < 3 ? 3 * b + c : n_ + 3 * b + c - 3;
          jac(row, col) = g(first_coordinate + 6 * b + c);
        }
      }
    }
  }

 private:
  // The augmented system at (t, x), factored, and its solution z_; false when singular.
  bool solve_at(double t, const double* x) {
    env_.set_time(t);
    model_.augmented(x, x + n_, env_, mass_, phi_q_, r_);
    if (!solver_.factor(mass_, phi_q_)) return false;
    z_ = solver_.solve(r_);
    return true;
  }

  // A value of the current chunk without a derivative vector was not written by the element.
  bool has_derivatives(const LocalAD& value) const {
    return value.derivatives().size() == chunk_count_;
  }
  // d(value)/d(the current chunk's directions) into column `equation` of G', times `factor`.
  void add(int equation, const LocalAD& value, double factor) {
    if (!has_derivatives(value)) return;
    for (int l = 0; l < chunk_count_; ++l) {
      gt_(chunk_columns_[l], equation) += factor * value.derivatives()(l);
    }
  }
  // Calls evaluate(env) once per chunk of at most kLocal of an element's directions `columns`
  // (coordinates and velocities of its bodies a and b, then active parameters), with q_, qd_
  // and the parameters seeded on the chunk's directions, which `add` maps back to G'.
  template <class Evaluate>
  void by_chunks(const std::vector<int>& columns, int a, int b, const Reads& reads, const double* x,
                 Evaluate evaluate) {
    const int total = static_cast<int>(columns.size());
    for (int first = 0; first < total; first += kLocal) {
      const int count = std::min(kLocal, total - first);
      ad_size = count;
      // The element's coordinates and velocities, seeded where their column is in the chunk.
      for_each_column(a, b, [&](int, int col) {
        q_[col] = LocalAD(x[col], LocalAD::DerType::Zero(count));
        qd_[col] = LocalAD(x[n_ + col], LocalAD::DerType::Zero(count));
      });
      for (int l = 0; l < count; ++l) {
        const int col = columns[first + l];
        if (col < n_) {
          q_[col].derivatives()(l) = 1.0;
        } else if (col < 2 * n_) {
          qd_[col - n_].derivatives()(l) = 1.0;
        } else {
          direction_[col - 2 * n_] = l;
        }
      }
      Env<LocalAD> env;
      env.t_index = env_.t_index;
      env.t = env_.t;
      env.lc = env_.lc;
      env.frozen = &frozen_;
      env.direction = direction_.data();
      if (reads.live) {  // the symbols, for the quantities evaluated at every call
        for (size_t i = 0; i < env_.symbols.size(); ++i) {
          LocalAD v = C<LocalAD>(env_.symbols[i]);
          const int a_pos = i < position_.size() ? position_[i] : -1;
          if (a_pos >= 0 && direction_[a_pos] >= 0) v.derivatives()(direction_[a_pos]) = 1.0;
          env.symbols.push_back(v);
        }
      }
      chunk_columns_ = columns.data() + first;
      chunk_count_ = count;
      evaluate(env);
      for (int l = 0; l < count; ++l) {
        if (columns[first + l] >= 2 * n_) direction_[columns[first + l] - 2 * n_] = -1;
      }
    }
  }

  const Multibody& model_;
  Eigen::VectorXd p_;
  int n_, m_, width_;
  std::vector<int> position_;   // model parameter -> its position among the active ones, or -1
  std::vector<int> direction_;  // active parameter -> local direction in the current chunk, or -1
  Frozen frozen_;
  Env<double> env_;  // the symbols (t moved per call) and the frozen quantities
  std::vector<std::vector<int>> body_columns_, joint_columns_, force_columns_;
  std::vector<LocalAD> q_, qd_;  // seeded coordinates and velocities of the current element
  Vec<double> mass_, r_;
  Mat<double> phi_q_;
  AugmentedSolver solver_;
  Eigen::VectorXd z_;
  Eigen::MatrixXd gt_;                  // G' of the linearisation being formed
  const int* chunk_columns_ = nullptr;  // the columns of G' of the current chunk's directions
  int chunk_count_ = 0;
};

std::unique_ptr<OdeModel::Instance> Multibody::instance(const Eigen::VectorXd& p,
                                                        const LoadCaseSpec& lc,
                                                        const std::vector<int>& active) const {
  if (!dynamic_) return OdeModel::instance(p, lc, active);
  return std::make_unique<Run>(*this, p, lc, active);
}

template <class S>
S Multibody::marker(const Marker& mk, int c, const S* q, const S* qd, const S* qdd,
                    const Env<S>& env) const {
  const int b = mk.at.body;
  const S u = mk.at.u.at(env), w = mk.at.v.at(env);
  if (b < 0) return c == 0 ? u : (c == 1 ? w : C<S>(0.0));
  const Pose<S> ps = pose(b, q);
  const S asx = ps.c * u - ps.s * w, asy = ps.s * u + ps.c * w;  // A s; B s = (-asy, asx)
  const S om = qd[3 * b + 2];
  switch (c) {
    case 0:
      return ps.x + asx;
    case 1:
      return ps.y + asy;
    case 2:
      return qd[3 * b] - asy * om;
    case 3:
      return qd[3 * b + 1] + asx * om;
    case 4:
      return qdd[3 * b] - asy * qdd[3 * b + 2] - asx * om * om;
    default:
      return qdd[3 * b + 1] + asx * qdd[3 * b + 2] - asy * om * om;
  }
}

template <class S>
bool Multibody::equations(const S* x, S* xdot, const Env<S>& env) const {
  const int n = nq();
  Vec<S> qdd;
  if (!accelerations(x, x + n, env, qdd)) return false;
  for (int i = 0; i < n; ++i) {
    xdot[i] = x[n + i];
    xdot[n + i] = qdd(i);
  }
  return true;
}

std::string Multibody::row_owner(Eigen::Index row) const {
  int first = 0;
  for (const Joint& j : joints_) {
    if (row < first + j.equations()) return "joint " + j.name;
    first += j.equations();
  }
  return "initial condition " + std::to_string(row - first + 1);
}

std::string Multibody::worst_joint(const Eigen::VectorXd& phi) const {
  Eigen::Index worst = 0;
  phi.cwiseAbs().maxCoeff(&worst);
  return row_owner(worst);
}

std::string Multibody::dependent_rows(const Eigen::MatrixXd& J) const {
  const Eigen::Index m = J.rows();
  if (m == 0) return "";
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(J.transpose());
  qr.setThreshold(1e-10);
  if (qr.rank() == m) return "";
  std::set<std::string> owners;
  for (Eigen::Index k = qr.rank(); k < m; ++k) {
    owners.insert(row_owner(qr.colsPermutation().indices()(k)));
  }
  std::string out = "the equations of ";
  for (auto it = owners.begin(); it != owners.end(); ++it) {
    out += (it == owners.begin() ? "" : ", ") + *it;
  }
  return out + " depend on the other joints' (lock-up or a redundant joint)";
}

template <class S>
std::string Multibody::singular_motion(double t, const S* xs, const S* ps,
                                       const LoadCaseSpec& lc) const {
  const int n = nq();
  std::vector<double> x(2 * n), p(parameter_names_.size());
  for (int i = 0; i < 2 * n; ++i) x[i] = value_of(xs[i]);
  for (size_t i = 0; i < p.size(); ++i) p[i] = value_of(ps[i]);
  std::ostringstream why;
  why << "singular equations of motion at t = " << t << ": ";
  Vec<double> mass, rhs;
  Mat<double> phi_q;
  augmented(x.data(), x.data() + n, vars(p.data(), t, lc), mass, phi_q, rhs);
  const std::string dependent = dependent_rows(phi_q);
  if (!dependent.empty()) return why.str() + dependent;
  std::vector<std::string> massless;
  for (size_t b = 0; b < bodies_.size(); ++b) {
    if (!(mass(3 * b) > 0.0) || !(mass(3 * b + 2) > 0.0)) massless.push_back(bodies_[b].name);
  }
  if (massless.empty()) {
    why << "the augmented matrix is ill-conditioned";
  } else {
    why << "body";
    for (size_t k = 0; k < massless.size(); ++k) why << (k ? ", " : " ") << massless[k];
    why << " has no mass or no inertia where the joints leave it free to move";
  }
  return why.str();
}

std::string Multibody::assemble(double t, const double* p, const LoadCaseSpec& lc,
                                Eigen::VectorXd& q, bool initial_conditions,
                                int* iterations) const {
  const int n = nq();
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
  const Env<double> v = vars(p, t, lc);
  for (int it = 0; it < 50; ++it) {
    Eigen::VectorXd phi, phi_t, gamma;
    Eigen::MatrixXd phi_q;
    constraints(q.data(), zero.data(), v, phi, phi_q, phi_t, gamma);
    if (initial_conditions) {
      const int m = static_cast<int>(phi.size());
      const int c = static_cast<int>(initial_conditions_.size());
      phi.conservativeResize(m + c);
      phi_q.conservativeResize(m + c, n);
      phi_q.bottomRows(c).setZero();
      for (int k = 0; k < c; ++k) {
        const InitialCondition& ic = initial_conditions_[k];
        phi(m + k) = q(3 * ic.body + ic.coordinate) - ic.value.at(v);
        phi_q(m + k, 3 * ic.body + ic.coordinate) = 1.0;
      }
    }
    if (iterations) *iterations = it;
    if (phi.size() == 0) return "";  // free bodies: nothing to assemble
    if (phi.cwiseAbs().maxCoeff() <= 1e-10 * (1.0 + q.cwiseAbs().maxCoeff())) return "";
    Eigen::VectorXd step;
    if (phi_q.rows() == n) {
      const Eigen::PartialPivLU<Eigen::MatrixXd> lu(phi_q);
      if (!regular(lu)) {
        std::ostringstream why;
        why << "singular constraint Jacobian at t = " << t << " (lock-up or a redundant joint; "
            << worst_joint(phi) << " has the largest residual)";
        return why.str();
      }
      step = lu.solve(phi);
    } else {  // fewer equations than coordinates: the smallest correction
      const Eigen::MatrixXd g = phi_q * phi_q.transpose();
      const Eigen::LDLT<Eigen::MatrixXd> ldlt(g);
      step = phi_q.transpose() * ldlt.solve(phi);
    }
    q -= step;
    if (!q.allFinite()) break;
  }
  std::ostringstream why;
  why << "the position equations do not converge at t = " << t
      << " (no assembly: the mechanism cannot reach this configuration)";
  return why.str();
}

template <class S>
void Multibody::initial(const S* p, S* x0, const LoadCaseSpec& lc) const {
  const int n = nq();
  const double t0 = lc.grid.start;
  std::vector<double> pv(parameter_names_.size());
  for (size_t i = 0; i < pv.size(); ++i) pv[i] = value_of(p[i]);
  const Env<double> v = vars(pv.data(), t0, lc);
  Eigen::VectorXd q(n);
  for (size_t i = 0; i < bodies_.size(); ++i) {
    q(3 * i) = bodies_[i].x.at(v);
    q(3 * i + 1) = bodies_[i].y.at(v);
    q(3 * i + 2) = bodies_[i].angle.at(v);
  }
  const bool square = !initial_conditions_.empty();
  const std::string failure = assemble(t0, pv.data(), lc, q, square);
  if (!failure.empty()) throw std::runtime_error("assembly: " + failure);
  // One Newton step in S from the assembled q: exact first derivatives of q with respect to
  // the parameters (the residual is zero there).
  const Env<S> vs = vars(p, t0, lc);
  Vec<S> qs(n);
  for (int i = 0; i < n; ++i) qs(i) = C<S>(q(i));
  Vec<S> zero = Vec<S>::Constant(n, C<S>(0.0));
  Vec<S> phi, phi_t, gamma;
  Mat<S> phi_q;
  constraints(qs.data(), zero.data(), vs, phi, phi_q, phi_t, gamma);
  const int m = static_cast<int>(phi.size());
  const int c = static_cast<int>(initial_conditions_.size());
  Mat<S> J = Mat<S>::Constant(m + c, n, C<S>(0.0));
  Vec<S> F(m + c), rates(m + c);
  J.topRows(m) = phi_q;
  F.head(m) = phi;
  rates.head(m) = -phi_t;
  for (int k = 0; k < c; ++k) {
    const InitialCondition& ic = initial_conditions_[k];
    const int col = 3 * ic.body + ic.coordinate;
    J(m + k, col) = C<S>(1.0);
    F(m + k) = qs(col) - ic.value.at(vs);
    rates(m + k) = ic.rate.at(vs);
  }
  Vec<S> given(n);  // the bodies' velocities as given
  for (size_t i = 0; i < bodies_.size(); ++i) {
    given(3 * i) = bodies_[i].vx.at(vs);
    given(3 * i + 1) = bodies_[i].vy.at(vs);
    given(3 * i + 2) = bodies_[i].omega.at(vs);
  }
  Vec<S> dq, qd;
  // Which rows of J depend on the others, for the error message.
  auto redundancy = [this, t0](const Mat<S>& J, const char* otherwise) {
    Eigen::MatrixXd values(J.rows(), J.cols());
    for (Eigen::Index i = 0; i < J.size(); ++i) values(i) = value_of(J(i));
    const std::string dependent = dependent_rows(values);
    std::ostringstream why;
    why << "assembly at t = " << t0 << ": " << (dependent.empty() ? otherwise : dependent);
    return why.str();
  };
  if (m + c == 0) {  // free bodies: the pose and velocities as given
    dq = Vec<S>::Constant(n, C<S>(0.0));
    qd = given;
  } else if (square) {
    if (!solve(J, F, dq) || !solve(J, rates, qd)) {
      throw std::runtime_error(redundancy(J, "the initial conditions fix no single pose"));
    }
  } else {
    // Smallest corrections: dq = J' (J J')^-1 F; q' = given - J' (J J')^-1 (J given - rates).
    const Mat<S> JJ = J * J.transpose();
    Vec<S> y, w;
    if (!solve(JJ, F, y) || !solve(JJ, Vec<S>(J * given - rates), w)) {
      throw std::runtime_error(redundancy(J, "redundant constraints"));
    }
    dq = J.transpose() * y;
    qd = given - J.transpose() * w;
  }
  for (int i = 0; i < n; ++i) {
    x0[i] = qs(i) - dq(i);
    x0[n + i] = qd(i);
  }
}

template <class S>
S Multibody::out(int k, double t, const S* x, const S* p, const LoadCaseSpec& lc) const {
  const int n = nq();
  const int nb = static_cast<int>(bodies_.size());
  const Env<S> v = vars(p, t, lc);
  auto solved = [&](Vec<S>& qdd, Vec<S>* lambda, Mat<S>* phi_q) {
    if (!accelerations(x, x + n, v, qdd, lambda, phi_q)) {
      throw std::runtime_error(singular_motion(t, x, p, lc));
    }
  };
  if (k < 9 * nb) {
    const int body = k / 9, c = k % 9;
    if (c < 3) return x[3 * body + c];
    if (c < 6) return x[n + 3 * body + c - 3];
    Vec<S> qdd;
    solved(qdd, nullptr, nullptr);
    return qdd(3 * body + c - 6);
  }
  int index = k - 9 * nb;
  for (const Force& f : forces_) {
    if (f.kind != ForceKind::kSpringDamper) continue;
    if (index < 3) {
      S length, velocity, tension, ux, uy;
      spring_state(f, x, x + n, v, length, velocity, tension, ux, uy);
      return index == 0 ? length : (index == 1 ? velocity : tension);
    }
    index -= 3;
  }
  if (index < 3 * static_cast<int>(joints_.size())) {
    Vec<S> qdd, lambda;
    Mat<S> phi_q;
    solved(qdd, &lambda, &phi_q);
    return reaction(index / 3, index % 3, phi_q, lambda);
  }
  index -= 3 * static_cast<int>(joints_.size());
  if (index < 6 * static_cast<int>(markers_.size())) {
    Vec<S> qdd = Vec<S>::Constant(n, C<S>(0.0));
    if (index % 6 >= 4) solved(qdd, nullptr, nullptr);
    return marker(markers_[index / 6], index % 6, x, x + n, qdd.data(), v);
  }
  index -= 6 * static_cast<int>(markers_.size());
  // An integrand: of the parameters, t and the coordinates and velocities of every body.
  return evaluate(*integrals_.at(index).integrand, integrand_symbols(v, x));
}

template <class S>
std::vector<S> Multibody::integrand_symbols(const Env<S>& env, const S* x) const {
  const int n = nq();
  std::vector<S> all = env.symbols;
  for (size_t b = 0; b < bodies_.size(); ++b) {
    for (size_t c = 0; c < 3; ++c) all.push_back(x[3 * b + c]);
    for (size_t c = 0; c < 3; ++c) all.push_back(x[n + 3 * b + c]);
  }
  return all;
}

template <class S>
bool Multibody::kinematic_point(double t, const Eigen::VectorXd& q_solved, const S* p,
                                const LoadCaseSpec& lc, KinematicState<S>& out) const {
  const int n = nq();
  // q: the solved positions, and for AD scalars one Newton step from them, which carries
  // dq/dp = -Phi_q^-1 Phi_p (the residual is zero there).
  Vec<S> q(n), zero = Vec<S>::Constant(n, C<S>(0.0));
  for (int i = 0; i < n; ++i) q(i) = C<S>(q_solved(i));
  const Env<S> v = vars(p, t, lc);
  Vec<S> phi, phi_t, gamma;
  Mat<S> phi_q;
  constraints(q.data(), zero.data(), v, phi, phi_q, phi_t, gamma);
  if constexpr (!std::is_same_v<S, double>) {
    Vec<S> dq;
    if (!solve(phi_q, phi, dq)) return false;
    q -= dq;
    constraints(q.data(), zero.data(), v, phi, phi_q, phi_t, gamma);
  }
  // Velocities: Phi_q q' = -Phi_t; accelerations: Phi_q q'' = gamma(q, q').
  Vec<S> qd, qdd;
  if (!solve(phi_q, Vec<S>(-phi_t), qd)) return false;
  constraints(q.data(), qd.data(), v, phi, phi_q, phi_t, gamma);
  if (!solve(phi_q, gamma, qdd)) return false;
  // Inverse dynamics: Phi_q' lambda = Q - M q''.
  Vec<S> mass, Q;
  mass_and_forces(q.data(), qd.data(), v, mass, Q);
  const Vec<S> residual = Q - Vec<S>(mass.cwiseProduct(qdd));
  Vec<S> lambda;
  if (!solve(Mat<S>(phi_q.transpose()), residual, lambda)) return false;
  out.values = history_values(q, qd, qdd, lambda, phi_q, v);
  out.q = q;
  out.qd = qd;
  out.qdd = qdd;
  out.lambda = lambda;
  out.phi_q = phi_q;
  return true;
}

template <class S>
Vec<S> Multibody::history_values(const Vec<S>& q, const Vec<S>& qd, const Vec<S>& qdd,
                                 const Vec<S>& lambda, const Mat<S>& phi_q, const Env<S>& v) const {
  Vec<S> values(static_cast<Eigen::Index>(history_names_.size()));
  const int nb = static_cast<int>(bodies_.size());
  for (int b = 0; b < nb; ++b) {
    for (int c = 0; c < 3; ++c) {
      values(9 * b + c) = q(3 * b + c);
      values(9 * b + 3 + c) = qd(3 * b + c);
      values(9 * b + 6 + c) = qdd(3 * b + c);
    }
  }
  int k = 9 * nb;
  for (const Force& f : forces_) {
    if (f.kind != ForceKind::kSpringDamper) continue;
    S length, velocity, tension, ux, uy;
    spring_state(f, q.data(), qd.data(), v, length, velocity, tension, ux, uy);
    values(k++) = length;
    values(k++) = velocity;
    values(k++) = tension;
  }
  for (int j = 0; j < static_cast<int>(joints_.size()); ++j) {
    for (int c = 0; c < 3; ++c) values(k++) = reaction(j, c, phi_q, lambda);
  }
  for (const Marker& mk : markers_) {
    for (int c = 0; c < 6; ++c) values(k++) = marker(mk, c, q.data(), qd.data(), qdd.data(), v);
  }
  return values;
}

std::string Multibody::kinematic_sensitivities(double t, int point, const Eigen::VectorXd& q,
                                               const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                               const KinematicRequest& request) const {
  std::vector<size_t> here;  // the wanted values at this grid point
  for (size_t f = 0; f < request.wanted->size(); ++f) {
    if ((*request.wanted)[f].point == point) here.push_back(f);
  }
  if (here.empty()) return "";
  const std::vector<int>& active = *request.active;
  const auto na = static_cast<Eigen::Index>(active.size());
  const int n = nq(), m = n_constraints();
  const std::string singular =
      "singular kinematic sensitivity equations at t = " + std::to_string(t) + " (lock-up)";
  // Seeds: unit derivatives in the active parameters, after `offset` other seeds.
  auto seeded_parameters = [&](Eigen::Index size, Eigen::Index offset) {
    std::vector<AD> ps(static_cast<size_t>(p.size()));
    for (Eigen::Index i = 0; i < p.size(); ++i) ps[i] = AD(p(i), Eigen::VectorXd::Zero(size));
    for (Eigen::Index a = 0; a < na; ++a) ps[active[a]].derivatives()(offset + a) = 1.0;
    return ps;
  };
  if (!request.adjoint) {
    // Direct: the kinematic equations solved in AD scalars seeded on the parameters.
    ad_size = na;
    const std::vector<AD> ps = seeded_parameters(na, 0);
    KinematicState<AD> state;
    if (!kinematic_point(t, q, ps.data(), lc, state)) return singular;
    for (size_t f : here) {
      const AD& value = state.values((*request.wanted)[f].output);
      if (value.derivatives().size() == na) {
        request.rows->row(static_cast<Eigen::Index>(f)) = value.derivatives().transpose();
      }
    }
    return "";
  }
  // Adjoint (seed 003, 4.15-4.33): the chain of implicit levels q (Phi = 0), q' (Phi_q q' +
  // Phi_t = 0), q'' (Phi_q q'' - gamma = 0), lambda (Phi_q' lambda - Q + M q'' = 0), each
  // with Phi_q (or its transpose) as Jacobian in its own unknown. One AD pass gives every
  // residual's and output's partial derivatives in z = (q, q', q'', lambda, p_active); per
  // wanted value the levels are then eliminated backwards with one adjoint solve each.
  KinematicState<double> solved;
  if (!kinematic_point(t, q, p.data(), lc, solved)) return singular;
  const Eigen::Index nz = 3 * n + m + na;
  ad_size = nz;
  auto seeded = [&](const Eigen::VectorXd& x, Eigen::Index offset) {
    Vec<AD> out(x.size());
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      out(i) = AD(x(i), Eigen::VectorXd::Unit(nz, offset + i));
    }
    return out;
  };
  const Vec<AD> qa = seeded(solved.q, 0), qda = seeded(solved.qd, n),
                qdda = seeded(solved.qdd, 2 * n), la = seeded(solved.lambda, 3 * n);
  const std::vector<AD> pa = seeded_parameters(nz, 3 * n + m);
  Vec<AD> phi, phi_t, gamma;
  Mat<AD> phi_q;
  const Env<AD> v = vars(pa.data(), t, lc);
  constraints(qa.data(), qda.data(), v, phi, phi_q, phi_t, gamma);
  const Vec<AD> r_v = phi_q * qda + phi_t;
  const Vec<AD> r_a = phi_q * qdda - gamma;
  Vec<AD> mass, Q;
  mass_and_forces(qa.data(), qda.data(), v, mass, Q);
  const Vec<AD> r_l = Vec<AD>(phi_q.transpose() * la) - Q + Vec<AD>(mass.cwiseProduct(qdda));
  const Vec<AD> g = history_values(qa, qda, qdda, la, phi_q, v);
  auto jacobian = [&](const Vec<AD>& r) {
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(r.size(), nz);
    for (Eigen::Index i = 0; i < r.size(); ++i) {
      if (r(i).derivatives().size() == nz) J.row(i) = r(i).derivatives().transpose();
    }
    return J;
  };
  const Eigen::MatrixXd J_l = jacobian(r_l), J_a = jacobian(r_a), J_v = jacobian(r_v),
                        J_p = jacobian(phi);
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(solved.phi_q);
  if (!regular(lu)) return singular;
  for (size_t f : here) {
    Eigen::RowVectorXd gz = jacobian(Vec<AD>::Constant(1, g((*request.wanted)[f].output))).row(0);
    // lambda level: its Jacobian in lambda is Phi_q', so the adjoint solve is with Phi_q.
    const Eigen::VectorXd mu_l = lu.solve(Eigen::VectorXd(gz.segment(3 * n, m).transpose()));
    gz -= mu_l.transpose() * J_l;
    // q'', q' and q levels: Jacobians Phi_q in their unknown, adjoint solves with Phi_q'.
    const std::pair<const Eigen::MatrixXd*, int> levels[] = {{&J_a, 2 * n}, {&J_v, n}, {&J_p, 0}};
    for (const auto& [J, offset] : levels) {
      const Eigen::VectorXd mu =
          lu.transpose().solve(Eigen::VectorXd(gz.segment(offset, n).transpose()));
      gz -= mu.transpose() * *J;
    }
    request.rows->row(static_cast<Eigen::Index>(f)) = gz.tail(na);
  }
  return "";
}

std::string Multibody::kinematic(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                                 const KinematicRequest* request, CaseResult& out) const {
  const int n = nq(), nb = static_cast<int>(bodies_.size()), points = lc.grid.points;
  Eigen::VectorXd q(n);
  {
    const Env<double> v = vars(p.data(), lc.grid.start, lc);
    for (int i = 0; i < nb; ++i) {
      q(3 * i) = bodies_[i].x.at(v);
      q(3 * i + 1) = bodies_[i].y.at(v);
      q(3 * i + 2) = bodies_[i].angle.at(v);
    }
  }
  const auto nh = static_cast<Eigen::Index>(history_names_.size());
  Eigen::MatrixXd values(points, nh);
  for (int k = 0; k < points; ++k) {
    const double t = lc.grid.at(k);
    const std::string failure = assemble(t, p.data(), lc, q, false);
    if (!failure.empty()) return failure;
    KinematicState<double> state;
    if (!kinematic_point(t, q, p.data(), lc, state)) {
      return "singular velocity, acceleration or reaction equations at t = " + std::to_string(t);
    }
    values.row(k) = state.values.transpose();
    if (request) {
      const std::string why = kinematic_sensitivities(t, k, q, p, lc, *request);
      if (!why.empty()) return why;
    }
  }
  for (Eigen::Index h = 0; h < nh; ++h) out.histories[history_names_[h]] = values.col(h);
  return "";
}

std::string Multibody::analyse(const Eigen::VectorXd& p, const LoadCaseSpec& lc,
                               const IntegratorSettings& settings, CaseResult& out) const {
  try {
    if (!dynamic_) return kinematic(p, lc, nullptr, out);
    return OdeModel::analyse(p, lc, settings, out);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
}

}  // namespace

std::unique_ptr<Model> load_multibody_model(const nlohmann::json& multibody,
                                            const std::string& path) {
  return std::make_unique<Multibody>(multibody, path);
}

}  // namespace sao::sim
