// Writing an output file so that a reader (or a process killed half-way) sees either the old
// file or the new one, never a part: the text goes to a temporary file in the same folder,
// which is flushed to disk and renamed over the target. Every output file of `sao` (result.json,
// history.csv, report.html, the sweep's files) is written this way.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string_view>

namespace sao {

// The file could not be written (disk full, permissions, I/O): exit code 3.
class FileWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Creates the output folder `dir` and its missing parents. Throws FileWriteError naming the
// folder and the system's reason ("Permission denied", "Read-only file system", "Not a
// directory" when a parent is a file, ...).
void make_output_folder(const std::filesystem::path& dir);

// Replaces `path` with `text` atomically. Throws FileWriteError naming the file and the
// reason; the old file is then left as it was and no temporary file remains. A device or a
// pipe (e.g. /dev/null) is written in place, not replaced by a file.
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

}  // namespace sao
