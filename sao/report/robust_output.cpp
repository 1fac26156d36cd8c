// `sao robust`'s text and JSON (robust.hpp).
#include <fmt/format.h>

#include <cmath>

#include "sao/report/robust.hpp"

namespace sao::report {
namespace {

using reliability::FailureProbability;
using reliability::Interval;
using reliability::SampleStatistics;

std::string num(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.6g}", v);
}

std::string interval(const Interval& i) {
  return fmt::format("{} [{}, {}]", num(i.value), num(i.low), num(i.high));
}

std::string percent(double p) {
  return fmt::format("{:g} %", 100 * p);
}

std::string violation_text(const FailureProbability& f) {
  if (f.upper_bound_only()) {
    return fmt::format("0 of {}: P < {} ({} upper bound)", f.count, num(f.pf.high),
                       percent(f.confidence));
  }
  return fmt::format("{} ({} of {})", interval(f.pf), f.failures, f.count);
}

void statistics_text(std::string& out, const SampleStatistics& s, const std::string& indent) {
  out += fmt::format("{}mean   {}\n", indent, interval(s.mean));
  out += fmt::format("{}sd     {}\n", indent, interval(s.sd));
  for (const auto& q : s.quantiles) {
    out +=
        fmt::format("{}q{:<5} {}\n", indent, fmt::format("{:g}%", 100 * q.p), interval(q.estimate));
  }
}

// Whether the sampled figures meet the constraint's reliability target: a probability against
// the violation's confidence interval, a mean + k sd against the bound (its range from the
// intervals of the mean and the sd: met or not only when the whole range says so).
std::string target_verdict(const RobustValue& v, const FailureProbability& f,
                           const SampleStatistics* s) {
  if (v.target_probability > 0) {
    const std::string target = fmt::format("P(violated) <= {:g}", v.target_probability);
    if (f.pf.high <= v.target_probability) {
      return fmt::format("{}: met (the interval's upper end {} is below it)", target,
                         num(f.pf.high));
    }
    if (f.failures > 0 && f.pf.low > v.target_probability) {
      return fmt::format("{}: NOT met (the interval's lower end {} is above it)", target,
                         num(f.pf.low));
    }
    return fmt::format("{}: undecided at {} samples (the interval holds it)", target, f.count);
  }
  if (!s) return "";
  // mean + k sd (<=) or mean - k sd (>=), and its range over the two intervals.
  const double k = v.target_k;
  const bool upper = v.sense == "<=";
  const double value = s->mean.value + (upper ? k : -k) * s->sd.value;
  const double low = upper ? s->mean.low + k * s->sd.low : s->mean.low - k * s->sd.high;
  const double high = upper ? s->mean.high + k * s->sd.high : s->mean.high - k * s->sd.low;
  const bool met = upper ? high <= v.bound : low >= v.bound;
  const bool not_met = upper ? low > v.bound : high < v.bound;
  return fmt::format("mean {} {:g} sd = {} [{}, {}] {} {}: {}", upper ? "+" : "-", k, num(value),
                     num(low), num(high), v.sense, num(v.bound),
                     met       ? "met"
                     : not_met ? "NOT met"
                               : "undecided (the range from the intervals holds the bound)");
}

void value_text(std::string& out, const RobustResult& r, const RobustValue& v) {
  out += "\n" + v.name + (v.unit.empty() ? "" : " [" + v.unit + "]");
  if (!v.sense.empty()) out += fmt::format("  (constraint {} {})", v.sense, num(v.bound));
  if (v.constant) out += fmt::format("  constant {} over the analyses", num(v.constant_value));
  if (std::isfinite(v.loo_rms)) out += fmt::format("  model LOO RMS {}", num(v.loo_rms));
  out += "\n";
  if (v.statistics) statistics_text(out, *v.statistics, "  ");
  if (v.violation) out += "  P(violated) " + violation_text(*v.violation) + "\n";
  if (v.violation && v.target_k > 0) {
    out += "  target " + target_verdict(v, *v.violation, v.statistics ? &*v.statistics : nullptr) +
           "\n";
  }
  if (v.form) {
    const reliability::FormResult& f = *v.form;
    std::string point;
    for (size_t i = 0; i < r.random.size(); ++i) {
      point += fmt::format("{}{} = {}", i ? ", " : "", r.random[i],
                           num(f.x(static_cast<Eigen::Index>(i))));
    }
    out += fmt::format("  FORM   beta {}, Pf {}, {} iterations, {}; design point {}\n", num(f.beta),
                       num(f.pf), f.iterations,
                       f.converged ? "converged" : "NOT converged: " + f.message, point);
  }
  if (v.sobol) {
    const metamodel::SobolIndices& si = *v.sobol;
    for (size_t i = 0; i < r.random.size(); ++i) {
      const auto at = static_cast<Eigen::Index>(i);
      out += fmt::format("  Sobol  {:<8} S {} [{}, {}]  ST {} [{}, {}]\n", r.random[i],
                         num(si.first(at)), num(si.first_low(at)), num(si.first_high(at)),
                         num(si.total(at)), num(si.total_low(at)), num(si.total_high(at)));
    }
  }
  if (v.verify_computed.size() > 0) {
    out += fmt::format("  verified by {} analyses: RMS of predicted - computed {}\n",
                       v.verify_computed.size(), num(v.verify_rms));
    if (v.verified) statistics_text(out, *v.verified, "    ");
    if (v.verified_violation) {
      out += "    P(violated) " + violation_text(*v.verified_violation) + "\n";
      if (v.target_k > 0) {
        out += "    target " +
               target_verdict(v, *v.verified_violation, v.verified ? &*v.verified : nullptr) + "\n";
      }
    }
  }
  if (!v.note.empty()) out += "  note: " + v.note + "\n";
}

nlohmann::ordered_json number_json(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json();
}

nlohmann::ordered_json interval_json(const Interval& i) {
  return {
      {"value", number_json(i.value)}, {"low", number_json(i.low)}, {"high", number_json(i.high)}};
}

nlohmann::ordered_json statistics_json(const SampleStatistics& s) {
  nlohmann::ordered_json q = nlohmann::ordered_json::array();
  for (const auto& e : s.quantiles) {
    nlohmann::ordered_json entry = interval_json(e.estimate);
    entry["p"] = e.p;
    q.push_back(entry);
  }
  return {{"count", s.count},
          {"confidence", s.confidence},
          {"mean", interval_json(s.mean)},
          {"sd", interval_json(s.sd)},
          {"quantiles", q}};
}

nlohmann::ordered_json violation_json(const FailureProbability& f) {
  nlohmann::ordered_json j = interval_json(f.pf);
  j["failures"] = f.failures;
  j["count"] = f.count;
  j["upper_bound_only"] = f.upper_bound_only();
  return j;
}

nlohmann::ordered_json vector_json(const Eigen::VectorXd& v) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (double x : v) out.push_back(number_json(x));
  return out;
}

