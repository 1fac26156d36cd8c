// The joints and force elements of the multibody models one by one: the AD Jacobians of the
// equations of motion against central differences, drivers and road profiles against their
// formulas, the staged damper law and its stroke weight, joint reactions against hand
// calculation, kinematic direct and adjoint sensitivities against differences, and the quarter
// truck as a multibody model against the dedicated quarter-car model.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <numbers>

#include "simulators/internal_simulator.hpp"
#include "simulators/models/damper_law.hpp"
#include "simulators/models/model.hpp"
#include "simulators/multibody/kinematics.hpp"
#include "simulators/multibody/multibody.hpp"
#include "tests/simulators/multibody_support.hpp"

namespace sao::sim {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

constexpr double kG = 9.81;

using testing::defaults;
using testing::grid_case;

// --- AD Jacobians of every element -----------------------------------------------------------

struct ElementCase {
  const char* name;
  const char* model;
};

void PrintTo(const ElementCase& c, std::ostream* os) {
  *os << c.name;
}

class ElementJacobian : public ::testing::TestWithParam<ElementCase> {};

// An element model at its assembled initial state with velocities set off zero (so that
// damping and velocity terms act), at t = 0.37.
struct ElementPoint {
  explicit ElementPoint(const char* description)
      : model(load_multibody_model(json::parse(description))) {
    p = defaults(*model);
    x.resize(ode().state_size());
    ode().initial_state(p.data(), x.data(), lc);
    for (Eigen::Index i = x.size() / 2; i < x.size(); ++i) x(i) += 0.3 + 0.1 * double(i);
  }
  const OdeModel& ode() const { return *model->ode(); }
  int n() const { return ode().state_size(); }
  int np() const { return static_cast<int>(p.size()); }
  // [d(x')/dx | d(x')/dp_active] by AD through the whole right-hand side (solve included);
  // `value` gets x'.
  Eigen::MatrixXd ad_jacobian(const std::vector<int>& active, Eigen::VectorXd* value = nullptr) {
    const int size = n() + static_cast<int>(active.size());
    std::vector<AD> xa, pa, xdot(n());
    seed_ad(x.data(), n(), p, active, xa, pa);
    ode().rhs(t, xa.data(), xdot.data(), pa.data(), lc);
    Eigen::MatrixXd out = Eigen::MatrixXd::Zero(n(), size);
    if (value) value->resize(n());
    for (int k = 0; k < n(); ++k) {
      if (xdot[k].derivatives().size() == size) out.row(k) = xdot[k].derivatives().transpose();
      if (value) (*value)(k) = xdot[k].value();
    }
    return out;
  }

