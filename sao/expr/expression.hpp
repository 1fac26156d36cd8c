// Explicit relations: the small expression language of study files (SPEC 4).
//
// Objective, constraints, relations, derived responses and intermediate design variables are
// written as expressions of design and auxiliary variables, scalar and history responses (per
// load case), the time `t`, constants and data arrays, e.g.
//
//   trapz(acceleration^2) / 12
//   sum((x2 + b4*cos(b7 + theta2) - xG)^2 + (y2 + b4*sin(b7 + theta2) - yG)^2)
//   abs(y@impact) - 1
//
// Three stages (parse.cpp, bind.cpp, evaluate.cpp; their shared trees in tree.hpp):
//   parse(text)               -> Ast      syntax only; errors carry a 1-based column
//   bind(ast, symbols, case)  -> Program  names resolved, shapes (scalar / series) checked
//   Evaluator(program, inputs)            values, and exact first derivatives by forward
//                                         automatic differentiation (Eigen's AutoDiffScalar)
//
// A value is a scalar or a series: a history on a load case's time grid or a data array.
// Arithmetic and functions apply elementwise (a scalar broadcasts); reductions (sum, mean,
// trapz) turn a series into a scalar; h[k] picks one time index (negative k counts from the
// end). A series-valued program is evaluated one point at a time, so a history-valued
// constraint is one constraint per grid point, and screening keeps only some of them; scalar
// sub-results (a reduction inside an elementwise expression) are computed once per Evaluator.
#pragma once

#include <Eigen/Dense>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace sao::expr {

// A parse or bind error. `column` is 1-based in the text where it happened (0: no position);
// `origin` names the relation whose text it is, "" when it is the expression's own text.
class Error : public std::runtime_error {
 public:
  Error(const std::string& detail, int column, std::string origin = {});
  int column() const { return column_; }
  const std::string& detail() const { return detail_; }
  const std::string& origin() const { return origin_; }
  void set_origin(const std::string& origin) { origin_ = origin; }

 private:
  std::string detail_;
  int column_;
  std::string origin_;
};

struct Ast;
using AstPtr = std::shared_ptr<const Ast>;

// Parses one expression; throws Error on a syntax error.
AstPtr parse(const std::string& text);
// Trees built directly, for the {"response": ..., "factor": ...} shorthand of study files.
AstPtr name_node(const std::string& name, const std::string& load_case = {});
AstPtr number_node(double value);
AstPtr product(AstPtr a, AstPtr b);
// Readable text of a tree (for messages and reports).
std::string to_text(const AstPtr& ast);
// The names the tree reads (not the functions it calls), sorted, without repeats: what a
// caller must give meaning to before binding it (e.g. the parameters of a closed-form model).
std::vector<std::string> names_read(const AstPtr& ast);

// What names mean. A name is looked up as a variable, a response, a constant, a data array,
// a relation, then the built-ins `t` (time of the load case) and `pi`.
struct Symbols {
  std::vector<std::string> variables;  // x(i): design variables, then auxiliaries
  struct Response {
    std::string name;
    bool history = false;
  };
  std::vector<Response> responses;
  struct Case {
    std::string name;
    std::vector<double> times;  // grid times; empty when the case has no grid
  };
  std::vector<Case> cases;
  std::map<std::string, double> constants;
  std::map<std::string, std::vector<double>> data;
  std::map<std::string, AstPtr> relations;  // named explicit relations, inlined where used
};

// True when the expression (its relations included) uses a response without `@case`, or
// `t`: it is then bound once per load case.
bool needs_case(const AstPtr& ast, const Symbols& symbols);

// Polynomial degree in the variables and responses, as far as it matters to the solver.
enum class Degree { kConstant = 0, kLinear = 1, kNonlinear = 2 };

struct Node;

inline constexpr int kFlatVariables = 16;

class Program {
 public:
  Program();
  ~Program();
  int points() const;      // number of values: 1 for a scalar
  bool is_series() const;  // history or array valued
  int grid_case() const;   // load case of the time grid of a series, -1 for none
  Degree degree() const;
  bool uses_responses() const;
  // The responses the program reads (their indices in Symbols::responses), sorted, no repeats.
  std::vector<int> responses() const;
  // A scalar program of numbers and variables only (no responses, series or data arrays),
  // reading at most kFlatVariables variables: the formulas of models (road profiles, force
  // laws, driver motions). It is also compiled when bound to a flat list of its operations,
  // which flat_value evaluates without recursion or allocation per call.
  bool flat() const { return flat_; }
  // The variables a flat program reads, sorted: the entries of flat_value's gradient.
  const std::vector<int>& flat_variables() const { return flat_variables_; }

