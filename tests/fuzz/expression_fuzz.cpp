// libFuzzer target of the expression engine: any input is parsed; what parses is bound
// against a small fixed set of names; what binds is evaluated with derivatives at every
// point. sao::expr::Error is the expected answer to bad input; any other exception, a crash
// or a sanitizer report is a bug. Built with clang by scripts/fuzz-expressions, and under
// g++ over the checked-in corpus by CTest (expression_corpus_main.cpp).
#include <cstddef>
#include <cstdint>
#include <string>

#include "sao/expression.hpp"

namespace {

class FuzzInputs final : public sao::expr::Inputs {
 public:
  double variable(int i) const override { return 0.3 + i; }
  double response(int r, int, int p) const override { return r == 0 ? 1.5 : 0.1 * p - 0.2; }
  int gradient_size() const override { return 2; }
  void response_gradient(int r, int, int p, Eigen::Ref<Eigen::VectorXd> g) const override {
    g << r + 1.0, 0.5 * p;
  }
};

const sao::expr::Symbols& symbols() {
  static const sao::expr::Symbols s = [] {
    sao::expr::Symbols s;
    s.variables = {"x", "y"};
    s.responses = {{"s", false}, {"h", true}};
    s.cases = {{"c", {0.0, 0.5, 1.5, 2.0, 4.0}}};
    s.constants = {{"k", 2.0}};
    s.data = {{"w", {1.0, -2.0, 3.0, 0.5, 4.0}}};
    s.relations = {{"r", sao::expr::parse("x * h + k")}};
    return s;
  }();
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const sao::expr::ProgramPtr program = sao::expr::bind(sao::expr::parse(text), symbols(), 0);
    FuzzInputs inputs;
    sao::expr::Evaluator evaluator(*program, inputs);
    Eigen::VectorXd g(2);
    for (int p = 0; p < program->points(); ++p) {
      evaluator.value(p);
      evaluator.value(p, g);
    }
    sao::expr::to_text(sao::expr::parse(text));
  } catch (const sao::expr::Error&) {
  }
  return 0;
}
