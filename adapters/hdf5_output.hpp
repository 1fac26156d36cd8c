// The "hdf5" output parser (docs/adapters.md): a response read from datasets of an HDF5 file the
// code wrote, with HDF5's C library (Debian libhdf5-dev). parsers.cpp declares the parser and
// resamples a history onto the grid; this file reads the spec's keys and the numbers.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "adapters/parsers.hpp"

namespace sao::adapters {

// The keys of "parser": "hdf5" into `s`: "dataset"; for a history "time_dataset" and the
// optional "column", "time_column" (1-based, of a 2-D dataset) and "resample". Problems are
// recorded in e.problems() with their JSON path.
void read_hdf5_spec(JsonReader& e, OutputSpec& s);

// The numbers of spec.dataset in `file` (inside `directory`) into `values`: one for a scalar;
// for a history a column, and spec.time_dataset's into `times` (of the same length). Returns ""
// or why not, without the "response ...: file ..." that the caller puts in front. HDF5 prints
// nothing: its errors are silenced while reading and become this message.
std::string read_hdf5_numbers(const OutputSpec& spec, const std::filesystem::path& file,
                              const std::filesystem::path& directory, std::vector<double>& times,
                              std::vector<double>& values);

}  // namespace sao::adapters
