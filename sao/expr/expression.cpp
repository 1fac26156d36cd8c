#include "sao/expr/expression.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <set>
#include <unsupported/Eigen/AutoDiff>

namespace sao::expr {

Error::Error(const std::string& detail, int column, std::string origin)
    : std::runtime_error(column > 0 ? "column " + std::to_string(column) + ": " + detail : detail),
      detail_(detail),
      column_(column),
      origin_(std::move(origin)) {}

// ---------------------------------------------------------------------------------------
// Parse trees

struct Ast {
  enum class Kind { kNumber, kName, kUnary, kBinary, kCall, kIndex };
  Kind kind = Kind::kNumber;
  double number = 0.0;    // kNumber; kIndex: the index
  std::string name;       // kName, kCall
  std::string load_case;  // kName: the @case qualifier
  char op = 0;            // kUnary '-', kBinary '+-*/^'
  std::vector<AstPtr> args;
  int column = 0;
};

namespace {

constexpr int kMaxDepth = 200;
// Parse trees are walked recursively (printing, binding, evaluation, destruction), and a flat
// sum of n terms is a tree of depth n: the number of nodes is capped so that no walk can
// exhaust the stack.
constexpr int kMaxNodes = 5000;

bool ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool ident_char(char c) {
  return ident_start(c) || (c >= '0' && c <= '9');
}
bool digit(char c) {
  return c >= '0' && c <= '9';
}

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  AstPtr parse() {
    skip();
    if (pos_ == text_.size()) throw Error("empty expression", 1);
    AstPtr root = additive(0);
    skip();
    if (pos_ != text_.size()) {
      throw Error("unexpected " + describe_here() + " after a complete expression", column());
    }
    return root;
  }