  std::unique_ptr<Model> model;
  LoadCaseSpec lc = grid_case(TimeGrid(0.0, 1.0, 11));
  Eigen::VectorXd p, x;
  double t = 0.37;
};

// d(x')/d(x, p) from the AD equations against central differences of the double ones.
TEST_P(ElementJacobian, MatchesCentralDifferences) {
  ElementPoint e(GetParam().model);
  const int n = e.n(), np = e.np(), size = n + np;
  std::vector<int> all(np);
  for (int j = 0; j < np; ++j) all[j] = j;
  Eigen::VectorXd value;
  const Eigen::MatrixXd jacobian = e.ad_jacobian(all, &value);
  auto f = [&](const Eigen::VectorXd& xs, const Eigen::VectorXd& ps) {
    Eigen::VectorXd out(n);
    EXPECT_EQ(e.ode().rhs(e.t, xs.data(), out.data(), ps.data(), e.lc), 0);
    return out;
  };
  const Eigen::VectorXd f0 = f(e.x, e.p);
  for (int k = 0; k < n; ++k) EXPECT_NEAR(value(k), f0(k), 1e-12 * (1 + std::abs(f0(k))));
  for (int j = 0; j < size; ++j) {
    Eigen::VectorXd xp = e.x, xm = e.x, pp = e.p, pm = e.p;
    const double base = j < n ? e.x(j) : e.p(j - n);
    // Not smaller: a driver's q'' is a second difference in t (h = 1e-4), whose rounding
    // would swamp a smaller step here.
    const double h = 1e-5 * (1 + std::abs(base));
    if (j < n) {
      xp(j) += h;
      xm(j) -= h;
    } else {
      pp(j - n) += h;
      pm(j - n) -= h;
    }
    const Eigen::VectorXd column = (f(xp, pp) - f(xm, pm)) / (2 * h);
    for (int k = 0; k < n; ++k) {
      EXPECT_NEAR(jacobian(k, j), column(k), 1e-5 * (1 + std::abs(column(k))))
          << GetParam().name << ": d xdot[" << k << "] / d " << (j < n ? "x[" : "p[")
          << (j < n ? j : j - n) << "]";
    }
  }
}

// The linearisation through the augmented system (Jacobian and vector-Jacobian products of
// the adjoint) against AD through the whole right-hand side, solve included.
TEST_P(ElementJacobian, LinearizationMatchesAdThroughTheSolve) {
  ElementPoint e(GetParam().model);
  const int n = e.n();
  // Every parameter but the first active, so that the column mapping is exercised.
  std::vector<int> active;
  for (int j = e.np() - 1; j >= 1; --j) active.push_back(j);
  const int size = n + static_cast<int>(active.size());
  const Eigen::MatrixXd expected = e.ad_jacobian(active);
  const auto run = e.ode().instance(e.p, e.lc, active);
  const auto linear = run->linearize(e.t, e.x.data());
  ASSERT_NE(linear, nullptr) << "a dynamic multibody model linearises itself";
  Eigen::MatrixXd jacobian;
  linear->jacobian(jacobian);
  ASSERT_EQ(jacobian.rows(), n);
  ASSERT_EQ(jacobian.cols(), size);
  const double scale = 1 + expected.cwiseAbs().maxCoeff();
  EXPECT_LT((jacobian - expected).cwiseAbs().maxCoeff(), 1e-10 * scale) << GetParam().name;
  const Eigen::VectorXd lambda = Eigen::VectorXd::LinSpaced(n, -1.0, 2.0);
  Eigen::VectorXd product;
  linear->vector_jacobian(lambda.data(), product);
  ASSERT_EQ(product.size(), size);
  const Eigen::VectorXd reference = expected.transpose() * lambda;
  EXPECT_LT((product - reference).cwiseAbs().maxCoeff(), 1e-10 * scale * n) << GetParam().name;
}

// Linearisations at several poses kept alive together (a run reuses the storage of one that is
// gone, never of one still held): each one's lambda' [f_x | f_p] is its own Jacobian's
// transpose times lambda, for random lambda, and the Jacobian is that of the AD equations at
// its own pose.
TEST_P(ElementJacobian, LinearizationsKeptTogetherKeepTheirOwnPoints) {
  ElementPoint e(GetParam().model);
  const int n = e.n();
  std::vector<int> active;
  for (int j = 0; j < e.np(); ++j) active.push_back(j);
  const auto run = e.ode().instance(e.p, e.lc, active);
  std::srand(7);
  std::vector<Eigen::VectorXd> poses;
  std::vector<std::unique_ptr<OdeModel::Linearization>> kept;
  for (int k = 0; k < 4; ++k) {
    // Velocities moved; positions moved off the constraints by 1e-3 at most.
    Eigen::VectorXd x = e.x;
    const Eigen::VectorXd move = Eigen::VectorXd::Random(n);
    x.head(n / 2) += 1e-3 * move.head(n / 2);
    x.tail(n / 2) += 0.5 * move.tail(n / 2);
    poses.push_back(x);
    kept.push_back(run->linearize(e.t + 0.01 * k, x.data()));
    if (k == 2) kept[1].reset();  // its storage free for the next
  }
  const double tolerance = 1e-12;
  for (int k = 0; k < 4; ++k) {
    if (!kept[k]) continue;
    ElementPoint at(GetParam().model);
    at.x = poses[k];
    at.t = e.t + 0.01 * k;
    const Eigen::MatrixXd expected = at.ad_jacobian(active);
    Eigen::MatrixXd jacobian;
    kept[k]->jacobian(jacobian);
    const double scale = 1 + expected.cwiseAbs().maxCoeff();
    EXPECT_LT((jacobian - expected).cwiseAbs().maxCoeff(), 1e-10 * scale)
        << GetParam().name << ", pose " << k;
    for (int trial = 0; trial < 3; ++trial) {
      const Eigen::VectorXd lambda = Eigen::VectorXd::Random(n);
      Eigen::VectorXd product;
      kept[k]->vector_jacobian(lambda.data(), product);
      const Eigen::VectorXd reference = jacobian.transpose() * lambda;
      ASSERT_EQ(product.size(), reference.size());
      EXPECT_LT((product - reference).cwiseAbs().maxCoeff(),
                tolerance * (1 + jacobian.cwiseAbs().sum()))
          << GetParam().name << ", pose " << k << ", trial " << trial;
      // The direct method's right-hand sides f_x S + f_p without the whole Jacobian.
      const Eigen::MatrixXd S = Eigen::MatrixXd::Random(n, e.np());
      Eigen::MatrixXd sensitivity_rhs;
      kept[k]->jacobian_times(S, sensitivity_rhs);
      const Eigen::MatrixXd expected_rhs = jacobian.leftCols(n) * S + jacobian.rightCols(e.np());
      ASSERT_EQ(sensitivity_rhs.rows(), n);
      ASSERT_EQ(sensitivity_rhs.cols(), e.np());
      EXPECT_LT((sensitivity_rhs - expected_rhs).cwiseAbs().maxCoeff(),
                tolerance * (1 + jacobian.cwiseAbs().sum()))
          << GetParam().name << ", pose " << k << ", trial " << trial;
    }
  }
}

// The smallest solution x = J' (J J')^-1 b of AD scalars (multibody::least_norm, the initial
// state's dx0/dp) against an independent one: Eigen's complete orthogonal decomposition of J
// (its minimum-norm solution), and per direction central differences of it along (dJ, db),
// with some entries constant (no derivative vector). Dependent rows: false.
TEST(MultibodyLeastNorm, MatchesTheMinimumNormSolutionAndItsDerivatives) {
  std::srand(11);
  const int m = 4, n = 7, directions = 5;
  multibody::Mat<AD> J(m, n);
  multibody::Vec<AD> b(m);
  Eigen::MatrixXd J0(m, n), dJ[directions];
  Eigen::VectorXd b0(m), db[directions];
  for (int k = 0; k < directions; ++k) {
    dJ[k].setZero(m, n);
    db[k].setZero(m);
  }
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      J0(i, j) = Eigen::VectorXd::Random(1)(0);
      if ((i + j) % 3 == 0) {
        J(i, j) = AD(J0(i, j), Eigen::VectorXd(0));
        continue;
      }
      const Eigen::VectorXd d = Eigen::VectorXd::Random(directions);
      J(i, j) = AD(J0(i, j), d);
      for (int k = 0; k < directions; ++k) dJ[k](i, j) = d(k);
    }
    b0(i) = Eigen::VectorXd::Random(1)(0);
    const Eigen::VectorXd d = Eigen::VectorXd::Random(directions);
    b(i) = i == 2 ? AD(b0(i), Eigen::VectorXd(0)) : AD(b0(i), d);
    for (int k = 0; k < directions && i != 2; ++k) db[k](i) = d(k);
  }
  auto minimum_norm = [](const Eigen::MatrixXd& A, const Eigen::VectorXd& r) {
    return Eigen::VectorXd(A.completeOrthogonalDecomposition().solve(r));
  };
  multibody::Vec<AD> x;
  ASSERT_TRUE(multibody::least_norm(J, b, x));
  ASSERT_EQ(x.size(), n);
  const Eigen::VectorXd expected = minimum_norm(J0, b0);
  const double h = 1e-6;
  for (int j = 0; j < n; ++j) {
    EXPECT_NEAR(x(j).value(), expected(j), 1e-13) << j;
    ASSERT_EQ(x(j).derivatives().size(), directions);
  }
  for (int k = 0; k < directions; ++k) {
    const Eigen::VectorXd slope = (minimum_norm(J0 + h * dJ[k], b0 + h * db[k]) -
                                   minimum_norm(J0 - h * dJ[k], b0 - h * db[k])) /
                                  (2 * h);
    for (int j = 0; j < n; ++j) {
      EXPECT_NEAR(x(j).derivatives()(k), slope(j), 1e-8 * (1 + slope.cwiseAbs().maxCoeff()))
          << "x(" << j << "), direction " << k;
    }
  }
  multibody::Vec<double> xd;
  ASSERT_TRUE(multibody::least_norm(multibody::Mat<double>(J0), multibody::Vec<double>(b0), xd));
  EXPECT_LT((xd - expected).cwiseAbs().maxCoeff(), 1e-13);
  multibody::Mat<double> dependent = J0;
  dependent.row(3) = 2.0 * dependent.row(1);
  EXPECT_FALSE(multibody::least_norm(dependent, multibody::Vec<double>(b0), xd));
}

// A run's right-hand side (frozen parameter-only quantities, Schur complement or LU) against
// the model's own, which evaluates every expression and solves by LU.
TEST_P(ElementJacobian, RunRightHandSideMatchesTheModel) {
  ElementPoint e(GetParam().model);
  Eigen::VectorXd expected(e.n()), got(e.n());
  ASSERT_EQ(e.ode().rhs(e.t, e.x.data(), expected.data(), e.p.data(), e.lc), 0);
  const auto run = e.ode().instance(e.p, e.lc, {});
  ASSERT_EQ(run->rhs(e.t, e.x.data(), got.data()), 0);
  EXPECT_LT((got - expected).cwiseAbs().maxCoeff(), 1e-10 * (1 + expected.cwiseAbs().maxCoeff()))
      << GetParam().name;
}

