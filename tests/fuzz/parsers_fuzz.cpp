// libFuzzer target of the output parsers (adapters/parsers.hpp). The input is a response
// declaration and an output file: the first byte picks the parser (regex scalar first/last,
// regex history, cell, columns by index or by name, json scalar or history), the first line
// (after that byte) is its pattern, pointer or column names, and the rest is the file the code
// wrote, read from a scratch directory. A malformed declaration must be a SectionError
// (std::invalid_argument) naming the entry's path; reading must return "" or a message naming
// the response and its file. Any other exception, a crash or a sanitizer report is a bug, and
// so is a broken invariant, which aborts with a message:
//   - a successful read stores a finite scalar, or a history of finite values, one per point of
//     the grid;
//   - a failure message starts with 'response "r": file out.txt'.
// Built with clang by `scripts/fuzz parsers`; built with g++ and run over the checked-in
// corpus (tests/fuzz/corpus/parsers) by CTest through expression_corpus_main.cpp.
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "adapters/parsers.hpp"

namespace {

namespace ad = sao::adapters;
using nlohmann::json;

std::string current_text;  // the input, for messages

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "parsers_fuzz: %s\n  input (%zu bytes): \"%s\"\n", what.c_str(),
               current_text.size(), current_text.c_str());
  std::abort();
}

const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    const auto d =
        std::filesystem::temp_directory_path() / ("sao-parsers-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

// The response declaration for selector `s` and the first line `arg`.
json declaration(unsigned s, const std::string& arg) {
  json e = {{"name", "r"}, {"file", "out.txt"}};
  switch (s % 8) {
    case 0:
    case 1:
      e.update({{"kind", "scalar"}, {"parser", "regex"}, {"pattern", arg}});
      if (s % 8 == 1) e["occurrence"] = "last";
      break;
    case 2:
      e.update({{"kind", "history"}, {"parser", "regex"}, {"pattern", arg}});
      break;
    case 3:
      e.update({{"kind", "scalar"},
                {"parser", "cell"},
                {"line", static_cast<int>(s / 8) - 16},
                {"column", 1 + static_cast<int>(s / 64)}});
      break;
    case 4:
      e.update({{"kind", "history"},
                {"parser", "columns"},
                {"time", 1},
                {"value", 2},
                {"comment", arg},
                {"resample", s < 128}});
      break;
    case 5: {
      const size_t space = arg.find(' ');
      e.update({{"kind", "history"},
                {"parser", "columns"},
                {"time", arg.substr(0, space)},
                {"value", space == std::string::npos ? std::string("v") : arg.substr(space + 1)}});
      break;
    }
    case 6:
      e.update({{"kind", "scalar"}, {"parser", "json"}, {"pointer", arg}});
      break;
    default:
      e.update({{"kind", "history"}, {"parser", "json"}, {"pointer", arg}, {"time_pointer", "/t"}});
      break;
  }
  return e;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  current_text.assign(reinterpret_cast<const char*>(data), size);
  const std::string rest = current_text.substr(1);
  const size_t newline = rest.find('\n');
  const std::string arg = rest.substr(0, newline);
  const std::string file = newline == std::string::npos ? std::string() : rest.substr(newline + 1);
  json entry;
  try {
    entry = declaration(data[0], arg);
  } catch (const json::exception&) {  // a pattern that is not UTF-8 cannot be a study's
    return 0;
  }
  ad::OutputSpec spec;
  try {
    spec = ad::parse_output_spec(entry, "simulator.responses[0]");
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).find("simulator.responses[0].") == std::string::npos) {
      fail(std::string("declaration error without its path: ") + e.what());
    }
    return 0;
  }
  {
    std::ofstream out(scratch() / "out.txt", std::ios::binary | std::ios::trunc);
    out << file;
  }
  const sao::TimeGrid grid(0.0, 1.0, 5);
  sao::CaseResult result;
  const std::string why = ad::read_output(spec, scratch(), grid, result);
  if (!why.empty()) {
    if (why.rfind("response \"r\": file out.txt", 0) != 0)
      fail("message without its source: " + why);
    return 0;
  }
  if (spec.history) {
    const auto it = result.histories.find("r");
    if (it == result.histories.end() || it->second.size() != 5)
      fail("history missing or not on the grid");
    for (const double v : it->second) {
      if (!std::isfinite(v)) fail("history value not finite");
    }
  } else {
    const auto it = result.scalars.find("r");
    if (it == result.scalars.end() || !std::isfinite(it->second))
      fail("scalar missing or not finite");
  }
  return 0;
}
