#include "sao/report/gradient_check.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "sao/study/study_loader.hpp"
#include "tests/sao/fake_simulator.hpp"

namespace sao {
namespace {

using testing::FakeSimulator;

Study cubic_study() {
  nlohmann::json d = {{"design_variables",
                       {{{"name", "b1"}, {"lower", 0.1}, {"upper", 10}, {"initial", 2.0}},
                        {{"name", "b2"}, {"lower", 0.1}, {"upper", 10}, {"initial", 0.5}}}},
                      {"load_cases", {{{"name", "only"}}}},
                      {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
                      {"objective", {{"minimize", "r"}}},
                      {"simulator", {{"type", "fake"}}}};
  return load_study(d);
}

// r = b1^3 exp(b2): the extrapolated reference recovers (3 b1^2 e^b2, b1^3 e^b2) far better
// than one forward difference, and a wrong simulator gradient shows as a large error.
TEST(GradientCheck, ExtrapolationRecoversTheExactDerivative) {
  const Study s = cubic_study();
  auto value = [](const Eigen::VectorXd& b) { return std::pow(b(0), 3) * std::exp(b(1)); };
  const Eigen::Vector2d exact(3 * 4 * std::exp(0.5), 8 * std::exp(0.5));
  FakeSimulator right(
      {{"r", value, [&](const Eigen::VectorXd&) -> Eigen::VectorXd { return exact; }}});
  const GradientCheck good = check_gradients(s, right, Eigen::Vector2d(2.0, 0.5), {});
  ASSERT_EQ(good.rows.size(), 2u);
  for (int k = 0; k < 2; ++k) {
    EXPECT_NEAR(good.rows[k].reference, exact(k), 1e-7 * exact(k)) << k;
    EXPECT_LT(good.rows[k].relative_error, 1e-7) << k;
    EXPECT_GE(good.rows[k].order, 1);
  }
  // A single forward difference with the same first step is far off.
  const double h = 1e-2 * 3.0;
  const double forward =
      (value(Eigen::Vector2d(2.0 + h, 0.5)) - value(Eigen::Vector2d(2.0, 0.5))) / h;
  EXPECT_GT(std::abs(forward - exact(0)), 1e-3);

  FakeSimulator wrong({{"r", value, [&](const Eigen::VectorXd&) -> Eigen::VectorXd {
                          return Eigen::Vector2d(exact(0) * 1.01, exact(1));
                        }}});
  const GradientCheck bad = check_gradients(s, wrong, Eigen::Vector2d(2.0, 0.5), {});
  EXPECT_NEAR(bad.rows[0].relative_error, 0.01, 1e-4);
  EXPECT_LT(bad.rows[1].relative_error, 1e-7);
}

// r = b1 + 1e-9 sin(b2) with a simulator that says dr/db2 = 0: a derivative 1e-9 of its
// sibling's is zero for the check, not a 100 % error; a real error in it still shows.
TEST(GradientCheck, TinyDerivativesAreMeasuredAgainstTheirRow) {
  const Study s = cubic_study();
  auto value = [](const Eigen::VectorXd& b) { return b(0) + 1e-9 * std::sin(b(1)); };
  FakeSimulator zero({{"r", value, [](const Eigen::VectorXd&) -> Eigen::VectorXd {
                         return Eigen::Vector2d(1.0, 0.0);
                       }}});
  const GradientCheck c = check_gradients(s, zero, Eigen::Vector2d(2.0, 0.5), {});
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_LT(c.rows[1].relative_error, 1e-2);
  FakeSimulator off({{"r", value, [](const Eigen::VectorXd&) -> Eigen::VectorXd {
                        return Eigen::Vector2d(1.0, 1e-3);
                      }}});
  EXPECT_GT(check_gradients(s, off, Eigen::Vector2d(2.0, 0.5), {}).rows[1].relative_error, 100.0);
}

// r = 1 / (b1 - 1.995) + b2 at b1 = 2: the Taylor range in b1 is 0.005, a sixth of the first
// step 0.03 = 1e-2 (1 + |b1|). The extrapolation cannot settle there, and says so (settled
// false, the reference 3 % off -40000); with a first step ten times below that range it
// settles on the derivative. b2's row, linear, settles at once.
TEST(GradientCheck, AReferenceBeyondTheTaylorRangeSaysItDidNotSettle) {
  const Study s = cubic_study();
  auto value = [](const Eigen::VectorXd& b) { return 1.0 / (b(0) - 1.995) + b(1); };
  const Eigen::Vector2d exact(-1.0 / (0.005 * 0.005), 1.0);
  FakeSimulator sim(
      {{"r", value, [&](const Eigen::VectorXd&) -> Eigen::VectorXd { return exact; }}});
  const GradientCheck coarse = check_gradients(s, sim, Eigen::Vector2d(2.0, 0.5), {});
  ASSERT_EQ(coarse.rows.size(), 2u);
  EXPECT_FALSE(coarse.rows[0].settled);
  EXPECT_GT(coarse.rows[0].relative_error, 1e-2);  // 3 % here
  EXPECT_DOUBLE_EQ(coarse.rows[0].first_step, 0.03);
  EXPECT_TRUE(coarse.rows[1].settled);
  EXPECT_LT(coarse.rows[1].relative_error, 1e-9);
  GradientCheckOptions fine;
  fine.relative_step = 1e-4;  // first step 3e-4
  const GradientCheck c = check_gradients(s, sim, Eigen::Vector2d(2.0, 0.5), fine);
  EXPECT_TRUE(c.rows[0].settled);
  EXPECT_LT(c.rows[0].relative_error, 1e-6);
}

TEST(GradientCheck, FailedAnalysisIsAnError) {
  const Study s = cubic_study();
  FakeSimulator sim(
      {{"r", [](const Eigen::VectorXd& b) { return b(0); },
        [](const Eigen::VectorXd&) -> Eigen::VectorXd { return Eigen::Vector2d(1, 0); }}});
  sim.fail_when = [](const Eigen::VectorXd& b) { return b(0) > 2.0; };
  EXPECT_THROW(check_gradients(s, sim, Eigen::Vector2d(2.0, 0.5), {}), std::runtime_error);
}

}  // namespace
}  // namespace sao
