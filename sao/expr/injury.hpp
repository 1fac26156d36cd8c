// Injury criteria of crash analysis on a history sampled on a time grid, for any scalar type
// with value_of() (double, or Eigen's AutoDiffScalar for exact derivatives): the head injury
// criterion over a window, and the level exceeded for a cumulative duration (the 3 ms
// criterion). The history is read as its piecewise-linear interpolant, the same reading as
// trapz(), so both values are exact on the grid.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace sao::expr::injury {

// HIC = max over grid points t_i < t_j, t_j - t_i <= window, of
// (t_j - t_i) [ (1/(t_j - t_i)) int a dt ]^2.5, the integral by the trapezoid rule; windows
// whose mean is not positive count as 0. The maximising pair is found on the values; the
// result is then computed in S on that pair, so its derivative is that of the maximiser
// (exact where the maximum is unique).
template <class S, class ValueOf>
S hic(const std::vector<S>& a, const std::vector<double>& t, double window, ValueOf value_of) {
  const size_t n = a.size();
  std::vector<double> integral(n, 0.0);
  for (size_t k = 1; k < n; ++k) {
    integral[k] = integral[k - 1] + 0.5 * (t[k] - t[k - 1]) * (value_of(a[k - 1]) + value_of(a[k]));
  }
  const double tolerance = 1e-9 * window;
  double best = 0.0;
  size_t bi = 0, bj = 0;
  for (size_t i = 0; i + 1 < n; ++i) {
    for (size_t j = i + 1; j < n && t[j] - t[i] <= window + tolerance; ++j) {
      const double dt = t[j] - t[i];
      const double mean = (integral[j] - integral[i]) / dt;
      if (mean <= 0.0) continue;
      const double value = dt * std::pow(mean, 2.5);
      if (value > best) {
        best = value;
        bi = i;
        bj = j;
      }
    }
  }
  S result = 0.0 * a[0];
  if (bj == bi) return result;
  for (size_t k = bi + 1; k <= bj; ++k) result += (0.5 * (t[k] - t[k - 1])) * (a[k - 1] + a[k]);
  const double dt = t[bj] - t[bi];
  const double mean = value_of(result) / dt;
  // d/dI of dt (I/dt)^2.5 = 2.5 (I/dt)^1.5
  return dt * std::pow(mean, 2.5) + 2.5 * std::pow(mean, 1.5) * (result - value_of(result));
}

// Measure of the time where the piecewise-linear history is >= level (values only).
inline double time_above(const std::vector<double>& a, const std::vector<double>& t, double level) {
  double total = 0.0;
  for (size_t k = 1; k < a.size(); ++k) {
    const double lo = std::min(a[k - 1], a[k]), hi = std::max(a[k - 1], a[k]);
    const double h = t[k] - t[k - 1];
    if (lo >= level) {
      total += h;
    } else if (hi > level) {
      total += h * (hi - level) / (hi - lo);
    }
  }
  return total;
}

// The highest level L that the piecewise-linear history stays at or above for a cumulative
// time of at least `duration`: time_above(L) = duration, solved exactly (between two sample
// values the measure is linear in L); a level where the measure jumps (a plateau) is that
// sample's value. A history shorter than `duration` gives its minimum.
template <class S, class ValueOf>
S exceeded_level(const std::vector<S>& a, const std::vector<double>& t, double duration,
                 ValueOf value_of) {
  const size_t n = a.size();
  std::vector<double> v(n);
  for (size_t k = 0; k < n; ++k) v[k] = value_of(a[k]);
  std::vector<double> levels = v;
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  auto sample = [&](double level) { return a[std::find(v.begin(), v.end(), level) - v.begin()]; };
  if (time_above(v, t, levels.back()) >= duration) return sample(levels.back());
  if (time_above(v, t, levels.front()) < duration) return sample(levels.front());
  // time_above(levels[lo]) >= duration > time_above(levels[hi])
  size_t lo = 0, hi = levels.size() - 1;
  while (hi - lo > 1) {
    const size_t mid = (lo + hi) / 2;
    (time_above(v, t, levels[mid]) >= duration ? lo : hi) = mid;
  }
  // On (levels[lo], levels[hi]): measure = full + sum over crossing segments of
  // h (max - L) / (max - min).
  double full = 0.0;
  S numerator = 0.0 * a[0];
  S slope = 0.0 * a[0];
  for (size_t k = 1; k < n; ++k) {
    const bool rising = v[k] >= v[k - 1];
    const S& low = rising ? a[k - 1] : a[k];
    const S& high = rising ? a[k] : a[k - 1];
    const double h = t[k] - t[k - 1];
    if (value_of(low) >= levels[hi]) {
      full += h;
    } else if (value_of(low) <= levels[lo] && value_of(high) >= levels[hi]) {
      const S w = h / (high - low);
      numerator += w * high;
      slope += w;
    }
  }
  if (value_of(slope) <= 0.0) return sample(levels[lo]);
  const S level = (numerator + (full - duration)) / slope;
  if (value_of(level) >= levels[hi]) return sample(levels[hi]);
  if (value_of(level) <= levels[lo]) return sample(levels[lo]);
  return level;
}

}  // namespace sao::expr::injury
