#include "simulators/sensitivities/method_choice.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace sao::sim {

MethodChooser::Choice MethodChooser::choose(int load_case, int values, int parameters,
                                            int width) const {
  if (width < 0) width = values;
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
    out.adjoint = values <= parameters;
    out.reason =
        fmt::format("{} backward solve(s) against {} sensitivity system(s), no run timed yet",
                    values, parameters);
    return out;
  }
  const double d = c.per_parameter > 0.0 ? c.per_parameter : 1.0;
  const double a = c.per_value > 0.0 ? c.per_value : 1.0;
  const double direct = c.analysis * (1.0 + d * parameters);
  const double adjoint = c.analysis * (1.0 + a * width);
  out.adjoint = adjoint < direct;
  out.reason = fmt::format(
      "estimated {:.3g} s direct against {:.3g} s adjoint (analysis {:.3g} s; {} {:.3g} "
      "analyses per parameter, {} {:.3g} per backward vector, {} of them)",
      direct, adjoint, c.analysis, c.per_parameter > 0.0 ? "measured" : "assumed", d,
      c.per_value > 0.0 ? "measured" : "assumed", a, width);
  return out;
}

void MethodChooser::record_analysis(int load_case, double seconds) {
  if (!(seconds > 0.0)) return;
  const std::lock_guard<std::mutex> lock(mutex_);
  costs_.at(static_cast<size_t>(load_case)).analysis = seconds;
}

void MethodChooser::record_failure(int load_case, bool adjoint) {
  const std::lock_guard<std::mutex> lock(mutex_);
  Costs& c = costs_.at(static_cast<size_t>(load_case));
  (adjoint ? c.adjoint_failed : c.direct_failed) = true;
}

void MethodChooser::record(int load_case, bool adjoint, int values, int parameters,
                           double seconds) {
  const std::lock_guard<std::mutex> lock(mutex_);
  Costs& c = costs_.at(static_cast<size_t>(load_case));
  const int count = adjoint ? values : parameters;
  if (!(c.analysis > 0.0) || count <= 0 || !(seconds > 0.0)) return;
  // At least a small positive cost: a run faster than the analysis it contains is noise.
  const double per = std::max((seconds / c.analysis - 1.0) / count, 1e-3);
  (adjoint ? c.per_value : c.per_parameter) = per;
}

}  // namespace sao::sim
