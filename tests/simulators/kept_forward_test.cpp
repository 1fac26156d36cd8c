// The analysis's forward pass kept for the adjoint gradient at the same design (issue 25,
// simulator.gradients.keep_forward): the driver analyses a design, screens its constraints,
// then asks for the gradients there, and the adjoint method then integrates the backward
// problem only. What a kept pass gives must be what a gradient from nothing gives.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "bench/pendulum_chain_model.hpp"
#include "simulators/integrator/cvodes_integrator.hpp"
#include "simulators/internal_simulator.hpp"
#include "simulators/sensitivities/method_choice.hpp"
#include "tests/support.hpp"

namespace sao::sim {
namespace {

// What `body` logs at debug level.
template <class Body>
std::string debug_log(Body body) {
  return sao::testing::captured_log(spdlog::level::debug, body);
}

const std::string kKept = "(the analysis's, kept)";

// The chain of the gradient benches, 8 of its parameters design variables, adjoint gradients
// of "tip" and of the tip's height at t = 0.5 s and 1 s (a second-order multibody model:
// the backward solve goes through its linearisations).
SimulatorSetup chain(bool keep, Eigen::VectorXd& b) {
  const nlohmann::json section = {
      {"type", "internal"}, {"model", "multibody"},
      {"rtol", 1e-6},       {"atol", 1e-8},
      {"workers", 1},       {"gradients", {{"method", "adjoint"}, {"keep_forward", keep}}}};
  return bench::chain_setup(bench::pendulum_chain(10), section, 8, b);
}

const std::vector<DerivativeRequest> kTip = {{0, "tip", {}}};

// The gradient of "tip" at x from nothing: no analysis before it, keep_forward false.
Evaluation tip_from_nothing(const Eigen::VectorXd& x) {
  Eigen::VectorXd b;
  InternalSimulator cold(chain(false, b));
  return cold.evaluate({{x, kTip}}).front();
}

void expect_same(const Evaluation& a, const Evaluation& b) {
  ASSERT_TRUE(a.ok) << a.message;
  ASSERT_TRUE(b.ok) << b.message;
  for (const auto& [name, h] : a.cases[0].histories) {
    EXPECT_EQ(h, b.cases[0].histories.at(name)) << name;
  }
  for (const auto& [name, v] : a.cases[0].scalars) EXPECT_EQ(v, b.cases[0].scalars.at(name));
  ASSERT_EQ(a.cases[0].gradients.size(), b.cases[0].gradients.size());
  for (const auto& [name, g] : a.cases[0].gradients) {
    const Eigen::MatrixXd& h = b.cases[0].gradients.at(name);
    ASSERT_EQ(g.rows(), h.rows()) << name;
    for (Eigen::Index i = 0; i < g.rows(); ++i) {
      for (Eigen::Index j = 0; j < g.cols(); ++j) {
        if (std::isnan(g(i, j)) && std::isnan(h(i, j))) continue;
        EXPECT_EQ(g(i, j), h(i, j)) << name << " row " << i << " column " << j;
      }
    }
  }
}

// The gradient after an analysis of the same design, on the kept pass, against one from
// nothing (keep_forward false): the same responses and the same derivatives, bit for bit
// (the forward steps are the same, so are the checkpoints the backward solve reads).
TEST(KeptForwardPass, TheGradientAfterAnAnalysisIsTheOneFromNothingBitForBit) {
  Eigen::VectorXd b;
  InternalSimulator warm(chain(true, b));
  const Evaluation from_nothing = tip_from_nothing(b);
  Evaluation analysis, gradient;
  const std::string log = debug_log([&] {
    analysis = warm.evaluate({{b, {}}}).front();
    gradient = warm.evaluate({{b, kTip}}).front();
  });
  EXPECT_NE(log.find(kKept), std::string::npos) << log;
  expect_same(from_nothing, gradient);
  // The analysis that kept its pass gives the responses of the one that did not.
  InternalSimulator cold(chain(false, b));
  const Evaluation plain = cold.evaluate({{b, {}}}).front();
  ASSERT_TRUE(analysis.ok) << analysis.message;
  for (const auto& [name, v] : plain.cases[0].scalars) {
    EXPECT_EQ(v, analysis.cases[0].scalars.at(name)) << name;
  }
  for (const auto& [name, h] : plain.cases[0].histories) {
    EXPECT_EQ(h, analysis.cases[0].histories.at(name)) << name;
  }
  // A kept pass serves one gradient: the next one at the design integrates its own.
  const std::string again = debug_log([&] {
    expect_same(from_nothing, warm.evaluate({{b, kTip}}).front());
  });
  EXPECT_EQ(again.find(kKept), std::string::npos) << again;
}

// A gradient at another design than the analysed one (by one bit) does not read the kept
// pass: it is the gradient from nothing at its own design.
TEST(KeptForwardPass, AnotherDesignIntegratesItsOwnForwardPass) {
  Eigen::VectorXd b;
  InternalSimulator warm(chain(true, b));
  Eigen::VectorXd other = b;
  other(3) = std::nextafter(other(3), 10.0);
  const Evaluation from_nothing = tip_from_nothing(other);
  Evaluation gradient;
  const std::string log = debug_log([&] {
    ASSERT_TRUE(warm.evaluate({{b, {}}}).front().ok);
    gradient = warm.evaluate({{other, kTip}}).front();
  });
  EXPECT_EQ(log.find(kKept), std::string::npos) << log;
  expect_same(from_nothing, gradient);
}

// A simulator told that no gradient follows its analyses (sao evaluate, simulate, a cluster
// worker) frees the pass it kept and keeps none from then on; a gradient request is then
// answered from nothing, the same as before.
TEST(KeptForwardPass, NoneKeptOnceNoGradientIsExpected) {
  Eigen::VectorXd b;
  InternalSimulator warm(chain(true, b));
  const Evaluation from_nothing = tip_from_nothing(b);
  Evaluation gradient;
  const std::string kept = debug_log([&] { ASSERT_TRUE(warm.evaluate({{b, {}}}).front().ok); });
  EXPECT_NE(kept.find("kept for an adjoint gradient"), std::string::npos) << kept;
  const std::string log = debug_log([&] {
    warm.expect_no_gradients();  // frees the pass
    gradient = warm.evaluate({{b, kTip}}).front();
    ASSERT_TRUE(warm.evaluate({{b, {}}}).front().ok);  // keeps none
    expect_same(from_nothing, warm.evaluate({{b, kTip}}).front());
  });
  EXPECT_EQ(log.find(kKept), std::string::npos) << log;
  EXPECT_EQ(log.find("kept for an adjoint gradient"), std::string::npos) << log;
  expect_same(from_nothing, gradient);
}

TEST(KeptForwardPass, KeepForwardMustBeABoolean) {
  Eigen::VectorXd b;
  SimulatorSetup s = chain(true, b);
  s.section["gradients"]["keep_forward"] = "yes";
  try {
    InternalSimulator sim(s);
    FAIL() << "accepted keep_forward \"yes\"";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("simulator.gradients.keep_forward"), std::string::npos)
        << e.what();
  }
}

// auto's cost model with a kept pass: the adjoint's estimate leaves the forward pass out, and
// a backward solve on a kept pass calibrates a without subtracting an analysis.
TEST(KeptForwardPass, AutoCountsNoForwardPassWhenOneIsKept) {
  MethodChooser chooser(1);
  EXPECT_TRUE(chooser.expects_adjoint(0));  // nothing ran yet
  chooser.record_analysis(0, 1.0);
  MethodChooser::Request r;
  r.values = 1;
  r.parameters = 1;
  // Measured: a direct run 2.2 analyses (d = 1.2); an adjoint backward solve on a kept pass
  // 1.1 analyses (a = 1.1, not 0.1).
  chooser.record(0, false, r, 2.2);
  EXPECT_FALSE(chooser.expects_adjoint(0));
  MethodChooser::Request kept = r;
  kept.forward_kept = true;
  chooser.record(0, true, kept, 1.1);
  EXPECT_TRUE(chooser.expects_adjoint(0));
  // From nothing the adjoint is estimated at 1 + 1.1 = 2.1 < 2.2; kept, 1.1.
  EXPECT_TRUE(chooser.choose(0, r).adjoint);
  EXPECT_NE(chooser.choose(0, kept).reason.find("1.1 s adjoint"), std::string::npos)
      << chooser.choose(0, kept).reason;
  EXPECT_NE(chooser.choose(0, r).reason.find("2.1 s adjoint"), std::string::npos)
      << chooser.choose(0, r).reason;
  // A failed adjoint is not expected again.
  chooser.record_failure(0, true);
  EXPECT_FALSE(chooser.expects_adjoint(0));
}

}  // namespace
}  // namespace sao::sim
