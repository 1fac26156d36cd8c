// The injury criteria of the expression engine (sao/expr/injury.hpp): hic(a, window) and
// clip3ms(a [, duration]) against closed forms (half-sine, rectangular pulse, triangle), their
// derivatives against central differences, and the errors of bad arguments.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>
#include <string>
#include <vector>

#include "sao/expr/expression.hpp"

namespace sao::expr {
namespace {

using ::testing::HasSubstr;

// One load case on a uniform grid, one history `a` given as a function of the point and of
// the variables x, y (with its gradient by central differences of that function).
class PulseInputs final : public Inputs {
 public:
  PulseInputs(std::vector<double> t, std::function<double(double, double, double)> f)
      : t_(std::move(t)), f_(std::move(f)) {}
  double x = 1.0, y = 1.0;
  double variable(int i) const override { return i == 0 ? x : y; }
  double response(int, int, int point) const override { return f_(t_[point], x, y); }
  int gradient_size() const override { return 2; }
  void response_gradient(int, int, int point, Eigen::Ref<Eigen::VectorXd> g) const override {
    const double h = 1e-6, tp = t_[point];
    g(0) = (f_(tp, x + h, y) - f_(tp, x - h, y)) / (2 * h);
    g(1) = (f_(tp, x, y + h) - f_(tp, x, y - h)) / (2 * h);
  }

