// The parts of a StudySession a newcomer can test alone: the store's lock (store_lock.hpp) and the
// assignments of `sao set` (settings_changes.hpp). The session itself (replay, restart,
// continuation) is tested through its own interface in settings_change_test.cpp and the e2e tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sao/store/settings_changes.hpp"
#include "sao/store/store.hpp"
#include "sao/store/store_lock.hpp"
#include "sao/study/study_loader.hpp"
#include "tests/support.hpp"

namespace sao {
namespace {

namespace fs = std::filesystem;
using namespace settings_changes;

TEST(StoreLock, OneHolderItsPidAndNothingLeftWhenReleased) {
  const std::string store =
      (testing::scratch_directory("test-session-parts", "lock") / "study.sqlite").string();
  EXPECT_EQ(store_owner(store), 0);  // no lock file yet
  {
    StoreLock lock(store);
    EXPECT_EQ(store_owner(store), ::getpid());
    std::ifstream in(store + ".lock");
    int pid = 0;
    in >> pid;
    EXPECT_EQ(pid, ::getpid());
    try {
      StoreLock second(store);
      FAIL() << "a second lock was taken";
    } catch (const StoreBusyError& e) {
      // The holder is this very process (another session of it), said so rather than "another
      // sao process (pid ...)".
      EXPECT_NE(std::string(e.what()).find("in use by this process"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(store_owner(store), 0);  // the file stays, the lock went with its holder
  EXPECT_NO_THROW(StoreLock again(store));
}

TEST(StoreLock, AFolderThatDoesNotExistIsAnIoErrorNamingTheLockFile) {
  const fs::path folder = testing::scratch_directory("test-session-parts", "nofolder") / "gone";
  try {
    StoreLock lock((folder / "study.sqlite").string());
    FAIL() << "a lock in a missing folder was taken";
  } catch (const StoreIoError& e) {
    EXPECT_NE(std::string(e.what()).find("study.sqlite.lock"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
  }
}

nlohmann::json document() {
  return nlohmann::json::parse(R"({
    "design_variables": [
      {"name": "b1", "lower": 0.2, "upper": 6.0, "initial": 4.0},
      {"name": "b2", "lower": 0.2, "upper": 6.0, "initial": 3.0}],
    "constraints": [
      {"name": "product", "of": {"response": "r"}, "lower": 4.0},
      {"name": "peak", "of": {"response": "s"}, "upper": "amax"}],
    "starts": [{"b1": 5.5, "b2": 0.5}],
    "settings": {"objacc": 0.5, "max_cycles": 7}})");
}

TEST(SettingsChanges, WhatEachAssignmentIs) {
  EXPECT_EQ(split("a=b=c").key, "a");
  EXPECT_EQ(split("a=b=c").value, "b=c");
  EXPECT_THROW(split("novalue"), StudyError);
  EXPECT_THROW(split("=3"), StudyError);
  EXPECT_TRUE(is_move_limit("move_limit"));
  EXPECT_TRUE(is_move_limit("move_limit.b1"));
  EXPECT_FALSE(is_move_limit("move_limits"));
  EXPECT_TRUE(is_start("start.b1"));
  EXPECT_TRUE(is_bound("design_variables.b1.lower"));
  EXPECT_TRUE(is_constraint_bound("constraints.product.lower"));
  EXPECT_FALSE(edits_document("move_limit.b1"));
  EXPECT_FALSE(edits_document("start.b1"));
  EXPECT_TRUE(edits_document("cutoff"));
  EXPECT_EQ(settings_key("settings.noise"), "noise");
  EXPECT_EQ(settings_key("noise"), "noise");
}

TEST(SettingsChanges, ApplyToEditsTheDocumentAsTheLoaderReadsIt) {
  nlohmann::json d = document();
  apply_to(d, {"settings.form", "quadratic"});
  EXPECT_EQ(d["settings"]["form"], "quadratic");
  apply_to(d, {"cutoff", "0.5"});
  EXPECT_EQ(d["settings"]["cutoff"], 0.5);
  apply_to(d, {"objacc", "null"});  // removed: its default applies
  EXPECT_FALSE(d["settings"].contains("objacc"));
  // A bound keeps the initial value and the alternative starts inside it.
  apply_to(d, {"design_variables.b1.upper", "3.5"});
  EXPECT_EQ(d["design_variables"][0]["upper"], 3.5);
  EXPECT_EQ(d["design_variables"][0]["initial"], 3.5);
  EXPECT_EQ(d["starts"][0]["b1"], 3.5);
  apply_to(d, {"design_variables.b2.lower", "1"});
  EXPECT_EQ(d["starts"][0]["b2"], 1.0);
  apply_to(d, {"constraints.product.lower", "4.5"});
  EXPECT_EQ(d["constraints"][0]["lower"], 4.5);
}

TEST(SettingsChanges, CheckAssignmentNormalisesOrSaysWhatIsWrong) {
  Study study;
  study.design = {DesignVariable{}, DesignVariable{}};
  study.design[0].name = "b1";
  study.design[1].name = "b2";
  nlohmann::json d = document();
  std::vector<std::string> problems, normalised;
  for (const char* text : {"design_variables.1.upper=5", "constraints.0.lower=4.2",
                           "settings.noise=2", "move_limit.b2=0.3", "objacc=null"}) {
    check_assignment(d, study, text, ActionNames(), problems, normalised);
  }
  EXPECT_TRUE(problems.empty()) << problems.front();
  EXPECT_EQ(normalised, (std::vector<std::string>{"design_variables.b2.upper=5",
                                                  "constraints.product.lower=4.2", "noise=2",
                                                  "move_limit.b2=0.3", "objacc=null"}));
  EXPECT_EQ(d["design_variables"][1]["upper"], 5);
  EXPECT_EQ(d["constraints"][0]["lower"], 4.2);

  const std::vector<std::pair<std::string, std::string>> refused = {
      {"move_limit.b3=0.2", "unknown design variable \"b3\""},
      {"move_limit=1.5", "move_limit"},
      {"move_limit=wide", "expected a number"},
      {"design_variables.b1.initial=2", "only a design variable's bounds"},
      {"design_variables.b1.upper=inf", "expected a finite number"},
      {"constraints.product.upper=9", "only a bound the constraint has as a number"},
      {"constraints.peak.upper=9", "only a bound the constraint has as a number"},
      {"constraints.product.lower=x", "expected a finite number"},
      {"errmax=null", "nothing to remove"},
      {"noequals", "expected key=value"},
  };
  for (const auto& [text, words] : refused) {
    std::vector<std::string> found, ok;
    nlohmann::json copy = document();
    check_assignment(copy, study, text, ActionNames(), found, ok);
    ASSERT_EQ(found.size(), 1u) << text;
    EXPECT_NE(found.front().find(words), std::string::npos) << text << ": " << found.front();
    EXPECT_TRUE(ok.empty()) << text;
    EXPECT_EQ(copy, document()) << text << " edited the document";
  }
}

}  // namespace
}  // namespace sao
