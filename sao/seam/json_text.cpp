#include "sao/seam/json_text.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string_view>
#include <vector>

namespace sao {

using nlohmann::json;

namespace {

// The library's document builder, fed through this handler, which keeps the path of the value
// being read: per open array or object, the index of its next element or its last key.
class PathTrackingHandler {
 public:
  explicit PathTrackingHandler(json& root) : dom_(root, false) {}

  bool null() { return value(dom_.null()); }
  bool boolean(bool v) { return value(dom_.boolean(v)); }
  bool number_integer(json::number_integer_t v) { return value(dom_.number_integer(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return value(dom_.number_unsigned(v)); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return value(dom_.number_float(v, s));
  }
  bool string(json::string_t& v) { return value(dom_.string(v)); }
  bool binary(json::binary_t& v) { return value(dom_.binary(v)); }
  bool start_object(std::size_t n) {
    levels_.push_back({false, 0, {}, false});
    return dom_.start_object(n);
  }
  bool key(json::string_t& k) {
    levels_.back().key = k;
    levels_.back().keyed = true;
    return dom_.key(k);
  }
  bool end_object() {
    levels_.pop_back();
    return value(dom_.end_object());
  }
  bool start_array(std::size_t n) {
    levels_.push_back({true, 0, {}, false});
    return dom_.start_array(n);
  }
  bool end_array() {
    levels_.pop_back();
    return value(dom_.end_array());
  }
  bool parse_error(std::size_t position, const std::string& token,
                   const nlohmann::detail::exception& e) {
    failed_ = true;
    position_ = position;
    token_ = token;
    message_ = json_error_text(e);
    overflow_ = e.id == 406;  // out_of_range.406: a number beyond the range of a double
    path_ = path();
    return false;
  }

  bool failed() const { return failed_; }
  bool overflow() const { return overflow_; }
  size_t position() const { return position_; }
  const std::string& token() const { return token_; }
  const std::string& message() const { return message_; }
  const std::string& error_path() const { return path_; }

 private:
  struct Level {
    bool array;
    size_t next;      // of an array: the index of the value being read
    std::string key;  // of an object: the key of the value being read
    bool keyed;       // of an object: a key was read (none before its first)
  };
  // A value is complete: the next one of its array has the next index.
  bool value(bool ok) {
    if (!levels_.empty() && levels_.back().array) ++levels_.back().next;
    return ok;
  }
  std::string path() const {
    std::string out;
    for (const Level& l : levels_) {
      if (l.array) {
        out += '[';  // appended piece by piece: "[" + string trips GCC 12's -Wrestrict
        out += std::to_string(l.next);
        out += ']';
      } else if (l.keyed) {  // an object before its first key adds nothing
        if (!out.empty()) out += '.';
        out += l.key;
      }
    }
    return out.empty() ? "(top level)" : out;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::vector<Level> levels_;
  bool failed_ = false, overflow_ = false;
  size_t position_ = 0;
  std::string token_, message_, path_;
};

// Line and column (both from 1) of the byte at `offset` (0-based) of `text`.
std::pair<size_t, size_t> line_and_column(const std::string& text, size_t offset) {
  offset = std::min(offset, text.size());
  const auto begin = text.begin(), end = begin + static_cast<std::ptrdiff_t>(offset);
  const size_t line = 1 + static_cast<size_t>(std::count(begin, end, '\n'));
  const size_t last_break = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  const size_t line_start =
      last_break == std::string::npos || last_break >= offset ? 0 : last_break + 1;
  return {line, offset - line_start + 1};
}

std::string cut(const std::string& text, size_t n) {
  return text.size() > n ? text.substr(0, n - 3) + "..." : text;
}

}  // namespace

JsonTextError::JsonTextError(size_t line, size_t column, std::string path, std::string what)
    : std::invalid_argument(std::move(what)),
      line_(line),
      column_(column),
      path_(std::move(path)) {}

std::string json_error_text(const std::exception& e) {
  std::string_view text = e.what();
  if (text.starts_with("[json.exception.")) {
    const size_t close = text.find("] ");
    if (close != std::string_view::npos) text.remove_prefix(close + 2);
  }
  // A parse error's own place (this code gives it from the byte position).
  if (text.starts_with("parse error at line ") || text.starts_with("parse error: ")) {
    const size_t colon = text.find(": ");
    if (colon != std::string_view::npos) text.remove_prefix(colon + 2);
  }
  return std::string(text);
}

json parse_json_text(const std::string& text) {
  json document;
  PathTrackingHandler handler(document);
  try {
    json::sax_parse(text, &handler);
  } catch (const json::exception& e) {  // e.g. the builder's own size check
    handler.parse_error(0, "", e);
  }
  if (!handler.failed()) return document;
  if (handler.overflow()) {
    // The position is just after the number: its place is where it starts.
    const size_t start = handler.position() - std::min(handler.position(), handler.token().size());
    const auto [line, column] = line_and_column(text, start);
    const std::string place = "line " + std::to_string(line) + ", column " + std::to_string(column);
    throw JsonTextError(line, column, handler.error_path(),
                        handler.error_path() + " (" + place + "): the number " +
                            cut(handler.token(), 40) +
                            " is beyond the range of a double (at most about 1.8e308)");
  }
  // The parser's position is the byte after the one that stopped it.
  const size_t at = handler.position() == 0 ? 0 : handler.position() - 1;
  const auto [line, column] = line_and_column(text, at);
  throw JsonTextError(line, column, handler.error_path(),
                      "line " + std::to_string(line) + ", column " + std::to_string(column) +
                          " (reading " + handler.error_path() +
                          "): not valid JSON: " + handler.message());
}

json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) throw std::invalid_argument(path + ": cannot open the file");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  try {
    return parse_json_text(text);
  } catch (const JsonTextError& e) {
    throw JsonTextError(e.line(), e.column(), e.path(), path + ": " + e.what());
  }
}

}  // namespace sao
