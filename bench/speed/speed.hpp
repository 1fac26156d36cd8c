// What the sections of sao_speed share (speed_bench.cpp; section 6 in gradient_cost.cpp): CPU
// time, medians of repeated runs.
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <vector>

namespace sao::bench::speed {

// CPU seconds of this process (the simulator runs on one thread) and of its finished children
// (the whole studies): on a loaded machine they scatter far less than wall time.
inline double cpu_seconds() {
  timespec own{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &own);
  rusage children{};
  getrusage(RUSAGE_CHILDREN, &children);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * t.tv_usec; };
  return static_cast<double>(own.tv_sec) + 1e-9 * static_cast<double>(own.tv_nsec) +
         seconds(children.ru_utime) + seconds(children.ru_stime);
}

// The median of `values` (the upper one of an even count), sorted in place.
inline double median(std::vector<double>& values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// The median CPU time of `repeats` calls of `body`, in seconds; `wall`, when given, gets the
// median wall time, `spread` the CPU times' (max - min) / median.
inline double median_seconds(int repeats, const std::function<void()>& body, double* wall = nullptr,
                             double* spread = nullptr) {
  std::vector<double> times, walls;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_seconds();
    body();
    times.push_back(cpu_seconds() - c0);
    walls.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  if (wall) *wall = median(walls);
  const double middle = median(times);
  if (spread) *spread = middle > 0.0 ? (times.back() - times.front()) / middle : 0.0;
  return middle;
}

// The CPU time of `once`: the median of `repeats` runs, or one run when that one took more than
// 2 s (a long run scatters less, and repeating it would hold the shared machine for minutes).
inline double long_or_median_seconds(int repeats, const std::function<void()>& once) {
  const double c0 = cpu_seconds();
  once();
  const double seconds = cpu_seconds() - c0;
  return seconds < 2.0 ? median_seconds(repeats, once) : seconds;
}

// Section 6 (gradient_cost.cpp): the gradients' cost on the chain of `links` links, medians of
// `repeats` runs.
void gradient_cost(int links, int repeats);

// Section 4's last table (kinematic_gradients.cpp): the driven chain's direct and adjoint
// gradients, dense against sparse, for N = 20, 80, 160 links up to `largest`.
void kinematic_gradient_cost(int largest, int repeats);

// Section 7's second table (slider_gradients.cpp): a row of N = 40, 160, 640 sliders (up to
// `largest`), its direct and adjoint gradients in independent coordinates dense and sparse and
// in absolute coordinates.
void slider_gradient_cost(int largest, int repeats);

}  // namespace sao::bench::speed
