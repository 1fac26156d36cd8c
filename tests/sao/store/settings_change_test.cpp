// One source of settings (issue 46): a key set with `sao set` between cycles is in force exactly
// as the same key written in the study file, for every key of "settings", the design bounds and
// the move limits, and a stored change survives a resume.
//
// The driver copies the Study (the problem) and owns the Options; no part of the optimizer can
// read a setting from the study (it is given only a Study, not the loaded file's settings), so
// these tests check the one path a change takes: StudySession::set -> the stored change -> the
// study document reloaded by the loader -> Driver::set_options.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "sao/optimizer/cycle_record_json.hpp"
#include "sao/store/study_session.hpp"
#include "sao/study/study_loader.hpp"
#include "tests/sao/fake_simulator.hpp"
#include "tests/support.hpp"

namespace sao {
namespace {

namespace fs = std::filesystem;

// min f = (b1 - 2)^2 + (b2 - 1)^2 + 0.5 b1 b2 subject to b1 b2 >= 4 and b1 + 2 b2 <= 9: curved
// objective and constraints, so that the approximation forms, the strategies and the accuracies
// all change what the cycles do.
std::unique_ptr<Simulator> make_curved(const SimulatorSetup&) {
  using V = Eigen::VectorXd;
  return std::make_unique<testing::FakeSimulator>(std::vector<testing::FakeResponse>{
      {"f",
       [](const V& b) {
         return (b(0) - 2) * (b(0) - 2) + (b(1) - 1) * (b(1) - 1) + 0.5 * b(0) * b(1);
       },
       [](const V& b) {
         return Eigen::Vector2d(2 * (b(0) - 2) + 0.5 * b(1), 2 * (b(1) - 1) + 0.5 * b(0)).eval();
       }},
      {"r", [](const V& b) { return b(0) * b(1); },
       [](const V& b) { return Eigen::Vector2d(b(1), b(0)).eval(); }},
      {"s", [](const V& b) { return b(0) + 2 * b(1) + 0.05 * b(0) * b(0); },
       [](const V& b) { return Eigen::Vector2d(1 + 0.1 * b(0), 2.0).eval(); }}});
}

nlohmann::json base_document() {
  auto variable = [](const std::string& name, double initial) {
    return nlohmann::json{{"name", name}, {"lower", 0.2}, {"upper", 6.0}, {"initial", initial}};
  };
  return {{"name", "settings-change"},
          {"design_variables", {variable("b1", 4.0), variable("b2", 3.0)}},
          {"load_cases", {{{"name", "only"}}}},
          {"responses",
           {{{"name", "f"}, {"kind", "scalar"}},
            {{"name", "r"}, {"kind", "scalar"}},
            {{"name", "s"}, {"kind", "scalar"}}}},
          {"objective", {{"minimize", "f"}}},
          {"constraints",
           {{{"name", "product"}, {"of", {{"response", "r"}}}, {"lower", 4.0}},
            {{"name", "sum"}, {"of", {{"response", "s"}}}, {"upper", 9.0}}}},
          {"starts", {{{"b1", 5.5}, {"b2", 0.5}}}},
          {"settings", {{"max_cycles", 7}}},
          {"simulator", {{"type", "settings-change-test"}}}};
}

// A value unlike the default for every key of "settings" (docs/study.schema.json lists them;
// the test fails for a key missing here, so that a new setting cannot go untested).
const std::map<std::string, std::string>& changed_values() {
  static const std::map<std::string, std::string> values = {
      {"strategy", "\"seed\""},
      {"kkt_tolerance", "0.05"},
      {"min_move_limit", "0.05"},
      {"cutoff", "0.99"},
      {"neighbours", "0"},
      {"regionalisation", "false"},
      {"objacc", "2"},
      {"vioacc", "1"},
      {"errsml", "4"},
      {"errlrg", "30"},
      {"errmax", "60"},
      {"viosml", "2"},
      {"violrg", "8"},
      {"viomax", "20"},
      {"noise", "3"},
      {"beta1", "0.3"},
      {"beta2", "9"},
      {"beta3", "0.2"},
      {"beta4", "0.4"},
      {"beta5", "1.8"},
      {"move_limit", "0.15"},
      {"max_cycles", "3"},
      {"max_failures", "1"},
      {"converge_on_violation_change", "true"},
      {"relaxation_weight", "3"},
      {"subproblem", "\"nlp\""},
      {"nlp_algorithm", "\"mma\""},
      {"approximation", "\"multipoint\""},
      {"form", "\"quadratic\""},
      {"min_curvature", "0.5"},
      {"max_curvature", "2"},
      {"lagrangian_curvature", "false"},
      {"second_order_correction", "false"},
      {"central_differences_on_stall", "false"},
      {"central_differences_to_confirm", "false"},
      {"extend_steps", "0"},
      {"secant_cycles", "0"},
      {"fit", "\"least_squares\""},
      {"alpha", "0.5"},
      {"reuse_radius", "2"},
      {"noise_from_data", "true"},
      {"require_free_move_limits", "true"},
      {"repair_auxiliary", "true"},
      {"metamodel", "\"kriging\""},
      {"infill", "\"expected_improvement\""},
      {"metamodel_points", "9"},
      {"design_tolerance", "2.5"},
  };
  return values;
}

std::vector<std::string> schema_settings_keys() {
  std::ifstream in(std::string(SAO_SOURCE_DIR) + "/docs/study.schema.json");
  const nlohmann::json schema = nlohmann::json::parse(in);
  std::vector<std::string> keys;
  for (const auto& [key, value] : schema.at("$defs").at("settings").at("properties").items()) {
    keys.push_back(key);
  }
  return keys;
}

// One way of giving a value: the study-file edit and the `sao set` assignment of it.
struct Change {
  std::string name;        // test name
  std::string file_edit;   // path=value applied to the study document (apply_override)
  std::string assignment;  // the same for `sao set`
};

std::vector<Change> every_change() {
  std::vector<Change> out;
  for (const auto& [key, value] : changed_values()) {
    // The default move limit of the file is every variable's move limit; `sao set move_limit=m`
    // sets them all for the next cycle.
    out.push_back({key, "settings." + key + "=" + value, key + "=" + value});
  }
  out.push_back(
      {"design_bound_lower", "design_variables.b1.lower=1.5", "design_variables.b1.lower=1.5"});
  out.push_back(
      {"design_bound_upper", "design_variables.b2.upper=3.5", "design_variables.1.upper=3.5"});
  out.push_back(
      {"move_limit_of_one_variable", "design_variables.b2.move_limit=0.1", "move_limit.b2=0.1"});
  // A change of the accuracy with the first-order tolerance that follows it by default.
  out.push_back({"objacc_with_dependent_default", "settings.objacc=5", "objacc=5"});
  out.push_back(
      {"constraint_bound_lower", "constraints.product.lower=4.5", "constraints.0.lower=4.5"});
  out.push_back(
      {"constraint_bound_upper", "constraints.sum.upper=8.5", "constraints.sum.upper=8.5"});
  return out;
}

std::string records_text(const std::vector<CycleRecord>& records, int from_cycle) {
  std::string out;
  for (const CycleRecord& r : records) {
    if (r.cycle < from_cycle) continue;
    out += cycle_record_to_json(r, {"b1", "b2"}).dump() + "\n";
  }
  return out;
}

class SettingsChange : public ::testing::TestWithParam<Change> {
 protected:
  static void SetUpTestSuite() { register_simulator("settings-change-test", &make_curved); }

