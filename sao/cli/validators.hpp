// Checks of command-line numbers. CLI11's PositiveNumber and NonNegativeNumber name their range
// with the largest double written out (300 digits) and say "not in range 0.000000 to ..." for 0;
// these say what they expect.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "sao/seam/number_text.hpp"

namespace sao::cli {

// A number > 0 (`strict`) or >= 0.
inline CLI::Validator at_least_zero(bool strict) {
  return CLI::Validator(
      [strict](std::string& input) -> std::string {
        const double v = number_or_nan(input);
        if (strict ? v > 0.0 : v >= 0.0) return "";
        return std::string("expected a ") + (strict ? "positive" : "non-negative") +
               " number, got " + input;
      },
      strict ? "POSITIVE" : "NONNEGATIVE");
}
inline const CLI::Validator kPositive = at_least_zero(true);
inline const CLI::Validator kNonNegative = at_least_zero(false);

}  // namespace sao::cli
