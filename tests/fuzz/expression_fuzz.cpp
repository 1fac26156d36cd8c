// libFuzzer target of the expression engine (sao/expression.hpp). Any input is parsed; what
// parses is bound against a small fixed set of names with load case 0; what binds is
// evaluated, value and gradient, at every point. sao::expr::Error is the expected answer to
// bad input; any other exception, a crash or a sanitizer report is a bug, and so is a broken
// invariant, which aborts with a message:
//   - an error's column lies in the text (1 .. length + 1 for a parse error);
//   - the shape is consistent (points, is_series, grid_case) and every response read is in
//     range;
//   - value(p) and value(p, gradient) return the same value;
//   - needs_case() is true exactly when binding without a load case fails, and otherwise
//     both programs have the same values;
//   - to_text() parses back to a program with the same shape and values.
// Built with clang by `scripts/fuzz expression`; built with g++ and run over the checked-in
// corpus (tests/fuzz/corpus/expression) by CTest through expression_corpus_main.cpp.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sao/expr/expression.hpp"

namespace {

namespace ex = sao::expr;

// Grid points of the load cases c, d (as many as c, other times), e, and n (no grid).
constexpr int kPoints[] = {5, 5, 3, 0};
constexpr int kCases = 4;

std::string current_text;  // the input, for messages

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "expression_fuzz: %s\n  input (%zu bytes): \"%s\"\n", what.c_str(),
               current_text.size(), current_text.c_str());
  std::abort();
}

void check_read(int response, int load_case, int point) {
  if (response < 0 || response > 1 || load_case < 0 || load_case >= kCases || point < 0 ||
      point >= (response == 0 ? 1 : kPoints[load_case])) {
    fail("response read out of range: response " + std::to_string(response) + ", load case " +
         std::to_string(load_case) + ", point " + std::to_string(point));
  }
}

// x = 0.3, y = 1.2; s = 1.5 + case; h(p) = 0.25 p - 0.4 + case (zero crossings, negative
// values: domain edges of sqrt, log, asin, pow are reached).
class FuzzInputs final : public ex::Inputs {
 public:
  double variable(int i) const override {
    if (i < 0 || i > 1) fail("variable out of range: " + std::to_string(i));
    return 0.3 + 0.9 * i;
  }
  double response(int r, int c, int p) const override {
    check_read(r, c, p);
    return r == 0 ? 1.5 + c : 0.25 * p - 0.4 + c;
  }
  int gradient_size() const override { return 2; }
  void response_gradient(int r, int c, int p, Eigen::Ref<Eigen::VectorXd> g) const override {
    check_read(r, c, p);
    if (g.size() != 2) fail("response gradient of size " + std::to_string(g.size()));
    g << r + 1.0 + c, 0.5 * p - 1.0;
  }
};

// Two variables, a scalar and a history response, load case c on a 5-point non-uniform grid
// (d on another 5-point grid, e on a 3-point one, n without a grid: for the errors of mixed
// load cases, different lengths and missing grids), a constant, a 5-element data array, one
// relation.
const ex::Symbols& symbols() {
  static const ex::Symbols s = [] {
    ex::Symbols s;
    s.variables = {"x", "y"};
    s.responses = {{"s", false}, {"h", true}};
    s.cases = {{"c", {0.0, 0.5, 1.5, 2.0, 4.0}},
               {"d", {0.0, 1.0, 2.0, 3.0, 4.0}},
               {"e", {0.0, 1.0, 3.0}},
               {"n", {}}};
    s.constants = {{"k", 2.0}};
    s.data = {{"w", {1.0, -2.0, 3.0, 0.5, 4.0}}};
    s.relations = {{"r", ex::parse("x * h + k")}};
    return s;
  }();
  return s;
}

