#include "sao/optimizer/driver.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <string>

#include "sao/report/result_file.hpp"
#include "sao/study/study_loader.hpp"
#include "tests/sao/fake_simulator.hpp"
#include "tests/support.hpp"

namespace sao {
namespace {

using testing::captured_log;
using testing::FakeResponse;
using testing::FakeSimulator;

nlohmann::json variable(const std::string& name, double lower, double upper, double initial,
                        double m) {
  return {
      {"name", name}, {"lower", lower}, {"upper", upper}, {"initial", initial}, {"move_limit", m}};
}

// min b1 in [0.1, 10] (start 1) subject to the scalar response r of the fake simulator bounded
// by `bound` ("lower" or "upper") at `value`.
LoadedStudy minimize_b1_study(const std::string& bound, double value, int max_cycles) {
  const nlohmann::json d = {{"design_variables", {variable("b1", 0.1, 10, 1, 0.4)}},
                            {"load_cases", {{{"name", "only"}}}},
                            {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
                            {"objective", {{"minimize", {{"variable", "b1"}}}}},
                            {"constraints", {{{"of", {{"response", "r"}}}, {bound, value}}}},
                            {"settings", {{"max_cycles", max_cycles}}},
                            {"simulator", {{"type", "fake"}}}};
  return load_study(d);
}

// min b1 + b2 s.t. r = b1 b2 >= 4: optimum (2, 2), F = 4. Quadratic approximations: linear
// ones zigzag between the vertices of the linearised constraint with the trust-region strategy.
LoadedStudy product_study() {
  nlohmann::json d = {
      {"design_variables", {variable("b1", 0.1, 10, 1, 0.4), variable("b2", 0.1, 10, 1, 0.4)}},
      {"load_cases", {{{"name", "only"}}}},
      {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
      {"objective", {{"minimize", "b1 + b2"}}},
      {"constraints", {{{"of", {{"response", "r"}}}, {"lower", 4.0}}}},
      {"settings", {{"objacc", 1e-4}, {"vioacc", 1e-4}, {"form", "quadratic"}}},
      {"simulator", {{"type", "fake"}}}};
  return load_study(d);
}

FakeSimulator product_simulator() {
  return FakeSimulator(
      {{"r", [](const Eigen::VectorXd& b) { return b(0) * b(1); },
        [](const Eigen::VectorXd& b) { return Eigen::Vector2d(b(1), b(0)).eval(); }}});
}

// max b1 s.t. r = b1^4 <= 16 from b1 = 1 with move-limit factor m: optimum b1 = 2.
LoadedStudy quartic_study(double m, const nlohmann::json& settings, bool range_sizing = false) {
  nlohmann::json b1 = variable("b1", 0.1, 10, 1, m);
  if (range_sizing) b1["sizing"] = "range";
  nlohmann::json d = {{"design_variables", {b1}},
                      {"load_cases", {{{"name", "only"}}}},
                      {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
                      {"objective", {{"maximize", {{"variable", "b1"}}}}},
                      {"constraints", {{{"of", {{"response", "r"}}}, {"upper", 16.0}}}},
                      {"settings", settings},
                      {"simulator", {{"type", "fake"}}}};
  return load_study(d);
}

FakeSimulator quartic_simulator() {
  return FakeSimulator({{"r", [](const Eigen::VectorXd& b) { return std::pow(b(0), 4); },
                         [](const Eigen::VectorXd& b) {
                           return Eigen::VectorXd::Constant(1, 4 * std::pow(b(0), 3)).eval();
                         }}});
}

TEST(Driver, RelaxationFromInfeasibleStartRecoversFeasibility) {
  const LoadedStudy s = product_study();
  FakeSimulator sim = product_simulator();
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  ASSERT_FALSE(r.history.empty());
  EXPECT_TRUE(r.history.front().relaxed);  // b1 + b2 >= 5 is out of reach of [0.6, 1.4]^2
  EXPECT_GT(r.start_violation, 0.0);
  EXPECT_LE(r.max_violation, 1e-4);
  EXPECT_NEAR(r.x(0), 2.0, 1e-3);
  EXPECT_NEAR(r.x(1), 2.0, 1e-3);
  EXPECT_NEAR(r.objective, 4.0, 1e-3);
  // One analysis per proposal plus the start; one gradient per distinct cycle start.
  EXPECT_LE(r.analyses, r.cycles + 1);
  EXPECT_LE(r.sensitivity_analyses, r.cycles);
  EXPECT_EQ(r.sensitivity_analyses, sim.gradient_calls);
}

// max b1 s.t. r = b1^4 <= 16 from b1 = 1 with m = 0.9: the first proposal b1 = 1.9 has
// r~ = 4.6 against r = 13.03 (error 52 % > errmax), so the cycle is rejected and repeated
// with m = 0.45 from the same b0, without a new sensitivity analysis.
TEST(Driver, RejectedCycleRepeatsFromB0ReusingItsSensitivities) {
  // keep r = 1 (g_hat = -0.94) in; appendix A's errmax rejection
  const LoadedStudy s = quartic_study(0.9, {{"cutoff", 0.0}, {"strategy", "seed"}});
  FakeSimulator sim = quartic_simulator();
  Driver driver(s, sim, s.options);
  const CycleRecord first = driver.step();
  EXPECT_FALSE(first.accepted);
  EXPECT_NEAR(first.x_opt(0), 1.9, 1e-9);
  EXPECT_NEAR(first.Eg, std::abs(4.6 - std::pow(1.9, 4)) / 16 * 100, 1e-6);
  EXPECT_NEAR(first.next_factors(0), 0.45, 1e-12);
  const CycleRecord second = driver.step();
  EXPECT_DOUBLE_EQ(second.x0(0), 1.0);  // repeated from the same b0
  EXPECT_NEAR(second.x_opt(0), 1.45, 1e-9);
  EXPECT_TRUE(second.accepted);
  EXPECT_EQ(sim.gradient_calls, 1);
  EXPECT_EQ(driver.summary().sensitivity_analyses, 1);
  EXPECT_EQ(driver.summary().analyses, 3);  // b0, 1.9, 1.45
  const RunSummary& r = driver.run();
  EXPECT_EQ(r.status, RunStatus::kConverged) << r.message;
  EXPECT_NEAR(r.x(0), 2.0, 1e-3);
}

// Appendix A crosses the failing band (1.3, 1.5) of b1; the trust-region strategy stops at
// its edge (the failures shrink every factor, its successes grow them back into the band).
TEST(Driver, FailedAnalysisOfProposalRejectsTheCycleAndKeepsGoing) {
  LoadedStudy s = product_study();
  s.options.strategy = Strategy::kSeed;
  s.options.feasibility_first = false;
  s.options.form = ApproximationForm::kLinear;
  FakeSimulator sim = product_simulator();
  sim.fail_when = [](const Eigen::VectorXd& b) { return b(0) > 1.3 && b(0) < 1.5; };
  Driver driver(s, sim, s.options);
  const CycleRecord first = driver.step();
  EXPECT_FALSE(first.accepted);
  EXPECT_NE(first.message.find("fake failure"), std::string::npos) << first.message;
  EXPECT_FALSE(driver.finished());
  const RunSummary& r = driver.run();
  EXPECT_EQ(r.status, RunStatus::kConverged) << r.message;
  EXPECT_NEAR(r.x(0), 2.0, 1e-3);
}

// A NaN response, or a constraint whose relation is NaN although the responses are finite, is
// a failed analysis naming what was not finite: never a value compared with a bound.
TEST(Driver, NonFiniteResponsesAndRelationsAreFailedAnalyses) {
  const LoadedStudy s = product_study();
  FakeSimulator sim(
      {{"r",
        [](const Eigen::VectorXd& b) {
          return b(0) > 1.3 ? std::numeric_limits<double>::quiet_NaN() : b(0) * b(1);
        },
        [](const Eigen::VectorXd& b) { return Eigen::Vector2d(b(1), b(0)).eval(); }}});
  Driver driver(s, sim, s.options);
  const CycleRecord first = driver.step();
  EXPECT_FALSE(first.accepted);
  EXPECT_NE(first.message.find("response \"r\" is nan"), std::string::npos) << first.message;

  nlohmann::json d = {
      {"design_variables", {variable("b1", 0.1, 10, 1, 0.4), variable("b2", 0.1, 10, 1, 0.4)}},
      {"load_cases", {{{"name", "only"}}}},
      {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
      {"objective", {{"minimize", "b1 + b2"}}},
      {"constraints", {{{"name", "root"}, {"of", "sqrt(5 - r)"}, {"upper", 3.0}}}},
      {"simulator", {{"type", "fake"}}}};
  const LoadedStudy with_root = load_study(d);
  FakeSimulator big({{"r", [](const Eigen::VectorXd&) { return 6.0; },
                      [](const Eigen::VectorXd&) { return Eigen::Vector2d(0, 0).eval(); }}});
  Driver start(with_root, big, with_root.options);
  const RunSummary& r = start.run();
  EXPECT_EQ(r.status, RunStatus::kFailed);
  EXPECT_NE(r.message.find("constraint \"root\""), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("nan"), std::string::npos) << r.message;
}

// Trust region: a constraint far inside its bound at b0 is screened out (the seed's cutoff 0.7,
// given: by default the trust region keeps a scalar constraint from its zero on); when the
// proposal violates it and is rejected, the next cycle from the same b0 keeps it.
TEST(Driver, AConstraintViolatedByARejectedProposalIsNotScreenedOut) {
  // A subregion of half-width 2 (range sizing: 0.5 m (10 - 0.1)) around b0 = 1.
  const LoadedStudy s = quartic_study(4.0 / 9.9, {{"cutoff", 0.7}}, true);
  FakeSimulator sim = quartic_simulator();
  Driver driver(s, sim, s.options);
  const CycleRecord first = driver.step();  // r = 1 at b0: g_hat = -0.94, screened out
  EXPECT_EQ(first.retained_constraints, 0);
  EXPECT_NEAR(first.x_opt(0), 3.0, 1e-9);  // r = 81: violated 4-fold
  ASSERT_FALSE(first.accepted);
  const CycleRecord second = driver.step();
  EXPECT_DOUBLE_EQ(second.x0(0), 1.0);
  EXPECT_EQ(second.retained_constraints, 1);
  EXPECT_LE(second.x_opt(0), 2.0 + 1e-9);
}

// A constraint bounded by 0 with a `scale` guessed far too small (1, on values of hundreds): the
// trust region normalises it by its largest |g| at the start (300), so V, Eg and screening see
// it on the scale of its own changes; the seed strategy keeps the seed's normaliser, `scale`.
TEST(Driver, AZeroBoundIsNormalisedByTheStartValueUnlessTheScaleIsLarger) {
  auto study = [](const std::string& strategy, double scale) {
    nlohmann::json d = {{"design_variables", {variable("b1", 0.1, 10, 1, 0.4)}},
                        {"load_cases", {{{"name", "only"}}}},
                        {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
                        {"objective", {{"minimize", "(b1 - 5)^2"}}},
                        {"constraints", {{{"of", "r - 400"}, {"upper", 0}, {"scale", scale}}}},
                        {"settings", {{"strategy", strategy}}},
                        {"simulator", {{"type", "fake"}}}};
    return load_study(d);
  };
  FakeSimulator sim({{"r", [](const Eigen::VectorXd& b) { return 100.0 * b(0); },
                      [](const Eigen::VectorXd&) { return Eigen::VectorXd::Constant(1, 100.0); }}});
  const LoadedStudy tr = study("trust_region", 1.0);
  Driver by_start(tr, sim, tr.options);
  by_start.step();
  EXPECT_NEAR(by_start.summary().start_violation, -100.0, 1e-9);  // g = -300, N = 300
  const LoadedStudy large = study("trust_region", 1000.0);
  Driver by_scale(large, sim, large.options);
  by_scale.step();
  EXPECT_NEAR(by_scale.summary().start_violation, -30.0, 1e-9);  // N = scale = 1000
  const LoadedStudy seed = study("seed", 1.0);
  Driver seeds(seed, sim, seed.options);
  seeds.step();
  EXPECT_NEAR(seeds.summary().start_violation, -30000.0, 1e-6);  // N = scale = 1
  // The optimum b1 = 4 (r = 400) is reached, holding the constraint.
  Driver run(tr, sim, tr.options);
  const RunSummary& r = run.run();
  EXPECT_EQ(r.status, RunStatus::kConverged) << r.message;
  EXPECT_NEAR(r.x(0), 4.0, 1e-5);
}

// The report measures a constraint as the run did (issue 47, point 4): a zero bound sized by its
// value at the start (300, over ten times its `scale` 1) is said in a warning, and result.json's
// `normalised` figure of it is in the units of the run's V (its `max_violation`), beside the
// `normaliser` (until 2026-12-01 the report divided by `scale`: 300 times the run's figure). At
// the optimum b1 = 3 the constraint r - 400 <= 0 holds with g = -100: -1/3 in the run's units.
TEST(Driver, TheReportMeasuresAConstraintAsTheRunDid) {
  nlohmann::json d = {
      {"design_variables", {variable("b1", 0.1, 10, 1, 0.4)}},
      {"load_cases", {{{"name", "only"}}}},
      {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
      {"objective", {{"minimize", "(b1 - 3)^2"}}},
      {"constraints", {{{"name", "c"}, {"of", "r - 400"}, {"upper", 0}, {"scale", 1}}}},
      {"simulator", {{"type", "fake"}}}};
  const LoadedStudy s = load_study(d);
  FakeSimulator sim({{"r", [](const Eigen::VectorXd& b) { return 100.0 * b(0); },
                      [](const Eigen::VectorXd&) { return Eigen::VectorXd::Constant(1, 100.0); }}});
  Driver driver(s, sim, s.options);
  RunSummary r;
  const std::string log = captured_log(spdlog::level::warn, [&] { r = driver.run(); });
  EXPECT_THAT(log, ::testing::HasSubstr("constraint c: normalised by 300, its largest |g| at the "
                                        "start, over ten times its `scale` (1)"));
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  ASSERT_NEAR(r.x(0), 3.0, 1e-6);
  EXPECT_NEAR(r.max_violation, -100.0 / 3.0, 1e-4);
  EvaluationRequest request;
  request.design = r.x.head(1);
  const Evaluation final_analysis = sim.evaluate({request}).front();
  const nlohmann::ordered_json doc = result_document(s, r, final_analysis);
  const nlohmann::ordered_json& c = doc.at("constraints").at(0);
  EXPECT_DOUBLE_EQ(c.at("normaliser").get<double>(), 300.0);
  EXPECT_NEAR(c.at("normalised").get<double>(), -1.0 / 3.0, 1e-6);
  EXPECT_NEAR(100.0 * c.at("normalised").get<double>(), doc.at("max_violation").get<double>(),
              1e-9);
  // The study's own `scale` where the run kept it: 1000 is above the start's 300.
  d["constraints"][0]["scale"] = 1000;
  const LoadedStudy kept = load_study(d);
  Driver again(kept, sim, kept.options);
  const RunSummary& k = again.run();
  ASSERT_NEAR(k.x(0), 3.0, 1e-6);
  const nlohmann::ordered_json by_scale = result_document(kept, k, final_analysis);
  EXPECT_DOUBLE_EQ(by_scale.at("constraints").at(0).at("normaliser").get<double>(), 1000.0);
  EXPECT_NEAR(by_scale.at("constraints").at(0).at("normalised").get<double>(), -0.1, 1e-6);
}

// A constraint bounded by 0 that is exactly 0 at the start, with a `scale` guessed (1) on values
// of hundreds (issue 47): the trust region sizes it by its terms (r - 500: 500) or, with no terms
// (r alone), by what one characteristic step in one variable changes it (|dr/db1| s1 = 1000
// with s1 = 1), and says that the scale was a guess; the seed strategy keeps `scale`. Minimising b1
// from 1 proposes b* = 0.6 (half-width 0.4), where r = 180 (g = -320) or r = -320 (g = -320).
TEST(Driver, AZeroBoundZeroAtTheStartIsSizedByItsTermsOrItsGradient) {
  auto study = [](const std::string& strategy, const std::string& of) {
    nlohmann::json d = {{"design_variables", {variable("b1", 0.1, 10, 1, 0.4)}},
                        {"load_cases", {{{"name", "only"}}}},
                        {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
                        {"objective", {{"minimize", "b1"}}},
                        {"constraints", {{{"name", "c"}, {"of", of}, {"upper", 0}, {"scale", 1}}}},
                        {"settings", {{"strategy", strategy}}},
                        {"simulator", {{"type", "fake"}}}};
    return load_study(d);
  };
  FakeSimulator quadratic(
      {{"r", [](const Eigen::VectorXd& b) { return 500.0 * b(0) * b(0); },
        [](const Eigen::VectorXd& b) { return Eigen::VectorXd::Constant(1, 1000.0 * b(0)); }}});
  FakeSimulator shifted(
      {{"r", [](const Eigen::VectorXd& b) { return 500.0 * (b(0) * b(0) - 1.0); },
        [](const Eigen::VectorXd& b) { return Eigen::VectorXd::Constant(1, 1000.0 * b(0)); }}});
  auto first_cycle = [](const LoadedStudy& s, FakeSimulator& sim, std::string& log) {
    CycleRecord rec;
    log = captured_log(spdlog::level::warn, [&] {
      Driver driver(s, sim, s.options);
      rec = driver.step();
    });
    return rec;
  };
  std::string log;
  const LoadedStudy by_terms = study("trust_region", "r - 500");
  const CycleRecord terms = first_cycle(by_terms, quadratic, log);
  ASSERT_NEAR(terms.x_opt(0), 0.6, 1e-9);
  EXPECT_NEAR(terms.V, -320.0 / 500.0 * 100.0, 1e-6);
  EXPECT_EQ(log.find("guess"), std::string::npos) << log;  // its terms sized it

  const LoadedStudy by_gradient = study("trust_region", "r");
  const CycleRecord gradient = first_cycle(by_gradient, shifted, log);
  ASSERT_NEAR(gradient.x_opt(0), 0.6, 1e-9);
  EXPECT_NEAR(gradient.V, -320.0 / 1000.0 * 100.0, 1e-6);
  EXPECT_NE(log.find("constraint c: its bound is 0"), std::string::npos) << log;
  EXPECT_NE(log.find("a guess"), std::string::npos) << log;
  EXPECT_NE(log.find("changes it by up to 1000"), std::string::npos) << log;

  const LoadedStudy seed = study("seed", "r");
  const CycleRecord seeds = first_cycle(seed, shifted, log);
  EXPECT_NEAR(seeds.V, 100.0 * 500.0 * (seeds.x_opt(0) * seeds.x_opt(0) - 1.0), 1e-6);  // N = 1
}

TEST(Driver, FailedStartAnalysisEndsWithStatusFailed) {
  const LoadedStudy s = product_study();
  FakeSimulator sim = product_simulator();
  sim.fail_when = [](const Eigen::VectorXd&) { return true; };
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  EXPECT_EQ(r.status, RunStatus::kFailed);
  EXPECT_NE(r.message.find("start design"), std::string::npos) << r.message;
  EXPECT_EQ(r.cycles, 0);
}

TEST(Driver, FailedSensitivityAnalysisEndsTheRunKeepingItsHistory) {
  const LoadedStudy s = product_study();
  FakeSimulator sim = product_simulator();
  Driver driver(s, sim, s.options);
  driver.step();
  driver.step();
  sim.fail_gradients = true;
  const RunSummary& r = driver.run();
  EXPECT_EQ(r.status, RunStatus::kFailed);
  EXPECT_NE(r.message.find("sensitivity analysis of b0 failed: fake failure"), std::string::npos)
      << r.message;
  ASSERT_EQ(r.cycles, 3);
  EXPECT_EQ(r.history[2].message, r.message);
  EXPECT_EQ(r.x,
            r.history[1].accepted ? r.history[1].x_opt : r.history[1].x0);  // last accepted design
}

// Multi-point in an intermediate variable: plan points fitted in b' = 1/b reproduce
// r = 3 / b exactly, so the first cycle's error is zero and the optimum b = 1.5 is exact.
TEST(Driver, MultipointFitInReciprocalVariableIsExactForCOverB) {
  nlohmann::json d = {
      {"design_variables",
       {{{"name", "b1"},
         {"lower", 0.5},
         {"upper", 10.0},
         {"initial", 2.5},
         {"move_limit", 0.2},
         {"sizing", "range"},
         {"direction", -1},
         {"intermediate", "reciprocal"}}}},
      {"load_cases", {{{"name", "only"}}}},
      {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
      {"objective", {{"minimize", {{"variable", "b1"}}}}},
      {"constraints", {{{"of", {{"response", "r"}}}, {"upper", 2.0}}}},
      {"settings",
       {{"approximation", "multipoint"}, {"cutoff", 0.0}, {"objacc", 1e-6}, {"vioacc", 1e-6}}},
      {"simulator", {{"type", "fake"}}}};
  const LoadedStudy s = load_study(d);
  FakeSimulator sim({{"r", [](const Eigen::VectorXd& b) { return 3.0 / b(0); },
                      [](const Eigen::VectorXd&) -> Eigen::VectorXd {
                        throw std::logic_error("no gradients");
                      }}});
  Driver driver(s, sim, s.options);
  const CycleRecord first = driver.step();
  EXPECT_EQ(first.fit_points, 2);  // b0 and one plan point
  EXPECT_LT(first.Eg, 1e-9);
  EXPECT_NEAR(first.x_opt(0), 1.5, 1e-6);  // inside the subregion [0.79, 2.69]
  const RunSummary& r = driver.run();
  EXPECT_EQ(r.status, RunStatus::kConverged) << r.message;
  EXPECT_NEAR(r.x(0), 1.5, 1e-6);
  EXPECT_EQ(r.sensitivity_analyses, 0);
}

// Multi-point with intermediate responses (issue 4, beyond the seed): r1, r2 are fitted from
// plan points (exactly, being linear) and the objective is a nonlinear relation of them kept
// exact in the NLP subproblem, so every cycle's approximation error is zero and the run
// reaches the optimum (2, 1) of 1 + (r1 - 3)^2 + (r2 - 1)^2 without any gradient.
TEST(Driver, MultipointWithIntermediateResponsesKeepsTheRelationExact) {
  nlohmann::json d = {
      {"design_variables",
       {{{"name", "b1"}, {"lower", 0.5}, {"upper", 5.0}, {"initial", 4.0}, {"sizing", "range"}},
        {{"name", "b2"}, {"lower", 0.5}, {"upper", 5.0}, {"initial", 4.0}, {"sizing", "range"}}}},
      {"load_cases", {{{"name", "only"}}}},
      {"responses", {{{"name", "r1"}, {"kind", "scalar"}}, {{"name", "r2"}, {"kind", "scalar"}}}},
      {"objective", {{"minimize", "1 + (r1 - 3)^2 + (r2 - 1)^2"}}},
      {"settings",
       {{"approximation", "multipoint"}, {"objacc", 1e-6}, {"vioacc", 1e-6}, {"move_limit", 0.5}}},
      {"simulator", {{"type", "fake"}}}};
  const LoadedStudy s = load_study(d);
  auto no_gradient = [](const Eigen::VectorXd&) -> Eigen::VectorXd {
    throw std::logic_error("no gradients");
  };
  FakeSimulator sim({{"r1", [](const Eigen::VectorXd& b) { return b(0) + b(1); }, no_gradient},
                     {"r2", [](const Eigen::VectorXd& b) { return b(0) - b(1); }, no_gradient}});
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  EXPECT_NEAR(r.x(0), 2.0, 1e-6);
  EXPECT_NEAR(r.x(1), 1.0, 1e-6);
  EXPECT_EQ(r.sensitivity_analyses, 0);
  for (const CycleRecord& c : r.history) EXPECT_LT(c.Ef, 1e-6) << "cycle " << c.cycle;
}

TEST(Driver, CycleLimitEndsWithAClearStatus) {
  LoadedStudy s = product_study();
  s.options.max_cycles = 2;
  FakeSimulator sim = product_simulator();
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  EXPECT_EQ(r.cycles, 2);
  EXPECT_TRUE(r.status == RunStatus::kCycleLimit || r.status == RunStatus::kInfeasible);
  EXPECT_NE(r.message.find("cycle limit 2"), std::string::npos) << r.message;
}

// Settings changed between cycles go in as options; the study stays as loaded.
TEST(Driver, SetOptionsReopensARunEndedOnTheCycleLimit) {
  const LoadedStudy s = product_study();
  Options limited = s.options;
  limited.max_cycles = 1;
  FakeSimulator sim = product_simulator();
  Driver driver(s, sim, limited);
  driver.run();
  ASSERT_EQ(driver.summary().cycles, 1);
  ASSERT_TRUE(driver.finished());
  Options more = s.options;
  more.max_cycles = 3;
  driver.set_options(more);
  EXPECT_FALSE(driver.finished());
  EXPECT_EQ(driver.options().max_cycles, 3);
  const RunSummary& r = driver.run();
  EXPECT_GT(r.cycles, 1);
  EXPECT_LE(r.cycles, 3);
  EXPECT_EQ(s.options.max_cycles, product_study().options.max_cycles);
}

// No feasible design within the cycle limit: the status is the cycle limit (what ended the run),
// and the message says that no feasible design was analysed.
TEST(Driver, NoFeasibleDesignWithinTheCycleLimitSaysSo) {
  const LoadedStudy s = minimize_b1_study("lower", 100.0, 8);
  FakeSimulator sim({{"r", [](const Eigen::VectorXd& b) { return b(0); },
                      [](const Eigen::VectorXd&) { return Eigen::VectorXd::Ones(1).eval(); }}});
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  EXPECT_EQ(r.status, RunStatus::kCycleLimit) << r.message;
  EXPECT_NE(r.message.find("no feasible design analysed"), std::string::npos) << r.message;
  EXPECT_NEAR(r.x(0), 10.0, 1e-5);  // as close as the bounds allow (phase 1 keeps 1e-8 slack)
  EXPECT_NEAR(r.max_violation, 90.0, 1e-4);
}

// min b1 s.t. r = (b1 - 3)^2 + 1 <= 0.5: no design is feasible, the least violation is at b1 = 3,
// inside the bounds. The move limits shrink around it until the run stalls; a stall without a
// feasible design ends `infeasible`, as the cycle limit does, not `stalled`.
TEST(Driver, AStallAtTheLeastViolationEndsInfeasible) {
  const LoadedStudy s = minimize_b1_study("upper", 0.5, 200);
  FakeSimulator sim(
      {{"r", [](const Eigen::VectorXd& b) { return (b(0) - 3.0) * (b(0) - 3.0) + 1.0; },
        [](const Eigen::VectorXd& b) {
          return Eigen::VectorXd::Constant(1, 2.0 * (b(0) - 3.0)).eval();
        }}});
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  EXPECT_EQ(r.status, RunStatus::kInfeasible) << r.message;
  EXPECT_NE(r.message.find("no feasible design found"), std::string::npos) << r.message;
  EXPECT_LT(r.cycles, 200) << "ended on the cycle limit, not on a stall: " << r.message;
  EXPECT_NEAR(r.x(0), 3.0, 0.05);
  EXPECT_NEAR(r.max_violation, 100.0, 1.0);  // (1 - 0.5) / 0.5
}

// max b1 s.t. r = sqrt(b1) <= 1.5 (b1 <= 2.25), multi-point with a noise estimate of 5 %: the
// secant through b0 and the plan point under-estimates the concave r, so proposals overshoot
// the bound, and the noise-raised viomax (15 %) accepts them. A run that ends on its cycle limit
// at such an infeasible design reports the best feasible design it analysed instead.
LoadedStudy concave_multipoint_study(int max_cycles) {
  nlohmann::json b1 = variable("b1", 0.1, 10, 0.5, 0.4);
  b1["sizing"] = "range";
  nlohmann::json d = {
      {"design_variables", {b1}},
      {"load_cases", {{{"name", "only"}}}},
      {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
      {"objective", {{"maximize", {{"variable", "b1"}}}}},
      {"constraints", {{{"of", {{"response", "r"}}}, {"upper", 1.5}}}},
      {"settings", {{"approximation", "multipoint"}, {"noise", 5.0}, {"max_cycles", max_cycles}}},
      {"simulator", {{"type", "fake"}}}};
  return load_study(d);
}

FakeSimulator concave_simulator() {
  return FakeSimulator({{"r", [](const Eigen::VectorXd& b) { return std::sqrt(b(0)); },
                         [](const Eigen::VectorXd& b) {
                           return Eigen::VectorXd::Constant(1, 0.5 / std::sqrt(b(0))).eval();
                         }}});
}

TEST(Driver, CycleLimitAtAnInfeasibleDesignReportsTheBestFeasibleDesignAnalysed) {
  const LoadedStudy s = concave_multipoint_study(2);
  FakeSimulator sim = concave_simulator();
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  ASSERT_EQ(r.history.size(), 2u);
  // Cycle 1 screens the constraint out (r is 53 % below its bound at b1 = 0.5) and its
  // proposal (V 34 %) is rejected; cycle 2, from the same b0, keeps the constraint the
  // rejected proposal violated, and its proposal, b1 = 2.2584, violates by 0.19 %, inside the
  // noise-raised viomax, and is accepted: the last accepted design is infeasible.
  ASSERT_FALSE(r.history.front().accepted);
  EXPECT_EQ(r.history.front().retained_constraints, 0);
  EXPECT_EQ(r.history.back().retained_constraints, 1);
  ASSERT_TRUE(r.history.back().accepted);
  EXPECT_NEAR(r.history.back().x_opt(0), 2.2584277, 1e-6);
  EXPECT_GT(r.history.back().V, 0.1);
  // Reported: the only feasible design analysed, the start (feasibility ranked first).
  EXPECT_EQ(r.status, RunStatus::kCycleLimit);
  EXPECT_DOUBLE_EQ(r.x(0), 0.5);
  EXPECT_DOUBLE_EQ(r.objective, 0.5);
  EXPECT_LT(r.max_violation, 0.0);
  EXPECT_NE(r.message.find("reported: the best feasible design analysed, the start design"),
            std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("not the last accepted design (objective 2.25843"), std::string::npos)
      << r.message;
  EXPECT_FALSE(r.optimality.at_final_design);
  // One more cycle converges at b1 = 2.2486, feasible: the converged design is reported.
  Options more = s.options;
  more.max_cycles = 3;
  driver.set_options(more);
  const RunSummary& r3 = driver.run();
  EXPECT_EQ(r3.status, RunStatus::kConverged);
  EXPECT_NEAR(r3.x(0), 2.24857, 1e-4);
  EXPECT_EQ(r3.message.find("reported"), std::string::npos) << r3.message;
}

// min r = 1 + (b1 - 3)^2 + 0.2 sin(37 b1) on [0, 10], multi-point from b1 = 1: the strategy
// accepts every proposal within its error bounds, worse ones too, and its convergence test reads
// the last two designs, so the run converges at a design with r = 1.131 after analysing b1 = 3.175
// (r = 0.842) in cycle 6. The converged multi-point run reports that design, the best it
// analysed; the same function without noise, with gradients (the local approximation), reports
// the design it converged at.
LoadedStudy noisy_parabola_study(const std::string& approximation) {
  nlohmann::json b1 = variable("b1", 0.0, 10.0, 1.0, 0.3);
  b1["sizing"] = "range";
  nlohmann::json d = {
      {"design_variables", {b1}},
      {"load_cases", {{{"name", "only"}}}},
      {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
      {"objective", {{"minimize", {{"response", "r"}}}}},
      {"settings", {{"approximation", approximation}, {"noise", 5.0}, {"max_cycles", 30}}},
      {"simulator", {{"type", "fake"}}}};
  return load_study(d);
}

FakeSimulator parabola_simulator(double noise) {
  return FakeSimulator({{"r",
                         [noise](const Eigen::VectorXd& b) {
                           return 1.0 + (b(0) - 3.0) * (b(0) - 3.0) + noise * std::sin(37 * b(0));
                         },
                         [noise](const Eigen::VectorXd& b) {
                           return Eigen::VectorXd::Constant(
                                      1, 2 * (b(0) - 3.0) + 37 * noise * std::cos(37 * b(0)))
                               .eval();
                         }}});
}

TEST(Driver, ConvergedMultipointRunReportsTheBestFeasibleDesignAnalysed) {
  const LoadedStudy s = noisy_parabola_study("multipoint");
  FakeSimulator sim = parabola_simulator(0.2);
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  const CycleRecord& last = r.history.back();
  const double F_last = last.accepted ? last.F_opt : last.F0;
  double best_record = std::numeric_limits<double>::infinity();
  for (const CycleRecord& c : r.history) {
    best_record = std::min({best_record, c.F0, c.x_opt.size() > 0 ? c.F_opt : c.F0});
  }
  EXPECT_LT(r.objective, F_last - 0.1) << r.message;  // well below the converged design
  EXPECT_LE(r.objective, best_record);                // no start or proposal was lower
  EXPECT_DOUBLE_EQ(r.objective,
                   1.0 + (r.x(0) - 3.0) * (r.x(0) - 3.0) + 0.2 * std::sin(37 * r.x(0)));
  EXPECT_DOUBLE_EQ(r.x(0), driver.reported_design(RunStatus::kConverged)(0));
  EXPECT_NE(r.message.find("converged in"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("reported: the best feasible design analysed"), std::string::npos)
      << r.message;
  EXPECT_FALSE(r.optimality.at_final_design);

  const LoadedStudy local = noisy_parabola_study("local");
  FakeSimulator smooth = parabola_simulator(0.0);
  Driver exact(local, smooth, local.options);
  const RunSummary& e = exact.run();
  ASSERT_EQ(e.status, RunStatus::kConverged) << e.message;
  EXPECT_EQ(e.message.find("reported"), std::string::npos) << e.message;
  EXPECT_DOUBLE_EQ(e.x(0),
                   e.history.back().accepted ? e.history.back().x_opt(0) : e.history.back().x0(0));
}

// A freeze of the multi-point strategy on a small noisy problem: min b1 s.t. 4 - (r - 5)^2 <= 2,
// r = 5 + (b1 - 5) above b1 = 5 and 5 + 0.1 (b1 - 5) below, with noise 0.01 sin(200 pi b1) (the
// impact absorber's kind), from b1 = 5 in [0, 10]: feasible only for b1 >= 5 + sqrt 2. At b0 the
// relation is stationary (its derivative 2 (r - 5) r' is 0) and the fitted one has a maximum
// there, so a local solver of the relaxed subproblem started at b0 stays there although the plan
// point b1 = 6.9 is feasible. Before the subproblem also started from the plan points, the run
// drifted to the least violation of the shallow side, b1 = 0, where cycles 5 and 6 proposed b0
// again, and ended on the cycle limit infeasible (V 87.5 %). The approximation is exact at the
// plan points: started there too, the run reaches the feasible side and stays near its edge.
TEST(Driver, MultipointDoesNotFreezeWhenB0IsAStationaryPointOfTheRelation) {
  nlohmann::json b1 = variable("b1", 0.0, 10.0, 5.0, 0.2);
  b1["sizing"] = "range";
  nlohmann::json d = {
      {"design_variables", {b1}},
      {"load_cases", {{{"name", "only"}}}},
      {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
      {"objective", {{"minimize", {{"variable", "b1"}}}}},
      {"constraints", {{{"of", "4 - (r - 5)^2"}, {"upper", 2.0}}}},
      {"settings", {{"approximation", "multipoint"}, {"noise", 5.0}, {"max_cycles", 6}}},
      {"simulator", {{"type", "fake"}}}};
  const LoadedStudy s = load_study(d);
  constexpr double kPi = 3.14159265358979323846;
  auto slope = [](double b) { return b >= 5.0 ? 1.0 : 0.1; };
  FakeSimulator sim({{"r",
                      [&](const Eigen::VectorXd& b) {
                        return 5.0 + slope(b(0)) * (b(0) - 5.0) + 0.01 * std::sin(200 * kPi * b(0));
                      },
                      [&](const Eigen::VectorXd& b) {
                        return Eigen::VectorXd::Constant(
                                   1, slope(b(0)) + 2 * kPi * std::cos(200 * kPi * b(0)))
                            .eval();
                      }}});
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  ASSERT_FALSE(r.history.empty());
  for (const CycleRecord& c : r.history) {
    EXPECT_NE(c.x_opt(0), c.x0(0)) << "cycle " << c.cycle << " proposed b0 again";
  }
  EXPECT_NE(r.status, RunStatus::kInfeasible) << r.message;
  EXPECT_LT(r.max_violation, 5.0);  // within the noise of 5 %
  EXPECT_NEAR(r.x(0), 5.0 + std::sqrt(2.0), 0.1);
}

// The bound formulation from an infeasible start with the auxiliary at 0: min t s.t. r = 0.1 b1
// + 0.4 <= t (bounded by t), b1 >= 3, from b1 = 1, t = 0. The bound row r <= t is normalised by
// t itself; phase 1 sets t to r - (its least violation), which is just above 0 once b1 passes
// 1.385. Measured at b* with b*'s t, that row's violation is tens of times b0's, while the
// subproblem's rows (normalised as at b0) predicted a decrease: the feasibility steps were
// rejected (judged each in its own units, this run ended infeasible at its cycle limit; the truck
// damper sweep's members stalled). Judged in b0's units, it reaches the optimum b1 = 3, t = 0.7.
TEST(Driver, ABoundFormulationWhoseAuxiliaryLeavesZeroIsJudgedInTheUnitsOfB0) {
  nlohmann::json d = {{"design_variables", {variable("b1", 0.1, 10, 1, 0.4)}},
                      {"auxiliary_variables", {{{"name", "t"}, {"lower", 0.0}, {"initial", 0.0}}}},
                      {"load_cases", {{{"name", "only"}}}},
                      {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
                      {"objective", {{"minimize_max", {{"expression", "r"}}}, {"auxiliary", "t"}}},
                      {"constraints", {{{"of", {{"variable", "b1"}}}, {"lower", 3.0}}}},
                      {"settings", {{"max_cycles", 30}}},
                      {"simulator", {{"type", "fake"}}}};
  const LoadedStudy s = load_study(d);
  FakeSimulator sim(
      {{"r", [](const Eigen::VectorXd& b) { return 0.1 * b(0) + 0.4; },
        [](const Eigen::VectorXd&) { return Eigen::VectorXd::Constant(1, 0.1).eval(); }}});
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  EXPECT_NEAR(r.x(0), 3.0, 1e-3);
  EXPECT_NEAR(r.objective, 0.7, 1e-3);
  EXPECT_LE(r.max_violation, s.options.vioacc);
}

// A coupled, ill-conditioned quadratic in 6 variables (a chain: every neighbour pair pulled
// together 10 times harder than x1 to 1; the Hessian's condition number about 1700), minimum
// 1 at x = 1: no separable form can represent it.
double chain_value(const Eigen::VectorXd& x) {
  double f = 1.0 + (x(0) - 1.0) * (x(0) - 1.0);
  for (int i = 0; i + 1 < x.size(); ++i) f += 10.0 * (x(i + 1) - x(i)) * (x(i + 1) - x(i));
  return f;
}

Eigen::VectorXd chain_gradient(const Eigen::VectorXd& x) {
  Eigen::VectorXd g = Eigen::VectorXd::Zero(x.size());
  g(0) = 2.0 * (x(0) - 1.0);
  for (int i = 0; i + 1 < x.size(); ++i) {
    g(i) -= 20.0 * (x(i + 1) - x(i));
    g(i + 1) += 20.0 * (x(i + 1) - x(i));
  }
  return g;
}

RunSummary run_chain(const std::string& form, int& gradient_calls) {
  const double starts[] = {-1.0, 0.5, 2.0, -0.5, 1.5, 0.0};
  nlohmann::json d = {{"load_cases", {{{"name", "only"}}}},
                      {"responses", {{{"name", "f"}, {"kind", "scalar"}}}},
                      {"objective", {{"minimize", "f"}}},
                      {"settings", {{"form", form}, {"max_cycles", 100}}},
                      {"simulator", {{"type", "fake"}}}};
  for (int k = 0; k < 6; ++k) {
    std::string name =
        "x";  // not "x" + to_string(): GCC 12 warns there (-Wrestrict, a false alarm)
    name += std::to_string(k + 1);
    d["design_variables"].push_back({{"name", name},
                                     {"lower", -3.0},
                                     {"upper", 3.0},
                                     {"initial", starts[k]},
                                     {"sizing", "range"}});
  }
  const LoadedStudy s = load_study(d);
  FakeSimulator sim({{"f", chain_value, chain_gradient}});
  Driver driver(s, sim, s.options);
  RunSummary r = driver.run();
  gradient_calls = sim.gradient_calls;
  return r;
}

// A variable resting on its bound with a move limit far narrower than the bound tolerance
// (1e-9 of the range), pressing away from the bound: the trust region must grow its factor
// when the prediction is good, as for any variable held by its move limit. It used to count
// as held by the bound, whose factor never grows: the run crept by 1e-12 per cycle to its
// cycle limit (the linked suspension's factors on bounds fell to 1e-18, issue 24).
TEST(Driver, AVariableOnABoundPressingAwayFromItGrowsItsMoveLimit) {
  nlohmann::json b1 = variable("b1", 0.1, 10, 0.1, 1e-12);
  b1["sizing"] = "range";
  const LoadedStudy study =
      load_study({{"design_variables", {b1}},
                  {"load_cases", {{{"name", "only"}}}},
                  {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
                  {"objective", {{"maximize", {{"variable", "b1"}}}}},
                  {"constraints", {{{"of", {{"response", "r"}}}, {"upper", 16.0}}}},
                  {"settings", {{"max_cycles", 80}, {"min_move_limit", 1e-15}}},
                  {"simulator", {{"type", "fake"}}}});
  FakeSimulator sim = quartic_simulator();
  Driver driver(study, sim, study.options);
  const RunSummary& r = driver.run();
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  EXPECT_NEAR(r.x(0), 2.0, 1e-3);
  EXPECT_LT(r.cycles, 70);
}

TEST(Driver, QuasiNewtonFormConvergesOnACoupledQuadraticWhereTheDiagonalOneCrawls) {
  int qn_gradients = 0, diagonal_gradients = 0;
  const RunSummary qn = run_chain("quasi_newton", qn_gradients);
  const RunSummary diagonal = run_chain("quadratic", diagonal_gradients);
  ASSERT_EQ(qn.status, RunStatus::kConverged) << qn.message;
  EXPECT_NEAR(qn.objective, 1.0, 1e-4);
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(qn.x(k), 1.0, 0.01) << k;
  // The diagonal form needs more cycles and analyses (on this problem: the cycle limit).
  EXPECT_LT(qn.cycles, diagonal.cycles);
  EXPECT_LT(qn.analyses + qn_gradients, diagonal.analyses + diagonal_gradients);
  std::cout << "chain: quasi_newton " << qn.cycles << " cycles, " << qn.analyses << " analyses ("
            << qn_gradients << " with gradients), F = " << qn.objective << "; quadratic "
            << diagonal.cycles << " cycles, " << diagonal.analyses << " analyses ("
            << diagonal_gradients << " with gradients), F = " << diagonal.objective << "\n";
}

}  // namespace
}  // namespace sao
