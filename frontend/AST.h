//===- AST.h - Syntax tree of the .pipe language ----------------*- C++ -*-===//
//
// What the parser builds and Sema annotates. Every node keeps the SMLoc of
// its first token; expressions use LLVM-style RTTI (a kind and classof).
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_FRONTEND_AST_H
#define PIPE_FRONTEND_AST_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pipec {

/// One dim of a type: a literal size or a symbolic name.
struct DimAST {
  llvm::SMLoc loc;
  std::string symbol; ///< Empty for a literal dim.
  int64_t size = 0;   ///< The literal's value when `symbol` is empty.
  bool isSymbolic() const { return !symbol.empty(); }
  bool operator==(const DimAST &other) const {
    return symbol == other.symbol && (isSymbolic() || size == other.size);
  }
  std::string str() const { return isSymbolic() ? symbol : std::to_string(size); }
};

/// `u8[N, H, W]`, or `f32` for a scalar (rank 0).
struct TypeAST {
  llvm::SMLoc loc;
  std::string dtype;
  std::vector<DimAST> dims;
};

/// The type Sema gives an expression: a dtype and dims, or a weakly typed
/// literal that takes its dtype from the other operand (as in JAX).
struct ExprType {
  std::string dtype; ///< Empty for a weak literal (a number or a list).
  std::vector<DimAST> dims;
  /// For a weak literal: whether it holds a float (else only integers).
  bool weakFloat = false;
  bool isWeakLiteral() const { return dtype.empty(); }
  std::string str() const;
};

enum class BinaryOp {
  Add, Sub, Mul, Div, FloorDiv, Rem, Pow,
  Eq, Ne, Lt, Le, Gt, Ge,
  BitAnd, BitOr, BitXor, Shl, Shr,
  LogicalAnd, LogicalOr,
};
enum class UnaryOp { Neg, LogicalNot, BitNot };

/// The operator as written: "+", "//", "&&", ...
const char *getSpelling(BinaryOp op);
const char *getSpelling(UnaryOp op);