const ElementCase kElements[] = {
    {"revolute", R"J({"parameters": {"L": 1.2, "m": 2.0},
      "bodies": [{"name": "rod", "mass": "m", "inertia": "m*L^2/12", "position": ["L/2", 0],
                  "angle": 0.3}],
      "joints": [{"type": "revolute", "bodies": ["ground", "rod"],
                  "points": [[0, 0], ["-L/2", 0]]}]})J"},
    {"translational", R"J({"parameters": {"k": 50, "a": 0.4},
      "bodies": [{"name": "block", "mass": 3, "inertia": 0.5, "position": [0.2, 0.1],
                  "angle": 0.1}],
      "joints": [{"type": "translational", "bodies": ["ground", "block"],
                  "points": [[0, 0], [0.1, 0]], "axis": "a", "angle": 0.1}],
      "forces": [{"type": "spring_damper", "bodies": ["ground", "block"],
                  "points": [[-1, 0], [0, 0]], "stiffness": "k", "length": 0.5}]})J"},
    {"translational_driver", R"J({"parameters": {"s0": 0.3, "a": 0.2},
      "bodies": [{"name": "arm", "mass": 2, "inertia": 0.3, "position": [0.5, 0], "angle": 0.1},
                 {"name": "slider", "mass": 0.5, "inertia": 0.01, "position": [0.4, 0.1],
                  "angle": 0.3}],
      "joints": [{"type": "revolute", "bodies": ["ground", "arm"], "points": [[0, 0], [-0.5, 0]]},
                 {"type": "translational", "bodies": ["arm", "slider"], "points": [[0, 0], [0, 0]],
                  "axis": "a", "angle": 0.2},
                 {"type": "translational_driver", "bodies": ["arm", "slider"],
                  "points": [[-0.1, 0.05], [0.02, 0]], "axis": "a",
                  "distance": "s0 + 0.1*sin(2*t)"}]})J"},
    {"fixed", R"J({"parameters": {"m": 1.5},
      "bodies": [{"name": "arm", "mass": "m", "inertia": 0.2, "position": [0.5, 0]},
                 {"name": "tip", "mass": 0.5, "inertia": 0.01, "position": [1.0, 0.1],
                  "angle": 0.2}],
      "joints": [{"type": "revolute", "bodies": ["ground", "arm"], "points": [[0, 0], [-0.5, 0]]},
                 {"type": "fixed", "bodies": ["arm", "tip"], "points": [[0.5, 0], [0, -0.1]],
                  "angle": 0.2}]})J"},
    {"beam", R"J({"parameters": {"d": 0.05, "E": 1e7, "mu": 0.01},
      "gravity": [0, -9.81],
      "beams": [{"name": "arm", "elements": 2, "length": 0.8, "angle": 0.3, "area": "pi*d^2/4",
                 "second_moment": "pi*d^4/64", "section_modulus": "pi*d^3/32", "modulus": "E",
                 "density": 2700, "damping": "mu"}],
      "joints": [{"type": "revolute", "bodies": ["ground", "arm_0"]},
                 {"type": "driver", "body": "arm_0", "coordinate": "angle",
                  "motion": "0.3 + 2*t"}]})J"},
    {"angle driver", R"J({"parameters": {"w": 2.0},
      "bodies": [{"name": "crank", "mass": 1, "inertia": 0.1, "position": [0.3, 0]}],
      "joints": [{"type": "revolute", "bodies": ["ground", "crank"], "points": [[0, 0], [-0.3, 0]]},
                 {"type": "angle_driver", "bodies": ["ground", "crank"],
                  "angle": "w*t + 0.1*sin(3*t)"}]})J"},
    {"coordinate driver", R"J({"parameters": {"A": 0.1, "k": 80},
      "bodies": [{"name": "base", "mass": 1, "inertia": 1},
                 {"name": "mass", "mass": 2, "inertia": 1, "position": [0, 1]}],
      "joints": [{"type": "driver", "body": "base", "coordinate": "x", "motion": "A*sin(2*t)"},
                 {"type": "driver", "body": "base", "coordinate": "y", "motion": 0},
                 {"type": "driver", "body": "base", "coordinate": "angle", "motion": "0.2*t"},
                 {"type": "translational", "bodies": ["base", "mass"], "axis": "pi/2"}],
      "forces": [{"type": "spring_damper", "bodies": ["base", "mass"], "stiffness": "k",
                  "damping": 3, "length": 1}]
})J"},
    {"road table", R"J({"parameters": {"v": 4.0, "k": 1e4},
      "bodies": [{"name": "plate", "mass": 1, "inertia": 1},
                 {"name": "wheel", "mass": 50, "inertia": 1, "position": [0, 0.5]}],
      "joints": [{"type": "translational", "bodies": ["ground", "plate"], "axis": "pi/2"},
                 {"type": "translational", "bodies": ["ground", "wheel"], "axis": "pi/2"},
                 {"type": "driver", "body": "plate", "coordinate": "y",
                  "motion": {"road": [{"name": "bump",
                                       "table": [[0, 0], [0.5, 0.02], [1, 0.05], [1.5, 0.01],
                                                 [2, 0]]}],
                             "speed": "v", "start": 0.5}}],
      "forces": [{"type": "spring_damper", "bodies": ["plate", "wheel"], "stiffness": "k",
                  "damping": 100, "length": 0.5}]})J"},
    {"spring-damper", R"J({"parameters": {"k": 30, "c": 2, "f0": 5},
      "bodies": [{"name": "a", "mass": 1, "inertia": 0.1, "position": [0, 0], "angle": 0.3},
                 {"name": "b", "mass": 2, "inertia": 0.2, "position": [1.2, 0.4], "angle": -0.2}],
      "forces": [{"type": "spring_damper", "bodies": ["a", "b"], "points": [[0.1, 0.2], [-0.1, 0]],
                  "stiffness": "k", "damping": "c", "length": 1, "force": "f0"}]})J"},
    {"nonlinear law", R"J({"parameters": {"k3": 400, "c2": 7},
      "bodies": [{"name": "a", "mass": 1, "inertia": 0.1, "position": [0, 0.2]}],
      "forces": [{"type": "spring_damper", "bodies": ["ground", "a"], "points": [[0, 1], [0, 0]],
                  "length": 0.7, "law": "k3*d^3 + c2*v*abs(v) + 10*d"}]})J"},
    {"staged damper", R"J({"parameters": {"b0": 2, "b1": 8, "b2": 7},
      "bodies": [{"name": "a", "mass": 10, "inertia": 0.1, "position": [0, 0.955]}],
      "joints": [{"type": "translational", "bodies": ["ground", "a"], "axis": "pi/2"}],
      "forces": [{"type": "spring_damper", "bodies": ["ground", "a"], "points": [[0, 0], [0, 0]],
                  "stiffness": 1e4, "length": 1.0,
                  "damper": {"compression": ["b0*1e6", "b1*1e3", "b2*1e3", 27.6],
                             "rebound": [11.2e6, 18.3e3, 9.62e3, 3520],
                             "weight": "min(1, max(0, (-0.04 - d)/0.01))"
}
}]
})J"},
    // 12 coordinates and velocities and 25 parameters in one element: more directions than
    // one chunk of the run's element-by-element linearisation holds (kLocal, 16): two full
    // chunks and a partial one.
    {"many parameters",
     R"J({"parameters": {"p1": 0.6, "p2": 0.7, "p3": 0.8, "p4": 0.9, "p5": 1.0, "p6": 1.1, "p7": 1.2, "p8": 1.3, "p9": 1.4, "p10": 1.5, "p11": 1.6, "p12": 1.7, "p13": 1.8, "p14": 1.9, "p15": 2.0, "p16": 2.1, "p17": 2.2, "p18": 2.3, "p19": 2.4, "p20": 2.5, "p21": 2.6, "p22": 2.7, "p23": 2.8, "p24": 2.9, "p25": 3.0},
      "bodies": [{"name": "a", "mass": 1, "inertia": 0.1, "position": [0, 0], "angle": 0.3},
                 {"name": "b", "mass": 2, "inertia": 0.2, "position": [1.2, 0.4], "angle": -0.2}],
      "forces": [{"type": "spring_damper", "bodies": ["a", "b"], "points": [[0.1, 0.2], [-0.1, 0]],
                  "stiffness": "p1+p2+p3+p4+p5+p6+p7+p8+p9+p10+p11+p12+p13+p14+p15+p16+p17+p18+p19+p20+p21+p22+p23+p24+p25", "damping": "p1*p25", "length": "p2/2", "force": "p3"}]})J"},
    {"rotational spring-damper", R"J({"parameters": {"k": 12, "c": 0.5},
      "bodies": [{"name": "rod", "mass": 1, "inertia": 0.1, "position": [0.5, 0], "angle": 0.4}],
      "joints": [{"type": "revolute", "bodies": ["ground", "rod"], "points": [[0, 0], [-0.5, 0]]}],
      "forces": [{"type": "rotational_spring_damper", "bodies": ["ground", "rod"],
                  "stiffness": "k", "damping": "c", "angle": 0.1}]})J"},
    {"point force", R"J({"parameters": {"F": 3},
      "bodies": [{"name": "rod", "mass": 1, "inertia": 0.1, "position": [0.5, 0], "angle": 0.2}],
      "joints": [{"type": "revolute", "bodies": ["ground", "rod"], "points": [[0, 0], [-0.5, 0]]}],
      "forces": [{"type": "point_force", "body": "rod", "point": [0.5, 0],
                  "force": ["F*cos(t)", "-F"]}]
})J"},
    {"torque", R"J({"parameters": {"T0": 2, "w0": 8},
      "bodies": [{"name": "arm", "mass": 2, "inertia": 0.3, "position": [0.5, 0], "angle": 0.1},
                 {"name": "rod", "mass": 1, "inertia": 0.1, "position": [1.2, 0.1], "angle": 0.4}],
      "joints": [{"type": "revolute", "bodies": ["ground", "arm"], "points": [[0, 0], [-0.5, 0]]},
                 {"type": "revolute", "bodies": ["arm", "rod"], "points": [[0.5, 0], [-0.5, 0]]}],
      "forces": [{"type": "torque", "bodies": ["arm", "rod"],
                  "torque": "T0*(1 - (rod_omega - arm_omega)/w0)*cos(t) + rod_x*arm_theta"}]
})J"},
    {"body-fixed force", R"J({"parameters": {"F": 3, "c": 0.5},
      "bodies": [{"name": "rod", "mass": 1, "inertia": 0.1, "position": [0.5, 0], "angle": 0.2,
                  "centre_of_mass": [0.1, -0.05]}],
      "joints": [{"type": "revolute", "bodies": ["ground", "rod"], "points": [[0, 0], [-0.5, 0]]}],
      "forces": [{"type": "point_force", "body": "rod", "point": [0.5, 0.1], "frame": "body",
                  "force": ["F*sin(t) - c*rod_vx", "-F*rod_theta + rod_omega*rod_y"]}]
})J"},
};

