// The study store's checksums, read-only access and atomic output files (issue 18).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "sao/store/atomic_file.hpp"
#include "sao/store/store.hpp"
#include "sao/store/store_records.hpp"
#include "tests/support.hpp"

namespace sao {
namespace {

namespace fs = std::filesystem;

void execute(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

Evaluation evaluation(double value) {
  Evaluation e;
  e.cases.resize(1);
  e.cases[0].scalars["r"] = value;
  e.cost = {0.5, 1};
  return e;
}

CycleRecord record(int cycle) {
  CycleRecord r;
  r.cycle = cycle;
  r.accepted = true;
  r.x0 = Eigen::Vector2d(1.0, 2.0);
  r.x_opt = Eigen::Vector2d(1.5, 2.5);
  r.factors = r.next_factors = Eigen::Vector2d(0.4, 0.4);
  r.message = "ok";
  return r;
}

TEST(StoreChecksum, AlteredTruncatedOrUndecodableRecordsAreNamedAndNeverReturned) {
  const fs::path dir = testing::scratch_directory("test-store-checksum");
  const std::string path = (dir / "study.sqlite").string();
  StudyStore store(path, true);
  store.use_inputs("inputs");
  for (int k = 0; k < 4; ++k) store.save(Eigen::Vector2d(k, 1.0), {}, evaluation(10.0 + k));
  for (int c = 1; c <= 3; ++c) store.save_cycle(1, record(c), {"a", "b"}, {{"s", c}});
  EXPECT_TRUE(store.verify().empty());
  ASSERT_EQ(store.lookup(Eigen::Vector2d(0.0, 1.0), false).size(), 1u);

  // A value altered (still decodable), a result truncated, a message altered (not part of the
  // result blob), a cycle record altered, one truncated.
  execute(path,
          "UPDATE analyses SET result = substr(result, 1, length(result) - 8) || "
          "X'0000000000003540' WHERE id = 1;"
          "UPDATE analyses SET result = substr(result, 1, 9) WHERE id = 2;"
          "UPDATE analyses SET message = 'changed' WHERE id = 3;"
          "UPDATE cycles SET record = replace(record, '\"ok\"', '\"ko\"') WHERE cycle = 2;"
          "UPDATE cycles SET record = substr(record, 1, 20) WHERE cycle = 3;");
  const std::vector<DamagedRecord> damaged = store.verify();
  ASSERT_EQ(damaged.size(), 5u);
  EXPECT_EQ(damaged[0].table, "analyses");
  EXPECT_EQ(damaged[0].row, 1);
  EXPECT_EQ(damaged[0].design, "[0.0,1.0]");
  EXPECT_EQ(damaged[0].reason, "checksum mismatch");
  EXPECT_EQ(damaged[1].row, 2);
  EXPECT_EQ(damaged[2].row, 3);
  EXPECT_EQ(damaged[3].table, "cycles");
  EXPECT_EQ(damaged[3].row, 2);
  EXPECT_EQ(damaged[3].branch, 1);
  EXPECT_EQ(damaged[3].design, "[1.0,2.0]");
  EXPECT_EQ(damaged[4].row, 3);
  // Truncated: not trusted, so not decoded (nor named by its design: it does not read).
  EXPECT_EQ(damaged[4].reason, "checksum mismatch");
  EXPECT_EQ(damaged[4].design, "");
  // Never returned: the analyses are looked up in vain (so analysed again), the cycles left out.
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(store.lookup(Eigen::Vector2d(k, 1.0), false).empty());
  ASSERT_EQ(store.lookup(Eigen::Vector2d(3.0, 1.0), false).size(), 1u);
  ASSERT_EQ(store.cycles(1).size(), 1u);
  EXPECT_EQ(store.cycles(1)[0].record.cycle, 1);
  // Removed, they are gone; a new analysis of the design is trusted again.
  store.remove(damaged);
  EXPECT_TRUE(store.verify().empty());
  EXPECT_EQ(store.analysis_count(), 1);
  store.save(Eigen::Vector2d(0.0, 1.0), {}, evaluation(10.0));
  EXPECT_EQ(store.lookup(Eigen::Vector2d(0.0, 1.0), false).size(), 1u);
}

TEST(StoreChecksum, EmptyOrMissingFilesAreNotTurnedIntoStoresWithoutCreate) {
  const fs::path dir = testing::scratch_directory("test-store-checksum");
  const std::string empty = (dir / "empty.sqlite").string();
  std::ofstream(empty).close();
  for (StoreAccess access : {StoreAccess::kReadOnly, StoreAccess::kReadWrite}) {
    try {
      StudyStore store(empty, access);
      FAIL() << "expected a StoreError";
    } catch (const StoreIoError& e) {
      FAIL() << "not an I/O error: " << e.what();
    } catch (const StoreError& e) {
      EXPECT_NE(std::string(e.what()).find(empty + ": not a study store (an empty file)"),
                std::string::npos)
          << e.what();
    }
    EXPECT_EQ(fs::file_size(empty), 0u);
  }
  EXPECT_THROW(StudyStore((dir / "missing.sqlite").string(), StoreAccess::kReadOnly), StoreError);
  EXPECT_FALSE(fs::exists(dir / "missing.sqlite"));
}

TEST(StoreChecksum, ReadOnlyAccessReadsEverythingAndWritesNothing) {
  const fs::path dir = testing::scratch_directory("test-store-checksum");
  const std::string path = (dir / "study.sqlite").string();
  {
    StudyStore store(path, true);
    store.use_inputs("inputs");
    store.save(Eigen::Vector2d(1.0, 1.0), {}, evaluation(3.0));
    store.save_cycle(1, record(1), {"a", "b"}, {});
  }
  const std::string bytes = testing::read_file(path);
  StudyStore store(path, StoreAccess::kReadOnly);
  store.use_inputs("inputs");
  EXPECT_TRUE(store.read_only());
  EXPECT_EQ(store.lookup(Eigen::Vector2d(1.0, 1.0), false).size(), 1u);
  EXPECT_EQ(store.cycles(1).size(), 1u);
  store.save(Eigen::Vector2d(2.0, 1.0), {}, evaluation(4.0));  // kept nowhere
  store.delete_cycles_from(1, 1);
  EXPECT_EQ(store.analysis_count(), 1);
  EXPECT_EQ(store.cycles(1).size(), 1u);
  EXPECT_EQ(testing::read_file(path), bytes);
}

TEST(StoreChecksum, RecordChecksumSeparatesFields) {
  // The fields are length-prefixed: moving a character between fields changes the sum.
  EXPECT_NE(record_checksum({"ab", "c"}), record_checksum({"a", "bc"}));
  EXPECT_EQ(record_checksum({"ab", "c"}), record_checksum({"ab", "c"}));
  EXPECT_EQ(record_checksum({}).size(), 64u);
}

TEST(AtomicFile, ReplacesTheFileOrLeavesItAsItWas) {
  const fs::path dir = testing::scratch_directory("test-atomic-file");
  const fs::path file = dir / "result.json";
  write_file_atomically(file, "first\n");
  EXPECT_EQ(testing::read_file(file), "first\n");
  write_file_atomically(file, "second\n");
  EXPECT_EQ(testing::read_file(file), "second\n");
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                fs::perms::others_read);
  // A folder that does not exist: an error naming the file, nothing written.
  try {
    write_file_atomically(dir / "missing" / "x.json", "x");
    FAIL() << "expected a FileWriteError";
  } catch (const FileWriteError& e) {
    EXPECT_NE(std::string(e.what()).find("missing/x.json"), std::string::npos) << e.what();
  }
  // No temporary file left beside the target.
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) entries += !e.path().empty();
  EXPECT_EQ(entries, 1u);
}

// A device or a pipe as the output (`sao report DIR --out /dev/null`) is written in place: the
// rename of a temporary file used to put a regular file where the device was (found by fuzzing,
// as root). A FIFO stands for the device here; /dev/full for one that cannot take the text.
TEST(AtomicFile, ADeviceOrPipeIsWrittenInPlaceNotReplaced) {
  const fs::path dir = testing::scratch_directory("test-atomic-file");
  const fs::path fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Held open for reading and writing, the pipe takes the text without a reader thread, and
  // a file put in its place would leave it empty (no hang).
  const int pipe = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
  ASSERT_GE(pipe, 0);
  write_file_atomically(fifo, "through the pipe\n");
  char buffer[64];
  const ssize_t n = ::read(pipe, buffer, sizeof buffer);
  ::close(pipe);
  EXPECT_EQ(std::string(buffer, static_cast<size_t>(std::max<ssize_t>(n, 0))),
            "through the pipe\n");
  EXPECT_TRUE(fs::is_fifo(fifo));
  size_t entries = 0;  // no temporary file either
  for (const auto& e : fs::directory_iterator(dir)) entries += !e.path().empty();
  EXPECT_EQ(entries, 1u);
  // A node of its own for /dev/full's device (as root; skipped otherwise), so that a regression
  // replaces nothing outside the scratch folder.
  const fs::path full = dir / "full";
  if (::mknod(full.c_str(), S_IFCHR | 0600, ::makedev(1, 7)) == 0) {
    try {
      write_file_atomically(full, "x");
      ADD_FAILURE() << "expected a FileWriteError";
    } catch (const FileWriteError& e) {
      EXPECT_NE(std::string(e.what()).find("full: write: No space left on device"),
                std::string::npos)
          << e.what();
    }
    EXPECT_TRUE(fs::is_character_file(full));
  }
}

}  // namespace
}  // namespace sao
