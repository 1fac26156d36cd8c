// The checksums of the store's tables that cannot be rebuilt (issue 46): studies, branches,
// settings_changes, jobs and meta. Any row altered, added or left without its checksum makes
// the store unusable for every access (a StoreError naming the table and the row, the file
// unchanged); the store's own changes (a branch's status) keep the checksums right; a store of
// version 3 gets them once; a version number lowered by hand is refused.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sao/store/store.hpp"
#include "tests/e2e/store_support.hpp"
#include "tests/support.hpp"

namespace sao {
namespace {

namespace fs = std::filesystem;

using testing::execute;  // SQL on a store file (tests/e2e/store_support.hpp)

// A store with a row in every sealed table (two branches, two settings changes, a job).
std::string sealed_store(const fs::path& dir) {
  const std::string path = (dir / "study.sqlite").string();
  StudyStore store(path, true);
  store.use_inputs("inputs");
  const int s = store.add_study({{"settings", {{"max_cycles", 20}}}}, "study.json", 0);
  const int root = store.add_branch(0, 0, s);
  store.add_setting_changes(root, 2, {"move_limit=0.2", "max_cycles=5"});
  store.set_branch_status(root, "cycle_limit", "cycle limit 5 reached");
  store.add_branch(root, 1, store.add_study({{"settings", {{"max_cycles", 7}}}}, "b.json", 0));
  store.record_jobs({{"run-1", {"4242", "/scratch/run-1"}}});
  return path;
}

// The message of the StoreError that opening `path` with `access` throws ("" when none).
std::string refusal(const std::string& path, StoreAccess access) {
  try {
    StudyStore store(path, access);
  } catch (const StoreIoError& e) {
    return std::string("an I/O error: ") + e.what();
  } catch (const StoreError& e) {
    return e.what();
  }
  return "";
}

TEST(StoreSealed, EveryAlteredOrAddedRowOfATableThatCannotBeRebuiltIsRefused) {
  const fs::path dir = testing::scratch_directory("test-store-sealed", "altered");
  const std::string original = sealed_store(dir);
  {
    // The store's own changes keep it readable: the branch status rewrote its checksum.
    StudyStore store(original, StoreAccess::kReadWrite);
    EXPECT_EQ(store.branch(1).status, "cycle_limit");
    EXPECT_EQ(store.setting_changes(1).size(), 2u);
    EXPECT_EQ(store.study(2).document["settings"]["max_cycles"], 7);
    EXPECT_EQ(store.job_count(), 1);
  }
  struct Case {
    std::string sql, named;
  };
  const std::vector<Case> cases = {
      {"UPDATE studies SET document = replace(document, '20', '30') WHERE id = 1",
       "table studies, row 1: checksum mismatch"},
      {"UPDATE studies SET start = 1 WHERE id = 2", "table studies, row 2: checksum mismatch"},
      {"UPDATE settings_changes SET assignment = 'max_cycles=50' WHERE id = 2",
       "table settings_changes, row 2: checksum mismatch"},
      {"INSERT INTO settings_changes (branch, cycle, assignment, created) "
       "VALUES (2, 3, 'max_cycles=99', '2026-01-01T00:00:00Z')",
       "table settings_changes, row 3: no checksum"},
      {"UPDATE branches SET status = 'converged' WHERE id = 1",
       "table branches, row 1: checksum mismatch"},
      {"UPDATE branches SET from_cycle = 2 WHERE id = 2",
       "table branches, row 2: checksum mismatch"},
      {"UPDATE jobs SET job_id = '4243'", "table jobs, row 1: checksum mismatch"},
      {"UPDATE meta SET value = 'yesterday' WHERE key = 'created'",
       "table meta: checksum mismatch"},
      {"DELETE FROM meta WHERE key = 'checksum'", "table meta: no checksum"},
      {"UPDATE meta SET value = '3' WHERE key = 'version'",
       "table meta: the store says format version 3 but holds the checksums of a later "
       "version"},
      // Rows deleted, or a row copied in with its checksum: the row lists of version 5.
      {"DELETE FROM settings_changes WHERE id = 2",
       "table settings_changes: its rows are not those table meta lists"},
      {"DELETE FROM branches WHERE id = 2",
       "table branches: its rows are not those table meta "
       "lists"},
      {"DELETE FROM jobs", "table jobs: its rows are not those table meta lists"},
      {"INSERT INTO studies SELECT 3, document, source, start, inputs_hash, created, checksum "
       "FROM studies WHERE id = 2",
       "table studies, row 3: checksum mismatch"},
      {"DELETE FROM meta WHERE key = 'rows.studies'", "table meta: checksum mismatch"},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    const fs::path copy = dir / ("copy-" + std::to_string(k) + ".sqlite");
    fs::copy_file(original, copy);
    execute(copy.string(), cases[k].sql);
    const std::string bytes = testing::read_file(copy);
    for (StoreAccess access : {StoreAccess::kReadOnly, StoreAccess::kReadWrite}) {
      const std::string message = refusal(copy.string(), access);
      EXPECT_NE(message.find(copy.string() + ": " + cases[k].named), std::string::npos)
          << cases[k].sql << "\n"
          << message;
      EXPECT_NE(message.find("nothing was changed"), std::string::npos) << message;
    }
    EXPECT_EQ(testing::read_file(copy), bytes) << cases[k].sql;
  }
}

TEST(StoreSealed, AVersionThreeStoreGetsTheChecksumsOnceWhenOpenedForWriting) {
  const fs::path dir = testing::scratch_directory("test-store-sealed", "version-3");
  const std::string path = sealed_store(dir);
  // What version 3 wrote: no checksum in these tables, no meta checksum.
  execute(path,
          "UPDATE meta SET value = '3' WHERE key = 'version'; DELETE FROM meta WHERE key = "
          "'checksum'; DELETE FROM meta WHERE key LIKE 'rows.%'; ALTER TABLE studies DROP COLUMN "
          "checksum; ALTER TABLE branches DROP "
          "COLUMN checksum; ALTER TABLE settings_changes DROP COLUMN checksum; ALTER TABLE jobs "
          "DROP COLUMN checksum");
  {
    const std::string bytes = testing::read_file(path);
    StudyStore reader(path, StoreAccess::kReadOnly);  // read as it is
    EXPECT_EQ(reader.unchecked_rows(), 7);            // 2 studies, 2 branches, 2 changes, 1 job
    EXPECT_EQ(reader.setting_changes(1).size(), 2u);
    EXPECT_EQ(testing::read_file(path), bytes);
  }
  {
    StudyStore store(path, StoreAccess::kReadWrite);
    EXPECT_EQ(store.unchecked_rows(), 7);  // checksums added to them now
  }
  StudyStore again(path, StoreAccess::kReadOnly);
  EXPECT_EQ(again.unchecked_rows(), 0);
  EXPECT_EQ(again.branch(2).from_cycle, 1);
  // From now on an alteration is refused.
  execute(path, "UPDATE settings_changes SET cycle = 3 WHERE id = 1");
  EXPECT_NE(refusal(path, StoreAccess::kReadOnly).find("table settings_changes, row 1"),
            std::string::npos);
}

}  // namespace
}  // namespace sao
