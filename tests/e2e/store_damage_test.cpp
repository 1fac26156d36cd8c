// A study store damaged on disk (issue 18): analyses and cycle records altered, truncated and
// deleted with SQLite, then the run resumed with the built `sao`. Every damaged record is named,
// nothing damaged is trusted, the resumed run ends at the uninterrupted run's design, and a
// resume that fails leaves the converged result.json and history.csv as they were.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sao/store/store.hpp"
#include "sao/store/store_records.hpp"
#include "tests/e2e/store_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace sao::testing;  // query(), execute(), kProblems, ...
using sao::testing::sao;       // the function, before the namespace sao
using Output = CommandOutput;

const std::string kStudy = kProblems + "impact-absorber/max-acceleration.json";

// A converged run of the study in DIR (its store, result.json and history.csv).
void converged_run(const fs::path& dir, const std::string& study = kStudy) {
  const Output run = sao("run " + study + " -q --out " + dir.string());
  ASSERT_EQ(run.code, 0) << run.text;
}

// Rewrites the checksum of row `id` of `table` as the store computes it (SHA-256 of the table's
// name and `columns`): a store altered by someone who forged the checksum too.
void forge_checksum(const fs::path& store, const std::string& table, const std::string& columns,
                    int id) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(store.string().c_str(), &db), SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  const std::string sql =
      "SELECT " + columns + " FROM " + table + " WHERE rowid = " + std::to_string(id);
  ASSERT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &q, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(q), SQLITE_ROW);
  std::vector<std::string> values{table};
  for (int c = 0; c < sqlite3_column_count(q); ++c) {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(q, c));
    values.emplace_back(p ? p : "", static_cast<size_t>(sqlite3_column_bytes(q, c)));
  }
  sqlite3_finalize(q);
  sqlite3_close(db);
  execute(store, "UPDATE " + table + " SET checksum = '" +
                     sao::record_checksum({values.begin(), values.end()}) +
                     "' WHERE rowid = " + std::to_string(id));
  // The table's row list in meta, and meta's own checksum, forged the same way.
  auto column = [&](const std::string& select) {
    std::vector<std::string> out;
    sqlite3* handle = nullptr;
    sqlite3_open(store.string().c_str(), &handle);
    sqlite3_stmt* rows = nullptr;
    sqlite3_prepare_v2(handle, select.c_str(), -1, &rows, nullptr);
    while (sqlite3_step(rows) == SQLITE_ROW) {
      for (int c = 0; c < sqlite3_column_count(rows); ++c) {
        const auto* text = sqlite3_column_text(rows, c);
        out.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
      }
    }
    sqlite3_finalize(rows);
    sqlite3_close(handle);
    return out;
  };
  std::vector<std::string> list{"rows." + table};
  for (std::string& v : column("SELECT rowid, checksum FROM " + table + " ORDER BY rowid")) {
    list.push_back(std::move(v));
  }
  execute(store, "UPDATE meta SET value = '" + sao::record_checksum({list.begin(), list.end()}) +
                     "' WHERE key = 'rows." + table + "'");
  std::vector<std::string> meta{"meta"};
  for (std::string& v :
       column("SELECT key, value FROM meta WHERE key != 'checksum' ORDER BY key")) {
    meta.push_back(std::move(v));
  }
  execute(store, "UPDATE meta SET value = '" + sao::record_checksum({meta.begin(), meta.end()}) +
                     "' WHERE key = 'checksum'");
}

// result.json without the fields that measure time (as scripts/compare-results compares).
nlohmann::json without_timings(const nlohmann::json& node) {
  if (node.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : node) out.push_back(without_timings(v));
    return out;
  }
  if (!node.is_object()) return node;
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : node.items()) {
    bool timing = false;
    for (const char* word : {"seconds", "wall", "elapsed", "time_"}) {
      timing = timing || key.find(word) != std::string::npos;
    }
    if (!timing) out[key] = without_timings(value);
  }
  return out;
}

