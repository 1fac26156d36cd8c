#include "adapters/parsers.hpp"

#include <csv.h>
#include <re2/re2.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "adapters/hdf5_output.hpp"
#include "adapters/output_file.hpp"
#include "sao/seam/json_text.hpp"

namespace sao::adapters {
namespace {

using nlohmann::json;

// The largest line, column, group or count a response entry accepts.
constexpr long kMaxIndex = 1000000000;

// The text as lines (without '\n' and a trailing '\r').
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
  }
  return lines;
}

// The fields of a line separated by runs of white space.
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream s(line);
  std::string f;
  while (s >> f) out.push_back(f);
  return out;
}

// `text` without the spaces and tabs around it.
std::string trimmed(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// The delimiter of "auto", from a line of the file: a tab, else a semicolon, else a comma, else
// white space.
Delimiter detect_delimiter(const std::string& line) {
  if (line.find('\t') != std::string::npos) return Delimiter::kTab;
  if (line.find(';') != std::string::npos) return Delimiter::kSemicolon;
  if (line.find(',') != std::string::npos) return Delimiter::kComma;
  return Delimiter::kWhitespace;
}

// The values of "delimiter" (the first of a delimiter's names is the one messages use).
constexpr std::pair<const char*, Delimiter> kDelimiterNames[] = {
    {"auto", Delimiter::kAuto}, {",", Delimiter::kComma}, {";", Delimiter::kSemicolon},
    {"tab", Delimiter::kTab},   {"\t", Delimiter::kTab},  {"whitespace", Delimiter::kWhitespace}};

// The delimiter as the study names it, quoted, for messages: "," ";" "tab" "whitespace".
std::string delimiter_name(Delimiter d) {
  for (const auto& [name, delimiter] : kDelimiterNames) {
    if (delimiter == d) return "\"" + std::string(name) + "\"";
  }
  return {};
}

// Splits lines into fields with one delimiter (not kAuto). White space: runs of spaces and tabs,
// as fields() always did. A comma, semicolon or tab: libcsv (Debian libcsv-dev), so that a
// quoted field ("Chassis acc, m/s^2", with "" for a quote inside) keeps its delimiters; each
// field is then trimmed of the spaces and tabs around it. Lines are split one at a time (a
// quoted field does not continue on the next line); one parser serves every line.
class FieldSplitter {
 public:
  explicit FieldSplitter(Delimiter delimiter) : delimiter_(delimiter) {
    csv_init(&csv_, 0);  // fails only for a null parser
    csv_set_delim(&csv_, delimiter == Delimiter::kTab         ? CSV_TAB
                         : delimiter == Delimiter::kSemicolon ? ';'
                                                              : CSV_COMMA);
  }
  ~FieldSplitter() { csv_free(&csv_); }
  FieldSplitter(const FieldSplitter&) = delete;
  FieldSplitter& operator=(const FieldSplitter&) = delete;

  Delimiter delimiter() const { return delimiter_; }

  // The fields of `line` into `out`; "" or why not (libcsv out of memory).
  std::string split(const std::string& line, std::vector<std::string>& out) {
    out.clear();
    if (delimiter_ == Delimiter::kWhitespace) {
      out = fields(line);
      return {};
    }
    const size_t parsed = csv_parse(&csv_, line.data(), line.size(), on_field, nullptr, &out);
    const bool failed = parsed != line.size() || csv_fini(&csv_, on_field, nullptr, &out) != 0;
    if (failed) {  // the read ends here: the parser is not used again
      return std::string("cannot be split into fields: ") + csv_strerror(csv_error(&csv_));
    }
    for (std::string& f : out) f = trimmed(f);
    return {};
  }

 private:
  static void on_field(void* text, size_t size, void* data) {
    static_cast<std::vector<std::string>*>(data)->emplace_back(static_cast<const char*>(text),
                                                               size);
  }

  Delimiter delimiter_;
  csv_parser csv_{};
};

// A header field as the name it stands for: without spaces around it and without one pair of
// double quotes around that ("\"time\"" and " time " name time).
std::string bare_name(const std::string& field) {
  std::string name = trimmed(field);
  if (name.size() >= 2 && name.front() == '"' && name.back() == '"') {
    name = trimmed(name.substr(1, name.size() - 2));
  }
  return name;
}

// Line numbers of offsets that only grow (the matches of a pattern, in order): each byte of the
// text is counted once, so numbering every match of a large file stays linear.
class LineCounter {
 public:
  explicit LineCounter(const std::string& text) : text_(text) {}
  int line_of(size_t offset) {
    line_ +=
        static_cast<int>(std::count(text_.begin() + static_cast<std::ptrdiff_t>(counted_),
                                    text_.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
    counted_ = offset;
    return line_;
  }

 private:
  const std::string& text_;
  size_t counted_ = 0;
  int line_ = 1;
};

// Every match of `re` in `text`, in order, as its groups (0: the whole match); `visit` returns
// false to stop. Empty matches advance by one byte.
template <class Visit>
void for_each_match(const re2::RE2& re, const std::string& text, Visit visit) {
  const int groups = re.NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> match(static_cast<size_t>(groups));
  const re2::StringPiece whole(text);
  size_t start = 0;
  while (start <= text.size() &&
         re.Match(whole, start, text.size(), re2::RE2::UNANCHORED, match.data(), groups)) {
    if (!visit(match)) return;
    const size_t begin = static_cast<size_t>(match[0].data() - text.data());
    const size_t end = begin + match[0].size();
    start = end > begin ? end : end + 1;
  }
}

std::string group_text(const std::vector<re2::StringPiece>& match, int group) {
  const re2::StringPiece& g = match[static_cast<size_t>(group)];
  return g.data() ? std::string(g.data(), g.size()) : std::string();
}

}  // namespace

bool lies_inside(const std::filesystem::path& path, const std::filesystem::path& folder) {
  std::error_code ec;
  const std::filesystem::path base = std::filesystem::weakly_canonical(folder, ec);
  if (ec) return false;
  const std::filesystem::path resolved =
      std::filesystem::weakly_canonical(std::filesystem::absolute(path), ec);
  const std::filesystem::path rel = resolved.lexically_relative(base);
  return !ec && !rel.empty() && *rel.begin() != "..";
}

namespace {

// A token for a message: quoted, and cut after 40 characters ("123...(40008 characters)") so
// that a huge token does not become a huge message.
std::string quoted(const std::string& token) {
  constexpr size_t kShown = 40;
  if (token.size() <= kShown) return "\"" + token + "\"";
  return "\"" + token.substr(0, kShown) + "...\" (" + std::to_string(token.size()) + " characters)";
}

}  // namespace

bool parse_number(const std::string& token, double& value, std::string& error) {
  std::string t = token;
  // Fortran double precision exponents: 1.5D+03.
  for (char& c : t) {
    if (c == 'D' || c == 'd') c = 'E';
  }
  if (t.empty()) {
    error = "empty field instead of a number";
    return false;
  }
  char* end = nullptr;
  errno = 0;
  value = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || *end != '\0') {
    error = quoted(token) + " is not a number";
    return false;
  }
  if (!std::isfinite(value) || errno == ERANGE) {
    if (errno == ERANGE && std::isfinite(value)) return true;  // an underflow to ~0
    error = quoted(token) + " is not finite";
    return false;
  }
  return true;
}

namespace {

// "regex": the pattern and its capture groups, checked against each other.
void read_regex_spec(JsonReader& e, OutputSpec& s) {
  s.parser = Parser::kRegex;
  bool compiled = false;
  if (!e.has("pattern")) {
    e.problems().add(e.at("pattern"), "missing: a regular expression (RE2 syntax)");
  } else if (auto pattern = e.string("pattern")) {
    s.pattern = *pattern;
    // Bytes (Latin-1), as the output files are read: a literal UTF-8 character in the pattern
    // still matches its bytes, and a file that is not UTF-8 is matched all the same.
    re2::RE2::Options options(re2::RE2::Latin1);
    options.set_log_errors(false);
    auto re = std::make_shared<const re2::RE2>(s.pattern, options);
    if (re->ok()) {
      s.regex = std::move(re);
      compiled = true;
    } else {
      e.problems().add(e.at("pattern"),
                       "response \"" + s.name + "\": pattern /" + s.pattern +
                           "/ is not a regular expression RE2 accepts: " + re->error());
    }
  }
  const int groups = compiled ? s.regex->NumberOfCapturingGroups() : 0;
  auto group = [&](const char* key, int fallback) {
    const bool given = e.has(key);
    const std::optional<long> g = e.integer(key, 1, kMaxIndex);
    if (given && !g) return fallback;
    const int value = static_cast<int>(g.value_or(fallback));
    if (compiled && value > groups) {
      e.problems().add(e.at(key), "the pattern has " + std::to_string(groups) +
                                      " capture group(s), got group " + std::to_string(value));
    }
    return value;
  };
  if (s.history) {
    s.time_group = group("time_group", 1);
    s.value_group = group("value_group", 2);
    s.resample = e.boolean("resample").value_or(true);
  } else {
    s.group = group("group", 1);
    s.last = e.choice("occurrence", {"first", "last"}).value_or("first") == "last";
  }
}

// "delimiter" of "cell" and "columns": how a line is split into fields.
void read_delimiter(JsonReader& e, OutputSpec& s) {
  if (!e.has("delimiter")) return;
  const json& v = e.raw("delimiter");
  if (v.is_string()) {
    for (const auto& [name, delimiter] : kDelimiterNames) {
      if (v.get<std::string>() == name) {
        s.delimiter = delimiter;
        return;
      }
    }
  }
  e.problems().add(e.at("delimiter"),
                   "expected one of \"auto\", \",\", \";\", \"tab\" (or \"\\t\"), \"whitespace\", "
                   "got " +
                       json_excerpt(v));
}

// "cell": a line (negative from the end) and a column of a scalar.
void read_cell_spec(JsonReader& e, OutputSpec& s) {
  s.parser = Parser::kCell;
  if (s.history) {
    e.problems().add(e.at("parser"), "\"cell\" reads a scalar; use \"columns\" for a history");
  }
  if (!e.has("line")) {
    e.problems().add(e.at("line"), "missing: 1-based line (negative from the end)");
  } else if (auto line = e.integer("line", -kMaxIndex, kMaxIndex)) {
    if (*line == 0) e.problems().add(e.at("line"), "expected a non-zero integer, got 0");
    s.line = static_cast<int>(*line);
  }
  s.column = static_cast<int>(e.integer("column", 1, kMaxIndex).value_or(1));
  read_delimiter(e, s);
}

// "json": pointers to a number, or to arrays of times and values.
void read_json_spec(JsonReader& e, OutputSpec& s) {
  s.parser = Parser::kJson;
  auto pointer = [&](const char* key) -> std::string {
    if (!e.has(key)) {
      e.problems().add(e.at(key), "missing: a JSON pointer such as \"/a/b/0\"");
      return {};
    }
    const json& v = e.raw(key);
    if (v.is_string()) {
      try {
        (void)json::json_pointer(v.get<std::string>());
        return v.get<std::string>();
      } catch (const json::exception&) {
      }
    }
    e.problems().add(e.at(key),
                     "expected a JSON pointer such as \"/a/b/0\", got " + json_excerpt(v));
    return {};
  };
  s.pointer = pointer("pointer");
  if (s.history) {
    s.time_pointer = pointer("time_pointer");
    s.resample = e.boolean("resample").value_or(true);
  }
}

// A column: a header name (string) or a 1-based index.
void read_column(JsonReader& e, const char* key, std::string& name, int& index) {
  if (!e.has(key)) {
    e.problems().add(e.at(key), "missing: a column name or 1-based index");
    return;
  }
  const json& v = e.raw(key);
  if (v.is_string() && !v.get<std::string>().empty()) {
    name = v.get<std::string>();
  } else if (v.is_number_integer() && v.get<long>() >= 1 && v.get<long>() < 100000) {
    index = v.get<int>();
  } else {
    e.problems().add(e.at(key),
                     "expected a column name or a 1-based index, got " + json_excerpt(v));
  }
}

// "columns": a table with a time column and a value column.
void read_columns_spec(JsonReader& e, OutputSpec& s) {
  s.parser = Parser::kColumns;
  if (!s.history) {
    e.problems().add(e.at("parser"), "\"columns\" reads a history; use \"cell\" for a scalar");
  }
  read_column(e, "time", s.time_name, s.time_index);
  read_column(e, "value", s.value_name, s.value_index);
  const bool named = !s.time_name.empty() || !s.value_name.empty();
  s.header = e.boolean("header").value_or(named);
  if (!s.header && named) {
    e.problems().add(e.at("header"), "columns given by name need \"header\": true");
  }
  if (e.has("comment")) {
    const json& c = e.raw("comment");
    if (c.is_string()) {
      s.comment = c.get<std::string>();
    } else {
      e.problems().add(e.at("comment"),
                       "expected a string (\"\": no comment lines), got " + json_type_name(c));
    }
  }
  s.skip = static_cast<int>(e.integer("skip", 0, kMaxIndex).value_or(0));
  s.units = e.boolean("units").value_or(false);
  if (s.units && !s.header) {
    e.problems().add(e.at("units"), "a units row lies under a header line: needs \"header\": true");
  }
  read_delimiter(e, s);
  s.resample = e.boolean("resample").value_or(true);
}

}  // namespace

OutputSpec parse_output_spec(const json& entry, const std::string& path, Problems& problems) {
  JsonReader e(entry, path, problems);
  OutputSpec s;
  for (const char* key : {"kind", "parser"}) {
    if (!e.has(key)) problems.add(e.at(key), "missing (expected a string)");
  }
  s.name = e.string("name", true).value_or("");
  const std::optional<std::string> kind = e.choice("kind", {"scalar", "history"});
  s.history = kind == "history";
  if (auto file = e.string("file", true)) {
    s.file = *file;
    const std::filesystem::path f(s.file);
    if (f.is_absolute() ||
        std::any_of(f.begin(), f.end(), [](const auto& p) { return p == ".."; })) {
      problems.add(e.at("file"),
                   "expected a path inside the run directory (relative, without \"..\"), got "
                   "\"" +
                       s.file + "\"");
    }
  }
  const std::optional<std::string> parser =
      e.choice("parser", {"regex", "cell", "json", "columns", "hdf5"});
  if (!kind || !parser) {
    // Which keys belong to the entry is unknown: none is reported as unknown.
    e.known({"pattern",   "group",  "occurrence", "time_group",   "value_group",
             "line",      "column", "pointer",    "time_pointer", "time",
             "value",     "header", "comment",    "skip",         "resample",
             "delimiter", "units",  "dataset",    "time_dataset", "time_column"});
  } else if (*parser == "regex") {
    read_regex_spec(e, s);
  } else if (*parser == "cell") {
    read_cell_spec(e, s);
  } else if (*parser == "json") {
    read_json_spec(e, s);
  } else if (*parser == "hdf5") {
    read_hdf5_spec(e, s);
  } else {
    read_columns_spec(e, s);
  }
  e.finish();
  return s;
}

OutputSpec parse_output_spec(const json& entry, const std::string& path) {
  Problems problems;
  OutputSpec s = parse_output_spec(entry, path, problems);
  problems.throw_if_any();
  return s;
}

std::string resample(const std::vector<double>& times, const std::vector<double>& values,
                     const TimeGrid& grid, bool interpolate, Eigen::VectorXd& out) {
  const std::vector<double> target = grid.times();
  const double span = std::max(std::abs(grid.end - grid.start), 1e-300);
  const double tol = 1e-6 * span;  // codes print times with a few digits
  if (times.empty()) return "no values";
  for (size_t k = 1; k < times.size(); ++k) {
    if (!(times[k] > times[k - 1])) {
      std::ostringstream m;
      m << "times not increasing at value " << k + 1 << " (" << times[k - 1] << ", " << times[k]
        << ")";
      return m.str();
    }
  }
  out.resize(static_cast<Eigen::Index>(target.size()));
  if (times.front() > target.front() + tol || times.back() < target.back() - tol) {
    std::ostringstream m;
    m << "short history: the file covers t in [" << times.front() << ", " << times.back() << "] ("
      << times.size() << " values), the study grid needs [" << target.front() << ", "
      << target.back() << "]";
    return m.str();
  }
  if (!interpolate) {
    if (times.size() != target.size()) {
      return "the code's grid has " + std::to_string(times.size()) + " points, the study grid " +
             std::to_string(target.size()) + " (\"resample\": false)";
    }
    for (size_t p = 0; p < target.size(); ++p) {
      if (std::abs(times[p] - target[p]) > tol) {
        std::ostringstream m;
        m << "time " << times[p] << " differs from the grid's " << target[p]
          << " (\"resample\": false)";
        return m.str();
      }
      out(static_cast<Eigen::Index>(p)) = values[p];
    }
    return {};
  }
  size_t k = 0;
  for (size_t p = 0; p < target.size(); ++p) {
    const double t = std::clamp(target[p], times.front(), times.back());
    while (k + 2 < times.size() && times[k + 1] < t) ++k;
    if (times.size() == 1) {
      out(static_cast<Eigen::Index>(p)) = values[0];
      continue;
    }
    const double w = (t - times[k]) / (times[k + 1] - times[k]);
    out(static_cast<Eigen::Index>(p)) = (1.0 - w) * values[k] + w * values[k + 1];
  }
  return {};
}

namespace {

// Where a response is read from, for messages: "response "f": file out.txt".
struct Source {
  const OutputSpec& spec;
  std::filesystem::path directory;  // the run directory
  std::filesystem::path file;
  std::string who;
  std::string at_line(int line) const { return who + ", line " + std::to_string(line) + ": "; }
};

// The history of (times, values) onto the grid into result; "" or why not, after `where`.
std::string store_history(const Source& src, const std::vector<double>& times,
                          const std::vector<double>& values, const TimeGrid& grid,
                          const std::string& where, CaseResult& result) {
  Eigen::VectorXd h;
  const std::string why = resample(times, values, grid, src.spec.resample, h);
  if (!why.empty()) return where + why;
  result.histories[src.spec.name] = std::move(h);
  return {};
}

// "regex": the first or last match (scalar), every match (history).
std::string read_regex(const Source& src, const TimeGrid& grid, CaseResult& result) {
  const OutputSpec& spec = src.spec;
  std::string text;
  if (const std::string why = read_output_text(src.file, src.directory, text); !why.empty()) {
    return src.who + ": " + why;
  }
  LineCounter lines(text);
  if (!spec.history) {
    std::string chosen;
    int line = 0;
    bool found = false;
    for_each_match(*spec.regex, text, [&](const std::vector<re2::StringPiece>& m) {
      chosen = group_text(m, spec.group);
      line = lines.line_of(static_cast<size_t>(m[0].data() - text.data()));
      found = true;
      return spec.last;
    });
    if (!found) return src.who + ": no match of /" + spec.pattern + "/";
    double v = 0.0;
    std::string error;
    if (!parse_number(chosen, v, error)) return src.at_line(line) + error;
    result.scalars[spec.name] = v;
    return {};
  }
  std::vector<double> times, values;
  int last_line = 0;
  std::string error;
  for_each_match(*spec.regex, text, [&](const std::vector<re2::StringPiece>& m) {
    last_line = lines.line_of(static_cast<size_t>(m[0].data() - text.data()));
    double t = 0.0, v = 0.0;
    if (!parse_number(group_text(m, spec.time_group), t, error) ||
        !parse_number(group_text(m, spec.value_group), v, error)) {
      return false;
    }
    times.push_back(t);
    values.push_back(v);
    return true;
  });
  if (!error.empty()) return src.at_line(last_line) + error;
  if (times.empty()) return src.who + ": no match of /" + spec.pattern + "/";
  return store_history(src, times, values, grid, src.at_line(last_line), result);
}

// A number of a JSON output ("NaN", "Infinity" as strings are read, and refused, as numbers).
std::string json_number(const Source& src, const json& v, const std::string& where, double& out) {
  if (v.is_number()) {
    out = v.get<double>();
    if (std::isfinite(out)) return {};
  } else if (v.is_string()) {
    std::string error;
    if (parse_number(v.get<std::string>(), out, error)) return {};
    return src.who + ", " + where + ": " + error;
  }
  return src.who + ", " + where + ": expected a finite number, got " + json_excerpt(v);
}

// "json": a number at a pointer (scalar), arrays of times and values (history).
std::string read_json(const Source& src, const TimeGrid& grid, CaseResult& result) {
  const OutputSpec& spec = src.spec;
  std::string text;
  if (const std::string why = read_output_text(src.file, src.directory, text); !why.empty()) {
    return src.who + ": " + why;
  }
  json doc;
  try {
    doc = parse_json_text(text);
  } catch (const JsonTextError& e) {  // its line, column and JSON path; a number beyond a double
    return src.who + ": " + e.what();
  }
  auto at = [&](const std::string& pointer, const json*& out) -> std::string {
    // contains() and at() disagree on some pointers (an empty token on an array: contains says
    // yes, at throws; found by the parsers fuzzer): at() decides.
    try {
      const json::json_pointer p(pointer);
      if (!doc.contains(p)) return src.who + ": no value at " + pointer;
      out = &doc.at(p);
    } catch (const json::exception&) {
      return src.who + ": no value at " + pointer;
    }
    return {};
  };
  const json* v = nullptr;
  if (auto e = at(spec.pointer, v); !e.empty()) return e;
  if (!spec.history) {
    double x = 0.0;
    if (auto e = json_number(src, *v, spec.pointer, x); !e.empty()) return e;
    result.scalars[spec.name] = x;
    return {};
  }
  const json* t = nullptr;
  if (auto e = at(spec.time_pointer, t); !e.empty()) return e;
  if (!v->is_array() || !t->is_array() || v->size() != t->size()) {
    return src.who + ": expected arrays of equal length at " + spec.time_pointer + " and " +
           spec.pointer;
  }
  std::vector<double> times(t->size()), values(v->size());
  for (size_t k = 0; k < t->size(); ++k) {
    const std::string where = "[" + std::to_string(k) + "]";
    if (auto e = json_number(src, (*t)[k], spec.time_pointer + where, times[k]); !e.empty()) {
      return e;
    }
    if (auto e = json_number(src, (*v)[k], spec.pointer + where, values[k]); !e.empty()) {
      return e;
    }
  }
  return store_history(src, times, values, grid, src.who + ": ", result);
}

// "hdf5": one number of a dataset (scalar), a time and a value dataset (history).
std::string read_hdf5(const Source& src, const TimeGrid& grid, CaseResult& result) {
  std::vector<double> times, values;
  const std::string why = read_hdf5_numbers(src.spec, src.file, src.directory, times, values);
  if (!why.empty()) return src.who + ": " + why;
  if (src.spec.history) return store_history(src, times, values, grid, src.who + ": ", result);
  result.scalars[src.spec.name] = values.at(0);
  return {};
}

// "cell": one field of one line ("auto": the delimiter detected from that line).
std::string read_cell(const Source& src, const std::vector<std::string>& lines,
                      CaseResult& result) {
  const OutputSpec& spec = src.spec;
  const int n = static_cast<int>(lines.size());
  const int line = spec.line > 0 ? spec.line : n + 1 + spec.line;
  if (line < 1 || line > n) {
    return src.who + ": has " + std::to_string(n) + " lines, no line " + std::to_string(spec.line);
  }
  const std::string& text = lines[static_cast<size_t>(line - 1)];
  FieldSplitter splitter(spec.delimiter == Delimiter::kAuto ? detect_delimiter(text)
                                                            : spec.delimiter);
  std::vector<std::string> f;
  if (auto e = splitter.split(text, f); !e.empty()) return src.at_line(line) + e;
  if (spec.column > static_cast<int>(f.size())) {
    return src.at_line(line) + "has " + std::to_string(f.size()) + " columns read with delimiter " +
           delimiter_name(splitter.delimiter()) + ", no column " + std::to_string(spec.column);
  }
  double v = 0.0;
  std::string error;
  if (!parse_number(f[static_cast<size_t>(spec.column - 1)], v, error)) {
    return src.at_line(line) + error;
  }
  result.scalars[spec.name] = v;
  return {};
}

// The columns of a header for a message: each quoted, at most 20 ("..." after them).
std::string listed_columns(const std::vector<std::string>& header) {
  constexpr size_t kListed = 20;
  std::string out;
  for (size_t i = 0; i < header.size() && i < kListed; ++i) {
    out += (i ? ", " : "") + quoted(header[i]);
  }
  if (header.size() > kListed) out += ", ... (" + std::to_string(header.size()) + " columns)";
  return out;
}

// "columns": a table, one row per time point, after an optional header line naming columns
// and an optional units row. "auto" detects the delimiter from the first line read (after
// `skip`, blank and comment lines) and keeps it for the whole file.
std::string read_columns(const Source& src, const std::vector<std::string>& lines,
                         const TimeGrid& grid, CaseResult& result) {
  const OutputSpec& spec = src.spec;
  std::vector<double> times, values;
  int time_col = spec.time_index - 1, value_col = spec.value_index - 1;
  bool need_header = spec.header;
  bool need_units = spec.header && spec.units;
  int last_line = 0;
  std::optional<FieldSplitter> splitter;
  std::vector<std::string> f;
  for (size_t k = static_cast<size_t>(spec.skip); k < lines.size(); ++k) {
    const int line = static_cast<int>(k) + 1;
    const std::string& text = lines[k];
    const size_t first = text.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (!spec.comment.empty() && text.compare(first, spec.comment.size(), spec.comment) == 0) {
      continue;
    }
    if (!splitter) {
      splitter.emplace(spec.delimiter == Delimiter::kAuto ? detect_delimiter(text)
                                                          : spec.delimiter);
    }
    if (auto e = splitter->split(text, f); !e.empty()) return src.at_line(line) + e;
    if (need_header) {
      auto find = [&](const std::string& name, int& col) -> std::string {
        if (name.empty()) return {};
        const std::string wanted = bare_name(name);
        auto it = std::find_if(f.begin(), f.end(), [&](const std::string& field) {
          return bare_name(field) == wanted;
        });
        if (it == f.end()) {
          return src.at_line(line) + "header has no column " + quoted(name) +
                 " (columns read with delimiter " + delimiter_name(splitter->delimiter()) + ": " +
                 listed_columns(f) + ")";
        }
        col = static_cast<int>(it - f.begin());
        return {};
      };
      if (auto e = find(spec.time_name, time_col); !e.empty()) return e;
      if (auto e = find(spec.value_name, value_col); !e.empty()) return e;
      need_header = false;
      continue;
    }
    if (need_units) {
      need_units = false;
      continue;
    }
    const int needed = std::max(time_col, value_col) + 1;
    if (static_cast<int>(f.size()) < needed) {
      return src.at_line(line) + "has " + std::to_string(f.size()) +
             " columns read with delimiter " + delimiter_name(splitter->delimiter()) +
             ", expected at least " + std::to_string(needed);
    }
    double t = 0.0, v = 0.0;
    std::string error;
    if (!parse_number(f[static_cast<size_t>(time_col)], t, error) ||
        !parse_number(f[static_cast<size_t>(value_col)], v, error)) {
      return src.at_line(line) + error;
    }
    times.push_back(t);
    values.push_back(v);
    last_line = line;
  }
  if (need_header) return src.who + ": no header line";
  if (need_units) return src.who + ": no units row under the header";
  if (times.empty()) return src.who + ": no data lines";
  return store_history(src, times, values, grid, src.at_line(last_line), result);
}

}  // namespace

std::string read_output(const OutputSpec& spec, const std::filesystem::path& directory,
                        const TimeGrid& grid, CaseResult& result) {
  const Source src{spec, directory, directory / spec.file,
                   "response \"" + spec.name + "\": file " + spec.file};
  if (spec.parser == Parser::kRegex) return read_regex(src, grid, result);
  if (spec.parser == Parser::kJson) return read_json(src, grid, result);
  if (spec.parser == Parser::kHdf5) return read_hdf5(src, grid, result);
  std::string text;
  if (const std::string why = read_output_text(src.file, src.directory, text); !why.empty()) {
    return src.who + ": " + why;
  }
  const std::vector<std::string> lines = lines_of(text);
  if (spec.parser == Parser::kCell) return read_cell(src, lines, result);
  return read_columns(src, lines, grid, result);
}

}  // namespace sao::adapters
