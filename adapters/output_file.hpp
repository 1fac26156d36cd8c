// Output files of external codes, opened as the parsers open them (parsers.cpp,
// hdf5_output.cpp): only regular files inside the run directory. A symbolic link, a FIFO (which
// would block a reader forever), a device or a directory is refused; a text output over
// kMaxOutputBytes is refused without being read.
#pragma once

#include <filesystem>
#include <string>

namespace sao::adapters {

constexpr long long kMaxOutputBytes = 256LL << 20;

// "" when `file` is a regular file inside `directory` (neither a symbolic link nor outside
// through ".."), else why not ("missing (not written by the code)", "is a FIFO, ...").
std::string check_output_file(const std::filesystem::path& file,
                              const std::filesystem::path& directory);

// The whole of such a file (at most kMaxOutputBytes) into `text`; "" or why not.
std::string read_output_text(const std::filesystem::path& file,
                             const std::filesystem::path& directory, std::string& text);

}  // namespace sao::adapters
