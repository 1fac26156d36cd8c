// A store that trusts nothing it did not write (issue 46): 200 random bits flipped, one per
// fresh copy of a finished store of the impact absorber (internal simulator), in the study
// documents, the settings changes, the branches, meta, the jobs, the analyses and the cycle
// records. Each copy is then resumed as `sao run DIR` does (a StudySession, which is much
// faster than the binary), and opened read-only as `sao status` does: every flip is refused (a
// StoreError, exit 2, naming the table) or harmless (the same cycle records and result as the
// untouched store); none is trusted (another result without an error).
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "sao/optimizer/cycle_record_json.hpp"
#include "sao/store/study_session.hpp"
#include "simulators/internal_simulator.hpp"
#include "tests/support.hpp"

namespace sao {
namespace {

namespace fs = std::filesystem;

const std::string kStudy =
    std::string(SAO_SOURCE_DIR) + "/problems/impact-absorber/max-acceleration.json";

// A finished store with a row in every table: branch 1 with two `sao set` changes (a move
// limit, then max_cycles=4: it ends on the cycle limit), branch 2 restarted from its cycle 1
// and run to its end, a batch job recorded.
void finished_store(const std::string& path) {
  sim::register_internal_simulator();
  std::ifstream in(kStudy);
  const nlohmann::json document = nlohmann::json::parse(in);
  {
    StudySession session(path, true);
    session.begin(document, kStudy, 0);
    session.open();
    session.step();
    session.set({"move_limit=0.3"});
    session.step();
    session.set({"max_cycles=4"});
    session.run();
  }
  {
    StudySession session(path, false);
    session.open();
    session.restart(1, std::nullopt, kStudy);
  }
  {
    StudySession session(path, false);
    session.open();
    session.run();
  }
  StudyStore store(path, StoreAccess::kReadWrite);
  store.record_jobs({{"run-7", {"4242", "/scratch/sao-runs/run-7"}}});
}

// What a resume of the store gives (what result.json holds): the current branch's cycle
// records (with its parent's up to where it branched off), every branch's status, the final
// summary (all numbers exact); "refused: MESSAGE" for a StoreError, "failed: MESSAGE" for
// anything else. (A damaged cycle record of the parent up to that cycle is rebuilt by the
// replay, which continues the parent's run; one after it is removed, named in a warning, and not
// rebuilt: no branch runs that cycle any more.)
std::string outcome(const std::string& path) {
  try {
    StudySession session(path, StoreAccess::kReadWrite);
    session.open();
    const RunSummary& s = session.run();
    const std::vector<std::string> names = variable_names(session.study());
    nlohmann::json out;
    for (const CycleRecord& r : session.lineage(session.branch())) {
      out["records"].push_back(cycle_record_to_json(r, names));
    }
    for (const BranchInfo& b : session.store().branches()) out["statuses"].push_back(b.status);
    out["status"] = to_string(s.status);
    out["message"] = s.message;
    for (int i = 0; i < s.x.size(); ++i) out["x"].push_back(exact_number(s.x(i)));
    out["objective"] = exact_number(s.objective);
    return out.dump();
  } catch (const StoreError& e) {
    return std::string("refused: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("failed: ") + e.what();
  }
}

// Flips bit `bit` (taken modulo the value's size) of `column` in the row `rowid` of `table`;
// false when the value is NULL or empty, or the changed row is not accepted (a key taken).
bool flip(const std::string& path, const std::string& table, const std::string& column,
          long long rowid, uint64_t bit) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return false;
  sqlite3_stmt* read = nullptr;
  const std::string select = "SELECT " + column + " FROM " + table + " WHERE rowid = ?1";
  const std::string update = "UPDATE " + table + " SET " + column + " = ?1 WHERE rowid = ?2";
  sqlite3_stmt* write = nullptr;
  bool done = false;
  if (sqlite3_prepare_v2(db, select.c_str(), -1, &read, nullptr) == SQLITE_OK &&
      sqlite3_prepare_v2(db, update.c_str(), -1, &write, nullptr) == SQLITE_OK) {
    sqlite3_bind_int64(read, 1, rowid);
    sqlite3_bind_int64(write, 2, rowid);
    if (sqlite3_step(read) == SQLITE_ROW) {
      const int type = sqlite3_column_type(read, 0);
      bool bound = true;
      if (type == SQLITE_INTEGER) {
        sqlite3_bind_int64(
            write, 1, sqlite3_column_int64(read, 0) ^ static_cast<int64_t>(1ull << (bit % 63)));
      } else if (type == SQLITE_FLOAT) {
        double v = sqlite3_column_double(read, 0);
        uint64_t bits;
        std::memcpy(&bits, &v, sizeof v);
        bits ^= 1ull << (bit % 64);
        std::memcpy(&v, &bits, sizeof v);
        sqlite3_bind_double(write, 1, v);
      } else if (type == SQLITE_TEXT || type == SQLITE_BLOB) {
        const auto* p = static_cast<const char*>(sqlite3_column_blob(read, 0));
        std::string bytes(p ? p : "", static_cast<size_t>(sqlite3_column_bytes(read, 0)));
        bound = !bytes.empty();
        if (bound) {
          bytes[(bit / 8) % bytes.size()] ^= static_cast<char>(1 << (bit % 8));
          if (type == SQLITE_TEXT) {
            sqlite3_bind_text(write, 1, bytes.data(), static_cast<int>(bytes.size()),
                              SQLITE_TRANSIENT);
          } else {
            sqlite3_bind_blob(write, 1, bytes.data(), static_cast<int>(bytes.size()),
                              SQLITE_TRANSIENT);
          }
        }
      } else {
        bound = false;
      }
      sqlite3_reset(read);
      done = bound && sqlite3_step(write) == SQLITE_DONE && sqlite3_changes(db) == 1;
    }
  }
  sqlite3_finalize(read);
  sqlite3_finalize(write);
  sqlite3_close(db);
  return done;
}

// The values of a one-column query on the store.
std::vector<std::string> column_values(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::vector<std::string> out;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* q = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &q, nullptr) == SQLITE_OK) {
      while (sqlite3_step(q) == SQLITE_ROW) {
        const auto* text = sqlite3_column_text(q, 0);
        out.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
      }
    }
    sqlite3_finalize(q);
  }
  sqlite3_close(db);
  return out;
}