INSTANTIATE_TEST_SUITE_P(Multibody, ElementJacobian, ::testing::ValuesIn(kElements),
                         [](const auto& info) {
                           std::string name = info.param.name;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// --- drivers and roads ---------------------------------------------------------------------

// A body driven in x, y and angle follows the motions, with velocities and accelerations from
// the drivers' central differences (h = 1e-4 (1 + |t|)).
TEST(MultibodyDrivers, CoordinateDriversPrescribeMotion) {
  const auto model = load_multibody_model(json::parse(R"J({"analysis": "kinematic",
    "bodies": [{"name": "b", "position": [0, 0]}],
    "joints": [{"type": "driver", "body": "b", "coordinate": "x", "motion": "sin(t)"},
               {"type": "driver", "body": "b", "coordinate": "y", "motion": "t^2"},
               {"type": "driver", "body": "b", "coordinate": "angle", "motion": "0.5*t"}]
})J"));
  const LoadCaseSpec lc = grid_case(TimeGrid(0.0, 2.0, 9));
  CaseResult out;
  ASSERT_EQ(model->analyse(Eigen::VectorXd(0), lc, {}, out), "");
  for (int k = 0; k < lc.grid.points; ++k) {
    const double t = lc.grid.at(k);
    EXPECT_NEAR(out.histories.at("b.x")(k), std::sin(t), 1e-10);
    EXPECT_NEAR(out.histories.at("b.vx")(k), std::cos(t), 1e-7);
    EXPECT_NEAR(out.histories.at("b.ax")(k), -std::sin(t), 1e-5);
    EXPECT_NEAR(out.histories.at("b.y")(k), t * t, 1e-10);
    EXPECT_NEAR(out.histories.at("b.vy")(k), 2 * t, 1e-7);
    EXPECT_NEAR(out.histories.at("b.ay")(k), 2.0, 1e-5);
    EXPECT_NEAR(out.histories.at("b.theta")(k), 0.5 * t, 1e-10);
    EXPECT_NEAR(out.histories.at("b.omega")(k), 0.5, 1e-7);
  }
}

// A slider driven along an arm that an angle driver turns: the slider's point is at the driven
// distance along the rotating axis, with the velocity and acceleration of that motion (polar
// coordinates: radial r'' - r w^2, tangential 2 r' w).
TEST(MultibodyDrivers, TranslationalDriverMovesAlongTheRotatingAxis) {
  const auto model = load_multibody_model(json::parse(R"J({"analysis": "kinematic",
    "bodies": [{"name": "arm", "position": [0.5, 0]},
               {"name": "slider", "position": [0.6, 0.1], "angle": 0.1}],
    "joints": [{"type": "revolute", "bodies": ["ground", "arm"], "points": [[0, 0], [-0.5, 0]]},
               {"type": "angle_driver", "bodies": ["ground", "arm"], "angle": "0.5*t"},
               {"type": "translational", "bodies": ["arm", "slider"], "points": [[-0.5, 0], [0, 0]]},
               {"type": "translational_driver", "bodies": ["arm", "slider"],
                "points": [[-0.5, 0], [0, 0]], "distance": "0.4 + 0.1*t^2"}],
    "points": [{"name": "tip", "body": "arm", "at": [0.5, 0]}, {"name": "pivot", "body": "ground", "at": [0, 0]}]
})J"));
  const LoadCaseSpec lc = grid_case(TimeGrid(0.0, 2.0, 9));
  CaseResult out;
  ASSERT_EQ(model->analyse(Eigen::VectorXd(0), lc, {}, out), "");
  for (int k = 0; k < lc.grid.points; ++k) {
    const double t = lc.grid.at(k), th = 0.5 * t, w = 0.5;
    const double r = 0.4 + 0.1 * t * t, rd = 0.2 * t, rdd = 0.2;
    const double c = std::cos(th), sn = std::sin(th);
    EXPECT_NEAR(out.histories.at("slider.x")(k), r * c, 1e-9) << "t = " << t;
    EXPECT_NEAR(out.histories.at("slider.y")(k), r * sn, 1e-9) << "t = " << t;
    EXPECT_NEAR(out.histories.at("slider.theta")(k), th, 1e-9) << "t = " << t;
    EXPECT_NEAR(out.histories.at("slider.vx")(k), rd * c - r * w * sn, 1e-6) << "t = " << t;
    EXPECT_NEAR(out.histories.at("slider.vy")(k), rd * sn + r * w * c, 1e-6) << "t = " << t;
    const double radial = rdd - r * w * w, tangential = 2 * rd * w;
    EXPECT_NEAR(out.histories.at("slider.ax")(k), radial * c - tangential * sn, 1e-5)
        << "t = " << t;
    EXPECT_NEAR(out.histories.at("slider.ay")(k), radial * sn + tangential * c, 1e-5)
        << "t = " << t;
    // The arm's tip, 1 from the pivot: circular motion.
    EXPECT_NEAR(out.histories.at("tip.x")(k), c, 1e-9) << "t = " << t;
    EXPECT_NEAR(out.histories.at("tip.y")(k), sn, 1e-9) << "t = " << t;
    EXPECT_NEAR(out.histories.at("tip.vx")(k), -w * sn, 1e-6) << "t = " << t;
    EXPECT_NEAR(out.histories.at("tip.vy")(k), w * c, 1e-6) << "t = " << t;
    EXPECT_NEAR(out.histories.at("tip.ax")(k), -w * w * c, 1e-5) << "t = " << t;
    EXPECT_NEAR(out.histories.at("tip.ay")(k), -w * w * sn, 1e-5) << "t = " << t;
    EXPECT_EQ(out.histories.at("pivot.x")(k), 0.0);
    EXPECT_EQ(out.histories.at("pivot.ay")(k), 0.0);
  }
}

// A road table passed at a speed chosen per load case: the plate's height is the table's value
// at x = speed t - start (exact at the knots), constant before and after the table, and the
// profile is picked by a load-case parameter.
TEST(MultibodyDrivers, RoadProfilesFollowTheTableAndTheLoadCase) {
  const auto model = load_multibody_model(json::parse(R"J({"analysis": "kinematic",
    "load_parameters": {"road": 1, "speed": 2},
    "bodies": [{"name": "plate"}],
    "joints": [{"type": "driver", "body": "plate", "coordinate": "x", "motion": 0},
               {"type": "driver", "body": "plate", "coordinate": "angle", "motion": 0},
               {"type": "driver", "name": "road", "body": "plate", "coordinate": "y",
                "motion": {"road": [{"name": "steps", "table": [[0, 0], [1, 0.1], [2, 0.3],
                                                                [3, 0.3], [4, 0]]},
                                    {"name": "wave", "height": "0.2*sin(x)"}],
                           "select": "road", "speed": "speed", "start": 1
}
}]
})J"));
  CaseResult out;
  const LoadCaseSpec steps = grid_case(TimeGrid(0.0, 4.0, 9), {{"road", 1}});
  ASSERT_EQ(model->analyse(Eigen::VectorXd(0), steps, {}, out), "");
  const Eigen::VectorXd& y = out.histories.at("plate.y");
  // t = 0: x = -1 (before the table); t = 0.5, 1, 1.5, 2, 2.5: the knots 0..4; after: 0.
  const double expected[] = {0, 0, 0.1, 0.3, 0.3, 0, 0, 0, 0};
  for (int k = 0; k < 9; ++k) EXPECT_NEAR(y(k), expected[k], 1e-12) << "t = " << steps.grid.at(k);
  EXPECT_GE(y.minCoeff(), 0.0);  // PCHIP keeps the data's shape: no overshoot below 0
  const LoadCaseSpec wave = grid_case(TimeGrid(0.0, 4.0, 9), {{"road", 2}, {"speed", 3}});
  ASSERT_EQ(model->analyse(Eigen::VectorXd(0), wave, {}, out), "");
  for (int k = 0; k < 9; ++k) {
    const double t = wave.grid.at(k);
    EXPECT_NEAR(out.histories.at("plate.y")(k), 0.2 * std::sin(3 * t - 1), 1e-10);
    EXPECT_NEAR(out.histories.at("plate.vy")(k), 0.6 * std::cos(3 * t - 1), 1e-6);
  }
  const LoadCaseSpec none = grid_case(TimeGrid(0.0, 4.0, 9), {{"road", 3}});
  EXPECT_THAT(model->analyse(Eigen::VectorXd(0), none, {}, out),
              HasSubstr("road = 3 does not pick one of the 2 road profiles"));
}

// --- the staged damper ---------------------------------------------------------------------

// A block driven into and out of a damper at constant speed: the element's force is the staged
// law of damper_law.hpp at that speed, times the stroke weight, with the compression stage
// while the length shrinks and the rebound stage while it grows.
TEST(MultibodyDamper, ForceIsTheStagedLawTimesTheStrokeWeight) {
  const char* text = R"J({"analysis": "kinematic",
    "parameters": {"speed": -0.5},
    "bodies": [{"name": "rod", "position": [0, 1]}],
    "joints": [{"type": "driver", "body": "rod", "coordinate": "x", "motion": 0},
               {"type": "driver", "body": "rod", "coordinate": "angle", "motion": 0},
               {"type": "driver", "body": "rod", "coordinate": "y", "motion": "1 + speed*t"}],
    "forces": [{"type": "spring_damper", "name": "damper", "bodies": ["ground", "rod"],
                "points": [[0, 0], [0, 0]], "length": 1,
                "damper": {"compression": [26.0e6, 8.73e3, 7.11e3, 27.6],
                           "rebound": [11.2e6, 18.3e3, 9.62e3, 3520],
                           "weight": "min(1, max(0, (-0.04 - d)/0.01))"
}
}]
})J";
  const auto model = load_multibody_model(json::parse(text));
  const LoadCaseSpec lc = grid_case(TimeGrid(0.0, 0.2, 21));
  for (double speed : {-0.5, 0.3}) {
    CaseResult out;
    ASSERT_EQ(model->analyse(Eigen::VectorXd::Constant(1, speed), lc, {}, out), "");
    const bool rebound = speed > 0;
    const double F = rebound ? damper_stage(speed, 11.2e6, 18.3e3, 9.62e3, 3520.0)
                             : damper_stage(speed, 26.0e6, 8.73e3, 7.11e3, 27.6);
    for (int k = 0; k < lc.grid.points; ++k) {
      const double d = speed * lc.grid.at(k);
      const double w = std::clamp((-0.04 - d) / 0.01, 0.0, 1.0);
      EXPECT_NEAR(out.histories.at("damper.velocity")(k), speed, 1e-7);
      EXPECT_NEAR(out.histories.at("damper.force")(k), w * F, 1e-6 * std::abs(F))
          << "speed " << speed << ", d = " << d;
    }
    if (!rebound) {
      EXPECT_LT(F, 0);  // the tension is negative in compression: the damper pushes back
      EXPECT_NE(out.histories.at("damper.force")(lc.grid.points - 1), 0.0);  // beyond 0.05 m
      EXPECT_EQ(out.histories.at("damper.force")(0), 0.0);                   // not yet engaged
    }
  }
}