class ExprAST {
public:
  enum class Kind { Number, Bool, Name, Unary, Binary, Call, List };
  ExprAST(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
  virtual ~ExprAST() = default;
  Kind getKind() const { return kind; }
  llvm::SMLoc getLoc() const { return loc; }

  /// Set by Sema.
  ExprType type;

private:
  Kind kind;
  llvm::SMLoc loc;
};

using ExprPtr = std::unique_ptr<ExprAST>;

/// A numeric literal. After Sema, `isFloat` and the value hold the literal's
/// folded value (literal arithmetic is folded at compile time).
class NumberExprAST : public ExprAST {
public:
  NumberExprAST(llvm::SMLoc loc, bool isFloat, int64_t intValue,
                double floatValue, bool exceedsInt64 = false)
      : ExprAST(Kind::Number, loc), isFloat(isFloat), intValue(intValue),
        floatValue(floatValue), exceedsInt64(exceedsInt64) {}
  bool isFloat;
  /// The value's 64 bits; above INT64_MAX (only a u64 can hold it) when
  /// `exceedsInt64` is set.
  int64_t intValue;
  double floatValue;
  bool exceedsInt64;
  static bool classof(const ExprAST *e) { return e->getKind() == Kind::Number; }
};

/// `true` or `false`: a bool scalar.
class BoolExprAST : public ExprAST {
public:
  BoolExprAST(llvm::SMLoc loc, bool value)
      : ExprAST(Kind::Bool, loc), value(value) {}
  bool value;
  static bool classof(const ExprAST *e) { return e->getKind() == Kind::Bool; }
};

class NameExprAST : public ExprAST {
public:
  NameExprAST(llvm::SMLoc loc, std::string name)
      : ExprAST(Kind::Name, loc), name(std::move(name)) {}
  std::string name;
  static bool classof(const ExprAST *e) { return e->getKind() == Kind::Name; }
};

class UnaryExprAST : public ExprAST {
public:
  UnaryExprAST(llvm::SMLoc loc, UnaryOp op, ExprPtr operand)
      : ExprAST(Kind::Unary, loc), op(op), operand(std::move(operand)) {}
  UnaryOp op;
  ExprPtr operand;
  static bool classof(const ExprAST *e) { return e->getKind() == Kind::Unary; }
};

class BinaryExprAST : public ExprAST {
public:
  BinaryExprAST(llvm::SMLoc loc, BinaryOp op, ExprPtr lhs, ExprPtr rhs)
      : ExprAST(Kind::Binary, loc), op(op), lhs(std::move(lhs)),
        rhs(std::move(rhs)) {}
  BinaryOp op;
  ExprPtr lhs, rhs;
  /// Set by Sema: the dtype both operands are converted to before the op
  /// (the promoted dtype; f32 for integer operands of '/').
  std::string operandDType;
  static bool classof(const ExprAST *e) { return e->getKind() == Kind::Binary; }
};

/// A keyword argument `key = value`.
struct KeywordArgAST {
  llvm::SMLoc loc;
  std::string name;
  ExprPtr value;
};

/// `f(args..., key = value, ...)`. Casts are calls named after a dtype.
class CallExprAST : public ExprAST {
public:
  CallExprAST(llvm::SMLoc loc, std::string callee, std::vector<ExprPtr> args,
              std::vector<KeywordArgAST> kwargs)
      : ExprAST(Kind::Call, loc), callee(std::move(callee)),
        args(std::move(args)), kwargs(std::move(kwargs)) {}
  std::string callee;
  std::vector<ExprPtr> args;
  std::vector<KeywordArgAST> kwargs;
  /// Set by Sema: the dtype the arguments are converted to (for functions
  /// over promoted operands, like max or select's values).
  std::string operandDType;
  /// Set by Sema for transpose: result dim d is operand dim permutation[d].
  std::vector<int64_t> permutation;
  /// Set by Sema for reductions and gaussian_blur: the axes, increasing.
  std::vector<int64_t> axes;
  /// Set by Sema for reductions.
  bool keepdims = false;
  /// For the select the parser makes of a name a `for` body updates: the
  /// name. Sema requires the update to keep the value's dtype and dims.
  std::string loopCarried;
  /// For every select the parser makes to merge an `if`'s branches or a
  /// `for` iteration's update, what it merges ("'x' after the if"):
  /// `pipe-host-control` may decide it on the host.
  std::string versionMerge;
  /// Set by Sema for gaussian_blur: the border and its constant's value.
  std::string border;
  double fill = 0;
  static bool classof(const ExprAST *e) { return e->getKind() == Kind::Call; }
};

/// `[e0, e1, ...]`: a small constant tensor of literals.
class ListExprAST : public ExprAST {
public:
  ListExprAST(llvm::SMLoc loc, std::vector<ExprPtr> elements)
      : ExprAST(Kind::List, loc), elements(std::move(elements)) {}
  std::vector<ExprPtr> elements;
  static bool classof(const ExprAST *e) { return e->getKind() == Kind::List; }
};

/// `name = expr`.
struct BindingAST {
  llvm::SMLoc loc;
  std::string name;
  ExprPtr value;
};

/// A parameter or a result: `name: type`, optionally `@host` or `@device`
/// (where the caller's memory must be).
struct ValueDeclAST {
  llvm::SMLoc loc;
  std::string name;
  TypeAST type;
  std::string memory; ///< "", "host" or "device".
  llvm::SMLoc memoryLoc;
};

struct PipelineAST {
  llvm::SMLoc loc;
  std::string name;
  std::vector<ValueDeclAST> params;
  std::vector<ValueDeclAST> results;
  std::vector<BindingAST> body;
};

struct ModuleAST {
  std::vector<PipelineAST> pipelines;
};

/// Prints the tree (`pipec --emit=ast`), with Sema's types where known.
void dumpAST(const ModuleAST &module, llvm::raw_ostream &os);

} // namespace pipec

#endif // PIPE_FRONTEND_AST_H
