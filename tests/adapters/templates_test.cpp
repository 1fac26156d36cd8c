#include "adapters/templates.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

namespace sao::adapters {
namespace {

using ::testing::HasSubstr;

std::string parse_error(const std::string& text, const Delimiters& d = {}) {
  try {
    Template::parse(text, d, "in.tpl");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

std::string render(const std::string& text, const std::vector<double>& values,
                   const Delimiters& d = {}) {
  const Template t = Template::parse(text, d, "in.tpl");
  std::vector<int> slots;
  for (size_t k = 0; k < t.placeholders().size(); ++k) slots.push_back(static_cast<int>(k));
  std::string out, error;
  if (!t.render(slots, values, out, error)) return "error: " + error;
  return out;
}

TEST(Templates, ReplacesPlaceholdersWithFormattedValues) {
  EXPECT_EQ(render("E = {{E:.3e}}, h = {{ h : 8.4f }}|", {2.1e11, 0.05}),
            "E = 2.100e+11, h =   0.0500|");
  EXPECT_EQ(render("n={{n:d}} m={{m:-6d}}|", {3.6, -2.0}), "n=4 m=-2    |");
  // The default is exact: the value reads back bit for bit.
  const std::string exact = render("{{x}}", {0.1 + 0.2});
  EXPECT_EQ(std::stod(exact), 0.1 + 0.2);
}

TEST(Templates, FixedWidthFieldsRejectValuesThatDoNotFit) {
  // A Fortran-style card: 8-character fields.
  EXPECT_EQ(render("{{a:8.3f}}{{b:8.3f}}", {1.0, -2.5}), "   1.000  -2.500");
  EXPECT_EQ(render("line 1\n  {{a:8.3f}}", {123456.0}),
            "error: in.tpl:2:3: placeholder \"a\": value 123456.000 is wider than its field of 8 "
            "characters");
  EXPECT_THAT(render("{{a}}", {NAN}),
              HasSubstr("in.tpl:1:1: placeholder \"a\": value is not finite"));
}

TEST(Templates, OtherDelimitersForCodesThatUseBraces) {
  const Delimiters d{"<%", "%>"};
  EXPECT_EQ(render("{a} = <%a:.1f%> {{b}}", {2.0}, d), "{a} = 2.0 {{b}}");
  EXPECT_EQ(parse_error("x <% a", d),
            "in.tpl:1:3: placeholder opened by \"<%\" is not closed by \"%>\" on the same line "
            "(choose other delimiters if the code's input uses \"<%\")");
}

TEST(Templates, MalformedPlaceholdersAreErrorsWithLineAndColumn) {
  EXPECT_THAT(parse_error("ok\n  {{1x}}"),
              HasSubstr("in.tpl:2:3: placeholder \"1x\": expected a name"));
  EXPECT_THAT(parse_error("{{x:10.4q}}"),
              HasSubstr("in.tpl:1:1: placeholder \"x\": format \"10.4q\""));
  EXPECT_THAT(parse_error("{{x\n}}"), HasSubstr("not closed"));
  EXPECT_THAT(parse_error("{{x; rm -rf /}}"), HasSubstr("expected a name"));
  EXPECT_THAT(parse_error("{{../x}}"), HasSubstr("expected a name"));
}

TEST(Templates, FormatSpecifications) {
  const FieldFormat f = parse_format("-12.5E");
  EXPECT_TRUE(f.left);
  EXPECT_EQ(f.width, 12);
  EXPECT_EQ(f.precision, 5);
  EXPECT_EQ(f.conversion, 'E');
  EXPECT_EQ(parse_format("f").precision, 6);
  EXPECT_THROW(parse_format("5.2d"), std::invalid_argument);
  EXPECT_THROW(parse_format("%f"), std::invalid_argument);
  EXPECT_THROW(parse_format("100f"), std::invalid_argument);
}

TEST(Templates, IdentifiersOnly) {
  EXPECT_TRUE(is_identifier("b_1"));
  EXPECT_FALSE(is_identifier("b-1"));
  EXPECT_FALSE(is_identifier("$(x)"));
  EXPECT_FALSE(is_identifier(""));
}

}  // namespace
}  // namespace sao::adapters
