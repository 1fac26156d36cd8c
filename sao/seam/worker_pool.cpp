#include "sao/seam/worker_pool.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace sao {
namespace {

// Threads that take tasks from one queue. Made on first use, grown on demand, joined at exit.
class WorkerPool {
 public:
  static WorkerPool& instance() {
    static WorkerPool pool;
    return pool;
  }
  ~WorkerPool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }
  // Makes sure at least `n` threads exist (at most kMaxThreads).
  void reserve(size_t n) {
    std::lock_guard lock(mutex_);
    n = std::min(n, kMaxThreads);
    while (threads_.size() < n) threads_.emplace_back([this] { work(); });
  }
  void submit(std::function<void()> task) {
    {
      std::lock_guard lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    wake_.notify_one();
  }

 private:
  static constexpr size_t kMaxThreads = 256;
  void work() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty()) return;  // stopping
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  std::vector<std::thread> threads_;
  bool stopping_ = false;
};

// One call of parallel_for: the next job to take, the jobs still running, the first error.
struct Batch {
  size_t count = 0;
  const std::function<void(size_t)>* job = nullptr;
  std::atomic<size_t> next{0};
  std::mutex mutex;
  std::condition_variable done;
  size_t finished = 0;
  std::exception_ptr error;

  // Takes jobs until none is left.
  void drain() {
    for (size_t j = next++; j < count; j = next++) {
      std::exception_ptr failure;
      try {
        (*job)(j);
      } catch (...) {
        failure = std::current_exception();
      }
      std::lock_guard lock(mutex);
      if (failure && !error) error = failure;
      if (++finished == count) done.notify_all();
    }
  }
};

}  // namespace

size_t hardware_workers() {
  return std::max(1u, std::thread::hardware_concurrency());
}

void parallel_for(size_t count, size_t concurrency, const std::function<void(size_t)>& job) {
  if (count == 0) return;
  if (concurrency == 0) concurrency = hardware_workers();
  const size_t helpers = std::min(concurrency, count) - 1;
  auto batch = std::make_shared<Batch>();
  batch->count = count;
  batch->job = &job;
  if (helpers > 0) {
    WorkerPool& pool = WorkerPool::instance();
    pool.reserve(helpers);
    // A helper that starts after every job was taken returns at once; the shared_ptr keeps
    // the batch alive for it.
    for (size_t h = 0; h < helpers; ++h) pool.submit([batch] { batch->drain(); });
  }
  batch->drain();
  std::unique_lock lock(batch->mutex);
  batch->done.wait(lock, [&] { return batch->finished == batch->count; });
  if (batch->error) std::rethrow_exception(batch->error);
}

}  // namespace sao
