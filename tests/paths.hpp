// The folders and programs the tests use, as the build configured them. Only tests/paths.cpp
// is compiled with their values: every other object of the test binaries is the same whatever
// folder the project is cloned into, so that the compiler cache of scripts/bootstrap serves a
// second clone (CI's) instead of compiling every test again. The test binaries include this
// header in every file (-include, tests/CMakeLists.txt), so the tests keep the macro names.
#pragma once

namespace sao::testing::paths {
const char* source_dir();   // the project's sources
const char* binary_dir();   // the build folder
const char* fake_code();    // tests/adapters/programs/fake_code, built
const char* sao_command();  // the `sao` program, built
}  // namespace sao::testing::paths

#define SAO_SOURCE_DIR (::sao::testing::paths::source_dir())
#define SAO_BINARY_DIR (::sao::testing::paths::binary_dir())
#define SAO_FAKE_CODE (::sao::testing::paths::fake_code())
#define SAO_COMMAND (::sao::testing::paths::sao_command())
