// register_standard_components() without a "python" factory (a build without Python, and this
// test binary, which links no interpreter): a study naming the type is refused with a problem of
// simulator.type that says why, not an unknown type and not a crash.
#include "sao/components/standard_components.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sao/study/open_study.hpp"
#include "sao/study/study_loader.hpp"

namespace sao {
namespace {

using ::testing::HasSubstr;

TEST(StandardComponents, PythonWithoutAnInterpreterIsAStudyError) {
  register_standard_components();
  const std::string file =
      std::string(SAO_SOURCE_DIR) + "/problems/python-absorber/max-acceleration.json";
  try {
    open_study(file, {}, 0);
    FAIL() << "the study opened";
  } catch (const StudyError& e) {
    EXPECT_THAT(e.what(), HasSubstr("simulator.type: \"python\" needs a Python interpreter and "
                                    "this build of sao has none"));
  }
}

}  // namespace
}  // namespace sao
