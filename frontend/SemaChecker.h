//===- SemaChecker.h - The checks of one pipeline, by topic -----*- C++ -*-===//
//
// Private to the frontend: Sema.cpp checks bindings, operators, promotion
// and broadcasting and dispatches calls; SemaFunctions.cpp checks the
// functions over values (elementwise functions, casts, reductions, blurs,
// transpose, reshape, copies); SemaLayout.cpp the layout functions and
// sizes (slicing, crop, flip, pad, take, concat, stack, erase, iota, zeros,
// full, dims as values); SemaLiterals.cpp folds arithmetic on literals
// before the checks. Which function a call names comes from the ODS
// records (dialect/PipeSource.td): a call to a function of op `X` is
// checked by check<X>Op.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_FRONTEND_SEMACHECKER_H
#define PIPE_FRONTEND_SEMACHECKER_H

#include "frontend/AST.h"

#include "core/DimExpr.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pipec {
namespace sema {

/// A dim of a type from a size: a literal, or a symbol (a name or a dim
/// expression's canonical text).
inline DimAST toDim(const pipert::DimExpr &size, llvm::SMLoc loc) {
  DimAST dim;
  dim.loc = loc;
  if (size.isConstant())
    dim.size = size.getConstant();
  else
    dim.symbol = size.str();
  return dim;
}

/// Replaces literal-only subtrees of `expr` by their folded value, bottom
/// up (SemaLiterals.cpp). Integer arithmetic that leaves the 64-bit
/// integers is an error with a caret; false after one.
/// With `literals`, a name bound to a number or list literal (after
/// folding: the map's) is first replaced by a copy of it at the use: such
/// a name is weakly typed as the literal is (docs/language.md, Literals),
/// and checked and converted as the literal would be where it is used.
bool foldLiteralTrees(
    std::unique_ptr<ExprAST> &expr, llvm::SourceMgr &sourceMgr,
    const llvm::StringMap<const ExprAST *> *literals = nullptr);

/// The value of a number literal as written (after literal folding), or
/// nullopt for anything else (SemaLiterals.cpp).
std::optional<double> literalValue(const ExprAST &expr);
/// The number literals of a parameter: itself, or a list literal's
/// elements (none for a tensor).
std::vector<const ExprAST *> literalsOf(const ExprAST &expr);
/// The shortest text that reads back as `value` (1.0000000001 stays so);
/// NaN as "nan", whatever its sign.
std::string formatNumber(double value);

/// The first `~` in a tree of literals, or null (SemaLiterals.cpp).
const UnaryExprAST *findLiteralBitNot(const ExprAST &expr);

/// Whether `expr` is number and list literals under unary and binary
/// operators alone (no names, dims or calls).
bool isLiteralTree(const ExprAST &expr);

/// The keyword argument `name` of `expr`, or null.
inline ExprAST *keyword(CallExprAST &expr, llvm::StringRef name) {
  for (KeywordArgAST &kwarg : expr.kwargs)
    if (kwarg.name == name)
      return kwarg.value.get();
  return nullptr;
}

/// Whether `type`'s dims are some of `input`'s first dims, before dim
/// `firstAxis`: a per-sample parameter's (or a scalar's).
bool isSamplePrefix(const ExprType &type, const ExprType &input,
                    int64_t firstAxis);

/// A type's dim as a size.
inline pipert::DimExpr fromDim(const DimAST &dim) {
  return dim.isSymbolic() ? *pipert::DimExpr::parse(dim.symbol)
                          : pipert::DimExpr::constant(dim.size);
}

using llvm::SMLoc;

/// What an operator or function does with its operands' dtype.
enum class Accepts {
  Numeric,       ///< not bool; result: the operand dtype
  FloatResult,   ///< integers and bool become f32 first
  IntegerOrBool, ///< & | ^ ~
  Integer,       ///< << >>
  Bool,          ///< && || !
  Any,           ///< == !=
};

/// Checks one pipeline. Errors are counted, not fatal: each statement is
/// checked even after an earlier one failed, so a user sees all of them.
class PipelineChecker {
public:
  PipelineChecker(PipelineAST &pipeline, llvm::SourceMgr &sourceMgr)
      : pipeline(pipeline), sourceMgr(sourceMgr) {}

  bool check();

private:
  bool error(SMLoc loc, const llvm::Twine &message) {
    // A `for` body is checked once per unrolled iteration: say each error
    // once, with the first iteration it is found in.
    if (reported.insert({loc.getPointer(), message.str()}).second)
      sourceMgr.PrintMessage(
          loc, llvm::SourceMgr::DK_Error,
          iteration.empty()
              ? message
              : message + " (in the loop's iteration with " + iteration + ")");
    ++numErrors;
    return false;
  }
  void note(SMLoc loc, const llvm::Twine &message) {
    sourceMgr.PrintMessage(loc, llvm::SourceMgr::DK_Note, message);
  }