  fs::path store(const std::string& which) {
    return testing::scratch_directory("test-settings-change", GetParam().name + "-" + which) /
           "study.sqlite";
  }
};

// A fresh run of the study file with the change: the reference.
std::vector<CycleRecord> run_file_with(const Change& c, const fs::path& path,
                                       Options* in_force = nullptr) {
  nlohmann::json document = base_document();
  apply_override(document, c.file_edit);
  StudySession session(path.string(), true);
  session.begin(document, "file", 0);
  session.open();
  session.run();
  if (in_force) *in_force = session.options();
  return session.driver().summary().history;
}

TEST(SettingsChangeKeys, EveryKeyOfTheSchemaHasAChangedValue) {
  for (const std::string& key : schema_settings_keys()) {
    EXPECT_TRUE(changed_values().count(key)) << "settings." << key << " is not tested";
  }
}

// `sao set KEY` before cycle 1 (in the store, then `sao run DIR`) gives the same cycles, bit for
// bit, as a fresh run of a study file with KEY, and the same settings in force.
TEST_P(SettingsChange, BeforeTheFirstCycleAsInTheStudyFile) {
  const Change& c = GetParam();
  Options file_options;
  const std::vector<CycleRecord> reference = run_file_with(c, store("file"), &file_options);
  ASSERT_FALSE(reference.empty());

  const fs::path path = store("set");
  {
    StudySession session(path.string(), true);
    session.begin(base_document(), "file", 0);
    session.open();
    EXPECT_EQ(session.set({c.assignment}), 1);
  }
  StudySession session(path.string(), false);  // as `sao run DIR` after `sao set DIR`
  session.open();
  session.run();
  if (c.name != "move_limit" && c.name != "move_limit_of_one_variable") {
    // (move limits are the driver's factors, not a setting)
    EXPECT_TRUE(session.options() == file_options) << "the settings in force differ";
    EXPECT_TRUE(session.driver().options() == file_options);
  }
  EXPECT_EQ(records_text(session.driver().summary().history, 1), records_text(reference, 1));
}

// `sao set KEY` before cycle 3: the settings in force from then on are those of the study file
// with KEY (the driver's too), and a new process that resumes the stored run after the change
// (`sao set DIR KEY`, then `sao run DIR`) runs the same cycles, bit for bit, as the process that
// made the change and went on.
TEST_P(SettingsChange, BetweenCyclesInForceAndResumedExactly) {
  const Change& c = GetParam();
  Options file_options;
  run_file_with(c, store("file"), &file_options);
  nlohmann::json document = base_document();
  document["settings"]["max_cycles"] = 9;

  // Two cycles, the change; `and_run`: then on in the same process.
  auto two_cycles_then_set = [&](const fs::path& path, bool and_run) -> std::vector<CycleRecord> {
    StudySession session(path.string(), true);
    session.begin(document, "file", 0);
    session.open();
    for (int k = 0; k < 2 && !session.driver().finished(); ++k) session.step();
    if (session.driver().finished()) return {};
    EXPECT_EQ(session.set({c.assignment}), 3);
    if (!and_run) return {};
    session.run();
    return session.driver().summary().history;
  };
  std::vector<CycleRecord> continued;
  try {
    continued = two_cycles_then_set(store("continued"), true);
  } catch (const StudyError& e) {
    // A bound the design of cycle 3 leaves is refused (BoundsBetweenCycles tests it).
    ASSERT_EQ(c.name.rfind("design_bound", 0), 0u) << e.what();
    GTEST_SKIP() << "refused at this design: " << e.what();
  }
  if (continued.empty()) GTEST_SKIP() << "the run ended before cycle 3";

  const fs::path path = store("resumed");
  two_cycles_then_set(path, false);
  StudySession resumed(path.string(), false);
  resumed.open();
  if (c.name.rfind("move_limit", 0) != 0) {  // move limits are factors, not settings
    Options expected = file_options;
    expected.max_cycles = c.name == "max_cycles" ? file_options.max_cycles : 9;
    EXPECT_TRUE(resumed.options() == expected) << "the settings in force differ";
    EXPECT_TRUE(resumed.driver().options() == expected);
  }
  resumed.run();
  EXPECT_EQ(records_text(resumed.driver().summary().history, 1), records_text(continued, 1));
}

// `sao set KEY` before cycle 3 runs exactly what `sao restart DIR --from-cycle 2 --study FILE`
// runs with KEY written in FILE: the cycle records from cycle 3 on are the same, bit for bit
// (a restart whose study differs only in what `sao set` changes continues the run).
TEST_P(SettingsChange, BeforeCycleKAsARestartFromKMinusOneWithTheFile) {
  const Change& c = GetParam();
  nlohmann::json document = base_document();
  document["settings"]["max_cycles"] = 9;
  std::vector<CycleRecord> set_records;
  {
    StudySession session(store("set-then-run").string(), true);
    session.begin(document, "file", 0);
    session.open();
    for (int k = 0; k < 2 && !session.driver().finished(); ++k) session.step();
    if (session.driver().finished()) GTEST_SKIP() << "the run ended before cycle 3";
    try {
      session.set({c.assignment});
    } catch (const StudyError& e) {
      ASSERT_EQ(c.name.rfind("design_bound", 0), 0u) << e.what();
      GTEST_SKIP() << "refused at this design: " << e.what();
    }
    session.run();
    set_records = session.driver().summary().history;
  }
  const fs::path path = store("restart");
  {
    StudySession session(path.string(), true);
    session.begin(document, "file", 0);
    session.open();
    for (int k = 0; k < 2; ++k) session.step();
    nlohmann::json changed = document;
    apply_override(changed, c.file_edit);
    session.restart(2, changed, "changed-file");
  }
  StudySession restarted(path.string(), false);  // `sao run DIR` on the new branch
  restarted.open();
  EXPECT_EQ(restarted.branch(), 2);
  EXPECT_EQ(restarted.next_cycle(), 3);
  restarted.run();
  const std::string expected = records_text(set_records, 3);
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(records_text(restarted.driver().summary().history, 3), expected);
  EXPECT_EQ(records_text(restarted.lineage(2), 3), expected);
}

INSTANTIATE_TEST_SUITE_P(EveryKey, SettingsChange, ::testing::ValuesIn(every_change()),
                         [](const ::testing::TestParamInfo<Change>& info) {
                           return info.param.name;
                         });

// Bounds changed between cycles are checked against the design the next cycle starts from, not
// against alternative starts the run does not use.
class BoundsBetweenCycles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { register_simulator("settings-change-test", &make_curved); }
};

TEST_F(BoundsBetweenCycles, AlternativeStartsOutsideDoNotRefuseTheChange) {
  const fs::path path = testing::scratch_directory("test-settings-change", "starts") / "s.sqlite";
  StudySession session(path.string(), true);
  session.begin(base_document(), "file", 0);
  session.open();
  session.step();
  const Eigen::VectorXd b = session.driver().next_start();
  // starts[0] has b1 = 5.5: an upper bound below it (above the current design) is accepted.
  ASSERT_LT(b(0), 5.0);
  EXPECT_NO_THROW(session.set({"design_variables.b1.upper=5.0"}));
  session.step();
  for (const CycleRecord& r : session.driver().summary().history) {
    if (r.cycle >= 2 && r.x_opt.size() > 0) {
      EXPECT_LE(r.x_opt(0), 5.0);
    }
  }
}

TEST_F(BoundsBetweenCycles, RefusedOnlyWhenTheNextStartDesignLeavesThem) {
  const fs::path path = testing::scratch_directory("test-settings-change", "refused") / "s.sqlite";
  StudySession session(path.string(), true);
  session.begin(base_document(), "file", 0);
  session.open();
  // Before the first cycle the next start is the initial design (b1 = 4).
  try {
    session.set({"design_variables.b1.upper=3.5"});
    FAIL() << "a bound that excludes the start design was accepted";
  } catch (const StudyError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("b1 = 4"), std::string::npos) << message;
    EXPECT_NE(message.find("design_variables.b1"), std::string::npos) << message;
  }
  EXPECT_NO_THROW(session.set({"design_variables.b1.upper=4.5"}));
}

