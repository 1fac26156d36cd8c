// Output parsers of external codes: how a response is read from a file the code wrote in its
// working directory (docs/adapters.md). Declared per response in the study:
//   scalars:   "regex" (a capture group of the first or last match), "cell" (line and
//              column of delimited fields), "json" (a JSON pointer to a number)
//   histories: "columns" (a time column and a value column, by header name or 1-based index,
//              of a table separated by whitespace, commas, semicolons or tabs: CSV read with
//              libcsv), "regex" (all matches: a time group and a value group), "json"
//              (pointers to a time array and a value array)
//   both:      "hdf5" (datasets of an HDF5 file, read with HDF5's C library, hdf5_output.hpp:
//              a scalar is a dataset of one number; a history a 1-D dataset, or one column of a
//              2-D dataset of shape (points, columns), and a time dataset of the same length)
// Histories are resampled (linear interpolation) onto the load case's grid when the code's
// grid differs, so nominal and perturbed runs always give values at the same times.
//
// Regular expressions are RE2's (linear in the text, no recursion: a 30 000-character token or
// a 100 MB file cannot blow the stack or take super-linear time); a pattern RE2 rejects is an
// error when the study is loaded, naming the response and the pattern.
//
// A missing file, key or column, an unparsable number, NaN/Inf, a history that does not
// cover the grid: read_output returns a message naming the response, the file and the line
// (for "hdf5" the dataset).
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "sao/seam/json_reader.hpp"
#include "sao/seam/simulator.hpp"

namespace re2 {
class RE2;
}

namespace sao::adapters {

enum class Parser { kRegex, kCell, kJson, kColumns, kHdf5 };

// How "cell" and "columns" split a line into fields: runs of spaces and tabs, or one delimiter
// character with CSV quoting; kAuto picks one from the file (parsers.cpp, detect_delimiter).
enum class Delimiter { kAuto, kWhitespace, kComma, kSemicolon, kTab };

struct OutputSpec {
  std::string name;  // the response
  bool history = false;
  std::string file;  // relative to the run directory
  Parser parser = Parser::kRegex;
  // regex
  std::string pattern;
  std::shared_ptr<const re2::RE2> regex;  // RE2 syntax, bytes (Latin-1): linear time
  int group = 1;                          // scalar: the capture group of the value
  bool last = false;                      // scalar: the last match instead of the first
  int time_group = 1;                     // history
  int value_group = 2;                    // history
  // cell: 1-based line (negative: from the end), 1-based column
  int line = 1;
  int column = 1;
  // json: pointers
  std::string pointer;       // the value (history: an array)
  std::string time_pointer;  // history: an array of times
  // columns
  std::string time_name, value_name;    // header names, or
  int time_index = 1, value_index = 2;  // 1-based indices
  bool header = false;                  // the first data line holds the column names
  std::string comment = "#";            // lines starting with it are skipped
  int skip = 0;                         // lines skipped at the top
  bool units = false;                   // a units row directly under the header, skipped
  // hdf5: paths of datasets in the file (hdf5_output.hpp)
  std::string dataset;          // the values (a scalar: its one number)
  std::string time_dataset;     // history: the times
  int dataset_column = 0;       // history: 1-based column of a 2-D dataset (0: not given)
  int time_dataset_column = 0;  // likewise for time_dataset
  // cell and columns
  Delimiter delimiter = Delimiter::kAuto;
  bool resample = true;  // false: the code's times must equal the grid's
};

// Reads one entry of simulator.responses (at `path`), recording every problem in `problems`;
// the spec returned is complete only when none was added.
OutputSpec parse_output_spec(const nlohmann::json& entry, const std::string& path,
                             Problems& problems);
// The same for one entry alone: throws a SectionError listing its problems.
OutputSpec parse_output_spec(const nlohmann::json& entry, const std::string& path);

// Reads the response from `directory`/spec.file into `result` (scalars or histories).
// Returns "" or a failure message.
std::string read_output(const OutputSpec& spec, const std::filesystem::path& directory,
                        const TimeGrid& grid, CaseResult& result);

// Whether `path` lies inside `folder` once both are resolved (symbolic links and "..", as far
// as they exist).
bool lies_inside(const std::filesystem::path& path, const std::filesystem::path& folder);

// Parses a number as a code writes it ("1.5", "-2e3", Fortran "1.5D+03"); false for
// anything else and for NaN or infinity (then `error` says which).
bool parse_number(const std::string& token, double& value, std::string& error);

// Values of the code at `times` onto `grid`: linear interpolation, or a check that the times
// equal the grid's. Returns "" or why not (a short history, times not increasing).
std::string resample(const std::vector<double>& times, const std::vector<double>& values,
                     const TimeGrid& grid, bool interpolate, Eigen::VectorXd& out);

}  // namespace sao::adapters
