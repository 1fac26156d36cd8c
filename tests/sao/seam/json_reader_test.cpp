#include "sao/seam/json_reader.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace sao {
namespace {

using nlohmann::json;

TEST(JsonReader, CollectsEveryProblemWithItsPath) {
  const json section = {{"rtol", -1}, {"steps", 2.5}, {"mode", "fast"}, {"typo", 1}};
  Problems problems;
  JsonReader r(section, "simulator", problems);
  EXPECT_FALSE(r.positive("rtol"));
  EXPECT_FALSE(r.integer("steps", 1));
  EXPECT_FALSE(r.choice("mode", {"bdf", "adams"}));
  r.finish();
  ASSERT_EQ(problems.size(), 4u);
  EXPECT_EQ(problems.list()[0], "simulator.rtol: expected a positive number, got -1");
  EXPECT_EQ(problems.list()[1], "simulator.steps: expected an integer, got 2.5");
  EXPECT_EQ(problems.list()[2], "simulator.mode: expected one of \"bdf\", \"adams\", got \"fast\"");
  EXPECT_EQ(problems.list()[3], "simulator.typo: unknown key (known: mode, rtol, steps)");
  try {
    problems.throw_if_any();
    FAIL() << "expected a SectionError";
  } catch (const SectionError& e) {
    EXPECT_EQ(e.problems(), problems.list());
    EXPECT_NE(std::string(e.what()).find("simulator.rtol"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("\nsimulator.typo"), std::string::npos);
  }
}

TEST(JsonReader, ReadsValidValuesAndDefaults) {
  const json section = {{"n", 1e5}, {"x", 0.5}, {"on", true}, {"name", "a"}, {"sub", {{"k", 3}}}};
  Problems problems;
  JsonReader r(section, "", problems);
  EXPECT_EQ(r.integer("n", 1), 100000);  // 1e5 is an integer
  EXPECT_EQ(r.number_or("x", 2.0), 0.5);
  EXPECT_EQ(r.number_or("missing", 2.0), 2.0);
  EXPECT_EQ(r.boolean("on"), true);
  EXPECT_EQ(r.string("name"), "a");
  JsonReader sub = r.object("sub");
  EXPECT_EQ(sub.integer("k", 0, 10), 3);
  sub.finish();
  r.finish();
  EXPECT_TRUE(problems.empty()) << joined(problems.list(), "\n");
  EXPECT_NO_THROW(problems.throw_if_any());
}

TEST(JsonReader, IntegerRangeAndRequiredValuesAreProblems) {
  const json section = {{"k", 11}, {"sub", 3}, {"list", "x"}};
  Problems problems;
  JsonReader r(section, "s", problems);
  EXPECT_FALSE(r.integer("k", 0, 10));
  EXPECT_FALSE(r.number("needed", true));
  EXPECT_TRUE(r.array("list").empty());
  JsonReader sub = r.object("sub");  // not an object: a problem, read as empty
  sub.finish();
  ASSERT_EQ(problems.size(), 4u);
  EXPECT_EQ(problems.list()[0], "s.k: expected an integer <= 10, got 11");
  EXPECT_EQ(problems.list()[1], "s.needed: missing (expected a number)");
  EXPECT_EQ(problems.list()[2], "s.list: expected an array, got a string");
  EXPECT_EQ(problems.list()[3], "s.sub: expected an object, got a number");
}

TEST(JsonReader, ANonObjectIsOneProblemAndReadsAsEmpty) {
  Problems problems;
  JsonReader r(json::array({1, 2}), "simulator", problems);
  EXPECT_FALSE(r.has("type"));
  r.finish();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems.list()[0], "simulator: expected an object, got an array");
}

TEST(JsonReader, ValuesInMessagesStayShort) {
  EXPECT_EQ(json_excerpt(json(2.5)), "2.5");
  EXPECT_EQ(json_excerpt(json("fast")), "\"fast\"");
  EXPECT_EQ(json_excerpt(json::array({1, 2, 3})), "an array of 3 entries");
  EXPECT_EQ(json_excerpt(json::object({{"a", 1}})), "an object of 1 entry");
  EXPECT_EQ(json_excerpt(json(std::string(30000, 'x'))).size(), 80u);
}

TEST(JsonReader, DocumentsBeyondTheLimitsAreNamedWhere) {
  const JsonLimits limits;  // 64 levels, 1e6 entries, 1e6 characters
  json deep = json::array();
  for (int i = 0; i < 100000; ++i) deep = json::array({std::move(deep)});
  const std::string message = json_beyond(deep, limits);
  EXPECT_EQ(message.find("[0][0]"), 0u) << message;
  EXPECT_NE(message.find(": arrays and objects nested more than 64 levels deep"),
            std::string::npos);
  EXPECT_EQ(message.find(":"), 64u * 3);  // "[0]" per level, stopped past the limit
  EXPECT_EQ(json_beyond(json(1.0), limits), "");
  json ok = json::object({{"a", json::array({1, "x"})}});
  for (int i = 0; i < 62; ++i) ok = json::array({std::move(ok)});  // 64 levels: allowed
  EXPECT_EQ(json_beyond(ok, limits), "");
  JsonLimits small;
  small.entries = 3;
  small.length = 5;
  EXPECT_EQ(json_beyond(json::object({{"a", {{"b", json::array({1, 2, 3, 4})}}}}), small),
            "a.b: an array of 4 entries, more than 3");
  EXPECT_EQ(json_beyond(json::object({{"a", json::array({"abc", "abcdef"})}}), small),
            "a[1]: a string of 6 characters, more than 5");
  EXPECT_EQ(json_beyond(json::object({{"abcdef", 1}}), small),
            "(top level): a key of 6 characters, more than 5");
  EXPECT_EQ(json_beyond(json(std::string(6, 'x')), small),
            "(top level): a string of 6 characters, more than 5");
}

// A document sao writes itself, read back: a missing key or a value of another kind is named
// by its path in plain words, never with the JSON library's exception text.
TEST(JsonReader, ADocumentOfSaoIsReadWithItsPathsInPlainWords) {
  auto error = [](auto read) -> std::string {
    try {
      read();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "read";
  };
  const json d = {{"a", {{"b", json::array({1, "x"})}}}, {"on", true}};
  EXPECT_EQ(json_member(d, "on", ""), json(true));
  EXPECT_EQ(error([&] { (void)json_member(d, "off", ""); }), "off: missing");
  EXPECT_EQ(error([&] { (void)json_member(d["a"], "c", "a"); }), "a.c: missing");
  EXPECT_EQ(error([&] { (void)json_member(d["a"]["b"], "c", "a.b"); }),
            "a.b: expected an object, got an array");
  EXPECT_EQ(error([&] { (void)json_string(d["a"]["b"][0], json_index_path("a.b", 0)); }),
            "a.b[0]: expected a string, got a number (1)");
  EXPECT_EQ(error([&] { (void)json_boolean(d["a"]["b"][1], "a.b[1]"); }),
            "a.b[1]: expected a boolean, got a string (\"x\")");
  EXPECT_EQ(error([&] { (void)json_array(json(nullptr), "n"); }), "n: expected an array, got null");
  EXPECT_EQ(error([&] { (void)json_string(json(3), ""); }), "expected a string, got a number (3)");
  EXPECT_EQ(json_string(d["a"]["b"][1], "a.b[1]"), "x");
  EXPECT_EQ(json_key_path("", "k"), "k");
  EXPECT_EQ(json_key_path("a", "k"), "a.k");
}

}  // namespace
}  // namespace sao
