#include "sao/optimizer/subproblem.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "sao/optimizer/approximation.hpp"
#include "sao/study/study_loader.hpp"

namespace sao {
namespace {

// Two variables in [0.1, 10], one scalar response r; F and the constraint are given per test.
Study two_variable_study(const nlohmann::json& objective, const nlohmann::json& constraints) {
  nlohmann::json d = {{"design_variables",
                       {{{"name", "b1"}, {"lower", 0.1}, {"upper", 10.0}, {"initial", 1.0}},
                        {{"name", "b2"}, {"lower", 0.1}, {"upper", 10.0}, {"initial", 1.0}}}},
                      {"load_cases", {{{"name", "only"}}}},
                      {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
                      {"objective", objective},
                      {"constraints", constraints},
                      {"simulator", {{"type", "none"}}}};
  return load_study(d);
}

Evaluation linear_response(double value, double d1, double d2) {
  Evaluation e;
  e.cases.resize(1);
  e.cases[0].scalars["r"] = value;
  e.cases[0].gradients["r"] = Eigen::RowVector2d(d1, d2);
  e.has_gradients = true;
  return e;
}

struct Assembled {
  Study study;
  Evaluation evaluation;
  std::unique_ptr<LinearApproximation> approximation;
  ApproximateProblem problem;
};

// Retains every constraint (one row each) around x0 = (1, 1) with move factors m.
void assemble(Assembled& a, double m) {
  a.problem.study = &a.study;
  a.problem.x0 = Eigen::Vector2d(1.0, 1.0);
  a.approximation = std::make_unique<LinearApproximation>(a.study, a.evaluation, a.problem.x0);
  a.problem.model = a.approximation.get();
  for (size_t j = 0; j < a.study.constraints.size(); ++j) {
    a.problem.rows.push_back(
        {static_cast<int>(j), 0,
         constraint_normaliser(a.study, a.study.constraints[j], a.problem.x0)});
  }
  set_subregion(a.study, Eigen::Vector2d(m, m), a.problem);
}

TEST(Subproblem, RelativeSubregionFollowsEq320) {
  Assembled a{two_variable_study({{"maximize", {{"variable", "b1"}}}}, nlohmann::json::array()),
              linear_response(3.0, 1.0, 2.0),
              nullptr,
              {}};
  a.problem.x0 = Eigen::Vector2d(2.0, 0.3);
  set_subregion(a.study, Eigen::Vector2d(0.4, 0.4), a.problem);
  EXPECT_NEAR(a.problem.lower(0), 1.2, 1e-12);
  EXPECT_NEAR(a.problem.upper(0), 2.8, 1e-12);
  EXPECT_NEAR(a.problem.lower(1), 0.18, 1e-12);
  EXPECT_NEAR(a.problem.upper(1), 0.42, 1e-12);
  a.problem.x0 = Eigen::Vector2d(9.0, 0.15);  // clipped by the bounds
  set_subregion(a.study, Eigen::Vector2d(0.4, 0.4), a.problem);
  EXPECT_DOUBLE_EQ(a.problem.upper(0), 10.0);
  EXPECT_DOUBLE_EQ(a.problem.lower(1), 0.1);
}

// Hand-solved LP: max b1 + b2 s.t. b1 + 2 b2 <= 4 in the box [0.1, 1.9]^2 (m = 0.9 around
// (1, 1)): b1 = 1.9 on its move limit, b2 = (4 - 1.9) / 2 = 1.05 on the constraint.
TEST(Subproblem, LpMatchesHandSolvedCase) {
  // Objective: maximise b1 + b2 = minimise -(b1 + b2).
  Study s = two_variable_study({{"maximize", "b1 + b2"}},
                               {{{"of", {{"response", "r"}}}, {"upper", 4.0}}});
  Assembled a{s, linear_response(3.0, 1.0, 2.0), nullptr, {}};
  assemble(a, 0.9);
  const SubproblemResult r = solve_subproblem(a.problem, Options{});
  ASSERT_EQ(r.status, SubproblemStatus::kOptimal) << r.message;
  EXPECT_NEAR(r.x(0), 1.9, 1e-9);
  EXPECT_NEAR(r.x(1), 1.05, 1e-9);
  EXPECT_NEAR(r.objective, -2.95, 1e-9);
  // The row value at the optimum is on the bound: g_hat~ = 0.
  EXPECT_NEAR(a.problem.row_value(0, r.x), 0.0, 1e-9);
}

TEST(Subproblem, BoundFormulationMinimisesTheAuxiliary) {
  // minimise b3 s.t. r <= b3 and -r <= b3, r = 0.5 + (b1 - 1) - 2 (b2 - 1) near (1, 1):
  // within [0.5, 1.5]^2 the smallest |r| is 0, reached on a line; b3* = 0.
  nlohmann::json d = {
      {"design_variables",
       {{{"name", "b1"}, {"lower", 0.1}, {"upper", 10.0}, {"initial", 1.0}, {"move_limit", 0.5}},
        {{"name", "b2"}, {"lower", 0.1}, {"upper", 10.0}, {"initial", 1.0}, {"move_limit", 0.5}}}},
      {"auxiliary_variables", {{{"name", "b3"}, {"lower", 0.0}, {"initial", 0.6}}}},
      {"load_cases", {{{"name", "only"}}}},
      {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
      {"objective", {{"minimize_max", {{"response", "r"}, {"abs", true}}}, {"auxiliary", "b3"}}},
      {"simulator", {{"type", "none"}}}};
  Study s = load_study(d);
  ASSERT_EQ(s.constraints.size(), 2u);
  Assembled a{s, linear_response(0.5, 1.0, -2.0), nullptr, {}};
  a.problem.study = &a.study;
  a.problem.x0 = Eigen::Vector3d(1.0, 1.0, 0.6);
  a.approximation = std::make_unique<LinearApproximation>(a.study, a.evaluation, a.problem.x0);
  a.problem.model = a.approximation.get();
  for (int j = 0; j < 2; ++j) a.problem.rows.push_back({j, 0, 0.6});
  set_subregion(a.study, Eigen::Vector2d(0.5, 0.5), a.problem);
  EXPECT_TRUE(std::isinf(a.problem.upper(2)));  // no move limit on the auxiliary
  const SubproblemResult r = solve_subproblem(a.problem, Options{});
  ASSERT_EQ(r.status, SubproblemStatus::kOptimal) << r.message;
  EXPECT_NEAR(r.x(2), 0.0, 1e-9);
  EXPECT_NEAR(0.5 + (r.x(0) - 1.0) - 2.0 * (r.x(1) - 1.0), 0.0, 1e-9);
}

TEST(Subproblem, InfeasibleLpIsRelaxed) {
  // r = b1 + b2 >= 10 cannot hold in [0.6, 1.4]^2: the relaxed LP moves as far as it can.
  Study s = two_variable_study({{"minimize", {{"variable", "b1"}}}},
                               {{{"of", {{"response", "r"}}}, {"lower", 10.0}}});
  Assembled a{s, linear_response(2.0, 1.0, 1.0), nullptr, {}};
  assemble(a, 0.4);
  for (bool phase1 : {true, false}) {  // two stages, or the seed's weighted relaxation
    Options o;
    o.feasibility_first = phase1;
    const SubproblemResult r = solve_subproblem(a.problem, o);
    ASSERT_EQ(r.status, SubproblemStatus::kRelaxed) << r.message;
    EXPECT_NEAR(r.x(0), 1.4, 1e-6);
    EXPECT_NEAR(r.x(1), 1.4, 1e-9);
    EXPECT_NEAR(r.relaxation, (10.0 - 2.8) / 10.0, 1e-9);  // normalised remaining violation
  }
}

// Phase 1 with a correct objective (LP and NLP): every row decreases in b1 and b2, the
// objective prefers small b2. Stage 1 finds the least violation the subregion allows, stage 2
// the best objective at that violation: b1 at its upper move limit carries the feasibility,
// and b2 stays where the objective wants it, as long as the violation does not grow. Never b0.
TEST(Subproblem, PhaseOneMovesTowardFeasibilityWithTheRightObjective) {
  // r = 10 b1 - 0 b2 (response 2 + 10 (b1 - 1)), r >= 100: at (1, 1) g_hat = 9 (10-fold).
  Study s = two_variable_study({{"minimize", "b2 - 0.001 * b1"}},
                               {{{"of", {{"response", "r"}}}, {"lower", 100.0}}});
  Assembled a{s, linear_response(10.0, 10.0, 0.0), nullptr, {}};
  assemble(a, 0.4);
  for (bool nlp : {false, true}) {
    Options o;
    o.subproblem = nlp ? SubproblemSolver::kNlp : SubproblemSolver::kAuto;
    const SubproblemResult r = solve_subproblem(a.problem, o);
    ASSERT_EQ(r.status, SubproblemStatus::kRelaxed) << r.message;
    EXPECT_NEAR(r.x(0), 1.4, 1e-6) << (nlp ? "nlp" : "lp");  // toward feasibility
    EXPECT_NEAR(r.x(1), 0.6, 1e-6) << (nlp ? "nlp" : "lp");  // and the objective's choice
    EXPECT_NEAR(r.relaxation, (100.0 - 14.0) / 100.0, 1e-6);
  }
}

// The NLP path on the hand-solved LP: both NLopt algorithms find the same vertex.
TEST(Subproblem, NlpMatchesTheLpOnTheHandSolvedCase) {
  Study s = two_variable_study({{"maximize", "b1 + b2"}},
                               {{{"of", {{"response", "r"}}}, {"upper", 4.0}}});
  Assembled a{s, linear_response(3.0, 1.0, 2.0), nullptr, {}};
  assemble(a, 0.9);
  for (bool mma : {false, true}) {
    Options o;
    o.subproblem = SubproblemSolver::kNlp;
    o.nlp_algorithm = mma ? NlpAlgorithm::kMma : NlpAlgorithm::kSlsqp;
    const SubproblemResult r = solve_subproblem(a.problem, o);
    ASSERT_EQ(r.status, SubproblemStatus::kOptimal) << r.message;
    EXPECT_NEAR(r.x(0), 1.9, 1e-6) << (mma ? "mma" : "slsqp");
    EXPECT_NEAR(r.x(1), 1.05, 1e-6) << (mma ? "mma" : "slsqp");
  }
}

TEST(Subproblem, NlpRelaxesAnInfeasibleProblem) {
  Study s = two_variable_study({{"minimize", {{"variable", "b1"}}}},
                               {{{"of", {{"response", "r"}}}, {"lower", 10.0}}});
  Assembled a{s, linear_response(2.0, 1.0, 1.0), nullptr, {}};
  assemble(a, 0.4);
  for (bool phase1 : {true, false}) {
    Options o;
    o.subproblem = SubproblemSolver::kNlp;
    o.feasibility_first = phase1;
    const SubproblemResult r = solve_subproblem(a.problem, o);
    ASSERT_EQ(r.status, SubproblemStatus::kRelaxed) << r.message;
    EXPECT_NEAR(r.x(0), 1.4, 1e-6);
    EXPECT_NEAR(r.x(1), 1.4, 1e-6);
    EXPECT_NEAR(r.relaxation, (10.0 - 2.8) / 10.0, 1e-6);
  }
}

// A relation stationary at x0: g = 4 - (b1 - 1)^2 <= 2 has a zero gradient at x0 = (1, 1) and
// no feasible point in [0.1, 1.9] (m = 0.9); the least violation is on the edges, 3.19 -> 0.595
// normalised. A local solver started at x0 stays there (the multi-point freeze: the cycle
// proposes b0 again); started also at a design of `starts` (the plan points) it finds the edge.
TEST(Subproblem, NlpAlsoStartsFromTheGivenStarts) {
  Study s = two_variable_study({{"minimize", {{"variable", "b2"}}}},
                               {{{"of", "4 - (b1 - 1)^2"}, {"upper", 2.0}}});
  Assembled a{s, linear_response(3.0, 0.0, 0.0), nullptr, {}};
  assemble(a, 0.9);
  a.problem.linear = false;
  Options o;
  o.feasibility_first = false;  // the seed's relaxation, as the multi-point strategy runs it
  const SubproblemResult stuck = solve_subproblem(a.problem, o);
  ASSERT_EQ(stuck.status, SubproblemStatus::kRelaxed) << stuck.message;
  EXPECT_NEAR(stuck.x(0), 1.0, 1e-9);
  a.problem.starts = {Eigen::Vector2d(1.0, 1.0), Eigen::Vector2d(1.9, 1.0)};
  for (bool phase1 : {false, true}) {
    o.feasibility_first = phase1;
    const SubproblemResult r = solve_subproblem(a.problem, o);
    ASSERT_EQ(r.status, SubproblemStatus::kRelaxed) << r.message;
    EXPECT_NEAR(r.x(0), 1.9, 1e-6);
    EXPECT_NEAR(r.x(1), 0.1, 1e-6);  // the objective, at the least violation
    EXPECT_NEAR(r.relaxation, (3.19 - 2.0) / 2.0, 1e-6);
  }
}

// Nonlinear in b: r = 3 / b1 approximated in the reciprocal variable is exact, so the NLP
// finds min b1 s.t. 3 / b1 <= 2, i.e. b1 = 1.5, inside the subregion [0.1, 1.9] (m = 0.9).
TEST(Subproblem, NonlinearApproximationGoesToTheNlp) {
  nlohmann::json d = {{"design_variables",
                       {{{"name", "b1"},
                         {"lower", 0.1},
                         {"upper", 10.0},
                         {"initial", 1.0},
                         {"intermediate", "reciprocal"}},
                        {{"name", "b2"}, {"lower", 0.1}, {"upper", 10.0}, {"initial", 1.0}}}},
                      {"load_cases", {{{"name", "only"}}}},
                      {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
                      {"objective", {{"minimize", {{"variable", "b1"}}}}},
                      {"constraints", {{{"of", {{"response", "r"}}}, {"upper", 2.0}}}},
                      {"simulator", {{"type", "none"}}}};
  Assembled a{load_study(d), linear_response(3.0, -3.0, 0.0), nullptr, {}};
  assemble(a, 0.9);
  a.problem.linear = linear_problem(a.study, a.problem.rows);
  ASSERT_FALSE(a.problem.linear);
  const SubproblemResult r = solve_subproblem(a.problem, Options{});
  ASSERT_EQ(r.status, SubproblemStatus::kOptimal) << r.message;
  EXPECT_NEAR(r.x(0), 1.5, 1e-6);
}

TEST(Subproblem, UnboundedAuxiliaryIsReportedNotThrown) {
  nlohmann::json d = {
      {"design_variables", {{{"name", "b1"}, {"lower", 0.1}, {"upper", 10.0}, {"initial", 1.0}}}},
      {"auxiliary_variables", {{{"name", "free"}, {"initial", 0.0}}}},
      {"load_cases", {{{"name", "only"}}}},
      {"objective", {{"minimize", {{"variable", "free"}}}}},
      {"simulator", {{"type", "none"}}}};
  Study s = load_study(d);
  Evaluation e;
  e.cases.resize(1);
  ApproximateProblem p;
  p.study = &s;
  p.x0 = Eigen::Vector2d(1.0, 0.0);
  ExactResponses exact(s, e);
  p.model = &exact;
  set_subregion(s, Eigen::VectorXd::Constant(1, 0.4), p);
  const SubproblemResult r = solve_subproblem(p, Options{});
  EXPECT_EQ(r.status, SubproblemStatus::kFailed);
  EXPECT_NE(r.message.find("unbounded"), std::string::npos) << r.message;
}

// Five rows of a subproblem of the truck damper study (constraint 0.upper = 18, start 1, cycle
// 5), in full precision: a bound row of the auxiliary b7 (last column), and acceleration rows.
// They cannot all hold in the box (HiGHS, and GLPK unscaled or exact, say infeasible), yet
// GLPK's primal simplex with automatic scaling ends "optimal" at a design that violates a row
// by 0.04. The LP path must not take that for a feasible design: the run then never made a
// feasibility step and stalled.
TEST(Subproblem, AnLpGlpkCallsOptimalWhileViolatingARowIsSolvedAgain) {
  Eigen::MatrixXd A(5, 7);
  A << -0.0078669997830037898, -0.00019866656565162175, -9.7021409384594439e-05,
      3.1693086975326725e-12, 2.6122087820227679e-16, 2.3338446820819476e-19, -1.0,
      8.2001136025337651e-06, 1.0801465643545949e-07, 3.1495854600378177e-08,
      -2.2292903385656843e-07, -5.141661921193019e-07, -1.3484683898015274e-07, -1.0,
      0.013788896300545595, 0.00030021361455607288, 0.00091021022107714016, -0.00099710234339945246,
      0.0021087261499099204, 0.0027326855693308809, 0.0, 0.11121247758279912, 0.0028807122297034994,
      0.0013844533072212056, -5.9933704080696479e-05, 0.0011486956271716947, 0.00068644526503248982,
      0.0, -0.053005974319158405, -0.0027052527524541927, -0.0012426022264623512,
      -0.001002683216110098, 0.0029438607001586806, 0.0035264676060898256, 0.0;
  Eigen::VectorXd rhs(5);
  rhs << -0.095652481116780361, -0.00014973373485553304, 0.0999537610608143, 0.43862402056250993,
      0.1869043884927713;
  Eigen::VectorXd lower(7), upper(7), c = Eigen::VectorXd::Zero(7);
  lower << 0.29999999999999999, 34.299999999999997, 0.69999999999999996, 20.350000000000001,
      50.829995243352016, 4.0087779888595119, 0.0;
  upper << 1.3490000000000002, 63.700000000000003, 2.9210000000000003, 22.0, 68.769993564535085,
      6.0877779888595107, std::numeric_limits<double>::infinity();
  c(6) = 1.0;
  Eigen::VectorXd x;
  double relaxation = 0.0;
  std::string message;
  const LpOutcome plain = solve_lp(c, A, rhs, lower, upper, false, 0.0, x, relaxation, message);
  if (plain == LpOutcome::kOptimal) {
    EXPECT_LE((A * x - rhs).maxCoeff(), 1e-6) << "an \"optimal\" design that violates a row";
  }
  EXPECT_EQ(plain, LpOutcome::kInfeasible) << message;
  // Relaxed, the least violation is positive and the design satisfies the relaxed rows.
  const LpOutcome least =
      solve_lp(Eigen::VectorXd::Zero(7), A, rhs, lower, upper, true, 1.0, x, relaxation, message);
  ASSERT_EQ(least, LpOutcome::kOptimal) << message;
  EXPECT_GT(relaxation, 1e-3);
  EXPECT_LE((A * x - rhs).maxCoeff() - relaxation, 1e-6);
}

}  // namespace
}  // namespace sao
