#include "adapters/function_simulator.hpp"

#include <algorithm>
#include <chrono>

#include "sao/seam/worker_pool.hpp"

namespace sao::adapters {

FunctionSettings read_function_settings(JsonReader& section, bool can_provide,
                                        const std::string& who) {
  FunctionSettings out;
  JsonReader g = section.object("gradients");
  if (auto method = g.choice("method", {"forward", "central", "provided"})) {
    out.differences.order = difference_order(*method == "central");
    out.provided = *method == "provided";
    if (out.provided && !can_provide) {
      g.problems().add(g.at("method"), "\"provided\", but the " + who +
                                           " does not compute gradients (use \"forward\" or "
                                           "\"central\" differences)");
    }
  }
  out.differences.relative_step = g.positive("step").value_or(out.differences.relative_step);
  g.finish();
  out.workers = read_workers(section, out.workers);
  return out;
}

FunctionLayout function_layout(const std::vector<ResponseInfo>& responses, int points) {
  FunctionLayout layout;
  for (const ResponseInfo& r : responses) {
    layout.offsets.push_back(layout.value_count);
    layout.value_count += r.history ? points : 1;
  }
  return layout;
}

CaseResult case_from_values(const std::vector<ResponseInfo>& responses,
                            const FunctionLayout& layout, const double* values,
                            const double* gradients, int design_count) {
  CaseResult out;
  for (size_t k = 0; k < responses.size(); ++k) {
    const int first = layout.offsets[k];
    const int rows =
        (k + 1 < responses.size() ? layout.offsets[k + 1] : layout.value_count) - first;
    if (responses[k].history) {
      out.histories[responses[k].name] = Eigen::Map<const Eigen::VectorXd>(values + first, rows);
    } else {
      out.scalars[responses[k].name] = values[first];
    }
    if (gradients != nullptr) {
      using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      out.gradients[responses[k].name] = Eigen::Map<const RowMajor>(
          gradients + static_cast<ptrdiff_t>(first) * design_count, rows, design_count);
    }
  }
  return out;
}

FunctionSimulator::FunctionSimulator(const SimulatorSetup& setup, std::string who)
    : who_(std::move(who)), design_names_(setup.design_names), load_cases_(setup.load_cases) {}

std::vector<Evaluation> FunctionSimulator::evaluate(const std::vector<EvaluationRequest>& batch) {
  const auto start = std::chrono::steady_clock::now();
  const int n = static_cast<int>(design_names_.size());
  const int cases = static_cast<int>(load_cases_.size());
  for (const EvaluationRequest& r : batch) check_request(r, who_, n, load_cases_, responses_);
  BatchPlan plan = plan_batch(batch, cases, n, settings_.differences, settings_.provided);

  // One call per load case, or per worker's share of it for a thread-safe function.
  const size_t workers =
      thread_safe() ? (settings_.workers > 0 ? size_t(settings_.workers) : hardware_workers()) : 1;
  std::vector<FunctionCall> calls;
  for (int c = 0; c < cases; ++c) {
    std::vector<BatchRun*> runs;
    for (BatchRun& run : plan.runs) {
      if (run.load_case == c && !run.known) runs.push_back(&run);
    }
    const size_t shares = std::max<size_t>(1, std::min(workers, runs.size()));
    for (size_t s = 0; s < shares && !runs.empty(); ++s) {
      FunctionCall& call = calls.emplace_back();
      call.load_case = c;
      for (size_t j = s; j < runs.size(); j += shares) call.runs.push_back(runs[j]);
    }
  }
  for (FunctionCall& call : calls) {
    call.designs.resize(static_cast<Eigen::Index>(call.runs.size()), n);
    for (size_t j = 0; j < call.runs.size(); ++j) {
      BatchRun& run = *call.runs[j];
      Eigen::VectorXd design = *run.design;
      if (run.variable >= 0) design(run.variable) += run.step;
      call.designs.row(static_cast<Eigen::Index>(j)) = design.transpose();
      call.gradients = call.gradients || run.request != nullptr;
      run.runs = 1;
    }
  }
  parallel_for(calls.size(), workers, [&](size_t k) { call(calls[k]); });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return assemble_batch(batch, plan, cases, n, settings_.differences, seconds);
}

}  // namespace sao::adapters