 private:
  std::vector<double> t_;
  std::function<double(double, double, double)> f_;
};

std::vector<double> grid(double end, double step) {
  std::vector<double> t;
  const int n = static_cast<int>(std::lround(end / step));
  for (int k = 0; k <= n; ++k) t.push_back(k * step);
  return t;
}

Symbols symbols(const std::vector<double>& t) {
  Symbols s;
  s.variables = {"x", "y"};
  s.responses = {{"a", true}, {"s", false}};
  s.cases = {{"crash", t}};
  return s;
}

double evaluate(const std::string& text, const std::vector<double>& t, const Inputs& inputs,
                Eigen::VectorXd* gradient = nullptr) {
  const ProgramPtr program = sao::expr::bind(parse(text), symbols(t), 0);
  Evaluator evaluator(*program, inputs);
  if (!gradient) return evaluator.value(0);
  gradient->resize(inputs.gradient_size());
  return evaluator.value(0, *gradient);
}

constexpr double kPi = std::numbers::pi;

TEST(Injury, HicOfAHalfSineIsTheClosedForm) {
  // a = A sin(pi t / tau) on [0, tau]: HIC = 0.41465 tau A^2.5 (best window 0.670 tau).
  for (const double tau : {0.01, 0.02, 0.05}) {
    const std::vector<double> t = grid(0.08, 2e-5);
    PulseInputs in(t, [tau](double tp, double x, double) {
      return tp <= tau ? 80.0 * x * std::sin(kPi * tp / tau) : 0.0;
    });
    const double hic = evaluate("hic(a, 0.036)", t, in);
    EXPECT_NEAR(hic, 0.41465 * tau * std::pow(80.0, 2.5), 2e-4 * hic) << "tau " << tau;
  }
}

TEST(Injury, HicOfAConstantSixtyGOverTenMillisecondsIs278_85) {
  const std::vector<double> t = grid(0.05, 1e-4);
  PulseInputs in(t, [](double tp, double, double) {
    return tp > 0.01 - 1e-9 && tp < 0.02 + 1e-9 ? 60.0 : 0.0;
  });
  EXPECT_NEAR(evaluate("hic(a, 0.036)", t, in), 278.85, 0.01);
  // A window shorter than the pulse: dt 60^2.5 with dt the window.
  EXPECT_NEAR(evaluate("hic(a, 0.004)", t, in), 0.004 * std::pow(60.0, 2.5), 1e-9);
  // The 3 ms level of a plateau is the plateau.
  EXPECT_NEAR(evaluate("clip3ms(a)", t, in), 60.0, 1e-12);
}

TEST(Injury, ThreeMillisecondLevelOfATriangleIsExact) {
  // 0 -> 100 g over 10 ms, back to 0 over 10 ms: time above L is 20 ms (1 - L/100), so
  // 3 ms above 85 g, 5 ms above 75 g; cumulative: two separated triangles count together.
  const std::vector<double> t = grid(0.06, 1e-3);
  auto triangle = [](double tp, double start) {
    return std::max(0.0, 100.0 * (1.0 - std::abs(tp - start - 0.01) / 0.01));
  };
  PulseInputs one(t, [&](double tp, double, double) { return triangle(tp, 0.0); });
  EXPECT_NEAR(evaluate("clip3ms(a)", t, one), 85.0, 1e-9);
  EXPECT_NEAR(evaluate("clip3ms(a, 0.005)", t, one), 75.0, 1e-9);
  PulseInputs two(
      t, [&](double tp, double, double) { return triangle(tp, 0.0) + triangle(tp, 0.03); });
  EXPECT_NEAR(evaluate("clip3ms(a)", t, two), 92.5, 1e-9);  // 2 x 20 ms (1 - L/100) = 3 ms
  // Longer than the history: its minimum.
  EXPECT_NEAR(evaluate("clip3ms(a, 1)", t, one), 0.0, 1e-12);
}

TEST(Injury, DerivativesAgreeWithCentralDifferences) {
  const std::vector<double> t = grid(0.1, 5e-4);
  auto pulse = [](double tp, double x, double y) {
    return 50.0 * x * std::exp(-std::pow((tp - 0.04 * y) / (0.012 * x), 2)) +
           20.0 * y * std::sin(30.0 * tp) * std::sin(30.0 * tp);
  };
  PulseInputs in(t, pulse);
  in.x = 1.1;
  in.y = 0.9;
  for (const std::string text : {"hic(a, 0.036)", "clip3ms(a)", "hic(a^2/50, 0.015)"}) {
    Eigen::VectorXd g;
    const double value = evaluate(text, t, in, &g);
    EXPECT_GT(value, 0.0);
    for (int i = 0; i < 2; ++i) {
      const double h = 1e-6;
      double& v = i == 0 ? in.x : in.y;
      v += h;
      const double up = evaluate(text, t, in);
      v -= 2 * h;
      const double down = evaluate(text, t, in);
      v += h;
      EXPECT_NEAR(g(i), (up - down) / (2 * h), 1e-4 * std::abs(g(i)) + 1e-6) << text << " " << i;
      EXPECT_NE(g(i), 0.0) << text << " " << i;
    }
  }
}

TEST(Injury, BadArgumentsAreErrorsWithTheFunctionNamed) {
  const std::vector<double> t = grid(0.01, 1e-3);
  auto message = [&](const std::string& text) {
    try {
      sao::expr::bind(parse(text), symbols(t), 0);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message("hic(s, 0.036)"), HasSubstr("hic() needs a history"));
  EXPECT_THAT(message("hic(a)"), HasSubstr("hic() takes 2 arguments, got 1"));
  EXPECT_THAT(message("hic(a, x)"), HasSubstr("window must be a constant"));
  // A window or duration written as a number that is not positive (fuzzing: accepted, and
  // every evaluation gave NaN).
  EXPECT_THAT(message("hic(a, 0)"),
              HasSubstr("hic(): the window must be positive (seconds), got 0"));
  EXPECT_THAT(message("hic(a, -0.036)"), HasSubstr("must be positive (seconds), got -0.036"));
  EXPECT_THAT(message("clip3ms(a, -1)"),
              HasSubstr("clip3ms(): the duration must be positive (seconds), got -1"));
  EXPECT_THAT(message("hic(a, 0.036)"), HasSubstr("no error"));
  EXPECT_THAT(message("clip3ms(a, 0.003, 1)"), HasSubstr("1 or 2 arguments"));
  EXPECT_THAT(message("clip3ms(t*0 + 1 + a)"), HasSubstr("no error"));
}

}  // namespace
}  // namespace sao::expr
