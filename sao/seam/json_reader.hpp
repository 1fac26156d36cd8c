// The one JSON reader: every study section (settings, variables, the simulator section and
// what it holds: models, templates, outputs) is read through it, so that every problem of a
// file is reported at once, each with its JSON path ("simulator.gradients.step: expected a
// positive number, got -1"), and a mistyped key is an error, never ignored.
//
// A JsonReader is a view of one JSON object at a path: typed getters record a problem and
// return nothing when a value is missing or of the wrong kind; finish() reports every key that
// nobody asked for. Problems are collected in a Problems list; a simulator factory ends with
// problems.throw_if_any(), which throws a SectionError carrying all of them.
#pragma once

#include <Eigen/Dense>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace sao {

// "a, b, c"
std::string joined(const std::vector<std::string>& items, const std::string& separator = ", ");

// "a number", "a string", "an object", ... for messages.
std::string json_type_name(const nlohmann::json& value);

// A value as a message shows it: scalars as JSON (cut to 80 characters), arrays and objects
// by their kind and size ("an array of 3 entries"), so that a message stays short whatever the
// value holds.
std::string json_excerpt(const nlohmann::json& value);

// A double in JSON, exactly: finite as a JSON number (written with enough digits to read back
// bit for bit), NaN and infinities, which JSON lacks, as the strings "nan", "inf" and "-inf".
// The one form of the cycle records (cycle_record_json.hpp), the study store and the worker's
// request and evaluation files (analysis_request.hpp).
nlohmann::json exact_number(double value);
// The inverse (null reads as NaN, as older result.json files hold it); throws
// std::invalid_argument for any other value ("expected a number, got ...").
double exact_number_from(const nlohmann::json& value);
// An array of such numbers; throws std::invalid_argument.
Eigen::VectorXd exact_numbers_from(const nlohmann::json& values);

// Documents sao writes itself (analysis requests and evaluations, stored cycle records), read
// back with every value named by its JSON path in plain words when it is missing or of another
// kind ("request.setup.load_cases[0].name: expected a string, got a number (3)"), never with
// the JSON library's exception text (which .at() and .get<T>() would throw). Each throws
// std::invalid_argument.
//
// "expected WHAT, got KIND" (a scalar shown too: "got a string (\"x\")").
std::string json_expected(const std::string& what, const nlohmann::json& value);
// The path of a key or an element below `path`: "path.key" ("key" at the top), "path[i]".
std::string json_key_path(const std::string& path, const std::string& key);
std::string json_index_path(const std::string& path, size_t index);
// The value of `key` in the object at `path`: "path: expected an object, ..." when it is not
// one, "path.key: missing" when it lacks the key.
const nlohmann::json& json_member(const nlohmann::json& object, const std::string& key,
                                  const std::string& path);
// The value at `path` when it is of the kind named (an empty path: the message is
// "expected ..." alone, for the caller to place).
const nlohmann::json& json_object(const nlohmann::json& value, const std::string& path);
const nlohmann::json& json_array(const nlohmann::json& value, const std::string& path);
std::string json_string(const nlohmann::json& value, const std::string& path);
bool json_boolean(const nlohmann::json& value, const std::string& path);

// Sizes a document may not exceed (a hostile file must not exhaust the stack or the memory of
// the code that reads it). The defaults are a study file's (docs/study-format.md, "Limits").
struct JsonLimits {
  int depth = 64;            // nesting of arrays and objects
  size_t entries = 1000000;  // of one array or object
  size_t length = 1000000;   // characters of one string or key
};
// The first place where `value` goes beyond `limits`, as "PATH: what" ("(top level)" for the
// document itself); empty when it stays within them. Found without recursion, looking no
// deeper than limits.depth + 1.
std::string json_beyond(const nlohmann::json& value, const JsonLimits& limits);

// Thrown by section parsers (simulator factories): every problem found, each "path: what".
// what() is the problems joined by newlines.
class SectionError : public std::invalid_argument {
 public:
  explicit SectionError(std::vector<std::string> problems);
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::vector<std::string> problems_;
};

// The problems found so far, in the order found.
class Problems {
 public:
  // Control characters (a NUL in a key) are shown as \u00XX, so a message is never cut short.
  void add(const std::string& path, const std::string& what);
  bool empty() const { return list_.empty(); }
  size_t size() const { return list_.size(); }
  const std::vector<std::string>& list() const { return list_; }
  // Throws a SectionError with every problem when there is any.
  void throw_if_any() const;

 private:
  std::vector<std::string> list_;
};

class JsonReader {
 public:
  // `object` must outlive the reader. A value that is not an object is recorded as a problem
  // at `path` and read as an empty object.
  JsonReader(const nlohmann::json& object, std::string path, Problems& problems);

  const std::string& path() const { return path_; }
  Problems& problems() const { return problems_; }
  // The path of a key of this object: "path.key" ("key" at the top).
  std::string at(const std::string& key) const;
  // Present and not null; marks the key as known.
  bool has(const std::string& key);
  // The raw value (call has() first); marks the key as known.
  const nlohmann::json& raw(const std::string& key);
  // Marks keys as known without reading them (read elsewhere).
  void known(std::initializer_list<const char*> keys);

  // A finite number; missing is a problem only when `required`.
  std::optional<double> number(const std::string& key, bool required = false);
  double number_or(const std::string& key, double fallback) {
    return number(key).value_or(fallback);
  }
  // A finite number > 0 (or >= 0 with `allow_zero`); else a problem and nothing.
  std::optional<double> positive(const std::string& key, bool allow_zero = false);
  // An integer (1e5 is accepted as 100000) in [minimum, maximum].
  std::optional<long> integer(const std::string& key,
                              long minimum = std::numeric_limits<int>::min(),
                              long maximum = std::numeric_limits<int>::max());
  // A non-empty string; missing is a problem only when `required`.
  std::optional<std::string> string(const std::string& key, bool required = false);
  std::optional<bool> boolean(const std::string& key);
  // One of `choices` (strings); else a problem listing them.
  std::optional<std::string> choice(const std::string& key,
                                    const std::vector<std::string>& choices);
  // The object at key as a reader (an empty object when missing or not an object, the latter
  // recorded as a problem). Call finish() on it as on this one.
  JsonReader object(const std::string& key);
  // The array at key (empty when missing; a problem when not an array).
  const nlohmann::json& array(const std::string& key, bool required = false);

  // Reports every key of the object that no getter asked for, with the known ones.
  void finish();

 private:
  const nlohmann::json& object_;
  std::string path_;
  Problems& problems_;
  std::set<std::string> used_;
};

}  // namespace sao
