// Evaluation: values of a Program and exact first derivatives (forward automatic
// differentiation with Eigen's AutoDiffScalar).
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <optional>
#include <unsupported/Eigen/AutoDiff>

#include "sao/expr/expression.hpp"
#include "sao/expr/injury.hpp"
#include "sao/expr/tree.hpp"

namespace sao::expr {

void Inputs::response_gradient(int, int, int, Eigen::Ref<Eigen::VectorXd>) const {
  throw std::logic_error("these inputs have no response gradients");
}

namespace {

using AD = Eigen::AutoDiffScalar<Eigen::VectorXd>;

// f(x) and f'(x) of the one-argument functions.
std::pair<double, double> apply(Fn fn, double x) {
  switch (fn) {
    case Fn::kSin:
      return {std::sin(x), std::cos(x)};
    case Fn::kCos:
      return {std::cos(x), -std::sin(x)};
    case Fn::kTan: {
      const double t = std::tan(x);
      return {t, 1.0 + t * t};
    }
    case Fn::kAsin:
      return {std::asin(x), 1.0 / std::sqrt(1.0 - x * x)};
    case Fn::kAcos:
      return {std::acos(x), -1.0 / std::sqrt(1.0 - x * x)};
    case Fn::kAtan:
      return {std::atan(x), 1.0 / (1.0 + x * x)};
    case Fn::kSqrt: {
      const double s = std::sqrt(x);
      return {s, 0.5 / s};
    }
    case Fn::kExp: {
      const double e = std::exp(x);
      return {e, e};
    }
    case Fn::kLog:
      return {std::log(x), 1.0 / x};
    case Fn::kAbs:
      return {std::abs(x), x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0)};
    default:
      return {NAN, NAN};
  }
}

// f(a, b), df/da, df/db of the two-argument functions.
struct Partials {
  double f, da, db;
};
Partials apply(Fn fn, double a, double b) {
  switch (fn) {
    case Fn::kAtan2: {
      const double r2 = a * a + b * b;
      return {std::atan2(a, b), b / r2, -a / r2};
    }
    case Fn::kPow: {
      const double f = std::pow(a, b);
      // d/db only where it exists; callers skip it when b is a constant.
      // a^b ln a; at a = 0 with b > 0, a^b is 0 for every b near it.
      const double db = a > 0 ? f * std::log(a) : (a == 0 && b > 0 ? 0.0 : NAN);
      return {f, b == 0.0 ? 0.0 : b * std::pow(a, b - 1.0), db};
    }
    case Fn::kMin:
      return a <= b ? Partials{a, 1.0, 0.0} : Partials{b, 0.0, 1.0};
    case Fn::kMax:
      return a >= b ? Partials{a, 1.0, 0.0} : Partials{b, 0.0, 1.0};
    default:
      return {NAN, NAN, NAN};
  }
}

double value_of(double v) {
  return v;
}
template <class D>
double value_of(const Eigen::AutoDiffScalar<D>& v) {
  return v.value();
}

// A value with its first and second derivatives in one direction (one variable): second-order
// forward differentiation, for Evaluator::value(point, variable, first, second).
struct Jet {
  double v = 0.0, d = 0.0, dd = 0.0;
};
Jet operator-(const Jet& a) {
  return {-a.v, -a.d, -a.dd};
}
Jet operator+(const Jet& a, const Jet& b) {
  return {a.v + b.v, a.d + b.d, a.dd + b.dd};
}
Jet operator-(const Jet& a, const Jet& b) {
  return {a.v - b.v, a.d - b.d, a.dd - b.dd};
}
Jet operator*(const Jet& a, const Jet& b) {
  return {a.v * b.v, a.d * b.v + a.v * b.d, a.dd * b.v + 2.0 * a.d * b.d + a.v * b.dd};
}
Jet operator/(const Jet& a, const Jet& b) {
  const double q = a.v / b.v, qd = (a.d - q * b.d) / b.v;
  return {q, qd, (a.dd - 2.0 * qd * b.d - q * b.dd) / b.v};
}
Jet operator*(double c, const Jet& a) {
  return {c * a.v, c * a.d, c * a.dd};
}
Jet& operator+=(Jet& a, const Jet& b) {
  return a = a + b;
}
Jet& operator/=(Jet& a, double c) {
  return a = Jet{a.v / c, a.d / c, a.dd / c};
}
double value_of(const Jet& v) {
  return v.v;
}

// f''(x) of the one-argument functions (f and f' from apply).
double second(Fn fn, double x, double f, double df) {
  switch (fn) {
    case Fn::kSin:
    case Fn::kCos:
      return -f;
    case Fn::kTan:
      return 2.0 * f * df;
    case Fn::kAsin:
    case Fn::kAcos:
      return x * df * df * df;  // +-x (1 - x^2)^-1.5
    case Fn::kAtan:
      return -2.0 * x * df * df;
    case Fn::kSqrt:
      return -df / (2.0 * x);
    case Fn::kExp:
      return f;
    case Fn::kLog:
      return -df * df;
    default:  // abs
      return 0.0;
  }
}

// The second partial derivatives faa, fab, fbb of the two-argument functions.
struct SecondPartials {
  double aa, ab, bb;
};
SecondPartials second(Fn fn, double a, double b, const Partials& p) {
  switch (fn) {
    case Fn::kAtan2: {
      const double r4 = (a * a + b * b) * (a * a + b * b);
      return {-2.0 * a * b / r4, (a * a - b * b) / r4, 2.0 * a * b / r4};
    }
    case Fn::kPow: {
      const double aa = b == 0.0 || b == 1.0 ? 0.0 : b * (b - 1.0) * std::pow(a, b - 2.0);
      const double log_a = a > 0 ? std::log(a) : NAN;
      return {aa, std::pow(a, b - 1.0) * (1.0 + b * log_a), p.db * log_a};
    }
    default:  // min, max: piecewise linear
      return {0.0, 0.0, 0.0};
  }
}

// The chain rule of second order with structural zeros kept (as chain): a term whose
// inner derivatives are both 0 contributes 0 even where the outer partial is not finite.
double term(double partial, double inner) {
  return inner == 0.0 ? 0.0 : partial * inner;
}

// The chain rule du/dx * df/du with structural zeros kept: a component where u does not
// depend on x stays 0 even where df/du is infinite or does not exist (sqrt at 0, a^b ln a
// at a < 0), so one undefined partial does not spread into every component.
template <class D>
D chain(const D& du, double df) {
  if (std::isfinite(df)) return du * df;
  return (du.array() == 0.0).select(0.0, du * df);
}

template <class S>
S call1(Fn fn, const S& x) {
  const auto [f, df] = apply(fn, value_of(x));
  if constexpr (std::is_same_v<S, double>) {
    return f;
  } else if constexpr (std::is_same_v<S, Jet>) {
    const double ddf = second(fn, x.v, f, df);
    return Jet{f, term(df, x.d), term(ddf, x.d * x.d) + term(df, x.dd)};
  } else {
    return S(f, chain(x.derivatives(), df));
  }
}

// fn(a, b); `b_varies`: b is not a constant of the program (a constant exponent contributes
// nothing, and a^b ln a may not exist).
template <class S>
S call2(Fn fn, const S& a, const S& b, bool b_varies) {
  const Partials p = apply(fn, value_of(a), value_of(b));
  if constexpr (std::is_same_v<S, double>) {
    return p.f;
  } else if constexpr (std::is_same_v<S, Jet>) {
    const Jet bj = b_varies ? b : Jet{b.v, 0.0, 0.0};
    const SecondPartials q = second(fn, a.v, b.v, p);
    return Jet{p.f, term(p.da, a.d) + term(p.db, bj.d),
               term(q.aa, a.d * a.d) + 2.0 * term(q.ab, a.d * bj.d) + term(q.bb, bj.d * bj.d) +
                   term(p.da, a.dd) + term(p.db, bj.dd)};
  } else {
    typename S::DerType d = chain(a.derivatives(), p.da);
    if (b_varies) d += chain(b.derivatives(), p.db);
    return S(p.f, d);
  }
}

// The value of an arithmetic or function node from its operands' values a and b (b unused
// by one-operand nodes): shared by the recursive evaluation and the flat one.
template <class S>
S combine(const std::vector<Node>& nodes, const Node& n, const S& a, const S& b) {
  switch (n.op) {
    case Op::kNeg:
      return -a;
    case Op::kAdd:
      return a + b;
    case Op::kSub:
      return a - b;
    case Op::kMul:
      return a * b;
    case Op::kDiv:
      return a / b;
    case Op::kPow:
      return call2<S>(Fn::kPow, a, b, nodes[n.b].degree != Degree::kConstant);
    default:  // kCall
      if (n.b >= 0) return call2<S>(n.fn, a, b, nodes[n.b].degree != Degree::kConstant);
      return call1<S>(n.fn, a);
  }
}

// Derivatives of a flat program: as many as the variables it reads, in fixed storage.
using FlatAD =
    Eigen::AutoDiffScalar<Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kFlatVariables, 1>>;

}  // namespace