// --- joint reactions -----------------------------------------------------------------------

// A rod of mass m turned at constant speed w about a pivot r from its centre, under gravity
// (kinematic analysis with inverse dynamics): the pivot carries m a - m g and the driver the
// torque m g r cos(theta).
TEST(MultibodyReactions, InverseDynamicsOfADrivenCrank) {
  const auto model = load_multibody_model(json::parse(R"J({"analysis": "kinematic",
    "parameters": {"m": 2.0, "r": 0.4, "w": 3.0},
    "bodies": [{"name": "rod", "mass": "m", "inertia": "m*(2*r)^2/12", "position": ["r", 0]}],
    "joints": [{"type": "revolute", "name": "pivot", "bodies": ["ground", "rod"],
                "points": [[0, 0], ["-r", 0]]},
               {"type": "angle_driver", "name": "motor", "bodies": ["ground", "rod"],
                "angle": "w*t"}]})J"));
  const LoadCaseSpec lc = grid_case(TimeGrid(0.0, 2.0, 11));
  CaseResult out;
  ASSERT_EQ(model->analyse(Eigen::Vector3d(2.0, 0.4, 3.0), lc, {}, out), "");
  const double m = 2.0, r = 0.4, w = 3.0;
  for (int k = 0; k < lc.grid.points; ++k) {
    const double th = w * lc.grid.at(k);
    EXPECT_NEAR(out.histories.at("pivot.fx")(k), -m * w * w * r * std::cos(th), 1e-6);
    EXPECT_NEAR(out.histories.at("pivot.fy")(k), -m * w * w * r * std::sin(th) + m * kG, 1e-6);
    EXPECT_NEAR(out.histories.at("motor.torque")(k), m * kG * r * std::cos(th), 1e-6);
    EXPECT_EQ(out.histories.at("pivot.torque")(k), 0.0);
  }
}

