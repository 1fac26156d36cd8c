// Every command of `sao` (build/sao --help) producing each exit code it can produce
// (README, "Exit codes"; sao/cli/exit_codes.hpp): 0 converged or valid, 1 not converged,
// 2 bad input or usage, 3 failed analyses or I/O. Also the store's I/O cases: busy, read-only
// file or folder, a full disk (a file size limit), two runs creating one folder at once.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/e2e/store_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace sao::testing;  // query(), execute(), kProblems, ...
using sao::testing::sao;       // the function, before the namespace sao
using Output = CommandOutput;

const std::string kStudy = kProblems + "impact-absorber/max-acceleration.json";
const std::string kBadStudy = std::string(SAO_SOURCE_DIR) + "/tests/data/bad-study.json";

// A study whose external code always fails (every analysis fails: exit 3), with its run
// folders in `dir`.
std::string failing_study(const fs::path& dir) {
  return std::string(SAO_SOURCE_DIR) + "/tests/data/failing-code/study.json --set " +
         "simulator.run_directory=" + (dir / "runs").string();
}

struct Case {
  std::string args;
  int code;
  std::string says;  // part of the output
};

// Runs `sao ARGS` for each case (after `prefix`, e.g. as_unprivileged()) and checks its code
// and output.
void expect_cases(const std::vector<Case>& cases, const std::string& prefix = "") {
  for (const Case& c : cases) {
    const Output o = run_command(prefix + kSao + " " + c.args + " 2>&1");
    EXPECT_EQ(o.code, c.code) << prefix << "sao " << c.args << "\n" << o.text;
    EXPECT_TRUE(contains(o.text, c.says))
        << prefix << "sao " << c.args << ": expected \"" << c.says << "\" in\n"
        << o.text;
  }
}

TEST(ExitCodes, StudyFileCommands) {
  const fs::path dir = scratch_directory("test-exit-codes");
  const std::string failing = failing_study(dir);
  const std::string psi = kProblems + "oscillator/psi.json";
  expect_cases({
      {"check " + kStudy, 0, "valid"},
      {"check " + kBadStudy, 2, "3 problem(s)"},
      {"check " + (dir / "missing.json").string(), 2, "missing.json"},
      {"check", 2, "study is required"},
      {"check-gradient " + psi + " --point 2", 0, "reference"},
      // CLI11's own check wrote the largest double out in 300 digits here.
      {"run " + psi + " --max-cycles 0", 2, "--max-cycles: expected a positive number, got 0"},
      // An objective that is NaN at the start (sqrt of a negative value): shown, exit 3.
      {"evaluate " + psi + " --set 'objective.maximize=\"sqrt(-1 - y[-1])\"'", 3,
       "the analysis of start is unusable: the objective (objective) is "},
      {"check-gradient " + kBadStudy, 2, "problem(s)"},
      {"check-gradient " + failing, 3, "error: "},
      {"evaluate " + kStudy, 0, "objective"},
      {"evaluate " + kBadStudy, 2, "problem(s)"},
      {"evaluate " + failing, 3, "failed"},
      {"run " + kStudy + " -q --out " + (dir / "run0").string(), 0, "converged"},
      {"run " + kStudy + " -q --max-cycles 1 --out " + (dir / "run1").string(), 1, "cycle limit"},
      {"run " + kBadStudy + " --out " + (dir / "run2").string(), 2, "problem(s)"},
      {"run --no-such-option " + kStudy, 2, "no-such-option"},
      {"run " + (dir / "run0").string() + " --executor slurm", 2,
       "--executor and --start apply to a study file"},
      {"run " + (dir / "run0" / "study.sqlite").string() + " --executor slurm", 2,
       "resumes with the study, executor and start"},
      {"run " + (dir / "run0").string() + " --set settings.max_cycles=3", 2, "--set, --executor"},
      {"run " + kStudy + " --executor pbs", 2, "--executor"},
      {"run " + failing + " -q --out " + (dir / "run3").string(), 3, "failed"},
      {"run " + kStudy + " -q --out /dev/null/x", 3, "cannot create the output folder"},
      {"sweep " + kStudy + " --vary constraints.0.upper=0.9,1 --jobs 1 --out " +
           (dir / "sweep0").string(),
       0, "2 members"},
      {"sweep " + kStudy + " --vary constraints.0.upper=oops", 2, "not a number"},
      {"sweep " + failing + " --vary settings.max_cycles=2,3 --jobs 1 --out " +
           (dir / "sweep3").string(),
       3, "failed"},
      {"--no-such-command", 2, "subcommand"},
      {"--help", 0, "Subcommands"},
  });
}