struct Evaluator::Impl {
  const Program& program;
  const Inputs& inputs;
  int nx = 0;
  int direction = -1;  // the variable of the Jet evaluation
  // The scalar nodes' values, per scalar type; sized at their first use, so an evaluation
  // pays only for the type it computes in.
  std::vector<std::optional<double>> cache_value;
  std::vector<std::optional<AD>> cache_ad;
  std::vector<std::optional<Jet>> cache_jet;

  Impl(const Program& p, const Inputs& in) : program(p), inputs(in) {}

  template <class S>
  std::vector<std::optional<S>>& cache() {
    std::vector<std::optional<S>>* slots = nullptr;
    if constexpr (std::is_same_v<S, double>) {
      slots = &cache_value;
    } else if constexpr (std::is_same_v<S, AD>) {
      slots = &cache_ad;
    } else {
      slots = &cache_jet;
    }
    if (slots->empty()) slots->resize(program.nodes_.size());
    return *slots;
  }

  template <class S>
  S constant(double v) const {
    if constexpr (std::is_same_v<S, double>) {
      return v;
    } else if constexpr (std::is_same_v<S, AD>) {
      return AD(v, Eigen::VectorXd::Zero(nx));
    } else {
      return Jet{v, 0.0, 0.0};
    }
  }

