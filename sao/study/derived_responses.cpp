#include "sao/study/derived_responses.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace sao {
namespace {

// The key of a response in an analysis' results: the simulator's name, or a derived one's.
const std::string& key_of(const ResponseDef& d) {
  return d.derived.empty() ? d.source : d.name;
}

// The responses of one load case of one analysis (simulator responses, and derived ones
// computed before), read by a derived response's relation.
class CaseInputs final : public expr::Inputs {
 public:
  CaseInputs(const std::vector<ResponseDef>& responses, const CaseResult& result,
             const Eigen::VectorXd& design)
      : responses_(responses), result_(result), design_(design) {}
  double variable(int i) const override { return design_(i); }
  double response(int response, int, int point) const override {
    const ResponseDef& d = responses_[response];
    const std::string& key = key_of(d);
    if (d.history) {
      auto it = result_.histories.find(key);
      if (it == result_.histories.end() || point >= it->second.size()) {
        throw std::runtime_error("the simulator delivered no history \"" + key + "\"");
      }
      return it->second(point);
    }
    auto it = result_.scalars.find(key);
    if (it == result_.scalars.end()) {
      throw std::runtime_error("the simulator delivered no scalar \"" + key + "\"");
    }
    return it->second;
  }
  int gradient_size() const override { return static_cast<int>(design_.size()); }
  void response_gradient(int response, int, int point,
                         Eigen::Ref<Eigen::VectorXd> gradient) const override {
    const std::string& key = key_of(responses_[response]);
    auto it = result_.gradients.find(key);
    if (it == result_.gradients.end() || point >= it->second.rows()) {
      throw std::runtime_error("the simulator delivered no gradient of \"" + key + "\"");
    }
    gradient = it->second.row(point).transpose();
  }

 private:
  const std::vector<ResponseDef>& responses_;
  const CaseResult& result_;
  const Eigen::VectorXd& design_;
};

// The derived responses (indices into the study's responses) that derived response i reads.
std::set<int> derived_read(const std::vector<ResponseDef>& responses, int i) {
  std::set<int> out;
  for (const expr::ProgramPtr& program : responses[i].derived) {
    for (int p = 0; p < program->points(); ++p) {
      expr::for_each_response_read(*program, p, [&](int response, int, int) {
        if (!responses[response].derived.empty()) out.insert(response);
      });
    }
  }
  return out;
}

class DerivedResponses final : public Simulator {
 public:
  std::string fingerprint() const override { return inner_->fingerprint(); }
  void use_job_ledger(JobLedger* ledger) override { inner_->use_job_ledger(ledger); }
  void expect_no_gradients() override { inner_->expect_no_gradients(); }
  DerivedResponses(const Study& study, std::unique_ptr<Simulator> inner)
      : inner_(std::move(inner)), cases_(study.load_cases), all_(study.responses) {
    // The relations index every response in the order of the study; the derived ones are
    // computed in dependency order.
    for (int i : derived_order(study)) derived_.push_back(i);
  }

  std::vector<ResponseInfo> responses() const override {
    std::vector<ResponseInfo> out = inner_->responses();
    for (int i : derived_) out.push_back({all_[i].name, all_[i].history});
    return out;
  }

  std::vector<Evaluation> evaluate(const std::vector<EvaluationRequest>& batch) override {
    std::vector<EvaluationRequest> inner_batch;
    for (const EvaluationRequest& request : batch) inner_batch.push_back(translate(request));
    std::vector<Evaluation> results = inner_->evaluate(inner_batch);
    for (size_t i = 0; i < results.size() && i < batch.size(); ++i) {
      if (results[i].ok) add_derived(batch[i], results[i]);
    }
    return results;
  }

 private:
  // The index of the derived response `name`, or -1.
  int derived(const std::string& name) const {
    for (int i : derived_) {
      if (all_[i].name == name) return i;
    }
    return -1;
  }

  int points(const ResponseDef& d, int load_case) const {
    return d.history ? cases_[load_case].grid.points : 1;
  }

  // Requested points of a derived response (all of them when the request says none).
  std::vector<int> requested_points(const DerivativeRequest& r, const ResponseDef& d) const {
    if (!r.time_indices.empty()) return r.time_indices;
    std::vector<int> all(points(d, r.load_case));
    for (size_t p = 0; p < all.size(); ++p) all[p] = static_cast<int>(p);
    return all;
  }