TEST(StoreDamage, AlteredTruncatedAndDeletedRecordsAreNamedAndTheRunEndsAtTheSameDesign) {
  const fs::path dir = scratch_directory("test-store-damage");
  converged_run(dir / "reference");
  converged_run(dir / "damaged");
  const fs::path store = dir / "damaged" / "study.sqlite";
  const int cycles = query(store, "SELECT COUNT(*) FROM cycles");
  const int analyses = query(store, "SELECT COUNT(*) FROM analyses");
  ASSERT_GE(cycles, 4);
  ASSERT_GE(analyses, 6);
  // Analyses: one value altered (a byte in the middle of the result, still decodable), one
  // truncated, one deleted. Cycle records: one altered, one truncated, the last one deleted.
  execute(store,
          "UPDATE analyses SET result = substr(result, 1, 40) || X'7F' || substr(result, 42) "
          "WHERE id = 2;"
          "UPDATE analyses SET result = substr(result, 1, 10) WHERE id = 3;"
          "DELETE FROM analyses WHERE id = 4;"
          "UPDATE cycles SET record = json_set(record, '$.record.b_opt.b1', 0.123) "
          "WHERE cycle = 2;"
          "UPDATE cycles SET record = substr(record, 1, 30) WHERE cycle = 3;"
          "DELETE FROM cycles WHERE cycle = (SELECT MAX(cycle) FROM cycles);");

  const Output status = sao("status " + (dir / "damaged").string());
  EXPECT_EQ(status.code, 0) << status.text;
  EXPECT_TRUE(contains(status.text, "damaged    analyses row 2, design [")) << status.text;
  EXPECT_TRUE(contains(status.text, "analyses row 3, design [")) << status.text;
  EXPECT_TRUE(contains(status.text, "cycles row 2 of branch 1")) << status.text;
  EXPECT_TRUE(contains(status.text, "cycles row 3 of branch 1")) << status.text;

  const Output resumed = sao("run " + (dir / "damaged").string());
  ASSERT_EQ(resumed.code, 0) << resumed.text;
  // Every case named: the two damaged analyses by row and design, the deleted one by design
  // when the replay needs it, the damaged cycle records by row, the deleted last one.
  EXPECT_TRUE(contains(resumed.text, "analyses row 2 (design b1=")) << resumed.text;
  EXPECT_TRUE(contains(resumed.text, "analyses row 3 (design b1=")) << resumed.text;
  EXPECT_TRUE(contains(resumed.text,
                       "is not in the store (deleted or damaged record): analysed "
                       "again"))
      << resumed.text;
  EXPECT_TRUE(contains(resumed.text, "cycles row of branch 1, cycle 2")) << resumed.text;
  EXPECT_TRUE(contains(resumed.text, "cycles row of branch 1, cycle 3")) << resumed.text;
  EXPECT_TRUE(contains(resumed.text, "the record of cycle 2 of branch 1 is missing"))
      << resumed.text;
  // Nothing altered was trusted: the resumed run ends at the uninterrupted run's design, with
  // the same cycles, and the store holds every cycle again with valid checksums.
  const nlohmann::json a = read_json(dir / "reference" / "result.json");
  const nlohmann::json b = read_json(dir / "damaged" / "result.json");
  EXPECT_EQ(b["status"], "converged");
  EXPECT_EQ(b["cycles"], a["cycles"]);
  EXPECT_EQ(b["objective"].get<double>(), a["objective"].get<double>());
  for (const auto& [name, value] : a["design"].items()) {
    EXPECT_EQ(b["design"][name].get<double>(), value.get<double>()) << name;
  }
  EXPECT_EQ(b["history"], a["history"]);
  EXPECT_EQ(query(store, "SELECT COUNT(*) FROM cycles"), cycles);
  EXPECT_EQ(query(store, "SELECT COUNT(*) FROM analyses WHERE checksum = ''"), 0);
  // The damaged rows were replaced by new analyses, no design analysed twice.
  EXPECT_LE(query(store, "SELECT COUNT(*) FROM analyses"), analyses);
  EXPECT_EQ(query(store,
                  "SELECT COUNT(*) FROM (SELECT 1 FROM analyses GROUP BY inputs_hash, design, "
                  "derivatives HAVING COUNT(*) > 1)"),
            0);
  // A second resume finds nothing to name and runs nothing.
  const Output again = sao("run " + (dir / "damaged").string());
  EXPECT_EQ(again.code, 0);
  EXPECT_FALSE(contains(again.text, "[warning]")) << again.text;
  EXPECT_TRUE(contains(again.text, "0 simulator runs")) << again.text;
}