bool same(double a, double b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

void check_shape(const ex::Program& program) {
  const int points = program.points(), grid = program.grid_case();
  if (points < 1) fail("points() = " + std::to_string(points));
  if (program.is_series() != (points > 1)) fail("is_series() disagrees with points()");
  if (grid < -1 || grid >= kCases || (grid >= 0 && kPoints[grid] == 0)) {
    fail("grid_case() = " + std::to_string(grid));
  }
  if (grid >= 0 && points != kPoints[grid]) fail("points() differ from the grid's");
  if (grid >= 0 && !program.is_series()) fail("a scalar with a grid case");
}

// The values at every point, with the invariants of evaluation checked.
std::vector<double> evaluate(const ex::Program& program) {
  check_shape(program);
  FuzzInputs inputs;
  ex::Evaluator plain(program, inputs), with_gradient(program, inputs);
  std::vector<double> values;
  Eigen::VectorXd gradient(2);
  for (int p = 0; p < program.points(); ++p) {
    const double v = plain.value(p);
    const double vg = with_gradient.value(p, gradient);
    if (!same(v, vg)) {
      fail("value(" + std::to_string(p) + ") = " + std::to_string(v) +
           " but value(p, gradient) = " + std::to_string(vg));
    }
    ex::for_each_response_read(program, p, check_read);
    values.push_back(v);
  }
  return values;
}

bool same(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!same(a[i], b[i])) return false;
  }
  return true;
}

ex::ProgramPtr try_bind(const ex::AstPtr& ast, int load_case) {
  try {
    return ex::bind(ast, symbols(), load_case);
  } catch (const ex::Error&) {
    return nullptr;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  current_text.assign(reinterpret_cast<const char*>(data), size);
  const int length = static_cast<int>(size);
  ex::AstPtr ast;
  try {
    ast = ex::parse(current_text);
  } catch (const ex::Error& e) {
    if (e.column() < 1 || e.column() > length + 1) {
      fail("parse error at column " + std::to_string(e.column()) + ": " + e.what());
    }
    return 0;
  }
  const bool needs_case = ex::needs_case(ast, symbols());
  const std::string printed = ex::to_text(ast);

  ex::ProgramPtr program;
  try {
    program = ex::bind(ast, symbols(), 0);
  } catch (const ex::Error& e) {
    // Columns of errors in the relation r are in r's text.
    if (e.origin().empty() ? e.column() < 1 || e.column() > length : e.origin() != "r") {
      fail("bind error at column " + std::to_string(e.column()) + " of \"" + e.origin() +
           "\": " + e.what());
    }
    return 0;
  }
  const std::vector<double> values = evaluate(*program);

  // needs_case(): exactly what cannot be bound without a load case.
  const ex::ProgramPtr without_case = try_bind(ast, -1);
  if (needs_case == (without_case != nullptr)) {
    fail(std::string("needs_case() = ") + (needs_case ? "true" : "false") + " but binding " +
         (without_case ? "succeeds" : "fails") + " without a load case");
  }
  if (without_case && !same(evaluate(*without_case), values)) {
    fail("values differ when bound without a load case");
  }

  // to_text(): the same expression (unless its parentheses now nest too deeply).
  ex::AstPtr reparsed_ast;
  try {
    reparsed_ast = ex::parse(printed);
  } catch (const ex::Error& e) {
    if (e.detail().find("nested too deeply") == std::string::npos) {
      fail("to_text() gives \"" + printed + "\", which does not parse: " + e.what());
    }
    return 0;
  }
  const ex::ProgramPtr reparsed = try_bind(reparsed_ast, 0);
  if (!reparsed) fail("to_text() gives \"" + printed + "\", which does not bind");
  if (reparsed->points() != program->points() || reparsed->grid_case() != program->grid_case() ||
      reparsed->degree() != program->degree()) {
    fail("to_text() gives \"" + printed + "\", of another shape or degree");
  }
  if (!same(evaluate(*reparsed), values)) {
    fail("to_text() gives \"" + printed + "\", with other values");
  }
  return 0;
}
