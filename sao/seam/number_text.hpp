// A number written as text (`--set k=v`, `sao set`, `sweep --vary`, `simulate --design`).
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

namespace sao {

// The whole text as a double (std::stod's syntax); NaN when it is not one or has trailing
// characters. Callers that need a finite value check std::isfinite ("inf" reads as infinity).
inline double number_or_nan(const std::string& text) {
  try {
    size_t used = 0;
    const double value = std::stod(text, &used);
    return used == text.size() ? value : std::nan("");
  } catch (const std::exception&) {  // no number at all, or beyond a double
    return std::nan("");
  }
}

}  // namespace sao
