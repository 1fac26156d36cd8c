// Quantities of a multibody model: numbers or expressions of its symbols (parameters, t,
// load-case parameters), evaluated on any scalar type: double, AD (model.hpp) or LocalAD.
#pragma once

#include <Eigen/Dense>
#include <stdexcept>
#include <type_traits>
#include <unsupported/Eigen/AutoDiff>
#include <utility>
#include <vector>

#include "sao/expr/expression.hpp"
#include "sao/seam/simulator.hpp"
#include "simulators/models/model.hpp"

namespace sao::sim::multibody {

template <class S>
using Vec = Eigen::Matrix<S, Eigen::Dynamic, 1>;
template <class S>
using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;

// Scalars of the equations: double, AD (model.hpp: a derivative vector on the heap), and
// LocalAD, exactly kLocal derivatives of fixed size, for the element-by-element linearisation
// of a run (dynamics.cpp): an element seeds at most kLocal of its directions at a time and
// leaves the others zero. Fixed size, not a dynamic size of at most kLocal: no allocation, no
// size test and no library copy call per operation. 16, because every operation works on all
// the lanes: the 10-link chain's adjoint with 8, 16 and 32 lanes and with the dynamic size,
// docs/performance.md (round 6).
constexpr int kLocal = 16;
using LocalAD = Eigen::AutoDiffScalar<Eigen::Matrix<double, kLocal, 1>>;

inline double value_of(double v) {
  return v;
}
template <class D>
double value_of(const Eigen::AutoDiffScalar<D>& v) {
  return v.value();
}

// Eigen's AutoDiffScalar does not combine a value without derivatives with one that has them
// in every operation, so every AD value of one evaluation carries a derivative vector of the
// same size: set by the entry points (the sizes of the seeded x and p), used by constants.
inline thread_local Eigen::Index ad_size = 0;

template <class S>
S C(double v) {
  if constexpr (std::is_same_v<S, double>) {
    return v;
  } else {
    S out;  // the derivative vector zeroed in place, not copied from a zero temporary
    out.value() = v;
    out.derivatives().setZero(ad_size);
    return out;
  }
}

inline void set_ad_size(const AD* seeded, Eigen::Index count) {
  ad_size = count > 0 ? seeded[0].derivatives().size() : 0;
}

// ---------------------------------------------------------------------------------------
// Expressions of the model: numbers or strings over named variables (parameters, t, ...).

class Values final : public expr::Inputs {
 public:
  explicit Values(const std::vector<double>& v) : v_(v) {}
  double variable(int i) const override { return v_[i]; }
  double response(int, int, int) const override { return 0.0; }
  int gradient_size() const override { return static_cast<int>(v_.size()); }

