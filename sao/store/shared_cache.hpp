// Analyses shared in memory between drivers (the members of a sweep): an AnalysisStore that
// several threads read and fill at once; the SQLite study store (store.hpp) is the persistent one.
#pragma once

#include <map>
#include <mutex>
#include <vector>

#include "sao/seam/analysis_store.hpp"

namespace sao {

// The driver's AnalysisStore seam, in memory and thread-safe, for drivers with the same
// simulator inputs. A design's values are kept once; its sensitivity rows are merged as members ask
// for more; failed analyses are not kept.
class SharedAnalysisCache final : public AnalysisStore {
 public:
  std::vector<Evaluation> lookup(const Eigen::VectorXd& design, bool gradients) override;
  void save(const Eigen::VectorXd& design, const std::vector<DerivativeRequest>& derivatives,
            const Evaluation& evaluation) override;

 private:
  std::mutex mutex_;
  std::map<std::vector<double>, Evaluation> values_, gradients_;
};

}  // namespace sao