// A uniform rod pinned at one end and released horizontally (dynamic analysis): at t = 0 the
// pin carries m g / 4 upwards and nothing sideways (alpha = 3 g / 2 L).
TEST(MultibodyReactions, PendulumReleasedHorizontally) {
  const auto model = load_multibody_model(json::parse(R"J({
    "bodies": [{"name": "rod", "mass": 2, "inertia": "2*1.5^2/12", "position": [0.75, 0]}],
    "joints": [{"type": "revolute", "name": "pin", "bodies": ["ground", "rod"],
                "points": [[0, 0], [-0.75, 0]]}]})J"));
  const LoadCaseSpec lc = grid_case(TimeGrid(0.0, 0.5, 6));
  IntegratorSettings settings;
  settings.rtol = 1e-10;
  settings.atol = 1e-12;
  CaseResult out;
  ASSERT_EQ(model->analyse(Eigen::VectorXd(0), lc, settings, out), "");
  EXPECT_NEAR(out.histories.at("pin.fy")(0), 2 * kG / 4, 1e-8);
  EXPECT_NEAR(out.histories.at("pin.fx")(0), 0.0, 1e-8);
  EXPECT_NEAR(out.histories.at("rod.alpha")(0), -3 * kG / (2 * 1.5), 1e-8);
}

// --- kinematic sensitivities ---------------------------------------------------------------

// The derivatives of `names` (every grid point) at b by direct, adjoint and central
// differences (`step`): adjoint = direct within `adjoint_tolerance`, central within 1e-5,
// relative to the largest; none trivially zero. Returns the direct evaluation's case.
CaseResult compare_methods(SimulatorSetup setup, const Eigen::VectorXd& b,
                           const std::vector<std::string>& names, double step,
                           double adjoint_tolerance) {
  std::vector<DerivativeRequest> requests;
  for (const auto& name : names) requests.push_back({0, name, {}});
  std::map<std::string, Evaluation> by;
  for (const char* method : {"direct", "adjoint", "central"}) {
    setup.section["gradients"] = {{"method", method}, {"step", step}};
    InternalSimulator sim(setup);
    by[method] = sim.evaluate({{b, requests}}).front();
    EXPECT_TRUE(by[method].ok) << method << ": " << by[method].message;
    if (!by[method].ok) return {};
  }
  for (const auto& name : names) {
    const Eigen::MatrixXd& direct = by["direct"].cases[0].gradients.at(name);
    const Eigen::MatrixXd& adjoint = by["adjoint"].cases[0].gradients.at(name);
    const Eigen::MatrixXd& central = by["central"].cases[0].gradients.at(name);
    const double scale = 1 + direct.cwiseAbs().maxCoeff();
    EXPECT_LT((adjoint - direct).cwiseAbs().maxCoeff(), adjoint_tolerance * scale) << name;
    EXPECT_LT((central - direct).cwiseAbs().maxCoeff(), 1e-5 * scale) << name;
    EXPECT_GT(direct.cwiseAbs().maxCoeff(), 1e-3) << name;  // not trivially zero
  }
  return by["direct"].cases[0];
}

// The driven crank with a coupler and slider (inverse dynamics under gravity): direct and
// adjoint derivatives of positions, accelerations and reactions agree with each other and with
// central differences, at every grid point. The differences use a step of 1e-4: the driver's
// accelerations are second differences in t, whose rounding a smaller step would amplify.
TEST(MultibodyKinematicSensitivities, DirectAndAdjointAgreeWithDifferences) {
  SimulatorSetup setup;
  setup.section = json::parse(R"J({"type": "internal", "model": "multibody",
    "multibody": {"analysis": "kinematic",
      "parameters": {"l1": 1.0, "l2": 2.5, "m2": 3.0, "w": 2.0},
      "bodies": [{"name": "crank", "mass": 1, "inertia": 0.1, "position": ["l1/2", 0]},
                 {"name": "rod", "mass": "m2", "inertia": "m2*l2^2/12",
                  "position": ["l1 + l2/2", 0]},
                 {"name": "slider", "mass": 2, "inertia": 1, "position": ["l1 + l2", 0]}],
      "joints": [{"type": "revolute", "name": "A", "bodies": ["ground", "crank"],
                  "points": [[0, 0], ["-l1/2", 0]]},
                 {"type": "revolute", "name": "B", "bodies": ["crank", "rod"],
                  "points": [["l1/2", 0], ["-l2/2", 0]]},
                 {"type": "revolute", "name": "C", "bodies": ["rod", "slider"],
                  "points": [["l2/2", 0], [0, 0]]},
                 {"type": "translational", "name": "slide", "bodies": ["ground", "slider"]},
                 {"type": "angle_driver", "name": "motor", "bodies": ["ground", "crank"],
                  "angle": "0.3 + w*t"}],
      "points": [{"name": "coupler", "body": "rod", "at": ["l2/4", 0.3]}]}})J");
  setup.design_names = {"l1", "l2", "m2", "w"};
  setup.load_cases = {grid_case(TimeGrid(0.0, 1.0, 6))};
  const Eigen::Vector4d b(1.0, 2.5, 3.0, 2.0);
  const std::vector<std::string> names = {"slider.x",  "rod.ay",     "B.fx",
                                          "slide.fy",  "A.fy",       "motor.torque",
                                          "coupler.y", "coupler.vx", "coupler.ay"};
  compare_methods(setup, b, names, 1e-4, 1e-9);
}

