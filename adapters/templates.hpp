// Input templates of external codes (SPEC 7): the text of an input file in which every
// design-dependent item is a placeholder, replaced by a formatted number for each run.
//
// Syntax (docs/adapters.md): OPEN name CLOSE or OPEN name:format CLOSE, with OPEN/CLOSE
// "{{" and "}}" unless the study sets other delimiters (for codes whose input uses braces).
// A name is an identifier [A-Za-z_][A-Za-z0-9_]*; spaces around name and format are allowed.
// The format is printf-like without the '%': [-][width][.precision]conversion with the
// conversion f (fixed), e/E (scientific), g/G (shortest) or d (rounded to an integer);
// the default is ".17g" (round-trip exact). A formatted value wider than `width` is an error
// instead of a silently shifted column (Fortran-style cards).
//
// Everything that could go wrong with a template (an unterminated placeholder, a bad name or
// format) is found when it is parsed, before any run; rendering can only fail on a value
// (not finite, or too wide for its field), which makes that one run fail.
#pragma once

#include <string>
#include <vector>

namespace sao::adapters {

struct Delimiters {
  std::string open = "{{";
  std::string close = "}}";
};

struct FieldFormat {
  char conversion = 'g';  // f, e, E, g, G or d
  int width = 0;          // minimum width; 0: none. Wider values are an error when > 0
  int precision = 17;     // digits after the point (f, e), significant digits (g)
  bool left = false;      // '-': left-aligned in the field
};

// Parses "10.4e", ".6f", "-12.5E", "d", "" (the default). Throws std::invalid_argument.
FieldFormat parse_format(const std::string& spec);

// Formats one value; returns false with `error` when it is not finite or too wide.
bool format_value(double value, const FieldFormat& format, std::string& out, std::string& error);

struct Placeholder {
  std::string name;
  FieldFormat format;
  size_t begin = 0;  // offset of the opening delimiter in the template text
  size_t end = 0;    // one past the closing delimiter
  int line = 1;      // 1-based, for messages
  int column = 1;
};

class Template {
 public:
  // `origin` names the template in messages (its file). Throws std::invalid_argument
  // "origin:line:column: what" for a malformed placeholder.
  static Template parse(const std::string& text, const Delimiters& delimiters,
                        const std::string& origin);

  const std::vector<Placeholder>& placeholders() const { return placeholders_; }
  const std::string& origin() const { return origin_; }

  // Replaces placeholder k by values[slots[k]] (slots: one per placeholder, as resolved by the
  // caller). Returns false with `error` naming file, line and placeholder when a value cannot
  // be written.
  bool render(const std::vector<int>& slots, const std::vector<double>& values, std::string& out,
              std::string& error) const;

 private:
  std::string text_;
  std::string origin_;
  std::vector<Placeholder> placeholders_;
};

// True for [A-Za-z_][A-Za-z0-9_]*: the only names a placeholder or a value may have.
bool is_identifier(const std::string& name);

}  // namespace sao::adapters