  bool checkType(const TypeAST &type, llvm::StringRef what,
                 llvm::StringRef name);
  /// Checks `expr` and gives it its type; false after an error.
  bool checkExpr(ExprAST &expr);
  /// checkExpr's dispatch on the kind of expression.
  bool checkExprOfKind(ExprAST &expr);
  bool checkName(NameExprAST &expr);
  bool checkBinary(BinaryExprAST &expr);
  bool checkUnary(UnaryExprAST &expr);
  bool checkList(ListExprAST &expr);

  // Calls (Sema.cpp): which function a call names, its keywords, and the
  // elementwise functions and casts.
  bool checkCall(CallExprAST &expr);
  /// Every keyword argument is one of `keywords` (space-separated), once.
  bool checkKeywords(CallExprAST &expr, llvm::StringRef keywords);
  bool checkPositionalCount(CallExprAST &expr, unsigned positional,
                            llvm::StringRef keywords);
  bool checkElementwiseCall(CallExprAST &expr);

  // Functions over values (SemaFunctions.cpp), one per op (PIPE_FUNCTIONS).
  bool checkSelectOp(CallExprAST &expr) { return checkElementwiseCall(expr); }
  bool checkCopyOp(CallExprAST &expr);
  bool checkTransposeOp(CallExprAST &expr);
  bool checkReshapeOp(CallExprAST &expr);
  bool checkReduceOp(CallExprAST &expr);
  bool checkGaussianBlurOp(CallExprAST &expr);
  /// The second operand of transpose or reshape, positional or named
  /// `keyword`, with the first operand checked; null after an error.
  ExprAST *layoutOperand(CallExprAST &expr, llvm::StringRef keyword,
                         llvm::StringRef usage);
  /// `axes = [...]` of a call on `input`: integer literals, negative ones
  /// counting from the end, each dim once; sorted into `expr.axes`.
  bool checkAxes(CallExprAST &expr, ExprAST &list, const ExprType &input);
  /// The same, in the order written (for axes paired with sizes).
  std::optional<std::vector<int64_t>>
  axesInOrder(CallExprAST &expr, ExprAST &list, const ExprType &input);

  // Layout functions and sizes (SemaLayout.cpp).
  bool checkSubscript(SubscriptExprAST &expr);
  bool checkCropOp(CallExprAST &expr);
  bool checkFlipOp(CallExprAST &expr);
  bool checkPadOp(CallExprAST &expr);
  bool checkTakeOp(CallExprAST &expr);
  bool checkConcatOp(CallExprAST &expr);
  bool checkCoordinateOp(CallExprAST &expr);
  bool checkBroadcastOp(CallExprAST &expr);
  bool checkEraseOp(CallExprAST &expr);

  // Resampling (SemaResample.cpp).
  bool checkResampleOp(CallExprAST &expr);
  /// resize's roi_start, roi_end and relative_roi.
  bool checkResizeRoi(CallExprAST &expr, const ExprType &input);
  /// random_resized_crop's `name` = [lo, hi] into `range`.
  bool checkCropRange(CallExprAST &expr, llvm::StringRef name,
                      double range[2]);

  // Window ops: box_filter, erode, dilate, median, conv2d (SemaWindow.cpp).
  bool checkWindowOp(CallExprAST &expr);
  /// conv2d's kernel: rows of literals or a tensor [..., KH, KW], its
  /// sizes into expr.windowSizes.
  bool checkConvKernel(CallExprAST &expr, const ExprType &input);

  // Color functions (SemaColor.cpp).
  bool checkChannelMixOp(CallExprAST &expr);