nlohmann::ordered_json value_json(const RobustValue& v) {
  nlohmann::ordered_json j = {
      {"name", v.name}, {"kind", to_string(v.kind)}, {"unit", v.unit}, {"constant", v.constant}};
  if (v.constant) j["constant_value"] = v.constant_value;
  j["loo_rms"] = number_json(v.loo_rms);
  if (v.statistics) j["statistics"] = statistics_json(*v.statistics);
  if (!v.sense.empty()) {
    j["sense"] = v.sense;
    j["bound"] = v.bound;
  }
  if (v.violation) j["violation"] = violation_json(*v.violation);
  if (v.violation && v.target_k > 0) {
    j["target"] = {
        {"k", v.target_k},
        {"probability", v.target_probability > 0 ? nlohmann::ordered_json(v.target_probability)
                                                 : nlohmann::ordered_json()},
        {"verdict", target_verdict(v, *v.violation, v.statistics ? &*v.statistics : nullptr)}};
  }
  if (v.form) {
    const reliability::FormResult& f = *v.form;
    j["form"] = {{"converged", f.converged},     {"message", f.message},
                 {"iterations", f.iterations},   {"evaluations", f.evaluations},
                 {"beta", number_json(f.beta)},  {"pf", number_json(f.pf)},
                 {"z", vector_json(f.z)},        {"x", vector_json(f.x)},
                 {"alpha", vector_json(f.alpha)}};
  }
  if (v.sobol) {
    const metamodel::SobolIndices& si = *v.sobol;
    j["sobol"] = {{"first", vector_json(si.first)},
                  {"first_low", vector_json(si.first_low)},
                  {"first_high", vector_json(si.first_high)},
                  {"total", vector_json(si.total)},
                  {"total_low", vector_json(si.total_low)},
                  {"total_high", vector_json(si.total_high)},
                  {"evaluations", si.evaluations}};
  }
  if (v.verify_computed.size() > 0) {
    nlohmann::ordered_json ver = {{"predicted", vector_json(v.verify_predicted)},
                                  {"computed", vector_json(v.verify_computed)},
                                  {"rms", number_json(v.verify_rms)}};
    if (v.verified) ver["statistics"] = statistics_json(*v.verified);
    if (v.verified_violation) ver["violation"] = violation_json(*v.verified_violation);
    j["verification"] = ver;
  }
  if (!v.note.empty()) j["note"] = v.note;
  return j;
}

}  // namespace

