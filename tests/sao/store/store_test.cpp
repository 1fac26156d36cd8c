#include "sao/store/store.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "sao/study/study_loader.hpp"
#include "tests/sao/fake_simulator.hpp"
#include "tests/support.hpp"

namespace sao {
namespace {

namespace fs = std::filesystem;
using testing::FakeSimulator;

// A fresh, empty folder for one test.
fs::path scratch(const std::string& name) {
  return testing::scratch_directory("test-store", name);
}

bool bitwise_equal(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) == 0;
}

nlohmann::json product_document() {
  auto variable = [](const std::string& name) {
    return nlohmann::json{
        {"name", name}, {"lower", 0.1}, {"upper", 10}, {"initial", 1}, {"move_limit", 0.4}};
  };
  return {{"design_variables", {variable("b1"), variable("b2")}},
          {"load_cases", {{{"name", "only"}}}},
          {"responses", {{{"name", "r"}, {"kind", "scalar"}}}},
          {"objective", {{"minimize", "b1 + b2"}}},
          {"constraints", {{{"of", {{"response", "r"}}}, {"lower", 4.0}}}},
          {"settings", {{"objacc", 1e-4}, {"vioacc", 1e-4}, {"strategy", "seed"}}},
          {"simulator", {{"type", "fake"}}}};
}

FakeSimulator product_simulator() {
  return FakeSimulator(
      {{"r", [](const Eigen::VectorXd& b) { return b(0) * b(1); },
        [](const Eigen::VectorXd& b) { return Eigen::Vector2d(b(1), b(0)).eval(); }}});
}

Evaluation sample_evaluation() {
  Evaluation e;
  e.has_gradients = true;
  e.cost = {0.125, 3};
  e.cases.resize(2);
  e.cases[0].scalars["mass"] = 0.1 + 0.2;  // not a short decimal
  e.cases[0].histories["y"] = Eigen::Vector3d(1.0 / 3.0, -0.0, 1e-310);
  Eigen::MatrixXd g(3, 2);
  g << 1.0 / 7.0, 2, std::numeric_limits<double>::quiet_NaN(), 4, 5, -6e300;
  e.cases[0].gradients["y"] = g;
  e.cases[1].scalars["mass"] = std::nextafter(1.0, 2.0);
  return e;
}

TEST(StudyStore, EvaluationEncodingIsExactIncludingNaNRows) {
  const Evaluation e = sample_evaluation();
  const Evaluation d = decode_evaluation(encode_evaluation(e));
  ASSERT_EQ(d.cases.size(), 2u);
  EXPECT_TRUE(d.has_gradients);
  EXPECT_EQ(d.cost.runs, 3);
  EXPECT_EQ(d.cost.wall_seconds, 0.125);
  EXPECT_EQ(d.cases[0].scalars.at("mass"), 0.1 + 0.2);
  EXPECT_TRUE(bitwise_equal(d.cases[0].histories.at("y"), e.cases[0].histories.at("y")));
  EXPECT_TRUE(bitwise_equal(d.cases[0].gradients.at("y"), e.cases[0].gradients.at("y")));
  EXPECT_TRUE(std::isnan(d.cases[0].gradients.at("y")(1, 0)));
  EXPECT_EQ(d.cases[1].scalars.at("mass"), std::nextafter(1.0, 2.0));
  std::string truncated = encode_evaluation(e);
  truncated.pop_back();
  EXPECT_THROW(decode_evaluation(truncated), StoreError);
}

// Each case's gradient method (issue 22) and difference step are kept; an analysis stored
// before them (the cases, or the methods, end the record) reads with none.
TEST(StudyStore, EvaluationEncodingKeepsTheGradientMethodAndStep) {
  Evaluation e = sample_evaluation();
  e.cases[0].gradient_method = kForwardDifferences;
  e.cases[0].difference_step = 1e-3;
  const Evaluation d = decode_evaluation(encode_evaluation(e));
  EXPECT_EQ(d.cases[0].gradient_method, "forward differences");
  EXPECT_EQ(d.cases[0].difference_step, 1e-3);
  EXPECT_EQ(d.cases[1].gradient_method, "");
  EXPECT_EQ(d.cases[1].difference_step, 0.0);
  std::string without_steps = encode_evaluation(e);
  without_steps.resize(without_steps.size() - 2 * sizeof(double));  // the two steps
  const Evaluation methods_only = decode_evaluation(without_steps);
  EXPECT_EQ(methods_only.cases[0].gradient_method, "forward differences");
  EXPECT_EQ(methods_only.cases[0].difference_step, 0.0);
  e.cases[0].gradient_method.clear();
  std::string old = encode_evaluation(e);
  old.resize(old.size() - 2 * sizeof(double) - 2 * sizeof(uint32_t));  // steps, empty names
  const Evaluation before = decode_evaluation(old);
  ASSERT_EQ(before.cases.size(), 2u);
  EXPECT_EQ(before.cases[0].gradient_method, "");
  EXPECT_EQ(before.cases[0].difference_step, 0.0);
  EXPECT_EQ(before.cases[0].scalars.at("mass"), 0.1 + 0.2);
}

TEST(StudyStore, LookupNeedsTheSameDesignBitsAndSimulatorInputs) {
  const fs::path dir = scratch("lookup");
  StudyStore store((dir / "study.sqlite").string(), true);
  store.use_inputs("aaaa");
  const Eigen::Vector2d b(0.1, 0.7);
  Evaluation values = sample_evaluation();
  values.has_gradients = false;
  values.cases[0].gradients.clear();
  store.save(b, {}, values);
  Evaluation failed;
  failed.ok = false;
  failed.message = "diverged";
  const Eigen::Vector2d c(0.2, 0.7);
  store.save(c, {}, failed);

  ASSERT_EQ(store.lookup(b, false).size(), 1u);
  EXPECT_EQ(store.lookup(b, false)[0].cases[0].scalars.at("mass"), 0.1 + 0.2);
  EXPECT_TRUE(store.lookup(b, true).empty());  // no sensitivities stored
  EXPECT_TRUE(store.lookup(Eigen::Vector2d(std::nextafter(0.1, 1.0), 0.7), false).empty());
  EXPECT_TRUE(store.lookup(c, false).empty());  // failed analyses are recorded, not reused
  store.save(b, {{0, "y", {0, 2}}}, sample_evaluation());
  EXPECT_EQ(store.lookup(b, true).size(), 1u);
  EXPECT_EQ(store.lookup(b, false).size(), 2u);
  EXPECT_FALSE(store.lookup(b, false)[0].has_gradients);  // values-only analyses first
  store.use_inputs("bbbb");
  EXPECT_TRUE(store.lookup(b, false).empty());
  EXPECT_EQ(store.analysis_count(), 3);
  EXPECT_EQ(store.simulator_runs(), 3 + 0 + 3);
}

TEST(StudyStore, SimulatorInputsHashIgnoresBoundsButNotTheSimulator) {
  const LoadedStudy base = load_study(product_document());
  nlohmann::json changed_bound = product_document();
  changed_bound["constraints"][0]["lower"] = 5.0;
  changed_bound["design_variables"][0]["upper"] = 5.0;
  nlohmann::json changed_simulator = product_document();
  changed_simulator["simulator"]["note"] = 1;
  nlohmann::json renamed = product_document();
  renamed["design_variables"][1]["name"] = "c2";
  renamed["objective"]["minimize"] = "b1 + c2";
  EXPECT_EQ(simulator_inputs_hash(base), simulator_inputs_hash(load_study(changed_bound)));
  EXPECT_NE(simulator_inputs_hash(base), simulator_inputs_hash(load_study(changed_simulator)));
  EXPECT_NE(simulator_inputs_hash(base), simulator_inputs_hash(load_study(renamed)));
  EXPECT_NE(simulator_inputs_hash(base), simulator_inputs_hash(base, "template:input.txt"));
  EXPECT_EQ(simulator_inputs_hash(base, "a"), simulator_inputs_hash(base, "a"));
}

TEST(StudyStore, ForeignFilesAreRefusedAndLeftUntouched) {
  const fs::path dir = scratch("foreign");
  // A text file.
  const fs::path text = dir / "notes.txt";
  std::ofstream(text) << "not a database\n";
  const std::string text_before = testing::read_file(text);
  EXPECT_THROW(StudyStore(text.string(), true), StoreError);
  EXPECT_EQ(testing::read_file(text), text_before);

  // Another program's SQLite database.
  const fs::path other = dir / "other.sqlite";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(other.string().c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "CREATE TABLE t (x); INSERT INTO t VALUES (1);", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  const std::string other_before = testing::read_file(other);
  try {
    StudyStore store(other.string(), true);
    FAIL() << "a foreign database was accepted";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("not a study store"), std::string::npos) << e.what();
  }
  EXPECT_EQ(testing::read_file(other), other_before);

  // A study store whose pages were overwritten.
  const fs::path broken = dir / "broken.sqlite";
  {
    StudyStore store(broken.string(), true);
    store.use_inputs("x");
    for (int i = 0; i < 200; ++i) store.save(Eigen::Vector2d(i, 1), {}, sample_evaluation());
  }
  ASSERT_GT(fs::file_size(broken), 8192u);
  {
    std::fstream f(broken, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(4096);
    const std::string garbage(4096, '\x5a');
    f.write(garbage.data(), garbage.size());
  }
  const std::string broken_before = testing::read_file(broken);
  EXPECT_THROW(StudyStore(broken.string(), false), StoreError);
  EXPECT_EQ(testing::read_file(broken), broken_before);
}

TEST(StudyStore, SecondDriverOnTheStoreRunsNoSimulationAndRepeatsTheHistory) {
  const fs::path dir = scratch("driver");
  const LoadedStudy study = load_study(product_document());
  StudyStore store((dir / "study.sqlite").string(), true);
  store.use_inputs(simulator_inputs_hash(study));

  FakeSimulator first_sim = product_simulator();
  Driver first(study, first_sim, study.options);
  first.set_store(&store);
  const RunSummary a = first.run();
  ASSERT_EQ(a.status, RunStatus::kConverged) << a.message;
  EXPECT_GT(first_sim.calls, 0);
  EXPECT_EQ(store.analysis_count(), first_sim.calls);

  FakeSimulator second_sim = product_simulator();
  Driver second(study, second_sim, study.options);
  second.set_store(&store);
  const RunSummary b = second.run();
  EXPECT_EQ(second_sim.calls, 0);
  EXPECT_EQ(b.simulator_runs, 0);
  EXPECT_EQ(b.reused_analyses, first_sim.calls);
  ASSERT_EQ(b.history.size(), a.history.size());
  for (size_t k = 0; k < a.history.size(); ++k) {
    EXPECT_TRUE(bitwise_equal(a.history[k].x_opt, b.history[k].x_opt)) << "cycle " << k + 1;
    EXPECT_EQ(a.history[k].analyses, b.history[k].analyses);
  }
  EXPECT_TRUE(bitwise_equal(a.x, b.x));
  EXPECT_EQ(a.sensitivity_analyses, b.sensitivity_analyses);

  // The same design under other simulator inputs is analysed again.
  store.use_inputs("other");
  FakeSimulator third_sim = product_simulator();
  Driver third(study, third_sim, study.options);
  third.set_store(&store);
  third.run();
  EXPECT_EQ(third_sim.calls, first_sim.calls);
}

TEST(StudyStore, BranchesSettingsAndCyclesPersist) {
  const fs::path dir = scratch("branches");
  const std::string path = (dir / "study.sqlite").string();
  {
    StudyStore store(path, true);
    EXPECT_EQ(store.current_branch(), 0);
    const int s = store.add_study(product_document(), "product.json", 0);
    const int root = store.add_branch(0, 0, s);
    CycleRecord r;
    r.cycle = 1;
    r.x0 = Eigen::Vector2d(1, 1);
    r.x_opt = Eigen::Vector2d(1.4, 1.4);
    r.factors = r.next_factors = Eigen::Vector2d(0.4, 0.4);
    store.save_cycle(root, r, {"a", "b"}, {{"settings", {{"cutoff", 0.5}}}});
    store.add_setting_changes(root, 2, {"move_limit=0.1", "cutoff=0.6"});
    store.add_branch(root, 1, s);
  }
  StudyStore store(path, false);
  EXPECT_EQ(store.current_branch(), 2);
  const BranchInfo b = store.branch(2);
  EXPECT_EQ(b.parent, 1);
  EXPECT_EQ(b.from_cycle, 1);
  EXPECT_EQ(store.study(b.study).document, product_document());
  ASSERT_EQ(store.cycles(1).size(), 1u);
  EXPECT_EQ(store.cycles(1)[0].settings["settings"]["cutoff"], 0.5);
  EXPECT_EQ(store.cycles(1)[0].record.x_opt, Eigen::Vector2d(1.4, 1.4));
  const auto changes = store.setting_changes(1);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].cycle, 2);
  EXPECT_EQ(changes[1].assignment, "cutoff=0.6");
  EXPECT_THROW(StudyStore((dir / "missing.sqlite").string(), false), StoreError);
}

