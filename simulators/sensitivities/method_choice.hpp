// The choice of "auto" between the direct and the adjoint method (issue 25), from costs
// measured on the model's own runs.
//
// Per load case, the simulator records the CPU time of its analyses (with their integrator
// steps S) and of its direct and adjoint runs; the cost model is
//   direct(N parameters)                   = T_analysis (1 + d N),
//   adjoint(width vectors, `stops` stops)   = T_analysis (1 + a width L),
//     or T_analysis a width L when the analysis's forward pass is kept (Request::forward_kept),
//   L = 1 + kRestartSteps (stops - 1) / S,
// where width is the adjoint's backward block (the values, or with the shared backward sweep
// and more values than states and integrals, the states plus integrals) and `stops` the number
// of distinct times where the shared sweep restarts its backward problem (1 for one backward
// solve): every restart starts the backward integration again with a small first step, about
// kRestartSteps backward steps more (measured: 34,000 backward steps for 600 stops of the quarter
// car against 3,400 forward steps; 4,750 for 100 stops of the impact absorber against 440). d is
// the measured cost of one sensitivity system and a that of one backward vector over the run's
// length, each relative to an analysis and calibrated on the latest run of that method in that
// load case (1 until it has run). When one method has been measured in the load case and the
// other has not, and the other's estimate is within kExploreMargin of the measured one's, the
// other is run once to measure it; from then on both estimates are calibrated and the cheaper
// is kept. Before an analysis of the load case has been timed the rule of counts decides
// (adjoint when there are no more values than parameters). The choice comes with its reason,
// for the log.
#pragma once

#include <mutex>
#include <string>
#include <vector>

namespace sao::sim {

class MethodChooser {
 public:
  // Backward steps one restart of the shared sweep costs (the prior of L above).
  static constexpr double kRestartSteps = 50.0;
  // The unmeasured method is tried once when its estimate is below this times the other's.
  static constexpr double kExploreMargin = 1.25;

  // What a gradient request asks of each method.
  struct Request {
    int values = 0;      // the requested values
    int parameters = 0;  // the active parameters (sensitivity systems of the direct method)
    int width = -1;      // the adjoint's backward block (-1: `values`)
    int stops = 1;       // distinct restart times of the backward problem (1: one solve)
    // The analysis's forward pass is kept (gradients.keep_forward): the adjoint integrates
    // the backward problem only, T_analysis a width L.
    bool forward_kept = false;
  };
  struct Choice {
    bool adjoint = false;
    std::string reason;  // the estimates and where they come from
  };
  explicit MethodChooser(int load_cases) : costs_(static_cast<size_t>(load_cases)) {}

  Choice choose(int load_case, const Request& request) const;
  // The CPU time of one analysis of the load case and its integrator steps (-1: not known).
  void record_analysis(int load_case, double seconds, long steps = -1);
  // The CPU time of one direct (adjoint false) or adjoint run for `request`.
  void record(int load_case, bool adjoint, const Request& request, double seconds);
  // The adjoint (or direct) run failed in the load case: the other method from now on.
  void record_failure(int load_case, bool adjoint);
  // Whether the next gradient in the load case may be the adjoint method's, so that an
  // analysis keeps its forward pass: before the first run (a kept pass costs a few per cent
  // of one analysis; a cold first gradient costs a whole one), and while the latest run there
  // was the adjoint's and it has not failed.
  bool expects_adjoint(int load_case) const;

 private:
  struct Costs {
    double analysis = 0.0;       // seconds; 0: not measured
    long steps = -1;             // the analysis's integrator steps; -1: not known
    double per_parameter = 0.0;  // d; 0: not measured
    double per_value = 0.0;      // a; 0: not measured
    bool direct_failed = false, adjoint_failed = false;
    int last = -1;  // the method of the latest recorded run: 1 adjoint, 0 direct, -1 none
  };
  // L of the cost model: the backward run's length in units of one restart-free solve.
  static double sweep_length(const Costs& c, int stops);
  mutable std::mutex mutex_;
  std::vector<Costs> costs_;
};

}  // namespace sao::sim
