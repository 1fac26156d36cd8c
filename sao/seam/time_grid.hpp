// The time grid on which history responses are given (a load case's output points). Shared by
// the Simulator seam, the integrators and the output parsers of external codes.
#pragma once

#include <vector>

namespace sao {

// The most points of one grid (docs/study-format.md, "Limits"): the study loader's and the
// cluster worker's request reader's bound.
constexpr long kMaxGridPoints = 1'000'000;

// A time grid t_1..t_nt on which history responses are given: uniform from start to end, or
// the explicit increasing `values` (then start, end and points are set from them).
struct TimeGrid {
  TimeGrid() = default;
  TimeGrid(double first, double last, int n) : start(first), end(last), points(n) {}

  double start = 0.0;
  double end = 1.0;
  int points = 2;              // >= 2
  std::vector<double> values;  // explicit times; empty for a uniform grid
  double at(int p) const {
    return values.empty() ? start + (end - start) * p / (points - 1) : values[p];
  }
  std::vector<double> times() const;
};

}  // namespace sao
