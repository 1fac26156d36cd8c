// The folders and programs the tests use, as the build configured them. Only tests/paths.cpp
// is compiled with their values: every other object of the test binaries is the same whatever
// folder the project is cloned into, so that the compiler cache of scripts/bootstrap serves a
// second clone (CI's) instead of compiling every test again. The test binaries include this
// header in every file (-include, tests/CMakeLists.txt), so the tests keep the macro names.
#pragma once

namespace sao_test_paths {
const char* source_dir();   // the project's sources
const char* binary_dir();   // the build folder
const char* fake_code();    // tests/adapters/programs/fake_code, built
const char* sao_command();  // the `sao` program, built
}  // namespace sao_test_paths

#define SAO_SOURCE_DIR (::sao_test_paths::source_dir())
#define SAO_BINARY_DIR (::sao_test_paths::binary_dir())
#define SAO_FAKE_CODE (::sao_test_paths::fake_code())
#define SAO_COMMAND (::sao_test_paths::sao_command())
