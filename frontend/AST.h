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
  std::string dtype; ///< Empty for a weak literal.
  std::vector<DimAST> dims;
  bool isWeakLiteral() const { return dtype.empty(); }
  std::string str() const;
};

class ExprAST {
public:
  enum class Kind { Number, Name, Unary, Binary, Call };
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

class NameExprAST : public ExprAST {
public:
  NameExprAST(llvm::SMLoc loc, std::string name)
      : ExprAST(Kind::Name, loc), name(std::move(name)) {}
  std::string name;
  static bool classof(const ExprAST *e) { return e->getKind() == Kind::Name; }
};

class UnaryExprAST : public ExprAST {
public:
  UnaryExprAST(llvm::SMLoc loc, char op, ExprPtr operand)
      : ExprAST(Kind::Unary, loc), op(op), operand(std::move(operand)) {}
  char op;
  ExprPtr operand;
  static bool classof(const ExprAST *e) { return e->getKind() == Kind::Unary; }
};

class BinaryExprAST : public ExprAST {
public:
  BinaryExprAST(llvm::SMLoc loc, char op, ExprPtr lhs, ExprPtr rhs)
      : ExprAST(Kind::Binary, loc), op(op), lhs(std::move(lhs)),
        rhs(std::move(rhs)) {}
  char op; ///< One of + - * /.
  ExprPtr lhs, rhs;
  /// Set by Sema: the dtype both operands are converted to before the op
  /// (integer operands of `/` become f32).
  std::string operandDType;
  static bool classof(const ExprAST *e) { return e->getKind() == Kind::Binary; }
};

/// `f(args..., key = value, ...)`. Casts are calls named after a dtype.
class CallExprAST : public ExprAST {
public:
  CallExprAST(llvm::SMLoc loc, std::string callee, std::vector<ExprPtr> args)
      : ExprAST(Kind::Call, loc), callee(std::move(callee)),
        args(std::move(args)) {}
  std::string callee;
  std::vector<ExprPtr> args;
  static bool classof(const ExprAST *e) { return e->getKind() == Kind::Call; }
};

/// `name = expr`.
struct BindingAST {
  llvm::SMLoc loc;
  std::string name;
  ExprPtr value;
};

/// A parameter or a result: `name: type`.
struct ValueDeclAST {
  llvm::SMLoc loc;
  std::string name;
  TypeAST type;
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