TEST(StoreDamage, AFailingResumeLeavesTheConvergedResultsAsTheyWere) {
  const fs::path dir = scratch_directory("test-store-damage");
  converged_run(dir / "x");
  const fs::path store = dir / "x" / "study.sqlite";
  const std::string result = read_file(dir / "x" / "result.json");
  const std::string history = read_file(dir / "x" / "history.csv");
  // A stored settings change the replay cannot apply (stored through the library, so with
  // its checksum): the resume fails in the third cycle, after two cycles were replayed (they
  // used to be written over the converged results).
  {
    sao::StudyStore writer(store.string(), sao::StoreAccess::kReadWrite);
    writer.add_setting_changes(1, 3, {"move_limit=not-a-number"});
  }
  const Output resumed = sao("run " + (dir / "x").string());
  EXPECT_NE(resumed.code, 0) << resumed.text;
  EXPECT_TRUE(contains(resumed.text, "error: ")) << resumed.text;
  EXPECT_EQ(read_file(dir / "x" / "result.json"), result);
  EXPECT_EQ(read_file(dir / "x" / "history.csv"), history);
  // No temporary file left beside them.
  for (const auto& entry : fs::directory_iterator(dir / "x")) {
    EXPECT_NE(entry.path().filename().string().front(), '.') << entry.path();
  }
}

// A branch whose parent is itself or a later branch (found by fuzzing: the commands that walk a
// branch's ancestors recursed until the stack overflowed): every command says the store is
// corrupted, exit code 2, and changes nothing.
TEST(StoreDamage, ABranchThatIsItsOwnAncestorIsACorruptedStoreForEveryCommand) {
  const fs::path dir = scratch_directory("test-store-damage");
  converged_run(dir / "x");
  const fs::path store = dir / "x" / "study.sqlite";
  const std::string result = read_file(dir / "x" / "result.json");
  const int cycles = query(store, "SELECT COUNT(*) FROM cycles");
  execute(store, "UPDATE branches SET parent = 1 WHERE id = 1");
  // Without a matching checksum the store is refused for that (StoreSealed, StoreTamper); with a
  // forged one, the branch check still holds.
  forge_checksum(store, "branches", "id, parent, from_cycle, study, status, message, created", 1);
  for (const std::string command : {"status X", "report X", "step X", "restart X --from-cycle 1",
                                    "set X cutoff=0.5", "run X", "export X"}) {
    const std::string args = command.substr(0, command.find('X')) + (dir / "x").string() +
                             command.substr(command.find('X') + 1);
    const Output out = sao(args);
    EXPECT_EQ(out.code, 2) << args << "\n" << out.text;
    EXPECT_TRUE(contains(out.text,
                         "study store is corrupted (branch 1 names branch 1 as its "
                         "parent, not an earlier branch)"))
        << args << "\n"
        << out.text;
  }
  EXPECT_EQ(query(store, "SELECT COUNT(*) FROM cycles"), cycles);
  EXPECT_EQ(query(store, "SELECT COUNT(*) FROM branches"), 1);
  EXPECT_EQ(read_file(dir / "x" / "result.json"), result);
}

