// "functions": a closed-form model whose scalar responses are expressions of named parameters
// (the expression language of sao/expr), e.g. the section
//   {"type": "internal", "model": "functions",
//    "functions": {"f": "(x1-10)^3 + (x2-20)^3", "c1": "(x1-5)^2 + (x2-5)^2"},
//    "gradients": {"method": "forward"}}
// The parameters are the names the expressions read (the built-in `pi` aside), mapped onto
// design variables or constants like any model's. Test problems with known optima are written
// this way (problems/suite/): the optimizer sees a black box, differentiated by finite
// differences like any closed-form model. A value that is not finite fails the analysis with
// a message naming the function. bench/suite/functions_eval.cpp runs the same model as an
// external program.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sao/expr/expression.hpp"
#include "simulators/models/model.hpp"

namespace sao::sim {

class FunctionsModel final : public Model {
 public:
  using Function = std::pair<std::string, std::string>;  // response name, expression text
  // A problem of one function (its name, then what is wrong): a parse or bind error.
  using Report = std::function<void(const std::string& function, const std::string& problem)>;

  // Functions that do not parse or bind are reported and left out.
  FunctionsModel(const std::vector<Function>& functions, const Report& report);

  std::string name() const override { return "functions"; }
  std::vector<std::string> parameters() const override { return parameters_; }
  std::map<std::string, double> load_parameters() const override { return {}; }
  std::vector<ResponseInfo> responses() const override;
  std::string analyse(const Eigen::VectorXd& p, const LoadCaseSpec& lc, const IntegratorSettings&,
                      CaseResult& out) const override;

  // Every function at parameters p (in parameters() order) into `values`; "" or why not
  // (a value that is not finite, named).
  std::string evaluate(const Eigen::VectorXd& p, std::map<std::string, double>& values) const;

 private:
  std::vector<std::string> parameters_;
  std::vector<std::pair<std::string, expr::ProgramPtr>> programs_;
};

}  // namespace sao::sim
