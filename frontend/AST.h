//===- AST.h - Syntax tree of the .pipe language ----------------*- C++ -*-===//
//
// What the parser builds and Sema annotates. Every node keeps the SMLoc of
// its first token; expressions use LLVM-style RTTI (a kind and classof).
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_FRONTEND_AST_H
#define PIPE_FRONTEND_AST_H

#include "core/DimExpr.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pipec {

/// One dim of a type: a literal size, a symbolic name, or a dim expression
/// of names (`H - 32`, `32 * ceil(H / 32)`), held as its canonical text
/// (core/DimExpr.h), so that equal sizes compare equal.
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
  /// For a weak integer: whether it involves a dim's size (known when the
  /// pipeline runs; alone it is i64, not i32).
  bool weakDim = false;
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
  enum class Kind { Number, Bool, Name, Unary, Binary, Call, List, Subscript };
  ExprAST(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
  virtual ~ExprAST() = default;
  Kind getKind() const { return kind; }
  llvm::SMLoc getLoc() const { return loc; }

  /// Set by Sema.
  ExprType type;
  /// Set by Sema where a function takes a size and this expression is one
  /// (an anchor `ceil(W / 3)`): the exact size, which MLIRGen emits
  /// instead of the expression's value (for `ceil( / )`, an f32's ceil).
  std::optional<pipert::DimExpr> size;
  /// Nodes on the longest path from here to a leaf, set by the parser,
  /// which bounds it (Parser::kMaxExprHeight) so that every recursive walk
  /// of the tree (Sema, MLIRGen, the destructor) stays within the stack.
  unsigned height = 1;

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
  /// For `a / b` of two integer literals folded to a float: a and b, so
  /// that ceil(a / b) and floor(a / b) are still exact sizes (a crop's
  /// shape, a slice's bound: docs/language.md, Dim expressions).
  std::optional<std::pair<int64_t, int64_t>> integerQuotient;
  /// Its value as a double (an integer past the i64s as the u64 it is).
  double asDouble() const {
    if (isFloat)
      return floatValue;
    return exceedsInt64 ? double(uint64_t(intValue)) : double(intValue);
  }
  /// An integer literal's exact value: above INT64_MAX when it exceeds it.
  __int128 exactValue() const {
    return exceedsInt64 ? __int128(uint64_t(intValue)) : __int128(intValue);
  }
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
  /// Set by Sema: the name is a dim's size used as a value (`W - 1`), not
  /// a binding.
  bool isDim = false;
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
  /// Set by Sema for gaussian_blur and pad: the border and its constant's
  /// value (crop's fill too).
  std::string border;
  double fill = 0;
  /// Set by Sema for the layout functions: sizes, as dim expressions'
  /// canonical text (core/DimExpr.h): a crop's `shape`; a pad's widths
  /// `before` and `after`; zeros/ones/full/iota's `shape`.
  std::vector<std::string> shape, before, after;
  /// Set by Sema: crop's out_of_bounds; the axis of concat, stack, take,
  /// iota; the number of erase's regions.
  std::string outOfBounds;
  int64_t axis = 0;
  int64_t regions = 0;
  /// Set by Sema for erase: the values its shape gives (one region's or
  /// every region's); for erase and crop, whether its anchor (and shape)
  /// tensors hold them in two dims, [..., regions, axes], rather than one.
  int64_t shapeValues = 0;
  bool anchorSplit = false, shapeSplit = false;
  /// Set by Sema for pad: widths known only with the dims, which must not
  /// be negative (checked when the pipeline runs).
  std::vector<std::string> dimChecks;
  /// Set by Sema for the window ops: the window's size along each axis.
  std::vector<int64_t> windowSizes;
  /// Set by Sema for warp_affine, rotate and resize: the interpolation
  /// (nearest, linear) and whether a resize antialiases; whether a
  /// resize's region of interest is in fractions of the image
  /// (relative_roi); random_resized_crop's ranges of area (a fraction of
  /// the image's) and aspect.
  std::string interp;
  bool antialias = false;
  bool relativeRoi = false;
  double cropScale[2] = {0.08, 1.0};
  double cropRatio[2] = {3.0 / 4.0, 4.0 / 3.0};
  /// Set by Sema for color_space_conversion: the image types (rgb, bgr,
  /// gray, ycbcr) it converts between.
  std::string fromColor, toColor;
  /// Set by Sema for the random sources: the op's own seed, if it has one.
  std::optional<uint64_t> seed;
  static bool classof(const ExprAST *e) { return e->getKind() == Kind::Call; }
};

/// One item of a subscript: an index `i` (the dim goes away) or a slice
/// `start:stop:step` (each part optional).
struct SliceAST {
  llvm::SMLoc loc;
  bool isIndex = false;
  ExprPtr start, stop, step;
};

/// `x[a:b:s, i, ...]`: NumPy's basic slicing, with sizes known from the
/// dims. Sema sets, per dim of the base: the first element, the step, and
/// whether the dim is dropped (an index); and the dim checks (dim
/// expressions that must not be negative) the runtime makes where the
/// sizes are only known then.
class SubscriptExprAST : public ExprAST {
public:
  SubscriptExprAST(llvm::SMLoc loc, ExprPtr base, std::vector<SliceAST> items)
      : ExprAST(Kind::Subscript, loc), base(std::move(base)),
        items(std::move(items)) {}
  ExprPtr base;
  std::vector<SliceAST> items;
  std::vector<std::string> starts;
  std::vector<int64_t> steps;
  std::vector<bool> dropped;
  std::vector<std::string> dimChecks;
  static bool classof(const ExprAST *e) {
    return e->getKind() == Kind::Subscript;
  }
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
  /// In an unrolled `for` body, the iteration this copy is ("i = 4", or
  /// "i = 1, j = 4" in nested loops, the outermost first): errors name it.
  std::string iteration = {};
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

/// Calls `fn(ExprPtr &)` on each operand of `expr` (its direct children:
/// a call's arguments and keyword values, a list's elements, a subscript's
/// base and slice parts), in source order.
template <typename Fn> void forEachOperand(ExprAST &expr, Fn &&fn) {
  if (auto *unary = llvm::dyn_cast<UnaryExprAST>(&expr)) {
    fn(unary->operand);
  } else if (auto *binary = llvm::dyn_cast<BinaryExprAST>(&expr)) {
    fn(binary->lhs);
    fn(binary->rhs);
  } else if (auto *call = llvm::dyn_cast<CallExprAST>(&expr)) {
    for (ExprPtr &arg : call->args)
      fn(arg);
    for (KeywordArgAST &kwarg : call->kwargs)
      fn(kwarg.value);
  } else if (auto *list = llvm::dyn_cast<ListExprAST>(&expr)) {
    for (ExprPtr &element : list->elements)
      fn(element);
  } else if (auto *subscript = llvm::dyn_cast<SubscriptExprAST>(&expr)) {
    fn(subscript->base);
    for (SliceAST &item : subscript->items)
      for (ExprPtr *part : {&item.start, &item.stop, &item.step})
        if (*part)
          fn(*part);
  }
}

/// Prints the tree (`pipec --emit=ast`), with Sema's types where known.
void dumpAST(const ModuleAST &module, llvm::raw_ostream &os);

} // namespace pipec

#endif // PIPE_FRONTEND_AST_H
