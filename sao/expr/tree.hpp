// The internal trees of the expression language, shared by its three stages (parse.cpp,
// bind.cpp, evaluate.cpp): parse trees (Ast) and bound programs (a list of Node).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sao/expr/expression.hpp"

namespace sao::expr {

// Deepest nesting the parser and the binder accept.
inline constexpr int kMaxDepth = 200;
// Parse trees are walked recursively (printing, binding, evaluation, destruction), and a flat
// sum of n terms is a tree of depth n: the number of nodes is capped so that no walk can
// exhaust the stack.
inline constexpr int kMaxNodes = 5000;

inline std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

// A node of a parse tree: what was written, names not yet resolved.
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

// The operation of a program node.
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
  kHic,    // head injury criterion of history a over the grid arrays_[index], window b
  kClip,   // the level history a exceeds for a cumulative duration b (3 ms criterion)
};

// The built-in functions of one or two arguments (the reductions are operations).
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

// One node of a bound program: an operation on earlier nodes, with the shape and degree of
// its value.
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

}  // namespace sao::expr
