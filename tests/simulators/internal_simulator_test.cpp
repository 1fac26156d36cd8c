#include "simulators/internal_simulator.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "impact_absorber_setup.hpp"

namespace sao::sim {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

SimulatorSetup setup(const json& extra = json::object()) {
  return testing::impact_absorber_setup(extra);
}

EvaluationRequest request(double b1, double b2, bool gradients = false) {
  EvaluationRequest r;
  r.design = Eigen::Vector2d(b1, b2);
  if (gradients) r.derivatives = {{0, "yddot", {3, 4}}};
  return r;
}

std::string construction_error(const SimulatorSetup& s) {
  try {
    InternalSimulator sim(s);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(InternalSimulator, ReadsTheSectionWithDefaults) {
  const InternalSimulator defaults(setup());
  EXPECT_EQ(defaults.model().name(), "impact-absorber");
  EXPECT_EQ(defaults.settings().integrator.rtol, 1e-8);
  EXPECT_EQ(defaults.settings().integrator.atol, 1e-10);
  EXPECT_EQ(defaults.settings().integrator.max_steps, 100000);
  EXPECT_FALSE(defaults.settings().central);
  EXPECT_EQ(defaults.settings().relative_step, 1e-3);
  EXPECT_EQ(defaults.settings().workers, 0);
  EXPECT_EQ(defaults.responses().size(), 6u);

  const InternalSimulator set(setup({{"rtol", 1e-6},
                                     {"atol", 1e-9},
                                     {"max_steps", 1e4},
                                     {"threads", 3},
                                     {"gradients", {{"method", "central"}, {"step", 1e-4}}}}));
  EXPECT_EQ(set.settings().integrator.rtol, 1e-6);
  EXPECT_EQ(set.settings().integrator.atol, 1e-9);
  EXPECT_EQ(set.settings().integrator.max_steps, 10000);
  EXPECT_EQ(set.settings().workers, 3);
  EXPECT_TRUE(set.settings().central);
  EXPECT_EQ(set.settings().relative_step, 1e-4);
}

TEST(InternalSimulator, MapsModelParametersByMappingByNameOrConstant) {
  const InternalSimulator mapped(setup({{"parameters", {{"k", "b2"}, {"c", "b1"}}}}));
  ASSERT_EQ(mapped.parameter_sources().size(), 2u);
  EXPECT_EQ(mapped.parameter_sources()[0].design_index, 1);
  EXPECT_EQ(mapped.parameter_sources()[1].design_index, 0);

  SimulatorSetup by_name = setup();
  by_name.section.erase("parameters");
  by_name.design_names = {"c", "k"};
  const InternalSimulator named(by_name);
  EXPECT_EQ(named.parameter_sources()[0].design_index, 1);
  EXPECT_EQ(named.parameter_sources()[1].design_index, 0);

  // k = 1 fixed, c the only design variable: the same motion as the design (1, 0.3).
  SimulatorSetup constant = setup({{"parameters", {{"c", "b1"}}}, {"constants", {{"k", 1.0}}}});
  constant.design_names = {"b1"};
  InternalSimulator with_constant(constant);
  EXPECT_EQ(with_constant.parameter_sources()[0].design_index, -1);
  EXPECT_EQ(with_constant.parameter_sources()[0].constant, 1.0);
  EvaluationRequest r;
  r.design = Eigen::VectorXd::Constant(1, 0.3);
  r.derivatives = {{0, "y", {}}};
  const Evaluation e = with_constant.evaluate({r}).front();
  ASSERT_TRUE(e.ok) << e.message;
  EXPECT_EQ(e.cases[0].gradients.at("y").cols(), 1);
  EXPECT_EQ(e.cost.runs, 2);
  InternalSimulator full(setup());
  EXPECT_EQ(e.cases[0].histories.at("y"),
            full.evaluate({request(1.0, 0.3)}).front().cases[0].histories.at("y"));
}

TEST(InternalSimulator, BadSectionsNameTheirPath) {
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"model", "pendulum"}},
       "simulator.model: unknown model \"pendulum\" (known models: impact-absorber, "
       "oscillator, quarter-car, slider-crank-path, functions or multibody)"},
      {{{"model", 3}}, "simulator.model: expected a string"},
      {{{"rtoll", 1e-6}}, "simulator.rtoll: unknown key"},
      {{{"rtol", "tight"}}, "simulator.rtol: expected a positive number"},
      {{{"atol", -1.0}}, "simulator.atol: expected a positive number"},
      {{{"max_steps", 1.5}}, "simulator.max_steps: expected an integer >= 1"},
      {{{"max_steps", 0}}, "simulator.max_steps: expected an integer >= 1"},
      {{{"threads", -1}}, "simulator.threads: expected an integer >= 0"},
      {{{"gradients", "central"}}, "simulator.gradients: expected an object"},
      {{{"gradients", {{"method", "backward"}}}}, "simulator.gradients.method: expected"},
      {{{"gradients", {{"stepp", 1e-3}}}}, "simulator.gradients.stepp: unknown key"},
      {{{"gradients", {{"step", 0}}}}, "simulator.gradients.step: expected a positive number"},
      {{{"gradients", {{"checkpoint_steps", 0}}}},
       "simulator.gradients.checkpoint_steps: expected an integer >= 1"},
      // Allocated up front: 2^31 steps asked for tens of gigabytes (found by fuzzing).
      {{{"gradients", {{"checkpoint_steps", 2147483648.0}}}},
       "simulator.gradients.checkpoint_steps: expected an integer <= 100000, got 2147483648"},
      {{{"gradients", {{"adjoint_sweep", "both"}}}},
       "simulator.gradients.adjoint_sweep: expected \"shared\""},
      {{{"parameters", {{"m", "b1"}}}}, "simulator.parameters.m: unknown"},
      {{{"parameters", {{"k", "b9"}, {"c", "b2"}}}},
       "simulator.parameters.k: expected the name of a design variable (b1, b2)"},
      {{{"parameters", {{"c", "b2"}}}, {"constants", {{"k", "one"}}}},
       "simulator.constants.k: expected a number"},
      {{{"constants", {{"k", 1.0}}}}, "simulator.constants.k: also mapped"},
      {{{"constants", {{"mass", 1.0}}}}, "simulator.constants.mass: unknown"},
  };
  for (const auto& [extra, expected] : cases) {
    EXPECT_THAT(construction_error(setup(extra)), HasSubstr(expected)) << extra.dump();
  }

  SimulatorSetup unmapped = setup();
  unmapped.section.erase("parameters");
  EXPECT_THAT(construction_error(unmapped),
              HasSubstr("simulator.parameters.k: model parameter \"k\" is not mapped"));
  unmapped.section["constants"] = {{"k", 1.0}, {"c", 0.3}};
  EXPECT_EQ(construction_error(unmapped), "no error");
  unmapped.design_names = {"k", "b2"};  // both a design variable and a constant
  EXPECT_THAT(construction_error(unmapped), HasSubstr("simulator.constants.k: \"k\" is also"));

  SimulatorSetup missing = setup();
  missing.section.erase("model");
  EXPECT_THAT(construction_error(missing),
              HasSubstr("simulator.model: missing; known models: impact-absorber"));
  SimulatorSetup bad_case = setup();
  bad_case.load_cases[0].parameters["speed"] = 3.0;
  EXPECT_THAT(construction_error(bad_case), HasSubstr("load_cases[0].parameters.speed"));
  SimulatorSetup bad_grid = setup();
  bad_grid.load_cases[0].grid = {0.0, 0.0, 10};
  EXPECT_THAT(construction_error(bad_grid), HasSubstr("load_cases[0].grid"));
}

