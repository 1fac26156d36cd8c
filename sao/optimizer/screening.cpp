#include "sao/optimizer/screening.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace sao {
namespace {

// A maximal run of equal values, first..last inclusive.
struct Run {
  int first;
  int last;
};

// Every maximal run of equal values that is a local maximum, in grid order.
std::vector<Run> maximum_runs(const Eigen::VectorXd& g) {
  std::vector<Run> runs;
  const int n = static_cast<int>(g.size());
  int first = 0;
  while (first < n) {
    int last = first;
    while (last + 1 < n && g[last + 1] == g[first]) ++last;
    // Values just outside a maximal run differ from it; where they exist they must be lower.
    const bool left_lower = first == 0 || g[first - 1] < g[first];
    const bool right_lower = last == n - 1 || g[last + 1] < g[last];
    if (left_lower && right_lower) runs.push_back({first, last});
    first = last + 1;
  }
  return runs;
}

}  // namespace

bool above_cutoff(double g_hat, double cutoff) {
  return g_hat >= -(1.0 - cutoff);
}

std::vector<int> local_maxima(const Eigen::VectorXd& g_hat) {
  std::vector<int> points;
  for (const Run& run : maximum_runs(g_hat)) {
    for (int p = run.first; p <= run.last; ++p) points.push_back(p);
  }
  return points;
}

std::vector<int> retained_time_points(const Eigen::VectorXd& g_hat, double cutoff, int neighbours,
                                      bool regionalisation) {
  if (neighbours < 0) {
    throw std::invalid_argument("retained_time_points: neighbours must be >= 0, got " +
                                std::to_string(neighbours));
  }
  const int n = static_cast<int>(g_hat.size());
  std::vector<bool> keep(n, false);
  if (regionalisation) {
    for (const Run& run : maximum_runs(g_hat)) {
      // A plateau has one value, so testing its first point decides for all of it.
      if (!above_cutoff(g_hat[run.first], cutoff)) continue;
      const int from =
          static_cast<int>(std::max<std::int64_t>(0, std::int64_t{run.first} - neighbours));
      const int to =
          static_cast<int>(std::min<std::int64_t>(n - 1, std::int64_t{run.last} + neighbours));
      std::fill(keep.begin() + from, keep.begin() + to + 1, true);
    }
  } else {
    for (int p = 0; p < n; ++p) keep[p] = above_cutoff(g_hat[p], cutoff);
  }
  std::vector<int> points;
  for (int p = 0; p < n; ++p) {
    if (keep[p]) points.push_back(p);
  }
  return points;
}

}  // namespace sao
