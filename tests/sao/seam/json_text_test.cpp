// parse_json_text: the first error of a JSON text with its line, column and JSON path, never the
// JSON library's exception text.
#include "sao/seam/json_text.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "tests/support.hpp"

namespace sao {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

JsonTextError error_of(const std::string& text) {
  try {
    (void)parse_json_text(text);
  } catch (const JsonTextError& e) {
    return e;
  }
  ADD_FAILURE() << "parsed: " << text;
  return JsonTextError(0, 0, "", "");
}

TEST(JsonText, ReadsAValidDocumentAsTheLibraryDoes) {
  const std::string text = R"({"a": [1, 2.5, {"b": null}], "c": "d", "e": -1e308})";
  EXPECT_EQ(parse_json_text(text), nlohmann::json::parse(text));
  EXPECT_EQ(parse_json_text(" 3 \n"), nlohmann::json(3));
}

TEST(JsonText, ANumberBeyondADoubleIsNamedWithItsPathLineAndColumn) {
  const JsonTextError e = error_of("{\n  \"settings\": {\n    \"cutoff\": 1e5000\n  }\n}");
  EXPECT_EQ(e.path(), "settings.cutoff");
  EXPECT_EQ(e.line(), 3u);
  EXPECT_EQ(e.column(), 15u);  // where 1e5000 starts
  EXPECT_EQ(std::string(e.what()),
            "settings.cutoff (line 3, column 15): the number 1e5000 is beyond the range of a "
            "double (at most about 1.8e308)");
  // In arrays: the index of the element being read, after objects and arrays before it.
  EXPECT_EQ(error_of(R"({"x": [1, {"y": [2]}, [3], -1e999]})").path(), "x[3]");
  EXPECT_EQ(error_of(R"([[0], [1, 2, 1E+400]])").path(), "[1][2]");
  EXPECT_EQ(error_of("1e5000").path(), "(top level)");
}

TEST(JsonText, ASyntaxErrorIsNamedWithItsLineColumnAndPlace) {
  const JsonTextError e = error_of("{\n  \"a\": {\"b\": 1,\n  }\n}");
  EXPECT_EQ(e.line(), 3u);
  EXPECT_EQ(e.column(), 3u);  // the '}' where a key was expected
  EXPECT_THAT(e.what(), HasSubstr("line 3, column 3 (reading a.b): not valid JSON: "));
  EXPECT_THAT(e.what(), HasSubstr("expected string literal"));
  EXPECT_THAT(e.what(), Not(HasSubstr("[json.exception")));
  EXPECT_THAT(e.what(), Not(HasSubstr("parse error at")));  // the library's own place, dropped
  EXPECT_THAT(error_of("").what(), HasSubstr("line 1, column 1 (reading (top level))"));
  EXPECT_THAT(error_of("{} x").what(), HasSubstr("line 1, column 4"));
  EXPECT_THAT(error_of("[1, tru]").what(), HasSubstr("(reading [1])"));
  // An object before its first key: the path of the object itself, without a trailing dot.
  EXPECT_THAT(error_of(R"({"a": {]})").what(), HasSubstr("(reading a)"));
}

TEST(JsonText, LibraryMessagesLoseTheirPrefix) {
  try {
    (void)nlohmann::json(true).get<std::string>();
    FAIL();
  } catch (const nlohmann::json::exception& e) {
    EXPECT_EQ(json_error_text(e), "type must be string, but is boolean");
  }
}

// A file's document: the file named before the line, column and JSON path of its first error.
TEST(JsonText, AFileIsNamedBeforeThePlaceOfItsError) {
  const std::filesystem::path dir = testing::scratch_directory("test-json-text");
  auto error_of_file = [&](const std::string& text) -> std::string {
    const std::string file = (dir / "f.json").string();
    std::ofstream(file) << text;
    try {
      (void)read_json_file(file);
    } catch (const JsonTextError& e) {
      return e.what();
    }
    return "read";
  };
  const std::string file = (dir / "f.json").string();
  EXPECT_EQ(error_of_file("{\"design\": {\"b1\": 1e5000}}"),
            file +
                ": design.b1 (line 1, column 19): the number 1e5000 is beyond the range of a "
                "double (at most about 1.8e308)");
  EXPECT_THAT(error_of_file("{\"a\": [1,\n 2,,]}"),
              HasSubstr(file + ": line 2, column 4 (reading a[2]): not valid JSON: "));
  EXPECT_THAT(error_of_file("[1] 2"), Not(HasSubstr("[json.exception")));
  std::ofstream(file) << R"({"a": [1, 2]})";
  EXPECT_EQ(read_json_file(file), nlohmann::json::parse(R"({"a": [1, 2]})"));
  try {
    (void)read_json_file((dir / "missing.json").string());
    ADD_FAILURE() << "read a missing file";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "missing.json").string() + ": cannot open the file");
  }
}

}  // namespace
}  // namespace sao
