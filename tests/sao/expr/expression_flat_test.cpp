// expr::flat_value: a scalar program of numbers and variables, evaluated from its flat form,
// gives the Evaluator's value, gradient and second derivatives bit for bit; programs that
// read responses, series or more than kFlatVariables variables are not flat, and asking for
// their flat value is an error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "sao/expr/expression.hpp"

namespace sao::expr {
namespace {

class Point final : public Inputs {
 public:
  Eigen::VectorXd x;
  double variable(int i) const override { return x(i); }
  double response(int, int, int) const override { return 1.0; }
  int gradient_size() const override { return static_cast<int>(x.size()); }
};

Symbols symbols(int count) {
  Symbols s;
  for (int i = 0; i < count; ++i) {
    std::string name(1, 'x');
    name.append(std::to_string(i));
    s.variables.push_back(name);
  }
  s.responses = {{"r", false}, {"h", true}};
  s.cases = {{"c", {0.0, 0.5, 1.0}}};
  return s;
}

TEST(ExpressionFlat, SameValuesAndDerivativesAsTheEvaluator) {
  const char* texts[] = {
      "x0*x1 + x2/x0 - 3",
      "sin(x0*x1) + cos(x2)^2 - tan(x1/2)",
      "asin(x1/2) + acos(x2/2) + atan(x0*x2)",
      "sqrt(x0^2 + x1) + exp(x1*x2) * log(x0 + 1)",
      "pow(x0, x1) + x0^2.5 - x1^-1.5 + 2^x0",
      "atan2(x1, x0 - 2) + abs(x2 - 0.05) * x0",
      "x3*min(1, max(0, (-0.04 - x1)/0.01)) + -x2",
      "0.125*((1 - cos(pi*min(max(x2, 0), 1)/1)) - (1 - cos(pi*min(max(x2 - 3.25, 0), 1)/1)))",
      "sqrt(x1 - x1) + x0",  // an infinite partial where the inner derivative is 0
      "7.5",
  };
  const Symbols s = symbols(5);
  Point at;
  at.x.resize(5);
  at.x << 0.7, 0.4, -0.3, 1.3, 2.0;
  for (const char* text : texts) {
    SCOPED_TRACE(text);
    const ProgramPtr program = sao::expr::bind(parse(text), s, -1);
    ASSERT_TRUE(program->flat());
    EXPECT_EQ(flat_value(*program, at.x.data()), Evaluator(*program, at).value());
    Eigen::VectorXd g(5);
    const double value = Evaluator(*program, at).value(0, g);
    const std::vector<int>& read = program->flat_variables();
    double flat_g[kFlatVariables];
    EXPECT_EQ(flat_value(*program, at.x.data(), flat_g), value);
    for (int i = 0; i < 5; ++i) {
      const auto j = std::find(read.begin(), read.end(), i);
      if (j == read.end()) {
        EXPECT_EQ(g(i), 0.0) << "x" << i << " is not read";
        continue;
      }
      EXPECT_EQ(flat_g[j - read.begin()], g(i)) << "d/dx" << i;
      double first = NAN, second = NAN, flat_first = NAN, flat_second = NAN;
      EXPECT_EQ(flat_value(*program, at.x.data(), i, flat_first, flat_second),
                Evaluator(*program, at).value(0, i, first, second));
      EXPECT_EQ(flat_first, first) << "d/dx" << i;
      EXPECT_EQ(flat_second, second) << "d2/dx" << i << "2";
    }
  }
}

TEST(ExpressionFlat, OnlyTheVariablesReadAreItsGradientsEntries) {
  const ProgramPtr program = sao::expr::bind(parse("x3*x1 + x3"), symbols(5), -1);
  ASSERT_TRUE(program->flat());
  EXPECT_EQ(program->flat_variables(), (std::vector<int>{1, 3}));
  const double x[5] = {10, 2, 10, 5, 10};
  double g[kFlatVariables];
  EXPECT_EQ(flat_value(*program, x, g), 15.0);
  EXPECT_EQ(g[0], 5.0);  // d/dx1
  EXPECT_EQ(g[1], 3.0);  // d/dx3
}

TEST(ExpressionFlat, ResponsesSeriesAndManyVariablesAreNotFlat) {
  EXPECT_FALSE(sao::expr::bind(parse("r + x0"), symbols(2), 0)->flat());
  EXPECT_FALSE(sao::expr::bind(parse("h*x0"), symbols(2), 0)->flat());
  EXPECT_FALSE(sao::expr::bind(parse("sum(h)"), symbols(2), 0)->flat());
  std::string many = "x0";
  for (int i = 1; i <= kFlatVariables; ++i) {
    many.append(" + x");
    many.append(std::to_string(i));
  }
  const ProgramPtr wide = sao::expr::bind(parse(many), symbols(kFlatVariables + 1), -1);
  EXPECT_FALSE(wide->flat());
  const double x[kFlatVariables + 1] = {};
  EXPECT_THROW(flat_value(*wide, x), std::logic_error);
}

}  // namespace
}  // namespace sao::expr
