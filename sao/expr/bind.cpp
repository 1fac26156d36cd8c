// Binding: Ast -> Program, names resolved against the Symbols, shapes and degrees checked.
#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "sao/expr/expression.hpp"
#include "sao/expr/tree.hpp"

namespace sao::expr {

Program::Program() = default;
Program::~Program() = default;
int Program::points() const {
  return nodes_.back().length;
}
bool Program::is_series() const {
  return nodes_.back().series;
}
int Program::grid_case() const {
  return nodes_.back().grid;
}
Degree Program::degree() const {
  return nodes_.back().degree;
}
bool Program::uses_responses() const {
  return uses_responses_;
}
std::vector<int> Program::responses() const {
  std::vector<int> out;
  for (const Node& n : nodes_) {
    if (n.op == Op::kResponse) out.push_back(n.index);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

struct FnInfo {
  const char* name;
  Fn fn;
  int arity;
};
constexpr FnInfo kFunctions[] = {
    {"sin", Fn::kSin, 1},   {"cos", Fn::kCos, 1},     {"tan", Fn::kTan, 1},
    {"asin", Fn::kAsin, 1}, {"acos", Fn::kAcos, 1},   {"atan", Fn::kAtan, 1},
    {"sqrt", Fn::kSqrt, 1}, {"exp", Fn::kExp, 1},     {"log", Fn::kLog, 1},
    {"abs", Fn::kAbs, 1},   {"atan2", Fn::kAtan2, 2}, {"pow", Fn::kPow, 2},
    {"min", Fn::kMin, 2},   {"max", Fn::kMax, 2},
};
constexpr const char* kReductions = "sum, mean, trapz, hic, clip3ms";

std::string function_list() {
  std::string s;
  for (const FnInfo& f : kFunctions) s += std::string(s.empty() ? "" : ", ") + f.name;
  return s + ", " + kReductions;
}

Degree max_degree(Degree a, Degree b) {
  return a > b ? a : b;
}

}  // namespace

class Binder {
 public:
  Binder(const Symbols& symbols, int load_case) : symbols_(symbols), load_case_(load_case) {
    program_ = std::make_shared<Program>();
  }

  ProgramPtr run(const AstPtr& ast) {
    bind(*ast, 0);
    program_->flatten();
    return program_;
  }

  static bool needs_case(const Ast& ast, const Symbols& symbols, std::set<std::string>& seen) {
    if (ast.kind == Ast::Kind::kName && ast.load_case.empty()) {
      for (const auto& r : symbols.responses) {
        if (r.name == ast.name && !is_variable(symbols, ast.name)) return true;
      }
      if (auto it = symbols.relations.find(ast.name);
          it != symbols.relations.end() && !shadowed_relation(symbols, ast.name)) {
        if (seen.insert(ast.name).second && needs_case(*it->second, symbols, seen)) return true;
      } else if (ast.name == "t" && !declared(symbols, "t")) {
        return true;
      }
    }
    for (const AstPtr& arg : ast.args) {
      if (needs_case(*arg, symbols, seen)) return true;
    }
    return false;
  }

 private:
  static bool is_variable(const Symbols& s, const std::string& name) {
    for (const auto& v : s.variables) {
      if (v == name) return true;
    }
    return false;
  }
  static bool is_response(const Symbols& s, const std::string& name) {
    for (const auto& r : s.responses) {
      if (r.name == name) return true;
    }
    return false;
  }
  static bool shadowed_relation(const Symbols& s, const std::string& name) {
    return is_variable(s, name) || is_response(s, name) || s.constants.count(name) ||
           s.data.count(name);
  }
  static bool declared(const Symbols& s, const std::string& name) {
    return shadowed_relation(s, name) || s.relations.count(name);
  }

  int add(Node n) {
    program_->nodes_.push_back(n);
    return static_cast<int>(program_->nodes_.size()) - 1;
  }
  const Node& node(int i) const { return program_->nodes_[i]; }

  int array(std::vector<double> values) {
    program_->arrays_.push_back(std::move(values));
    return static_cast<int>(program_->arrays_.size()) - 1;
  }

  std::string case_name(int c) const { return quoted(symbols_.cases[c].name); }

  int case_index(const Ast& ast) const {
    for (size_t c = 0; c < symbols_.cases.size(); ++c) {
      if (symbols_.cases[c].name == ast.load_case) return static_cast<int>(c);
    }
    std::string known;
    for (const auto& c : symbols_.cases) known += (known.empty() ? "" : ", ") + c.name;
    throw Error("unknown load case " + quoted(ast.load_case) + " (load cases: " + known + ")",
                ast.column);
  }

  int time_grid(int c, const Ast& ast) {
    auto it = grids_.find(c);
    if (it != grids_.end()) return it->second;
    if (symbols_.cases[c].times.empty()) {
      throw Error("load case " + case_name(c) + " has no time grid", ast.column);
    }
    return grids_[c] = array(symbols_.cases[c].times);
  }

  // Shape of an elementwise combination of a and b.
  void combine(Node& n, int a, int b, const Ast& ast) {
    const Node &na = node(a), &nb = node(b);
    n.series = na.series || nb.series;
    n.length = n.series ? std::max(na.series ? na.length : 0, nb.series ? nb.length : 0) : 1;
    if (na.series && nb.series) {
      if (na.length != nb.length) {
        throw Error("series of different lengths (" + std::to_string(na.length) + " and " +
                        std::to_string(nb.length) + " points)",
                    ast.column);
      }
      if (na.grid >= 0 && nb.grid >= 0 && na.grid != nb.grid) {
        throw Error("mixes histories of load cases " + case_name(na.grid) + " and " +
                        case_name(nb.grid) + " elementwise",
                    ast.column);
      }
    }
    n.grid = na.grid >= 0 ? na.grid : nb.grid;
  }

  int bind(const Ast& ast, int depth) {
    if (depth > kMaxDepth) throw Error("expression nested too deeply", ast.column);
    switch (ast.kind) {
      case Ast::Kind::kNumber: {
        Node n;
        n.number = ast.number;
        return add(n);
      }
      case Ast::Kind::kName:
        return bind_name(ast, depth);
      case Ast::Kind::kUnary: {
        const int a = bind(*ast.args[0], depth + 1);
        Node n = node(a);
        n.op = Op::kNeg;
        n.a = a;
        n.b = -1;
        return add(n);
      }
      case Ast::Kind::kBinary: {
        // A chain a + b + c ... (or a * b / c ...) is a left-deep tree but not nesting: its
        // left operands keep the depth (the length is bounded by kMaxNodes).
        const Ast& left = *ast.args[0];
        const bool chained = ast.op != '^' && left.kind == Ast::Kind::kBinary && left.op != '^';
        const int a = bind(left, chained ? depth : depth + 1);
        const int b = bind(*ast.args[1], depth + 1);
        Node n;
        n.a = a;
        n.b = b;
        combine(n, a, b, ast);
        const Degree da = node(a).degree, db = node(b).degree;
        switch (ast.op) {
          case '+':
            n.op = Op::kAdd;
            n.degree = max_degree(da, db);
            break;
          case '-':
            n.op = Op::kSub;
            n.degree = max_degree(da, db);
            break;
          case '*':
            n.op = Op::kMul;
            n.degree =
                static_cast<Degree>(std::min(2, static_cast<int>(da) + static_cast<int>(db)));
            break;
          case '/':
            n.op = Op::kDiv;
            n.degree = db == Degree::kConstant ? da : Degree::kNonlinear;
            break;
          default:
            n.op = Op::kPow;
            n.degree = da == Degree::kConstant && db == Degree::kConstant ? Degree::kConstant
                                                                          : Degree::kNonlinear;
            break;
        }
        return add(n);
      }
      case Ast::Kind::kCall:
        return bind_call(ast, depth);
      case Ast::Kind::kIndex: {
        const int a = bind(*ast.args[0], depth + 1);
        const Node& base = node(a);
        if (!base.series)
          throw Error("indexing a scalar: [k] picks a point of a history", ast.column);
        long k = static_cast<long>(ast.number);
        if (k < 0) k += base.length;
        if (k < 0 || k >= base.length) {
          throw Error("time index " + std::to_string(static_cast<long>(ast.number)) +
                          " outside 0.." + std::to_string(base.length - 1),
                      ast.column);
        }
        Node n;
        n.op = Op::kIndex;
        n.a = a;
        n.index = static_cast<int>(k);
        n.degree = base.degree;
        return add(n);
      }
    }
    throw Error("internal: unknown node", ast.column);
  }

  // A name: a variable, a response, a constant, a data array, a relation, t or pi.
  int bind_name(const Ast& ast, int depth) {
    const std::string& name = ast.name;
    for (size_t i = 0; i < symbols_.variables.size(); ++i) {
      if (symbols_.variables[i] == name) return bind_variable(ast, static_cast<int>(i));
    }
    for (size_t r = 0; r < symbols_.responses.size(); ++r) {
      if (symbols_.responses[r].name == name) return bind_response(ast, static_cast<int>(r));
    }
    if (!ast.load_case.empty() && name != "t" &&
        (symbols_.constants.count(name) || symbols_.data.count(name) ||
         symbols_.relations.count(name) || name == "pi")) {
      throw Error("only responses and t take @case, not " + quoted(name), ast.column);
    }
    if (auto it = symbols_.constants.find(name); it != symbols_.constants.end()) {
      Node n;
      n.number = it->second;
      return add(n);
    }
    if (auto it = symbols_.data.find(name); it != symbols_.data.end()) {
      Node n;
      n.op = Op::kArray;
      n.index = array(it->second);
      n.series = true;
      n.length = static_cast<int>(it->second.size());
      return add(n);
    }
    if (auto it = symbols_.relations.find(name); it != symbols_.relations.end()) {
      return bind_relation(ast, *it->second, depth);
    }
    if (name == "t") return bind_time(ast);
    if (name == "pi") {
      Node n;
      n.number = M_PI;
      return add(n);
    }
    for (const FnInfo& f : kFunctions) {
      if (name == f.name)
        throw Error(quoted(name) + " is a function: call it as " + name + "(...)", ast.column);
    }
    throw Error("unknown name " + quoted(name) +
                    " (not a variable, response, constant, data array or relation)",
                ast.column);
  }

  int bind_variable(const Ast& ast, int i) {
    if (!ast.load_case.empty()) {
      throw Error(quoted(ast.name) + " is a variable: only responses and t take @case", ast.column);
    }
    Node n;
    n.op = Op::kVariable;
    n.index = i;
    n.degree = Degree::kLinear;
    return add(n);
  }

  int bind_response(const Ast& ast, int r) {
    const std::string& name = ast.name;
    int c = load_case_;
    if (!ast.load_case.empty()) {
      c = case_index(ast);
    } else if (c < 0) {
      throw Error("response " + quoted(name) + " needs a load case here: write " + name + "@<case>",
                  ast.column);
    }
    Node n;
    n.op = Op::kResponse;
    n.index = r;
    n.load_case = c;
    n.degree = Degree::kLinear;
    if (symbols_.responses[r].history) {
      if (symbols_.cases[c].times.empty()) {
        throw Error("response " + quoted(name) + " is a history but load case " + case_name(c) +
                        " has no time grid",
                    ast.column);
      }
      n.series = true;
      n.length = static_cast<int>(symbols_.cases[c].times.size());
      n.grid = c;
    }
    program_->uses_responses_ = true;
    return add(n);
  }

  // A named relation is inlined: bound once per program, its root shared by every use.
  int bind_relation(const Ast& ast, const Ast& relation, int depth) {
    const std::string& name = ast.name;
    if (auto done = relations_done_.find(name); done != relations_done_.end()) {
      return done->second;
    }
    if (std::find(active_.begin(), active_.end(), name) != active_.end()) {
      std::string cycle;
      for (const auto& r : active_) cycle += r + " -> ";
      throw Error("relations refer to each other in a cycle: " + cycle + name, ast.column);
    }
    active_.push_back(name);
    int root = -1;
    try {
      root = bind(relation, depth + 1);
    } catch (Error& e) {
      if (e.origin().empty()) e.set_origin(name);
      throw;
    }
    active_.pop_back();
    relations_done_[name] = root;
    return root;
  }

  // t: the time grid of the load case.
  int bind_time(const Ast& ast) {
    int c = load_case_;
    if (!ast.load_case.empty()) {
      c = case_index(ast);
    } else if (c < 0) {
      throw Error("t needs a load case here: write t@<case>", ast.column);
    }
    Node n;
    n.op = Op::kArray;
    n.index = time_grid(c, ast);
    n.series = true;
    n.length = static_cast<int>(symbols_.cases[c].times.size());
    n.grid = c;
    return add(n);
  }

  int bind_call(const Ast& ast, int depth) {
    const std::string& name = ast.name;
    const int nargs = static_cast<int>(ast.args.size());
    if (name == "hic" || name == "clip3ms") return bind_injury(ast, depth);
    if (name == "sum" || name == "mean" || name == "trapz") {
      if (nargs != 1) {
        throw Error(name + "() takes 1 argument, got " + std::to_string(nargs), ast.column);
      }
      const int a = bind(*ast.args[0], depth + 1);
      const Node& arg = node(a);
      if (!arg.series) {
        throw Error(name + "() needs a history or data array, got a scalar", ast.column);
      }
      Node n;
      n.a = a;
      n.degree = arg.degree;
      if (name == "sum") {
        n.op = Op::kSum;
      } else if (name == "mean") {
        n.op = Op::kMean;
      } else {
        if (arg.grid < 0) {
          throw Error(
              "trapz() integrates over a time grid: its argument must involve a history "
              "or t, a data array alone has none",
              ast.column);
        }
        n.op = Op::kTrapz;
        n.index = time_grid(arg.grid, ast);
      }
      return add(n);
    }
    for (const FnInfo& f : kFunctions) {
      if (name != f.name) continue;
      if (nargs != f.arity) {
        throw Error(name + "() takes " + std::to_string(f.arity) + " argument" +
                        (f.arity > 1 ? "s" : "") + ", got " + std::to_string(nargs),
                    ast.column);
      }
      Node n;
      n.op = Op::kCall;
      n.fn = f.fn;
      n.a = bind(*ast.args[0], depth + 1);
      if (f.arity == 2) {
        n.b = bind(*ast.args[1], depth + 1);
        combine(n, n.a, n.b, ast);
        n.degree = node(n.a).degree == Degree::kConstant && node(n.b).degree == Degree::kConstant
                       ? Degree::kConstant
                       : Degree::kNonlinear;
      } else {
        const Node& arg = node(n.a);
        n.series = arg.series;
        n.length = arg.length;
        n.grid = arg.grid;
        n.degree = arg.degree == Degree::kConstant ? Degree::kConstant : Degree::kNonlinear;
      }
      return add(n);
    }
    throw Error("unknown function " + quoted(name) + " (functions: " + function_list() + ")",
                ast.column);
  }

  // Injury criteria (docs/study-format.md): hic(a, window) and clip3ms(a [, duration]), with a
  // history on a time grid; the window and the duration are constant positive scalars.
  int bind_injury(const Ast& ast, int depth) {
    const std::string& name = ast.name;
    const int nargs = static_cast<int>(ast.args.size());
    const bool hic = name == "hic";
    if (hic ? nargs != 2 : (nargs < 1 || nargs > 2)) {
      throw Error(name + "() takes " + (hic ? "2 arguments" : "1 or 2 arguments") + ", got " +
                      std::to_string(nargs),
                  ast.column);
    }
    const int a = bind(*ast.args[0], depth + 1);
    const Node& arg = node(a);
    if (!arg.series || arg.grid < 0) {
      throw Error(name + "() needs a history on a time grid as its first argument", ast.column);
    }
    Node n;
    n.op = hic ? Op::kHic : Op::kClip;
    n.a = a;
    n.index = time_grid(arg.grid, ast);
    n.degree = arg.degree == Degree::kConstant ? Degree::kConstant : Degree::kNonlinear;
    if (nargs == 2) {
      n.b = bind(*ast.args[1], depth + 1);
      if (node(n.b).series || node(n.b).degree != Degree::kConstant) {
        throw Error(name + "(): the " + (hic ? "window" : "duration") +
                        " must be a constant scalar (seconds)",
                    ast.column);
      }
      // A number written out (or negated) is checked here; a constant expression gives NaN
      // at evaluation when it is not positive (the analysis is then unusable, named).
      const Node& span = node(n.b);
      const bool negated = span.op == Op::kNeg && node(span.a).op == Op::kNumber;
      if (span.op == Op::kNumber || negated) {
        const double value = negated ? -node(span.a).number : span.number;
        if (!(value > 0.0)) {
          std::ostringstream msg;
          msg << name << "(): the " << (hic ? "window" : "duration")
              << " must be positive (seconds), got " << value;
          throw Error(msg.str(), ast.column);
        }
      }
    } else {
      n.number = 0.003;
    }
    return add(n);
  }

  const Symbols& symbols_;
  int load_case_;
  std::shared_ptr<Program> program_;
  std::map<int, int> grids_;  // load case -> array index of its times
  std::map<std::string, int> relations_done_;
  std::vector<std::string> active_;
};

bool needs_case(const AstPtr& ast, const Symbols& symbols) {
  std::set<std::string> seen;
  return Binder::needs_case(*ast, symbols, seen);
}

ProgramPtr bind(const AstPtr& ast, const Symbols& symbols, int load_case) {
  return Binder(symbols, load_case).run(ast);
}

}  // namespace sao::expr