// Studies with a defect found by fuzzing, each refused by `sao check` and `sao run` with exit 2
// and a message naming the place (JSON path; line and column for the file's syntax), never the
// JSON library's exception text ("[json.exception.type_error.302] type must be string" and
// "number overflow parsing '1e5000'" without a place, before).
TEST(ExitCodes, StudyDefectsAreNamedWhereTheyAre) {
  const fs::path dir = scratch_directory("test-exit-codes-defects");
  const std::string source = kProblems + "impact-absorber/max-acceleration-multibody.json";
  const nlohmann::json original = nlohmann::json::parse(read_file(source));
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  nlohmann::json boolean_type = original, nested = original;
  boolean_type["simulator"]["multibody"]["forces"][0]["type"] = true;
  nested["simulator"]["multibody"]["forces"] =
      nlohmann::json::array({original["simulator"]["multibody"]["forces"]});
  std::string overflow = original.dump(2);
  const std::string initial = "\"initial\": 0.85";
  ASSERT_NE(overflow.find(initial), std::string::npos);
  const size_t at = overflow.find(initial);
  overflow.replace(at, initial.size(), "\"initial\": 1e5000");
  const size_t number = at + initial.size() - 4;  // where 1e5000 starts
  const std::string line =
      std::to_string(1 + std::count(overflow.begin(), overflow.begin() + at, '\n'));
  const std::string column = std::to_string(number - overflow.rfind('\n', at));
  const std::vector<std::pair<std::string, std::string>> defects{
      {write("overflow.json", overflow),
       "auxiliary_variables[0].initial (line " + line + ", column " + column +
           "): the number 1e5000 is beyond the range of a double"},
      {write("boolean-type.json", boolean_type.dump(2)),
       "simulator.multibody.forces[0].type: expected a string, got true"},
      {write("nested.json", nested.dump(2)),
       "simulator.multibody.forces[0]: expected an object, got an array of 1 entry"},
  };
  for (const auto& [file, says] : defects) {
    for (const std::string& command :
         {"check " + file, "run " + file + " -q --out " + (dir / "out").string()}) {
      const Output o = run_command(kSao + " " + command + " 2>&1");
      EXPECT_EQ(o.code, 2) << "sao " << command << "\n" << o.text;
      EXPECT_TRUE(contains(o.text, says))
          << "sao " << command << ": expected \"" << says << "\" in\n"
          << o.text;
      EXPECT_FALSE(contains(o.text, "[json.exception")) << "sao " << command << "\n" << o.text;
    }
  }
}

// The worker of a batch executor (docs/cluster.md): a request of a closed-form model in, its
// evaluation out; a failed analysis is written and exits 3; a file that is no request exits 2.
TEST(ExitCodes, AnalyseWritesTheEvaluation) {
  const fs::path dir = scratch_directory("test-exit-codes-analyse");
  auto request = [&](const std::string& name, const std::string& f, double x) {
    const fs::path file = dir / name;
    std::ofstream(file)
        << R"({"format": "sao-analysis-request", "setup": {"section": )"
        << R"({"type": "internal", "model": "functions", "functions": {"f": ")" << f
        << R"("}}, "design_names": ["x"], "load_cases": [{"name": "c", "grid": )"
        << R"({"start": 0, "end": 1, "points": 2, "values": []}, "parameters": {}}],)"
        << R"( "study_directory": ""}, "design": [)" << x
        << R"(], "derivatives": [{"load_case": 0, "response": "f", "points": []}]})";
    return file.string();
  };
  const std::string good = request("good.json", "x*x", 3.0);
  const std::string bad = request("bad.json", "log(x)", -1.0);
  std::ofstream(dir / "other.json") << R"({"name": "a study?"})";
  expect_cases({
      {"analyse " + good + " " + (dir / "good-out.json").string(), 0, ""},
      {"analyse " + bad + " " + (dir / "bad-out.json").string(), 3, ""},
      {"analyse " + (dir / "other.json").string() + " " + (dir / "x.json").string(), 2,
       "not an analysis request"},
      {"analyse " + good, 2, "evaluation is required"},
  });
  std::ifstream in(dir / "good-out.json");
  const nlohmann::json e = nlohmann::json::parse(in);
  EXPECT_TRUE(e["ok"].get<bool>());
  EXPECT_EQ(e["cases"][0]["scalars"]["f"].get<double>(), 9.0);
  EXPECT_NEAR(e["cases"][0]["gradients"]["f"]["values"][0].get<double>(), 6.0, 1e-2);
  std::ifstream failed(dir / "bad-out.json");
  EXPECT_FALSE(nlohmann::json::parse(failed)["ok"].get<bool>());
}