 private:
  friend class Binder;
  friend class Flat;
  void flatten();  // sets flat_, flat_order_, flat_variables_, flat_slot_
  bool flat_ = false;
  std::vector<int> flat_order_;      // the nodes the root reads, children first
  std::vector<int> flat_variables_;  // the variables read, sorted
  std::vector<int> flat_slot_;       // of a variable node: its position in flat_variables_
  friend class Evaluator;
  std::vector<Node> nodes_;                  // children before parents; the root is last
  std::vector<std::vector<double>> arrays_;  // data arrays and time grids, by index
  bool uses_responses_ = false;
};
using ProgramPtr = std::shared_ptr<const Program>;

// Resolves names against `symbols`. Responses without `@case` and `t` refer to `load_case`
// (-1: none; they are then errors). Throws Error.
ProgramPtr bind(const AstPtr& ast, const Symbols& symbols, int load_case);

// Where an Evaluator gets the values of variables and responses.
class Inputs {
 public:
  virtual ~Inputs() = default;
  virtual double variable(int i) const = 0;
  virtual double response(int response, int load_case, int point) const = 0;
  // For derivatives: the size of the gradient vector, and d response / d(that vector).
  // Variable i has the unit gradient e_i.
  virtual int gradient_size() const { return 0; }
  virtual void response_gradient(int response, int load_case, int point,
                                 Eigen::Ref<Eigen::VectorXd> gradient) const;
};

// Evaluates one program on one set of inputs, at any of its points. Keeps the scalar
// sub-results it computed, so use a new Evaluator when the inputs change.
class Evaluator {
 public:
  Evaluator(const Program& program, const Inputs& inputs);
  ~Evaluator();
  double value(int point = 0);
  // Returns the value; `gradient` (size inputs.gradient_size()) gets the exact derivative.
  double value(int point, Eigen::Ref<Eigen::VectorXd> gradient);
  // Returns the value; `first` and `second` get its exact first and second derivatives with
  // respect to variable `variable` alone (e.g. a motion's velocity and acceleration in t).
  // Throws std::logic_error for a program that reads responses or computes hic/clip3ms.
  double value(int point, int variable, double& first, double& second);
  // The largest |term| of the value's outermost sum at `point` (through +, - and unary -):
  // what the value is made of, when the terms cancel (b1*b2 - 500 is 0 where b1*b2 = 500;
  // its terms are 500). |value| for a value that is not a sum.
  double term_magnitude(int point = 0);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A flat program's value (Program::flat) at the variable values x (x[i]: variable i), and
// with its exact first derivatives, the same as Evaluator::value(0, gradient) gives for the
// variables it reads: gradient[j] = d value / d x[flat_variables()[j]]; or with its first and
// second derivatives in the one variable `variable` (as Evaluator::value(0, variable, ...)).
// Not for a program that is not flat (std::logic_error).
double flat_value(const Program& program, const double* x);
double flat_value(const Program& program, const double* x, double* gradient);
double flat_value(const Program& program, const double* x, int variable, double& first,
                  double& second);

// Calls `visit(response, load_case, point)` for every response value the program reads to
// compute its value at `point` (with repeats): what a gradient at that point depends on.
template <class Visit>
void for_each_response_read(const Program& program, int point, Visit visit);

// The variables (indices into Symbols::variables) the program reads at any of its points,
// sorted, without repeats: what its value can depend on (the language has no branches, so
// every variable written in the text is read).
std::vector<int> variables_read(const Program& program);

// --- implementation of the template above ------------------------------------------------

namespace detail {
class RecordingInputs final : public Inputs {
 public:
  struct Read {
    int response, load_case, point;
  };
  double variable(int i) const override {
    variables.push_back(i);
    return 1.0;
  }
  double response(int response, int load_case, int point) const override {
    reads.push_back({response, load_case, point});
    return 1.0;
  }
  mutable std::vector<Read> reads;
  mutable std::vector<int> variables;
};
}  // namespace detail

template <class Visit>
void for_each_response_read(const Program& program, int point, Visit visit) {
  detail::RecordingInputs recorder;
  Evaluator(program, recorder).value(point);
  for (const auto& r : recorder.reads) visit(r.response, r.load_case, r.point);
}

}  // namespace sao::expr
