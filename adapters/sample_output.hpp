// `sao check STUDY --sample-output DIR` (issue 49): the study's output parsers tried on files a
// code wrote before any run, so that a parser that would fail (a CSV read as whitespace, a
// column name that is not in the header, a pattern that never matches) is reported by `check`
// and not by the first analysis. DIR holds what the code writes in its run directory; a study
// with several load cases takes each case's from DIR/<load case name> when that folder exists,
// else from DIR itself.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "adapters/external_config.hpp"

namespace sao::adapters {

// One response read (or not) from the sample in one load case.
struct SampleReading {
  std::string load_case;
  std::string response;
  std::string directory;  // where it was read
  bool ok = false;
  std::string message;  // why not (the parser's message: file, line, what), or what was read
};

// Every response of every load case of `config` read from the sample in `directory`.
std::vector<SampleReading> read_sample_output(const ExternalConfig& config,
                                              const std::filesystem::path& directory);

}  // namespace sao::adapters
