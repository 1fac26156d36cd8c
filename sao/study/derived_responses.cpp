#include "sao/study/derived_responses.hpp"

#include <cmath>
#include <limits>
#include <set>

namespace sao {
namespace {

// Simulator responses of one load case of one analysis, read by a derived response's relation.
class CaseInputs final : public expr::Inputs {
 public:
  CaseInputs(const std::vector<ResponseDef>& responses, const CaseResult& result,
             const Eigen::VectorXd& design)
      : responses_(responses), result_(result), design_(design) {}
  double variable(int i) const override { return design_(i); }
  double response(int response, int, int point) const override {
    const ResponseDef& d = responses_[response];
    if (d.history) {
      auto it = result_.histories.find(d.source);
      if (it == result_.histories.end() || point >= it->second.size()) {
        throw std::runtime_error("the simulator delivered no history \"" + d.source + "\"");
      }
      return it->second(point);
    }
    auto it = result_.scalars.find(d.source);
    if (it == result_.scalars.end()) {
      throw std::runtime_error("the simulator delivered no scalar \"" + d.source + "\"");
    }
    return it->second;
  }
  int gradient_size() const override { return static_cast<int>(design_.size()); }
  void response_gradient(int response, int, int point,
                         Eigen::Ref<Eigen::VectorXd> gradient) const override {
    const std::string& source = responses_[response].source;
    auto it = result_.gradients.find(source);
    if (it == result_.gradients.end() || point >= it->second.rows()) {
      throw std::runtime_error("the simulator delivered no gradient of \"" + source + "\"");
    }
    gradient = it->second.row(point).transpose();
  }

 private:
  const std::vector<ResponseDef>& responses_;
  const CaseResult& result_;
  const Eigen::VectorXd& design_;
};

class DerivedResponses final : public Simulator {
 public:
  std::string fingerprint() const override { return inner_->fingerprint(); }
  void use_job_ledger(JobLedger* ledger) override { inner_->use_job_ledger(ledger); }
  DerivedResponses(const Study& study, std::unique_ptr<Simulator> inner)
      : inner_(std::move(inner)), cases_(study.load_cases) {
    // The relations index simulator responses in the order of the study, derived ones left out.
    for (const ResponseDef& d : study.responses) {
      if (d.derived.empty()) {
        base_.push_back(d);
      } else {
        derived_.push_back(d);
      }
    }
  }

  std::vector<ResponseInfo> responses() const override {
    std::vector<ResponseInfo> out = inner_->responses();
    for (const ResponseDef& d : derived_) out.push_back({d.name, d.history});
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
  const ResponseDef* derived(const std::string& name) const {
    for (const ResponseDef& d : derived_) {
      if (d.name == name) return &d;
    }
    return nullptr;
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

  // Derivatives of a derived response become derivatives of what its relation reads there.
  EvaluationRequest translate(const EvaluationRequest& request) const {
    EvaluationRequest out{request.design, {}};
    std::map<std::pair<int, std::string>, std::set<int>> wanted;
    for (const DerivativeRequest& r : request.derivatives) {
      const ResponseDef* d = derived(r.response);
      if (d == nullptr) {
        out.derivatives.push_back(r);
        continue;
      }
      const expr::Program& program = *d->derived[r.load_case];
      for (int p : requested_points(r, *d)) {
        expr::for_each_response_read(program, p, [&](int response, int load_case, int point) {
          wanted[{load_case, base_[response].source}].insert(point);
        });
      }
    }
    for (auto& [key, points] : wanted) {
      out.derivatives.push_back({key.first, key.second, {points.begin(), points.end()}});
    }
    return out;
  }

  void add_derived(const EvaluationRequest& request, Evaluation& e) const {
    const int n = static_cast<int>(request.design.size());
    try {
      for (const ResponseDef& d : derived_) {
        for (size_t c = 0; c < e.cases.size(); ++c) {
          CaseResult& result = e.cases[c];
          const CaseInputs inputs(base_, result, request.design);
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
      for (const DerivativeRequest& r : request.derivatives) {
        const ResponseDef* d = derived(r.response);
        if (d == nullptr) continue;
        CaseResult& result = e.cases[r.load_case];
        const CaseInputs inputs(base_, result, request.design);
        expr::Evaluator evaluator(*d->derived[r.load_case], inputs);
        Eigen::MatrixXd& rows = result.gradients[d->name];
        if (rows.rows() == 0) {
          rows.setConstant(points(*d, r.load_case), n, std::numeric_limits<double>::quiet_NaN());
        }
        Eigen::VectorXd g(n);
        for (int p : requested_points(r, *d)) {
          evaluator.value(p, g);
          rows.row(p) = g.transpose();
        }
      }
    } catch (const std::exception& ex) {
      e.ok = false;
      e.message = "derived responses: " + std::string(ex.what());
    }
  }

  std::unique_ptr<Simulator> inner_;
  std::vector<LoadCaseSpec> cases_;
  std::vector<ResponseDef> base_;
  std::vector<ResponseDef> derived_;
};

}  // namespace

std::unique_ptr<Simulator> with_derived_responses(const Study& study,
                                                  std::unique_ptr<Simulator> inner) {
  const bool any = std::any_of(study.responses.begin(), study.responses.end(),
                               [](const ResponseDef& d) { return !d.derived.empty(); });
  if (!any) return inner;
  return std::make_unique<DerivedResponses>(study, std::move(inner));
}

}  // namespace sao
