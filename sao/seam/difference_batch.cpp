#include "sao/seam/difference_batch.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "sao/seam/worker_pool.hpp"

namespace sao {

int read_workers(JsonReader& section, int fallback, const char* deprecated) {
  if (deprecated && section.has(deprecated)) {
    spdlog::warn("{}: deprecated, use \"workers\" (the same meaning; \"{}\" will be removed)",
                 section.at(deprecated), deprecated);
    if (section.has("workers")) {
      section.problems().add(section.at(deprecated), "given together with \"workers\"");
    }
    return static_cast<int>(section.integer(deprecated, 0, 4096).value_or(fallback));
  }
  return static_cast<int>(section.integer("workers", 0, 4096).value_or(fallback));
}

std::vector<std::vector<const BatchRun*>> stencils(const BatchRun* nominal, int variables,
                                                   int per_variable) {
  std::vector<std::vector<const BatchRun*>> out(static_cast<size_t>(variables));
  for (int i = 0; i < variables; ++i) {
    for (int k = 0; k < per_variable; ++k) out[i].push_back(&nominal[1 + i * per_variable + k]);
  }
  return out;
}

BatchPlan plan_batch(const std::vector<EvaluationRequest>& batch, int load_cases,
                     int design_variables, const DifferenceSettings& differences, bool analytic) {
  BatchPlan out;
  std::vector<BatchRun>& runs = out.runs;
  std::vector<BatchPlan::Request>& requests = out.requests;
  requests.resize(batch.size());
  for (size_t r = 0; r < batch.size(); ++r) {
    const Eigen::VectorXd& b = batch[r].design;
    const DifferenceSettings own = request_differences(differences, batch[r]);
    const bool gradients = !batch[r].derivatives.empty();
    const bool by_differences = gradients && !analytic;
    // The nominal values the caller holds need no run (forward differences need them; central
    // ones only return them).
    const Evaluation* known = batch[r].values;
    const bool reuse = by_differences && known && known->ok &&
                       known->cases.size() == static_cast<size_t>(load_cases);
    requests[r].first = runs.size();
    requests[r].per_case = 1 + (by_differences ? design_variables * difference_runs(own.order) : 0);
    for (int c = 0; c < load_cases; ++c) {
      BatchRun& nominal = runs.emplace_back();
      nominal.design = &b;
      nominal.load_case = c;
      if (gradients && analytic) nominal.request = &batch[r];
      if (reuse) {
        nominal.known = nominal.ok = true;
        nominal.result.scalars = known->cases[c].scalars;
        nominal.result.histories = known->cases[c].histories;
      }
      if (by_differences) {
        add_difference_runs(runs, b, design_variables, c, own, batch[r].lower, batch[r].upper);
      }
    }
  }
  return out;
}

void add_difference_runs(std::vector<BatchRun>& runs, const Eigen::VectorXd& b, int variables,
                         int load_case, const DifferenceSettings& differences,
                         const Eigen::VectorXd& lower, const Eigen::VectorXd& upper) {
  constexpr double kTwoSided[] = {1.0, -1.0, 2.0, -2.0};  // in units of h, in plan order
  const int points = difference_runs(differences.order);
  for (int i = 0; i < variables; ++i) {
    const double h = difference_step(b(i), differences.relative_step);
    // Two-sided, or one-sided (+1 above b, -1 below) where the stencil leaves the bounds and
    // fits on the other side.
    double side = 0.0;
    if (points > 1 && lower.size() > i && upper.size() > i) {
      const double reach = (points / 2) * h;
      if (lower(i) > b(i) - reach && b(i) + points * h <= upper(i)) side = 1.0;
      if (upper(i) < b(i) + reach && b(i) - points * h >= lower(i)) side = -1.0;
    }
    for (int k = 0; k < points; ++k) {
      BatchRun& perturbed = runs.emplace_back();
      perturbed.design = &b;
      perturbed.load_case = load_case;
      perturbed.variable = i;
      perturbed.step = side == 0.0 ? kTwoSided[k] * h : side * (k + 1) * h;
    }
  }
}

std::vector<Evaluation> run_batch(const std::vector<EvaluationRequest>& batch, int load_cases,
                                  int design_variables, const DifferenceSettings& differences,
                                  bool analytic, int workers,
                                  const std::function<void(BatchRun&)>& run) {
  const auto start = std::chrono::steady_clock::now();
  BatchPlan plan = plan_batch(batch, load_cases, design_variables, differences, analytic);
  std::vector<BatchRun>& runs = plan.runs;
  parallel_for(runs.size(), static_cast<size_t>(std::max(workers, 0)), [&](size_t j) {
    if (!runs[j].known) run(runs[j]);
  });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return assemble_batch(batch, plan, load_cases, design_variables, differences, seconds);
}

std::vector<Evaluation> assemble_batch(const std::vector<EvaluationRequest>& batch,
                                       const BatchPlan& plan, int load_cases, int design_variables,
                                       const DifferenceSettings& differences, double seconds) {
  const std::vector<BatchRun>& runs = plan.runs;
  const std::vector<BatchPlan::Request>& requests = plan.requests;
  std::vector<Evaluation> out(batch.size());
  for (size_t r = 0; r < batch.size(); ++r) {
    Evaluation& e = out[r];
    const DifferenceOrder order = request_differences(differences, batch[r]).order;
    const int per_case = requests[r].per_case;
    const auto begin = runs.begin() + static_cast<std::ptrdiff_t>(requests[r].first);
    const auto end = begin + per_case * load_cases;
    e.cost.runs = 0;
    for (auto j = begin; j != end; ++j) e.cost.runs += j->runs;
    e.cost.wall_seconds = seconds / static_cast<double>(batch.size());  // an equal share
    if (auto failed = std::find_if(begin, end, [](const BatchRun& j) { return !j.ok; });
        failed != end) {
      e.ok = false;
      e.message = failed->message;
      continue;
    }
    e.has_gradients = per_case > 1 || begin->request != nullptr;
    for (int c = 0; c < load_cases; ++c) {
      const BatchRun* nominal = &*begin + c * per_case;
      CaseResult result = nominal->result;
      if (per_case > 1) {  // steps as finally used (halved or not by retries)
        add_difference_gradients(result,
                                 stencils(nominal, design_variables, difference_runs(order)));
        result.gradient_method = difference_method(order);
        result.difference_step = differences.relative_step;
      }
      e.cases.push_back(std::move(result));
    }
  }
  return out;
}

void add_difference_gradients(CaseResult& nominal,
                              const std::vector<std::vector<const BatchRun*>>& stencils) {
  const auto n = static_cast<Eigen::Index>(stencils.size());
  // Column i of d(value)/db; `value` picks one response of a run.
  auto difference = [&](Eigen::Index i, const Eigen::VectorXd& at_nominal, auto value) {
    const std::vector<const BatchRun*>& stencil = stencils[static_cast<size_t>(i)];
    const BatchRun& p = *stencil.front();
    if (stencil.size() == 1) return Eigen::VectorXd((value(p.result) - at_nominal) / p.step);
    if (stencil.size() == 2 && stencil[0]->step != stencil[1]->step) {
      const BatchRun& m = *stencil[1];
      if (p.step * m.step < 0.0) {
        return Eigen::VectorXd((value(p.result) - value(m.result)) / (p.step - m.step));
      }
      // A one-sided pair (at a bound): the parabola through the nominal value and both runs.
      const double s1 = p.step, s2 = m.step;
      return Eigen::VectorXd(((value(p.result) - at_nominal) * (s2 * s2) -
                              (value(m.result) - at_nominal) * (s1 * s1)) /
                             (s1 * s2 * (s2 - s1)));
    }
    // The slope at 0 of the polynomial through (0, f(b)) and each (s_k, f(b + s_k)): the
    // derivatives there of the Lagrange polynomials, sum_k L_k'(0) (f(b + s_k) - f(b)). A step
    // that a retry halved onto another's (2 h onto h) counts once: a polynomial of lower order.
    std::vector<const BatchRun*> runs;
    for (const BatchRun* r : stencil) {
      const auto same = [r](const BatchRun* q) { return q->step == r->step; };
      if (std::none_of(runs.begin(), runs.end(), same)) runs.push_back(r);
    }
    Eigen::VectorXd slope = Eigen::VectorXd::Zero(at_nominal.size());
    for (size_t k = 0; k < runs.size(); ++k) {
      const double sk = runs[k]->step;
      double weight = 1.0 / sk;
      for (size_t m = 0; m < runs.size(); ++m) {
        if (m != k) weight *= -runs[m]->step / (sk - runs[m]->step);
      }
      slope += weight * (value(runs[k]->result) - at_nominal);
    }
    return slope;
  };
  for (const auto& entry : nominal.histories) {
    const std::string& name = entry.first;
    const Eigen::VectorXd& h = entry.second;
    Eigen::MatrixXd g(h.size(), n);
    for (Eigen::Index i = 0; i < n; ++i) {
      g.col(i) = difference(i, h, [&](const CaseResult& r) { return r.histories.at(name); });
    }
    nominal.gradients[name] = std::move(g);
  }
  for (const auto& entry : nominal.scalars) {
    const std::string& name = entry.first;
    const double v = entry.second;
    Eigen::MatrixXd g(1, n);
    for (Eigen::Index i = 0; i < n; ++i) {
      g.col(i) = difference(i, Eigen::VectorXd::Constant(1, v), [&](const CaseResult& r) {
        return Eigen::VectorXd::Constant(1, r.scalars.at(name)).eval();
      });
    }
    nominal.gradients[name] = std::move(g);
  }
}

}  // namespace sao