 private:
  const std::vector<double>& v_;
};

// An expression evaluated on scalars of type S: for AD, the chain rule through the exact
// gradient of the expression with respect to its variables. A flat program (a formula of
// numbers and symbols, expression.hpp) is evaluated from its flat form, without allocation.
template <class S>
S evaluate(const expr::Program& program, const std::vector<S>& vars) {
  if constexpr (std::is_same_v<S, double>) {
    if (program.flat()) return expr::flat_value(program, vars.data());
    return expr::Evaluator(program, Values(vars)).value();
  } else {
    static thread_local std::vector<double> values;  // the scalars' values, reused
    values.resize(vars.size());
    for (size_t i = 0; i < vars.size(); ++i) values[i] = value_of(vars[i]);
    if (program.flat()) {
      double g[expr::kFlatVariables];
      S out = C<S>(expr::flat_value(program, values.data(), g));
      const std::vector<int>& read = program.flat_variables();
      for (size_t j = 0; j < read.size(); ++j) {
        const auto& di = vars[read[j]].derivatives();
        if (di.size() == ad_size && g[j] != 0.0) out.derivatives() += g[j] * di;
      }
      return out;
    }
    Eigen::VectorXd g(vars.size());
    S out = C<S>(expr::Evaluator(program, Values(values)).value(0, g));
    for (size_t i = 0; i < vars.size(); ++i) {
      const auto& di = vars[i].derivatives();
      if (di.size() == ad_size && g(i) != 0.0) out.derivatives() += g(i) * di;
    }
    return out;
  }
}

// The values, in one run, of the quantities that depend on the parameters only (masses, joint
// points, stiffnesses): computed once per run instead of once per call, with their
// derivatives with respect to the run's active parameters.
struct Frozen {
  std::vector<double> value;
  std::vector<std::vector<std::pair<int, double>>> gradient;  // (active position, derivative)
};

// What the quantities of the model are evaluated with at time t: the symbols (parameters, t,
// load-case parameters) and, in a run, the frozen quantities. A run's element evaluation in
// LocalAD leaves `symbols` empty when the element reads frozen quantities only, and maps each
// active parameter to its local derivative direction (-1: not seeded).
template <class S>
struct Env {
  std::vector<S> symbols;
  int t_index = 0;  // symbols[t_index] is t
  double t = 0.0;
  const LoadCaseSpec* lc = nullptr;
  const Frozen* frozen = nullptr;
  const int* direction = nullptr;
  void set_time(double time) {
    t = time;
    if (!symbols.empty()) symbols[t_index] = C<S>(time);
  }
};

struct Quantity {
  double constant = 0.0;
  expr::ProgramPtr program;     // null: the constant
  int frozen = -1;              // index in a run's Frozen table; -1: evaluated at every call
  std::vector<int> parameters;  // the model parameters the program reads
  bool live() const { return program && frozen < 0; }
  template <class S>
  S at(const Env<S>& env) const {
    if (!program) return C<S>(constant);
    if (frozen >= 0 && env.frozen) {
      S out = C<S>(env.frozen->value[frozen]);
      if constexpr (!std::is_same_v<S, double>) {
        if (env.direction) {
          for (const auto& [a, d] : env.frozen->gradient[frozen]) {
            if (env.direction[a] >= 0) out.derivatives()(env.direction[a]) += d;
          }
        }
      }
      return out;
    }
    return evaluate(*program, symbols(env));
  }
  // With values of further names after the symbols (d and v of a force law, x of a road).
  // (The symbols and the extra names go to a scratch vector of the thread, reused from call
  // to call: no allocation per evaluation.)
  template <class S>
  S at(const Env<S>& env, std::initializer_list<S> extra) const {
    if (!program) return C<S>(constant);
    return evaluate(*program, with_extra(env, extra.begin(), extra.end()));
  }
  template <class S>
  S at(const Env<S>& env, const std::vector<S>& extra) const {
    if (!program) return C<S>(constant);
    return evaluate(*program, with_extra(env, extra.begin(), extra.end()));
  }
  // The value with its exact first and second derivatives in one of its names, `variable`:
  // an index into the symbols followed by `extra` (a motion's t, a road's x). A quantity of
  // the parameters only (a number, a frozen quantity) has none.
  double at(const Env<double>& env, std::initializer_list<double> extra, int variable,
            double& first, double& second) const {
    first = second = 0.0;
    if (!program) return constant;
    if (frozen >= 0 && env.frozen) return env.frozen->value[frozen];
    const std::vector<double>& vars = with_extra(env, extra.begin(), extra.end());
    if (program->flat()) return expr::flat_value(*program, vars.data(), variable, first, second);
    return expr::Evaluator(*program, Values(vars)).value(0, variable, first, second);
  }

 private:
  // The symbols followed by `extra`, in a scratch vector of the thread (no allocation per
  // call). Not re-entrant: the evaluation that reads it must not call `at` again (an
  // expression reads numbers, never another quantity, so it does not).
  template <class S, class It>
  static const std::vector<S>& with_extra(const Env<S>& env, It first, It last) {
    static thread_local std::vector<S> vars;
    vars.assign(symbols(env).begin(), symbols(env).end());
    vars.insert(vars.end(), first, last);
    return vars;
  }
  template <class S>
  static const std::vector<S>& symbols(const Env<S>& env) {
    if (env.symbols.empty()) throw std::logic_error("multibody: an expression without its symbols");
    return env.symbols;
  }
};

}  // namespace sao::sim::multibody