// Files other than studies that a command reads: a request of `sao analyse` and a result file
// of `sao evaluate --design`, each with a syntax error, a number beyond a double and a value of
// the wrong kind: exit 2, the file and the place in it named (line and column, JSON path),
// never the JSON library's exception text.
TEST(ExitCodes, MalformedRequestAndResultFilesAreNamedWhereTheyAre) {
  const fs::path dir = scratch_directory("test-exit-codes-malformed");
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  const std::string request_head = R"({"format": "sao-analysis-request", "setup": )";
  const std::string psi = kProblems + "oscillator/psi.json";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"analyse " + write("syntax.json", request_head + "{\n  \"section\": {],\n}}") + " " +
           (dir / "out.json").string(),
       dir.string() + "/syntax.json: line 2, column 15 (reading setup.section): not valid JSON: "},
      {"analyse " + write("overflow.json", request_head + "{}, \"design\": [1e5000]}") + " " +
           (dir / "out.json").string(),
       dir.string() + "/overflow.json: design[0] (line 1, column 60): the number 1e5000 is beyond "
                      "the range of a double"},
      {"analyse " +
           write("kind.json", request_head +
                                  R"({"section": {}, "design_names": ["a", 2], "load_cases": [],)"
                                  R"( "study_directory": ""}, "design": [], "derivatives": []})") +
           " " + (dir / "out.json").string(),
       dir.string() + "/kind.json: setup.design_names[1]: expected a string, got a number (2)"},
      {"evaluate " + psi + " --design " +
           write("syntax-result.json", "{\"design\": {\"c\": 0.5,}}"),
       dir.string() +
           "/syntax-result.json: line 1, column 22 (reading design.c): not valid JSON: "},
      {"evaluate " + psi + " --design " +
           write("overflow-result.json", R"({"design": {"c": 1e5000}})"),
       dir.string() + "/overflow-result.json: design.c (line 1, column 18): the number 1e5000 is "
                      "beyond the range of a double"},
      {"evaluate " + psi + " --design " + write("kind-result.json", R"({"design": {"z0": "0.5"}})"),
       dir.string() + "/kind-result.json: design.z0: expected a number, got a string (\"0.5\")"},
  };
  for (const auto& [command, says] : cases) {
    const Output o = run_command(kSao + " " + command + " 2>&1");
    EXPECT_EQ(o.code, 2) << "sao " << command << "\n" << o.text;
    EXPECT_TRUE(contains(o.text, "error: " + says))
        << "sao " << command << ": expected \"" << says << "\" in\n"
        << o.text;
    EXPECT_FALSE(contains(o.text, "[json.exception")) << "sao " << command << "\n" << o.text;
  }
  EXPECT_FALSE(fs::exists(dir / "out.json"));  // no evaluation written for a request not read
}