// A restart from cycle K of an unchanged study continues the run: its cycles are the parent's
// cycles from K + 1 on, bit for bit, without a simulator run.
TEST_F(BoundsBetweenCycles, ARestartOfTheSameStudyContinuesTheRunExactly) {
  const fs::path path = testing::scratch_directory("test-settings-change", "same") / "s.sqlite";
  nlohmann::json document = base_document();
  document["settings"]["max_cycles"] = 9;
  std::vector<CycleRecord> parent;
  {
    StudySession session(path.string(), true);
    session.begin(document, "file", 0);
    session.open();
    session.run();
    parent = session.driver().summary().history;
    ASSERT_GE(parent.size(), 4u);
    session.restart(2, std::nullopt, "");
  }
  StudySession restarted(path.string(), false);
  restarted.open();
  const RunSummary& s = restarted.run();
  EXPECT_EQ(records_text(s.history, 3), records_text(parent, 3));
  EXPECT_EQ(s.simulator_runs, 0);
}

// A change for a run that has ended would apply to no cycle: refused, naming the restart that
// continues the run; that restart takes it and goes on from the design the run ended at.
TEST_F(BoundsBetweenCycles, AChangeAfterTheEndIsRefusedAndARestartGoesOn) {
  const fs::path path = testing::scratch_directory("test-settings-change", "ended") / "s.sqlite";
  int last = 0;
  {
    StudySession session(path.string(), true);
    session.begin(base_document(), "file", 0);
    session.open(30);
    const RunSummary& s = session.run();
    ASSERT_EQ(s.status, RunStatus::kConverged) << s.message;
    last = s.history.back().cycle;
    try {
      session.set({"objacc=0.001"});
      FAIL() << "a change after the run converged was stored";
    } catch (const StudyError& e) {
      EXPECT_NE(std::string(e.what()).find("sao restart DIR --from-cycle " + std::to_string(last)),
                std::string::npos)
          << e.what();
    }
    session.restart(last, std::nullopt, "");
  }
  StudySession continued(path.string(), false);
  continued.open(30);
  EXPECT_FALSE(continued.driver().finished());
  EXPECT_EQ(continued.next_cycle(), last + 1);
  EXPECT_EQ(continued.set({"objacc=0.001", "vioacc=0.001"}), last + 1);
  const RunSummary& s = continued.run();
  ASSERT_GT(s.history.back().cycle, last);
  EXPECT_EQ(s.history[last].x0, design_after(s.history[last - 1]));  // from where it ended
}

