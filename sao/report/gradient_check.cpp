#include "sao/report/gradient_check.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sao/seam/difference_batch.hpp"

namespace sao {
namespace {

struct Value {
  int response;
  int load_case;
  int point;
};

double read(const Study& study, const Evaluation& e, const Value& v) {
  const ResponseDef& d = study.responses[v.response];
  const CaseResult& c = e.cases[v.load_case];
  return d.history ? c.histories.at(d.source)(v.point) : c.scalars.at(d.source);
}

Evaluation analyse(Simulator& simulator, const EvaluationRequest& request, int& count) {
  Evaluation e = simulator.evaluate({request}).front();
  ++count;
  if (!e.ok) {
    throw std::runtime_error(
        (request.derivatives.empty() ? "analysis failed: " : "analysis with gradients failed: ") +
        e.message);
  }
  return e;
}

// The values checked (every response of every load case; a history at options.point, or where
// |value| is largest at b), and into `request` the derivatives of the simulator for them.
std::vector<Value> checked_values(const Study& study, const Evaluation& nominal,
                                  const GradientCheckOptions& options, EvaluationRequest& request) {
  std::vector<Value> values;
  for (size_t c = 0; c < study.load_cases.size(); ++c) {
    for (size_t r = 0; r < study.responses.size(); ++r) {
      const ResponseDef& d = study.responses[r];
      int point = 0;
      if (d.history) {
        const Eigen::VectorXd& h = nominal.cases[c].histories.at(d.source);
        point = options.point;
        if (point < 0) h.cwiseAbs().maxCoeff(&point);
        if (point >= h.size()) {
          throw std::runtime_error("time point " + std::to_string(point) + " outside the grid of " +
                                   std::to_string(h.size()) + " points");
        }
      }
      values.push_back({static_cast<int>(r), static_cast<int>(c), point});
      request.derivatives.push_back({static_cast<int>(c), d.source, {point}});
    }
  }
  return values;
}

}  // namespace

GradientCheck check_gradients(const Study& study, Simulator& simulator,
                              const Eigen::VectorXd& design, const GradientCheckOptions& options) {
  GradientCheck out;
  const int n = study.n_design();
  const Evaluation nominal = analyse(simulator, {design, {}}, out.analyses);
  EvaluationRequest with_gradients{design, {}};
  const std::vector<Value> values = checked_values(study, nominal, options, with_gradients);
  const Evaluation analytic = analyse(simulator, with_gradients, out.analyses);

  // P[v][k][i][j] of the Neville table, built order by order.
  const size_t nv = values.size();
  std::vector<std::vector<std::vector<std::vector<double>>>> table(
      nv, std::vector<std::vector<std::vector<double>>>(n));
  std::vector<std::vector<int>> order(nv, std::vector<int>(n, -1));
  std::vector<std::vector<char>> settled(nv, std::vector<char>(n, 0));
  Eigen::VectorXd first_step(n);  // dp_0 of each variable
  for (int k = 0; k < n; ++k) first_step(k) = difference_step(design(k), options.relative_step);
  for (int i = 0; i <= options.max_order; ++i) {
    std::vector<EvaluationRequest> batch;
    std::vector<double> steps(n);
    for (int k = 0; k < n; ++k) {
      steps[k] = first_step(k) / (i + 1);
      Eigen::VectorXd b = design;
      b(k) += steps[k];
      batch.push_back({b, {}});
    }
    const std::vector<Evaluation> perturbed = simulator.evaluate(batch);
    out.analyses += n;
    bool all_done = true;
    for (int k = 0; k < n; ++k) {
      if (!perturbed[k].ok) throw std::runtime_error("analysis failed: " + perturbed[k].message);
      for (size_t v = 0; v < nv; ++v) {
        if (order[v][k] >= 0) continue;  // converged at a lower order
        auto& P = table[v][k];
        P.emplace_back(i + 1);
        P[i][0] =
            (read(study, perturbed[k], values[v]) - read(study, nominal, values[v])) / steps[k];
        for (int j = 1; j <= i; ++j) {  // (67)
          P[i][j] = P[i][j - 1] + (1.0 + i - j) / j * (P[i][j - 1] - P[i - 1][j - 1]);
        }
        // (68); and stop where a higher order gets worse: numerical noise of the analyses
        // (adaptive steps of the integrator) then dominates the truncation error.
        const double change = i >= 1 ? std::abs(P[i][i] - P[i][i - 1]) : HUGE_VAL;
        const double previous = i >= 2 ? std::abs(P[i - 1][i - 1] - P[i - 1][i - 2]) : HUGE_VAL;
        if (change <= options.tolerance * (1.0 + std::abs(P[i][i]))) {
          order[v][k] = i;
          settled[v][k] = 1;
        } else if (change > previous) {
          order[v][k] = i - 1;
        } else if (i == options.max_order) {
          order[v][k] = i;
        } else {
          all_done = false;
        }
      }
    }
    if (all_done) break;
  }

  for (size_t v = 0; v < nv; ++v) {
    const ResponseDef& d = study.responses[values[v].response];
    const Eigen::MatrixXd& g = analytic.cases[values[v].load_case].gradients.at(d.source);
    // A derivative a million times below the largest of its row is zero for the check: its
    // error is measured against that scale, not against its own rounding-level value.
    double largest = 0.0;
    for (int k = 0; k < n; ++k)
      largest = std::max(largest, std::abs(table[v][k][order[v][k]][order[v][k]]));
    for (int k = 0; k < n; ++k) {
      GradientCheckRow row;
      row.response = d.name;
      row.load_case = study.load_cases[values[v].load_case].name;
      row.point = values[v].point;
      row.variable = study.design[k].name;
      row.unit = d.note.unit;
      row.variable_unit = study.design[k].note.unit;
      row.value = read(study, nominal, values[v]);
      row.analytic = g(d.history ? values[v].point : 0, k);
      row.order = order[v][k];
      row.settled = settled[v][k] != 0;
      row.first_step = first_step(k);
      row.reference = table[v][k][row.order][row.order];
      row.relative_error = std::abs(row.analytic - row.reference) /
                           std::max({std::abs(row.reference), 1e-6 * largest, 1e-12});
      out.rows.push_back(row);
    }
  }
  return out;
}

}  // namespace sao
