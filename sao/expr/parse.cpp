// Parsing: expression text -> Ast (syntax only), and Ast -> readable text.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "sao/expr/expression.hpp"
#include "sao/expr/tree.hpp"

namespace sao::expr {

Error::Error(const std::string& detail, int column, std::string origin)
    : std::runtime_error(column > 0 ? "column " + std::to_string(column) + ": " + detail : detail),
      detail_(detail),
      column_(column),
      origin_(std::move(origin)) {}

namespace {

bool ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool ident_char(char c) {
  return ident_start(c) || (c >= '0' && c <= '9');
}
bool digit(char c) {
  return c >= '0' && c <= '9';
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
    case Ast::Kind::kBinary: {
      std::string s = "(";
      s += to_text(ast->args[0]);
      s += std::string(" ") + ast->op + " ";
      s += to_text(ast->args[1]);
      return s + ")";
    }
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

std::vector<std::string> names_read(const AstPtr& ast) {
  std::vector<std::string> names;
  std::vector<const Ast*> open{ast.get()};
  while (!open.empty()) {
    const Ast* a = open.back();
    open.pop_back();
    if (a->kind == Ast::Kind::kName) names.push_back(a->name);
    for (const AstPtr& arg : a->args) open.push_back(arg.get());
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace sao::expr
