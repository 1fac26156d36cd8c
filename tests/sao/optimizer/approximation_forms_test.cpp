#include "sao/optimizer/approximation_forms.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "sao/study/study_loader.hpp"

namespace sao {
namespace {

// The form of a response and whether all are linear, under the study file's settings (what a
// driver started from the study follows).
ApproximationForm form_of(const LoadedStudy& s, int response) {
  return response_form(s, s.options, response);
}
bool linear_of(const LoadedStudy& s) {
  return linear_form(s, s.options);
}

using Eigen::VectorXd;

// A response as a function of the design with its exact gradient.
struct Function {
  std::string name;
  std::function<double(const VectorXd&)> value;
  std::function<VectorXd(const VectorXd&)> gradient;
};

// n (1 or 2) variables b1, b2 in [0.5, 4] (initial 1), scalar responses r and s, objective
// `objective`.
LoadedStudy make_study(int n, const std::string& form, const nlohmann::json& intermediate = nullptr,
                       const std::string& objective = "r") {
  nlohmann::json d = {
      {"load_cases", {{{"name", "only"}}}},
      {"responses", {{{"name", "r"}, {"kind", "scalar"}}, {{"name", "s"}, {"kind", "scalar"}}}},
      {"objective", {{"minimize", objective}}},
      {"settings", {{"form", form}}},
      {"simulator", {{"type", "none"}}}};
  for (int k = 0; k < n; ++k) {
    const char* names[] = {"b1", "b2"};
    nlohmann::json v = {{"name", names[k]}, {"lower", 0.5}, {"upper", 4.0}, {"initial", 1.0}};
    if (!intermediate.is_null()) v["intermediate"] = intermediate;
    d["design_variables"].push_back(v);
  }
  return load_study(d);
}

Evaluation analyse(const std::vector<Function>& functions, const VectorXd& b, bool gradients) {
  Evaluation e;
  e.cases.resize(1);
  e.has_gradients = gradients;
  for (const Function& f : functions) {
    e.cases[0].scalars[f.name] = f.value(b);
    if (gradients) e.cases[0].gradients[f.name] = f.gradient(b).transpose();
  }
  return e;
}

VectorXd point(std::initializer_list<double> values) {
  VectorXd v(static_cast<int>(values.size()));
  int k = 0;
  for (double x : values) v(k++) = x;
  return v;
}

// A separable quadratic in b: 1 + 2 b1 - b2 + 1.5 b1^2 + 0.25 b2^2, and its constant twin s.
const Function kQuadratic{
    "r",
    [](const VectorXd& b) { return 1 + 2 * b(0) - b(1) + 1.5 * b(0) * b(0) + 0.25 * b(1) * b(1); },
    [](const VectorXd& b) {
      return point({2 + 3 * b(0), -1 + 0.5 * b(1)});
    }};
const Function kConstant{"s", [](const VectorXd&) { return 5.0; },
                         [](const VectorXd& b) { return VectorXd::Zero(b.size()).eval(); }};

// Entry by entry (a norm of the difference of two 2-vectors trips GCC 12's -Warray-bounds in
// Eigen).
void expect_close(const VectorXd& a, const VectorXd& b, double tolerance) {
  ASSERT_EQ(a.size(), b.size());
  for (int k = 0; k < a.size(); ++k) EXPECT_NEAR(a(k), b(k), tolerance) << k;
}

// The approximation's gradient against central differences of its value.
void expect_consistent_gradient(const ResponseModel& a, const VectorXd& x) {
  VectorXd g = VectorXd::Zero(x.size());
  a.add_gradient(0, 0, 0, x, 1.0, g);
  for (int k = 0; k < x.size(); ++k) {
    const double h = 1e-6;
    VectorXd up = x, down = x;
    up(k) += h;
    down(k) -= h;
    EXPECT_NEAR(g(k), (a.value(0, 0, 0, up) - a.value(0, 0, 0, down)) / (2 * h), 1e-5) << k;
  }
}

TEST(ApproximationForms, QuadraticIsExactForASeparableQuadraticAfterOnePreviousPoint) {
  const LoadedStudy s = make_study(2, "quadratic");
  const VectorXd b0 = point({1.0, 1.0}), bp = point({2.0, 3.0});
  ApproximationMemory memory;
  memory.points.push_back({bp, analyse({kQuadratic, kConstant}, bp, true)});
  const Evaluation e = analyse({kQuadratic, kConstant}, b0, true);
  const auto a = make_approximation(s, s.options, e, b0, VectorXd(), VectorXd(), memory);
  EXPECT_NEAR(a->curvature({0, 0, 0})(0), 3.0, 1e-12);
  EXPECT_NEAR(a->curvature({0, 0, 0})(1), 0.5, 1e-12);
  for (const VectorXd& x : {point({0.5, 4.0}), point({3.0, 0.7}), point({1.2, 2.2})}) {
    EXPECT_NEAR(a->value(0, 0, 0, x), kQuadratic.value(x), 1e-12);
    VectorXd g = VectorXd::Zero(2);
    a->add_gradient(0, 0, 0, x, 1.0, g);
    expect_close(g, kQuadratic.gradient(x), 1e-12);
  }
}

TEST(ApproximationForms, AVariableThatOnlyRoundedTakesTheSphericalCurvature) {
  // r = (b1 - 2)^2 + 4 b1 b2 + b2^2: coupled. From bp to b0 only b1 moved (by 1); b2 moved by
  // rounding (+-1e-13, as a subproblem's tolerance leaves it). b2's secant would be the
  // coupling 4 * 1 over 1e-13, capped, or floored at 0 with the other sign: instead b2 takes
  // the spherical curvature, the same for either sign (a mirror pair stays a pair), while b1
  // keeps its secant (the exact 2 plus the coupling 4 * 1e-13 / 1).
  const Function f{
      "r",
      [](const VectorXd& b) { return (b(0) - 2) * (b(0) - 2) + 4 * b(0) * b(1) + b(1) * b(1); },
      [](const VectorXd& b) {
        return point({2 * (b(0) - 2) + 4 * b(1), 4 * b(0) + 2 * b(1)});
      }};
  const LoadedStudy s = make_study(2, "quadratic");
  const VectorXd b0 = point({1.0, 1.0});
  std::vector<double> c2;
  for (double noise : {1e-13, -1e-13}) {
    const VectorXd bp = point({2.0, 1.0 + noise});
    ApproximationMemory memory;
    memory.points.push_back({bp, analyse({f, kConstant}, bp, true)});
    // The approximation refers to its analysis of b0: keep it alive while `a` is used.
    const Evaluation at_b0 = analyse({f, kConstant}, b0, true);
    const auto a = make_approximation(s, s.options, at_b0, b0, VectorXd(), VectorXd(), memory);
    EXPECT_NEAR(a->curvature({0, 0, 0})(0), 2.0, 1e-9) << noise;
    c2.push_back(a->curvature({0, 0, 0})(1));
  }
  EXPECT_NEAR(c2[0], c2[1], 1e-9 * std::abs(c2[0]));
  // The spherical curvature: 2 (r(bp) - r0 - a . dy) / |dy / w|^2 / w^2, here (w equal) the
  // second difference along the step, 2 to rounding.
  EXPECT_NEAR(c2[0], 2.0, 1e-6);
}

TEST(ApproximationForms, QuadraticWithoutPreviousPointIsTheLinearApproximation) {
  const LoadedStudy s = make_study(2, "quadratic");
  const VectorXd b0 = point({1.0, 2.0});
  const Evaluation e = analyse({kQuadratic, kConstant}, b0, true);
  const auto a =
      make_approximation(s, s.options, e, b0, VectorXd(), VectorXd(), ApproximationMemory{});
  const LinearApproximation linear(s, e, b0);
  const VectorXd x = point({3.0, 0.6});
  EXPECT_DOUBLE_EQ(a->value(0, 0, 0, x), linear.value(0, 0, 0, x));
  EXPECT_EQ(a->curvature({0, 0, 0}), VectorXd::Zero(2));
}

TEST(ApproximationForms, SphericalCurvatureFromTheValueAlone) {
  // One variable: r = 2 + (b - 1)^2 has c = 2 from r(b_p) alone (no gradient at b_p).
  const Function f{"r", [](const VectorXd& b) { return 2 + (b(0) - 1) * (b(0) - 1); },
                   [](const VectorXd& b) { return point({2 * (b(0) - 1)}); }};
  const LoadedStudy s = make_study(1, "quadratic");
  ApproximationMemory memory;
  memory.points.push_back({point({3.0}), analyse({f, kConstant}, point({3.0}), false)});
  const Evaluation e = analyse({f, kConstant}, point({1.5}), true);
  const auto a = make_approximation(s, s.options, e, point({1.5}), VectorXd(), VectorXd(), memory);
  EXPECT_NEAR(a->curvature({0, 0, 0})(0), 2.0, 1e-12);
  EXPECT_NEAR(a->value(0, 0, 0, point({0.6})), f.value(point({0.6})), 1e-12);
}

TEST(ApproximationForms, CurvatureIsFlooredAndCapped) {
  // r = -b^2 is concave: floored at 0 by default (the linear approximation) ...
  const Function concave{"r", [](const VectorXd& b) { return -b(0) * b(0); },
                         [](const VectorXd& b) { return point({-2 * b(0)}); }};
  ApproximationMemory memory;
  memory.points.push_back({point({2.0}), analyse({concave, kConstant}, point({2.0}), true)});
  const Evaluation e = analyse({concave, kConstant}, point({1.0}), true);
  LoadedStudy s = make_study(1, "quadratic");
  EXPECT_EQ(make_approximation(s, s.options, e, point({1.0}), VectorXd(), VectorXd(), memory)
                ->curvature({0, 0, 0})(0),
            0.0);
  // ... exact with a negative floor ...
  s.options.min_curvature = -10.0;
  EXPECT_NEAR(make_approximation(s, s.options, e, point({1.0}), VectorXd(), VectorXd(), memory)
                  ->curvature({0, 0, 0})(0),
              -2.0, 1e-12);
  // ... and a wild curvature is capped at max_curvature S / w^2, S = |r0| + |a| w + |r_p| +
  // |a_p| w (w = 3.5: the range of b), here with a jump of 1e6 at b_p.
  const Function jump{"r", [](const VectorXd& b) { return b(0) > 1.5 ? 1e6 : b(0); },
                      [](const VectorXd&) { return point({1.0}); }};
  memory.points[0] = {point({1.01}), analyse({jump, kConstant}, point({2.0}), false)};
  s.options.max_curvature = 10.0;
  const Evaluation ej = analyse({jump, kConstant}, point({1.0}), true);
  const double w = 3.5, scale = 1 + w + 1e6 + w;
  EXPECT_NEAR(make_approximation(s, s.options, ej, point({1.0}), VectorXd(), VectorXd(), memory)
                  ->curvature({0, 0, 0})(0),
              10.0 * scale / (w * w), 1e-6);
}

TEST(ApproximationForms, AResponseBoundedFromBothSidesKeepsACurvatureOfEitherSign) {
  // r = -b^2 (concave) under constraints: bounded from one side it is floored at 0 (a convex
  // model: conservative for an upper bound); an equality, or a lower and an upper bound, has no
  // conservative side and keeps its curvature, -2, down to -max_curvature.
  const Function concave{"r", [](const VectorXd& b) { return -b(0) * b(0); },
                         [](const VectorXd& b) { return point({-2 * b(0)}); }};
  ApproximationMemory memory;
  memory.points.push_back({point({2.0}), analyse({concave, kConstant}, point({2.0}), true)});
  const Evaluation e = analyse({concave, kConstant}, point({1.0}), true);
  const auto curvature_under = [&](const nlohmann::json& constraints, double max_curvature) {
    nlohmann::json d = {
        {"design_variables", {{{"name", "b1"}, {"lower", 0.5}, {"upper", 4.0}, {"initial", 1.0}}}},
        {"load_cases", {{{"name", "only"}}}},
        {"responses", {{{"name", "r"}, {"kind", "scalar"}}, {{"name", "s"}, {"kind", "scalar"}}}},
        {"objective", {{"minimize", "s"}}},
        {"constraints", constraints},
        {"settings", {{"form", "quadratic"}, {"max_curvature", max_curvature}}},
        {"simulator", {{"type", "none"}}}};
    LoadedStudy s = load_study(d);
    return make_approximation(s, s.options, e, point({1.0}), VectorXd(), VectorXd(), memory)
        ->curvature({0, 0, 0})(0);
  };
  const nlohmann::json r = {{"response", "r"}};
  EXPECT_EQ(curvature_under({{{"name", "c"}, {"of", r}, {"upper", -1.0}}}, 1000.0), 0.0);
  EXPECT_EQ(curvature_under({{{"name", "c"}, {"of", r}, {"lower", -9.0}}}, 1000.0), 0.0);
  EXPECT_NEAR(curvature_under({{{"name", "c"}, {"of", r}, {"equals", -2.0}}}, 1000.0), -2.0, 1e-12);
  EXPECT_NEAR(
      curvature_under({{{"name", "c"}, {"of", r}, {"lower", -9.0}, {"upper", -1.0}}}, 1000.0), -2.0,
      1e-12);
  EXPECT_NEAR(curvature_under({{{"name", "low"}, {"of", r}, {"lower", -9.0}},
                               {{"name", "high"}, {"of", "r + 0.5"}, {"upper", -1.0}}},
                              1000.0),
              -2.0, 1e-12);
  // The floor is -max_curvature S / w^2 (S = |r0| + |a| w + |r_p| + |a_p| w, w = 3.5).
  const double w = 3.5, scale = 1 + 2 * w + 4 + 4 * w;
  EXPECT_NEAR(curvature_under({{{"name", "c"}, {"of", r}, {"equals", -2.0}}}, 0.01),
              -0.01 * scale / (w * w), 1e-12);
}

TEST(ApproximationForms, QuadraticInReciprocalVariables) {
  // r = 3/b + 2/b^2 = 3 y + 2 y^2 in y = 1/b: exact after one previous point with gradients.
  const Function f{
      "r", [](const VectorXd& b) { return 3 / b(0) + 2 / (b(0) * b(0)); },
      [](const VectorXd& b) { return point({-3 / (b(0) * b(0)) - 4 / (b(0) * b(0) * b(0))}); }};
  const LoadedStudy s = make_study(1, "quadratic", "reciprocal");
  ApproximationMemory memory;
  memory.points.push_back({point({2.5}), analyse({f, kConstant}, point({2.5}), true)});
  const Evaluation e = analyse({f, kConstant}, point({1.0}), true);
  const auto a = make_approximation(s, s.options, e, point({1.0}), VectorXd(), VectorXd(), memory);
  for (double b : {0.5, 1.7, 4.0}) {
    EXPECT_NEAR(a->value(0, 0, 0, point({b})), f.value(point({b})), 1e-12) << b;
    expect_consistent_gradient(*a, point({b}));
  }
}

// A non-convex response for the conservative form.
const Function kWavy{"r", [](const VectorXd& b) { return std::sin(2 * b(0)) + b(1) * b(1) * b(1); },
                     [](const VectorXd& b) {
                       return point({2 * std::cos(2 * b(0)), 3 * b(1) * b(1)});
                     }};

TEST(ApproximationForms, ConservativeIsExactInValueAndGradientAtB0AndConvex) {
  for (const nlohmann::json& intermediate : {nlohmann::json(), nlohmann::json("reciprocal")}) {
    const LoadedStudy s = make_study(2, "conservative", intermediate);
    const VectorXd b0 = point({1.2, 1.5});
    const Evaluation e = analyse({kWavy, kConstant}, b0, true);
    const auto a = make_approximation(s, s.options, e, b0, point({0.5, 0.5}), point({4.0, 4.0}),
                                      ApproximationMemory{});
    EXPECT_NEAR(a->value(0, 0, 0, b0), kWavy.value(b0), 1e-12);
    VectorXd g = VectorXd::Zero(2);
    a->add_gradient(0, 0, 0, b0, 1.0, g);
    expect_close(g, kWavy.gradient(b0), 1e-12);
    expect_consistent_gradient(*a, point({3.0, 0.8}));
    // Convex in y along lines through the box: second differences >= 0.
    const auto y = [&](double t) {  // y(t) from y(0.5, 4) to y(4, 0.5), mapped back to b
      VectorXd b(2);
      for (int k = 0; k < 2; ++k) {
        const Intermediate& phi = s.design[k].intermediate;
        const double from = phi.value(k == 0 ? 0.5 : 4.0), to = phi.value(k == 0 ? 4.0 : 0.5);
        const double target = from + t * (to - from);
        b(k) = phi.identity() ? target : 1.0 / target;
      }
      return a->value(0, 0, 0, b);
    };
    for (double t = 0.05; t < 0.95; t += 0.05)
      EXPECT_GE(y(t - 0.05) + y(t + 0.05) - 2 * y(t), -1e-12) << t;
  }
}

TEST(ApproximationForms, ConservatismRhoRaisedUntilTheProposalIsCovered) {
  const LoadedStudy s = make_study(2, "conservative");
  const VectorXd b0 = point({1.2, 1.5}), box_lo = point({0.5, 0.5}), box_hi = point({4.0, 4.0});
  const Evaluation e = analyse({kWavy, kConstant}, b0, true);
  ApproximationMemory memory;
  // b2 = 2.5: b^3 grows faster than the approximation, which is not conservative there.
  const VectorXd b_star = point({1.2, 2.5});
  const Evaluation at_star = analyse({kWavy, kConstant}, b_star, false);
  auto a = make_approximation(s, s.options, e, b0, box_lo, box_hi, memory);
  ASSERT_LT(a->value(0, 0, 0, b_star), kWavy.value(b_star));
  const double rho = a->rho({0, 0, 0});
  EXPECT_EQ(update_conservatism(memory, *a, b_star, at_star), 1);
  EXPECT_GT(memory.rho.at({0, 0, 0}), rho);
  EXPECT_EQ(update_conservatism(memory, *a, b_star, at_star), 1);  // idempotent
  const auto again = make_approximation(s, s.options, e, b0, box_lo, box_hi, memory);
  EXPECT_DOUBLE_EQ(again->rho({0, 0, 0}), memory.rho.at({0, 0, 0}));
  EXPECT_EQ(again->lower_asymptote(), a->lower_asymptote());  // the same start keeps them
  EXPECT_GE(again->value(0, 0, 0, b_star), kWavy.value(b_star));
  // Still exact at b0, and larger elsewhere than with the smaller rho.
  EXPECT_NEAR(again->value(0, 0, 0, b0), kWavy.value(b0), 1e-12);
  EXPECT_GT(again->value(0, 0, 0, point({2.0, 1.0})), a->value(0, 0, 0, point({2.0, 1.0})));
  // A conservative proposal changes nothing.
  ApproximationMemory kept = memory;
  EXPECT_EQ(update_conservatism(kept, *again, b_star, at_star), 0);
  EXPECT_EQ(kept.rho.at({0, 0, 0}), memory.rho.at({0, 0, 0}));
  // At the next start rho falls back to a tenth (or the initial value from the slopes).
  const VectorXd b1 = point({1.3, 1.6});
  const Evaluation at_b1 = analyse({kWavy, kConstant}, b1, true);
  const auto next = make_approximation(s, s.options, at_b1, b1, box_lo, box_hi, memory);
  EXPECT_LT(next->rho({0, 0, 0}), memory.rho.at({0, 0, 0}));
  EXPECT_GE(next->rho({0, 0, 0}), 0.1 * memory.rho.at({0, 0, 0}));
}

// r (approximated conservatively) and s (constant) in 2 variables, with the given objective and
// constraints.
LoadedStudy study_with(const nlohmann::json& objective, const nlohmann::json& constraints) {
  nlohmann::json d = {
      {"load_cases", {{{"name", "only"}}}},
      {"responses", {{{"name", "r"}, {"kind", "scalar"}}, {{"name", "s"}, {"kind", "scalar"}}}},
      {"objective", objective},
      {"constraints", constraints},
      {"settings", {{"form", "conservative"}}},
      {"simulator", {{"type", "none"}}}};
  for (const char* name : {"b1", "b2"})
    d["design_variables"].push_back(
        {{"name", name}, {"lower", 0.5}, {"upper", 4.0}, {"initial", 1.0}});
  return load_study(d);
}

TEST(ApproximationForms, AResponseBoundedFromBelowIsApproximatedFromBelow) {
  const Function mirror{"r", [](const VectorXd& b) { return -kWavy.value(b); },
                        [](const VectorXd& b) { return (-kWavy.gradient(b)).eval(); }};
  const nlohmann::json lower = {{{"of", "r"}, {"lower", -100}}};
  const LoadedStudy below = study_with({{"minimize", "s"}}, lower);
  const LoadedStudy above = make_study(2, "conservative");  // minimises r
  const VectorXd b0 = point({1.2, 1.5}), box_lo = point({0.5, 0.5}), box_hi = point({4.0, 4.0});
  const Evaluation e_mirror = analyse({mirror, kConstant}, b0, true);
  const Evaluation e_wavy = analyse({kWavy, kConstant}, b0, true);
  ApproximationMemory m_below, m_above;
  auto a = make_approximation(below, below.options, e_mirror, b0, box_lo, box_hi, m_below);
  auto up = make_approximation(above, above.options, e_wavy, b0, box_lo, box_hi, m_above);
  EXPECT_EQ(a->direction(0), -1.0);
  EXPECT_EQ(up->direction(0), 1.0);
  // The mirror image of the upward form of -r: concave, exact at b0.
  for (const VectorXd& x : {b0, point({3.0, 0.8}), point({0.7, 3.5})})
    EXPECT_NEAR(a->value(0, 0, 0, x), -up->value(0, 0, 0, x), 1e-12);
  expect_consistent_gradient(*a, point({3.0, 0.8}));
  // Where r~ is above r at b*, rho is raised until r~ <= r there.
  const VectorXd b_star = point({1.2, 2.5});
  const Evaluation at_star = analyse({mirror, kConstant}, b_star, false);
  ASSERT_GT(a->value(0, 0, 0, b_star), mirror.value(b_star));
  EXPECT_EQ(update_conservatism(m_below, *a, b_star, at_star), 1);
  const auto again =
      make_approximation(below, below.options, e_mirror, b0, box_lo, box_hi, m_below);
  EXPECT_LE(again->value(0, 0, 0, b_star), mirror.value(b_star));
  EXPECT_NEAR(again->value(0, 0, 0, b0), mirror.value(b0), 1e-12);
  // Maximising r is the same direction; a response that enters both ways stays upward.
  const Evaluation e = analyse({kWavy, kConstant}, b0, true);
  const LoadedStudy maximised = study_with({{"maximize", "r"}}, nlohmann::json::array());
  EXPECT_EQ(
      make_approximation(maximised, maximised.options, e, b0, box_lo, box_hi, ApproximationMemory{})
          ->direction(0),
      -1.0);
  const LoadedStudy minimised = study_with({{"minimize", "r"}}, lower);
  EXPECT_EQ(
      make_approximation(minimised, minimised.options, e, b0, box_lo, box_hi, ApproximationMemory{})
          ->direction(0),
      1.0);
}

TEST(ApproximationForms, TheTenfoldCapNeedsSeveralUpdatesForAFarMiss) {
  const Function steep{"r", [](const VectorXd& b) { return std::exp(4 * b(0)); },
                       [](const VectorXd& b) { return point({4 * std::exp(4 * b(0))}); }};
  const LoadedStudy s = make_study(1, "conservative");
  const Evaluation e = analyse({steep, kConstant}, point({1.0}), true);
  const VectorXd b_star = point({3.9});
  const Evaluation at_star = analyse({steep, kConstant}, b_star, false);
  ApproximationMemory memory;
  int updates = 0;
  for (; updates < 20; ++updates) {
    const auto a =
        make_approximation(s, s.options, e, point({1.0}), point({0.5}), point({4.0}), memory);
    if (a->value(0, 0, 0, b_star) >= steep.value(b_star)) break;
    update_conservatism(memory, *a, b_star, at_star);
  }
  EXPECT_GT(updates, 0);
  EXPECT_LT(updates, 20);
}

TEST(ApproximationForms, AsymptotesFollowTheOscillationRuleAndStayOutsideTheBox) {
  const LoadedStudy s = make_study(1, "conservative");
  const Function f{"r", [](const VectorXd& b) { return b(0); },
                   [](const VectorXd&) { return point({1.0}); }};
  ApproximationMemory memory;
  const VectorXd lo = point({0.5}), hi = point({4.0});
  const auto cycle = [&](double b) {
    const Evaluation e = analyse({f, kConstant}, point({b}), true);
    auto a = make_approximation(s, s.options, e, point({b}), lo, hi, memory);
    remember(memory, *a, point({b}), e);
    return std::make_pair(a->lower_asymptote()(0), a->upper_asymptote()(0));
  };
  const double w = 3.5;
  // First two starts: 0.5 w away, pushed outside the box: L <= 0.5 - (b - 0.5) / 9 ...
  auto [l1, u1] = cycle(1.0);
  EXPECT_DOUBLE_EQ(u1, 1.0 + (4.0 - 1.0) / 0.9);  // 0.5 w = 1.75 would cut the box
  EXPECT_DOUBLE_EQ(l1, 1.0 - 0.5 * w);
  auto [l2, u2] = cycle(1.5);
  EXPECT_DOUBLE_EQ(l2, 1.5 - 0.5 * w);
  // Monotone: 1.2 times wider; then a turn: 0.7 times.
  auto [l3, u3] = cycle(2.0);
  EXPECT_DOUBLE_EQ(l3, 2.0 - 1.2 * (1.5 - l2));
  EXPECT_DOUBLE_EQ(u3, std::max(2.0 + 1.2 * (u2 - 1.5), 2.0 + 2.0 / 0.9));
  auto [l4, u4] = cycle(1.8);
  EXPECT_DOUBLE_EQ(l4, std::min(1.8 - 0.7 * (2.0 - l3), 1.8 - (1.8 - 0.5) / 0.9));
  EXPECT_DOUBLE_EQ(u4, std::max(1.8 + 0.7 * (u3 - 2.0), 1.8 + (4.0 - 1.8) / 0.9));
}

TEST(ApproximationForms, ExplicitRelationsStayExactOnEveryForm) {
  for (const char* form : {"linear", "quadratic", "conservative"}) {
    const LoadedStudy s = make_study(2, form, "reciprocal", "r^2 + s * b1");
    const VectorXd b0 = point({1.2, 1.5});
    ApproximationMemory memory;
    memory.points.push_back(
        {point({2.0, 2.0}), analyse({kWavy, kConstant}, point({2.0, 2.0}), true)});
    const Evaluation e = analyse({kWavy, kConstant}, b0, true);
    const auto a =
        make_approximation(s, s.options, e, b0, point({0.5, 0.5}), point({4.0, 4.0}), memory);
    const VectorXd x = point({2.5, 0.9});
    const double r = a->value(0, 0, 0, x), sv = a->value(1, 0, 0, x);
    EXPECT_NEAR(criterion_value(s, s.objective.f, 0, x, *a), r * r + sv * x(0), 1e-12) << form;
    VectorXd g = VectorXd::Zero(2), gr = VectorXd::Zero(2), gs = VectorXd::Zero(2);
    add_criterion_gradient(s, s.objective.f, 0, x, *a, g);
    a->add_gradient(0, 0, 0, x, 1.0, gr);
    a->add_gradient(1, 0, 0, x, 1.0, gs);
    const VectorXd expected = 2 * r * gr + x(0) * gs + point({sv, 0.0});
    SCOPED_TRACE(form);
    expect_close(g, expected, 1e-10);
  }
}

TEST(ApproximationForms, PerResponseFormsAndTheLinearFormUnchanged) {
  nlohmann::json d = {{"design_variables",
                       {{{"name", "b1"}, {"lower", 0.5}, {"upper", 4.0}, {"initial", 1.0}},
                        {{"name", "b2"}, {"lower", 0.5}, {"upper", 4.0}, {"initial", 1.0}}}},
                      {"load_cases", {{{"name", "only"}}}},
                      {"responses",
                       {{{"name", "r"}, {"kind", "scalar"}, {"form", "conservative"}},
                        {{"name", "s"}, {"kind", "scalar"}}}},
                      {"objective", {{"minimize", "r + s"}}},
                      {"simulator", {{"type", "none"}}}};
  // The default "auto" with the trust-region strategy: quasi-Newton for a scalar the
  // objective reads, quadratic for one only a constraint reads; linear with the seed's
  // strategy.
  EXPECT_EQ(form_of(load_study(d), 1), ApproximationForm::kQuasiNewton);
  nlohmann::json constrained = d;
  constrained["responses"].push_back({{"name", "c"}, {"kind", "scalar"}});
  constrained["objective"] = {{"minimize", "r"}};
  constrained["constraints"] = {{{"name", "g"}, {"of", "s + c"}, {"upper", 1.0}}};
  const LoadedStudy both = load_study(constrained);
  EXPECT_EQ(form_of(both, 1), ApproximationForm::kQuadratic);
  EXPECT_EQ(form_of(both, 2), ApproximationForm::kQuadratic);
  constrained["objective"] = {{"minimize", "r + 2*s"}};  // read by both: the objective's form
  EXPECT_EQ(form_of(load_study(constrained), 1), ApproximationForm::kQuasiNewton);
  d["settings"] = {{"strategy", "seed"}};
  EXPECT_EQ(form_of(load_study(d), 1), ApproximationForm::kLinear);
  d["settings"] = {{"form", "linear"}};
  const LoadedStudy s = load_study(d);
  EXPECT_EQ(form_of(s, 0), ApproximationForm::kConservative);
  EXPECT_EQ(form_of(s, 1), ApproximationForm::kLinear);
  EXPECT_FALSE(linear_of(s));
  EXPECT_TRUE(linear_of(make_study(1, "linear")));
  const VectorXd b0 = point({1.2, 1.5}), x = point({2.0, 0.7});
  const Function twin{"s", kWavy.value, kWavy.gradient};
  const Evaluation e = analyse({kWavy, twin}, b0, true);
  const auto a =
      make_approximation(s, s.options, e, b0, VectorXd(), VectorXd(), ApproximationMemory{});
  const LinearApproximation linear(s, e, b0);
  EXPECT_EQ(a->value(1, 0, 0, x), linear.value(1, 0, 0, x));  // bit for bit
  EXPECT_NE(a->value(0, 0, 0, x), linear.value(0, 0, 0, x));
  EXPECT_TRUE(std::isnan(a->rho({1, 0, 0})));
  EXPECT_THROW(a->value(0, 1, 0, x), std::logic_error);
}

TEST(ApproximationForms, EveryPointOfAHistoryHasItsOwnApproximation) {
  // h(t_j) = (j + 1) b^4 on 3 points; the gradient of point 1 was not requested (NaN).
  nlohmann::json d = {
      {"design_variables", {{{"name", "b1"}, {"lower", 0.5}, {"upper", 4.0}, {"initial", 1.0}}}},
      {"load_cases", {{{"name", "only"}, {"time", {{"end", 1.0}, {"points", 3}}}}}},
      {"responses", {{{"name", "h"}, {"kind", "history"}}}},
      {"objective", {{"minimize_max", {{"response", "h"}}}, {"auxiliary", "a"}}},
      {"auxiliary_variables", {{{"name", "a"}, {"initial", 0.0}}}},
      {"settings", {{"form", "conservative"}}},
      {"simulator", {{"type", "none"}}}};
  const LoadedStudy s = load_study(d);
  const auto analyse_h = [](double b, bool gradients) {
    Evaluation e;
    e.cases.resize(1);
    e.has_gradients = gradients;
    e.cases[0].histories["h"] = Eigen::Vector3d(1, 2, 3) * std::pow(b, 4);
    if (gradients) {
      e.cases[0].gradients["h"] = Eigen::Vector3d(4, std::nan(""), 12) * std::pow(b, 3);
    }
    return e;
  };
  const Evaluation e = analyse_h(1.5, true);
  const VectorXd x0 = point({1.5, 0.0}), x_star = point({2.0, 0.0});
  ApproximationMemory memory;
  const auto a = make_approximation(s, s.options, e, x0, point({0.5}), point({4.0}), memory);
  EXPECT_NEAR(a->value(0, 0, 0, x0), std::pow(1.5, 4), 1e-12);
  EXPECT_NEAR(a->value(0, 0, 2, x0), 3 * std::pow(1.5, 4), 1e-12);
  EXPECT_THROW(a->value(0, 0, 1, x0), std::logic_error);
  EXPECT_EQ(a->conservative_keys().size(), 2u);
  EXPECT_EQ(update_conservatism(memory, *a, x_star, analyse_h(2.0, false)), 2);
  EXPECT_EQ(memory.rho.size(), 2u);
  EXPECT_GT(memory.rho.at({0, 0, 2}), memory.rho.at({0, 0, 0}));  // the larger miss
}

TEST(ApproximationForms, RememberKeepsTheStartWithGradientsForTheNextCycle) {
  const LoadedStudy s = make_study(2, "quadratic");
  ApproximationMemory memory;
  const VectorXd b0 = point({1.0, 1.0}), b1 = point({2.0, 3.0});
  const Evaluation e0 = analyse({kQuadratic, kConstant}, b0, true);
  const auto first = make_approximation(s, s.options, e0, b0, VectorXd(), VectorXd(), memory);
  remember(memory, *first, b1, analyse({kQuadratic, kConstant}, b1, false));
  ASSERT_EQ(memory.points.size(), 2u);
  // Accepted: b1 is the next start; the curvature comes from b0 with its gradients (exact).
  const Evaluation e1 = analyse({kQuadratic, kConstant}, b1, true);
  const auto second = make_approximation(s, s.options, e1, b1, VectorXd(), VectorXd(), memory);
  EXPECT_NEAR(second->value(0, 0, 0, point({0.7, 3.9})), kQuadratic.value(point({0.7, 3.9})),
              1e-12);
  remember(memory, *second, b0, analyse({kQuadratic, kConstant}, b0, false));
  ASSERT_EQ(memory.points.size(), 2u);
  EXPECT_TRUE(memory.points[0].evaluation.has_gradients);  // b1, with its gradients kept
}

// A coupled convex quadratic: r = 1 + b1 - 2 b2 + 2 b1^2 + 2 b1 b2 + b2^2 (Hessian [[4, 2],
// [2, 2]]), which no separable form can represent.
const Function kCoupled{"r",
                        [](const VectorXd& b) {
                          return 1 + b(0) - 2 * b(1) + 2 * b(0) * b(0) + 2 * b(0) * b(1) +
                                 b(1) * b(1);
                        },
                        [](const VectorXd& b) {
                          return point({1 + 4 * b(0) + 2 * b(1), -2 + 2 * b(0) + 2 * b(1)});
                        }};

// The quasi-Newton approximation at the last of `path` (every point with gradients), the
// others remembered as earlier cycle starts. An Approximation refers to its analysis of b0:
// `analyses` keeps them alive.
std::unique_ptr<Approximation> quasi_newton_at(const LoadedStudy& s, const Function& f,
                                               const std::vector<VectorXd>& path,
                                               ApproximationMemory& memory,
                                               std::list<Evaluation>& analyses) {
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    analyses.push_back(analyse({f, kConstant}, path[i], true));
    const auto a =
        make_approximation(s, s.options, analyses.back(), path[i], VectorXd(), VectorXd(), memory);
    remember(memory, *a, path[i + 1], analyse({f, kConstant}, path[i + 1], false));
  }
  analyses.push_back(analyse({f, kConstant}, path.back(), true));
  return make_approximation(s, s.options, analyses.back(), path.back(), VectorXd(), VectorXd(),
                            memory);
}

TEST(ApproximationForms, QuasiNewtonMeetsTheSecantOfItsLastStepAndIsExactAtB0) {
  const LoadedStudy s = make_study(2, "quasi_newton");
  std::list<Evaluation> analyses;
  ApproximationMemory memory;
  const VectorXd bp = point({2.0, 3.0}), b0 = point({1.0, 1.5});
  const auto a = quasi_newton_at(s, kCoupled, {bp, b0}, memory, analyses);
  ASSERT_EQ(memory.path.size(), 1u);
  const Eigen::MatrixXd H = a->curvature_matrix({0, 0, 0});
  ASSERT_EQ(H.rows(), 2);
  EXPECT_TRUE(a->curvature({0, 0, 0}).size() == 0);  // not the quadratic form's vector
  EXPECT_NEAR(H(0, 1), H(1, 0), 1e-14);
  EXPECT_GT(std::abs(H(0, 1)), 0.1);  // coupled
  EXPECT_GT(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(H).eigenvalues().minCoeff(), 0.0);
  // The secant of the step bp -> b0: H s = the gradient change (the true Hessian's product),
  // with the off-diagonal coupling the quadratic form has no place for.
  const VectorXd step = b0 - bp;
  expect_close(H * step, kCoupled.gradient(b0) - kCoupled.gradient(bp), 1e-10);
  // Value and gradient exact at b0 and, by the secant, at bp too (a quadratic function).
  for (const VectorXd& x : {b0, bp}) {
    EXPECT_NEAR(a->value(0, 0, 0, x), kCoupled.value(x), 1e-10);
    VectorXd g = VectorXd::Zero(2);
    a->add_gradient(0, 0, 0, x, 1.0, g);
    expect_close(g, kCoupled.gradient(x), 1e-10);
  }
  expect_consistent_gradient(*a, point({3.0, 0.7}));
}

TEST(ApproximationForms, QuasiNewtonLearnsTheWholeMatrixAlongTwoSteps) {
  // Independent steps of a quadratic in 2 variables: the matrix meets the newest secant (to
  // the least-squares fit's regularisation toward BFGS, 1e-6 of it: three pairs overdetermine
  // H, next test) and, with earlier secants along other directions, approaches the Hessian.
  const LoadedStudy s = make_study(2, "quasi_newton");
  std::list<Evaluation> analyses;
  ApproximationMemory memory;
  const std::vector<VectorXd> path = {point({1.0, 1.0}), point({3.0, 1.0}), point({3.0, 3.5}),
                                      point({1.5, 2.0})};
  const auto a = quasi_newton_at(s, kCoupled, path, memory, analyses);
  EXPECT_EQ(memory.path.size(), 3u);
  const Eigen::MatrixXd H = a->curvature_matrix({0, 0, 0});
  expect_close(H * (path[3] - path[2]), kCoupled.gradient(path[3]) - kCoupled.gradient(path[2]),
               1e-5);
  // The true Hessian [[4, 2], [2, 2]] within 10 % in every entry.
  const Eigen::Matrix2d exact{{4.0, 2.0}, {2.0, 2.0}};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_NEAR(H(i, j), exact(i, j), 0.4) << i << j;
}

TEST(ApproximationForms, QuasiNewtonIsAQuadraticsHessianOnceThePathOverdeterminesIt) {
  // Three pairs of a 2-variable quadratic give 6 secant equations for H's 3 entries: the
  // least-squares fit is the Hessian, where BFGS along the same path only approaches it (two
  // pairs, 4 equations, do not overdetermine H: BFGS is kept, the previous test's 10 %).
  const LoadedStudy s = make_study(2, "quasi_newton");
  const Eigen::Matrix2d exact{{4.0, 2.0}, {2.0, 2.0}};
  const std::vector<VectorXd> path = {point({1.0, 1.0}), point({3.0, 1.2}), point({2.9, 3.5}),
                                      point({1.5, 2.0})};
  std::list<Evaluation> analyses;
  ApproximationMemory memory;
  const Eigen::MatrixXd H =
      quasi_newton_at(s, kCoupled, path, memory, analyses)->curvature_matrix({0, 0, 0});
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_NEAR(H(i, j), exact(i, j), 1e-3) << i << j;
  std::list<Evaluation> analyses2;
  ApproximationMemory memory2;
  const Eigen::MatrixXd H2 =
      quasi_newton_at(s, kCoupled, {path[1], path[2], path[3]}, memory2, analyses2)
          ->curvature_matrix({0, 0, 0});
  EXPECT_GT((H2 - exact).cwiseAbs().maxCoeff(), 1e-2);
}

TEST(ApproximationForms, QuasiNewtonKeepsBfgsWhereTheCurvatureChangesAlongThePath) {
  // r = exp(b1 + b2 / 2): its curvature grows 7-fold over the path, no quadratic fits the
  // secants, and the matrix is BFGS's, which meets the newest secant exactly.
  const LoadedStudy s = make_study(2, "quasi_newton");
  const Function exponential{"r", [](const VectorXd& b) { return std::exp(b(0) + 0.5 * b(1)); },
                             [](const VectorXd& b) {
                               const double e = std::exp(b(0) + 0.5 * b(1));
                               return point({e, 0.5 * e});
                             }};
  const std::vector<VectorXd> path = {point({1.0, 1.0}), point({3.0, 1.2}), point({2.9, 3.5}),
                                      point({1.5, 2.0})};
  std::list<Evaluation> analyses;
  ApproximationMemory memory;
  const Eigen::MatrixXd H =
      quasi_newton_at(s, exponential, path, memory, analyses)->curvature_matrix({0, 0, 0});
  expect_close(H * (path[3] - path[2]),
               exponential.gradient(path[3]) - exponential.gradient(path[2]), 1e-9);
}

TEST(ApproximationForms, QuasiNewtonKeepsItsCurvatureNextToAMinimumOfValueNearZero) {
  // A tracking error: r = 500 ((b1 - 2)^2 + (b1 - 2)(b2 - 2) + (b2 - 2)^2), Hessian [[1000,
  // 500], [500, 1000]], minimum 0 at (2, 2). At b0 next to it value and slope nearly vanish:
  // the curvature bound taken from b0 alone (1000 x (|r0| + sum |a_k| w_k), about 0.35 in the
  // scaled variables, 28 in b) would flatten the matrix fifty-fold exactly where it decides
  // the step. Taken over the path, the bound keeps the learnt matrix, and the model finds the
  // minimum.
  const Function tracking{"r",
                          [](const VectorXd& b) {
                            const double u = b(0) - 2, v = b(1) - 2;
                            return 500 * (u * u + u * v + v * v);
                          },
                          [](const VectorXd& b) {
                            const double u = b(0) - 2, v = b(1) - 2;
                            return point({500 * (2 * u + v), 500 * (u + 2 * v)});
                          }};
  const LoadedStudy s = make_study(2, "quasi_newton");
  std::list<Evaluation> analyses;
  ApproximationMemory memory;
  const std::vector<VectorXd> path = {point({1.0, 1.0}), point({3.0, 1.0}), point({3.0, 3.5}),
                                      point({2.0 + 1e-4, 2.0 - 5e-5})};
  const auto a = quasi_newton_at(s, tracking, path, memory, analyses);
  const Eigen::MatrixXd H = a->curvature_matrix({0, 0, 0});
  const Eigen::Matrix2d exact{{1000.0, 500.0}, {500.0, 1000.0}};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_NEAR(H(i, j), exact(i, j), 100.0) << i << j;
  // The model's value at the minimum: 0 to within a tenth of b0's (which is 3.75e-6).
  EXPECT_NEAR(a->value(0, 0, 0, point({2.0, 2.0})), 0.0, 4e-7);
}

TEST(ApproximationForms, QuasiNewtonSkipsANegativeCurvatureStepAndStaysConvex) {
  // r = 2 b1 b2, indefinite (Hessian [[0, 2], [2, 0]]: +2 along (1, 1), -2 along (1, -1)). The
  // path (3, 1) -> (2, 2) -> (3, 3): the older step (-1, 1) sees the negative curvature and is
  // skipped; the newest (1, 1) gives the start (s'g / s's) I = 2 I, which BFGS along that same
  // step leaves as it is. So H = 2 I: positive definite, and along (1, -1) nothing of the
  // skipped pair. Powell's damping (before 2026-11-30) blended that pair in instead, leaving
  // the curvature 0.4 along (1, -1): invented, neither the response's -2 nor what B held.
  const Function saddle{"r", [](const VectorXd& b) { return 2 * b(0) * b(1); },
                        [](const VectorXd& b) {
                          return point({2 * b(1), 2 * b(0)});
                        }};
  const LoadedStudy s = make_study(2, "quasi_newton");
  std::list<Evaluation> analyses;
  ApproximationMemory memory;
  const auto a = quasi_newton_at(
      s, saddle, {point({3.0, 1.0}), point({2.0, 2.0}), point({3.0, 3.0})}, memory, analyses);
  const Eigen::MatrixXd H = a->curvature_matrix({0, 0, 0});
  expect_close(H.col(0), point({2.0, 0.0}), 1e-9);
  expect_close(H.col(1), point({0.0, 2.0}), 1e-9);
  // Exact at b0 in value and gradient all the same.
  const VectorXd b0 = point({3.0, 3.0});
  EXPECT_NEAR(a->value(0, 0, 0, b0), 18.0, 1e-12);
  expect_consistent_gradient(*a, point({2.5, 1.7}));
}

TEST(ApproximationForms, QuasiNewtonOfAResponseConcaveAlongItsPathTakesTheDiagonalOfEitherSign) {
  // r = -b1^2 - 2 b2^2 (Hessian diag(-2, -4)). The path (1, 1) -> (2, 3) -> (3, 2): both pairs
  // have negative curvature and BFGS skips them, which left the matrix at its floor (the model
  // linear, HS 111's objective for a whole run). With two such pairs the response takes the
  // diagonal secant of either sign: the newest step moved both variables, so it is the Hessian.
  const Function concave{"r", [](const VectorXd& b) { return -b(0) * b(0) - 2 * b(1) * b(1); },
                         [](const VectorXd& b) {
                           return point({-2 * b(0), -4 * b(1)});
                         }};
  const LoadedStudy s = make_study(2, "quasi_newton");
  std::list<Evaluation> analyses;
  ApproximationMemory memory;
  const auto a = quasi_newton_at(
      s, concave, {point({1.0, 1.0}), point({2.0, 3.0}), point({3.0, 2.0})}, memory, analyses);
  const Eigen::MatrixXd H = a->curvature_matrix({0, 0, 0});
  expect_close(H.col(0), point({-2.0, 0.0}), 1e-9);
  expect_close(H.col(1), point({0.0, -4.0}), 1e-9);
  for (const VectorXd& x : {point({0.5, 0.5}), point({3.0, 1.5})}) {
    EXPECT_NEAR(a->value(0, 0, 0, x), concave.value(x), 1e-9);
  }
  // One such pair is not enough: the matrix stays positive semi-definite.
  std::list<Evaluation> analyses1;
  ApproximationMemory memory1;
  const Eigen::MatrixXd H1 =
      quasi_newton_at(s, concave, {point({2.0, 3.0}), point({3.0, 2.0})}, memory1, analyses1)
          ->curvature_matrix({0, 0, 0});
  EXPECT_GE(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(H1).eigenvalues().minCoeff(), 0.0);
}

TEST(ApproximationForms, QuasiNewtonTakesAPairFlatterThanItsStart) {
  // r = 50 b1^2 + b2^2 / 2 (Hessian diag(100, 1)). The path (1, 1) -> (1, 3) -> (2, 3): the
  // newest step, along b1, gives the start (s'g / s's) I = 100 I; the older one, along b2,
  // shows a curvature of 1, a hundredth of what that start holds along it. The pair has
  // positive curvature and enters: H = diag(100, 1), the Hessian. (Until 2026-12-01 a pair
  // with s'g < 0.2 s'Hs was skipped, and H stayed 100 I, a hundred times too stiff along b2.)
  const Function valley{"r", [](const VectorXd& b) { return 50 * b(0) * b(0) + 0.5 * b(1) * b(1); },
                        [](const VectorXd& b) {
                          return point({100 * b(0), b(1)});
                        }};
  const LoadedStudy s = make_study(2, "quasi_newton");
  std::list<Evaluation> analyses;
  ApproximationMemory memory;
  const auto a = quasi_newton_at(
      s, valley, {point({1.0, 1.0}), point({1.0, 3.0}), point({2.0, 3.0})}, memory, analyses);
  const Eigen::MatrixXd H = a->curvature_matrix({0, 0, 0});
  expect_close(H.col(0), point({100.0, 0.0}), 1e-9);
  expect_close(H.col(1), point({0.0, 1.0}), 1e-9);
  // A quadratic: the model is the response everywhere.
  for (const VectorXd& x : {point({0.5, 0.5}), point({3.0, 1.5}), point({2.0, 4.0})}) {
    EXPECT_NEAR(a->value(0, 0, 0, x), valley.value(x), 1e-9);
  }
}

TEST(ApproximationForms, QuasiNewtonOfMirrorSymmetricStepsIsMirrorSymmetric) {
  // r symmetric in b1 <-> b2 (coupled); the path moves along the diagonal and b2 takes
  // rounding steps of 1e-13 of either sign: H stays symmetric under the swap.
  const Function f{"r",
                   [](const VectorXd& b) {
                     return b(0) * b(0) + b(1) * b(1) + b(0) * b(1) - 3 * (b(0) + b(1)) +
                            0.1 * std::pow(b(0) + b(1), 3);
                   },
                   [](const VectorXd& b) {
                     const double t = 0.3 * std::pow(b(0) + b(1), 2);
                     return point({2 * b(0) + b(1) - 3 + t, 2 * b(1) + b(0) - 3 + t});
                   }};
  const LoadedStudy s = make_study(2, "quasi_newton");
  for (double noise : {1e-13, -1e-13}) {
    std::list<Evaluation> analyses;
    ApproximationMemory memory;
    const auto a = quasi_newton_at(
        s, f, {point({1.0, 1.0}), point({2.0, 2.0 + noise}), point({1.5, 1.5})}, memory, analyses);
    const Eigen::MatrixXd H = a->curvature_matrix({0, 0, 0});
    EXPECT_NEAR(H(0, 0), H(1, 1), 1e-9 * H.norm()) << noise;
    EXPECT_NEAR(H(0, 1), H(1, 0), 1e-15 * H.norm()) << noise;
  }
}

TEST(ApproximationForms, QuasiNewtonWithoutAnEarlierGradientIsTheQuadraticForm) {
  const VectorXd b0 = point({1.0, 1.0}), bp = point({2.0, 3.0});
  const Evaluation e = analyse({kCoupled, kConstant}, b0, true);
  ApproximationMemory memory;
  memory.points.push_back({bp, analyse({kCoupled, kConstant}, bp, false)});  // value only
  const LoadedStudy quasi_newton = make_study(2, "quasi_newton"),
                    quadratic = make_study(2, "quadratic");
  const auto qn =
      make_approximation(quasi_newton, quasi_newton.options, e, b0, VectorXd(), VectorXd(), memory);
  const auto q =
      make_approximation(quadratic, quadratic.options, e, b0, VectorXd(), VectorXd(), memory);
  for (const VectorXd& x : {point({0.5, 4.0}), point({3.0, 0.7})})
    EXPECT_DOUBLE_EQ(qn->value(0, 0, 0, x), q->value(0, 0, 0, x));
}

}  // namespace
}  // namespace sao