// KEY=null removes a setting: the default (and the defaults that follow from other keys) apply
// again, as in a study file without the key, and a restart with such a file continues the run
// with the same change.
TEST_F(BoundsBetweenCycles, NullRemovesASettingAsAFileWithoutIt) {
  nlohmann::json with_key = base_document();
  with_key["settings"]["max_cycles"] = 9;
  with_key["settings"]["objacc"] = 5;
  nlohmann::json without = with_key;
  without["settings"].erase("objacc");
  const fs::path folder = testing::scratch_directory("test-settings-change", "null");
  std::vector<CycleRecord> set_records;
  {
    StudySession session((folder / "set.sqlite").string(), true);
    session.begin(with_key, "file", 0);
    session.open();
    session.step();
    EXPECT_EQ(session.set({"objacc=null"}), 2);
    session.run();
    EXPECT_FALSE(session.settings_in_force().contains("objacc"));
    EXPECT_TRUE(session.options() == load_study(without, "file").options);
    set_records = session.driver().summary().history;
  }
  {
    StudySession session((folder / "restart.sqlite").string(), true);
    session.begin(with_key, "file", 0);
    session.open();
    session.step();
    session.restart(1, without, "without");
  }
  StudySession restarted((folder / "restart.sqlite").string(), false);
  restarted.open();
  restarted.run();
  EXPECT_EQ(records_text(restarted.driver().summary().history, 2), records_text(set_records, 2));
  // A key the study does not have cannot be removed.
  EXPECT_THROW(restarted.set({"errmax=null"}), StudyError);
}

