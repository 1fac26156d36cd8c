#include "simulators/sensitivities/method_choice.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace sao::sim {

double MethodChooser::sweep_length(const Costs& c, int stops) {
  if (stops <= 1 || c.steps <= 0) return 1.0;
  return 1.0 + kRestartSteps * (stops - 1) / static_cast<double>(c.steps);
}

MethodChooser::Choice MethodChooser::choose(int load_case, const Request& request) const {
  const int width = request.width < 0 ? request.values : request.width;
  const int parameters = request.parameters;
  Costs c;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    c = costs_.at(static_cast<size_t>(load_case));
  }
  Choice out;
  if (c.adjoint_failed != c.direct_failed) {
    out.adjoint = c.direct_failed;
    out.reason = fmt::format("{} failed earlier in this load case",
                             c.adjoint_failed ? "the adjoint method" : "the direct method");
    return out;
  }
  if (!(c.analysis > 0.0)) {
    out.adjoint = request.values <= parameters;
    out.reason =
        fmt::format("{} backward solve(s) against {} sensitivity system(s), no run timed yet",
                    request.values, parameters);
    return out;
  }
  const bool d_measured = c.per_parameter > 0.0, a_measured = c.per_value > 0.0;
  const double d = d_measured ? c.per_parameter : 1.0;
  const double a = a_measured ? c.per_value : 1.0;
  const double length = sweep_length(c, request.stops);
  const double direct = c.analysis * (1.0 + d * parameters);
  const double adjoint = c.analysis * ((request.forward_kept ? 0.0 : 1.0) + a * width * length);
  out.adjoint = adjoint < direct;
  std::string measuring;
  if (d_measured != a_measured && width > 0 && parameters > 0) {
    // One method measured, the other not: its estimate rests on the prior of 1 analysis per
    // parameter or vector; when it is close, run it once to measure it.
    const double known = a_measured ? adjoint : direct, other = a_measured ? direct : adjoint;
    if (other >= known && other < kExploreMargin * known) {
      out.adjoint = !a_measured;
      measuring = fmt::format("; {} not measured in this load case and within {:.0f} %: run once",
                              a_measured ? "direct" : "adjoint", 100.0 * (kExploreMargin - 1.0));
    }
  }
  out.reason = fmt::format(
      "estimated {:.3g} s direct against {:.3g} s adjoint (analysis {:.3g} s; {} {:.3g} "
      "analyses per parameter, {} {:.3g} per backward vector, {} of them over {:.3g} solve "
      "lengths for {} stop(s){}){}",
      direct, adjoint, c.analysis, d_measured ? "measured" : "assumed", d,
      a_measured ? "measured" : "assumed", a, width, length, request.stops,
      request.forward_kept ? "; the analysis's forward pass kept" : "", measuring);
  return out;
}

void MethodChooser::record_analysis(int load_case, double seconds, long steps) {
  if (!(seconds > 0.0)) return;
  const std::lock_guard<std::mutex> lock(mutex_);
  Costs& c = costs_.at(static_cast<size_t>(load_case));
  c.analysis = seconds;
  c.steps = steps;
}

void MethodChooser::record_failure(int load_case, bool adjoint) {
  const std::lock_guard<std::mutex> lock(mutex_);
  Costs& c = costs_.at(static_cast<size_t>(load_case));
  (adjoint ? c.adjoint_failed : c.direct_failed) = true;
}

void MethodChooser::record(int load_case, bool adjoint, const Request& request, double seconds) {
  const std::lock_guard<std::mutex> lock(mutex_);
  Costs& c = costs_.at(static_cast<size_t>(load_case));
  const int width = request.width < 0 ? request.values : request.width;
  const double count = adjoint ? width * sweep_length(c, request.stops) : request.parameters;
  if (!(c.analysis > 0.0) || !(count > 0.0) || !(seconds > 0.0)) return;
  // At least a small positive cost: a run faster than the analysis it contains is noise. A
  // backward solve on a kept forward pass contains no analysis.
  const double contained = adjoint && request.forward_kept ? 0.0 : 1.0;
  const double per = std::max((seconds / c.analysis - contained) / count, 1e-3);
  (adjoint ? c.per_value : c.per_parameter) = per;
  c.last = adjoint ? 1 : 0;
}

bool MethodChooser::expects_adjoint(int load_case) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const Costs& c = costs_.at(static_cast<size_t>(load_case));
  return !c.adjoint_failed && c.last != 0;
}

}  // namespace sao::sim
