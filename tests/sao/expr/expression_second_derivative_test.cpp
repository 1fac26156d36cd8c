// Evaluator::value(point, variable, first, second): the exact first and second derivatives of
// an expression in one variable (second-order forward mode), against the gradient of the
// first-order mode and central differences of that gradient, for every function of the
// language; and its errors for what it cannot differentiate twice.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "sao/expr/expression.hpp"

namespace sao::expr {
namespace {

class Point final : public Inputs {
 public:
  Eigen::Vector3d x{0.7, 0.4, -0.3};
  double variable(int i) const override { return x(i); }
  double response(int, int, int) const override { return 1.0; }
  int gradient_size() const override { return 3; }
};

ProgramPtr compile(const std::string& text) {
  Symbols s;
  s.variables = {"x", "y", "z"};
  s.responses = {{"r", false}};
  return sao::expr::bind(parse(text), s, 0);
}

// d/dx_i of the first-order mode's gradient component i, by central differences.
double second_by_differences(const Program& program, const Point& at, int i) {
  const double h = 1e-5;
  Point plus = at, minus = at;
  plus.x(i) += h;
  minus.x(i) -= h;
  Eigen::VectorXd gp(3), gm(3);
  Evaluator(program, plus).value(0, gp);
  Evaluator(program, minus).value(0, gm);
  return (gp(i) - gm(i)) / (2 * h);
}

TEST(ExpressionSecondDerivatives, MatchTheGradientAndItsDifferencesForEveryFunction) {
  const char* texts[] = {
      "x*y + z/x - 3",
      "sin(x*y) + cos(z)^2 - tan(y/2)",
      "asin(y/2) + acos(z/2) + atan(x*z)",
      "sqrt(x^2 + y) + exp(y*z) * log(x + 1)",
      "pow(x, y) + x^2.5 - y^-1.5 + 2^x",
      "atan2(y, x - 2) + abs(z - 0.05) * x",
      "min(x, y)^2 + max(z, y) * x",
      "0.125*((1 - cos(pi*min(max(x, 0), 1)/1)) - (1 - cos(pi*min(max(x - 3.25, 0), 1)/1)))",
  };
  for (const char* text : texts) {
    const ProgramPtr program = compile(text);
    Point at;
    Eigen::VectorXd g(3);
    const double value = Evaluator(*program, at).value(0, g);
    for (int i = 0; i < 3; ++i) {
      SCOPED_TRACE(std::string(text) + ", d/dx" + std::to_string(i));
      double first = NAN, second = NAN;
      EXPECT_EQ(Evaluator(*program, at).value(0, i, first, second), value);
      EXPECT_NEAR(first, g(i), 1e-14 * std::max(1.0, std::abs(g(i))));
      const double reference = second_by_differences(*program, at, i);
      EXPECT_NEAR(second, reference, 1e-7 * std::max(1.0, std::abs(reference)));
    }
  }
}

TEST(ExpressionSecondDerivatives, AVariableNotReadHasNone) {
  const ProgramPtr program = compile("sqrt(x) + y^2");
  Point at;
  double first = NAN, second = NAN;
  Evaluator(*program, at).value(0, 2, first, second);  // z: sqrt's partials stay out
  EXPECT_EQ(first, 0.0);
  EXPECT_EQ(second, 0.0);
}

TEST(ExpressionSecondDerivatives, ResponsesAreRefused) {
  const ProgramPtr program = compile("r * x");
  Point at;
  double first = NAN, second = NAN;
  EXPECT_THROW(Evaluator(*program, at).value(0, 0, first, second), std::logic_error);
}

}  // namespace
}  // namespace sao::expr
