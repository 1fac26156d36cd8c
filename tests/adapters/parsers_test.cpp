#include "adapters/parsers.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>

#include "sao/study/open_study.hpp"
#include "simulators/internal_simulator.hpp"
#include "tests/support.hpp"

namespace sao::adapters {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

class Parsers : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = sao::testing::scratch_directory("adapter-tests"); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  // Reads response `entry` from the files written; "" or the failure.
  std::string read(const json& entry, CaseResult& r, TimeGrid grid = TimeGrid(0.0, 1.0, 5)) {
    return read_output(parse_output_spec(entry, "simulator.responses[0]"), dir_, grid, r);
  }
  fs::path dir_;
};

TEST_F(Parsers, ScalarsByRegexCellAndJson) {
  write("out.txt", "iter 1 mass = 3.5\niter 2 mass = 2.25D+00\n  a  b  -7.5e-3\n");
  write("out.json", R"({"result": {"mass": 12.5}})");
  CaseResult r;
  EXPECT_EQ(read({{"name", "m1"},
                  {"kind", "scalar"},
                  {"file", "out.txt"},
                  {"parser", "regex"},
                  {"pattern", "mass = (\\S+)"}},
                 r),
            "");
  EXPECT_EQ(read({{"name", "m2"},
                  {"kind", "scalar"},
                  {"file", "out.txt"},
                  {"parser", "regex"},
                  {"pattern", "mass = (\\S+)"},
                  {"occurrence", "last"}},
                 r),
            "");
  EXPECT_EQ(read({{"name", "c"},
                  {"kind", "scalar"},
                  {"file", "out.txt"},
                  {"parser", "cell"},
                  {"line", -1},
                  {"column", 3}},
                 r),
            "");
  EXPECT_EQ(read({{"name", "j"},
                  {"kind", "scalar"},
                  {"file", "out.json"},
                  {"parser", "json"},
                  {"pointer", "/result/mass"}},
                 r),
            "");
  EXPECT_EQ(r.scalars.at("m1"), 3.5);
  EXPECT_EQ(r.scalars.at("m2"), 2.25);  // Fortran exponent
  EXPECT_EQ(r.scalars.at("c"), -7.5e-3);
  EXPECT_EQ(r.scalars.at("j"), 12.5);
}

TEST_F(Parsers, HistoriesAreResampledOntoTheStudyGrid) {
  // The code's grid (0, 0.1, ..., 1) differs from the study's (0, 0.25, ..., 1).
  std::string table = "# t  u  v\n";
  for (int k = 0; k <= 10; ++k) {
    table += std::to_string(0.1 * k) + " " + std::to_string(2.0 * 0.1 * k) + " 7\n";
  }
  write("h.txt", table);
  CaseResult r;
  EXPECT_EQ(read({{"name", "u"},
                  {"kind", "history"},
                  {"file", "h.txt"},
                  {"parser", "columns"},
                  {"time", 1},
                  {"value", 2}},
                 r),
            "");
  ASSERT_EQ(r.histories.at("u").size(), 5);
  for (int p = 0; p < 5; ++p) EXPECT_NEAR(r.histories.at("u")(p), 2.0 * 0.25 * p, 1e-12);

  write("named.txt", "skip me\ntime disp\n0 1\n1 3\n");
  EXPECT_EQ(read({{"name", "d"},
                  {"kind", "history"},
                  {"file", "named.txt"},
                  {"parser", "columns"},
                  {"time", "time"},
                  {"value", "disp"},
                  {"skip", 1}},
                 r),
            "");
  EXPECT_NEAR(r.histories.at("d")(2), 2.0, 1e-15);

  write("blocks.dat",
        "step time 0.0\n node 1 5.0\nstep time 0.5\n node 1 6.0\nstep time 1.0\n node 1 9.0\n");
  EXPECT_EQ(read({{"name", "b"},
                  {"kind", "history"},
                  {"file", "blocks.dat"},
                  {"parser", "regex"},
                  {"pattern", "time (\\S+)\\s+node 1 (\\S+)"}},
                 r),
            "");
  EXPECT_NEAR(r.histories.at("b")(1), 5.5, 1e-15);
  EXPECT_NEAR(r.histories.at("b")(3), 7.5, 1e-15);
}