// A restart whose study changes more than `sao set` can (here a constraint's bound added) is a
// reformulation: a driver of its own, started at the design after cycle K.
TEST_F(BoundsBetweenCycles, AReformulationStartsAtTheDesignAfterK) {
  const fs::path path = testing::scratch_directory("test-settings-change", "reform") / "s.sqlite";
  nlohmann::json document = base_document();
  document["settings"]["max_cycles"] = 6;
  Eigen::VectorXd after_two;
  {
    StudySession session(path.string(), true);
    session.begin(document, "file", 0);
    session.open();
    session.step();
    after_two = design_after(session.step());
    nlohmann::json changed = document;
    changed["constraints"][1]["lower"] = 1.0;  // a bound the constraint did not have
    session.restart(2, changed, "reformulated");
  }
  StudySession restarted(path.string(), false);
  restarted.open();
  // A bound the constraint does not have is refused by `sao set` too; one it has is taken.
  EXPECT_THROW(restarted.set({"constraints.product.upper=20"}), StudyError);
  EXPECT_NO_THROW(restarted.set({"constraints.sum.lower=1.5"}));
  restarted.step();
  const std::vector<CycleRecord>& h = restarted.driver().summary().history;
  ASSERT_EQ(h.size(), 1u);  // its own driver: the parent's cycles are not replayed
  EXPECT_EQ(h[0].cycle, 3);
  EXPECT_EQ(h[0].x0.head(2), after_two.head(2));
}

}  // namespace
}  // namespace sao
