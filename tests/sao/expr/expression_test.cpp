// The expression engine of explicit relations (sao/expression.hpp): values of every operator
// and function, exact derivatives (against central differences and hand-derived cases),
// series and reductions on non-uniform grids, shapes and degrees, relations, and errors with
// their columns.
#include "sao/expr/expression.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace sao::expr {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::UnorderedElementsAre;

constexpr double kPi = std::numbers::pi;

// Variables x, y, z; a scalar response s and a history h; load case c on the non-uniform
// grid 0, 1, 3, 6, load case d on 0, 0.5, 1 and load case e without a grid; a constant k = 2;
// data arrays w (4 values, like c) and v (3 values, like d).
Symbols symbols() {
  Symbols s;
  s.variables = {"x", "y", "z"};
  s.responses = {{"s", false}, {"h", true}};
  s.cases = {{"c", {0.0, 1.0, 3.0, 6.0}}, {"d", {0.0, 0.5, 1.0}}, {"e", {}}};
  s.constants = {{"k", 2.0}};
  s.data = {{"w", {1.0, 2.0, 3.0, 4.0}}, {"v", {10.0, 20.0, 30.0}}};
  return s;
}

// Responses from tables, for values computed by hand: s = 5, 7, 9 in the cases c, d, e;
// h = 1, 2, 4, 3 on c and 10, 20, 30 on d. x = 0.7, y = -0.4, z = 2.
class TableInputs final : public Inputs {
 public:
  std::vector<double> x{0.7, -0.4, 2.0};
  double variable(int i) const override { return x[i]; }
  double response(int r, int load_case, int point) const override {
    if (r == 0) return std::vector<double>{5.0, 7.0, 9.0}[load_case];
    return load_case == 0 ? std::vector<double>{1.0, 2.0, 4.0, 3.0}[point]
                          : std::vector<double>{10.0, 20.0, 30.0}[point];
  }
  // No derivatives (gradient_size() is 0): value(point, gradient) gives the value only.
  void response_gradient(int, int, int, Eigen::Ref<Eigen::VectorXd>) const override {}
};

// Responses that are smooth functions of the variables, with their exact gradients:
//   s = x^2 y + cos z + case,   h(p) = (p + 1 + case) x + sin((p + 1) y) z.
class SmoothInputs final : public Inputs {
 public:
  Eigen::Vector3d x{0.7, 0.4, -0.3};
  double variable(int i) const override { return x(i); }
  double response(int r, int c, int p) const override {
    if (r == 0) return x(0) * x(0) * x(1) + std::cos(x(2)) + c;
    return (p + 1 + c) * x(0) + std::sin((p + 1) * x(1)) * x(2);
  }
  int gradient_size() const override { return 3; }
  void response_gradient(int r, int c, int p, Eigen::Ref<Eigen::VectorXd> g) const override {
    if (r == 0) {
      g << 2 * x(0) * x(1), x(0) * x(0), -std::sin(x(2));
    } else {
      g << p + 1 + c, (p + 1) * std::cos((p + 1) * x(1)) * x(2), std::sin((p + 1) * x(1));
    }
  }
};

ProgramPtr compile(const std::string& text, const Symbols& s = symbols(), int load_case = 0) {
  return sao::expr::bind(parse(text), s, load_case);
}

// The value at `point` with the table inputs.
double value(const std::string& text, int point = 0) {
  TableInputs in;
  return Evaluator(*compile(text), in).value(point);
}

// The values at every point with the table inputs.
std::vector<double> values(const std::string& text, const Symbols& s = symbols(),
                           int load_case = 0) {
  const ProgramPtr program = compile(text, s, load_case);
  TableInputs in;
  Evaluator evaluator(*program, in);
  std::vector<double> out;
  for (int p = 0; p < program->points(); ++p) out.push_back(evaluator.value(p));
  return out;
}

// The gradient at `point`.
Eigen::VectorXd gradient(const std::string& text, const Inputs& in, int point = 0,
                         const Symbols& s = symbols()) {
  Eigen::VectorXd g = Eigen::VectorXd::Constant(in.gradient_size(), 12345.0);
  Evaluator(*compile(text, s), in).value(point, g);
  return g;
}