  template <class S>
  S eval(int index, int point) {
    const Node& n = program.nodes_[index];
    // A scalar node has one value whatever the point: compute it once.
    if (!n.series && n.op != Op::kNumber && n.op != Op::kVariable) {
      auto& slot = cache<S>()[index];
      if (!slot) slot = compute<S>(n, 0);
      return *slot;
    }
    return compute<S>(n, point);
  }

  template <class S>
  S compute(const Node& n, int point) {
    switch (n.op) {
      case Op::kNumber:
        return constant<S>(n.number);
      case Op::kVariable: {
        const double v = inputs.variable(n.index);
        if constexpr (std::is_same_v<S, double>) {
          return v;
        } else if constexpr (std::is_same_v<S, AD>) {
          return AD(v, nx, n.index);
        } else {
          return Jet{v, n.index == direction ? 1.0 : 0.0, 0.0};
        }
      }
      case Op::kResponse: {
        const int p = n.series ? point : 0;
        const double v = inputs.response(n.index, n.load_case, p);
        if constexpr (std::is_same_v<S, double>) {
          return v;
        } else if constexpr (std::is_same_v<S, Jet>) {
          throw std::logic_error("second derivatives of responses are not available");
        } else {
          Eigen::VectorXd g = Eigen::VectorXd::Zero(nx);
          inputs.response_gradient(n.index, n.load_case, p, g);
          return AD(v, g);
        }
      }
      case Op::kArray:
        return constant<S>(program.arrays_[n.index][point]);
      case Op::kNeg:
      case Op::kCall:
        if (n.b < 0) return combine<S>(program.nodes_, n, eval<S>(n.a, point), S{});
        [[fallthrough]];
      case Op::kAdd:
      case Op::kSub:
      case Op::kMul:
      case Op::kDiv:
      case Op::kPow: {
        const S a = eval<S>(n.a, point);
        return combine<S>(program.nodes_, n, a, eval<S>(n.b, point));
      }
      case Op::kSum:
      case Op::kMean: {
        const int len = program.nodes_[n.a].length;
        S total = constant<S>(0.0);
        for (int p = 0; p < len; ++p) total += eval<S>(n.a, p);
        if (n.op == Op::kMean) total /= static_cast<double>(len);
        return total;
      }
      case Op::kTrapz: {
        const std::vector<double>& t = program.arrays_[n.index];
        S total = constant<S>(0.0);
        S left = eval<S>(n.a, 0);
        for (size_t p = 1; p < t.size(); ++p) {
          S right = eval<S>(n.a, static_cast<int>(p));
          total += (0.5 * (t[p] - t[p - 1])) * (left + right);
          left = right;
        }
        return total;
      }
      case Op::kIndex:
        return eval<S>(n.a, n.index);
      case Op::kHic:
      case Op::kClip:
        return injury_criterion<S>(n);
    }
    return constant<S>(NAN);
  }