TEST(InternalSimulator, ReportsEveryProblemOfTheSectionAtOnce) {
  const SimulatorSetup bad =
      setup({{"rtol", -1.0}, {"colour", "red"}, {"gradients", {{"method", "backward"}}}});
  try {
    InternalSimulator sim(bad);
    FAIL() << "no error";
  } catch (const SectionError& e) {
    ASSERT_EQ(e.problems().size(), 3u) << e.what();
    const std::string all = e.what();
    EXPECT_THAT(all, HasSubstr("simulator.rtol: expected a positive number, got -1"));
    EXPECT_THAT(all, HasSubstr("simulator.colour: unknown key"));
    EXPECT_THAT(all, HasSubstr("simulator.gradients.method: expected \"forward\""));
    for (const std::string& problem : e.problems()) {
      EXPECT_EQ(problem.rfind("simulator.", 0), 0u) << problem;  // each names its path
      EXPECT_THAT(all, HasSubstr(problem));
    }
  }
}

TEST(InternalSimulator, MalformedRequestsThrow) {
  InternalSimulator sim(setup());
  EvaluationRequest r = request(1.0, 0.3);
  r.design = Eigen::Vector3d(1, 2, 3);
  EXPECT_THROW(sim.evaluate({r}), std::invalid_argument);
  r = request(1.0, 0.3);
  for (const DerivativeRequest& bad : std::vector<DerivativeRequest>{
           {1, "y", {}}, {0, "z", {}}, {0, "y", {101}}, {0, "max_abs_y", {1}}}) {
    r.derivatives = {bad};
    EXPECT_THROW(sim.evaluate({r}), std::invalid_argument) << bad.response;
  }
}

