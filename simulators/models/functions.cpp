#include "simulators/models/functions.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace sao::sim {
namespace {

// The parameter vector as the variables of the expressions.
class ParameterInputs final : public expr::Inputs {
 public:
  explicit ParameterInputs(const Eigen::VectorXd& p) : p_(p) {}
  double variable(int i) const override { return p_(i); }
  double response(int, int, int) const override { return NAN; }  // bound without responses

 private:
  const Eigen::VectorXd& p_;
};

}  // namespace

FunctionsModel::FunctionsModel(const std::vector<Function>& functions, const Report& report) {
  std::vector<std::pair<std::string, expr::AstPtr>> parsed;
  for (const auto& [name, text] : functions) {
    try {
      parsed.emplace_back(name, expr::parse(text));
    } catch (const expr::Error& e) {
      report(name, e.what());
      continue;
    }
    for (const std::string& n : expr::names_read(parsed.back().second)) {
      if (n != "pi") parameters_.push_back(n);
    }
  }
  std::sort(parameters_.begin(), parameters_.end());
  parameters_.erase(std::unique(parameters_.begin(), parameters_.end()), parameters_.end());
  expr::Symbols symbols;
  symbols.variables = parameters_;
  for (const auto& [name, ast] : parsed) {
    try {
      programs_.emplace_back(name, expr::bind(ast, symbols, -1));
      if (programs_.back().second->is_series()) {
        programs_.pop_back();
        report(name, "not a scalar");
      }
    } catch (const expr::Error& e) {
      report(name, e.what());
    }
  }
}

std::vector<ResponseInfo> FunctionsModel::responses() const {
  std::vector<ResponseInfo> out;
  for (const auto& [name, program] : programs_) out.push_back({name, false});
  return out;
}

std::string FunctionsModel::evaluate(const Eigen::VectorXd& p,
                                     std::map<std::string, double>& values) const {
  const ParameterInputs inputs(p);
  for (const auto& [name, program] : programs_) {
    const double v = expr::Evaluator(*program, inputs).value();
    if (!std::isfinite(v)) {
      std::ostringstream why;
      why << "function \"" << name << "\" is not finite (" << v << ") at";
      for (size_t i = 0; i < parameters_.size(); ++i) {
        why << (i ? ", " : " ") << parameters_[i] << " = " << p(static_cast<Eigen::Index>(i));
      }
      return why.str();
    }
    values[name] = v;
  }
  return "";
}

std::string FunctionsModel::analyse(const Eigen::VectorXd& p, const LoadCaseSpec&,
                                    const IntegratorSettings&, CaseResult& out) const {
  return evaluate(p, out.scalars);
}

}  // namespace sao::sim