  double term_magnitude(int index, int point) {
    const Node& n = program.nodes_[index];
    if (n.op == Op::kAdd || n.op == Op::kSub) {
      return std::max(term_magnitude(n.a, point), term_magnitude(n.b, point));
    }
    if (n.op == Op::kNeg) return term_magnitude(n.a, point);
    return std::abs(eval<double>(index, point));
  }

  // hic(a, window) and clip3ms(a, duration) (sao/expr/injury.hpp).
  template <class S>
  S injury_criterion(const Node& n) {
    if constexpr (std::is_same_v<S, Jet>) {
      throw std::logic_error("hic and clip3ms have no second derivatives");
    } else {
      return injury_value<S>(n);
    }
  }
  template <class S>
  S injury_value(const Node& n) {
    const std::vector<double>& t = program.arrays_[n.index];
    std::vector<S> a;
    a.reserve(t.size());
    for (size_t p = 0; p < t.size(); ++p) a.push_back(eval<S>(n.a, static_cast<int>(p)));
    const double span = n.b >= 0 ? eval<double>(n.b, 0) : n.number;
    if (!(span > 0.0)) return constant<S>(NAN);
    auto value = [](const S& x) { return value_of(x); };
    if (n.op == Op::kHic) return injury::hic(a, t, span, value);
    return injury::exceeded_level(a, t, span, value);
  }
};

Evaluator::Evaluator(const Program& program, const Inputs& inputs)
    : impl_(std::make_unique<Impl>(program, inputs)) {
  impl_->nx = inputs.gradient_size();
}
Evaluator::~Evaluator() = default;

double Evaluator::value(int point) {
  return impl_->eval<double>(static_cast<int>(impl_->program.nodes_.size()) - 1, point);
}

double Evaluator::value(int point, Eigen::Ref<Eigen::VectorXd> gradient) {
  const AD v = impl_->eval<AD>(static_cast<int>(impl_->program.nodes_.size()) - 1, point);
  if (v.derivatives().size() == gradient.size()) {
    gradient = v.derivatives();
  } else {
    gradient.setZero();
  }
  return v.value();
}

double Evaluator::term_magnitude(int point) {
  return impl_->term_magnitude(static_cast<int>(impl_->program.nodes_.size()) - 1, point);
}

double Evaluator::value(int point, int variable, double& first, double& second) {
  impl_->direction = variable;
  const Jet v = impl_->eval<Jet>(static_cast<int>(impl_->program.nodes_.size()) - 1, point);
  first = v.d;
  second = v.dd;
  return v.v;
}

