// GLPK ends the process (abort) on what it takes for a programming error; glpk_call turns that
// into a GlpkError, and the LP of the subproblem falls back to an unscaled solve when GLPK's
// scaling stops on coefficients near the ends of the double range (found by fuzzing studies:
// a response 1e-300 x, a bound of -1e308).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "sao/optimizer/glpk_problem.hpp"
#include "sao/optimizer/subproblem.hpp"

namespace sao {
namespace {

using ::testing::HasSubstr;

// min x1 + x2 over [0, 1]^2 with x1 + x2 >= 1 (as -x1 - x2 <= -1): optimum 1.
double solve_small_lp() {
  GlpkProblem lp(glp_create_prob());
  glp_term_out(GLP_OFF);
  glp_set_obj_dir(lp.get(), GLP_MIN);
  glp_add_cols(lp.get(), 2);
  glp_add_rows(lp.get(), 1);
  for (int j = 1; j <= 2; ++j) {
    glp_set_col_bnds(lp.get(), j, GLP_DB, 0.0, 1.0);
    glp_set_obj_coef(lp.get(), j, 1.0);
  }
  glp_set_row_bnds(lp.get(), 1, GLP_UP, 0.0, -1.0);
  int ia[] = {0, 1, 1}, ja[] = {0, 1, 2};
  double ar[] = {0.0, -1.0, -1.0};
  glp_load_matrix(lp.get(), 2, ia, ja, ar);
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  EXPECT_EQ(glp_simplex(lp.get(), &parm), 0);
  return glp_get_obj_val(lp.get());
}

TEST(GlpkGuard, AFatalGlpkErrorIsAnExceptionAndGlpkWorksAfterwards) {
  GlpkProblem before(glp_create_prob());  // freed with GLPK's environment: not deleted again
  glp_add_cols(before.get(), 1);
  std::string what;
  try {
    // Column 5 of a problem with one: GLPK's error hook, an abort without the guard.
    glpk_call([&] { glp_set_col_bnds(before.get(), 5, GLP_LO, 0.0, 0.0); });
  } catch (const GlpkError& e) {
    what = e.what();
  }
  EXPECT_THAT(what, HasSubstr("GLPK stopped: glp_set_col_bnds: j = 5"));
  EXPECT_THAT(what, ::testing::Not(HasSubstr("Error detected in file")));
  EXPECT_DOUBLE_EQ(solve_small_lp(), 1.0);
  // A guarded call that succeeds returns normally and leaves GLPK's hooks as they were.
  GlpkProblem fine(glp_create_prob());
  int columns = 0;
  glpk_call([&] { columns = glp_add_cols(fine.get(), 3); });
  EXPECT_EQ(columns, 1);
  EXPECT_DOUBLE_EQ(solve_small_lp(), 1.0);
}

TEST(GlpkGuard, AnLpWithCoefficientsNearTheEndsOfTheDoubleRangeIsSolvedUnscaled) {
  // min x2 + 1e-300 x1 s.t. 1e-300 x1 <= 1e-300 on [0.5, 2]^2: GLPK's scaling stops on it
  // (a scale factor of 0).
  const Eigen::Vector2d c(1e-300, 1.0);
  Eigen::MatrixXd A(1, 2);
  A << 1e-300, 0.0;
  const Eigen::VectorXd rhs = Eigen::VectorXd::Constant(1, 1e-300);
  const Eigen::Vector2d lower(0.5, 0.5), upper(2.0, 2.0);
  Eigen::VectorXd x;
  double relaxation = 0.0;
  std::string message;
  const LpOutcome out = solve_lp(c, A, rhs, lower, upper, false, 0.0, x, relaxation, message);
  ASSERT_EQ(out, LpOutcome::kOptimal) << message;
  EXPECT_DOUBLE_EQ(x(1), 0.5);
  EXPECT_GE(x(0), 0.5);
  EXPECT_LE(x(0), 1.0 + 1e-12);
}

TEST(GlpkGuard, AnLpWithDataThatAreNotFiniteIsAnErrorSayingSo) {
  const Eigen::Vector2d c(std::numeric_limits<double>::quiet_NaN(), 1.0);
  Eigen::MatrixXd A(1, 2);
  A << 1.0, 1.0;
  const Eigen::VectorXd rhs = Eigen::VectorXd::Constant(1, 1.0);
  const Eigen::Vector2d lower(0.0, 0.0), upper(1.0, 1.0);
  Eigen::VectorXd x;
  double relaxation = 0.0;
  std::string message;
  EXPECT_EQ(solve_lp(c, A, rhs, lower, upper, false, 0.0, x, relaxation, message),
            LpOutcome::kError);
  EXPECT_THAT(message, HasSubstr("not finite"));
}

}  // namespace
}  // namespace sao
