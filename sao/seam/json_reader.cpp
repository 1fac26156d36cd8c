#include "sao/seam/json_reader.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace sao {

using nlohmann::json;

namespace {
const json& empty_object() {
  static const json empty = json::object();
  return empty;
}
const json& empty_array() {
  static const json empty = json::array();
  return empty;
}
std::string joined_lines(const std::vector<std::string>& problems) {
  return joined(problems, "\n");
}
}  // namespace

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

std::string json_type_name(const json& v) {
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

std::string json_excerpt(const json& v) {
  if (v.is_array() || v.is_object()) {
    return json_type_name(v) + " of " + std::to_string(v.size()) +
           (v.size() == 1 ? " entry" : " entries");
  }
  std::string text = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

json exact_number(double value) {
  if (std::isfinite(value)) return value;
  return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
}

double exact_number_from(const json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_null() || j == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (j == "inf") return std::numeric_limits<double>::infinity();
  if (j == "-inf") return -std::numeric_limits<double>::infinity();
  throw std::invalid_argument("expected a number, got " + json_excerpt(j));
}

Eigen::VectorXd exact_numbers_from(const json& j) {
  if (!j.is_array()) throw std::invalid_argument("expected an array of numbers");
  Eigen::VectorXd v(static_cast<Eigen::Index>(j.size()));
  for (size_t i = 0; i < j.size(); ++i) v(static_cast<Eigen::Index>(i)) = exact_number_from(j[i]);
  return v;
}

std::string json_expected(const std::string& what, const json& value) {
  const bool shown = !value.is_structured() && !value.is_null();
  return "expected " + what + ", got " + json_type_name(value) +
         (shown ? " (" + json_excerpt(value) + ")" : std::string());
}

std::string json_key_path(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string json_index_path(const std::string& path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

const json& json_member(const json& object, const std::string& key, const std::string& path) {
  const json& o = json_object(object, path);
  const auto it = o.find(key);
  if (it == o.end()) throw std::invalid_argument(json_key_path(path, key) + ": missing");
  return *it;
}

namespace {
// `path: expected WHAT, got ...` unless `ok` (without the path when it is empty).
void require(bool ok, const char* what, const json& value, const std::string& path) {
  if (!ok)
    throw std::invalid_argument((path.empty() ? "" : path + ": ") + json_expected(what, value));
}
}  // namespace

const json& json_object(const json& value, const std::string& path) {
  require(value.is_object(), "an object", value, path);
  return value;
}

const json& json_array(const json& value, const std::string& path) {
  require(value.is_array(), "an array", value, path);
  return value;
}

std::string json_string(const json& value, const std::string& path) {
  require(value.is_string(), "a string", value, path);
  return value.get<std::string>();
}

bool json_boolean(const json& value, const std::string& path) {
  require(value.is_boolean(), "a boolean", value, path);
  return value.get<bool>();
}

std::string json_beyond(const json& value, const JsonLimits& limits) {
  struct Level {
    const json* node;
    int depth;  // of the arrays and objects around it
    std::string path;
  };
  const auto where = [](const std::string& path) { return path.empty() ? "(top level)" : path; };
  const auto child_path = [](const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  };
  std::vector<Level> pending{{&value, 0, ""}};
  while (!pending.empty()) {
    Level level = std::move(pending.back());
    pending.pop_back();
    const json& node = *level.node;
    if (node.is_string()) {
      const size_t n = node.get_ref<const std::string&>().size();
      if (n > limits.length) {
        return where(level.path) + ": a string of " + std::to_string(n) +
               " characters, more than " + std::to_string(limits.length);
      }
      continue;
    }
    if (!node.is_structured()) continue;
    if (level.depth + 1 > limits.depth) {
      return where(level.path) + ": arrays and objects nested more than " +
             std::to_string(limits.depth) + " levels deep";
    }
    if (node.size() > limits.entries) {
      return where(level.path) + ": " + json_type_name(node) + " of " +
             std::to_string(node.size()) + " entries, more than " + std::to_string(limits.entries);
    }
    if (node.is_array()) {
      for (size_t i = 0; i < node.size(); ++i) {
        // A number has nothing to check: no path is built for it.
        if (!node[i].is_structured() && !node[i].is_string()) continue;
        pending.push_back({&node[i], level.depth + 1, level.path + "[" + std::to_string(i) + "]"});
      }
    } else {
      for (const auto& [key, child] : node.items()) {
        if (key.size() > limits.length) {
          return where(level.path) + ": a key of " + std::to_string(key.size()) +
                 " characters, more than " + std::to_string(limits.length);
        }
        if (!child.is_structured() && !child.is_string()) continue;
        pending.push_back({&child, level.depth + 1, child_path(level.path, key)});
      }
    }
  }
  return {};
}

namespace {
// Control characters as \u00XX (line breaks kept where `keep_lines`: multi-line messages).
std::string printable(const std::string& text, bool keep_lines) {
  std::string out;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) < 0x20 || c == 0x7f) && !(keep_lines && c == '\n')) {
      char code[8];
      std::snprintf(code, sizeof code, "\\u%04x", static_cast<unsigned char>(c));
      out += code;
    } else {
      out += c;
    }
  }
  return out;
}
}  // namespace