 private:
  int column() const { return static_cast<int>(pos_) + 1; }
  void skip() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  char peek() {
    skip();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  std::string describe_here() const {
    if (pos_ >= text_.size()) return "end of expression";
    return quoted(std::string(1, text_[pos_]));
  }
  void expect(char c, const std::string& what) {
    if (peek() != c) {
      throw Error(
          "expected " + quoted(std::string(1, c)) + " " + what + ", found " + describe_here(),
          column());
    }
    ++pos_;
  }
  void enter(int depth) const {
    if (depth > kMaxDepth) throw Error("expression nested too deeply", column());
  }

  AstPtr make(Ast node) {
    if (++nodes_ > kMaxNodes) {
      throw Error("expression too long: more than " + std::to_string(kMaxNodes) +
                      " terms (split it into relations)",
                  node.column);
    }
    return std::make_shared<const Ast>(std::move(node));
  }

  AstPtr additive(int depth) {
    enter(depth);
    AstPtr left = multiplicative(depth + 1);
    for (char c = peek(); c == '+' || c == '-'; c = peek()) {
      const int col = column();
      ++pos_;
      Ast n{Ast::Kind::kBinary, 0, {}, {}, c, {left, multiplicative(depth + 1)}, col};
      left = make(std::move(n));
    }
    return left;
  }

  AstPtr multiplicative(int depth) {
    enter(depth);
    AstPtr left = unary(depth + 1);
    for (char c = peek(); c == '*' || c == '/'; c = peek()) {
      const int col = column();
      ++pos_;
      Ast n{Ast::Kind::kBinary, 0, {}, {}, c, {left, unary(depth + 1)}, col};
      left = make(std::move(n));
    }
    return left;
  }

  AstPtr unary(int depth) {
    enter(depth);
    const char c = peek();
    if (c == '-' || c == '+') {
      const int col = column();
      ++pos_;
      AstPtr operand = unary(depth + 1);
      if (c == '+') return operand;
      return make(Ast{Ast::Kind::kUnary, 0, {}, {}, '-', {operand}, col});
    }
    return power(depth + 1);
  }

  // Right-associative; binds tighter than unary minus on its left: -2^2 = -(2^2).
  AstPtr power(int depth) {
    enter(depth);
    AstPtr base = postfix(depth + 1);
    if (peek() == '^') {
      const int col = column();
      ++pos_;
      return make(Ast{Ast::Kind::kBinary, 0, {}, {}, '^', {base, unary(depth + 1)}, col});
    }
    return base;
  }

  AstPtr postfix(int depth) {
    AstPtr node = primary(depth + 1);
    while (peek() == '[') {
      const int col = column();
      ++pos_;
      skip();
      bool negative = false;
      if (peek() == '-') {
        negative = true;
        ++pos_;
        skip();
      }
      const size_t start = pos_;
      while (pos_ < text_.size() && digit(text_[pos_])) ++pos_;
      if (pos_ == start) {
        throw Error("expected an integer time index, found " + describe_here(), column());
      }
      long index = 0;
      const auto [end, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, index);
      if (ec != std::errc() || end != text_.data() + pos_ || index > 100000000) {
        throw Error("time index too large", static_cast<int>(start) + 1);
      }
      expect(']', "to close the index");
      Ast n{Ast::Kind::kIndex,
            static_cast<double>(negative ? -index : index),
            {},
            {},
            0,
            {node},
            col};
      node = make(std::move(n));
    }
    return node;
  }

  AstPtr primary(int depth) {
    enter(depth);
    const char c = peek();
    const int col = column();
    if (c == '(') {
      ++pos_;
      AstPtr inner = additive(depth + 1);
      expect(')', "to close the parenthesis opened at column " + std::to_string(col));
      return inner;
    }
    if (digit(c) || c == '.') return number();
    if (ident_start(c)) {
      std::string name = identifier();
      if (peek() == '(') {
        ++pos_;
        Ast call{Ast::Kind::kCall, 0, name, {}, 0, {}, col};
        if (peek() != ')') {
          call.args.push_back(additive(depth + 1));
          while (peek() == ',') {
            ++pos_;
            call.args.push_back(additive(depth + 1));
          }
        }
        expect(')', "to close the arguments of " + name + "()");
        return make(std::move(call));
      }
      Ast n{Ast::Kind::kName, 0, name, {}, 0, {}, col};
      if (peek() == '@') {
        ++pos_;
        skip();
        if (!ident_start(peek())) {
          throw Error("expected a load case name after \"@\", found " + describe_here(), column());
        }
        n.load_case = identifier();
      }
      return make(std::move(n));
    }
    if (c == '\0') throw Error("unexpected end of expression", col);
    throw Error("unexpected " + describe_here(), col);
  }

  std::string identifier() {
    const size_t start = pos_;
    while (pos_ < text_.size() && ident_char(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  // digits [. digits] [(e|E) [+-] digits]
  AstPtr number() {
    const size_t start = pos_;
    const int col = column();
    while (pos_ < text_.size() && digit(text_[pos_])) ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      while (pos_ < text_.size() && digit(text_[pos_])) ++pos_;
    }
    if (pos_ - start == 1 && text_[start] == '.') throw Error("malformed number \".\"", col);
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t p = pos_ + 1;
      if (p < text_.size() && (text_[p] == '+' || text_[p] == '-')) ++p;
      if (p >= text_.size() || !digit(text_[p])) {
        throw Error("malformed exponent in a number", static_cast<int>(pos_) + 1);
      }
      pos_ = p;
      while (pos_ < text_.size() && digit(text_[pos_])) ++pos_;
    }
    double value = 0.0;
    const auto [end, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, value);
    if (ec != std::errc() || end != text_.data() + pos_ || !std::isfinite(value)) {
      throw Error("number out of range: " + text_.substr(start, pos_ - start), col);
    }
    if (pos_ < text_.size() && ident_start(text_[pos_])) {
      throw Error("unexpected " + describe_here() + " after a number (missing \"*\"?)", column());
    }
    return make(Ast{Ast::Kind::kNumber, value, {}, {}, 0, {}, col});
  }

  const std::string& text_;
  size_t pos_ = 0;
  int nodes_ = 0;
};

}  // namespace

AstPtr parse(const std::string& text) {
  return Parser(text).parse();
}

AstPtr name_node(const std::string& name, const std::string& load_case) {
  return std::make_shared<const Ast>(Ast{Ast::Kind::kName, 0, name, load_case, 0, {}, 0});
}
AstPtr number_node(double value) {
  return std::make_shared<const Ast>(Ast{Ast::Kind::kNumber, value, {}, {}, 0, {}, 0});
}
AstPtr product(AstPtr a, AstPtr b) {
  return std::make_shared<const Ast>(
      Ast{Ast::Kind::kBinary, 0, {}, {}, '*', {std::move(a), std::move(b)}, 0});
}

std::string to_text(const AstPtr& ast) {
  switch (ast->kind) {
    case Ast::Kind::kNumber: {
      char buf[32];
      const auto r = std::to_chars(buf, buf + sizeof buf, ast->number);
      const std::string text(buf, r.ptr);
      return ast->number < 0 ? "(" + text + ")" : text;
    }
    case Ast::Kind::kName:
      return ast->load_case.empty() ? ast->name : ast->name + "@" + ast->load_case;
    case Ast::Kind::kUnary:
      // Bracketed as a whole, so that it stays one operand (the base of a power included).
      return "(-" + to_text(ast->args[0]) + ")";
    case Ast::Kind::kBinary:
      return "(" + to_text(ast->args[0]) + " " + ast->op + " " + to_text(ast->args[1]) + ")";
    case Ast::Kind::kCall: {
      std::string s = ast->name + "(";
      for (size_t i = 0; i < ast->args.size(); ++i) s += (i ? ", " : "") + to_text(ast->args[i]);
      return s + ")";
    }
    case Ast::Kind::kIndex:
      return to_text(ast->args[0]) + "[" + std::to_string(static_cast<long>(ast->number)) + "]";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------
// Programs

enum class Op {
  kNumber,
  kVariable,
  kResponse,
  kArray,  // data array or time grid: arrays_[index]
  kNeg,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kPow,
  kCall,  // fn of one or two arguments
  kSum,
  kMean,
  kTrapz,  // over the time grid arrays_[index]
  kIndex,  // element `index` of a
};

enum class Fn {
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kSqrt,
  kExp,
  kLog,
  kAbs,
  kAtan2,
  kPow,
  kMin,
  kMax
};

struct Node {
  Op op = Op::kNumber;
  Fn fn = Fn::kSin;
  double number = 0.0;
  int index = 0;      // variable, response, array, time index
  int load_case = 0;  // response
  int a = -1, b = -1;
  int length = 1;  // points of the value; 1 and !series for a scalar
  bool series = false;
  int grid = -1;  // load case of the time grid of a series, -1 for an array or scalar
  Degree degree = Degree::kConstant;
};

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
constexpr const char* kReductions = "sum, mean, trapz";

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

  int bind_name(const Ast& ast, int depth) {
    const std::string& name = ast.name;
    for (size_t i = 0; i < symbols_.variables.size(); ++i) {
      if (symbols_.variables[i] != name) continue;
      if (!ast.load_case.empty()) {
        throw Error(quoted(name) + " is a variable: only responses and t take @case", ast.column);
      }
      Node n;
      n.op = Op::kVariable;
      n.index = static_cast<int>(i);
      n.degree = Degree::kLinear;
      return add(n);
    }
    for (size_t r = 0; r < symbols_.responses.size(); ++r) {
      if (symbols_.responses[r].name != name) continue;
      int c = load_case_;
      if (!ast.load_case.empty()) {
        c = case_index(ast);
      } else if (c < 0) {
        throw Error(
            "response " + quoted(name) + " needs a load case here: write " + name + "@<case>",
            ast.column);
      }
      Node n;
      n.op = Op::kResponse;
      n.index = static_cast<int>(r);
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
        root = bind(*it->second, depth + 1);
      } catch (Error& e) {
        if (e.origin().empty()) e.set_origin(name);
        throw;
      }
      active_.pop_back();
      relations_done_[name] = root;
      return root;
    }
    if (name == "t") {
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

  int bind_call(const Ast& ast, int depth) {
    const std::string& name = ast.name;
    const int nargs = static_cast<int>(ast.args.size());
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

void Inputs::response_gradient(int, int, int, Eigen::Ref<Eigen::VectorXd>) const {
  throw std::logic_error("these inputs have no response gradients");
}

// ---------------------------------------------------------------------------------------
// Evaluation

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
double value_of(const AD& v) {
  return v.value();
}

}  // namespace

struct Evaluator::Impl {
  const Program& program;
  const Inputs& inputs;
  int nx = 0;
  std::vector<std::optional<double>> cache_value;
  std::vector<std::optional<AD>> cache_ad;

  Impl(const Program& p, const Inputs& in)
      : program(p), inputs(in), cache_value(p.nodes_.size()), cache_ad(p.nodes_.size()) {}

  std::vector<std::optional<double>>& cache(double*) { return cache_value; }
  std::vector<std::optional<AD>>& cache(AD*) { return cache_ad; }

  template <class S>
  S constant(double v) const {
    if constexpr (std::is_same_v<S, double>) {
      return v;
    } else {
      return AD(v, Eigen::VectorXd::Zero(nx));
    }
  }

  template <class S>
  S eval(int index, int point) {
    const Node& n = program.nodes_[index];
    // A scalar node has one value whatever the point: compute it once.
    if (!n.series && n.op != Op::kNumber && n.op != Op::kVariable) {
      auto& slot = cache(static_cast<S*>(nullptr))[index];
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
        } else {
          return AD(v, nx, n.index);
        }
      }
      case Op::kResponse: {
        const int p = n.series ? point : 0;
        const double v = inputs.response(n.index, n.load_case, p);
        if constexpr (std::is_same_v<S, double>) {
          return v;
        } else {
          Eigen::VectorXd g = Eigen::VectorXd::Zero(nx);
          inputs.response_gradient(n.index, n.load_case, p, g);
          return AD(v, g);
        }
      }
      case Op::kArray:
        return constant<S>(program.arrays_[n.index][point]);
      case Op::kNeg:
        return -eval<S>(n.a, point);
      case Op::kAdd:
        return eval<S>(n.a, point) + eval<S>(n.b, point);
      case Op::kSub:
        return eval<S>(n.a, point) - eval<S>(n.b, point);
      case Op::kMul:
        return eval<S>(n.a, point) * eval<S>(n.b, point);
      case Op::kDiv:
        return eval<S>(n.a, point) / eval<S>(n.b, point);
      case Op::kPow:
        return call2<S>(Fn::kPow, n, point);
      case Op::kCall:
        if (n.b >= 0) return call2<S>(n.fn, n, point);
        return call1<S>(n.fn, eval<S>(n.a, point));
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
    }
    return constant<S>(NAN);
  }

  // The chain rule du/dx * df/du with structural zeros kept: a component where u does not
  // depend on x stays 0 even where df/du is infinite or does not exist (sqrt at 0, a^b ln a
  // at a < 0), so one undefined partial does not spread into every component.
  static Eigen::VectorXd chain(const Eigen::VectorXd& du, double df) {
    if (std::isfinite(df)) return du * df;
    return (du.array() == 0.0).select(0.0, du * df);
  }

  template <class S>
  S call1(Fn fn, const S& x) {
    const auto [f, df] = apply(fn, value_of(x));
    if constexpr (std::is_same_v<S, double>) {
      return f;
    } else {
      return AD(f, chain(x.derivatives(), df));
    }
  }

  template <class S>
  S call2(Fn fn, const Node& n, int point) {
    const S a = eval<S>(n.a, point);
    const S b = eval<S>(n.b, point);
    const Partials p = apply(fn, value_of(a), value_of(b));
    if constexpr (std::is_same_v<S, double>) {
      return p.f;
    } else {
      Eigen::VectorXd d = chain(a.derivatives(), p.da);
      // A constant exponent contributes nothing (and a^b ln a may not exist).
      if (program.nodes_[n.b].degree != Degree::kConstant) d += chain(b.derivatives(), p.db);
      return AD(p.f, d);
    }
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
