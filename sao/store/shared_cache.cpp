#include "sao/store/shared_cache.hpp"

namespace sao {
namespace {

// Rows of `old` that `fresh` lacks (NaN) are copied into it.
void merge_gradients(Evaluation& fresh, const Evaluation& old) {
  for (size_t c = 0; c < fresh.cases.size() && c < old.cases.size(); ++c) {
    for (const auto& [name, g_old] : old.cases[c].gradients) {
      auto& grads = fresh.cases[c].gradients;
      auto it = grads.find(name);
      if (it == grads.end()) {
        grads[name] = g_old;
        continue;
      }
      Eigen::MatrixXd& g = it->second;
      if (g.rows() != g_old.rows() || g.cols() != g_old.cols()) continue;
      for (Eigen::Index k = 0; k < g.rows(); ++k) {
        if (!g.row(k).allFinite() && g_old.row(k).allFinite()) g.row(k) = g_old.row(k);
      }
    }
  }
}

}  // namespace

std::vector<Evaluation> SharedAnalysisCache::lookup(const Eigen::VectorXd& design, bool gradients) {
  const std::vector<double> key(design.data(), design.data() + design.size());
  std::lock_guard lock(mutex_);
  std::vector<Evaluation> out;
  if (auto it = gradients_.find(key); it != gradients_.end()) out.push_back(it->second);
  if (!gradients) {
    if (auto it = values_.find(key); it != values_.end()) out.insert(out.begin(), it->second);
  }
  return out;
}

void SharedAnalysisCache::save(const Eigen::VectorXd& design,
                               const std::vector<DerivativeRequest>& derivatives,
                               const Evaluation& evaluation) {
  if (!evaluation.ok) return;  // a failure may be transient (a time limit): never reused
  const std::vector<double> key(design.data(), design.data() + design.size());
  std::lock_guard lock(mutex_);
  if (!derivatives.empty() && evaluation.has_gradients) {
    Evaluation merged = evaluation;
    if (auto it = gradients_.find(key); it != gradients_.end()) merge_gradients(merged, it->second);
    gradients_[key] = std::move(merged);
  }
  values_.emplace(key, evaluation);
}

}  // namespace sao
