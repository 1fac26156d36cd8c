// libFuzzer target of the template engine (adapters/templates.hpp). The first byte picks the
// delimiters ({{ }}, <% %>, [ ], or @ @); the rest is the template text. What parses is
// rendered with values that reach the edges of the formats (huge, tiny, negative, -0, values
// of 1e15 that do not fit "8d"). std::invalid_argument is the expected answer to a malformed
// template; any other exception, a crash or a sanitizer report is a bug, and so is a broken
// invariant, which aborts with a message:
//   - a parse error names the origin ("t:line:column: ...") with line and column in the text;
//   - placeholders are ordered, do not overlap, lie in the text, start with the opening
//     delimiter, and their line and column match their offset;
//   - a render that succeeds equals the text with every placeholder replaced by format_value
//     of its value (rebuilt here independently); one that fails says which placeholder.
// Built with clang by `scripts/fuzz template`; built with g++ and run over the checked-in
// corpus (tests/fuzz/corpus/template) by CTest through expression_corpus_main.cpp.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "adapters/templates.hpp"

namespace {

namespace ad = sao::adapters;

std::string current_text;  // the input, for messages

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "template_fuzz: %s\n  input (%zu bytes): \"%s\"\n", what.c_str(),
               current_text.size(), current_text.c_str());
  std::abort();
}

const ad::Delimiters kDelimiters[] = {{"{{", "}}"}, {"<%", "%>"}, {"[", "]"}, {"@", "@"}};
const double kValues[] = {0.0123, -2.5e-7, 1e15, -0.0, 123456.789, 1e308, -1e-308, 42.0};

void check_placeholders(const ad::Template& t, const std::string& text, const ad::Delimiters& d) {
  size_t previous_end = 0;
  for (const ad::Placeholder& p : t.placeholders()) {
    if (p.begin < previous_end || p.end <= p.begin || p.end > text.size()) {
      fail("placeholder span out of order or out of the text");
    }
    if (text.compare(p.begin, d.open.size(), d.open) != 0) {
      fail("placeholder does not start with the opening delimiter");
    }
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(p.begin), '\n');
    const size_t line_start = text.rfind('\n', p.begin == 0 ? 0 : p.begin - 1);
    const size_t column =
        p.begin - (line_start == std::string::npos || p.begin == 0 ? 0 : line_start + 1) + 1;
    if (p.line != line || static_cast<size_t>(p.column) != column) {
      fail("line/column " + std::to_string(p.line) + ":" + std::to_string(p.column) +
           " do not match the offset (" + std::to_string(line) + ":" + std::to_string(column) +
           ")");
    }
    if (!ad::is_identifier(p.name)) fail("placeholder name is not an identifier: " + p.name);
    previous_end = p.end;
  }
}

void check_render(const ad::Template& t, const std::string& text) {
  const size_t n = t.placeholders().size();
  std::vector<int> slots(n);
  std::vector<double> values(std::begin(kValues), std::end(kValues));
  for (size_t k = 0; k < n; ++k) slots[k] = static_cast<int>((k * 7 + text.size()) % values.size());
  std::string out, error;
  const bool ok = t.render(slots, values, out, error);
  std::string expected;
  size_t at = 0;
  bool fits = true;
  for (size_t k = 0; k < n; ++k) {
    const ad::Placeholder& p = t.placeholders()[k];
    std::string formatted, why;
    if (!ad::format_value(values[static_cast<size_t>(slots[k])], p.format, formatted, why)) {
      fits = false;
      break;
    }
    expected += text.substr(at, p.begin - at) + formatted;
    at = p.end;
  }
  expected += text.substr(std::min(at, text.size()));
  if (ok != fits)
    fail(std::string("render ") + (ok ? "succeeded" : "failed: " + error) + " but format_value " +
         (fits ? "fits every value" : "refuses one"));
  if (ok && out != expected)
    fail("rendered text differs from the text rebuilt placeholder by placeholder");
  if (!ok && error.find("t:") != 0) fail("render error does not name the template: " + error);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const ad::Delimiters& d = kDelimiters[data[0] % 4];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  current_text = text;
  ad::Template t;
  try {
    t = ad::Template::parse(text, d, "t");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    if (what.rfind("t:", 0) != 0) fail("parse error does not name the template: " + what);
    return 0;
  }
  check_placeholders(t, text, d);
  check_render(t, text);
  return 0;
}
