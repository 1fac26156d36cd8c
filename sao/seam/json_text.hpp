// A JSON text read into a document with the place of its first error: the line and column
// (from the parser's byte position) and the JSON path of the value being read, so that a
// study file with a syntax error or a number beyond a double ("1e5000") is reported as
// "settings.cutoff (line 3, column 15): the number 1e5000 is beyond the range of a double",
// never with the JSON library's own exception text.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace sao {

// The first error of a JSON text. what() is the whole message; the parts are kept too.
class JsonTextError : public std::invalid_argument {
 public:
  JsonTextError(size_t line, size_t column, std::string path, std::string what);
  size_t line() const { return line_; }
  size_t column() const { return column_; }
  // The JSON path of the value being read ("(top level)" for the document itself).
  const std::string& path() const { return path_; }

 private:
  size_t line_, column_;
  std::string path_;
};

// Parses `text` as one JSON document (nothing but white space after it); throws JsonTextError.
nlohmann::json parse_json_text(const std::string& text);

// The document of the file at `path`, parsed as above with the file named first in an error:
// "out/result.json: line 3, column 7 (reading design.b1): not valid JSON: ...". Throws
// JsonTextError, or std::invalid_argument ("PATH: cannot open the file") when it cannot be read.
nlohmann::json read_json_file(const std::string& path);

// A JSON library exception's message without its "[json.exception.type_error.302] " prefix
// (and a parse error's "parse error at line 1, column 2: "), for messages that give the place
// themselves.
std::string json_error_text(const std::exception& e);

}  // namespace sao
