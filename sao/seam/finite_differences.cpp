#include "sao/seam/finite_differences.hpp"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

namespace sao {

void parallel_for(size_t count, size_t threads, const std::function<void(size_t)>& job) {
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex mutex;
  auto worker = [&] {
    for (size_t j = next++; j < count; j = next++) {
      try {
        job(j);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < std::min(threads, count); ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

void add_difference_gradients(CaseResult& nominal, const std::vector<PerturbedRun>& plus,
                              const std::vector<PerturbedRun>& minus) {
  const auto n = static_cast<Eigen::Index>(plus.size());
  const bool central = !minus.empty();
  // Column i of d(value)/db; `value` picks one response of a run.
  auto difference = [&](Eigen::Index i, const Eigen::VectorXd& at_nominal, auto value) {
    const PerturbedRun& p = plus[static_cast<size_t>(i)];
    if (!central) return Eigen::VectorXd((value(*p.result) - at_nominal) / p.step);
    const PerturbedRun& m = minus[static_cast<size_t>(i)];
    return Eigen::VectorXd((value(*p.result) - value(*m.result)) / (p.step - m.step));
  };
  for (const auto& [name, h] : nominal.histories) {
    Eigen::MatrixXd g(h.size(), n);
    for (Eigen::Index i = 0; i < n; ++i) {
      g.col(i) = difference(i, h, [&](const CaseResult& r) { return r.histories.at(name); });
    }
    nominal.gradients[name] = std::move(g);
  }
  for (const auto& [name, v] : nominal.scalars) {
    Eigen::MatrixXd g(1, n);
    for (Eigen::Index i = 0; i < n; ++i) {
      g.col(i) = difference(i, Eigen::VectorXd::Constant(1, v), [&](const CaseResult& r) {
        return Eigen::VectorXd::Constant(1, r.scalars.at(name)).eval();
      });
    }
    nominal.gradients[name] = std::move(g);
  }
}

}  // namespace sao
