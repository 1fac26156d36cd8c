#include "adapters/process.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "tests/support.hpp"

namespace sao::adapters {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class Process : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = sao::testing::scratch_directory("adapter-tests");
    spec_.directory = dir_;
    spec_.stdout_file = dir_ / "out.txt";
    spec_.stderr_file = dir_ / "err.txt";
  }
  std::string out() { return sao::testing::read_file(spec_.stdout_file); }
  fs::path dir_;
  ProcessSpec spec_;
};

TEST_F(Process, RunsInItsDirectoryWithItsEnvironment) {
  spec_.program = find_program("env", dir_);
  ASSERT_FALSE(spec_.program.empty());
  spec_.environment = {{"SAO_X", "a b;c"}};
  spec_.inherit_environment = false;
  const ProcessResult r = run_process(spec_);
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(describe(r), "exit status 0");
  EXPECT_EQ(out(), "SAO_X=a b;c\n");  // nothing inherited, the value verbatim
}

TEST_F(Process, ExitStatusAndStartFailures) {
  spec_.program = find_program("false", dir_);
  EXPECT_EQ(describe(run_process(spec_)), "exit status 1");
  std::ofstream(dir_ / "not-executable") << "#!/bin/sh\n";
  EXPECT_TRUE(find_program("./not-executable", dir_).empty());
  EXPECT_TRUE(find_program("no-such-program-sao", dir_).empty());
  spec_.program = dir_ / "not-executable";
  const ProcessResult r = run_process(spec_);
  EXPECT_FALSE(r.started);
  EXPECT_THAT(describe(r), HasSubstr("could not start: "));
}

TEST_F(Process, TimeLimit) {
  spec_.program = find_program("sleep", dir_);
  spec_.arguments = {"30"};
  spec_.timeout_seconds = 0.2;
  const ProcessResult r = run_process(spec_);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_THAT(describe(r), HasSubstr("timed out after 0.2"));
}

}  // namespace
}  // namespace sao::adapters
