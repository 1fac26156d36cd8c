// What the simulators share for finite-difference sensitivities and parallel batches: running
// independent jobs on a small pool, and turning perturbed runs into gradient columns.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "sao/seam/simulator.hpp"

namespace sao {

// Runs job(0) .. job(count - 1) on at most `threads` threads (the caller's included); each
// job must touch only its own data. The first exception a job throws is rethrown here, after
// every thread has finished.
void parallel_for(size_t count, size_t threads, const std::function<void(size_t)>& job);

// A run of the design with variable i perturbed by `step` (negative: b - h).
struct PerturbedRun {
  const CaseResult* result = nullptr;
  double step = 0.0;
};

// The runs after a nominal job laid out as nominal, then per variable +h (and -h when
// `central`): the +h runs (`plus`) or the -h runs (empty for forward differences). Job has a
// CaseResult `result` and the `step` used.
template <class Job>
std::vector<PerturbedRun> perturbed_runs(const Job* nominal, int variables, bool central,
                                         bool plus) {
  std::vector<PerturbedRun> runs;
  if (!plus && !central) return runs;
  const int per_variable = central ? 2 : 1;
  for (int i = 0; i < variables; ++i) {
    const Job& job = nominal[1 + i * per_variable + (plus ? 0 : 1)];
    runs.push_back({&job.result, job.step});
  }
  return runs;
}

// Fills nominal.gradients for every history and scalar of `nominal`: column i is
// (f(plus[i]) - f(nominal)) / plus[i].step (forward, `minus` empty), or
// (f(plus[i]) - f(minus[i])) / (plus[i].step - minus[i].step) (central).
void add_difference_gradients(CaseResult& nominal, const std::vector<PerturbedRun>& plus,
                              const std::vector<PerturbedRun>& minus);

}  // namespace sao
