#include "adapters/parsers.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "sao/seam/json_section.hpp"

namespace sao::adapters {
namespace {

using nlohmann::json;

using section::bad;
using section::reject_unknown_keys;

std::string string_at(const json& o, const std::string& key, const std::string& path) {
  if (!o.at(key).is_string() || o.at(key).get<std::string>().empty()) {
    bad(path + "." + key, "expected a non-empty string, got " + o.at(key).dump());
  }
  return o.at(key).get<std::string>();
}

int int_at(const json& o, const std::string& key, int fallback, int minimum,
           const std::string& path) {
  if (!o.contains(key)) return fallback;
  const json& v = o.at(key);
  if (!v.is_number_integer() || v.get<long>() < minimum || v.get<long>() > 1000000000) {
    bad(path + "." + key,
        "expected an integer >= " + std::to_string(minimum) + ", got " + v.dump());
  }
  return v.get<int>();
}

bool bool_at(const json& o, const std::string& key, bool fallback, const std::string& path) {
  if (!o.contains(key)) return fallback;
  if (!o.at(key).is_boolean()) bad(path + "." + key, "expected true or false");
  return o.at(key).get<bool>();
}

// A column: a header name (string) or a 1-based index.
void column_at(const json& o, const std::string& key, std::string& name, int& index,
               const std::string& path) {
  if (!o.contains(key)) bad(path + "." + key, "missing: a column name or 1-based index");
  const json& v = o.at(key);
  if (v.is_string() && !v.get<std::string>().empty()) {
    name = v.get<std::string>();
  } else if (v.is_number_integer() && v.get<long>() >= 1 && v.get<long>() < 100000) {
    index = v.get<int>();
  } else {
    bad(path + "." + key, "expected a column name or a 1-based index, got " + v.dump());
  }
}

// The file as lines (without '\n' and a trailing '\r').
bool read_lines(const std::filesystem::path& file, std::vector<std::string>& lines) {
  std::ifstream in(file);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
  }
  return true;
}

bool read_text(const std::filesystem::path& file, std::string& text) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  text = s.str();
  return true;
}

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream s(line);
  std::string f;
  while (s >> f) out.push_back(f);
  return out;
}

int line_of(const std::string& text, size_t offset) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + offset, '\n'));
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
    error = "\"" + token + "\" is not a number";
    return false;
  }
  if (!std::isfinite(value) || errno == ERANGE) {
    if (errno == ERANGE && std::isfinite(value)) return true;  // an underflow to ~0
    error = "\"" + token + "\" is not finite";
    return false;
  }
  return true;
}