std::string robust_purpose_title(const std::string& purpose) {
  return purpose == "doe" ? "local DOE" : purpose;
}

std::string robust_text(const RobustResult& r) {
  std::string out;
  const std::string method = robust_method_name(r.request.method);
  out += fmt::format("robust     method {}{}; {} samples; confidence {}; store {}\n", method,
                     r.model.empty() ? " (analyses)" : " on a " + r.model + " model", r.samples,
                     percent(r.request.confidence), r.store);
  std::string design;
  for (size_t i = 0; i < r.variables.size(); ++i) {
    design += fmt::format("{}{} = {}", i ? ", " : "", r.variables[i],
                          num(r.design(static_cast<Eigen::Index>(i))));
  }
  out += fmt::format("design     {}: {}\n", r.design_source, design);
  for (size_t i = 0; i < r.random.size(); ++i) {
    out += fmt::format("{}{} of {}: {}\n", i ? "           " : "random     ", r.random[i],
                       r.random_of[i], r.distributions[i]);
    for (size_t j = 0; j < i; ++j) {
      const double rho = r.correlation(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
      if (rho != 0.0)
        out += fmt::format("           rho({}, {}) = {}\n", r.random[j], r.random[i], num(rho));
    }
  }
  if (r.box_lower.size() > 0) {
    std::string box;
    for (size_t i = 0; i < r.random.size(); ++i) {
      const auto k = static_cast<Eigen::Index>(i);
      box += fmt::format("{}{} in [{}, {}]", i ? ", " : "", r.random_of[i], num(r.box_lower(k)),
                         num(r.box_upper(k)));
    }
    out += "box        " + box + " (mean +- 3 sd, inside the bounds)\n";
  }
  for (const AnalysisSet& s : r.analyses) {
    out +=
        fmt::format("analyses   {} (DOE {}): {} points, {} analysed now ({} failed), {} re-used\n",
                    robust_purpose_title(s.progress.purpose), s.doe, s.progress.total,
                    s.progress.analysed, s.progress.failed, s.progress.reused);
  }
  for (const RobustValue& v : r.values) value_text(out, r, v);
  return out;
}

nlohmann::ordered_json robust_json(const RobustResult& r) {
  nlohmann::ordered_json j;
  j["method"] = robust_method_name(r.request.method);
  j["model"] = r.model;
  j["samples"] = r.samples;
  j["confidence"] = r.request.confidence;
  j["store"] = r.store;
  j["design_source"] = r.design_source;
  nlohmann::ordered_json design;
  for (size_t i = 0; i < r.variables.size(); ++i)
    design[r.variables[i]] = r.design(static_cast<Eigen::Index>(i));
  j["design"] = design;
  nlohmann::ordered_json random = nlohmann::ordered_json::array();
  for (size_t i = 0; i < r.random.size(); ++i) {
    nlohmann::ordered_json e = {
        {"name", r.random[i]}, {"of", r.random_of[i]}, {"distribution", r.distributions[i]}};
    if (r.box_lower.size() > 0) {
      e["box"] = {number_json(r.box_lower(static_cast<Eigen::Index>(i))),
                  number_json(r.box_upper(static_cast<Eigen::Index>(i)))};
    }
    random.push_back(e);
  }
  j["random_variables"] = random;
  nlohmann::ordered_json sets = nlohmann::ordered_json::array();
  for (const AnalysisSet& s : r.analyses) {
    nlohmann::ordered_json e = progress_json(nullptr, s.progress);  // its purpose included
    e["doe"] = s.doe;
    sets.push_back(e);
  }
  j["analyses"] = sets;
  nlohmann::ordered_json values = nlohmann::ordered_json::array();
  for (const RobustValue& v : r.values) values.push_back(value_json(v));
  j["values"] = values;
  return j;
}

}  // namespace sao::report