TEST(StudyStore, VersionOneStoresAreReadAndMarkedVersionFourWithChecksums) {
  // A store written by sao 0.1: meta version 1, cycle rows in that version's record form.
  const fs::path dir = scratch("version-1");
  const std::string path = (dir / "study.sqlite").string();
  int root = 0;
  {
    StudyStore store(path, true);
    const int s = store.add_study(product_document(), "product.json", 0);
    root = store.add_branch(0, 0, s);
  }
  const std::string v1 =
      R"({"cycle":1,"accepted":true,"converged":false,"relaxed":false,"subproblem":"optimal",)"
      R"("active_move_limits":2,"retained_constraints":1,"retained_rows":3,"x0":[1.0,1.0],)"
      R"("x_opt":[1.4,"nan"],"F0":1.0,"F_opt":1.96,"F_approx":1.9,"Ef":3.1,"Eg":0.5,"E":3.1,)"
      R"("V":"-inf","Fchg":96.0,"factors":[0.4,0.4],"next_factors":[0.4,0.2],"actions":[1,2],)"
      R"("analyses":2,"fit_points":0,"noise_estimate":-1.0,"message":"old"})";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  // Version 1 had no checksum columns.
  const std::string sql =
      "UPDATE meta SET value = '1' WHERE key = 'version'; DELETE FROM meta WHERE key = 'checksum';"
      "DELETE FROM meta WHERE key LIKE 'rows.%';"
      "ALTER TABLE analyses DROP COLUMN checksum; ALTER TABLE cycles DROP COLUMN checksum;"
      "ALTER TABLE studies DROP COLUMN checksum; ALTER TABLE branches DROP COLUMN checksum;"
      "ALTER TABLE settings_changes DROP COLUMN checksum; DROP TABLE jobs;"
      "INSERT INTO cycles (branch, cycle, record, settings, created) VALUES (" +
      std::to_string(root) + ", 1, '" + v1 + "', '{}', 'then');";
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);

  {
    // Read only: read as it is, nothing changed, the unchecked rows counted.
    const std::string bytes = testing::read_file(path);
    StudyStore reader(path, StoreAccess::kReadOnly);
    EXPECT_EQ(reader.unchecked_rows(), 3);  // the cycle, the study and the branch
    EXPECT_EQ(reader.cycles(root).size(), 1u);
    EXPECT_TRUE(reader.verify().empty());
    EXPECT_EQ(testing::read_file(path), bytes);
  }
  StudyStore store(path, false);
  EXPECT_EQ(store.unchecked_rows(), 3);  // checksums added to them now
  EXPECT_TRUE(store.verify().empty());
  const auto cycles = store.cycles(root);
  ASSERT_EQ(cycles.size(), 1u);
  const CycleRecord& r = cycles[0].record;
  EXPECT_EQ(r.cycle, 1);
  EXPECT_TRUE(r.accepted);
  EXPECT_EQ(r.retained_rows, 3);
  EXPECT_EQ(r.x_opt(0), 1.4);
  EXPECT_TRUE(std::isnan(r.x_opt(1)));
  EXPECT_EQ(r.V, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(r.next_factors, Eigen::Vector2d(0.4, 0.2));
  ASSERT_EQ(r.actions.size(), 2u);
  EXPECT_EQ(r.message, "old");
  // New rows go in the current form next to the old one, and the store says so.
  CycleRecord next = r;
  next.cycle = 2;
  store.save_cycle(root, next, {"a", "b"}, nlohmann::json::object());
  EXPECT_EQ(store.cycles(root).size(), 2u);
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  std::string version;
  sqlite3_exec(
      db, "SELECT value FROM meta WHERE key = 'version'",
      [](void* out, int, char** values, char**) {
        *static_cast<std::string*>(out) = values[0];
        return 0;
      },
      &version, nullptr);
  sqlite3_close(db);
  EXPECT_EQ(version, "5");
  // Its old row has a checksum now: altering it is noticed.
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "UPDATE cycles SET record = replace(record, 'old', 'new') WHERE cycle = 1",
               nullptr, nullptr, nullptr);
  sqlite3_close(db);
  ASSERT_EQ(store.verify().size(), 1u);
  EXPECT_EQ(store.verify()[0].reason, "checksum mismatch");
  EXPECT_EQ(store.cycles(root).size(), 1u);  // only cycle 2 left
  // So has its study: altered, the store is refused.
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "UPDATE studies SET source = 'other.json'", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  EXPECT_THROW(StudyStore(path, StoreAccess::kReadOnly), StoreError);
}

TEST(StudyStore, NewerVersionsAreRefusedUntouched) {
  const fs::path dir = scratch("version-9");
  const std::string path = (dir / "study.sqlite").string();
  { StudyStore store(path, true); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "UPDATE meta SET value = '9' WHERE key = 'version'", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  try {
    StudyStore store(path, false);
    FAIL() << "expected a StoreError";
  } catch (const StoreError& e) {
    EXPECT_NE(
        std::string(e.what()).find("format version 9 (table meta), this program reads 1 to 5"),
        std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sao
