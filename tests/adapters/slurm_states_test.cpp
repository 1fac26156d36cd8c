// The SLURM executor's reading of squeue and sacct (adapters/slurm_states.hpp) on lines as
// the commands print them (squeue --noheader --array --format=%i|%T|%M; sacct --noheader
// --parsable2 --allocations --format=JobID,State, and sacct's fixed-width columns).
#include "adapters/slurm_states.hpp"

#include <gtest/gtest.h>

namespace sao::adapters {
namespace {

TEST(SlurmStates, StateNamesWithTheirSuffixes) {
  EXPECT_EQ(slurm_state_name("CANCELLED by 0"), "CANCELLED");
  EXPECT_EQ(slurm_state_name("CANCELLED by 1000"), "CANCELLED");
  EXPECT_EQ(slurm_state_name("CANCELLED+"), "CANCELLED");  // cut to sacct's column
  EXPECT_EQ(slurm_state_name("OUT_OF_ME+"), "OUT_OF_MEMORY");
  EXPECT_EQ(slurm_state_name(" TIMEOUT  "), "TIMEOUT");
  EXPECT_EQ(slurm_state_name("NODE_FAIL"), "NODE_FAIL");
  EXPECT_EQ(slurm_state_name("CD"), "COMPLETED");  // squeue's compact codes
  EXPECT_EQ(slurm_state_name("PD"), "PENDING");
  EXPECT_EQ(slurm_state_name("COMPL+"), "COMPL");  // COMPLETED or COMPLETING: not guessed
  for (const char* ended : {"CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED",
                            "FAILED", "COMPLETED", "BOOT_FAIL", "DEADLINE"}) {
    EXPECT_TRUE(slurm_state_ended(ended)) << ended;
  }
  for (const char* live : {"PENDING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED",
                           "CANCELLED+", "CANCELLED by 0", ""}) {
    EXPECT_FALSE(slurm_state_ended(live)) << live;  // raw fields are read by slurm_state_name
  }
}

TEST(SlurmStates, EndedStatesAreDescribedAsWhatTheyAre) {
  EXPECT_NE(slurm_state_description("CANCELLED").find("cancelled with scancel"), std::string::npos);
  EXPECT_NE(slurm_state_description("TIMEOUT").find("time limit"), std::string::npos);
  EXPECT_NE(slurm_state_description("OUT_OF_MEMORY").find("ran out of memory"), std::string::npos);
  EXPECT_NE(slurm_state_description("NODE_FAIL").find("its node failed"), std::string::npos);
  EXPECT_NE(slurm_state_description("PREEMPTED").find("preempted"), std::string::npos);
  EXPECT_EQ(slurm_state_description("RUNNING"), "");
  EXPECT_EQ(slurm_state_description("COMPLETED"), "");
}

TEST(SlurmStates, TaskIdsOfArraysAndRanges) {
  EXPECT_EQ(slurm_task_ids("4242_3"), std::vector<std::string>{"4242_3"});
  EXPECT_EQ(slurm_task_ids("4242"), std::vector<std::string>{"4242"});
  EXPECT_EQ(slurm_task_ids("4242_[0-2]"), (std::vector<std::string>{"4242_0", "4242_1", "4242_2"}));
  EXPECT_EQ(slurm_task_ids("4242_[0-3%2]"),
            (std::vector<std::string>{"4242_0", "4242_1", "4242_2", "4242_3"}));
  EXPECT_EQ(slurm_task_ids("4242_[1,4-5]"),
            (std::vector<std::string>{"4242_1", "4242_4", "4242_5"}));
  EXPECT_TRUE(slurm_task_ids("4242_3.batch").empty());  // job steps are not tasks
  EXPECT_TRUE(slurm_task_ids("4242_3.0").empty());
  EXPECT_TRUE(slurm_task_ids("4242_[5-1]").empty());
  EXPECT_TRUE(slurm_task_ids("JobID").empty());
  EXPECT_TRUE(slurm_task_ids("4242_[0-99999999]").empty());  // no array of sao is that large
}

// A task cancelled while it was pending: sacct lists the array that never started as one line
// (the case reported as "state unknown (neither squeue nor sacct knows it)").
TEST(SlurmStates, SacctLinesOfACancelledPendingArray) {
  const auto states = parse_sacct_lines("4242_[0-2]|CANCELLED by 0\n");
  ASSERT_EQ(states.size(), 3u);
  EXPECT_EQ(states.at("4242_0"), "CANCELLED");
  EXPECT_EQ(states.at("4242_2"), "CANCELLED");
}

TEST(SlurmStates, SacctLinesOfTasksStepsAndTheRestOfAnArray) {
  const std::string out =
      "4243_0|COMPLETED\n"
      "4243_0.batch|COMPLETED\n"
      "4243_1|FAILED\n"
      "4243_2|TIMEOUT\n"
      "4243_3|OUT_OF_MEMORY\n"
      "4243_4|NODE_FAIL\n"
      "4243_5|PREEMPTED\n"
      "4243_[6-7]|CANCELLED by 1000\n"
      "4243_6|CANCELLED+\n"  // a task's own line says more than its array's
      "\n"
      "garbage without a bar\n";
  const auto states = parse_sacct_lines(out);
  EXPECT_EQ(states.size(), 8u);
  EXPECT_EQ(states.at("4243_0"), "COMPLETED");
  EXPECT_EQ(states.at("4243_1"), "FAILED");
  EXPECT_EQ(states.at("4243_2"), "TIMEOUT");
  EXPECT_EQ(states.at("4243_3"), "OUT_OF_MEMORY");
  EXPECT_EQ(states.at("4243_4"), "NODE_FAIL");
  EXPECT_EQ(states.at("4243_5"), "PREEMPTED");
  EXPECT_EQ(states.at("4243_6"), "CANCELLED");
  EXPECT_EQ(states.at("4243_7"), "CANCELLED");
}

TEST(SlurmStates, SqueueLinesWithStatesAndElapsedTimes) {
  const auto seen = parse_squeue_lines(
      "4244_0|RUNNING|1:02\n"
      "4244_1|COMPLETING|0:59\n"
      "4244_[2-3%1]|PENDING|0:00\n");
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen.at("4244_0"), (std::pair<std::string, std::string>{"RUNNING", "1:02"}));
  EXPECT_EQ(seen.at("4244_1").first, "COMPLETING");
  EXPECT_EQ(seen.at("4244_3").first, "PENDING");
}

}  // namespace
}  // namespace sao::adapters
