// An output folder that cannot be written is reported as what it is (issue 46): the path and
// the system's reason ("Permission denied", "Not a directory", "Read-only file system"), exit 3,
// never "No such file or directory" nor a raw library message. Tests run as root, whom
// permission bits do not stop: the read-only cases run `sao` as the user nobody (setpriv) and
// are skipped where that is not possible; a parent that is a regular file stops root too.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/e2e/store_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace sao::testing;
using sao::testing::sao;

const std::string kStudy = kProblems + "slider-crank/path.json";

TEST(OutputFolderErrors, AParentThatIsAFileIsNamed) {
  const fs::path dir = scratch_directory("test-output-folder");
  const fs::path file = dir / "a-file";
  std::ofstream(file) << "not a folder\n";
  const std::string out = (file / "sub").string();

  const CommandOutput run = sao("run " + kStudy + " --out " + out);
  EXPECT_EQ(run.code, 3) << run.text;
  EXPECT_NE(run.text.find("cannot create the output folder " + out + ": Not a directory"),
            std::string::npos)
      << run.text;

  const CommandOutput step = sao("step " + out + " --study " + kStudy);
  EXPECT_EQ(step.code, 3) << step.text;
  EXPECT_NE(step.text.find("cannot create the output folder " + out + ": Not a directory"),
            std::string::npos)
      << step.text;
  EXPECT_EQ(step.text.find("filesystem error"), std::string::npos) << step.text;

  const CommandOutput plots = sao("evaluate " + kStudy + " --plot " + (file / "plots").string());
  EXPECT_EQ(plots.code, 3) << plots.text;
  EXPECT_NE(plots.text.find("Not a directory"), std::string::npos) << plots.text;
  EXPECT_EQ(plots.text.find("filesystem error"), std::string::npos) << plots.text;
}

// `sao ARGS` as the user nobody; false when that cannot be done here.
bool can_run_as_nobody() {
  return ::geteuid() == 0 && fs::exists("/usr/bin/setpriv") &&
         run_command("/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups " + kSao +
                     " --version >/dev/null 2>&1")
                 .code == 0;
}
CommandOutput sao_as_nobody(const std::string& args) {
  return run_command("/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups " + kSao + " " +
                     args + " 2>&1");
}

TEST(OutputFolderErrors, AFolderWithoutWritePermissionIsPermissionDenied) {
  if (!can_run_as_nobody()) GTEST_SKIP() << "cannot run sao as the user nobody (setpriv) here";
  const fs::path dir = scratch_directory("test-output-folder");
  // A folder that exists and nobody may not write: `sao run --out` into it.
  const fs::path locked = dir / "locked";
  fs::create_directories(locked);
  fs::permissions(locked, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
  const CommandOutput run = sao_as_nobody("run " + kStudy + " --out " + locked.string());
  EXPECT_EQ(run.code, 3) << run.text;
  EXPECT_NE(run.text.find(locked.string()), std::string::npos) << run.text;
  EXPECT_NE(run.text.find("Permission denied"), std::string::npos) << run.text;
  EXPECT_EQ(run.text.find("No such file or directory"), std::string::npos) << run.text;
  // Its parent read-only: the folder cannot be made.
  const CommandOutput below = sao_as_nobody("run " + kStudy + " --out " + (locked / "x").string());
  EXPECT_EQ(below.code, 3) << below.text;
  EXPECT_NE(below.text.find("cannot create the output folder " + (locked / "x").string() +
                            ": Permission denied"),
            std::string::npos)
      << below.text;

  // A finished study whose folder nobody may read but not write: report and export.
  const fs::path done = dir / "done";
  ASSERT_EQ(sao("run " + kStudy + " --out " + done.string() + " -q").code, 0);
  fs::permissions(done, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
  for (const std::string command : {"report", "export"}) {
    const CommandOutput o = sao_as_nobody(command + " " + done.string());
    EXPECT_EQ(o.code, 3) << command << ": " << o.text;
    EXPECT_NE(o.text.find(done.string()), std::string::npos) << command << ": " << o.text;
    EXPECT_NE(o.text.find("Permission denied"), std::string::npos) << command << ": " << o.text;
    EXPECT_EQ(o.text.find("No such file or directory"), std::string::npos)
        << command << ": " << o.text;
  }
}

}  // namespace