// A pendulum's tip (a marked point) in a dynamic analysis: its position, velocity and
// acceleration histories follow from the rod's, and their derivatives by direct, adjoint and
// central differences agree at every grid point.
TEST(MultibodyPoints, DynamicTipHistoriesAndDerivatives) {
  SimulatorSetup setup;
  setup.section = json::parse(R"J({"type": "internal", "model": "multibody",
    "rtol": 1e-10, "atol": 1e-12,
    "multibody": {"parameters": {"L": 1.5, "m": 2.0},
      "bodies": [{"name": "rod", "mass": "m", "inertia": "m*L^2/12", "position": ["L/2", 0]}],
      "joints": [{"type": "revolute", "bodies": ["ground", "rod"], "points": [[0, 0], ["-L/2", 0]]}],
      "points": [{"name": "tip", "body": "rod", "at": ["L/2", 0]}]}})J");
  setup.design_names = {"L", "m"};
  setup.load_cases = {grid_case(TimeGrid(0.0, 0.6, 7))};
  const Eigen::Vector2d b(1.5, 2.0);
  const std::vector<std::string> names = {"tip.x", "tip.vy", "tip.ax", "tip.ay"};
  const CaseResult r = compare_methods(setup, b, names, 1e-5, 1e-6);
  for (int k = 0; k < 7; ++k) {
    const double th = r.histories.at("rod.theta")(k), w = r.histories.at("rod.omega")(k),
                 al = r.histories.at("rod.alpha")(k);
    EXPECT_NEAR(r.histories.at("tip.x")(k), 1.5 * std::cos(th), 1e-9);
    EXPECT_NEAR(r.histories.at("tip.vy")(k), 1.5 * w * std::cos(th), 1e-9);
    // Not closer: the Baumgarte terms let the accelerations violate the constraints by the
    // (small) drift of the positions.
    EXPECT_NEAR(r.histories.at("tip.ay")(k), 1.5 * (al * std::cos(th) - w * w * std::sin(th)),
                1e-6);
  }
}

// A pendulum hung from a base fixed to the ground: with a massless base the augmented matrix
// is still regular (the base cannot move) but has no Schur complement, so a run takes the
// dense LU there. The pendulum moves the same, its derivatives agree by every method, and its
// integral and gradient are those of the same pendulum on a base with mass.
TEST(MultibodyRun, MasslessFixedBodyTakesTheDenseSolveWithTheSameResults) {
  auto setup = [](double base_mass) {
    SimulatorSetup s;
    s.section = json::parse(R"J({"type": "internal", "model": "multibody",
      "rtol": 1e-10, "atol": 1e-12,
      "multibody": {"parameters": {"L": 1.5, "m": 2.0},
        "bodies": [{"name": "base", "mass": 0, "inertia": 0, "position": [0, 0.2]},
                   {"name": "rod", "mass": "m", "inertia": "m*L^2/12", "position": ["L/2", 0]}],
        "joints": [{"type": "fixed", "bodies": ["ground", "base"], "points": [[0, 0.2], [0, 0]]},
                   {"type": "revolute", "bodies": ["base", "rod"],
                    "points": [[0, -0.2], ["-L/2", 0]]}],
        "integrals": [{"name": "drop", "integrand": "L*rod_y^2 + rod_omega^2"}]}})J");
    s.section["multibody"]["bodies"][0]["mass"] = base_mass;
    s.section["multibody"]["bodies"][0]["inertia"] = base_mass;
    s.design_names = {"L", "m"};
    s.load_cases = {grid_case(TimeGrid(0.0, 0.6, 7))};
    return s;
  };
  const Eigen::Vector2d b(1.5, 2.0);
  const CaseResult massless = compare_methods(setup(0.0), b, {"drop", "rod.theta"}, 1e-5, 1e-7);
  const CaseResult heavy = compare_methods(setup(5.0), b, {"drop", "rod.theta"}, 1e-5, 1e-7);
  ASSERT_FALSE(massless.histories.empty());
  ASSERT_FALSE(heavy.histories.empty());
  EXPECT_LT(
      (massless.histories.at("rod.theta") - heavy.histories.at("rod.theta")).cwiseAbs().maxCoeff(),
      1e-8);
  EXPECT_NEAR(massless.scalars.at("drop"), heavy.scalars.at("drop"), 1e-8);
  EXPECT_LT((massless.gradients.at("drop") - heavy.gradients.at("drop")).cwiseAbs().maxCoeff(),
            1e-7);
  // The base's weight hangs on the fixed joint only when it has mass.
  EXPECT_NEAR(massless.histories.at("base.y")(3), 0.2, 1e-9);
}

// The integrands' Jacobian of a run (the expressions' own gradients mapped onto x and the
// active parameters) against AD through the model's output, with an integrand that reads
// parameters, t, coordinates and velocities.
TEST(MultibodyRun, IntegrandJacobianMatchesAd) {
  ElementPoint e(R"J({"parameters": {"L": 1.2, "m": 2.0, "w": 0.7},
      "bodies": [{"name": "rod", "mass": "m", "inertia": "m*L^2/12", "position": ["L/2", 0],
                  "angle": 0.3}],
      "joints": [{"type": "revolute", "bodies": ["ground", "rod"],
                  "points": [[0, 0], ["-L/2", 0]]}],
      "integrals": [{"name": "a", "integrand": "w*rod_x*rod_vy + sin(t)*L*rod_theta^2"},
                    {"name": "b", "integrand": "m*rod_omega^2 + rod_y"}]})J");
  const std::vector<int> active = {2, 0};  // w, L: not in model order
  const int n = e.n(), size = n + 2;
  const int first = static_cast<int>(e.ode().history_outputs().size());
  Eigen::MatrixXd expected(2, size);
  for (int k = 0; k < 2; ++k) {
    std::vector<AD> xa, pa;
    seed_ad(e.x.data(), n, e.p, active, xa, pa);
    expected.row(k) = e.ode().output(first + k, e.t, xa.data(), pa.data(), e.lc).derivatives();
  }
  Eigen::MatrixXd got;
  e.ode().instance(e.p, e.lc, active)->integrand_jacobian(e.t, e.x.data(), got);
  ASSERT_EQ(got.rows(), 2);
  ASSERT_EQ(got.cols(), size);
  EXPECT_LT((got - expected).cwiseAbs().maxCoeff(), 1e-12 * (1 + expected.cwiseAbs().maxCoeff()));
  EXPECT_GT(expected.col(n).cwiseAbs().maxCoeff(), 0.01);  // w reaches the first integrand
}

// --- the quarter truck ---------------------------------------------------------------------

