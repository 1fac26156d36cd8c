// The one worker pool of the process: finite-difference batches, external runs and sweep
// members all run their independent jobs on it.
//
// Its threads are made once and re-used; the pool grows to the largest concurrency any caller
// asks for (a simulator's `workers`, a sweep's `--jobs`) and never shrinks. The calling thread
// works on its own jobs too, so a job may itself call parallel_for (a sweep member running a
// difference batch) without waiting for a free worker: nested calls cannot deadlock.
#pragma once

#include <cstddef>
#include <functional>

namespace sao {

// Runs job(0) .. job(count - 1) with at most `concurrency` of them at once (the caller's thread
// included; 0 means the number of cores). Each job must touch only its own data. The first
// exception a job throws is rethrown here, after every job has finished.
void parallel_for(size_t count, size_t concurrency, const std::function<void(size_t)>& job);

// The number of cores (at least 1): the default concurrency.
size_t hardware_workers();

}  // namespace sao
