// The metamodel strategy (issue 50; sao/optimizer/metamodel_strategy.hpp): the region's pan and
// zoom, the fits, the infill by expected improvement, honest convergence and the settings'
// errors.
#include "sao/optimizer/metamodel_strategy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sao/optimizer/driver.hpp"
#include "sao/study/study_loader.hpp"
#include "tests/e2e/run_study.hpp"
#include "tests/sao/fake_simulator.hpp"

namespace sao {
namespace {

using testing::FakeSimulator;

Eigen::VectorXd no_gradient(const Eigen::VectorXd&) {
  throw std::logic_error("the metamodel strategy asked for a gradient");
}

nlohmann::json box_variable(const std::string& name, double lower, double upper, double initial,
                            double m) {
  return {{"name", name},       {"lower", lower},  {"upper", upper},
          {"initial", initial}, {"move_limit", m}, {"sizing", "range"}};
}

// min r over a box, with the settings given (strategy metamodel), r from the fake simulator;
// `constraint`: a lower bound on the response s when given.
LoadedStudy box_study(const nlohmann::json& variables, const nlohmann::json& settings,
                      double s_lower = std::numeric_limits<double>::quiet_NaN()) {
  nlohmann::json d = {{"design_variables", variables},
                      {"load_cases", {{{"name", "only"}}}},
                      {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
                      {"objective", {{"minimize", {{"response", "r"}}}}},
                      {"settings", settings},
                      {"simulator", {{"type", "fake"}}}};
  if (!std::isnan(s_lower)) {
    d["responses"].push_back({{"name", "s"}, {"kind", "scalar"}});
    d["constraints"] = {{{"name", "s_min"}, {"of", {{"response", "s"}}}, {"lower", s_lower}}};
  }
  nlohmann::json s = settings;
  s["strategy"] = "metamodel";
  d["settings"] = s;
  return load_study(d);
}

// The judgement of one proposal: b0 = 0.5 in [0, 1], factor 0.4 (region width 0.4).
StepJudgement judge_move(double step, double previous_step, double F0, double Fopt,
                         const Options& options = {}, bool on_move_limit = false) {
  const LoadedStudy s = box_study(nlohmann::json::array({box_variable("b1", 0.0, 1.0, 0.5, 0.4)}),
                                  {{"max_cycles", 5}});
  Options noisy = options;
  noisy.strategy = Strategy::kMetamodel;
  ApproximateProblem problem;
  const SubproblemResult sub;
  const Eigen::VectorXd x = Eigen::VectorXd::Constant(1, 0.5 + step);
  const Evaluation analysis;
  CycleFacts facts;
  facts.F0 = F0;
  facts.Fopt = Fopt;
  facts.delta_b = Eigen::VectorXd::Constant(1, step);
  facts.move_limit_active.assign(1, on_move_limit);
  const Eigen::VectorXd factors = Eigen::VectorXd::Constant(1, 0.4);
  std::optional<PreviousCycle> previous;
  if (previous_step != 0.0) {
    previous = PreviousCycle{-1.0, Eigen::VectorXd::Constant(1, previous_step), 0.0, 1};
  }
  const Optimality at_b0;
  return MetamodelStrategy().judge({s, noisy, noisy, problem, sub, x, x, analysis, facts, factors,
                                    previous, at_b0, 0.0, -1.0, 2, std::nullopt});
}

TEST(MetamodelStrategy, FullMoveInTheSameDirectionPansWithoutZooming) {
  const StepJudgement j = judge_move(0.2, 0.2, 2.0, 1.0);  // to the region's edge, again
  EXPECT_TRUE(j.accept);
  EXPECT_FALSE(j.converged);
  EXPECT_NEAR(j.factors(0), 0.4, 1e-12);
  EXPECT_EQ(j.actions[0], MoveAction::kKept);
}

TEST(MetamodelStrategy, ReversedFullMoveShrinksByTheOscillationFactor) {
  const StepJudgement j = judge_move(-0.2, 0.2, 2.0, 1.0);
  EXPECT_NEAR(j.factors(0), 0.6 * 0.4, 1e-12);  // gamma_osc
  EXPECT_EQ(j.actions[0], MoveAction::kOscillation);
}

TEST(MetamodelStrategy, SmallMoveZoomsTowardsEta) {
  // d = 0.05 / 0.2 = 0.25, no previous: c = 0, gamma = 0.8, lambda = 0.6 + 0.25 (0.2) = 0.65.
  const StepJudgement j = judge_move(0.05, 0.0, 2.0, 1.0);
  EXPECT_NEAR(j.factors(0), 0.65 * 0.4, 1e-12);
  EXPECT_EQ(j.actions[0], MoveAction::kShrunk);
}

TEST(MetamodelStrategy, WorseProposalIsRejectedAndTheRegionZooms) {
  const StepJudgement j = judge_move(0.2, 0.0, 1.0, 2.0);
  EXPECT_FALSE(j.accept);
  EXPECT_NEAR(j.factors(0), 0.6 * 0.4, 1e-12);
  EXPECT_EQ(j.actions[0], MoveAction::kRejected);
  // Expected improvement keeps its region: its criterion explores by itself.
  Options ei;
  ei.infill = Infill::kExpectedImprovement;
  ei.metamodel = MetamodelKind::kKriging;
  const StepJudgement k = judge_move(0.2, 0.0, 1.0, 2.0, ei);
  EXPECT_FALSE(k.accept);
  EXPECT_NEAR(k.factors(0), 0.4, 1e-12);
}

TEST(MetamodelStrategy, ConvergesOnlyOnAnAnalysedFeasibleProposalThatBarelyMoved) {
  // 0.5 % of the range and F changed by 0.05 % (objacc 0.1 %): converged.
  EXPECT_TRUE(judge_move(0.005, 0.0, 1.0, 0.9995).converged);
  // The same F change with a step of 5 % of the range: not converged.
  EXPECT_FALSE(judge_move(0.05, 0.0, 1.0, 0.9995).converged);
  // A small step that changed F by 1 %: not converged.
  EXPECT_FALSE(judge_move(0.005, 0.0, 1.0, 0.99).converged);
  // The converging step held by the region's edge (a crawl): not converged.
  EXPECT_FALSE(judge_move(0.005, 0.0, 1.0, 0.9995, Options{}, true).converged);
}

TEST(MetamodelStrategy, RegionIsShiftedInsideTheBoundsKeepingItsWidth) {
  const LoadedStudy s =
      box_study(nlohmann::json::array({box_variable("b1", 0.0, 1.0, 0.9, 0.4)}), {});
  Eigen::VectorXd lower(1), upper(1);
  metamodel_region(s, Eigen::VectorXd::Constant(1, 0.9), Eigen::VectorXd::Constant(1, 0.4), lower,
                   upper);
  EXPECT_NEAR(lower(0), 0.6, 1e-12);
  EXPECT_NEAR(upper(0), 1.0, 1e-12);
  metamodel_region(s, Eigen::VectorXd::Constant(1, 0.5), Eigen::VectorXd::Constant(1, 3.0), lower,
                   upper);
  EXPECT_EQ(lower(0), 0.0);  // never wider than the bounds
  EXPECT_EQ(upper(0), 1.0);
}

// A quadratic response: the quadratic metamodel is exact, so the first proposal is the optimum
// and the second cycle's analysis confirms it.
TEST(MetamodelStrategy, QuadraticMetamodelFindsAQuadraticsOptimumAndConfirmsIt) {
  const LoadedStudy s =
      box_study({box_variable("b1", 0.0, 1.0, 0.9, 1.0), box_variable("b2", 0.0, 2.0, 0.2, 1.0)},
                {{"max_cycles", 6}});
  FakeSimulator sim({{"r",
                      [](const Eigen::VectorXd& b) {
                        return 1.0 + std::pow(b(0) - 0.3, 2) + 2.0 * std::pow(b(1) - 1.2, 2) +
                               0.5 * (b(0) - 0.3) * (b(1) - 1.2);
                      },
                      no_gradient}});
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  EXPECT_NEAR(r.x(0), 0.3, 1e-6);
  EXPECT_NEAR(r.x(1), 1.2, 1e-6);
  EXPECT_LT(r.history.front().Ef, 1e-6);
  EXPECT_EQ(r.history.front().fit_points, 7);  // 6 coefficients + 1
  EXPECT_EQ(r.sensitivity_analyses, 0);
  EXPECT_EQ(sim.gradient_calls, 0);
  // Converged on an analysed proposal: the last cycle's.
  EXPECT_TRUE(r.history.back().converged);
  EXPECT_EQ(r.cycles, 2);
}

// A constrained problem: min b1 + b2 (as the response r) s.t. s = b1 b2 >= 1 on [0.2, 3]^2:
// optimum (1, 1), F = 2, the constraint active. The quadratic metamodel of s is exact too.
TEST(MetamodelStrategy, ConstrainedOptimumWithTheConstraintActive) {
  const LoadedStudy s =
      box_study({box_variable("b1", 0.2, 3.0, 2.5, 0.6), box_variable("b2", 0.2, 3.0, 2.5, 0.6)},
                {{"max_cycles", 12}, {"objacc", 0.01}, {"vioacc", 0.01}}, 1.0);
  FakeSimulator sim({{"r", [](const Eigen::VectorXd& b) { return b(0) + b(1); }, no_gradient},
                     {"s", [](const Eigen::VectorXd& b) { return b(0) * b(1); }, no_gradient}});
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  EXPECT_NEAR(r.objective, 2.0, 1e-3);
  EXPECT_LE(r.max_violation, 0.01);
}

// Honest ends: a response no quadratic describes, a tight cycle limit: the run ends on the
// limit, not "converged"; the reported design is the best feasible one analysed.
TEST(MetamodelStrategy, CycleLimitIsNotCalledConverged) {
  const LoadedStudy s = box_study(nlohmann::json::array({box_variable("b1", 0.0, 1.0, 0.9, 1.0)}),
                                  {{"max_cycles", 2}, {"objacc", 1e-6}});
  FakeSimulator sim({{"r",
                      [](const Eigen::VectorXd& b) {
                        return std::sqrt(std::abs(b(0) - 0.37)) + 0.1 * std::sin(40.0 * b(0));
                      },
                      no_gradient}});
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  EXPECT_EQ(r.status, RunStatus::kCycleLimit) << r.message;
  for (const CycleRecord& c : r.history) EXPECT_FALSE(c.converged);
  double best = HUGE_VAL;
  for (const CycleRecord& c : r.history) best = std::min({best, c.F0, c.accepted ? c.F_opt : best});
  EXPECT_LE(r.objective, best + 1e-12);
}

// The six-hump camel function from a start in one of its local minima: the quadratic region
// method stays there, expected improvement on kriging finds a global minimum (-1.0316).
TEST(MetamodelStrategy, ExpectedImprovementLeavesALocalMinimum) {
  const nlohmann::json variables = {box_variable("b1", -2.0, 2.0, 1.7036, 1.0),
                                    box_variable("b2", -1.0, 1.0, -0.7961, 1.0)};
  auto camel = [](const Eigen::VectorXd& b) {
    const double x = b(0), y = b(1);
    return (4.0 - 2.1 * x * x + std::pow(x, 4) / 3.0) * x * x + x * y +
           (-4.0 + 4.0 * y * y) * y * y;
  };
  const LoadedStudy s =
      box_study(variables,
                {{"max_cycles", 20}, {"metamodel", "kriging"}, {"infill", "expected_improvement"}});
  FakeSimulator sim({{"r", camel, no_gradient}});
  Driver driver(s, sim, s.options);
  const RunSummary& r = driver.run();
  EXPECT_LE(r.analyses, 25);
  EXPECT_LT(r.objective, -1.0) << r.message << " at " << r.x.transpose();
  // The run is deterministic: a second driver (a replay) gives the same records.
  FakeSimulator again({{"r", camel, no_gradient}});
  Driver replay(s, again, s.options);
  const RunSummary& q = replay.run();
  ASSERT_EQ(q.history.size(), r.history.size());
  for (size_t c = 0; c < q.history.size(); ++c) {
    EXPECT_EQ(q.history[c].x_opt, r.history[c].x_opt) << "cycle " << c + 1;
  }
}

// A code that fails at some designs: the plan points it fails at are replaced by others, the
// fit has its points, the run reaches the optimum, and the failures are counted.
TEST(MetamodelStrategy, FailedPlanPointsAreReplaced) {
  const LoadedStudy s =
      box_study({box_variable("b1", 0.0, 1.0, 0.9, 1.0), box_variable("b2", 0.0, 2.0, 0.2, 1.0)},
                {{"max_cycles", 8}});
  FakeSimulator sim({{"r",
                      [](const Eigen::VectorXd& b) {
                        return 1.0 + std::pow(b(0) - 0.3, 2) + 2.0 * std::pow(b(1) - 1.2, 2);
                      },
                      no_gradient}});
  int failures = 0;
  sim.fail_when = [&failures](const Eigen::VectorXd& b) {
    const bool fails = b(0) > 0.55 && b(1) > 1.0;
    failures += fails;
    return fails;
  };
  Driver driver(s, sim, s.options);
  const CycleRecord first = driver.step();
  ASSERT_GT(failures, 0);
  // One plan of 6 points beside the start: without replacements the fit would hold 7 - failures
  // (the proposal b* is analysed after the fit).
  EXPECT_GT(first.fit_points, 7 - failures);
  EXPECT_GE(first.fit_points, 6);
  const RunSummary& r = driver.run();
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  EXPECT_NEAR(r.x(0), 0.3, 1e-6);
  EXPECT_NEAR(r.x(1), 1.2, 1e-6);
  EXPECT_EQ(sim.calls, r.analyses + failures);  // a failed run is a run, not an analysis
}

TEST(MetamodelStrategy, SettingsThatCannotWorkAreNamed) {
  const nlohmann::json v = nlohmann::json::array({box_variable("b1", 0.0, 1.0, 0.5, 0.4)});
  auto message = [&](const nlohmann::json& settings, const nlohmann::json& variables) {
    try {
      box_study(variables, settings);
    } catch (const StudyError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({{"approximation", "multipoint"}}, v).find("cannot be combined"),
            std::string::npos);
  EXPECT_NE(message({{"infill", "expected_improvement"}}, v).find("\"metamodel\": \"kriging\""),
            std::string::npos);
  EXPECT_NE(message({{"metamodel", "cubic"}}, v)
                .find("expected \"quadratic\", \"linear\" or \"kriging\", got \"cubic\""),
            std::string::npos);
  EXPECT_NE(message({{"metamodel_points", -1}}, v).find("metamodel_points"), std::string::npos);
  const nlohmann::json unbounded =
      nlohmann::json::array({{{"name", "free"}, {"lower", 0.0}, {"initial", 1.0}}});
  EXPECT_NE(message({}, unbounded).find("\"free\" needs finite lower and upper bounds"),
            std::string::npos);
}

// The bound formulation's auxiliary is a prediction of the models: the strategy sets it from the
// analysis by default (repair_auxiliary), and the impact absorber converges to its optimum.
TEST(MetamodelStrategy, TheAuxiliaryIsSetFromTheAnalysisByDefault) {
  const LoadedStudy metamodel = box_study(
      nlohmann::json::array({box_variable("b1", 0.0, 1.0, 0.5, 0.4)}), {{"max_cycles", 5}});
  EXPECT_TRUE(metamodel.options.repair_auxiliary);
  const LoadedStudy told =
      box_study(nlohmann::json::array({box_variable("b1", 0.0, 1.0, 0.5, 0.4)}),
                {{"max_cycles", 5}, {"repair_auxiliary", false}});
  EXPECT_FALSE(told.options.repair_auxiliary);
  const RunSummary r = run_study("problems/impact-absorber/max-acceleration.json",
                                 {"settings.strategy=\"metamodel\""});
  ASSERT_EQ(r.status, RunStatus::kConverged) << r.message;
  EXPECT_NEAR(r.objective, 0.520286, 1e-4);
  EXPECT_LE(r.cycles, 10);
  // The other strategies keep the subproblem's auxiliary unless told.
  EXPECT_FALSE(load_study_file(std::string(SAO_SOURCE_DIR) +
                               "/problems/impact-absorber/max-acceleration.json")
                   .options.repair_auxiliary);
}

}  // namespace
}  // namespace sao