// problems/truck-damper/quarter-car-multibody.json against the dedicated model of
// quarter-car.json at the start design, on the three roads.
TEST(MultibodyQuarterCar, MatchesTheDedicatedModel) {
  std::ifstream in(std::string(SAO_SOURCE_DIR) +
                   "/problems/truck-damper/quarter-car-multibody.json");
  const json section = json::parse(in).at("simulator");
  const auto model = load_multibody_model(section.at("multibody"));
  IntegratorSettings settings;
  settings.rtol = 1e-8;
  settings.atol = 1e-10;
  // The study's start, in each model's parameter order.
  const std::map<std::string, double> start = {{"bleed_c", 10},    {"preload_c", 20},
                                               {"blowoff_c", 0.7}, {"bleed_r", 10},
                                               {"preload_r", 20},  {"blowoff_r", 0.7}};
  auto parameters = [&](const Model& m) {
    Eigen::VectorXd p(6);
    for (int i = 0; i < 6; ++i) p(i) = start.at(m.parameters()[i]);
    return p;
  };
  for (int road = 1; road <= 3; ++road) {
    const double speed = road == 1 ? 15 : (road == 2 ? 80 : 25);
    const LoadCaseSpec lc = grid_case(TimeGrid(0.0, 3.0, 601), {{"road", road}, {"speed", speed}});
    CaseResult mb, qc;
    ASSERT_EQ(model->analyse(parameters(*model), lc, settings, mb), "");
    ASSERT_EQ(quarter_car_model().analyse(parameters(quarter_car_model()), lc, settings, qc), "");
    auto expect_close = [&](const Eigen::VectorXd& a, const Eigen::VectorXd& b, const char* what) {
      const double scale = b.cwiseAbs().maxCoeff();
      EXPECT_LT((a - b).cwiseAbs().maxCoeff(), 1e-4 * scale) << what << ", road " << road;
    };
    expect_close(mb.histories.at("suspension.length").array() - 1.0, qc.histories.at("deflection"),
                 "deflection");
    expect_close(mb.histories.at("chassis.ay"), qc.histories.at("chassis_acceleration"),
                 "acceleration");
    expect_close(mb.histories.at("tyre.length").array() - 0.5, qc.histories.at("tyre_deflection"),
                 "tyre");
    expect_close(mb.histories.at("road.y"), qc.histories.at("road"), "road");
  }
}

// --- bad descriptions ----------------------------------------------------------------------

// Singular equations name the time and what makes them singular: the joints whose equations
// repeat the others' (two bodies pinned to the ground at one point and to each other there:
// found at assembly), or a free body without mass (in the equations of motion).
TEST(MultibodyElements, SingularMotionNamesTheJointOrTheBody) {
  auto failure = [](const std::string& model) {
    const auto m = load_multibody_model(json::parse(model));
    CaseResult out;
    return m->analyse(Eigen::VectorXd(0), grid_case(TimeGrid(0.0, 1.0, 3)), {}, out);
  };
  const std::string redundant = failure(R"J({
    "bodies": [{"name": "a", "mass": 1, "inertia": 1, "position": [0.5, 0]},
               {"name": "b", "mass": 1, "inertia": 1, "position": [-0.5, 0]},
               {"name": "c", "mass": 1, "inertia": 1, "position": [0, 2]}],
    "joints": [{"type": "revolute", "name": "pa", "bodies": ["ground", "a"],
                "points": [[0, 0], [-0.5, 0]]},
               {"type": "revolute", "name": "pb", "bodies": ["ground", "b"],
                "points": [[0, 0], [0.5, 0]]},
               {"type": "revolute", "name": "ab", "bodies": ["a", "b"],
                "points": [[-0.5, 0], [0.5, 0]]}]})J");
  EXPECT_THAT(redundant, HasSubstr("assembly at t = 0: the equations of joint "));
  EXPECT_THAT(redundant, HasSubstr("depend on the other joints' (lock-up or a redundant joint)"));
  EXPECT_THAT(redundant, ::testing::ContainsRegex("joint (pa|pb|ab)"));
  const std::string massless = failure(R"J({
    "bodies": [{"name": "rod", "mass": 1, "inertia": 1},
               {"name": "ghost", "mass": 0, "inertia": 1, "position": [1, 0]}]})J");
  EXPECT_THAT(massless, HasSubstr("singular equations of motion at t = 0"));
  EXPECT_THAT(massless, HasSubstr("body ghost has no mass or no inertia"));
}

TEST(MultibodyElements, BadDescriptionsNameTheirPath) {
  auto error = [](const std::string& joints_and_forces) {
    try {
      load_multibody_model(json::parse(R"J({"load_parameters": {"road": 1},
        "bodies": [{"name": "a", "mass": 1, "inertia": 1}], )J" +
                                       joints_and_forces + "}"));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error(R"J("joints": [{"type": "driver", "body": "a", "coordinate": "z",
                                   "motion": 0}])J"),
              HasSubstr("joints[0].coordinate: expected \"x\", \"y\" or \"angle\""));
  EXPECT_THAT(error(R"J("joints": [{"type": "driver", "body": "a", "coordinate": "y"}])J"),
              HasSubstr("joints[0].motion: missing"));
  EXPECT_THAT(error(R"J("joints": [{"type": "translational_driver", "bodies": ["ground", "a"]}])J"),
              HasSubstr("joints[0].distance: missing"));
  EXPECT_THAT(error(R"J("joints": [{"type": "translational", "bodies": ["ground", "a"],
                                   "distance": 1}])J"),
              HasSubstr("joints[0].distance: belongs to a translational_driver"));
  EXPECT_THAT(error(R"J("joints": [{"type": "driver", "body": "a", "coordinate": "y",
      "motion": {"road": [{"table": [[0, 0], [1, 1], [2, 0]]}], "speed": 1}}])J"),
              HasSubstr("joints[0].motion.road[0].table: expected at least 4 points"));
  EXPECT_THAT(error(R"J("joints": [{"type": "driver", "body": "a", "coordinate": "y",
      "motion": {"road": [{"table": [[0, 0], [1, 1], [1, 0], [2, 0]]}], "speed": 1}}])J"),
              HasSubstr("motion.road[0].table[2]: x must increase"));
  EXPECT_THAT(error(R"J("joints": [{"type": "driver", "body": "a", "coordinate": "y",
      "motion": {"road": [{"height": "x"}, {"height": "2*x"}], "select": "lane", "speed": 1}}])J"),
              HasSubstr("motion.select: expected the name of a load-case parameter"));
  EXPECT_THAT(error(R"J("joints": [{"type": "driver", "body": "a", "coordinate": "y",
      "motion": {"road": [{"height": "x"}, {"height": "2*x"}], "speed": 1}}])J"),
              HasSubstr("motion.select: missing"));
  EXPECT_THAT(error(R"J("forces": [{"type": "spring_damper", "bodies": ["ground", "a"],
      "damper": {"compression": [1, 2, 3], "rebound": [1, 2, 3, 4]}}])J"),
              HasSubstr("forces[0].damper.compression: expected [B0, B1, B2, B3]"));
  EXPECT_THAT(error(R"J("forces": [{"type": "spring_damper", "bodies": ["ground", "a"],
      "law": "k*d"}])J"),
              HasSubstr("forces[0].law: column 1: unknown name \"k\""));
  EXPECT_THAT(error(R"J("forces": [{"type": "rotational_spring_damper", "bodies": ["ground", "a"],
      "law": "d"}])J"),
              HasSubstr("\"law\" and \"damper\" belong to a spring_damper"));
}

}  // namespace
}  // namespace sao::sim
