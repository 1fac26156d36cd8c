// Numbers given as text (`--set k=v`, `sao set`, `sweep --vary`, `simulate --design`).
#include "sao/seam/number_text.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace sao {
namespace {

TEST(NumberText, ReadsDecimalNumbersAndNothingElse) {
  EXPECT_EQ(number_or_nan("2.5"), 2.5);
  EXPECT_EQ(number_or_nan("-1e-3"), -1e-3);
  EXPECT_EQ(number_or_nan("1e308"), 1e308);
  // Below the smallest normal double: the nearest double, not "expected a number" (fuzzing:
  // `sao set DIR move_limit=1e-320` said it was not a number).
  EXPECT_GT(number_or_nan("1e-320"), 0.0);
  EXPECT_LT(number_or_nan("1e-320"), 1e-307);
  EXPECT_EQ(number_or_nan("1e-400"), 0.0);
  EXPECT_TRUE(std::isinf(number_or_nan("inf")));
  for (const char* bad : {"", "1e999", "-1e999", "0x10", "1 ", " 1", "1,5", "one", "2.5e"}) {
    EXPECT_TRUE(std::isnan(number_or_nan(bad))) << '"' << bad << '"';
  }
}

}  // namespace
}  // namespace sao
