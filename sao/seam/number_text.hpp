// A number written as text (`--set k=v`, `sao set`, `sweep --vary`, `simulate --design`).
#pragma once

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace sao {

// The whole text as a double in decimal (std::strtod's syntax without hexadecimal); NaN when
// it is not one, has other characters around it, or lies beyond the double range. A value
// below the smallest normal double (1e-320) reads as the nearest double, not as an error.
// Callers that need a finite value check std::isfinite ("inf" reads as infinity).
inline double number_or_nan(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front())) ||
      text.find_first_of("xX") != std::string::npos) {
    return std::nan("");
  }
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nan("");
  if (errno == ERANGE && std::abs(value) > 1.0) return std::nan("");  // beyond a double
  return value;
}

}  // namespace sao
