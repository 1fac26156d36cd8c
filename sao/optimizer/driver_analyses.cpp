// The driver's analyses (Driver::analyse_batch, analyse, reuse_stored): the caches by design
// (values, and values with sensitivities), the study store looked up before the simulator, and
// the checks that make an analysis usable (finite, complete, the sensitivities asked for).
#include <algorithm>
#include <cmath>

#include "sao/optimizer/driver.hpp"
#include "sao/study/criteria.hpp"

namespace sao {

// `order`: the run's finite differences are of at least this order (Driver::differences_), so
// differences of a lower one do not cover the request.
bool covers(const Study& study, const Evaluation& e, const std::vector<DerivativeRequest>& wanted,
            DifferenceOrder order) {
  if (!e.has_gradients) return false;
  if (!e.cases.empty()) {
    const std::optional<DifferenceOrder> taken = differences_of(e.cases.front().gradient_method);
    if (taken && *taken < order) return false;
  }
  for (const DerivativeRequest& r : wanted) {
    auto it = e.cases[r.load_case].gradients.find(r.response);
    if (it == e.cases[r.load_case].gradients.end() || it->second.cols() != study.n_design()) {
      return false;
    }
    for (int p : r.time_indices) {
      if (p >= it->second.rows() || !it->second.row(p).allFinite()) return false;
    }
  }
  return true;
}

namespace {

// Names the first response value (or requested derivative) that is NaN or infinite: such an
// analysis is failed, never used (a NaN compares false with every bound and would pass).
std::string non_finite(const Study& study, const Evaluation& e,
                       const std::vector<DerivativeRequest>& wanted) {
  for (size_t c = 0; c < e.cases.size(); ++c) {
    const std::string where = " in load case \"" + study.load_cases[c].name + "\"";
    for (const auto& [name, v] : e.cases[c].scalars) {
      if (!std::isfinite(v)) return "response \"" + name + "\" is " + std::to_string(v) + where;
    }
    for (const auto& [name, h] : e.cases[c].histories) {
      for (Eigen::Index p = 0; p < h.size(); ++p) {
        if (std::isfinite(h(p))) continue;
        return "response \"" + name + "\" is " + std::to_string(h(p)) + " at time point " +
               std::to_string(p) + where;
      }
    }
  }
  for (const DerivativeRequest& r : wanted) {
    const auto& gradients = e.cases[r.load_case].gradients;
    auto it = gradients.find(r.response);
    if (it == gradients.end()) continue;
    std::vector<int> rows = r.time_indices;
    if (rows.empty()) {
      for (Eigen::Index p = 0; p < it->second.rows(); ++p) rows.push_back(static_cast<int>(p));
    }
    for (int p : rows) {
      if (p < it->second.rows() && !it->second.row(p).allFinite()) {
        return "the gradient of response \"" + r.response + "\" at time point " +
               std::to_string(p) + " in load case \"" + study.load_cases[r.load_case].name +
               "\" is not finite";
      }
    }
  }
  return {};
}

// Names the objective or constraint that is NaN or infinite at x although every response is
// finite (an explicit relation outside its domain, e.g. sqrt of a negative value).
std::string non_finite_criteria(const Study& study, const Eigen::VectorXd& x, const Evaluation& e) {
  const ExactResponses exact(study, e);
  const double f = criterion_value(study, study.objective.f, 0, x, exact);
  if (!std::isfinite(f)) {
    return "the objective (" + study.objective.path + ") is " + std::to_string(f) +
           " although every response is finite";
  }
  for (const Constraint& c : study.constraints) {
    const Eigen::VectorXd g = normalised_history(study, c, x, exact);
    for (Eigen::Index p = 0; p < g.size(); ++p) {
      if (std::isfinite(g(p))) continue;
      return "constraint \"" + c.name + "\" (" + c.path + ") is " + std::to_string(g(p)) +
             (g.size() > 1 ? " at time point " + std::to_string(p) : std::string()) +
             " although every response is finite";
    }
  }
  return {};
}

}  // namespace

std::vector<double> design_key(const Study& study, const Eigen::VectorXd& x) {
  return std::vector<double>(x.data(), x.data() + study.n_design());
}

bool by_forward_differences(const std::string& method) {
  return method.find(kForwardDifferences) != std::string::npos;
}

std::optional<DifferenceOrder> differences_of(const std::string& method) {
  if (by_forward_differences(method)) return DifferenceOrder::kForward;
  if (method.find(kCentralDifferences) != std::string::npos) return DifferenceOrder::kCentral;
  if (method.find(kFivePointDifferences) != std::string::npos) return DifferenceOrder::kFivePoint;
  return std::nullopt;
}

std::string unusable_analysis(const Study& study, const Eigen::VectorXd& x, const Evaluation& e) {
  std::string why = non_finite(study, e, {});
  return why.empty() ? non_finite_criteria(study, x, e) : why;
}

std::vector<const Evaluation*> Driver::analyse_batch(
    const std::vector<Eigen::VectorXd>& xs, const std::vector<DerivativeRequest>& derivatives) {
  auto& cache = derivatives.empty() ? values_ : gradients_;
  auto cached = [&](const std::vector<double>& key) -> const Evaluation* {
    auto hit = cache.find(key);
    if (hit == cache.end()) return nullptr;
    return derivatives.empty() || covers(study_, hit->second, derivatives, differences_)
               ? &hit->second
               : nullptr;
  };
  // One simulator batch for every design not analysed yet (each design once).
  std::vector<std::vector<double>> keys;
  std::vector<const Eigen::VectorXd*> full;  // the variables of each request (auxiliaries too)
  std::vector<EvaluationRequest> requests;
  for (const Eigen::VectorXd& x : xs) {
    std::vector<double> key = design_key(study_, x);
    if (cached(key) || std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    if (reuse_stored(key, x, derivatives)) continue;
    keys.push_back(key);
    full.push_back(&x);
    // Finite differences need not run b again when its values are known (the cycle's b0).
    auto known = derivatives.empty() ? values_.end() : values_.find(key);
    EvaluationRequest request{x.head(study_.n_design()), derivatives,
                              known != values_.end() ? &known->second : nullptr, differences_};
    if (!derivatives.empty()) study_.variable_bounds(request.lower, request.upper);
    if (request.lower.size() > study_.n_design()) {
      request.lower.conservativeResize(study_.n_design());
      request.upper.conservativeResize(study_.n_design());
    }
    requests.push_back(std::move(request));
  }
  std::map<std::vector<double>, const Evaluation*> fresh;
  if (!requests.empty()) {
    std::vector<Evaluation> results = simulator_.evaluate(requests);
    if (results.size() != requests.size()) {
      throw std::logic_error("simulator returned " + std::to_string(results.size()) +
                             " evaluations for " + std::to_string(requests.size()) + " requests");
    }
    for (size_t r = 0; r < results.size(); ++r) {
      Evaluation& e = results[r];
      if (store_) store_->save(requests[r].design, derivatives, e);
      summary_.simulator_runs += e.cost.runs;
      summary_.simulator_seconds += e.cost.wall_seconds;
      if (!derivatives.empty()) ++summary_.sensitivity_analyses;
      std::string failure;
      if (!e.ok) {
        failure = e.message.empty() ? "the simulator reported a failure" : e.message;
      } else if (e.cases.size() != study_.load_cases.size()) {
        failure = "the simulator returned " + std::to_string(e.cases.size()) +
                  " load cases, expected " + std::to_string(study_.load_cases.size());
      } else {
        failure = non_finite(study_, e, derivatives);
        if (failure.empty()) failure = non_finite_criteria(study_, *full[r], e);
        if (failure.empty() && !derivatives.empty() &&
            !covers(study_, e, derivatives, differences_)) {
          failure = "the simulator did not return the requested sensitivities";
        }
      }
      if (!failure.empty()) {
        last_failure_ = failure;
        ++failures_;
        fresh[keys[r]] = nullptr;
        continue;
      }
      if (!values_.count(keys[r])) {
        ++summary_.analyses;
        values_[keys[r]] = e;
        analysed_in_.emplace(keys[r],
                             cycle_offset_ + static_cast<int>(summary_.history.size()) + 1);
      }
      fresh[keys[r]] = &(cache[keys[r]] = std::move(e));
    }
  }
  std::vector<const Evaluation*> out;
  for (const Eigen::VectorXd& x : xs) {
    const std::vector<double> key = design_key(study_, x);
    auto it = fresh.find(key);
    out.push_back(it != fresh.end() ? it->second : cached(key));
  }
  return out;
}

const Evaluation* Driver::analyse(const Eigen::VectorXd& x,
                                  const std::vector<DerivativeRequest>& derivatives) {
  return analyse_batch({x}, derivatives).front();
}

bool Driver::reuse_stored(const std::vector<double>& key, const Eigen::VectorXd& x,
                          const std::vector<DerivativeRequest>& derivatives) {
  if (!store_) return false;
  for (Evaluation& e : store_->lookup(x.head(study_.n_design()), !derivatives.empty())) {
    if (!e.ok || e.cases.size() != study_.load_cases.size()) continue;
    // Only what the same request gave: the values of an analysis with sensitivities may differ
    // in the last digits from a values-only one (a design's values are always asked for first,
    // so this only matters when that row was damaged and removed: it is analysed again, alike).
    if (derivatives.empty() && e.has_gradients) continue;
    if (!non_finite(study_, e, derivatives).empty()) continue;
    if (!derivatives.empty() && !covers(study_, e, derivatives, differences_)) continue;
    // Counted as the simulator path counts it, so that a replay gives the same records.
    ++summary_.reused_analyses;
    if (!derivatives.empty()) ++summary_.sensitivity_analyses;
    if (!values_.count(key)) {
      ++summary_.analyses;
      values_[key] = e;
      analysed_in_.emplace(key, cycle_offset_ + static_cast<int>(summary_.history.size()) + 1);
    }
    if (!derivatives.empty()) gradients_[key] = std::move(e);
    return true;
  }
  return false;
}

}  // namespace sao
