// Stored JSON that does not read, in a store from before the checksums (its rows taken as they
// were): a study document is the store's own error (a StoreError, exit 2) naming the table, the
// row and the place in the text (line, column, JSON path); a cycle row is a damaged record named
// the same way (removed, and rebuilt by the replay). Never the JSON library's exception text.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sao/store/store.hpp"
#include "tests/e2e/store_support.hpp"
#include "tests/support.hpp"

namespace sao {
namespace {

namespace fs = std::filesystem;

// A store of version 3 (no checksums on its studies and branches) with one study, whose
// document is then `text`, and its branch.
std::string version_3_store(const fs::path& dir, const std::string& text) {
  const std::string path = (dir / "study.sqlite").string();
  {
    StudyStore store(path, true);
    store.use_inputs("inputs");
    store.add_branch(0, 0, store.add_study({{"settings", {{"max_cycles", 20}}}}, "study.json", 0));
  }
  testing::execute(
      path,
      "UPDATE meta SET value = '3' WHERE key = 'version'; DELETE FROM meta WHERE key "
      "= 'checksum'; DELETE FROM meta WHERE key LIKE 'rows.%'; ALTER TABLE studies DROP "
      "COLUMN checksum; ALTER TABLE branches "
      "DROP COLUMN checksum; ALTER TABLE settings_changes DROP COLUMN checksum; "
      "ALTER TABLE jobs DROP COLUMN checksum; UPDATE studies SET document = '" +
          text + "' WHERE id = 1");
  return path;
}

struct Unreadable {
  std::string text, says;
};

const std::vector<Unreadable> kDocuments = {
    {R"({"settings": {"max_cycles": 1e5000}})",
     "settings.max_cycles (line 1, column 29): the number 1e5000 is beyond the range of a double"},
    {"{\"settings\": {\"max_cycles\": 20,\n }}",
     "line 2, column 2 (reading settings.max_cycles): not valid JSON: "},
};

TEST(StoreUnreadable, AStudyDocumentThatDoesNotReadIsTheStoresErrorNamingTableAndRow) {
  for (size_t k = 0; k < kDocuments.size(); ++k) {
    for (StoreAccess access : {StoreAccess::kReadOnly, StoreAccess::kReadWrite}) {
      const fs::path dir = testing::scratch_directory(
          "test-store-unreadable", "study-" + std::to_string(k) + "-" +
                                       (access == StoreAccess::kReadOnly ? "read" : "write"));
      const std::string path = version_3_store(dir, kDocuments[k].text);
      std::string message = "no error";
      try {
        StudyStore store(path, access);
        (void)store.study(1);
      } catch (const StoreError& e) {
        message = e.what();
      }
      EXPECT_NE(message.find(path +
                             ": table studies, row 1: the stored study document is not "
                             "readable (" +
                             kDocuments[k].says),
                std::string::npos)
          << message;
      EXPECT_EQ(message.find("[json.exception"), std::string::npos) << message;
    }
  }
}

// `sao status` and `sao run` on such a store: exit 2 (bad input), the table, row and place named.
TEST(StoreUnreadable, TheCommandsEndWithExitCodeTwo) {
  for (size_t k = 0; k < kDocuments.size(); ++k) {
    const fs::path dir =
        testing::scratch_directory("test-store-unreadable", "command-" + std::to_string(k));
    (void)version_3_store(dir, kDocuments[k].text);
    for (const std::string command : {"status ", "run "}) {
      const testing::CommandOutput o = testing::sao(command + dir.string());
      EXPECT_EQ(o.code, 2) << command << o.text;
      EXPECT_NE(o.text.find("table studies, row 1: the stored study document is not readable (" +
                            kDocuments[k].says),
                std::string::npos)
          << command << o.text;
      EXPECT_EQ(o.text.find("[json.exception"), std::string::npos) << command << o.text;
    }
  }
}

// A cycle row whose record or settings do not read (a version-1 store, checksums added when it
// is opened for writing): a damaged record whose reason names the place in plain words.
TEST(StoreUnreadable, ACycleRowThatDoesNotReadIsADamagedRecordNamingThePlace) {
  const fs::path dir = testing::scratch_directory("test-store-unreadable", "cycles");
  const std::string path = (dir / "study.sqlite").string();
  {
    StudyStore store(path, true);
    store.add_branch(0, 0, store.add_study(nlohmann::json::object(), "study.json", 0));
  }
  const std::string record =
      R"({"cycle":1,"accepted":true,"converged":false,"relaxed":false,"subproblem":"optimal",)"
      R"("active_move_limits":2,"retained_constraints":1,"retained_rows":3,"x0":[1.0,1.0],)"
      R"("x_opt":[1.4,1.0],"F0":1.0,"F_opt":1.96,"F_approx":1.9,"Ef":3.1,"Eg":0.5,"E":3.1,)"
      R"("V":0.0,"Fchg":96.0,"factors":[0.4,0.4],"next_factors":[0.4,0.2],"actions":[1,2],)"
      R"("analyses":2,"fit_points":0,"noise_estimate":-1.0,"message":"old"})";
  std::string wrong_kind = record;
  wrong_kind.replace(wrong_kind.find("\"accepted\":true"), 15, "\"accepted\":\"yes\"");
  auto row = [](int cycle, const std::string& text, const std::string& settings) {
    return "INSERT INTO cycles (branch, cycle, record, settings, created) VALUES (1, " +
           std::to_string(cycle) + ", '" + text + "', '" + settings + "', 'then');";
  };
  testing::execute(
      path,
      "UPDATE meta SET value = '1' WHERE key = 'version'; DELETE FROM meta WHERE key "
      "= 'checksum'; DELETE FROM meta WHERE key LIKE 'rows.%'; ALTER TABLE analyses DROP "
      "COLUMN checksum; ALTER TABLE cycles "
      "DROP COLUMN checksum; ALTER TABLE studies DROP COLUMN checksum; ALTER TABLE "
      "branches DROP COLUMN checksum; ALTER TABLE settings_changes DROP COLUMN "
      "checksum; DROP TABLE jobs;" +
          row(1, record, R"({"move_limit": 1e5000})") +
          row(2, R"({"cycle": 2, "accepted": tru})", "{}") + row(3, wrong_kind, "{}"));
  StudyStore store(path, StoreAccess::kReadWrite);
  const std::vector<DamagedRecord> damaged = store.verify();
  ASSERT_EQ(damaged.size(), 3u);
  const std::vector<std::string> says = {
      "cannot be decoded: stored settings: move_limit (line 1, column 16): the number 1e5000 is "
      "beyond the range of a double",
      "cannot be decoded: stored cycle: line 1, column ",
      "cannot be decoded: stored cycle: accepted: expected a boolean, got a string (\"yes\")",
  };
  for (size_t k = 0; k < damaged.size(); ++k) {
    EXPECT_EQ(damaged[k].table, "cycles");
    EXPECT_EQ(damaged[k].row, static_cast<long long>(k + 1));
    EXPECT_EQ(damaged[k].reason.find(says[k]), 0u) << damaged[k].reason;
    EXPECT_EQ(damaged[k].reason.find("[json.exception"), std::string::npos) << damaged[k].reason;
  }
  EXPECT_NE(damaged[1].reason.find("(reading accepted): not valid JSON: "), std::string::npos)
      << damaged[1].reason;
}

}  // namespace
}  // namespace sao
