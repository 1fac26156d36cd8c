// libFuzzer target of the study store's record decoding (store_records.hpp): the first byte
// chooses the record, the rest is its stored bytes.
//   even: an analysis' result blob (decode_evaluation); what decodes must encode and decode
//         again to the same encoding (the encoding is exact);
//   odd:  a cycle row's record text (decode_cycle_record, either stored form).
// StoreError and the JSON library's exceptions are the expected answer to damaged bytes (the
// store names the row and re-analyses or rebuilds it); a crash, a sanitizer report, an
// allocation beyond what the bytes can describe (std::bad_alloc, std::length_error) or a
// broken invariant is a bug.
// Built with clang by `scripts/fuzz store_record`; built with g++ and run over the checked-in
// corpus (tests/fuzz/corpus/store_record) by CTest through expression_corpus_main.cpp.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

#include "sao/store/store.hpp"
#include "sao/store/store_records.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (data[0] % 2 == 0) {
      const sao::Evaluation e = sao::decode_evaluation(bytes);
      const std::string again = sao::encode_evaluation(e);
      if (sao::encode_evaluation(sao::decode_evaluation(again)) != again) {
        std::fprintf(stderr, "store_record_fuzz: the encoding does not read back exactly\n");
        std::abort();
      }
    } else {
      (void)sao::decode_cycle_record(bytes);
    }
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "store_record_fuzz: allocation beyond the record's size\n");
    std::abort();
  } catch (const std::length_error&) {
    std::fprintf(stderr, "store_record_fuzz: length beyond the record's size\n");
    std::abort();
  } catch (const std::exception&) {
    // StoreError, nlohmann::json exceptions, std::invalid_argument: a damaged record, named
    // by the store
  }
  return 0;
}
