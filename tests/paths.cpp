// The values of tests/paths.hpp, compiled in from the build's configuration (tests/CMakeLists.txt).
#include "tests/paths.hpp"

namespace sao_test_paths {
const char* source_dir() {
  return SAO_PATH_SOURCE_DIR;
}
const char* binary_dir() {
  return SAO_PATH_BINARY_DIR;
}
const char* fake_code() {
  return SAO_PATH_FAKE_CODE;
}
const char* sao_command() {
  return SAO_PATH_SAO_COMMAND;
}
}  // namespace sao_test_paths