TEST(InternalSimulator, LoadCasesRunWithTheirParameters) {
  SimulatorSetup s = setup();
  s.load_cases.push_back({"hard", {0.0, 6.0, 51}, {{"v0", 2.0}}});
  s.load_cases.push_back({"offset", {0.0, 6.0, 51}, {{"y0", 0.1}, {"v0", 0.0}}});
  InternalSimulator sim(s);
  const Evaluation e = sim.evaluate({request(1.0, 0.3, true)}).front();
  ASSERT_TRUE(e.ok) << e.message;
  ASSERT_EQ(e.cases.size(), 3u);
  EXPECT_EQ(e.cost.runs, 3 * 3);  // forward, n = 2: 3 runs per load case
  EXPECT_EQ(e.cases[1].histories.at("y").size(), 51);
  // The motion is linear in v0: twice the first half of the default case.
  const Eigen::VectorXd first_half = e.cases[0].histories.at("y").head(51);
  EXPECT_LT((e.cases[1].histories.at("y") - 2.0 * first_half).cwiseAbs().maxCoeff(), 1e-7);
  EXPECT_LT((e.cases[1].gradients.at("y") - 2.0 * e.cases[0].gradients.at("y").topRows(51))
                .cwiseAbs()
                .maxCoeff(),
            1e-4);
  EXPECT_EQ(e.cases[2].histories.at("y")(0), 0.1);
  EXPECT_EQ(e.cases[2].histories.at("ydot")(0), 0.0);
}

TEST(InternalSimulator, BatchAndThreadCountDoNotChangeResults) {
  SimulatorSetup s = setup();
  s.load_cases.push_back({"hard", {0.0, 6.0, 51}, {{"v0", 2.0}}});
  InternalSimulator one(setup({{"workers", 1}}));
  InternalSimulator three(setup({{"workers", 3}, {"gradients", {{"method", "forward"}}}}));
  InternalSimulator all(setup());  // threads 0: every core
  const std::vector<EvaluationRequest> batch = {request(1.0, 0.3), request(0.5, 0.5, true),
                                                request(0.2, 0.9), request(0.36276, 0.48231, true)};
  const auto a = one.evaluate(batch);
  const auto b = three.evaluate(batch);
  const auto c = all.evaluate(batch);
  ASSERT_EQ(a.size(), batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    ASSERT_TRUE(a[i].ok && b[i].ok && c[i].ok);
    const Evaluation single = three.evaluate({batch[i]}).front();
    for (const Evaluation* other : {&b[i], &c[i], &single}) {
      EXPECT_EQ(a[i].cases[0].histories, other->cases[0].histories) << "request " << i;
      EXPECT_EQ(a[i].cases[0].scalars, other->cases[0].scalars) << "request " << i;
      EXPECT_EQ(a[i].cases[0].gradients, other->cases[0].gradients) << "request " << i;
      EXPECT_EQ(a[i].cost.runs, other->cost.runs) << "request " << i;
    }
    EXPECT_EQ(a[i].has_gradients, !batch[i].derivatives.empty());
    EXPECT_EQ(a[i].cases[0].gradients.size(), a[i].has_gradients ? 6u : 0u);
  }
  EXPECT_EQ(a[0].cost.runs, 1);
  EXPECT_EQ(a[1].cost.runs, 3);  // forward, n = 2
  double seconds = 0;
  for (const auto& e : a) seconds += e.cost.wall_seconds;
  EXPECT_GT(seconds, 0.0);
}

