// The choice of "auto" between the direct and the adjoint method (issue 25), from costs
// measured on the model's own runs.
//
// Per load case, the simulator records the wall time of its analyses and of its direct and
// adjoint runs; the cost model is
//   direct(P values wanted, N parameters)  = T_analysis (1 + d N),
//   adjoint(P values wanted, N parameters) = T_analysis (1 + a P),
// where P is the adjoint's backward block: the values, or with the shared backward sweep and
// more values than states and integrals, the states plus integrals (the internal simulator
// passes it as `width` and to record()). d is the measured cost of one sensitivity system and a
// that of one backward vector, each relative to an analysis and calibrated on the latest run of
// that method in that load case (1 until it has run: one more solve of the size of the analysis per
// parameter or value, the rule "adjoint when there are no more values than parameters"). Before an
// analysis of the load case has been timed the same rule decides. The choice comes with its reason,
// for the log.
#pragma once

#include <mutex>
#include <string>
#include <vector>

namespace sao::sim {

class MethodChooser {
 public:
  struct Choice {
    bool adjoint = false;
    std::string reason;  // the estimates and where they come from
  };
  explicit MethodChooser(int load_cases) : costs_(static_cast<size_t>(load_cases)) {}

  // `width`: the adjoint's backward block for the cost model (-1: `values`); the rule before
  // any timing compares the values themselves with the parameters.
  Choice choose(int load_case, int values, int parameters, int width = -1) const;
  // The wall time of one analysis of the load case.
  void record_analysis(int load_case, double seconds);
  // The wall time of one direct (adjoint false) or adjoint run for `values` values and
  // `parameters` parameters.
  void record(int load_case, bool adjoint, int values, int parameters, double seconds);
  // The adjoint (or direct) run failed in the load case: the other method from now on.
  void record_failure(int load_case, bool adjoint);

 private:
  struct Costs {
    double analysis = 0.0;       // seconds; 0: not measured
    double per_parameter = 0.0;  // d; 0: not measured
    double per_value = 0.0;      // a; 0: not measured
    bool direct_failed = false, adjoint_failed = false;
  };
  mutable std::mutex mutex_;
  std::vector<Costs> costs_;
};

}  // namespace sao::sim
