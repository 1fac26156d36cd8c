// The analysis cache seam of the driver: where analyses outlive one process.
//
// In the flow of ARCHITECTURE.md the driver asks this store before it asks the simulator
// ("cache / study store" beside the Simulator box). A design analysed before with the same
// simulator inputs is taken from the store and never run again; every analysis the
// simulator delivers is handed to the store as soon as its batch returns. The SQLite study
// store (store.hpp) implements it; without a store the driver keeps its in-memory caches only.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "sao/seam/simulator.hpp"

namespace sao {

class AnalysisStore {
 public:
  virtual ~AnalysisStore() = default;
  // Successful analyses stored for exactly this design (design variables only, compared
  // bitwise), best candidates first. With `gradients`, only analyses holding sensitivities;
  // the caller checks that they cover what it needs. Without, analyses with values only
  // come first.
  virtual std::vector<Evaluation> lookup(const Eigen::VectorXd& design, bool gradients) = 0;
  // Records one finished analysis (failed ones too, for the record; lookup skips them).
  virtual void save(const Eigen::VectorXd& design,
                    const std::vector<DerivativeRequest>& derivatives,
                    const Evaluation& evaluation) = 0;
};

}  // namespace sao