// A damaged analysis is analysed again with the request the original made (values only for a
// values-only row: the values of an analysis with direct sensitivities differ in the last
// digits), so the resumed run's result.json is the uninterrupted run's, bit for bit: timings
// aside, and the simulator runs of the process (the resume ran one, the uninterrupted run all).
// Both kinds of row are damaged in turn: a values-only row whose design also has a row with
// sensitivities, and a row with sensitivities (one no later row of its design covers: such a
// later row would be used instead of running it again).
TEST(StoreDamage, ADamagedAnalysisIsAnalysedAgainAsBeforeAndTheResultIsBitIdentical) {
  const std::string study = kProblems + "impact-absorber/max-acceleration-multibody.json";
  const fs::path dir = scratch_directory("test-store-damage");
  converged_run(dir / "reference", study);
  const nlohmann::json reference = without_timings(read_json(dir / "reference" / "result.json"));
  for (const int gradients : {0, 1}) {
    const fs::path run = dir / ("damaged-" + std::to_string(gradients));
    converged_run(run, study);
    const fs::path store = run / "study.sqlite";
    // The second design analysed both ways (the start of cycle 2), its row of one kind altered.
    const std::string row =
        "(SELECT DISTINCT a.id FROM analyses a JOIN analyses b ON a.design = b.design AND "
        "a.gradients != b.gradients WHERE a.gradients = " +
        std::to_string(gradients) +
        " AND (a.gradients = 0 OR NOT EXISTS (SELECT 1 FROM analyses c WHERE c.design = a.design "
        "AND c.gradients = 1 AND c.id > a.id)) ORDER BY a.id LIMIT 1 OFFSET 1)";
    const int id = query(store, "SELECT " + row);
    ASSERT_GT(id, 0);
    execute(store,
            "UPDATE analyses SET result = substr(result, 1, 40) || X'7F' || "
            "substr(result, 42) WHERE id = " +
                std::to_string(id));
    const Output resumed = sao("run " + run.string());
    ASSERT_EQ(resumed.code, 0) << resumed.text;
    EXPECT_TRUE(contains(resumed.text, "analyses row " + std::to_string(id) + " (design"))
        << resumed.text;
    EXPECT_TRUE(contains(resumed.text,
                         "is not in the store (deleted or damaged record): analysed "
                         "again"))
        << resumed.text;
    EXPECT_TRUE(contains(resumed.text, "1 simulator runs")) << resumed.text;
    nlohmann::json result = without_timings(read_json(run / "result.json"));
    EXPECT_EQ(result["simulator_runs"], 1);
    result["simulator_runs"] = reference["simulator_runs"];
    EXPECT_EQ(result, reference) << "damaged row " << id << " (gradients " << gradients << ")";
    EXPECT_EQ(read_file(run / "history.csv"), read_file(dir / "reference" / "history.csv"));
  }
}

// A run that switched to central differences (central_differences_to_confirm) and was cut off
// after a later cycle (its cycle records from there deleted, as a kill leaves them) resumes
// with central differences: the same history, cycle for cycle, from analyses already stored
// and no simulator run. Had the resumed driver gone back to forward differences, their
// analyses would not be in the store (a gradient is stored with its method) and it would run
// them, on another path.
TEST(StoreDamage, ARunCutOffAfterItsSwitchToCentralDifferencesResumesWithThem) {
  const fs::path dir = scratch_directory("test-store-central");
  const std::string run = "run " + kProblems + "suite/rosenbrock-disk.json --set " +
                          "simulator.gradients.step=2e-3 -q --out ";
  ASSERT_EQ(sao(run + (dir / "reference").string()).code, 0);
  ASSERT_EQ(sao(run + (dir / "cut").string()).code, 0);
  const nlohmann::json a = read_json(dir / "reference" / "result.json");
  int switched = 0;  // the first cycle with central differences
  for (const auto& r : a["history"]) {
    if (r.value("gradient_method", "") == "central differences") {
      switched = r["cycle"];
      break;
    }
  }
  ASSERT_GT(switched, 1) << "the run no longer switches: the test's premise";
  ASSERT_LT(switched + 3, a["cycles"].get<int>());
  const fs::path store = dir / "cut" / "study.sqlite";
  execute(store, "DELETE FROM cycles WHERE cycle > " + std::to_string(switched + 3) + ";");
  ASSERT_EQ(query(store, "SELECT COUNT(*) FROM cycles"), switched + 3);

  const Output resumed = sao("run " + (dir / "cut").string());
  ASSERT_EQ(resumed.code, 0) << resumed.text;
  EXPECT_TRUE(contains(resumed.text, "0 simulator runs")) << resumed.text;
  const nlohmann::json b = read_json(dir / "cut" / "result.json");
  EXPECT_EQ(b["status"], a["status"]);
  EXPECT_EQ(b["cycles"], a["cycles"]);
  EXPECT_EQ(b["history"], a["history"]);
}

}  // namespace
