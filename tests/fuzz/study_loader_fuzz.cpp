// libFuzzer target of the study loader on the path of `sao check FILE` (sao::open_study: the
// file read as JSON, the study loaded and validated, its simulator section opened with the
// internal simulator registered). The input is written to a file and checked as `sao check`
// would. sao::StudyError is the expected answer to bad input (exit 2); any other exception, a
// crash or a sanitizer report is a bug: it would be a wrong exit code or a crash of `sao check`.
// Built with clang by `scripts/fuzz study_loader`; built with g++ and run over the checked-in
// corpus (tests/fuzz/corpus/study_loader) by CTest through expression_corpus_main.cpp.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>
#include <typeinfo>

#include "sao/study/open_study.hpp"
#include "sao/study/study_loader.hpp"
#include "simulators/internal_simulator.hpp"

namespace {

const std::string& input_file() {
  static const std::string path = [] {
    sao::sim::register_internal_simulator();
    return "/tmp/sao-study-loader-fuzz-" + std::to_string(::getpid()) + ".json";
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& file = input_file();
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const sao::OpenedStudy opened = sao::open_study(file);
    // A valid study: its counts are consistent.
    if (opened.study.n_total() < opened.study.n_design()) std::abort();
  } catch (const sao::StudyError&) {
    // bad input, named: exit 2
  } catch (const std::exception& e) {
    std::fprintf(stderr, "study_loader_fuzz: %s escaped the loader: %s\n", typeid(e).name(),
                 e.what());
    std::abort();
  }
  return 0;
}