TEST_F(Parsers, EveryFailureNamesResponseFileAndLine) {
  CaseResult r;
  const json scalar = {{"name", "f"},
                       {"kind", "scalar"},
                       {"file", "r.txt"},
                       {"parser", "regex"},
                       {"pattern", "f = (\\S+)"}};
  EXPECT_EQ(read(scalar, r), "response \"f\": file r.txt: missing (not written by the code)");
  write("r.txt", "\nf = 1.2.3\n");
  EXPECT_EQ(read(scalar, r), "response \"f\": file r.txt, line 2: \"1.2.3\" is not a number");
  write("r.txt", "f = nan\n");
  EXPECT_EQ(read(scalar, r), "response \"f\": file r.txt, line 1: \"nan\" is not finite");
  write("r.txt", "f = -inf\n");
  EXPECT_EQ(read(scalar, r), "response \"f\": file r.txt, line 1: \"-inf\" is not finite");
  write("r.txt", "nothing\n");
  EXPECT_EQ(read(scalar, r), "response \"f\": file r.txt: no match of /f = (\\S+)/");

  const json history = {{"name", "u"},         {"kind", "history"}, {"file", "h.txt"},
                        {"parser", "columns"}, {"time", 1},         {"value", 2}};
  write("h.txt", "0 1\n0.5 2\n");
  EXPECT_THAT(read(history, r), HasSubstr("response \"u\": file h.txt, line 2: short history: "
                                          "the file covers t in [0, 0.5]"));
  write("h.txt", "0 1\n0.5\n");
  EXPECT_EQ(read(history, r),
            "response \"u\": file h.txt, line 2: has 1 columns read with delimiter "
            "\"whitespace\", expected at least 2");
  write("h.txt", "0 1\n0.5 x\n1 2\n");
  EXPECT_EQ(read(history, r), "response \"u\": file h.txt, line 2: \"x\" is not a number");
  write("h.txt", "0 1\n0.5 inf\n1 2\n");
  EXPECT_EQ(read(history, r), "response \"u\": file h.txt, line 2: \"inf\" is not finite");

  const json at_a = {
      {"name", "a"}, {"kind", "scalar"}, {"file", "j.json"}, {"parser", "json"}, {"pointer", "/a"}};
  // The place in the file (line, column, JSON path), never the JSON library's text.
  write("j.json", "{\"a\": 1");
  EXPECT_THAT(
      read(at_a, r),
      HasSubstr("response \"a\": file j.json: line 1, column 8 (reading a): not valid JSON: "));
  EXPECT_THAT(read(at_a, r), Not(HasSubstr("[json.exception")));
  write("j.json", "{\"a\": 475E9091}");  // beyond a double (found by the parsers fuzzer)
  EXPECT_EQ(read(at_a, r),
            "response \"a\": file j.json: a (line 1, column 7): the number 475E9091 is beyond the "
            "range of a double (at most about 1.8e308)");
  write("j.json", "[]");  // an empty token on an array: contains() says yes, at() throws
  json at_empty_token = at_a;
  at_empty_token["pointer"] = "//h";
  EXPECT_EQ(read(at_empty_token, r), "response \"a\": file j.json: no value at //h");
  write("j.json", "{\"a\": null}");
  EXPECT_EQ(read({{"name", "a"},
                  {"kind", "scalar"},
                  {"file", "j.json"},
                  {"parser", "json"},
                  {"pointer", "/b"}},
                 r),
            "response \"a\": file j.json: no value at /b");
  EXPECT_EQ(read({{"name", "a"},
                  {"kind", "scalar"},
                  {"file", "j.json"},
                  {"parser", "json"},
                  {"pointer", "/a"}},
                 r),
            "response \"a\": file j.json, /a: expected a finite number, got null");
}

TEST_F(Parsers, ExactGridWhenResamplingIsOff) {
  write("h.txt", "0 1\n0.3 2\n1 3\n");
  CaseResult r;
  EXPECT_EQ(read({{"name", "u"},
                  {"kind", "history"},
                  {"file", "h.txt"},
                  {"parser", "columns"},
                  {"time", 1},
                  {"value", 2},
                  {"resample", false}},
                 r, TimeGrid(0.0, 1.0, 3)),
            "response \"u\": file h.txt, line 3: time 0.3 differs from the grid's 0.5 "
            "(\"resample\": false)");
}

