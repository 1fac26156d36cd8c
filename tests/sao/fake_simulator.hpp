// A Simulator for tests: scalar responses given as functions of the design with their exact
// gradients, one load case. Counts the calls it receives.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sao/seam/simulator.hpp"

namespace sao::testing {

struct FakeResponse {
  std::string name;
  std::function<double(const Eigen::VectorXd&)> value;
  std::function<Eigen::VectorXd(const Eigen::VectorXd&)> gradient;
};

class FakeSimulator final : public Simulator {
 public:
  explicit FakeSimulator(std::vector<FakeResponse> responses) : responses_(std::move(responses)) {}
  std::vector<ResponseInfo> responses() const override {
    std::vector<ResponseInfo> out;
    for (const auto& r : responses_) out.push_back({r.name, false});
    return out;
  }
  std::vector<Evaluation> evaluate(const std::vector<EvaluationRequest>& batch) override {
    std::vector<Evaluation> out;
    for (const auto& request : batch) {
      ++calls;
      Evaluation e;
      e.cases.resize(1);
      e.cost.runs = request.derivatives.empty() ? 1 : gradient_runs;
      if ((fail_when && fail_when(request.design)) ||
          (fail_gradients && !request.derivatives.empty())) {
        e.ok = false;
        e.message = "fake failure";
        out.push_back(e);
        continue;
      }
      for (const auto& r : responses_) e.cases[0].scalars[r.name] = r.value(request.design);
      if (!request.derivatives.empty()) {
        ++gradient_calls;
        e.has_gradients = true;
        for (const auto& r : responses_) {
          e.cases[0].gradients[r.name] = r.gradient(request.design).transpose();
        }
      }
      out.push_back(e);
    }
    return out;
  }
  std::function<bool(const Eigen::VectorXd&)> fail_when;
  bool fail_gradients = false;
  // What a sensitivity analysis costs in simulator runs (as finite differences would: n + 1).
  int gradient_runs = 1;
  int calls = 0;
  int gradient_calls = 0;

 private:
  std::vector<FakeResponse> responses_;
};

}  // namespace sao::testing
