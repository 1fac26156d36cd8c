// Every loader error names its place: real studies (of problems/; an external code's of
// tests/data), each of their values (leaves, arrays and objects, the simulator sections
// included) replaced in turn by a value of every other JSON kind, opened as `sao check` opens
// them (open_study: loader, simulator section, check against the simulator). Each answer is a
// valid study or a StudyError (exit 2) whose every problem starts with a JSON path, and none
// quotes the JSON library's own exception text. A number beyond a double written at any
// value's place is refused by the file's reader with that value's JSON path and its line and
// column.
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "sao/components/standard_components.hpp"
#include "sao/study/open_study.hpp"
#include "sao/study/study_loader.hpp"
#include "tests/support.hpp"

namespace sao {
namespace {

using nlohmann::json;

// Every value of `document` with its JSON pointer and its path as messages write it
// ("simulator.multibody.forces[0].type").
struct Place {
  json::json_pointer pointer;
  std::string path;
};
void collect(const json& value, const json::json_pointer& pointer, const std::string& path,
             std::vector<Place>& out) {
  if (!path.empty()) out.push_back({pointer, path});
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      collect(child, pointer / key, path.empty() ? key : path + "." + key, out);
    }
  } else if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) {
      collect(value[i], pointer / i, path + "[" + std::to_string(i) + "]", out);
    }
  }
}

// The replacements of a value: one of each other kind, and the value nested in an array.
std::vector<json> replacements(const json& value) {
  std::vector<json> out;
  if (!value.is_boolean()) out.push_back(true);
  if (!value.is_string()) out.push_back("text");
  if (!value.is_number()) out.push_back(-2.5);
  if (!value.is_null()) out.push_back(nullptr);
  if (!value.is_array()) out.push_back(json::array());
  if (!value.is_object()) out.push_back(json::object({{"key", 1}}));
  out.push_back(json::array({value}));
  return out;
}

// "path: what" or "path (line L, column C): what", the path a run of characters without spaces.
bool starts_with_a_path(const std::string& problem) {
  static const std::regex form(R"(^[^\s:]+( \(line \d+, column \d+\))?: \S)");
  return std::regex_search(problem, form);
}

// The answer to a document opened as `sao check` opens it: refused or not, and what is wrong
// with the answer ("" for a valid study or a StudyError whose every problem is placed).
struct Answer {
  bool refused = false;
  std::string wrong;
};
Answer check_answer(const json& document, const std::string& source, const std::string& changed) {
  try {
    (void)open_study_document(document, source, 0);
  } catch (const StudyError& e) {
    const std::string what = e.what();
    if (what.find("[json.exception") != std::string::npos) {
      return {true, changed + ": the library's exception text in\n" + what};
    }
    for (const std::string& problem : e.problems()) {
      if (!starts_with_a_path(problem))
        return {true, changed + ": a problem without a path: " + problem};
    }
    return {true, ""};
  } catch (const std::exception& e) {
    return {true, changed + ": not a StudyError (not exit 2): " + e.what()};
  }
  return {};
}

class StudyWalk : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    register_standard_components();
    spdlog::set_level(spdlog::level::warn);  // thousands of models opened: no info lines
  }
  static void TearDownTestSuite() { spdlog::set_level(spdlog::level::info); }
};

TEST_P(StudyWalk, EveryValueOfAnotherKindIsNamedWhereItIs) {
  const std::string file = std::string(SAO_SOURCE_DIR) + "/" + GetParam();
  const json original = read_study_document(file);
  const Answer unchanged = check_answer(original, file, "(unchanged)");
  ASSERT_FALSE(unchanged.refused) << "the study itself must open: " << unchanged.wrong;
  std::vector<Place> places;
  collect(original, json::json_pointer(), "", places);
  ASSERT_GT(places.size(), 20u);
  size_t refused = 0, tried = 0;
  std::vector<std::string> failures;
  for (const Place& place : places) {
    for (const json& other : replacements(original.at(place.pointer))) {
      json document = original;
      document[place.pointer] = other;
      ++tried;
      const std::string changed = place.path + " = " + other.dump();
      const Answer answer = check_answer(document, file, changed);
      if (!answer.wrong.empty() && failures.size() < 20) failures.push_back(answer.wrong);
      refused += answer.refused ? 1 : 0;
    }
  }
  EXPECT_TRUE(failures.empty()) << failures.size() << "+ of " << tried << " answers wrong:\n"
                                << ::testing::PrintToString(failures);
  EXPECT_GT(refused, tried / 2) << "most replacements must be refused";
}

TEST_P(StudyWalk, ANumberBeyondADoubleIsNamedWithItsPathLineAndColumn) {
  const std::string file = std::string(SAO_SOURCE_DIR) + "/" + GetParam();
  const json original = read_study_document(file);
  std::vector<Place> places;
  collect(original, json::json_pointer(), "", places);
  const std::filesystem::path dir = testing::scratch_directory("test-study-walk");
  const std::string out = (dir / "overflow.json").string();
  const std::string marker = "\"@OVERFLOW@\"";
  size_t checked = 0;
  for (const Place& place : places) {
    json document = original;
    document[place.pointer] = "@OVERFLOW@";
    std::string text = document.dump(2);
    const size_t at = text.find(marker);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, marker.size(), "1e5000");
    // Where the number starts, as an editor counts (1-based).
    const size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + at, '\n'));
    const size_t column = at - (text.rfind('\n', at) + 1) + 1;
    std::ofstream(out, std::ios::binary | std::ios::trunc) << text;
    try {
      (void)read_study_document(out);
      ADD_FAILURE() << place.path << " = 1e5000 was read";
    } catch (const StudyError& e) {
      ASSERT_EQ(e.problems().size(), 1u);
      const std::string expected = place.path + " (line " + std::to_string(line) + ", column " +
                                   std::to_string(column) + "): the number 1e5000 is beyond";
      EXPECT_EQ(e.problems()[0].rfind(expected, 0), 0u) << e.problems()[0];
      EXPECT_EQ(std::string(e.what()).find("[json.exception"), std::string::npos) << e.what();
    }
    ++checked;
  }
  EXPECT_EQ(checked, places.size());
}

// A multibody model with forces (the impact absorber), one with a road and dampers (the truck),
// beams (the flexible four-bar), a built-in model, and an external code with a template
// (tests/data: its program, sh, is everywhere; the studies of problems/ with external codes
// need ccx or the restraint code on the PATH to open).
INSTANTIATE_TEST_SUITE_P(
    Problems, StudyWalk,
    ::testing::Values("problems/impact-absorber/max-acceleration-multibody.json",
                      "problems/truck-damper/quarter-car-multibody.json",
                      "problems/four-bar-flexible/flexible.json",
                      "problems/impact-absorber/max-acceleration.json",
                      "tests/data/failing-code/study.json"),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string name = info.param.substr(info.param.find('/') + 1);
      name = name.substr(0, name.find('.'));
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

}  // namespace
}  // namespace sao