  // The points of derived responses (response, load case) whose gradients a request needs,
  // those it asks for and those they read through the chain, and into `simulator` the points
  // of simulator responses (load case, source) they read.
  using Wanted = std::map<std::pair<int, int>, std::set<int>>;
  Wanted closure(const EvaluationRequest& request,
                 std::map<std::pair<int, std::string>, std::set<int>>* simulator) const {
    Wanted wanted;
    std::vector<std::tuple<int, int, int>> work;  // (response, load case, point) to expand
    auto want = [&](int response, int load_case, int point) {
      if (wanted[{response, load_case}].insert(point).second) {
        work.emplace_back(response, load_case, point);
      }
    };
    for (const DerivativeRequest& r : request.derivatives) {
      const int d = derived(r.response);
      if (d < 0) continue;
      for (int p : requested_points(r, all_[d])) want(d, r.load_case, p);
    }
    while (!work.empty()) {
      const auto [d, c, p] = work.back();
      work.pop_back();
      expr::for_each_response_read(*all_[d].derived[c], p, [&](int response, int lc, int point) {
        if (!all_[response].derived.empty()) {
          want(response, lc, point);
        } else if (simulator) {
          (*simulator)[{lc, all_[response].source}].insert(point);
        }
      });
    }
    return wanted;
  }

  // Derivatives of a derived response become derivatives of what its relation reads there.
  EvaluationRequest translate(const EvaluationRequest& request) const {
    EvaluationRequest out{request.design, {}};
    std::map<std::pair<int, std::string>, std::set<int>> simulator;
    closure(request, &simulator);
    for (const DerivativeRequest& r : request.derivatives) {
      if (derived(r.response) < 0) out.derivatives.push_back(r);
    }
    for (auto& [key, points] : simulator) {
      out.derivatives.push_back({key.first, key.second, {points.begin(), points.end()}});
    }
    return out;
  }

  void add_derived(const EvaluationRequest& request, Evaluation& e) const {
    const int n = static_cast<int>(request.design.size());
    try {
      for (int i : derived_) {
        const ResponseDef& d = all_[i];
        for (size_t c = 0; c < e.cases.size(); ++c) {
          CaseResult& result = e.cases[c];
          const CaseInputs inputs(all_, result, request.design);
          expr::Evaluator evaluator(*d.derived[c], inputs);
          const int np = points(d, static_cast<int>(c));
          Eigen::VectorXd values(np);
          for (int p = 0; p < np; ++p) values(p) = evaluator.value(p);
          if (!values.allFinite()) {
            throw std::runtime_error("is not finite (" + d.expression + ")");
          }
          if (d.history) {
            result.histories[d.name] = values;
          } else {
            result.scalars[d.name] = values(0);
          }
        }
      }
      if (!e.has_gradients) return;
      const Wanted wanted = closure(request, nullptr);
      for (int i : derived_) {  // in dependency order: what a relation reads is there
        const ResponseDef& d = all_[i];
        for (const auto& [key, at] : wanted) {
          if (key.first != i) continue;
          CaseResult& result = e.cases[key.second];
          const CaseInputs inputs(all_, result, request.design);
          expr::Evaluator evaluator(*d.derived[key.second], inputs);
          Eigen::MatrixXd& rows = result.gradients[d.name];
          if (rows.rows() == 0) {
            rows.setConstant(points(d, key.second), n, std::numeric_limits<double>::quiet_NaN());
          }
          Eigen::VectorXd g(n);
          for (int p : at) {
            evaluator.value(p, g);
            rows.row(p) = g.transpose();
          }
        }
      }
    } catch (const std::exception& ex) {
      e.ok = false;
      e.message = "derived responses: " + std::string(ex.what());
    }
  }

  std::unique_ptr<Simulator> inner_;
  std::vector<LoadCaseSpec> cases_;
  std::vector<ResponseDef> all_;  // the study's responses
  std::vector<int> derived_;      // the derived ones, in dependency order
};

}  // namespace

std::vector<int> derived_order(const Study& study, std::string* cycle, int* where) {
  const std::vector<ResponseDef>& all = study.responses;
  const int n = static_cast<int>(all.size());
  std::vector<int> order, state(n, 0);  // 0 not visited, 1 on the path, 2 done
  std::vector<int> path;
  // Depth first: a response after everything it reads; a response met again on the path
  // closes a cycle.
  std::function<bool(int)> visit = [&](int i) {
    if (state[i] == 2) return true;
    if (state[i] == 1) {
      if (cycle) {
        auto from = std::find(path.begin(), path.end(), i);
        std::string text;
        for (auto it = from; it != path.end(); ++it) text += all[*it].name + " -> ";
        *cycle = text + all[i].name;
      }
      if (where) *where = i;
      return false;
    }
    state[i] = 1;
    path.push_back(i);
    for (int j : derived_read(all, i)) {
      if (!visit(j)) return false;
    }
    path.pop_back();
    state[i] = 2;
    order.push_back(i);
    return true;
  };
  for (int i = 0; i < n; ++i) {
    if (!all[i].derived.empty() && !visit(i)) break;
  }
  return order;
}

std::unique_ptr<Simulator> with_derived_responses(const Study& study,
                                                  std::unique_ptr<Simulator> inner) {
  const bool any = std::any_of(study.responses.begin(), study.responses.end(),
                               [](const ResponseDef& d) { return !d.derived.empty(); });
  if (!any) return inner;
  return std::make_unique<DerivedResponses>(study, std::move(inner));
}

}  // namespace sao