void Problems::add(const std::string& path, const std::string& what) {
  const std::string p = printable(path, false), w = printable(what, true);
  list_.push_back(p.empty() ? w : p + ": " + w);
}

SectionError::SectionError(std::vector<std::string> problems)
    : std::invalid_argument(joined_lines(problems)), problems_(std::move(problems)) {}

void Problems::throw_if_any() const {
  if (!list_.empty()) throw SectionError(list_);
}

JsonReader::JsonReader(const json& object, std::string path, Problems& problems)
    : object_(object.is_object() ? object : empty_object()),
      path_(std::move(path)),
      problems_(problems) {
  if (!object.is_object())
    problems_.add(path_, "expected an object, got " + json_type_name(object));
}

std::string JsonReader::at(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

bool JsonReader::has(const std::string& key) {
  used_.insert(key);
  return object_.contains(key) && !object_.at(key).is_null();
}

const json& JsonReader::raw(const std::string& key) {
  used_.insert(key);
  return object_.at(key);
}

void JsonReader::known(std::initializer_list<const char*> keys) {
  for (const char* k : keys) used_.insert(k);
}

std::optional<double> JsonReader::number(const std::string& key, bool required) {
  if (!has(key)) {
    if (required) problems_.add(at(key), "missing (expected a number)");
    return std::nullopt;
  }
  const json& v = object_.at(key);
  if (!v.is_number()) {
    // A string shown as it is: "nan" or "1e999" given to --set or `sao set` arrives as one.
    problems_.add(at(key), "expected a number, got " + json_type_name(v) +
                               (v.is_string() ? " (" + json_excerpt(v) + ")" : std::string()));
    return std::nullopt;
  }
  const double d = v.get<double>();
  if (!std::isfinite(d)) {
    problems_.add(at(key), "expected a finite number");
    return std::nullopt;
  }
  return d;
}

std::optional<double> JsonReader::positive(const std::string& key, bool allow_zero) {
  if (!has(key)) return std::nullopt;
  const json& v = object_.at(key);
  const double d = v.is_number() ? v.get<double>() : NAN;
  if (!std::isfinite(d) || d < 0 || (d == 0 && !allow_zero)) {
    problems_.add(
        at(key), std::string(allow_zero ? "expected a number >= 0" : "expected a positive number") +
                     ", got " + json_excerpt(v));
    return std::nullopt;
  }
  return d;
}

std::optional<long> JsonReader::integer(const std::string& key, long minimum, long maximum) {
  if (!has(key)) return std::nullopt;
  const json& v = object_.at(key);
  const double d = v.is_number() ? v.get<double>() : NAN;
  if (!std::isfinite(d) || d != std::floor(d)) {
    problems_.add(at(key), "expected an integer, got " + json_excerpt(v));
    return std::nullopt;
  }
  if (d < static_cast<double>(minimum) || d > static_cast<double>(maximum)) {
    std::string range = d < static_cast<double>(minimum) ? ">= " + std::to_string(minimum)
                                                         : "<= " + std::to_string(maximum);
    problems_.add(at(key), "expected an integer " + range + ", got " + json_excerpt(v));
    return std::nullopt;
  }
  return static_cast<long>(d);
}

std::optional<std::string> JsonReader::string(const std::string& key, bool required) {
  if (!has(key)) {
    if (required) problems_.add(at(key), "missing (expected a string)");
    return std::nullopt;
  }
  const json& v = object_.at(key);
  if (!v.is_string() || v.get<std::string>().empty()) {
    problems_.add(at(key), "expected a non-empty string, got " + json_type_name(v));
    return std::nullopt;
  }
  return v.get<std::string>();
}

std::optional<bool> JsonReader::boolean(const std::string& key) {
  if (!has(key)) return std::nullopt;
  const json& v = object_.at(key);
  if (!v.is_boolean()) {
    problems_.add(at(key), "expected true or false, got " + json_type_name(v));
    return std::nullopt;
  }
  return v.get<bool>();
}

std::optional<std::string> JsonReader::choice(const std::string& key,
                                              const std::vector<std::string>& choices) {
  if (!has(key)) return std::nullopt;
  const json& v = object_.at(key);
  if (v.is_string()) {
    for (const std::string& c : choices) {
      if (v.get<std::string>() == c) return c;
    }
  }
  std::vector<std::string> quoted;
  for (const std::string& c : choices) quoted.push_back("\"" + c + "\"");
  problems_.add(at(key), "expected one of " + joined(quoted) + ", got " + json_excerpt(v));
  return std::nullopt;
}

JsonReader JsonReader::object(const std::string& key) {
  if (!has(key)) return JsonReader(empty_object(), at(key), problems_);
  return JsonReader(object_.at(key), at(key), problems_);
}

const json& JsonReader::array(const std::string& key, bool required) {
  if (!has(key)) {
    if (required) problems_.add(at(key), "missing (expected an array)");
    return empty_array();
  }
  const json& v = object_.at(key);
  if (!v.is_array()) {
    problems_.add(at(key), "expected an array, got " + json_type_name(v));
    return empty_array();
  }
  return v;
}

void JsonReader::finish() {
  std::vector<std::string> known(used_.begin(), used_.end());
  for (const auto& [key, value] : object_.items()) {
    if (!used_.count(key)) problems_.add(at(key), "unknown key (known: " + joined(known) + ")");
  }
}

}  // namespace sao
