// The plug-in simulator (adapters/plugin_simulator.hpp, sao/plugin/sao_plugin.h): the example
// plug-in of problems/plugin-absorber runs the default study to the internal simulator's
// optimum; libraries that are missing, not plug-ins or of another version are refused naming
// the path and the versions; a plug-in's failures are failed analyses with its message.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "adapters/plugin_simulator.hpp"
#include "sao/seam/json_reader.hpp"
#include "tests/e2e/run_study.hpp"

namespace sao {
namespace {

const std::string kPlugins = std::string(SAO_BINARY_DIR) + "/plugins";

SimulatorSetup plugin_setup(const std::string& library) {
  adapters::register_plugin_simulator();
  SimulatorSetup setup;
  setup.section = {{"type", "plugin"}, {"library", library}};
  setup.design_names = {"b1"};
  setup.load_cases = {{"impact", TimeGrid(0.0, 1.0, 3), {}}};
  return setup;
}

// The message of the SectionError make_simulator throws for `setup` ("" if none).
std::string refusal(const SimulatorSetup& setup) {
  try {
    make_simulator(setup);
  } catch (const SectionError& e) {
    return e.what();
  }
  return "";
}

TEST(PluginSimulator, ExamplePluginReachesTheInternalOptimum) {
  adapters::register_plugin_simulator();
  setenv("SAO_PLUGIN_PATH", kPlugins.c_str(), 1);
  const RunSummary internal = run_study("problems/impact-absorber/max-acceleration.json");
  const RunSummary plugin = run_study("problems/plugin-absorber/max-acceleration.json");
  ASSERT_EQ(internal.status, RunStatus::kConverged) << internal.message;
  ASSERT_EQ(plugin.status, RunStatus::kConverged) << plugin.message;
  // The closed form against CVODES at rtol 1e-10: the same optimum to the run's accuracy.
  EXPECT_NEAR(plugin.objective, internal.objective, 1e-4 * std::abs(internal.objective));
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(plugin.x(i), internal.x(i), 1e-3) << "b" << i + 1;
  EXPECT_EQ(plugin.cycles, internal.cycles);
  EXPECT_EQ(plugin.analyses, internal.analyses);
}

TEST(PluginSimulator, MissingLibraryIsRefusedNamingWhereItLooked) {
  const std::string message = refusal(plugin_setup("libnowhere_plugin.so"));
  EXPECT_NE(message.find("simulator.library: no file libnowhere_plugin.so"), std::string::npos)
      << message;
  EXPECT_NE(message.find("SAO_PLUGIN_PATH"), std::string::npos) << message;
}

TEST(PluginSimulator, WrongVersionIsRefusedNamingBothVersions) {
  const std::string path = kPlugins + "/test/libsao_test_wrong_version_plugin.so";
  const std::string message = refusal(plugin_setup(path));
  EXPECT_NE(message.find("simulator.library: " + path +
                         ": plug-in API version 99, but this sao "
                         "supports version 1"),
            std::string::npos)
      << message;
}

TEST(PluginSimulator, LibraryWithoutEntryPointsIsRefused) {
  const std::string path = kPlugins + "/test/libsao_test_no_entry_plugin.so";
  const std::string message = refusal(plugin_setup(path));
  EXPECT_NE(message.find(path + ": not a sao plug-in"), std::string::npos) << message;
}

TEST(PluginSimulator, FailuresAreFailedAnalysesWithThePluginsMessage) {
  auto simulator = make_simulator(plugin_setup(kPlugins + "/test/libsao_test_failing_plugin.so"));
  ASSERT_EQ(simulator->responses().size(), 1u);
  EXPECT_EQ(simulator->responses()[0].name, "energy");
  EvaluationRequest run_fails, batch_fails;
  run_fails.design = Eigen::VectorXd::Constant(1, 0.5);
  batch_fails.design = Eigen::VectorXd::Constant(1, -1.0);
  const std::vector<Evaluation> e = simulator->evaluate({run_fails});
  ASSERT_FALSE(e[0].ok);
  EXPECT_NE(e[0].message.find("the spring broke at b1 = 0.5"), std::string::npos) << e[0].message;
  const std::vector<Evaluation> f = simulator->evaluate({batch_fails});
  ASSERT_FALSE(f[0].ok);
  EXPECT_NE(f[0].message.find("the licence server is down (b1 = -1)"), std::string::npos)
      << f[0].message;
}

TEST(PluginSimulator, ProvidedGradientsNeedAPluginThatComputesThem) {
  SimulatorSetup setup = plugin_setup(kPlugins + "/test/libsao_test_failing_plugin.so");
  setup.section["gradients"] = {{"method", "provided"}};
  const std::string message = refusal(setup);
  EXPECT_NE(message.find("simulator.gradients.method: \"provided\", but the plug-in"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace sao