TEST(ExitCodes, StoreCommands) {
  const fs::path dir = scratch_directory("test-exit-codes");
  const std::string d = (dir / "s").string();
  const std::string limited = (dir / "limited").string();
  // The cycle limit in the stored study (--max-cycles is not stored): step says the run ended.
  ASSERT_EQ(sao("run " + kStudy + " -q --set settings.max_cycles=2 --out " + limited).code, 1);
  const fs::path notes = dir / "notes.txt";
  std::ofstream(notes) << "not a store\n";
  const fs::path empty = dir / "empty.sqlite";
  std::ofstream(empty).close();
  // result.json cannot be written (a folder of that name): I/O, exit 3, no abort.
  fs::create_directories(dir / "unwritable" / "result.json");
  expect_cases({
      {"run " + kStudy + " -q --out " + (dir / "unwritable").string(), 3,
       "cannot write " + (dir / "unwritable" / "result.json").string()},
      {"step " + d + " --study " + kStudy, 0, "branch 1, cycle 1"},
      {"step " + limited, 1, "run ended: "},
      {"step " + notes.string(), 2, "not a study store"},
      {"step " + (dir / "nowhere").string(), 2, "no study store here"},
      {"status " + d, 0, "* branch 1"},
      {"status " + empty.string(), 2, "not a study store (an empty file)"},
      {"status " + notes.string(), 2, "not a study store"},
      {"set " + d + " cutoff=0.5", 0, "from cycle 2"},
      {"set " + d + " cuttoff=0.5", 2, "unknown key"},
      {"restart " + d + " --from-cycle 1", 0, "branch 2"},
      {"restart " + d + " --from-cycle 99", 2, "not a cycle of the current history"},
      {"report " + d, 0, "report.html"},
      {"report " + notes.string(), 2, "not a study store"},
      {"report " + d + " --out " + (dir / "missing" / "r.html").string(), 3, "cannot write"},
  });
  // `status` on an empty file did not make it a store.
  EXPECT_EQ(fs::file_size(empty), 0u);
  // Busy: another process holds the study's lock.
  const int fd = ::open((d + "/study.sqlite.lock").c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
  expect_cases({
      {"step " + d, 3, "busy, in use by another sao process"},
      {"set " + d + " cutoff=0.6", 3, "busy"},
      {"restart " + d + " --from-cycle 1", 3, "busy"},
      {"run " + d, 3, "busy"},
      {"status " + d, 0, "* branch 2"},  // readers need no lock
  });
  ::close(fd);
}

TEST(ExitCodes, ReadOnlyStoresAreReadByStatusAndReportAndRefusedForWriting) {
  const fs::path dir = scratch_directory("test-exit-codes");
  const fs::path ro = dir / "ro";
  ASSERT_EQ(sao("run " + kStudy + " -q --out " + ro.string()).code, 0);
  const std::string before = read_file(ro / "study.sqlite");
  // A read-only folder (and file) for the user running sao: owned by root when the tests run
  // as root (sao then runs as nobody), else without write permission.
  fs::permissions(ro / "study.sqlite",
                  fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                          fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  const std::string user = as_unprivileged();
  const std::string out = (fs::temp_directory_path() / "sao-exit-codes-report.html").string();
  fs::remove(out);
  expect_cases({{"status " + ro.string(), 0, "* branch 1"},
                {"report " + ro.string() + " --out " + out, 0, "written"},
                {"step " + ro.string(), 3, "read-only"},
                {"set " + ro.string() + " cutoff=0.5", 3, "read-only"},
                {"restart " + ro.string() + " --from-cycle 1", 3, "read-only"},
                {"run " + ro.string(), 3, "read-only"}},
               user);
  EXPECT_TRUE(fs::exists(out));
  fs::remove(out);
  fs::permissions(ro, fs::perms::owner_all, fs::perm_options::add);
  EXPECT_EQ(read_file(ro / "study.sqlite"), before);
  // A read-only store file in a folder the user may write (the lock can be taken): named as
  // read-only too, for a command that writes; read by status.
  fs::permissions(ro, fs::perms::all);
  fs::permissions(ro / "study.sqlite",
                  fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  expect_cases(
      {{"set " + ro.string() + " cutoff=0.5", 3, "the study store is read-only (file permissions)"},
       {"status " + ro.string(), 0, "* branch 1"}},
      user);
  EXPECT_EQ(read_file(ro / "study.sqlite"), before);
  // A store file nobody may read: an I/O error naming it, not "not a store".
  fs::permissions(ro / "study.sqlite", fs::perms::none);
  expect_cases({{"status " + ro.string(), 3, "cannot read the study store (permission denied)"}},
               user);
  fs::permissions(ro / "study.sqlite", fs::perms::owner_read | fs::perms::owner_write);
}

TEST(ExitCodes, AFullDiskIsAnIoErrorAndKeepsTheResults) {
  const fs::path dir = scratch_directory("test-exit-codes");
  // A file size limit stands for a full disk (the store cannot grow, result.json cannot be
  // written): exit 3 with an I/O message, never "bad input".
  const Output o = run_command("bash -c \"trap '' XFSZ; ulimit -f 100; " + kSao + " run " + kStudy +
                               " -q --out " + (dir / "full").string() + "\" 2>&1");
  EXPECT_EQ(o.code, 3) << o.text;
  EXPECT_TRUE(contains(o.text, "disk full") || contains(o.text, "I/O error")) << o.text;
  EXPECT_FALSE(contains(o.text, "not a study store")) << o.text;
  // The same folder, with room again, resumes to the converged result of a run that never
  // ran out of room.
  const Output resumed = sao("run " + (dir / "full").string() + " -q");
  EXPECT_EQ(resumed.code, 0) << resumed.text;
  ASSERT_EQ(sao("run " + kStudy + " -q --out " + (dir / "room").string()).code, 0);
  EXPECT_EQ(read_json(dir / "full" / "result.json")["design"],
            read_json(dir / "room" / "result.json")["design"]);
}

TEST(ExitCodes, TwoRunsCreatingOneFolderAtOnce) {
  const fs::path dir = scratch_directory("test-exit-codes");
  for (int k = 0; k < 3; ++k) {
    const std::string out = (dir / ("both-" + std::to_string(k))).string();
    const std::string command = kSao + " run " + kStudy + " -q --out " + out;
    const Output o =
        run_command("(" + command + " & " + command + "; wait $!; echo \"first $?\") 2>&1; echo");
    // One of them runs, the other runs too (after it) or is told the store is busy; never an
    // SQLite error about the schema.
    EXPECT_FALSE(contains(o.text, "already exists")) << o.text;
    EXPECT_TRUE(contains(o.text, "converged")) << o.text;
    EXPECT_TRUE(!contains(o.text, "error: ") || contains(o.text, "busy")) << o.text;
  }
}

}  // namespace