  // Random sources (SemaRandom.cpp).
  bool checkRandomOp(CallExprAST &expr);
  /// A random call's `seed =`, into expr.seed.
  bool checkOwnSeed(CallExprAST &expr);
  /// Counts a random call (each its own stream); reports past the most.
  bool countRandomCall(CallExprAST &expr);
  /// The random calls checked so far; each gets a stream of its own
  /// (core/PipeRandom.h: 16 bits of the counter).
  int64_t randomOps = 0;
  static constexpr int64_t kMaxRandomOps = 65536;
  /// The size `expr` denotes when the dims alone make it (integer
  /// literals, dim names, + - * // %, ceil(a / b), floor(a / b), min,
  /// max); reports at `expr`, naming `what`, when it is not one.
  std::optional<pipert::DimExpr> sizeOf(ExprAST &expr, llvm::StringRef what);
  /// sizeOf without the check that its constants stayed in 64 bits.
  std::optional<pipert::DimExpr> sizeTerm(ExprAST &expr, llvm::StringRef what);
  /// A list literal of sizes (or one size).
  std::optional<std::vector<pipert::DimExpr>> sizesOf(ExprAST &expr,
                                                      llvm::StringRef what);
  /// Whether `expr` is a size known from the dims (without reporting).
  bool isSize(ExprAST &expr);
  /// The operands of a node of a size expression (none for a leaf).
  std::vector<ExprAST *> sizeOperands(ExprAST &expr);
  /// A layout function's axes: `axes` when given, else the `count` dims
  /// after the first (or the first `count` when there are no more): in
  /// written order.
  std::optional<std::vector<int64_t>>
  layoutAxes(CallExprAST &expr, ExprAST *axes, const ExprType &input,
             size_t count);
  /// A per-sample parameter of a layout function on `input` whose first
  /// laid-out axis is `firstAxis`: a size known from the dims (integers),
  /// or a tensor of `dtype` kind ("integer", "bool", "number") of rank 0
  /// or with `input`'s leading dims before `firstAxis`.
  bool checkSampleParam(ExprAST &param, const ExprType &input,
                        int64_t firstAxis, llvm::StringRef kind,
                        llvm::StringRef what);
  /// A tensor parameter whose last dim holds `count` values per sample (or
  /// whose last two dims are [count / per, per]: read so when `preferTwo`,
  /// or when only that reading's leading dims are the samples'); `*split`
  /// says which (the two dims) when given.
  bool checkSampleTensor(ExprAST &param, const ExprType &input,
                         int64_t firstAxis, int64_t count, int64_t per,
                         llvm::StringRef what, bool preferTwo = false,
                         bool *split = nullptr);
  /// A list of `count` per-sample values (checkSampleParam), or one tensor
  /// of them (checkSampleTensor); the number of values a list or tensor
  /// gives when `count` is 0 (any multiple of `per`). `*split`: whether a
  /// tensor holds them in two dims, [..., count / per, per].
  std::optional<int64_t> checkSampleValues(ExprAST &param,
                                           const ExprType &input,
                                           int64_t firstAxis, int64_t count,
                                           int64_t per, llvm::StringRef what,
                                           bool *split = nullptr);
  /// `dtype = <name>`: the dtype it names, or nullopt after an error.
  std::optional<std::string> dtypeArgument(ExprAST &value);
  /// The dtype `expr`'s `dtype =` names, any but bool, or `fallback`
  /// without one; nullopt after an error.
  std::optional<std::string> numberDType(CallExprAST &expr,
                                         const std::string &fallback);
  /// Types `expr`, an image op computing in `input`'s dtype, as a tensor
  /// of `dims` in the number dtype its `dtype =` names (the input's
  /// without one); false after an error.
  bool setNumberResult(CallExprAST &expr, const ExprType &input,
                       std::vector<DimAST> dims);

  /// The dtype `operands` are converted to for `what` (promotion, weak
  /// literals), checked against `accepts`; reports and returns nullopt if
  /// there is none. `operandDType` gets the dtype the op computes in.
  std::optional<std::string> operandDType(llvm::ArrayRef<ExprAST *> operands,
                                          Accepts accepts, SMLoc loc,
                                          const std::string &what);
  /// The broadcast dims of `operands` (NumPy rules over symbolic dims).
  /// A mismatch is reported as `what` having operands that do not
  /// broadcast, or with `mismatch` (followed by the two dims) when given.
  std::optional<std::vector<DimAST>>
  broadcastDims(llvm::ArrayRef<ExprAST *> operands, SMLoc loc,
                const std::string &what, const std::string &mismatch = "");
  /// Whether the weak literal `literal` can take `dtype`; reports if not.
  bool checkLiteralFits(const ExprAST &literal, llvm::StringRef dtype);
  /// Gives `binding`'s weakly typed value (a literal or a tree of them) the
  /// type `as`, and `type` too, where its literals fit `as`'s dtype; false
  /// after saying which does not.
  bool literalTakes(BindingAST &binding, const ExprType &as, ExprType &type);

  PipelineAST &pipeline;
  llvm::SourceMgr &sourceMgr;
  unsigned numErrors = 0;
  std::set<std::pair<const char *, std::string>> reported;
  /// The unrolled `for` iteration of the binding being checked, or empty.
  std::string iteration;

  struct Binding {
    SMLoc loc;
    ExprType type;
    /// Its expression had an error: uses of it report nothing more.
    bool poisoned = false;
  };
  llvm::StringMap<Binding> bindings;
  /// Versions of results that an `if` or a `for` updates, bound to a
  /// scalar literal and given the result's dtype (check()): a loop may
  /// still make them a tensor, as it could the literal.
  llvm::StringSet<> scalarLiteralVersions;
  /// Dims that parameters bind at run time.
  llvm::StringSet<> knownDims;
};


} // namespace sema
} // namespace pipec

#endif // PIPE_FRONTEND_SEMACHECKER_H
