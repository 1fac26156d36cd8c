// The expression engine of explicit relations: values, exact derivatives against finite
// differences and hand-derived cases, series and reductions (non-uniform grids), shapes and
// degrees, relations, and errors with their columns.
#include "sao/expression.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>
#include <string>

namespace sao::expr {
namespace {

using ::testing::HasSubstr;

// Two variables x, y; a scalar response s(x, y) = x^2 y and a history h_p(x, y) =
// (p + 1) x + sin(p y) on a 4-point grid of case "c" (times 0, 1, 3, 6) and a 3-point
// grid of case "d"; a constant k = 2 and a data array w = (1, 2, 3, 4).
class TestInputs final : public Inputs {
 public:
  Eigen::Vector2d x{0.7, -0.4};
  double variable(int i) const override { return x(i); }
  double response(int r, int, int p) const override {
    return r == 0 ? x(0) * x(0) * x(1) : (p + 1) * x(0) + std::sin(p * x(1));
  }
  int gradient_size() const override { return 2; }
  void response_gradient(int r, int, int p, Eigen::Ref<Eigen::VectorXd> g) const override {
    if (r == 0) {
      g << 2 * x(0) * x(1), x(0) * x(0);
    } else {
      g << p + 1, p * std::cos(p * x(1));
    }
  }
};

Symbols symbols() {
  Symbols s;
  s.variables = {"x", "y"};
  s.responses = {{"s", false}, {"h", true}};
  s.cases = {{"c", {0.0, 1.0, 3.0, 6.0}}, {"d", {0.0, 0.5, 1.0}}};
  s.constants = {{"k", 2.0}};
  s.data = {{"w", {1.0, 2.0, 3.0, 4.0}}};
  return s;
}

ProgramPtr compile(const std::string& text, Symbols s = symbols(), int load_case = 0) {
  return expr::bind(parse(text), s, load_case);
}

double value(const std::string& text, int point = 0) {
  TestInputs in;
  return Evaluator(*compile(text), in).value(point);
}

// The error of `text`, or "" when it compiles.
Error error_of(const std::string& text, Symbols s = symbols(), int load_case = 0) {
  try {
    compile(text, std::move(s), load_case);
  } catch (const Error& e) {
    return e;
  }
  return Error("no error", 0);
}

TEST(Expression, ArithmeticAndPrecedence) {
  EXPECT_DOUBLE_EQ(value("1 + 2 * 3"), 7.0);
  EXPECT_DOUBLE_EQ(value("(1 + 2) * 3"), 9.0);
  EXPECT_DOUBLE_EQ(value("2 ^ 3 ^ 2"), 512.0);  // right-associative
  EXPECT_DOUBLE_EQ(value("-2 ^ 2"), -4.0);      // ^ binds tighter than unary minus
  EXPECT_DOUBLE_EQ(value("2 ^ -1"), 0.5);
  EXPECT_DOUBLE_EQ(value("8 / 4 / 2"), 1.0);  // left-associative
  EXPECT_DOUBLE_EQ(value("--3 + +1"), 4.0);
  EXPECT_DOUBLE_EQ(value("1.5e2 + .5 + 2E-1"), 150.7);
  EXPECT_DOUBLE_EQ(value("k * pi"), 2.0 * std::numbers::pi);
}

TEST(Expression, EveryFunction) {
  const double x = 0.7, y = -0.4;
  const std::pair<const char*, double> cases[] = {{"sin(x)", std::sin(x)},
                                                  {"cos(x)", std::cos(x)},
                                                  {"tan(x)", std::tan(x)},
                                                  {"asin(y)", std::asin(y)},
                                                  {"acos(y)", std::acos(y)},
                                                  {"atan(y)", std::atan(y)},
                                                  {"atan2(y, x)", std::atan2(y, x)},
                                                  {"sqrt(x)", std::sqrt(x)},
                                                  {"exp(y)", std::exp(y)},
                                                  {"log(x)", std::log(x)},
                                                  {"pow(x, y)", std::pow(x, y)},
                                                  {"abs(y)", 0.4},
                                                  {"min(x, y)", y},
                                                  {"max(x, y)", x}};
  for (const auto& [text, expected] : cases) EXPECT_DOUBLE_EQ(value(text), expected) << text;
}

// Exact derivatives against central differences of the value, over variables and responses.
TEST(Expression, GradientsMatchFiniteDifferences) {
  const char* texts[] = {"x*y + s",
                         "sin(x*s) / (1 + y^2)",
                         "atan2(s, x) + sqrt(x^2 + y^2)",
                         "pow(x, y) + exp(y) * log(x)",
                         "h[2] * h[-1] - tan(y)",
                         "trapz(h^2) + mean(w * h) + sum(h)",
                         "min(x, s) + max(y, 0.1) + abs(x - y)"};
  for (const char* text : texts) {
    const ProgramPtr program = compile(text);
    TestInputs in;
    Eigen::VectorXd g(2);
    Evaluator(*program, in).value(0, g);
    for (int i = 0; i < 2; ++i) {
      const double h = 1e-6;
      TestInputs plus, minus;
      plus.x(i) += h;
      minus.x(i) -= h;
      const double fd =
          (Evaluator(*program, plus).value(0) - Evaluator(*program, minus).value(0)) / (2 * h);
      EXPECT_NEAR(g(i), fd, 1e-6 * (1 + std::abs(fd))) << text << " d/x" << i;
    }
  }
}

TEST(Expression, HandDerivedGradients) {
  TestInputs in;  // x = 0.7, y = -0.4
  Eigen::VectorXd g(2);
  Evaluator(*compile("x*y"), in).value(0, g);
  EXPECT_DOUBLE_EQ(g(0), -0.4);
  EXPECT_DOUBLE_EQ(g(1), 0.7);
  Evaluator(*compile("pow(x, y)"), in).value(0, g);  // both variable
  EXPECT_NEAR(g(0), -0.4 * std::pow(0.7, -1.4), 1e-14);
  EXPECT_NEAR(g(1), std::pow(0.7, -0.4) * std::log(0.7), 1e-14);
  Evaluator(*compile("atan2(y, x)"), in).value(0, g);
  EXPECT_NEAR(g(0), 0.4 / 0.65, 1e-14);
  EXPECT_NEAR(g(1), 0.7 / 0.65, 1e-14);
  Evaluator(*compile("min(x, y)"), in).value(0, g);  // the branch taken: y
  EXPECT_EQ(g, Eigen::Vector2d(0, 1));
  // A constant exponent of a negative base: the derivative exists (no a^b log a term).
  const double v = Evaluator(*compile("y^2"), in).value(0, g);
  EXPECT_NEAR(v, 0.16, 1e-15);
  EXPECT_TRUE(g.allFinite());
  EXPECT_NEAR(g(1), -0.8, 1e-15);
}

TEST(Expression, SeriesAndReductionsOnANonUniformGrid) {
  TestInputs in;
  const ProgramPtr h = compile("h");
  EXPECT_TRUE(h->is_series());
  EXPECT_EQ(h->points(), 4);
  EXPECT_EQ(h->grid_case(), 0);
  Evaluator e(*h, in);
  std::vector<double> hv(4);
  for (int p = 0; p < 4; ++p) hv[p] = e.value(p);
  // Times 0, 1, 3, 6: trapezoid with the widths 1, 2, 3.
  const double trapz =
      0.5 * (hv[0] + hv[1]) * 1 + 0.5 * (hv[1] + hv[2]) * 2 + 0.5 * (hv[2] + hv[3]) * 3;
  EXPECT_NEAR(value("trapz(h)"), trapz, 1e-14);
  EXPECT_NEAR(value("sum(h)"), hv[0] + hv[1] + hv[2] + hv[3], 1e-14);
  EXPECT_NEAR(value("mean(w)"), 2.5, 1e-15);
  EXPECT_NEAR(value("trapz(t)"), 18.0, 1e-14);  // integral of t over 0..6
  EXPECT_NEAR(value("h * w + k", 2), hv[2] * 3 + 2, 1e-14);
  EXPECT_NEAR(value("h[1]"), hv[1], 1e-15);
  EXPECT_NEAR(value("h[-1]"), hv[3], 1e-15);
  EXPECT_NEAR(value("t", 3), 6.0, 0);
  EXPECT_NEAR(value("t@d", 1), 0.5, 0);
  // A reduction inside an elementwise expression: right at every point.
  const double mean = (hv[0] + hv[1] + hv[2] + hv[3]) / 4;
  const ProgramPtr centred = compile("h - mean(h)");
  Evaluator c(*centred, in);
  for (int p = 0; p < 4; ++p) EXPECT_NEAR(c.value(p), hv[p] - mean, 1e-14) << p;
}

TEST(Expression, TrapzConvergesToTheIntegral) {
  Symbols s = symbols();
  std::vector<double> times(1001);
  for (size_t i = 0; i < times.size(); ++i) times[i] = 2.0 * i / 1000.0;
  s.cases[0].times = times;
  TestInputs in;
  EXPECT_NEAR(Evaluator(*compile("trapz(t^2)", s), in).value(), 8.0 / 3.0, 1e-5);
}

TEST(Expression, ResponsesReadAtAPointOrAcrossTheHistory) {
  std::vector<int> points;
  for_each_response_read(*compile("h * 2 + s"), 2, [&](int r, int, int p) {
    if (r == 1) points.push_back(p);
  });
  EXPECT_EQ(points, std::vector<int>({2}));
  points.clear();
  for_each_response_read(*compile("h - mean(h)"), 2, [&](int r, int, int p) {
    if (r == 1) points.push_back(p);
  });
  EXPECT_THAT(points, ::testing::UnorderedElementsAre(2, 0, 1, 2, 3));
}

TEST(Expression, ShapesDegreesAndLoadCases) {
  EXPECT_EQ(compile("2*x + y")->degree(), Degree::kLinear);
  EXPECT_EQ(compile("x*y")->degree(), Degree::kNonlinear);
  EXPECT_EQ(compile("x/2")->degree(), Degree::kLinear);
  EXPECT_EQ(compile("2/x")->degree(), Degree::kNonlinear);
  EXPECT_EQ(compile("sum(h)")->degree(), Degree::kLinear);
  EXPECT_EQ(compile("trapz(h^2)")->degree(), Degree::kNonlinear);
  EXPECT_EQ(compile("k * 3 + sin(1)")->degree(), Degree::kConstant);
  EXPECT_FALSE(compile("sum(h)")->is_series());
  EXPECT_FALSE(compile("x + k")->uses_responses());
  EXPECT_TRUE(compile("s")->uses_responses());
  EXPECT_TRUE(needs_case(parse("h + 1"), symbols()));
  EXPECT_TRUE(needs_case(parse("trapz(t)"), symbols()));
  EXPECT_FALSE(needs_case(parse("h@c + x"), symbols()));
  EXPECT_EQ(compile("h@d", symbols(), -1)->points(), 3);
}

TEST(Expression, RelationsAreInlinedAndCheckedForCycles) {
  Symbols s = symbols();
  s.relations["q"] = parse("x + 1");
  s.relations["q2"] = parse("q * q");
  TestInputs in;
  EXPECT_NEAR(Evaluator(*compile("q2 + q", s), in).value(), 1.7 * 1.7 + 1.7, 1e-14);
  s.relations["a"] = parse("b + 1");
  s.relations["b"] = parse("2 * a");
  const Error cycle = error_of("a", s);
  EXPECT_THAT(cycle.detail(), HasSubstr("a -> b -> a"));
  s.relations["bad"] = parse("x + nope");
  const Error inside = error_of("bad * 2", s);
  EXPECT_EQ(inside.origin(), "bad");
  EXPECT_EQ(inside.column(), 5);
}

TEST(Expression, ErrorsNameTheColumn) {
  struct Case {
    const char* text;
    int column;
    const char* detail;
  };
  const Case cases[] = {
      {"x + z", 5, "unknown name \"z\""},
      {"foo(x)", 1, "unknown function \"foo\" (functions: sin"},
      {"atan2(x)", 1, "atan2() takes 2 arguments, got 1"},
      {"(x + 1", 7, "expected \")\" to close the parenthesis opened at column 1"},
      {"x + 1)", 6, "unexpected \")\" after a complete expression"},
      {"2x", 2, "missing \"*\""},
      {"1e", 2, "malformed exponent"},
      {".", 1, "malformed number"},
      {"", 1, "empty expression"},
      {"h[4]", 2, "time index 4 outside 0..3"},
      {"trapz(w)", 1, "a data array alone has none"},
      {"h + h@d", 3, "series of different lengths"},
      {"x@c", 1, "only responses and t take @case"},
      {"sum(x)", 1, "needs a history or data array"},
      {"x +", 4, "unexpected end of expression"},
  };
  for (const Case& c : cases) {
    const Error e = error_of(c.text);
    EXPECT_EQ(e.column(), c.column) << c.text << ": " << e.what();
    EXPECT_THAT(e.detail(), HasSubstr(c.detail)) << c.text;
  }
  Symbols two = symbols();
  two.cases[1].times = {0.0, 1.0, 2.0, 3.0};  // same length, another load case
  EXPECT_THAT(error_of("h@c + h@d", two).detail(), HasSubstr("mixes histories of load cases"));
  EXPECT_THAT(error_of("s + 1", symbols(), -1).detail(), HasSubstr("needs a load case"));
}

TEST(Expression, DeepNestingIsAnErrorNotACrash) {
  const std::string deep = std::string(10000, '(') + "x" + std::string(10000, ')');
  EXPECT_THAT(error_of(deep).detail(), HasSubstr("nested too deeply"));
  std::string minus(10000, '-');
  EXPECT_THAT(error_of(minus + "x").detail(), HasSubstr("nested too deeply"));
}

}  // namespace
}  // namespace sao::expr