// The error that parsing and binding `text` throws.
Error error_of(const std::string& text, const Symbols& s = symbols(), int load_case = 0) {
  try {
    compile(text, s, load_case);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "\"" << text << "\" compiled without error";
  return Error("(no error)", -1);
}

// Expects an error at `column` (1-based) whose detail contains `fragment`.
void expect_error(const std::string& text, int column, const std::string& fragment,
                  const Symbols& s = symbols(), int load_case = 0) {
  SCOPED_TRACE("expression \"" + text.substr(0, 60) + "\"");
  const Error e = error_of(text, s, load_case);
  EXPECT_EQ(e.column(), column) << e.what();
  EXPECT_THAT(e.detail(), HasSubstr(fragment));
  EXPECT_EQ(e.origin(), "");
}

// Every (response, load case, point) the program reads for its value at `point`.
std::vector<std::tuple<int, int, int>> reads(const std::string& text, int point,
                                             int load_case = 0) {
  std::vector<std::tuple<int, int, int>> out;
  for_each_response_read(*compile(text, symbols(), load_case), point,
                         [&](int r, int c, int p) { out.emplace_back(r, c, p); });
  return out;
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// --- values -------------------------------------------------------------------------------

TEST(ExpressionValues, ArithmeticOperators) {
  EXPECT_DOUBLE_EQ(value("1 + 2"), 3.0);
  EXPECT_DOUBLE_EQ(value("1 - 2"), -1.0);
  EXPECT_DOUBLE_EQ(value("3 * 4"), 12.0);
  EXPECT_DOUBLE_EQ(value("3 / 4"), 0.75);
  EXPECT_DOUBLE_EQ(value("2 ^ 10"), 1024.0);
  EXPECT_DOUBLE_EQ(value("x * y - z"), 0.7 * -0.4 - 2.0);
}

// The largest |term| of the outermost sum: what a value that cancels is made of. s = 5, h on
// case c = 1, 2, 4, 3; x = 0.7, y = -0.4, z = 2.
TEST(ExpressionValues, TermMagnitudeIsTheLargestTermOfTheOutermostSum) {
  auto terms = [](const std::string& text, int point = 0) {
    TableInputs in;
    return Evaluator(*compile(text), in).term_magnitude(point);
  };
  EXPECT_DOUBLE_EQ(terms("s*100 - 500"), 500.0);    // the value is 0
  EXPECT_DOUBLE_EQ(terms("-(x - 3*s) + z"), 15.0);  // through unary minus
  EXPECT_DOUBLE_EQ(terms("(s - 5)*100"), 0.0);      // a product: its value
  EXPECT_DOUBLE_EQ(terms("sqrt(s*s) - 5"), 5.0);    // a call is one term
  EXPECT_DOUBLE_EQ(terms("h*10 - 25", 2), 40.0);    // per point of a history
  EXPECT_DOUBLE_EQ(terms("sum(h) - 10"), 10.0);     // a reduction is one term
}

TEST(ExpressionValues, MultiplicationBindsTighterThanAddition) {
  EXPECT_DOUBLE_EQ(value("1 + 2 * 3"), 7.0);
  EXPECT_DOUBLE_EQ(value("(1 + 2) * 3"), 9.0);
  EXPECT_DOUBLE_EQ(value("1 + 6 / 3 - 1"), 2.0);
}

TEST(ExpressionValues, PowerBindsTighterThanMultiplication) {
  EXPECT_DOUBLE_EQ(value("2 ^ 3 * 2"), 16.0);
  EXPECT_DOUBLE_EQ(value("2 * 3 ^ 2"), 18.0);
  EXPECT_DOUBLE_EQ(value("1 + 2 * 3 ^ 2"), 19.0);
}

TEST(ExpressionValues, PowerIsRightAssociative) {
  EXPECT_DOUBLE_EQ(value("2 ^ 3 ^ 2"), 512.0);
  EXPECT_DOUBLE_EQ(value("(2 ^ 3) ^ 2"), 64.0);
}

TEST(ExpressionValues, UnaryMinusBindsLooserThanPower) {
  EXPECT_DOUBLE_EQ(value("-2 ^ 2"), -4.0);
  EXPECT_DOUBLE_EQ(value("(-2) ^ 2"), 4.0);
  EXPECT_DOUBLE_EQ(value("-z ^ 2"), -4.0);
  EXPECT_DOUBLE_EQ(value("2 ^ -1"), 0.5);
  EXPECT_DOUBLE_EQ(value("2 ^ -1 ^ 2"), 0.5);  // 2^(-(1^2))
  EXPECT_DOUBLE_EQ(value("3 - -2 ^ 2"), 7.0);
}

TEST(ExpressionValues, SubtractionAndDivisionAreLeftAssociative) {
  EXPECT_DOUBLE_EQ(value("10 - 4 - 3"), 3.0);
  EXPECT_DOUBLE_EQ(value("8 / 4 / 2"), 1.0);
  EXPECT_DOUBLE_EQ(value("8 / 4 * 2"), 4.0);
}

TEST(ExpressionValues, UnaryMinusAndPlus) {
  EXPECT_DOUBLE_EQ(value("-x"), -0.7);
  EXPECT_DOUBLE_EQ(value("--3"), 3.0);
  EXPECT_DOUBLE_EQ(value("+x"), 0.7);
  EXPECT_DOUBLE_EQ(value("2 * -3"), -6.0);
  EXPECT_DOUBLE_EQ(value("1 - -1"), 2.0);
  EXPECT_DOUBLE_EQ(value("-(1 + 2)"), -3.0);
}

TEST(ExpressionValues, NumberLiterals) {
  EXPECT_DOUBLE_EQ(value("1.5e2"), 150.0);
  EXPECT_DOUBLE_EQ(value(".5"), 0.5);
  EXPECT_DOUBLE_EQ(value("1."), 1.0);
  EXPECT_DOUBLE_EQ(value("2E-1"), 0.2);
  EXPECT_DOUBLE_EQ(value("1e+2"), 100.0);
  EXPECT_DOUBLE_EQ(value("007"), 7.0);
  EXPECT_DOUBLE_EQ(value("0.125"), 0.125);
}

TEST(ExpressionValues, WhitespaceIsIgnored) {
  EXPECT_DOUBLE_EQ(value(" \t1 +\n2 *\r\n 3 "), 7.0);
  EXPECT_DOUBLE_EQ(value("h @ c [ - 1 ]"), 3.0);
  EXPECT_DOUBLE_EQ(value("min ( x , y )"), -0.4);
}

TEST(ExpressionValues, ConstantsAndPi) {
  EXPECT_DOUBLE_EQ(value("k"), 2.0);
  EXPECT_DOUBLE_EQ(value("pi"), kPi);
  EXPECT_DOUBLE_EQ(value("k * pi"), 2.0 * kPi);
}

TEST(ExpressionValues, StudyNamesShadowTheBuiltIns) {
  Symbols s = symbols();
  s.constants["pi"] = 3.0;
  s.data["t"] = {7.0, 8.0, 9.0, 10.0};
  EXPECT_THAT(values("pi + t", s), ElementsAre(10.0, 11.0, 12.0, 13.0));
}

TEST(ExpressionValues, EveryFunctionAtHandValues) {
  const std::pair<const char*, double> cases[] = {
      {"sin(pi / 6)", 0.5},
      {"cos(pi / 3)", 0.5},
      {"tan(pi / 4)", 1.0},
      {"asin(0.5)", kPi / 6},
      {"acos(0.5)", kPi / 3},
      {"atan(1)", kPi / 4},
      {"atan2(1, -1)", 3 * kPi / 4},  // atan2(y, x): the second quadrant
      {"atan2(-1, 0)", -kPi / 2},
      {"sqrt(16)", 4.0},
      {"exp(1)", std::numbers::e},
      {"exp(0)", 1.0},
      {"log(exp(3))", 3.0},
      {"log(1)", 0.0},
      {"pow(2, 10)", 1024.0},
      {"pow(4, 0.5)", 2.0},
      {"abs(-3)", 3.0},
      {"abs(3)", 3.0},
      {"min(2, -1)", -1.0},
      {"max(2, -1)", 2.0},
  };
  for (const auto& [text, expected] : cases) EXPECT_NEAR(value(text), expected, 1e-15) << text;
}

TEST(ExpressionValues, EveryFunctionOfVariables) {
  const double x = 0.7, y = -0.4;
  const std::pair<const char*, double> cases[] = {
      {"sin(x)", std::sin(x)},
      {"cos(x)", std::cos(x)},
      {"tan(x)", std::tan(x)},
      {"asin(y)", std::asin(y)},
      {"acos(y)", std::acos(y)},
      {"atan(y)", std::atan(y)},
      {"sqrt(x)", std::sqrt(x)},
      {"exp(y)", std::exp(y)},
      {"log(x)", std::log(x)},
      {"abs(y)", 0.4},
      {"atan2(y, x)", std::atan2(y, x)},
      {"pow(x, y)", std::pow(x, y)},
      {"min(x, y)", y},
      {"max(x, y)", x},
  };
  for (const auto& [text, expected] : cases) EXPECT_DOUBLE_EQ(value(text), expected) << text;
}

TEST(ExpressionValues, FunctionsApplyElementwiseToSeries) {
  EXPECT_THAT(values("sqrt(h)"), ElementsAre(1.0, std::sqrt(2.0), 2.0, std::sqrt(3.0)));
  EXPECT_THAT(values("max(h, 2.5)"), ElementsAre(2.5, 2.5, 4.0, 3.0));
  EXPECT_THAT(values("min(h, w)"), ElementsAre(1.0, 2.0, 3.0, 3.0));
  EXPECT_THAT(values("pow(2, h)"), ElementsAre(2.0, 4.0, 16.0, 8.0));
  EXPECT_THAT(values("-h"), ElementsAre(-1.0, -2.0, -4.0, -3.0));
}

// --- derivatives --------------------------------------------------------------------------

// The gradient of nontrivial expressions of variables, responses, relations, data and time
// matches central differences of the value, at random points and every point of a series.
TEST(ExpressionDerivatives, MatchCentralDifferencesAtRandomPoints) {
  Symbols s = symbols();
  s.relations["q"] = parse("x*y + s");
  s.relations["r"] = parse("h*z - q");
  const char* texts[] = {
      "x*y + s*z - k*x/y",
      "sin(x*s) / (1 + y^2) - cos(z)^2",
      "atan2(s, x - 2) + sqrt(x^2 + y^2 + z^2)",
      "pow(x, y) + x^y^z + exp(y*z) * log(x + s)",
      "tan(y/2) + asin(y/2) + acos(z/2) + atan(s*z)",
      "abs(z - 0.05) + min(x, y) * max(s, z)",
      "-x^2 + (-z)^3 + (x - 2)^2 * y + x^-1.5",
      "h[1] * h[-1] - s * h[2] / k",
      "trapz(h^2) + mean(w * h) + sum(h * t) / k",
      "h * w - mean(h) + t * z",
      "sqrt(h^2 + s) * exp(-t / 6)",
      "q^2 + r",
      "trapz(h@d * t@d) * h@c[-1] + s@e",
      "max(h, s) - atan2(h, x) + abs(h)",
      "h / (1 + h^2) - sum(h) * h",
  };
  std::mt19937 random(20240601);
  std::uniform_real_distribution<double> ux(0.5, 1.5), uy(0.3, 1.2), uz(-1.0, 1.0);
  for (const char* text : texts) {
    const ProgramPtr program = compile(text, s);
    for (int sample = 0; sample < 5; ++sample) {
      SmoothInputs in;
      in.x << ux(random), uy(random), uz(random);
      for (int point = 0; point < program->points(); ++point) {
        SCOPED_TRACE(std::string(text) + " at point " + std::to_string(point) +
                     ", x = " + std::to_string(in.x(0)) + ", " + std::to_string(in.x(1)) + ", " +
                     std::to_string(in.x(2)));
        Eigen::VectorXd g(3);
        const double v = Evaluator(*program, in).value(point, g);
        ASSERT_TRUE(std::isfinite(v));
        for (int i = 0; i < 3; ++i) {
          const double step = 1e-6 * std::max(1.0, std::abs(in.x(i)));
          SmoothInputs plus = in, minus = in;
          plus.x(i) += step;
          minus.x(i) -= step;
          const double fd =
              (Evaluator(*program, plus).value(point) - Evaluator(*program, minus).value(point)) /
              (2 * step);
          EXPECT_NEAR(g(i), fd, 1e-6 * std::max(1.0, std::abs(fd))) << "d/dx" << i;
        }
      }
    }
  }
}

TEST(ExpressionDerivatives, ProductOfVariables) {
  SmoothInputs in;  // x = 0.7, y = 0.4, z = -0.3
  EXPECT_THAT(gradient("x*y", in), ElementsAre(0.4, 0.7, 0.0));
  EXPECT_THAT(gradient("x*y*z", in), ElementsAre(0.4 * -0.3, 0.7 * -0.3, 0.7 * 0.4));
}

TEST(ExpressionDerivatives, QuotientOfVariables) {
  SmoothInputs in;
  const Eigen::VectorXd g = gradient("x / y", in);
  EXPECT_DOUBLE_EQ(g(0), 1 / 0.4);
  EXPECT_DOUBLE_EQ(g(1), -0.7 / (0.4 * 0.4));
  EXPECT_EQ(g(2), 0.0);
}

TEST(ExpressionDerivatives, PowerWithVariableBaseAndExponent) {
  SmoothInputs in;
  for (const char* text : {"pow(x, y)", "x ^ y"}) {
    const Eigen::VectorXd g = gradient(text, in);
    EXPECT_NEAR(g(0), 0.4 * std::pow(0.7, -0.6), 1e-15) << text;           // y x^(y-1)
    EXPECT_NEAR(g(1), std::pow(0.7, 0.4) * std::log(0.7), 1e-15) << text;  // x^y ln x
    EXPECT_EQ(g(2), 0.0) << text;
  }
}

TEST(ExpressionDerivatives, PowerWithConstantBase) {
  SmoothInputs in;
  const Eigen::VectorXd g = gradient("2 ^ x", in);
  EXPECT_NEAR(g(0), std::pow(2.0, 0.7) * std::log(2.0), 1e-15);
}

TEST(ExpressionDerivatives, Atan2) {
  SmoothInputs in;  // atan2(y, x): d/dy = x / r^2, d/dx = -y / r^2
  const Eigen::VectorXd g = gradient("atan2(y, x)", in);
  EXPECT_NEAR(g(0), -0.4 / 0.65, 1e-15);
  EXPECT_NEAR(g(1), 0.7 / 0.65, 1e-15);
  EXPECT_EQ(g(2), 0.0);
}

TEST(ExpressionDerivatives, MinAndMaxFollowTheChosenBranch) {
  SmoothInputs in;  // x = 0.7 > y = 0.4
  EXPECT_THAT(gradient("min(x, y)", in), ElementsAre(0, 1, 0));
  EXPECT_THAT(gradient("max(x, y)", in), ElementsAre(1, 0, 0));
  EXPECT_THAT(gradient("min(y, x)", in), ElementsAre(0, 1, 0));
  EXPECT_THAT(gradient("max(3*z, 2*y)", in), ElementsAre(0, 2, 0));
  in.x(1) = 0.9;  // now y > x
  EXPECT_THAT(gradient("min(x, y)", in), ElementsAre(1, 0, 0));
  EXPECT_THAT(gradient("max(x, y)", in), ElementsAre(0, 1, 0));
}

TEST(ExpressionDerivatives, AbsFollowsTheSign) {
  SmoothInputs in;  // z = -0.3
  EXPECT_THAT(gradient("abs(x)", in), ElementsAre(1, 0, 0));
  EXPECT_THAT(gradient("abs(z)", in), ElementsAre(0, 0, -1));
}

TEST(ExpressionDerivatives, OneArgumentFunctions) {
  SmoothInputs in;
  const double x = 0.7, y = 0.4;
  const std::pair<const char*, double> cases[] = {
      {"sin(x)", std::cos(x)},
      {"cos(x)", -std::sin(x)},
      {"tan(x)", 1 / (std::cos(x) * std::cos(x))},
      {"asin(y)", 1 / std::sqrt(1 - y * y)},
      {"acos(y)", -1 / std::sqrt(1 - y * y)},
      {"atan(x)", 1 / (1 + x * x)},
      {"sqrt(x)", 0.5 / std::sqrt(x)},
      {"exp(x)", std::exp(x)},
      {"log(x)", 1 / x},
  };
  for (const auto& [text, expected] : cases) {
    const std::string t(text);
    const int var = t.find('y') != std::string::npos ? 1 : 0;
    EXPECT_NEAR(gradient(t, in)(var), expected, 1e-14) << text;
  }
}

// A constant exponent contributes no a^b ln(a) term, so a negative base is fine.
TEST(ExpressionDerivatives, ConstantExponentOfANegativeBaseIsFinite) {
  SmoothInputs in;  // x = 0.7, z = -0.3
  EXPECT_THAT(gradient("(-x)^2", in), ElementsAre(2 * 0.7, 0, 0));
  EXPECT_THAT(gradient("pow(-x, 2)", in), ElementsAre(2 * 0.7, 0, 0));
  EXPECT_THAT(gradient("z^k", in), ElementsAre(0, 0, 2 * -0.3));
  const Eigen::VectorXd g = gradient("z^3 + (-x)^(-1)", in);
  ASSERT_TRUE(g.allFinite()) << g.transpose();
  EXPECT_NEAR(g(2), 3 * 0.09, 1e-15);
  EXPECT_NEAR(g(0), 1 / 0.49, 1e-14);
}

// pow(a, b) with a variable exponent: at a = 0 (b > 0) the term b' a^b ln(a) is 0 (a^b is 0
// for every b > 0); it used to be NaN and spread into every component of the gradient.
TEST(ExpressionDerivatives, PowerAtAZeroBaseWithAVariableExponentIsFinite) {
  SmoothInputs in;
  in.x << 0.0, 2.0, 0.0;
  for (const char* text : {"x ^ y", "pow(x, y)"}) {
    Eigen::VectorXd g(3);
    EXPECT_EQ(Evaluator(*compile(text), in).value(0, g), 0.0);
    EXPECT_THAT(g, ElementsAre(0, 0, 0)) << text;
  }
}

// At a negative base and an integer-valued variable exponent, d/dx of x^y = y x^(y-1) exists
// (only d/dy does not): the undefined d/dy term must not make d/dx (and d/dz) NaN.
TEST(ExpressionDerivatives, PowerAtANegativeBaseKeepsTheDerivativeOfTheBase) {
  SmoothInputs in;
  in.x << -2.0, 2.0, 0.0;
  Eigen::VectorXd g(3);
  EXPECT_EQ(Evaluator(*compile("x ^ y"), in).value(0, g), 4.0);
  EXPECT_EQ(g(0), -4.0);
  EXPECT_EQ(g(2), 0.0);
  EXPECT_TRUE(std::isnan(g(1)));  // d/dy of x^y at x < 0 does not exist
}

TEST(ExpressionDerivatives, ResponsesContributeTheirGradients) {
  SmoothInputs in;
  Eigen::Vector3d ds, dh2;
  in.response_gradient(0, 0, 0, ds);
  in.response_gradient(1, 0, 2, dh2);
  const double s = in.response(0, 0, 0), h2 = in.response(1, 0, 2);
  // d(s*x) = x ds + s e_x
  Eigen::Vector3d expected = 0.7 * ds;
  expected(0) += s;
  EXPECT_TRUE(gradient("s*x", in).isApprox(expected, 1e-15));
  // at point 2 of a history: the gradient of that point
  EXPECT_TRUE(gradient("h * s", in, 2).isApprox(s * dh2 + h2 * ds, 1e-15));
}

TEST(ExpressionDerivatives, ConstantsDataAndTimeHaveNoGradient) {
  SmoothInputs in;
  for (int p = 0; p < 4; ++p) {
    EXPECT_THAT(gradient("k + w * t + pi + sum(w)", in, p), ElementsAre(0, 0, 0)) << p;
  }
}

TEST(ExpressionDerivatives, ValueWithGradientIsTheValue) {
  SmoothInputs in;
  const ProgramPtr program = compile("h * w - mean(h) + sin(x*s) + t");
  Evaluator with_gradient(*program, in), without(*program, in);
  for (int p = 0; p < program->points(); ++p) {
    Eigen::VectorXd g(3);
    EXPECT_EQ(with_gradient.value(p, g), without.value(p)) << p;
  }
}

// --- series and reductions ------------------------------------------------------------------

TEST(ExpressionSeries, HistoryCombinesElementwiseWithDataAndScalars) {
  // h = 1, 2, 4, 3; w = 1, 2, 3, 4; k = 2; s = 5
  EXPECT_THAT(values("h * w + k"), ElementsAre(3.0, 6.0, 14.0, 14.0));
  EXPECT_THAT(values("h - s"), ElementsAre(-4.0, -3.0, -1.0, -2.0));
  EXPECT_THAT(values("w / h"), ElementsAre(1.0, 1.0, 0.75, 4.0 / 3.0));
  EXPECT_THAT(values("2 ^ w"), ElementsAre(2.0, 4.0, 8.0, 16.0));
}

TEST(ExpressionSeries, SumAndMean) {
  EXPECT_DOUBLE_EQ(value("sum(h)"), 10.0);
  EXPECT_DOUBLE_EQ(value("mean(h)"), 2.5);
  EXPECT_DOUBLE_EQ(value("sum(w)"), 10.0);
  EXPECT_DOUBLE_EQ(value("mean(v)"), 20.0);
  EXPECT_DOUBLE_EQ(value("sum(h * w)"), 1.0 + 4.0 + 12.0 + 12.0);
  EXPECT_DOUBLE_EQ(value("mean(h@d)"), 20.0);
}

TEST(ExpressionSeries, TrapzOnANonUniformGrid) {
  // times 0, 1, 3, 6 (widths 1, 2, 3); h = 1, 2, 4, 3
  EXPECT_DOUBLE_EQ(value("trapz(h)"), 0.5 * (1 + 2) * 1 + 0.5 * (2 + 4) * 2 + 0.5 * (4 + 3) * 3);
  EXPECT_DOUBLE_EQ(value("trapz(t)"), 18.0);  // exact for a linear integrand
  EXPECT_DOUBLE_EQ(value("trapz(h * t)"),
                   0.5 * (0 + 2) * 1 + 0.5 * (2 + 12) * 2 + 0.5 * (12 + 18) * 3);
  EXPECT_DOUBLE_EQ(value("trapz(w + h)"), 0.5 * (2 + 4) * 1 + 0.5 * (4 + 7) * 2 +
                                              0.5 * (7 + 7) * 3);  // the history's grid
  // times 0, 0.5, 1; h@d = 10, 20, 30
  EXPECT_DOUBLE_EQ(value("trapz(h@d)"), 20.0);
  EXPECT_DOUBLE_EQ(value("trapz(t@d)"), 0.5);
}

TEST(ExpressionSeries, TrapzOfTSquaredApproximatesTheIntegral) {
  Symbols s = symbols();
  std::vector<double> uniform(1001), graded(1001);
  for (int i = 0; i <= 1000; ++i) {
    uniform[i] = 2.0 * i / 1000.0;
    graded[i] = 2.0 * (i / 1000.0) * (i / 1000.0);  // fine at 0, coarse at 2
  }
  s.cases[0].times = uniform;
  s.cases[1].times = graded;
  TableInputs in;
  const double uniform_trapz = Evaluator(*compile("trapz(t^2)", s), in).value();
  // Error (b - a) h^2 f'' / 12 = 2 * 0.002^2 * 2 / 12, from above for a convex integrand.
  EXPECT_NEAR(uniform_trapz - 8.0 / 3.0, 2 * 0.002 * 0.002 * 2 / 12, 1e-12);
  EXPECT_NEAR(Evaluator(*compile("trapz(t@d^2)", s), in).value(), 8.0 / 3.0, 1e-5);
  EXPECT_NEAR(Evaluator(*compile("trapz(t@d^3)", s), in).value(), 4.0, 2e-5);
}

TEST(ExpressionSeries, IndexPicksAPointAndNegativeCountsFromTheEnd) {
  EXPECT_DOUBLE_EQ(value("h[0]"), 1.0);
  EXPECT_DOUBLE_EQ(value("h[2]"), 4.0);
  EXPECT_DOUBLE_EQ(value("h[-1]"), 3.0);
  EXPECT_DOUBLE_EQ(value("h[-4]"), 1.0);
  EXPECT_DOUBLE_EQ(value("w[1]"), 2.0);
  EXPECT_DOUBLE_EQ(value("t[-1]"), 6.0);
  EXPECT_DOUBLE_EQ(value("(h * w)[2]"), 12.0);
  EXPECT_DOUBLE_EQ(value("h@d[-1]"), 30.0);
  EXPECT_DOUBLE_EQ(value("-h[1] ^ 2"), -4.0);  // indexing binds tightest
}

TEST(ExpressionSeries, IndexedValueIsTheSameAtEveryPoint) {
  EXPECT_THAT(values("h - h[0]"), ElementsAre(0.0, 1.0, 3.0, 2.0));
}

TEST(ExpressionSeries, TimeOfTheLoadCaseAndOfANamedCase) {
  EXPECT_THAT(values("t"), ElementsAre(0.0, 1.0, 3.0, 6.0));
  EXPECT_THAT(values("t", symbols(), 1), ElementsAre(0.0, 0.5, 1.0));
  EXPECT_THAT(values("t@d"), ElementsAre(0.0, 0.5, 1.0));
  EXPECT_THAT(values("t@c", symbols(), -1), ElementsAre(0.0, 1.0, 3.0, 6.0));
  EXPECT_THAT(values("h@d * t@d"), ElementsAre(0.0, 10.0, 30.0));
}

TEST(ExpressionSeries, ReductionInsideAnElementwiseExpressionIsRightAtEveryPoint) {
  EXPECT_THAT(values("h - mean(h)"), ElementsAre(-1.5, -0.5, 1.5, 0.5));
  EXPECT_THAT(values("h / sum(h) + trapz(t)"), ElementsAre(18.1, 18.2, 18.4, 18.3));
  // Points in any order, with and without gradients, on one evaluator.
  const ProgramPtr program = compile("h - mean(h)");
  TableInputs in;
  Evaluator evaluator(*program, in);
  Eigen::VectorXd none(0);
  EXPECT_DOUBLE_EQ(evaluator.value(3), 0.5);
  EXPECT_DOUBLE_EQ(evaluator.value(0, none), -1.5);
  EXPECT_DOUBLE_EQ(evaluator.value(2), 1.5);
  EXPECT_DOUBLE_EQ(evaluator.value(1, none), -0.5);
}

TEST(ExpressionSeries, GradientOfAReductionInsideAnElementwiseExpression) {
  SmoothInputs in;
  const ProgramPtr program = compile("h - mean(h)");
  Evaluator evaluator(*program, in);
  Eigen::Vector3d mean_gradient = Eigen::Vector3d::Zero();
  for (int p = 0; p < 4; ++p) {
    Eigen::Vector3d g;
    in.response_gradient(1, 0, p, g);
    mean_gradient += g / 4;
  }
  for (int p = 3; p >= 0; --p) {
    Eigen::Vector3d dh, g;
    in.response_gradient(1, 0, p, dh);
    evaluator.value(p, g);
    EXPECT_TRUE(g.isApprox(dh - mean_gradient, 1e-14)) << p << ": " << g.transpose();
  }
}

TEST(ExpressionSeries, ReadsOfAReductionAreEveryPoint) {
  EXPECT_THAT(reads("trapz(h)", 0), ElementsAre(std::tuple(1, 0, 0), std::tuple(1, 0, 1),
                                                std::tuple(1, 0, 2), std::tuple(1, 0, 3)));
  EXPECT_THAT(reads("sum(h@d)", 0),
              ElementsAre(std::tuple(1, 1, 0), std::tuple(1, 1, 1), std::tuple(1, 1, 2)));
}

TEST(ExpressionSeries, ReadsOfAnElementwiseExpressionAreThePointOnly) {
  EXPECT_THAT(reads("h * 2 + s", 2),
              UnorderedElementsAre(std::tuple(1, 0, 2), std::tuple(0, 0, 0)));
  EXPECT_THAT(reads("sin(h) * w", 3), ElementsAre(std::tuple(1, 0, 3)));
  EXPECT_THAT(reads("h[1] + x", 0), ElementsAre(std::tuple(1, 0, 1)));
}

TEST(ExpressionSeries, ReadsOfAReductionInsideAnElementwiseExpression) {
  const auto r = reads("h - mean(h)", 2);
  EXPECT_THAT(r, UnorderedElementsAre(std::tuple(1, 0, 2), std::tuple(1, 0, 0), std::tuple(1, 0, 1),
                                      std::tuple(1, 0, 2), std::tuple(1, 0, 3)));
}

TEST(ExpressionSeries, ReadsFollowTheLoadCaseOfTheBinding) {
  EXPECT_THAT(reads("h[0] + s", 0, 1),
              UnorderedElementsAre(std::tuple(1, 1, 0), std::tuple(0, 1, 0)));
  EXPECT_THAT(reads("s@c + h@d[0]", 0, -1),
              UnorderedElementsAre(std::tuple(0, 0, 0), std::tuple(1, 1, 0)));
}

// --- shapes and degrees -------------------------------------------------------------------

TEST(ExpressionShapes, ScalarHasOnePoint) {
  for (const char* text : {"x + s", "k", "sum(h)", "h[2]", "trapz(t)", "mean(w) * x"}) {
    const ProgramPtr p = compile(text);
    EXPECT_EQ(p->points(), 1) << text;
    EXPECT_FALSE(p->is_series()) << text;
    EXPECT_EQ(p->grid_case(), -1) << text;
  }
}

TEST(ExpressionShapes, HistoryHasThePointsAndGridOfItsLoadCase) {
  const ProgramPtr h = compile("h");
  EXPECT_EQ(h->points(), 4);
  EXPECT_TRUE(h->is_series());
  EXPECT_EQ(h->grid_case(), 0);
  EXPECT_EQ(compile("h", symbols(), 1)->points(), 3);
  EXPECT_EQ(compile("h", symbols(), 1)->grid_case(), 1);
  EXPECT_EQ(compile("sin(h@d) + x")->grid_case(), 1);
  EXPECT_EQ(compile("t")->points(), 4);
  EXPECT_EQ(compile("t")->grid_case(), 0);
  EXPECT_EQ(compile("-t@d")->grid_case(), 1);
}

TEST(ExpressionShapes, DataArrayIsASeriesWithoutAGrid) {
  const ProgramPtr w = compile("w * 2");
  EXPECT_EQ(w->points(), 4);
  EXPECT_TRUE(w->is_series());
  EXPECT_EQ(w->grid_case(), -1);
  EXPECT_EQ(compile("w + h")->grid_case(), 0);
  EXPECT_EQ(compile("atan2(v, t@d)")->grid_case(), 1);
  EXPECT_EQ(compile("v * h", symbols(), 1)->points(), 3);
}

TEST(ExpressionShapes, Degrees) {
  const std::pair<const char*, Degree> cases[] = {
      {"3", Degree::kConstant},
      {"k * pi + sin(1) + sum(w) + t", Degree::kConstant},
      {"x", Degree::kLinear},
      {"2*x + y", Degree::kLinear},
      {"x/2", Degree::kLinear},
      {"x/k - s + h", Degree::kLinear},
      {"-x", Degree::kLinear},
      {"sum(h)", Degree::kLinear},
      {"mean(h) + trapz(h)", Degree::kLinear},
      {"h[1] * w", Degree::kLinear},
      {"x*y", Degree::kNonlinear},
      {"2/x", Degree::kNonlinear},
      {"x^2", Degree::kNonlinear},
      {"trapz(h^2)", Degree::kNonlinear},
      {"sin(x)", Degree::kNonlinear},
      {"min(x, 1)", Degree::kNonlinear},
      {"s * h", Degree::kNonlinear},
      {"x * y * 0 + 1", Degree::kNonlinear},
  };
  for (const auto& [text, degree] : cases) {
    EXPECT_EQ(compile(text)->degree(), degree) << text;
  }
}

TEST(ExpressionShapes, UsesResponses) {
  EXPECT_FALSE(compile("x + k * sum(w) + t")->uses_responses());
  EXPECT_TRUE(compile("s")->uses_responses());
  EXPECT_TRUE(compile("x + h@d[0]")->uses_responses());
  Symbols s = symbols();
  s.relations["r"] = parse("h * 2");
  EXPECT_TRUE(compile("r", s)->uses_responses());
}

TEST(ExpressionShapes, NeedsCaseForAnUnqualifiedResponseOrTime) {
  Symbols s = symbols();
  s.relations["r"] = parse("h * 2");
  s.relations["rr"] = parse("r + 1");
  s.relations["q"] = parse("x + h@c[0]");
  for (const char* text : {"h + 1", "s", "t", "trapz(t@c) + t", "r", "rr", "x + sum(h@d) + s"}) {
    EXPECT_TRUE(needs_case(parse(text), s)) << text;
  }
  for (const char* text : {"h@c", "s@d", "t@d", "x + y", "k * w", "q", "pi"}) {
    EXPECT_FALSE(needs_case(parse(text), s)) << text;
  }
}

TEST(ExpressionShapes, WithoutALoadCaseOnlyQualifiedNamesBind) {
  EXPECT_EQ(compile("h@d + x", symbols(), -1)->points(), 3);
  EXPECT_DOUBLE_EQ(values("s@e", symbols(), -1)[0], 9.0);
}

TEST(ExpressionShapes, TreesBuiltDirectly) {
  const AstPtr ast = product(name_node("h", "d"), number_node(2.0));
  EXPECT_EQ(to_text(ast), "(h@d * 2)");
  EXPECT_THAT(values("h@d * 2"), ElementsAre(20.0, 40.0, 60.0));
  TableInputs in;
  const ProgramPtr program = sao::expr::bind(ast, symbols(), -1);
  EXPECT_EQ(program->grid_case(), 1);
  EXPECT_DOUBLE_EQ(Evaluator(*program, in).value(2), 60.0);
  // Errors in a built tree have no column.
  try {
    sao::expr::bind(name_node("nope"), symbols(), 0);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.column(), 0);
    EXPECT_THAT(e.what(), Not(HasSubstr("column")));
  }
}

TEST(ExpressionShapes, ToTextParsesBackToTheSameValues) {
  for (const char* text :
       {"-2^2 + 3^-1^2", "h@d[-1] * (x - y) / z", "trapz(h^2) / 12 - max(s, 1e-3)",
        "atan2(-y, x) + 0.1 + 1e+300 * 0", "--x + +y"}) {
    const std::string printed = to_text(parse(text));
    SCOPED_TRACE(std::string(text) + " printed as " + printed);
    const std::vector<double> original = values(text), reparsed = values(printed);
    EXPECT_EQ(reparsed, original);
  }
}

// to_text() brackets a unary minus as a whole, so (-x)^2 prints as "((-x) ^ 2)" and not as
// "(-(x) ^ 2)", which reads -(x^2) (found by the fuzzer).
TEST(ExpressionShapes, ToTextKeepsANegatedBaseOfAPower) {
  for (const char* text : {"(-x)^2", "(-2)^2", "pow(-x, 2) + (-h)^2"}) {
    const std::string printed = to_text(parse(text));
    EXPECT_EQ(values(printed), values(text)) << text << " printed as " << printed;
  }
}

// --- relations ------------------------------------------------------------------------------

TEST(ExpressionRelations, UsedTwiceIsInlined) {
  Symbols s = symbols();
  s.relations["q"] = parse("x + 1");
  TableInputs in;
  EXPECT_DOUBLE_EQ(Evaluator(*compile("q * q + q", s), in).value(), 1.7 * 1.7 + 1.7);
}

TEST(ExpressionRelations, HistoryRelationUsedTwiceReadsEachPoint) {
  Symbols s = symbols();
  s.relations["r"] = parse("h * 2");
  EXPECT_THAT(values("r - r / 4", s), ElementsAre(1.5, 3.0, 6.0, 4.5));
  std::vector<int> points;
  for_each_response_read(*compile("r + r", s), 1, [&](int, int, int p) { points.push_back(p); });
  EXPECT_THAT(points, ElementsAre(1, 1));
}

TEST(ExpressionVariables, VariablesReadAreSortedOnceEachThroughRelations) {
  Symbols s = symbols();
  s.relations["q"] = parse("z * x");
  EXPECT_THAT(variables_read(*compile("x + 0*y + q + x^2", s)), ElementsAre(0, 1, 2));
  EXPECT_THAT(variables_read(*compile("k * 3", s)), ElementsAre());
  // A variable multiplied by zero is still read: the set is what the text can depend on.
  EXPECT_THAT(variables_read(*compile("sum(h) * z", s, 0)), ElementsAre(2));
}

TEST(ExpressionRelations, RelationsOfRelations) {
  Symbols s = symbols();
  s.relations["q"] = parse("x + 1");
  s.relations["q2"] = parse("q * q");
  s.relations["q3"] = parse("q2 - q + h");
  EXPECT_THAT(values("q3", s), ElementsAre(1.7 * 1.7 - 1.7 + 1, 1.7 * 1.7 - 1.7 + 2,
                                           1.7 * 1.7 - 1.7 + 4, 1.7 * 1.7 - 1.7 + 3));
  EXPECT_EQ(compile("q3", s)->degree(), Degree::kNonlinear);
  EXPECT_EQ(compile("q3", s)->grid_case(), 0);
}

TEST(ExpressionRelations, RelationBindsToTheLoadCaseOfItsUse) {
  Symbols s = symbols();
  s.relations["r"] = parse("h - t");
  EXPECT_THAT(values("r", s, 0), ElementsAre(1.0, 1.0, 1.0, -3.0));
  EXPECT_THAT(values("r", s, 1), ElementsAre(10.0, 19.5, 29.0));
}

TEST(ExpressionRelations, CycleIsAnErrorNamingTheCycle) {
  Symbols s = symbols();
  s.relations["a"] = parse("b + 1");
  s.relations["b"] = parse("2 * a");
  const Error e = error_of("x + a", s);
  EXPECT_THAT(e.detail(), HasSubstr("cycle: a -> b -> a"));
  EXPECT_EQ(e.origin(), "b");  // where the reference closing the cycle is written
  EXPECT_EQ(e.column(), 5);
}

TEST(ExpressionRelations, SelfReferenceIsACycle) {
  Symbols s = symbols();
  s.relations["r"] = parse("r + 1");
  const Error e = error_of("r", s);
  EXPECT_THAT(e.detail(), HasSubstr("cycle: r -> r"));
  EXPECT_EQ(e.origin(), "r");
  EXPECT_EQ(e.column(), 1);
}

TEST(ExpressionRelations, ErrorInsideARelationCarriesItsOrigin) {
  Symbols s = symbols();
  s.relations["bad"] = parse("x + nope");
  const Error e = error_of("1 + bad * 2", s);
  EXPECT_EQ(e.origin(), "bad");
  EXPECT_EQ(e.column(), 5);  // in the relation's text
  EXPECT_THAT(e.detail(), HasSubstr("unknown name \"nope\""));
}

TEST(ExpressionRelations, ErrorInANestedRelationNamesTheInnermost) {
  Symbols s = symbols();
  s.relations["inner"] = parse("h + h@d");
  s.relations["outer"] = parse("inner * 2");
  const Error e = error_of("outer", s);
  EXPECT_EQ(e.origin(), "inner");
  EXPECT_EQ(e.column(), 3);
  EXPECT_THAT(e.detail(), HasSubstr("series of different lengths"));
}

TEST(ExpressionRelations, ShapeErrorAtTheUseOfARelationHasNoOrigin) {
  Symbols s = symbols();
  s.relations["r"] = parse("h * 2");
  const Error e = error_of("v + r", s);
  EXPECT_EQ(e.origin(), "");
  EXPECT_EQ(e.column(), 3);
}

// --- errors ---------------------------------------------------------------------------------

TEST(ExpressionErrors, UnknownName) {
  expect_error("x + zz", 5, "unknown name \"zz\" (not a variable, response, constant");
}

TEST(ExpressionErrors, FunctionNameWithoutCall) {
  expect_error("2 * sin", 5, "\"sin\" is a function: call it as sin(...)");
}

TEST(ExpressionErrors, UnknownFunctionListsTheFunctions) {
  expect_error("1 + foo(x)", 5,
               "unknown function \"foo\" (functions: sin, cos, tan, asin, acos, atan, sqrt, exp, "
               "log, abs, atan2, pow, min, max, sum, mean, trapz, hic, clip3ms)");
  expect_error("x(2)", 1, "unknown function \"x\"");
}

TEST(ExpressionErrors, WrongArity) {
  expect_error("1 + atan2(x)", 5, "atan2() takes 2 arguments, got 1");
  expect_error("sin(x, y)", 1, "sin() takes 1 argument, got 2");
  expect_error("sin()", 1, "sin() takes 1 argument, got 0");
  expect_error("max(1, 2, 3)", 1, "max() takes 2 arguments, got 3");
  expect_error("sum(h, h)", 1, "sum() takes 1 argument, got 2");
  expect_error("x + trapz()", 5, "trapz() takes 1 argument, got 0");
}

TEST(ExpressionErrors, UnclosedParenthesisPointsAtTheEndAndTheOpening) {
  expect_error("(x + (y * 2)", 13,
               "expected \")\" to close the parenthesis opened at column 1, found end of "
               "expression");
  expect_error("x * (y + 1 ]", 12, "opened at column 5, found \"]\"");
  expect_error("sin(x", 6, "expected \")\" to close the arguments of sin()");
}

TEST(ExpressionErrors, ExtraClosingParenthesis) {
  expect_error("(x + 1))", 8, "unexpected \")\" after a complete expression");
  expect_error(")", 1, "unexpected \")\"");
}

TEST(ExpressionErrors, TrailingGarbage) {
  expect_error("x + y $", 7, "unexpected \"$\" after a complete expression");
  expect_error("x y", 3, "unexpected \"y\" after a complete expression");
  expect_error("sum(h)@c", 7, "unexpected \"@\"");
}

TEST(ExpressionErrors, MissingOperatorAfterANumber) {
  expect_error("2x", 2, "unexpected \"x\" after a number (missing \"*\"?)");
  expect_error("x + 3.5e2y", 10, "missing \"*\"");
}

TEST(ExpressionErrors, MalformedNumbers) {
  expect_error("1e", 2, "malformed exponent in a number");
  expect_error("1e+", 2, "malformed exponent");
  expect_error("2 * 1.5E-", 8, "malformed exponent");
  expect_error(".", 1, "malformed number \".\"");
  expect_error("x + .", 5, "malformed number \".\"");
  expect_error("1e999", 1, "number out of range: 1e999");
}

TEST(ExpressionErrors, EmptyOrIncompleteExpression) {
  expect_error("", 1, "empty expression");
  expect_error(" \t ", 1, "empty expression");
  expect_error("x +", 4, "unexpected end of expression");
  expect_error("-", 2, "unexpected end of expression");
  expect_error("()", 2, "unexpected \")\"");
  expect_error("2 * * 3", 5, "unexpected \"*\"");
}

TEST(ExpressionErrors, IndexOutOfRange) {
  expect_error("h[4]", 2, "time index 4 outside 0..3");
  expect_error("1 + h[-5]", 6, "time index -5 outside 0..3");
  expect_error("h@d[3]", 4, "time index 3 outside 0..2");
  expect_error("h[999999999999]", 3, "time index too large");
}

TEST(ExpressionErrors, MalformedIndex) {
  expect_error("h[x]", 3, "expected an integer time index, found \"x\"");
  expect_error("h[1.5]", 4, "expected \"]\" to close the index, found \".\"");
  expect_error("h[1", 4, "expected \"]\" to close the index, found end of expression");
  expect_error("x[0]", 2, "indexing a scalar");
  expect_error("h[0][0]", 5, "indexing a scalar");
}

TEST(ExpressionErrors, ReductionOfAScalar) {
  expect_error("sum(x)", 1, "sum() needs a history or data array, got a scalar");
  expect_error("2 + mean(h[0])", 5, "mean() needs a history or data array");
}

TEST(ExpressionErrors, TrapzOfADataArrayHasNoGrid) {
  expect_error("trapz(w)", 1, "a data array alone has none");
  expect_error("x + trapz(w * 2)", 5, "trapz() integrates over a time grid");
}

TEST(ExpressionErrors, SeriesOfDifferentLengths) {
  expect_error("h + h@d", 3, "series of different lengths (4 and 3 points)");
  expect_error("w * v", 3, "series of different lengths (4 and 3 points)");
  expect_error("atan2(h, v)", 1, "series of different lengths (4 and 3 points)");
  expect_error("t - t@d", 3, "series of different lengths");
}

TEST(ExpressionErrors, HistoriesOfTwoLoadCasesMixedElementwise) {
  Symbols s = symbols();
  s.cases[1].times = {0.0, 2.0, 4.0, 5.0};  // same length as c
  expect_error("h@c * h@d", 5, "mixes histories of load cases \"c\" and \"d\" elementwise", s);
  expect_error("h - t@d", 3, "mixes histories of load cases \"c\" and \"d\"", s);
  expect_error("max(h@d + w, t@c)", 1, "mixes histories of load cases \"d\" and \"c\"", s);
  // Reductions of each are fine.
  EXPECT_EQ(compile("sum(h@c) * trapz(h@d)", s)->points(), 1);
}

TEST(ExpressionErrors, CaseOnAVariableOrConstant) {
  expect_error("1 + x@c", 5, "\"x\" is a variable: only responses and t take @case");
  expect_error("k@c", 1, "only responses and t take @case, not \"k\"");
  expect_error("w@c", 1, "only responses and t take @case, not \"w\"");
}

TEST(ExpressionErrors, UnknownOrMissingLoadCase) {
  expect_error("h@nowhere", 1, "unknown load case \"nowhere\" (load cases: c, d, e)");
  expect_error("h@", 3, "expected a load case name after \"@\", found end of expression");
  expect_error("h@1", 3, "expected a load case name after \"@\", found \"1\"");
}

// A misspelled response with @case is an unknown name (not "only responses and t take @case").
TEST(ExpressionErrors, MisspelledResponseWithACaseIsAnUnknownName) {
  expect_error("hh@c", 1, "unknown name \"hh\"");
}

TEST(ExpressionErrors, ResponseNeedsALoadCase) {
  expect_error("x + s", 5, "response \"s\" needs a load case here: write s@<case>", symbols(), -1);
  expect_error("sum(h)", 5, "response \"h\" needs a load case here", symbols(), -1);
  expect_error("t", 1, "t needs a load case here: write t@<case>", symbols(), -1);
}

TEST(ExpressionErrors, LoadCaseWithoutAGrid) {
  expect_error("h@e", 1, "response \"h\" is a history but load case \"e\" has no time grid");
  expect_error("t@e", 1, "load case \"e\" has no time grid");
  expect_error("h", 1, "has no time grid", symbols(), 2);
  EXPECT_DOUBLE_EQ(values("s", symbols(), 2)[0], 9.0);  // a scalar response is fine
}

TEST(ExpressionErrors, WhatHasTheColumnAndTheDetail) {
  const Error e = error_of("x + zz");
  EXPECT_THAT(e.what(), HasSubstr("column 5: unknown name \"zz\""));
}

TEST(ExpressionErrors, DeepParenthesesAreAnErrorNotACrash) {
  const Error e = error_of(repeat("(", 10000) + "x" + repeat(")", 10000));
  EXPECT_THAT(e.detail(), HasSubstr("nested too deeply"));
  EXPECT_GT(e.column(), 1);
  EXPECT_LT(e.column(), 10000);
  EXPECT_THAT(error_of(repeat("(", 10000)).detail(), HasSubstr("nested too deeply"));
}

TEST(ExpressionErrors, DeepNestingOfEveryKindIsAnErrorNotACrash) {
  for (const std::string& text :
       {repeat("-", 10000) + "x", repeat("x^", 10000) + "x", repeat("sin(", 10000) + "x",
        repeat("sum(", 10000) + "h", repeat("2^-", 10000) + "x",
        repeat("[0]", 10000).insert(0, 1, 'x')}) {
    SCOPED_TRACE(text.substr(0, 20));
    const Error e = error_of(text);
    EXPECT_GT(e.column(), 0);
  }
}

TEST(ExpressionErrors, ModerateNestingIsAccepted) {
  EXPECT_DOUBLE_EQ(value(repeat("(", 30) + "x" + repeat(")", 30)), 0.7);
  EXPECT_DOUBLE_EQ(value(repeat("abs(", 25) + "y" + repeat(")", 25)), 0.4);
  EXPECT_DOUBLE_EQ(value(repeat("-", 30) + "x"), 0.7);
}

// A flat sum or product is a left-deep tree, not nesting: 300 terms bind although the depth
// limit is 200.
TEST(ExpressionErrors, ALongFlatSumBinds) {
  std::string sum = "x";
  for (int i = 1; i < 300; ++i) sum += " + x";
  EXPECT_NEAR(value(sum), 300 * 0.7, 1e-12);
  std::string product = "1";
  for (int i = 0; i < 300; ++i) product += " * 1";
  EXPECT_DOUBLE_EQ(value(product), 1.0);
}

// A very long flat sum is an error naming the limit, not a stack overflow in printing,
// binding or destroying its tree (it crashed at about 30000 terms before the node limit).
TEST(ExpressionErrors, AVeryLongFlatSumIsAnErrorNotACrash) {
  std::string sum = "x";
  for (int i = 1; i < 1000000; ++i) sum += "+x";
  const Error e = error_of(sum);
  EXPECT_THAT(e.detail(), HasSubstr("expression too long"));
  std::string fits = "x";
  for (int i = 1; i < 2000; ++i) fits += "+x";
  const AstPtr ast = parse(fits);
  EXPECT_FALSE(needs_case(ast, symbols()));
  EXPECT_EQ(to_text(ast).substr(0, 3), "(((");
  EXPECT_NEAR(value(fits), 2000 * 0.7, 1e-9);
}

}  // namespace
}  // namespace sao::expr