TEST(InternalSimulator, CentralDifferencesCostTwoRunsPerVariable) {
  InternalSimulator sim(setup({{"gradients", {{"method", "central"}}}}));
  EXPECT_EQ(sim.evaluate({request(1.0, 0.3, true)}).front().cost.runs, 5);
}

TEST(InternalSimulator, FailedIntegrationIsAValueNotAThrow) {
  InternalSimulator sim(setup({{"max_steps", 1}}));
  Evaluation e;
  ASSERT_NO_THROW(e = sim.evaluate({request(1.0, 0.3, true)}).front());
  EXPECT_FALSE(e.ok);
  EXPECT_FALSE(e.has_gradients);
  EXPECT_TRUE(e.cases.empty());
  EXPECT_EQ(e.cost.runs, 3);
  EXPECT_THAT(e.message, HasSubstr("load case \"impact\""));
  EXPECT_THAT(e.message, HasSubstr("b1 = 1, b2 = 0.3"));
  EXPECT_THAT(e.message, HasSubstr("CV_TOO_MUCH_WORK"));
  EXPECT_THAT(e.message, HasSubstr("stopped at t = "));
}

TEST(InternalSimulator, OneFailedRequestLeavesTheOthersOfTheBatchIntact) {
  InternalSimulator sim(setup({{"max_steps", 2000}}));  // plenty for a stable design
  // k = -1e4: y grows like exp(100 t); CVODES runs out of steps on the way to overflow.
  const auto e = sim.evaluate({request(1.0, 0.3), request(-1e4, 0.0), request(0.5, 0.5)});
  EXPECT_TRUE(e[0].ok);
  EXPECT_FALSE(e[1].ok);
  EXPECT_THAT(e[1].message, HasSubstr("b1 = -10000"));
  EXPECT_TRUE(e[2].ok);
}

TEST(SimulatorRegistry, MakesTheInternalSimulatorAndNamesTheKnownTypes) {
  register_internal_simulator();
  register_internal_simulator();  // idempotent
  const std::vector<std::string> types = registered_simulators();
  EXPECT_EQ(std::count(types.begin(), types.end(), "internal"), 1);
  auto made = make_simulator(setup());
  ASSERT_NE(made, nullptr);
  EXPECT_NE(dynamic_cast<InternalSimulator*>(made.get()), nullptr);

  auto error = [](SimulatorSetup s) -> std::string {
    try {
      make_simulator(s);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "no error";
  };
  SimulatorSetup s = setup();
  s.section["type"] = "ls-dyna";
  EXPECT_THAT(error(s), HasSubstr("simulator.type: unknown type \"ls-dyna\"; known types: "));
  EXPECT_THAT(error(s), HasSubstr("internal"));
  s.section.erase("type");
  EXPECT_THAT(error(s), HasSubstr("simulator.type: missing; known types: "));
  s.section["type"] = 7;
  EXPECT_THAT(error(s), HasSubstr("simulator.type: expected a string"));
  s.section["type"] = "internal";
  s.section["model"] = "pendulum";
  EXPECT_THAT(error(s), HasSubstr("simulator.model: unknown model"));
}

}  // namespace
}  // namespace sao::sim
