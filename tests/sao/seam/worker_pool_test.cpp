#include "sao/seam/worker_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace sao {
namespace {

TEST(WorkerPool, RunsEveryJobOnce) {
  std::vector<int> hits(1000, 0);
  parallel_for(hits.size(), 4, [&](size_t j) { hits[j] += 1; });
  for (int h : hits) EXPECT_EQ(h, 1);
}

TEST(WorkerPool, NeverRunsMoreJobsAtOnceThanAsked) {
  std::atomic<int> running{0}, most{0};
  parallel_for(64, 3, [&](size_t) {
    const int now = ++running;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    --running;
  });
  EXPECT_LE(most.load(), 3);
  EXPECT_GE(most.load(), 1);
}

TEST(WorkerPool, UsesItsThreadsAgain) {
  std::mutex mutex;
  std::set<std::thread::id> first, second;
  auto record = [&](std::set<std::thread::id>& ids) {
    return [&](size_t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      std::lock_guard lock(mutex);
      ids.insert(std::this_thread::get_id());
    };
  };
  parallel_for(40, 4, record(first));
  parallel_for(40, 4, record(second));
  std::set<std::thread::id> all = first;
  all.insert(second.begin(), second.end());
  // The caller plus at most the pool's threads: no new thread per call.
  EXPECT_LE(all.size(), 1u + std::max<size_t>(3, hardware_workers()) + 8);
  EXPECT_LE(second.size(), 4u);
}

TEST(WorkerPool, NestedCallsFinish) {
  // Sweep members running difference batches: every outer job calls parallel_for again.
  std::atomic<int> inner{0};
  parallel_for(8, 8, [&](size_t) { parallel_for(16, 4, [&](size_t) { ++inner; }); });
  EXPECT_EQ(inner.load(), 8 * 16);
}

TEST(WorkerPool, RethrowsTheFirstErrorAfterEveryJobFinished) {
  std::atomic<int> done{0};
  EXPECT_THROW(parallel_for(50, 4,
                            [&](size_t j) {
                              if (j == 7) throw std::runtime_error("job 7");
                              ++done;
                            }),
               std::runtime_error);
  EXPECT_EQ(done.load(), 49);
}

TEST(WorkerPool, ZeroJobsAndZeroConcurrency) {
  int calls = 0;
  parallel_for(0, 4, [&](size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
  parallel_for(3, 0, [&](size_t) { ++calls; });  // 0: one per core
  EXPECT_EQ(calls, 3);
}

}  // namespace
}  // namespace sao