TEST(StoreTamper, EveryFlippedBitIsRefusedOrHarmlessNeverTrusted) {
  // Every repaired flip is named in warnings (checked by StoreDamage): keep the log short.
  const spdlog::level::level_enum level = spdlog::get_level();
  spdlog::set_level(spdlog::level::err);
  const fs::path dir = testing::scratch_directory("test-store-tamper");
  const std::string original = (dir / "study.sqlite").string();
  finished_store(original);
  // Only the store's file is copied: nothing of it may be left in a WAL file (the last
  // connection to close checkpoints and removes it).
  ASSERT_FALSE(fs::exists(original + "-wal") && fs::file_size(original + "-wal") > 0);
  const fs::path untouched = dir / "untouched.sqlite";
  fs::copy_file(original, untouched);
  const std::string reference = outcome(untouched.string());
  ASSERT_EQ(reference.rfind("{", 0), 0u) << reference;
  ASSERT_EQ(column_values(original, "SELECT COUNT(*) FROM settings_changes")[0], "2");
  ASSERT_EQ(column_values(original, "SELECT COUNT(*) FROM branches")[0], "2");
  ASSERT_EQ(column_values(original, "SELECT COUNT(*) FROM jobs")[0], "1");

  // 200 flips, most in the study documents and the settings changes; a fixed seed.
  const std::vector<std::pair<std::string, int>> schedule = {
      {"studies", 70}, {"settings_changes", 40}, {"branches", 25}, {"meta", 15},
      {"jobs", 10},    {"analyses", 20},         {"cycles", 20}};
  std::mt19937_64 random(46);
  std::map<std::string, int> refused, harmless;
  int flips = 0;
  for (const auto& [table, count] : schedule) {
    const std::vector<std::string> columns =
        column_values(original, "SELECT name FROM pragma_table_info('" + table + "')");
    const std::vector<std::string> rows =
        column_values(original, "SELECT rowid FROM " + table + " ORDER BY rowid");
    ASSERT_FALSE(rows.empty()) << table;
    for (int k = 0; k < count; ++k) {
      // The study document gets most of the flips of its table.
      const bool document = table == "studies" && random() % 3 != 0;
      const std::string column = document ? "document" : columns[random() % columns.size()];
      const long long rowid = std::stoll(rows[random() % rows.size()]);
      const fs::path copy = dir / ("flip-" + std::to_string(flips) + ".sqlite");
      fs::copy_file(original, copy);
      const uint64_t bit = random();
      if (!flip(copy.string(), table, column, rowid, bit)) {
        fs::remove(copy);
        --k;  // a key taken or an empty value: another flip instead
        continue;
      }
      ++flips;
      const std::string where = table + "." + column + " of row " + std::to_string(rowid) +
                                ", bit " + std::to_string(bit);
      // `sao status`: a table that cannot be rebuilt is refused read-only too.
      const bool sealed = table != "analyses" && table != "cycles";
      if (sealed) {
        EXPECT_THROW(StudyStore(copy.string(), StoreAccess::kReadOnly), StoreError) << where;
      }
      // `sao run DIR`.
      const std::string result = outcome(copy.string());
      if (result.rfind("refused: ", 0) == 0) {
        EXPECT_NE(result.find("table " + table), std::string::npos) << where << "\n" << result;
        ++refused[table];
      } else {
        EXPECT_FALSE(sealed) << where << ": not refused";
        EXPECT_EQ(result, reference) << where << ": trusted";
        ++harmless[table];
      }
      fs::remove(copy);
    }
  }
  EXPECT_EQ(flips, 200);
  for (const auto& [table, count] : schedule) {
    std::cout << table << ": " << refused[table] << " refused, " << harmless[table]
              << " harmless\n";
  }
  // Every flip of a table that cannot be rebuilt is refused (checked above); the analyses and
  // cycle records are mostly repaired.
  EXPECT_GT(harmless["analyses"] + harmless["cycles"], 20);
  spdlog::set_level(level);
}

}  // namespace
}  // namespace sao