TEST(ParserSpecs, UnknownKeysAndBadEntriesNameTheirPath) {
  auto error = [](const json& e) {
    try {
      parse_output_spec(e, "simulator.responses[2]");
    } catch (const std::invalid_argument& x) {
      return std::string(x.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error({{"name", "f"},
                     {"kind", "scalar"},
                     {"file", "r"},
                     {"parser", "regex"},
                     {"pattern", "(x)"},
                     {"grup", 1}}),
              HasSubstr("simulator.responses[2].grup: unknown key"));
  EXPECT_THAT(error({{"name", "f"},
                     {"kind", "scalar"},
                     {"file", "r"},
                     {"parser", "regex"},
                     {"pattern", "x"}}),
              HasSubstr("simulator.responses[2].group: the pattern has 0 capture group(s)"));
  EXPECT_THAT(error({{"name", "f"},
                     {"kind", "scalar"},
                     {"file", "../etc/passwd"},
                     {"parser", "cell"},
                     {"line", 1}}),
              HasSubstr("simulator.responses[2].file: expected a path inside the run directory"));
  EXPECT_THAT(
      error({{"name", "f"}, {"kind", "history"}, {"file", "r"}, {"parser", "cell"}, {"line", 1}}),
      HasSubstr("simulator.responses[2].parser: \"cell\" reads a scalar"));
  EXPECT_THAT(error({{"name", "f"}, {"kind", "scalar"}, {"file", "r"}, {"parser", "xml"}}),
              HasSubstr("simulator.responses[2].parser: expected"));
  // Every problem of an entry at once.
  Problems problems;
  parse_output_spec({{"kind", "scalar"}, {"file", "/r"}, {"parser", "cell"}, {"column", 0}},
                    "simulator.responses[2]", problems);
  EXPECT_EQ(problems.list(),
            (std::vector<std::string>{
                "simulator.responses[2].name: missing (expected a string)",
                "simulator.responses[2].file: expected a path inside the run directory "
                "(relative, without \"..\"), got \"/r\"",
                "simulator.responses[2].line: missing: 1-based line (negative from the end)",
                "simulator.responses[2].column: expected an integer >= 1, got 0"}));
}

}  // namespace
// Outputs are read only from regular files inside the run directory (issue 18).
TEST_F(Parsers, OutputsAreReadOnlyFromRegularFilesInTheRunDirectory) {
  const json entry = {{"name", "f"},      {"kind", "scalar"}, {"file", "out.txt"},
                      {"parser", "cell"}, {"line", 1},        {"column", 1}};
  CaseResult r;
  // A FIFO would block a plain reader forever: refused at once.
  ASSERT_EQ(::mkfifo((dir_ / "out.txt").c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(read(entry, r), HasSubstr("file out.txt: is a FIFO, not a regular file"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  fs::remove(dir_ / "out.txt");
  // A symbolic link, to a file outside or inside: refused.
  const fs::path outside = dir_.parent_path() / "outside-secret.txt";
  std::ofstream(outside) << "42\n";
  fs::create_symlink(outside, dir_ / "out.txt");
  EXPECT_THAT(read(entry, r), HasSubstr("resolves outside the run directory"));
  fs::remove(dir_ / "out.txt");
  write("real.txt", "42\n");
  fs::create_symlink(dir_ / "real.txt", dir_ / "out.txt");
  EXPECT_THAT(read(entry, r), HasSubstr("is a symbolic link"));
  fs::remove(dir_ / "out.txt");
  // A directory: refused; a regular file: read.
  fs::create_directory(dir_ / "out.txt");
  EXPECT_THAT(read(entry, r), HasSubstr("is a directory"));
  fs::remove(dir_ / "out.txt");
  write("out.txt", "3.5\n");
  EXPECT_EQ(read(entry, r), "");
  EXPECT_EQ(r.scalars.at("f"), 3.5);
}

TEST_F(Parsers, OutputsOverTheSizeLimitAreRefusedWithoutReading) {
  const json entry = {{"name", "f"},      {"kind", "scalar"}, {"file", "big.txt"},
                      {"parser", "cell"}, {"line", 1},        {"column", 1}};
  {
    std::ofstream big(dir_ / "big.txt");
    big << "1.0\n";
  }
  fs::resize_file(dir_ / "big.txt", (256ull << 20) + 1);  // sparse: no disk used
  CaseResult r;
  EXPECT_THAT(read(entry, r), HasSubstr("over the limit of 256 MiB"));
}

}  // namespace sao::adapters

namespace sao::adapters {
namespace {

// A response read by a regular expression from `file`.
json regex_entry(const std::string& name, const std::string& kind, const std::string& file,
                 const std::string& pattern, bool last = false) {
  json e = {
      {"name", name}, {"kind", kind}, {"file", file}, {"parser", "regex"}, {"pattern", pattern}};
  if (last) e["occurrence"] = "last";
  return e;
}

// Regular expressions are RE2's: linear time, no recursion (issue 18: a 30 000-character token
// crashed std::regex with a stack overflow in a worker thread).
TEST_F(Parsers, LongTokensAndPathologicalPatternsAreMatchedInLinearTime) {
  const std::string token = "1." + std::string(40000, '0');
  write("out.txt", "f = " + token + "\n" + std::string(40000, 'x') + "\n");
  CaseResult r;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(read(regex_entry("f", "scalar", "out.txt", "f = (\\S+)"), r), "");
  EXPECT_EQ(r.scalars.at("f"), 1.0);
  // Exponential for a backtracking engine; here one pass over the text.
  // A message quotes only the start of a huge token.
  write("huge.txt", "f = " + std::string(40000, '9') + "\n");
  EXPECT_EQ(read(regex_entry("f", "scalar", "huge.txt", "f = (\\S+)"), r),
            "response \"f\": file huge.txt, line 1: \"" + std::string(40, '9') +
                "...\" (40000 characters) is not finite");
  EXPECT_THAT(read(regex_entry("g", "scalar", "out.txt", "((x+x+)+y)"), r),
              HasSubstr("no match of /((x+x+)+y)/"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(Parsers, AHundredMegabyteOutputIsParsedWithinSeconds) {
  {
    std::ofstream out(dir_ / "big.txt");
    const std::string filler(100, '.');
    for (int k = 0; k < 1000000; ++k) {  // 101 MB: 10^6 lines of 101 bytes
      if (k % 100000 == 0) {
        out << "t " << k / 100000 * 0.1 << " u " << k << "\n";
      } else {
        out << filler << "\n";
      }
    }
    out << "mass = 2.5\n";
  }
  ASSERT_GT(fs::file_size(dir_ / "big.txt"), 100'000'000u);
  CaseResult r;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(read(regex_entry("m", "scalar", "big.txt", "mass = (\\S+)", true), r), "");
  EXPECT_EQ(r.scalars.at("m"), 2.5);
  EXPECT_EQ(
      read(regex_entry("h", "history", "big.txt", "t (\\S+) u (\\S+)"), r, TimeGrid(0.0, 0.9, 10)),
      "");
  EXPECT_NEAR(r.histories.at("h")(9), 900000.0, 1e-6);
  // A wrong number on the last of a million lines is named by its line.
  EXPECT_THAT(read(regex_entry("c", "scalar", "big.txt", "(mass) ="), r),
              HasSubstr("line 1000001: \"mass\" is not a number"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  fs::remove(dir_ / "big.txt");
}

TEST(ParserSpecs, APatternRe2RejectsIsALoadTimeErrorNamingResponseAndPattern) {
  try {
    // A look-ahead: not in RE2.
    parse_output_spec(regex_entry("f", "scalar", "r", "(\\d+)(?=px)"), "simulator.responses[1]");
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("simulator.responses[1].pattern: response \"f\": pattern "
                                    "/(\\d+)(?=px)/ is not a regular expression RE2 accepts"));
  }
}

// Delimited tables (issue 49): "columns" with "delimiter" and "units", read with libcsv.
class Delimited : public Parsers {
 protected:
  // A "columns" history `value` of `file` by name, with `extra` keys.
  static json columns(const std::string& file, const std::string& value,
                      const json& extra = json::object()) {
    json e = {{"name", "h"},         {"kind", "history"}, {"file", file},
              {"parser", "columns"}, {"time", "time"},    {"value", value}};
    e.update(extra);
    return e;
  }
  // Reads `entry` on the grid 0, 0.5, 1 and returns the history (empty after a failure, which
  // is a test failure).
  std::vector<double> history(const json& entry) {
    CaseResult r;
    const std::string error = read(entry, r, TimeGrid(0.0, 1.0, 3));
    EXPECT_EQ(error, "") << entry.dump();
    if (!error.empty()) return {};
    const Eigen::VectorXd& h = r.histories.at("h");
    return {h.data(), h.data() + h.size()};
  }
  const std::vector<double> expected_ = {1.5, -2.25, 3e-3};
};

TEST_F(Delimited, CommaSeparatedByNameOrIndexDetectedOrGiven) {
  write("h.csv", "time,acc,travel\n0,1.5,10\n0.5,-2.25,20\n1,3e-3,30\n");
  EXPECT_EQ(history(columns("h.csv", "acc")), expected_);
  EXPECT_EQ(history(columns("h.csv", "acc", {{"delimiter", ","}})), expected_);
  EXPECT_EQ(history(columns("h.csv", "travel")), (std::vector<double>{10, 20, 30}));
  EXPECT_EQ(history({{"name", "h"},
                     {"kind", "history"},
                     {"file", "h.csv"},
                     {"parser", "columns"},
                     {"time", 1},
                     {"value", 2},
                     {"header", true}}),
            expected_);
  // Spaces around fields and a line end of Windows are not part of a field.
  write("spaced.csv", " time , acc \r\n 0 , 1.5\r\n0.5 ,-2.25 \r\n1, 3e-3\r\n");
  EXPECT_EQ(history(columns("spaced.csv", "acc")), expected_);
}

TEST_F(Delimited, SemicolonsWithAUnitsRowUnderTheHeader) {
  write("h.csv", "# crash code 1.0\ntime;acc;travel\ns;m/s^2;m\n0;1.5;1\n0.5;-2.25;2\n1;3e-3;3\n");
  EXPECT_EQ(history(columns("h.csv", "acc", {{"units", true}})), expected_);
  EXPECT_EQ(history(columns("h.csv", "acc", {{"units", true}, {"delimiter", ";"}})), expected_);
  // Without "units" the units row is read as data.
  CaseResult r;
  EXPECT_EQ(read(columns("h.csv", "acc"), r),
            "response \"h\": file h.csv, line 3: \"s\" is not a number");
  // A header and nothing under it.
  write("head.csv", "time;acc\n");
  EXPECT_EQ(read(columns("head.csv", "acc", {{"units", true}}), r),
            "response \"h\": file head.csv: no units row under the header");
}

TEST_F(Delimited, TabsOneFieldPerTab) {
  write("h.tsv", "time\tacc\ttravel\n0\t1.5\t1\n 0.5 \t -2.25\t2\n1\t3e-3\t3\n");
  EXPECT_EQ(history(columns("h.tsv", "acc")), expected_);
  EXPECT_EQ(history(columns("h.tsv", "acc", {{"delimiter", "tab"}})), expected_);
  EXPECT_EQ(history(columns("h.tsv", "acc", {{"delimiter", "\t"}})), expected_);
  // Two tabs are an empty field between them, where white space would see one separator.
  write("two.tsv", "time\t\tacc\n0\t\t1.5\n0.5\t\t-2.25\n1\t\t3e-3\n");
  EXPECT_EQ(history({{"name", "h"},
                     {"kind", "history"},
                     {"file", "two.tsv"},
                     {"parser", "columns"},
                     {"time", 1},
                     {"value", 3},
                     {"header", true}}),
            expected_);
  EXPECT_EQ(history(columns("two.tsv", "acc", {{"delimiter", "whitespace"}})), expected_);
  CaseResult r;
  EXPECT_EQ(read({{"name", "h"},
                  {"kind", "history"},
                  {"file", "two.tsv"},
                  {"parser", "columns"},
                  {"time", 1},
                  {"value", 2},
                  {"header", true}},
                 r),
            "response \"h\": file two.tsv, line 2: empty field instead of a number");
}

TEST_F(Delimited, QuotedFieldsKeepTheirDelimiters) {
  write("h.csv",
        "\"time\",\"Chassis acc, m/s^2\",\"say \"\"hi\"\"\"\n"
        "0,\"1.5\",a\n0.5,-2.25,\"b,c\"\n1,  \"3e-3\"  ,d\n");
  EXPECT_EQ(history(columns("h.csv", "Chassis acc, m/s^2")), expected_);
  // The third column holds text.
  CaseResult r;
  EXPECT_EQ(read(columns("h.csv", "say \"hi\""), r),
            "response \"h\": file h.csv, line 2: \"a\" is not a number");
  // Spaces inside the quotes are trimmed too.
  write("inner.csv", "\" time \",\" acc \"\n0,\" 1.5\"\n0.5,\"-2.25 \"\n1,\"\t3e-3 \"\n");
  EXPECT_EQ(history(columns("inner.csv", "acc")), expected_);
  write("h.ssv", "time;\"acc; filtered\"\n0;1.5\n0.5;-2.25\n1;3e-3\n");
  EXPECT_EQ(history(columns("h.ssv", "acc; filtered")), expected_);
  write("h.tsv", "time\t\"acc\tfiltered\"\n0\t1.5\n0.5\t-2.25\n1\t3e-3\n");
  EXPECT_EQ(history(columns("h.tsv", "acc\tfiltered")), expected_);
  // White space: a header name in quotes matches its bare name.
  write("h.txt", "\"time\"  \"acc\"\n0 1.5\n0.5 -2.25\n1 3e-3\n");
  EXPECT_EQ(history(columns("h.txt", "acc")), expected_);
  EXPECT_EQ(history(columns("h.txt", " acc ")), expected_);
}

// The example of docs/adapters.md (Delimited tables), and its message.
TEST_F(Delimited, TheExampleOfTheDocs) {
  write("out.csv", "time,Chassis acc,\"travel, m\"\ns,m/s^2,m\n0,0,0\n0.001,-12.5,0.0009\n");
  const json entry = {{"name", "acc"},       {"kind", "history"}, {"file", "out.csv"},
                      {"parser", "columns"}, {"time", "time"},    {"value", "Chassis acc"},
                      {"units", true}};
  CaseResult r;
  EXPECT_EQ(read(entry, r, TimeGrid(0.0, 0.001, 2)), "");
  EXPECT_EQ(r.histories.at("acc")(1), -12.5);
  json t = entry;
  t["time"] = "t";
  EXPECT_EQ(read(t, r, TimeGrid(0.0, 0.001, 2)),
            "response \"acc\": file out.csv, line 1: header has no column \"t\" (columns read "
            "with delimiter \",\": \"time\", \"Chassis acc\", \"travel, m\")");
}

TEST_F(Delimited, AutoDetectsFromTheFirstLineReadTabSemicolonCommaWhiteSpace) {
  // Skipped lines and comments are not looked at: the first line read decides, for the file.
  write("h.txt", "a\tb;c,d\n# x, y; z\ntime acc\n0 1.5\n0.5 -2.25\n1 3e-3\n");
  EXPECT_EQ(history(columns("h.txt", "acc", {{"skip", 1}})), expected_);
  // A semicolon before a comma: "acc,x" is one column name and 1,5 one field.
  write("h.ssv", "time;acc,x\n0;1.5\n0.5;-2.25\n1;3e-3\n");
  EXPECT_EQ(history(columns("h.ssv", "acc,x")), expected_);
  // A tab before a semicolon.
  write("h.tsv", "time\tacc;x\n0\t1.5\n0.5\t-2.25\n1\t3e-3\n");
  EXPECT_EQ(history(columns("h.tsv", "acc;x")), expected_);
  // The delimiter stays the header's: a data line with spaces only is one field.
  write("mixed.csv", "time,acc\n0,1.5\n0.5 -2.25\n1,3e-3\n");
  CaseResult r;
  EXPECT_EQ(read(columns("mixed.csv", "acc"), r),
            "response \"h\": file mixed.csv, line 3: has 1 columns read with delimiter \",\", "
            "expected at least 2");
}

TEST_F(Delimited, WhiteSpaceAsBefore) {
  // No tab, semicolon or comma: runs of spaces, as "columns" always read.
  write("h.txt", "  time    acc  travel\n0   1.5 7\n  0.5 -2.25   7\n1 3e-3 7   \n");
  EXPECT_EQ(history(columns("h.txt", "acc")), expected_);
  EXPECT_EQ(history(columns("h.txt", "acc", {{"delimiter", "whitespace"}})), expected_);
  // Forced, white space splits a line with commas at its spaces only.
  write("c.txt", "time acc,x\n0 1.5\n0.5 -2.25\n1 3e-3\n");
  EXPECT_EQ(history(columns("c.txt", "acc,x", {{"delimiter", "whitespace"}})), expected_);
}

TEST_F(Delimited, FailuresNameTheColumnsFoundAndTheDelimiter) {
  write("h.csv", "time,acc,travel\n0,1.5,1\n0.5,-2.25\n");
  CaseResult r;
  json t = columns("h.csv", "acc");
  t["time"] = "t";
  EXPECT_EQ(read(t, r),
            "response \"h\": file h.csv, line 1: header has no column \"t\" (columns read with "
            "delimiter \",\": \"time\", \"acc\", \"travel\")");
  EXPECT_EQ(read(columns("h.csv", "travel"), r),
            "response \"h\": file h.csv, line 3: has 2 columns read with delimiter \",\", "
            "expected at least 3");
  t["delimiter"] = "whitespace";
  EXPECT_EQ(read(t, r),
            "response \"h\": file h.csv, line 1: header has no column \"t\" (columns read with "
            "delimiter \"whitespace\": \"time,acc,travel\")");
  write("h.tsv", "time\tacc\n");
  t["file"] = "h.tsv";
  t.erase("delimiter");
  EXPECT_EQ(read(t, r),
            "response \"h\": file h.tsv, line 1: header has no column \"t\" (columns "
            "read with delimiter \"tab\": \"time\", \"acc\")");
  // A wide header is listed up to its 20th column.
  std::string wide = "time";
  for (int c = 1; c < 30; ++c) wide += ";c" + std::to_string(c);
  write("wide.csv", wide + "\n");
  EXPECT_THAT(read(columns("wide.csv", "acc"), r),
              HasSubstr("(columns read with delimiter \";\": \"time\", \"c1\", "));
  EXPECT_THAT(read(columns("wide.csv", "acc"), r), HasSubstr(", \"c19\", ... (30 columns))"));
}

TEST_F(Delimited, TheCellParserSplitsItsLineLikewise) {
  write("r.csv", "mass,volume\n3.5, \"2.25\"\n");
  write("r.txt", "mass\t\t3.5\n");
  auto cell = [](const std::string& file, int line, int column, const char* delimiter) {
    json e = {{"name", "c"},      {"kind", "scalar"}, {"file", file},
              {"parser", "cell"}, {"line", line},     {"column", column}};
    if (delimiter) e["delimiter"] = delimiter;
    return e;
  };
  CaseResult r;
  EXPECT_EQ(read(cell("r.csv", 2, 2, nullptr), r), "");
  EXPECT_EQ(r.scalars.at("c"), 2.25);
  EXPECT_EQ(read(cell("r.csv", -1, 1, ","), r), "");
  EXPECT_EQ(r.scalars.at("c"), 3.5);
  EXPECT_EQ(read(cell("r.txt", 1, 2, "whitespace"), r), "");
  EXPECT_EQ(r.scalars.at("c"), 3.5);
  EXPECT_EQ(read(cell("r.txt", 1, 3, nullptr), r), "");  // auto: the line has tabs
  EXPECT_EQ(r.scalars.at("c"), 3.5);
  EXPECT_EQ(read(cell("r.csv", 2, 3, nullptr), r),
            "response \"c\": file r.csv, line 2: has 2 columns read with delimiter \",\", no "
            "column 3");
}

TEST(ParserSpecs, DelimiterAndUnitsAreCheckedWhenTheStudyIsLoaded) {
  const json base = {{"name", "h"},         {"kind", "history"}, {"file", "h.csv"},
                     {"parser", "columns"}, {"time", 1},         {"value", 2}};
  auto problems_of = [](const json& e) {
    Problems problems;
    parse_output_spec(e, "simulator.responses[3]", problems);
    return problems.list();
  };
  json bad = base;
  bad["delimiter"] = "|";
  EXPECT_EQ(problems_of(bad),
            (std::vector<std::string>{
                "simulator.responses[3].delimiter: expected one of \"auto\", \",\", \";\", "
                "\"tab\" (or \"\\t\"), \"whitespace\", got \"|\""}));
  bad["delimiter"] = 44;
  EXPECT_THAT(problems_of(bad).at(0), HasSubstr("got 44"));
  json cell = {{"name", "c"},      {"kind", "scalar"}, {"file", "r"},
               {"parser", "cell"}, {"line", 1},        {"delimiter", "comma"}};
  EXPECT_THAT(problems_of(cell).at(0),
              HasSubstr("simulator.responses[3].delimiter: expected one of \"auto\""));
  json units = base;
  units["units"] = true;
  EXPECT_EQ(problems_of(units),
            (std::vector<std::string>{"simulator.responses[3].units: a units row lies under a "
                                      "header line: needs \"header\": true"}));
  units["header"] = true;
  EXPECT_EQ(problems_of(units), std::vector<std::string>());
  // The values as read.
  for (const auto& [text, delimiter] :
       std::vector<std::pair<std::string, Delimiter>>{{"auto", Delimiter::kAuto},
                                                      {",", Delimiter::kComma},
                                                      {";", Delimiter::kSemicolon},
                                                      {"tab", Delimiter::kTab},
                                                      {"\t", Delimiter::kTab},
                                                      {"whitespace", Delimiter::kWhitespace}}) {
    json e = base;
    e["delimiter"] = text;
    EXPECT_EQ(parse_output_spec(e, "r").delimiter, delimiter) << text;
  }
  EXPECT_EQ(parse_output_spec(base, "r").delimiter, Delimiter::kAuto);
  EXPECT_FALSE(parse_output_spec(base, "r").units);
}

// `sao simulate` writes each load case's histories as CSV at %.17g; read back through
// "columns" (delimiter detected), every value equals the simulator's to the last bit.
TEST_F(Parsers, TheCsvOfSaoSimulateReadsBackExactly) {
  const std::string study_file =
      std::string(SAO_SOURCE_DIR) + "/problems/impact-absorber/max-acceleration.json";
  const sao::testing::CommandOutput out = sao::testing::run_command(
      std::string(SAO_BINARY_DIR) + "/sao simulate " + study_file +
      " --design b1=0.37 --design b2=0.61 --out " + (dir_ / "simulated").string() + " 2>&1");
  ASSERT_EQ(out.code, 0) << out.text;
  ASSERT_TRUE(fs::exists(dir_ / "simulated" / "impact.csv")) << out.text;

  // The same analysis in this process.
  sao::sim::register_internal_simulator();
  const OpenedStudy opened = open_study(study_file);
  Eigen::VectorXd design(opened.study.n_design());
  for (int i = 0; i < opened.study.n_design(); ++i) design(i) = opened.study.design[i].initial;
  design(0) = 0.37;
  design(1) = 0.61;
  opened.simulator->expect_no_gradients();
  const std::vector<Evaluation> e = opened.simulator->evaluate({{design, {}}});
  ASSERT_TRUE(e.at(0).ok) << e.at(0).message;
  const CaseResult& reference = e.at(0).cases.at(0);
  const TimeGrid& grid = opened.study.load_cases.at(0).grid;
  ASSERT_GE(reference.histories.size(), 2u);

  for (const auto& [name, h] : reference.histories) {
    CaseResult back;
    ASSERT_EQ(read_output(parse_output_spec({{"name", name},
                                             {"kind", "history"},
                                             {"file", "impact.csv"},
                                             {"parser", "columns"},
                                             {"time", "t"},
                                             {"value", name}},
                                            "simulator.responses[0]"),
                          dir_ / "simulated", grid, back),
              "");
    const Eigen::VectorXd& read_back = back.histories.at(name);
    ASSERT_EQ(read_back.size(), h.size()) << name;
    for (Eigen::Index p = 0; p < h.size(); ++p) {
      EXPECT_EQ(read_back(p), h(p)) << name << " at point " << p;
    }
  }
}

}  // namespace
}  // namespace sao::adapters

// "hdf5" (issue 49): datasets of HDF5 files, written here with HDF5's C API.
namespace sao::adapters {
namespace {

// A dataset to write: its path (groups on the way are created), shape (empty: rank 0), values
// (row-major) and type in the file (doubles, or integers converted from them by HDF5).
struct H5Set {
  std::string path;
  std::vector<hsize_t> dims;
  std::vector<double> values;
  hid_t type = H5T_NATIVE_DOUBLE;
};

void write_h5(const fs::path& file, const std::vector<H5Set>& sets) {
  const hid_t f = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(f, 0) << file;
  const hid_t links = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(links, 1);
  for (const H5Set& s : sets) {
    const hid_t space =
        s.dims.empty() ? H5Screate(H5S_SCALAR)
                       : H5Screate_simple(static_cast<int>(s.dims.size()), s.dims.data(), nullptr);
    const hid_t d = H5Dcreate2(f, s.path.c_str(), s.type, space, links, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(d, 0) << s.path;
    EXPECT_GE(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, s.values.data()), 0);
    H5Dclose(d);
    H5Sclose(space);
  }
  H5Pclose(links);
  H5Fclose(f);
}

// A dataset of strings ("a", "b") at `path` of `file` (created).
void write_h5_strings(const fs::path& file, const std::string& path) {
  const hid_t f = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, 2);
  const hsize_t n = 2;
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  const hid_t d = H5Dcreate2(f, path.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, "a\0b\0");
  H5Dclose(d);
  H5Sclose(space);
  H5Tclose(type);
  H5Fclose(f);
}

json h5_scalar(const std::string& dataset) {
  return {{"name", "s"},
          {"kind", "scalar"},
          {"file", "out.h5"},
          {"parser", "hdf5"},
          {"dataset", dataset}};
}

json h5_history(const std::string& dataset, const std::string& time_dataset) {
  return {{"name", "h"},      {"kind", "history"},  {"file", "out.h5"},
          {"parser", "hdf5"}, {"dataset", dataset}, {"time_dataset", time_dataset}};
}

// t = 0, step, ..., 1.
std::vector<double> h5_times(double step) {
  std::vector<double> t;
  for (int k = 0; k * step <= 1.0 + 1e-12; ++k) t.push_back(k * step);
  return t;
}

TEST_F(Parsers, Hdf5ScalarIsTheOneNumberOfADataset) {
  write_h5(dir_ / "out.h5", {{"/mass", {}, {12.5}},
                             {"/results/f", {1, 1}, {-3.25}},
                             {"/count", {1}, {7}, H5T_NATIVE_INT}});
  CaseResult r;
  for (const auto& [dataset, expected] : std::vector<std::pair<std::string, double>>{
           {"/mass", 12.5}, {"/results/f", -3.25}, {"results/f", -3.25}, {"/count", 7.0}}) {
    EXPECT_EQ(read(h5_scalar(dataset), r), "") << dataset;
    EXPECT_EQ(r.scalars.at("s"), expected) << dataset;
  }
}

TEST_F(Parsers, Hdf5HistoryOnTheStudyGridAndAColumnOfATable) {
  const std::vector<double> t = h5_times(0.25);  // the study grid's times
  std::vector<double> acc, table;
  for (const double x : t) {
    acc.push_back(std::sin(3.0 * x));
    table.insert(table.end(), {x, 10.0 * x, -x * x});
  }
  write_h5(dir_ / "out.h5", {{"/results/time", {5}, t},
                             {"/results/acc", {5}, acc},
                             {"/table", {5, 3}, table},
                             {"/column", {5, 1}, acc}});
  CaseResult r;
  EXPECT_EQ(read(h5_history("/results/acc", "/results/time"), r), "");
  EXPECT_EQ(r.histories.at("h"), Eigen::Map<const Eigen::VectorXd>(acc.data(), 5));
  json third = h5_history("/table", "/table");
  third["column"] = 3;
  third["time_column"] = 1;
  EXPECT_EQ(read(third, r), "");
  for (int p = 0; p < 5; ++p) EXPECT_EQ(r.histories.at("h")(p), -t[p] * t[p]) << p;
  // A 2-D dataset of one column needs no "column".
  EXPECT_EQ(read(h5_history("/column", "/results/time"), r), "");
  EXPECT_EQ(r.histories.at("h"), Eigen::Map<const Eigen::VectorXd>(acc.data(), 5));
}

TEST_F(Parsers, Hdf5HistoryOnAnotherGridIsResampled) {
  const std::vector<double> t = h5_times(0.1);  // 11 times; the study grid has 5
  std::vector<double> v;
  for (const double x : t) v.push_back(2.0 * x);
  write_h5(dir_ / "out.h5", {{"/time", {t.size()}, t}, {"/v", {v.size()}, v}});
  CaseResult r;
  EXPECT_EQ(read(h5_history("/v", "/time"), r), "");
  ASSERT_EQ(r.histories.at("h").size(), 5);
  for (int p = 0; p < 5; ++p) EXPECT_NEAR(r.histories.at("h")(p), 2.0 * 0.25 * p, 1e-12) << p;
  json exact = h5_history("/v", "/time");
  exact["resample"] = false;
  EXPECT_EQ(read(exact, r),
            "response \"h\": file out.h5: the code's grid has 11 points, the study grid 5 "
            "(\"resample\": false)");
  // A history that stops at t = 0.5.
  write_h5(dir_ / "out.h5", {{"/time", {6}, t}, {"/v", {6}, v}});
  EXPECT_THAT(read(h5_history("/v", "/time"), r),
              HasSubstr("response \"h\": file out.h5: short history: the file covers t in [0, "
                        "0.5] (6 values)"));
}

TEST_F(Parsers, Hdf5FailuresAreMessagesNamingResponseFileAndDataset) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CaseResult r;
  ::testing::internal::CaptureStderr();  // HDF5 must print nothing
  EXPECT_EQ(read(h5_scalar("/f"), r),
            "response \"s\": file out.h5: missing (not written by the code)");
  write("out.h5", "f = 1\n");
  EXPECT_EQ(read(h5_scalar("/f"), r), "response \"s\": file out.h5: is not an HDF5 file");
  write_h5(dir_ / "out.h5", {{"/results/time", {3}, {0, 0.5, 1}},
                             {"/results/acc", {3}, {1, 2, 3}},
                             {"/results/bad", {3}, {1, nan, 3}},
                             {"/results/inf", {3}, {0, inf, 1}},
                             {"/results/short", {2}, {0, 1}},
                             {"/table", {3, 2}, {0, 1, 0.5, 2, 1, 3}},
                             {"/cube", {1, 3, 1}, {0, 0.5, 1}},
                             {"/one", {}, {1}}});
  EXPECT_EQ(read(h5_scalar("/results/accel"), r),
            "response \"s\": file out.h5: no dataset /results/accel (/results holds: acc, bad, "
            "inf, short, time)");
  EXPECT_EQ(read(h5_scalar("/res/acc"), r),
            "response \"s\": file out.h5: no dataset /res/acc (the file's top level holds: cube, "
            "one, results/, table)");
  EXPECT_EQ(read(h5_scalar("/results"), r),
            "response \"s\": file out.h5: dataset /results is not a dataset (a group or a named "
            "type)");
  EXPECT_EQ(read(h5_scalar("/results/acc"), r),
            "response \"s\": file out.h5: dataset /results/acc (shape 3) holds 3 values, expected "
            "one");
  EXPECT_EQ(read(h5_scalar("/results/bad"), r),
            "response \"s\": file out.h5: dataset /results/bad (shape 3) holds 3 values, expected "
            "one");
  EXPECT_EQ(read(h5_history("/results/bad", "/results/time"), r),
            "response \"h\": file out.h5: dataset /results/bad: value 2 is nan, not finite");
  EXPECT_EQ(read(h5_history("/results/acc", "/results/inf"), r),
            "response \"h\": file out.h5: dataset /results/inf: value 2 is inf, not finite");
  EXPECT_EQ(read(h5_history("/results/acc", "/results/short"), r),
            "response \"h\": file out.h5: dataset /results/short has 2 times, /results/acc 3 "
            "values: expected as many");
  EXPECT_EQ(read(h5_history("/one", "/results/time"), r),
            "response \"h\": file out.h5: dataset /one (shape rank 0): a history is read from a "
            "1-D dataset or a column of a 2-D one");
  EXPECT_EQ(read(h5_history("/cube", "/results/time"), r),
            "response \"h\": file out.h5: dataset /cube (shape 1 x 3 x 1): a history is read "
            "from a 1-D dataset or a column of a 2-D one");
  EXPECT_EQ(read(h5_history("/table", "/results/time"), r),
            "response \"h\": file out.h5: dataset /table (shape 3 x 2) has 2 columns: \"column\" "
            "chooses one");
  json beyond = h5_history("/table", "/table");
  beyond["column"] = 2;
  EXPECT_EQ(read(beyond, r),
            "response \"h\": file out.h5: dataset /table (shape 3 x 2) has 2 columns: "
            "\"time_column\" chooses one");
  beyond["time_column"] = 3;
  EXPECT_EQ(read(beyond, r),
            "response \"h\": file out.h5: dataset /table (shape 3 x 2) has 2 column(s), no "
            "time_column 3");
  beyond["time_column"] = 1;
  EXPECT_EQ(read(beyond, r, TimeGrid(0.0, 1.0, 3)), "");
  EXPECT_EQ(r.histories.at("h"), Eigen::Vector3d(1, 2, 3));
  json one_d = h5_history("/results/acc", "/results/time");
  one_d["column"] = 2;
  EXPECT_EQ(read(one_d, r),
            "response \"h\": file out.h5: dataset /results/acc (shape 3) has 1 column(s), no "
            "column 2");
  write_h5_strings(dir_ / "out.h5", "/names");
  EXPECT_EQ(read(h5_scalar("/names"), r),
            "response \"s\": file out.h5: dataset /names does not hold numbers (it holds "
            "strings)");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  // Read only from a regular file inside the run directory, as the other parsers.
  fs::rename(dir_ / "out.h5", dir_ / "real.h5");
  fs::create_symlink(dir_ / "real.h5", dir_ / "out.h5");
  EXPECT_EQ(read(h5_scalar("/names"), r),
            "response \"s\": file out.h5: is a symbolic link: outputs are read only from regular "
            "files");
}

TEST(ParserSpecs, Hdf5KeysAreCheckedWhenTheStudyIsLoaded) {
  auto problems_of = [](const json& e) {
    Problems problems;
    parse_output_spec(e, "simulator.responses[1]", problems);
    return problems.list();
  };
  EXPECT_EQ(problems_of(h5_scalar("/f")), std::vector<std::string>());
  EXPECT_EQ(problems_of(h5_history("/v", "/t")), std::vector<std::string>());
  json scalar = h5_scalar("/f");
  scalar.erase("dataset");
  scalar["time_dataset"] = "/t";
  scalar["column"] = 2;
  scalar["datset"] = "/f";
  const std::vector<std::string> found = problems_of(scalar);
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(found.begin(), found.begin() + 3),
            (std::vector<std::string>{
                "simulator.responses[1].dataset: missing: the path of a dataset in the file, "
                "such as \"/results/acc\"",
                "simulator.responses[1].time_dataset: belongs to a history: a scalar is the one "
                "number of \"dataset\", without \"time_dataset\"",
                "simulator.responses[1].column: belongs to a history: a scalar is the one number "
                "of \"dataset\", without \"column\""}));
  EXPECT_THAT(found.back(), HasSubstr("simulator.responses[1].datset: unknown key"));
  json history = h5_history("", "/t");
  history.erase("time_dataset");
  history["column"] = 0;
  history["time_column"] = "1";
  EXPECT_EQ(problems_of(history),
            (std::vector<std::string>{
                "simulator.responses[1].dataset: expected the path of a dataset in the file, "
                "such as \"/results/acc\", got \"\"",
                "simulator.responses[1].time_dataset: missing: the path of a dataset in the "
                "file, such as \"/results/acc\"",
                "simulator.responses[1].column: expected an integer >= 1, got 0",
                "simulator.responses[1].time_column: expected an integer, got \"1\""}));
  // The values as read.
  json table = h5_history("/table", "/table");
  table["column"] = 3;
  table["time_column"] = 1;
  const OutputSpec s = parse_output_spec(table, "r");
  EXPECT_EQ(s.parser, Parser::kHdf5);
  EXPECT_EQ(s.dataset, "/table");
  EXPECT_EQ(s.time_dataset, "/table");
  EXPECT_EQ(s.dataset_column, 3);
  EXPECT_EQ(s.time_dataset_column, 1);
  EXPECT_EQ(parse_output_spec(h5_history("/v", "/t"), "r").dataset_column, 0);
  // An unknown parser: the hdf5 keys are not reported as unknown.
  json other = h5_history("/v", "/t");
  other["parser"] = "xml";
  other["time_column"] = 1;
  EXPECT_THAT(problems_of(other),
              ::testing::ElementsAre(HasSubstr("simulator.responses[1].parser: expected")));
}

}  // namespace
}  // namespace sao::adapters