OutputSpec parse_output_spec(const json& e, const std::string& path) {
  if (!e.is_object()) bad(path, "expected an object, got " + e.dump());
  OutputSpec s;
  for (const char* key : {"name", "kind", "file", "parser"}) {
    if (!e.contains(key)) bad(path + "." + key, "missing");
  }
  s.name = string_at(e, "name", path);
  const std::string kind = string_at(e, "kind", path);
  if (kind != "scalar" && kind != "history") {
    bad(path + ".kind", "expected \"scalar\" or \"history\", got \"" + kind + "\"");
  }
  s.history = kind == "history";
  s.file = string_at(e, "file", path);
  const std::filesystem::path f(s.file);
  if (f.is_absolute() || std::any_of(f.begin(), f.end(), [](const auto& p) { return p == ".."; })) {
    bad(path + ".file",
        "expected a path inside the run directory (relative, without \"..\"), "
        "got \"" +
            s.file + "\"");
  }
  const std::string parser = string_at(e, "parser", path);
  std::vector<std::string> known = {"name", "kind", "file", "parser"};
  if (parser == "regex") {
    s.parser = Parser::kRegex;
    if (!e.contains("pattern")) bad(path + ".pattern", "missing: an ECMAScript regular expression");
    s.pattern = string_at(e, "pattern", path);
    try {
      s.regex = std::regex(s.pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& err) {
      bad(path + ".pattern", std::string("not a regular expression: ") + err.what());
    }
    const int groups = static_cast<int>(s.regex.mark_count());
    auto group = [&](const char* key, int fallback) {
      const int g = int_at(e, key, fallback, 1, path);
      if (g > groups) {
        bad(path + "." + key, "the pattern has " + std::to_string(groups) +
                                  " capture group(s), got group " + std::to_string(g));
      }
      return g;
    };
    if (s.history) {
      s.time_group = group("time_group", 1);
      s.value_group = group("value_group", 2);
      known.insert(known.end(), {"pattern", "time_group", "value_group", "resample"});
    } else {
      s.group = group("group", 1);
      if (e.contains("occurrence")) {
        const json& o = e.at("occurrence");
        if (o != "first" && o != "last") {
          bad(path + ".occurrence", "expected \"first\" or \"last\", got " + o.dump());
        }
        s.last = o == "last";
      }
      known.insert(known.end(), {"pattern", "group", "occurrence"});
    }
  } else if (parser == "cell") {
    s.parser = Parser::kCell;
    if (s.history) bad(path + ".parser", "\"cell\" reads a scalar; use \"columns\" for a history");
    if (!e.contains("line")) bad(path + ".line", "missing: 1-based line (negative from the end)");
    if (!e.at("line").is_number_integer() || e.at("line").get<long>() == 0 ||
        std::abs(e.at("line").get<long>()) > 1000000000) {
      bad(path + ".line", "expected a non-zero integer, got " + e.at("line").dump());
    }
    s.line = e.at("line").get<int>();
    s.column = int_at(e, "column", 1, 1, path);
    known.insert(known.end(), {"line", "column"});
  } else if (parser == "json") {
    s.parser = Parser::kJson;
    auto pointer = [&](const char* key) {
      if (!e.contains(key)) bad(path + "." + key, "missing: a JSON pointer such as \"/a/b/0\"");
      const std::string p = e.at(key).is_string() ? e.at(key).get<std::string>() : "?";
      try {
        (void)json::json_pointer(p);
      } catch (const json::exception&) {
        bad(path + "." + key,
            "expected a JSON pointer such as \"/a/b/0\", got " + e.at(key).dump());
      }
      return p;
    };
    s.pointer = pointer("pointer");
    known.push_back("pointer");
    if (s.history) {
      s.time_pointer = pointer("time_pointer");
      known.insert(known.end(), {"time_pointer", "resample"});
    }
  } else if (parser == "columns") {
    s.parser = Parser::kColumns;
    if (!s.history) bad(path + ".parser", "\"columns\" reads a history; use \"cell\" for a scalar");
    column_at(e, "time", s.time_name, s.time_index, path);
    column_at(e, "value", s.value_name, s.value_index, path);
    s.header = bool_at(e, "header", !s.time_name.empty() || !s.value_name.empty(), path);
    if (!s.header && (!s.time_name.empty() || !s.value_name.empty())) {
      bad(path + ".header", "columns given by name need \"header\": true");
    }
    if (e.contains("comment"))
      s.comment = e.at("comment").is_string() ? e.at("comment").get<std::string>() : "";
    s.skip = int_at(e, "skip", 0, 0, path);
    known.insert(known.end(), {"time", "value", "header", "comment", "skip", "resample"});
  } else {
    bad(path + ".parser",
        "expected \"regex\", \"cell\", \"json\" or \"columns\", got \"" + parser + "\"");
  }
  s.resample = bool_at(e, "resample", true, path);
  reject_unknown_keys(e, known, path);
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

std::string read_output(const OutputSpec& spec, const std::filesystem::path& directory,
                        const TimeGrid& grid, CaseResult& result) {
  const std::filesystem::path file = directory / spec.file;
  const std::string who = "response \"" + spec.name + "\": file " + spec.file;
  auto at_line = [&](int line) { return who + ", line " + std::to_string(line) + ": "; };
  std::vector<double> times, values;

  if (spec.parser == Parser::kRegex) {
    std::string text;
    if (!read_text(file, text)) return who + ": missing (not written by the code)";
    if (!spec.history) {
      std::smatch m, chosen;
      bool found = false;
      for (auto it = std::sregex_iterator(text.begin(), text.end(), spec.regex);
           it != std::sregex_iterator(); ++it) {
        chosen = *it;
        found = true;
        if (!spec.last) break;
      }
      if (!found) return who + ": no match of /" + spec.pattern + "/";
      const int line = line_of(text, static_cast<size_t>(chosen.position(0)));
      double v = 0.0;
      std::string error;
      if (!parse_number(chosen.str(spec.group), v, error)) return at_line(line) + error;
      result.scalars[spec.name] = v;
      return {};
    }
    int last_line = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), spec.regex);
         it != std::sregex_iterator(); ++it) {
      last_line = line_of(text, static_cast<size_t>(it->position(0)));
      double t = 0.0, v = 0.0;
      std::string error;
      if (!parse_number(it->str(spec.time_group), t, error) ||
          !parse_number(it->str(spec.value_group), v, error)) {
        return at_line(last_line) + error;
      }
      times.push_back(t);
      values.push_back(v);
    }
    if (times.empty()) return who + ": no match of /" + spec.pattern + "/";
    Eigen::VectorXd h;
    const std::string why = resample(times, values, grid, spec.resample, h);
    if (!why.empty()) return at_line(last_line) + why;
    result.histories[spec.name] = std::move(h);
    return {};
  }

  if (spec.parser == Parser::kJson) {
    std::string text;
    if (!read_text(file, text)) return who + ": missing (not written by the code)";
    json doc;
    try {
      doc = json::parse(text);
    } catch (const json::parse_error& e) {
      return who + ": not valid JSON (" + e.what() + ")";
    }
    auto number = [&](const json& v, const std::string& where, double& out) -> std::string {
      if (v.is_number()) {
        out = v.get<double>();
        if (std::isfinite(out)) return {};
      } else if (v.is_string()) {  // "NaN", "Infinity" as some writers spell them
        std::string error;
        if (parse_number(v.get<std::string>(), out, error)) return {};
        return who + ", " + where + ": " + error;
      }
      return who + ", " + where + ": expected a finite number, got " + v.dump();
    };
    auto at = [&](const std::string& pointer, const json*& out) -> std::string {
      const json::json_pointer p(pointer);
      if (!doc.contains(p)) return who + ": no value at " + pointer;
      out = &doc.at(p);
      return {};
    };
    const json* v = nullptr;
    if (auto e = at(spec.pointer, v); !e.empty()) return e;
    if (!spec.history) {
      double x = 0.0;
      if (auto e = number(*v, spec.pointer, x); !e.empty()) return e;
      result.scalars[spec.name] = x;
      return {};
    }
    const json* t = nullptr;
    if (auto e = at(spec.time_pointer, t); !e.empty()) return e;
    if (!v->is_array() || !t->is_array() || v->size() != t->size()) {
      return who + ": expected arrays of equal length at " + spec.time_pointer + " and " +
             spec.pointer;
    }
    times.resize(t->size());
    values.resize(v->size());
    for (size_t k = 0; k < t->size(); ++k) {
      const std::string where = "[" + std::to_string(k) + "]";
      if (auto e = number((*t)[k], spec.time_pointer + where, times[k]); !e.empty()) return e;
      if (auto e = number((*v)[k], spec.pointer + where, values[k]); !e.empty()) return e;
    }
    Eigen::VectorXd h;
    const std::string why = resample(times, values, grid, spec.resample, h);
    if (!why.empty()) return who + ": " + why;
    result.histories[spec.name] = std::move(h);
    return {};
  }

  std::vector<std::string> lines;
  if (!read_lines(file, lines)) return who + ": missing (not written by the code)";

  if (spec.parser == Parser::kCell) {
    const int n = static_cast<int>(lines.size());
    const int line = spec.line > 0 ? spec.line : n + 1 + spec.line;
    if (line < 1 || line > n) {
      return who + ": has " + std::to_string(n) + " lines, no line " + std::to_string(spec.line);
    }
    const std::vector<std::string> f = fields(lines[static_cast<size_t>(line - 1)]);
    if (spec.column > static_cast<int>(f.size())) {
      return at_line(line) + "has " + std::to_string(f.size()) + " columns, no column " +
             std::to_string(spec.column);
    }
    double v = 0.0;
    std::string error;
    if (!parse_number(f[static_cast<size_t>(spec.column - 1)], v, error)) {
      return at_line(line) + error;
    }
    result.scalars[spec.name] = v;
    return {};
  }

  // Columns.
  int time_col = spec.time_index - 1, value_col = spec.value_index - 1;
  bool need_header = spec.header;
  int last_line = 0;
  for (size_t k = static_cast<size_t>(spec.skip); k < lines.size(); ++k) {
    const int line = static_cast<int>(k) + 1;
    const std::string& text = lines[k];
    const size_t first = text.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (!spec.comment.empty() && text.compare(first, spec.comment.size(), spec.comment) == 0) {
      continue;
    }
    const std::vector<std::string> f = fields(text);
    if (need_header) {
      auto find = [&](const std::string& name, int& col) -> std::string {
        if (name.empty()) return {};
        auto it = std::find(f.begin(), f.end(), name);
        if (it == f.end()) return at_line(line) + "header has no column \"" + name + "\"";
        col = static_cast<int>(it - f.begin());
        return {};
      };
      if (auto e = find(spec.time_name, time_col); !e.empty()) return e;
      if (auto e = find(spec.value_name, value_col); !e.empty()) return e;
      need_header = false;
      continue;
    }
    const int needed = std::max(time_col, value_col) + 1;
    if (static_cast<int>(f.size()) < needed) {
      return at_line(line) + "has " + std::to_string(f.size()) + " columns, expected at least " +
             std::to_string(needed);
    }
    double t = 0.0, v = 0.0;
    std::string error;
    if (!parse_number(f[static_cast<size_t>(time_col)], t, error) ||
        !parse_number(f[static_cast<size_t>(value_col)], v, error)) {
      return at_line(line) + error;
    }
    times.push_back(t);
    values.push_back(v);
    last_line = line;
  }
  if (need_header) return who + ": no header line";
  if (times.empty()) return who + ": no data lines";
  Eigen::VectorXd h;
  const std::string why = resample(times, values, grid, spec.resample, h);
  if (!why.empty()) return at_line(last_line) + why;
  result.histories[spec.name] = std::move(h);
  return {};
}

}  // namespace sao::adapters