void Program::flatten() {
  flat_ = false;
  flat_order_.clear();
  flat_variables_.clear();
  flat_slot_.assign(nodes_.size(), -1);
  if (nodes_.empty() || nodes_.back().series) return;
  // The nodes the root reads, children first (a node's operands come before it).
  std::vector<bool> read(nodes_.size(), false);
  read.back() = true;
  for (int i = static_cast<int>(nodes_.size()) - 1; i >= 0; --i) {
    if (!read[i]) continue;
    const Node& n = nodes_[i];
    switch (n.op) {
      case Op::kNumber:
      case Op::kNeg:
      case Op::kAdd:
      case Op::kSub:
      case Op::kMul:
      case Op::kDiv:
      case Op::kPow:
      case Op::kCall:
        break;
      case Op::kVariable:
        flat_variables_.push_back(n.index);
        break;
      default:  // responses, arrays, reductions, injury criteria
        flat_variables_.clear();
        return;
    }
    if (n.a >= 0) read[n.a] = true;
    if (n.b >= 0) read[n.b] = true;
  }
  std::sort(flat_variables_.begin(), flat_variables_.end());
  flat_variables_.erase(std::unique(flat_variables_.begin(), flat_variables_.end()),
                        flat_variables_.end());
  if (flat_variables_.size() > static_cast<size_t>(kFlatVariables)) {
    flat_variables_.clear();
    return;
  }
  for (int i = 0; i < static_cast<int>(nodes_.size()); ++i) {
    if (!read[i]) continue;
    flat_order_.push_back(i);
    if (nodes_[i].op == Op::kVariable) {
      flat_slot_[i] = static_cast<int>(
          std::lower_bound(flat_variables_.begin(), flat_variables_.end(), nodes_[i].index) -
          flat_variables_.begin());
    }
  }
  flat_ = true;
}

// The flat evaluation: the program's operations in order into a scratch of the thread, one
// value per node (no evaluation calls another, so one scratch per scalar type suffices).
class Flat {
 public:
  // `leaf(node, slot)`: the value of a variable node; `zero`: a constant 0 of type S.
  template <class S, class Leaf>
  static S run(const Program& program, const S& zero, Leaf leaf) {
    if (!program.flat_) throw std::logic_error("flat_value of a program that is not flat");
    static thread_local std::vector<S> values;
    if (values.size() < program.nodes_.size()) values.resize(program.nodes_.size());
    for (int i : program.flat_order_) {
      const Node& n = program.nodes_[i];
      switch (n.op) {
        case Op::kNumber:
          values[i] = zero;
          if constexpr (std::is_same_v<S, double>) {
            values[i] = n.number;
          } else if constexpr (std::is_same_v<S, Jet>) {
            values[i].v = n.number;
          } else {
            values[i].value() = n.number;
          }
          break;
        case Op::kVariable:
          values[i] = leaf(n, program.flat_slot_[i]);
          break;
        default:
          values[i] = combine<S>(program.nodes_, n, values[n.a], n.b >= 0 ? values[n.b] : zero);
      }
    }
    return values[program.nodes_.size() - 1];
  }
};

double flat_value(const Program& program, const double* x) {
  return Flat::run<double>(program, 0.0, [&](const Node& n, int) { return x[n.index]; });
}

double flat_value(const Program& program, const double* x, double* gradient) {
  const auto width = static_cast<Eigen::Index>(program.flat_variables().size());
  const FlatAD zero(0.0, FlatAD::DerType::Zero(width));
  const FlatAD v = Flat::run<FlatAD>(program, zero, [&](const Node& n, int slot) {
    return FlatAD(x[n.index], static_cast<int>(width), slot);
  });
  for (Eigen::Index j = 0; j < width; ++j) gradient[j] = v.derivatives()(j);
  return v.value();
}

double flat_value(const Program& program, const double* x, int variable, double& first,
                  double& second) {
  const Jet v = Flat::run<Jet>(program, Jet{}, [&](const Node& n, int) {
    return Jet{x[n.index], n.index == variable ? 1.0 : 0.0, 0.0};
  });
  first = v.d;
  second = v.dd;
  return v.v;
}

std::vector<int> variables_read(const Program& program) {
  detail::RecordingInputs recorder;
  Evaluator evaluator(program, recorder);
  for (int point = 0; point < program.points(); ++point) evaluator.value(point);
  std::vector<int> out = std::move(recorder.variables);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace sao::expr
