//===- SemaFunctions.cpp - Checking calls of functions over values --------===//
//
// The arguments every structured function's call is checked for (its
// keywords, how many positional arguments); transpose and reshape,
// reductions and gaussian_blur: their arguments, axes and keyword
// arguments, and the type of their result.
//
//===----------------------------------------------------------------------===//

#include "frontend/Sema.h"
#include "frontend/SemaChecker.h"

#include "core/PipeScalar.h" // PIPE_HD, which PipeStencil.h uses
#include "core/PipeStencil.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Casting.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>

using namespace pipec;
using namespace pipec::sema;

/// The keywords of a function's declaration ("axes keepdims dtype"),
/// listed for a message: "axes, keepdims, dtype" (each followed by
/// `suffix`).
static std::string listKeywords(llvm::StringRef keywords,
                                llvm::StringRef suffix = "") {
  std::string list;
  for (llvm::StringRef keyword : llvm::split(keywords, ' '))
    if (!keyword.empty())
      list += (list.empty() ? "" : ", ") + keyword.str() + suffix.str();
  return list;
}

bool PipelineChecker::checkKeywords(CallExprAST &expr,
                                    llvm::StringRef keywords) {
  llvm::SmallVector<llvm::StringRef> known;
  keywords.split(known, ' ', -1, /*KeepEmpty=*/false);
  std::set<std::string> seen;
  for (KeywordArgAST &kwarg : expr.kwargs) {
    if (!llvm::is_contained(known, kwarg.name)) {
      std::string list = listKeywords(keywords);
      return error(kwarg.loc, "'" + expr.callee +
                                  "' takes no keyword argument '" +
                                  kwarg.name + "'" +
                                  (list.empty() ? "" : " (it takes " + list +
                                                           ")"));
    }
    if (!seen.insert(kwarg.name).second)
      return error(kwarg.loc, "keyword argument '" + kwarg.name +
                                  "' is given twice");
  }
  return true;
}

/// After an op's own checks, which say more where they look: no
/// positional argument past those the function takes is dropped unread.
bool PipelineChecker::checkPositionalCount(CallExprAST &expr,
                                           unsigned positional,
                                           llvm::StringRef keywords) {
  size_t count = expr.args.size();
  if (count <= positional)
    return true;
  std::string list = listKeywords(keywords, " =");
  return error(expr.args[positional]->getLoc(),
               "'" + expr.callee + "' takes " +
                   (positional == 0 ? std::string("no positional argument")
                                    : std::to_string(positional) +
                                          " positional argument" +
                                          (positional == 1 ? "" : "s")) +
                   ", got " + std::to_string(count) +
                   (list.empty() ? "" : " (its keywords: " + list + ")"));
}

ExprAST *PipelineChecker::layoutOperand(CallExprAST &expr,
                                        llvm::StringRef keyword,
                                        llvm::StringRef usage) {
  // f(x, operand) or f(x, keyword = operand)
  ExprAST *operand = expr.args.size() == 2 ? expr.args[1].get() : nullptr;
  for (KeywordArgAST &kwarg : expr.kwargs) {
    if (kwarg.name != keyword) {
      error(kwarg.loc, "'" + expr.callee + "' takes no keyword argument '" +
                           kwarg.name + "'");
      return nullptr;
    }
    operand = kwarg.value.get();
  }
  if (expr.args.empty() || !operand ||
      expr.args.size() + expr.kwargs.size() != 2) {
    error(expr.getLoc(), usage);
    return nullptr;
  }
  if (!checkExpr(*expr.args[0]))
    return nullptr;
  return operand;
}

bool PipelineChecker::checkTransposeOp(CallExprAST &expr) {
  ExprAST *perm = layoutOperand(expr, "perm",
                                "'transpose' takes a tensor and a permutation, "
                                "e.g. transpose(x, [0, 3, 1, 2])");
  if (!perm)
    return false;
  const ExprType &input = expr.args[0]->type;
  auto *list = llvm::dyn_cast<ListExprAST>(perm);
  std::vector<int64_t> permutation;
  int64_t rank = int64_t(input.dims.size());
  if (list)
    for (ExprPtr &element : list->elements)
      if (auto *number = llvm::dyn_cast<NumberExprAST>(element.get());
          number && !number->isFloat && !number->exceedsInt64) {
        // A negative axis counts from the end, as NumPy's (and as the
        // reductions' axes do).
        int64_t axis = number->intValue;
        permutation.push_back(axis < 0 && axis >= -rank ? axis + rank : axis);
      }
  std::vector<int64_t> sorted = permutation;
  std::sort(sorted.begin(), sorted.end());
  bool isPermutation = list && permutation.size() == list->elements.size() &&
                       permutation.size() == input.dims.size();
  for (size_t i = 0; isPermutation && i < sorted.size(); ++i)
    isPermutation = sorted[i] == int64_t(i);
  if (!isPermutation)
    return error(perm->getLoc(),
                 "the permutation of 'transpose' must list each dim of " +
                     input.str() + " once, as integer literals 0 to " +
                     std::to_string(rank - 1) + " (or -" +
                     std::to_string(rank) + " to -1 from the end)");
  if (input.isWeakLiteral())
    return error(expr.args[0]->getLoc(), "transpose a tensor, not a literal");
  expr.permutation = permutation;
  std::vector<DimAST> dims;
  for (int64_t p : permutation)
    dims.push_back(input.dims[p]);
  expr.type = ExprType{input.dtype, dims};
  return true;
}

bool PipelineChecker::checkReshapeOp(CallExprAST &expr) {
  // The dims are literals or known dim names.
  ExprAST *shape = layoutOperand(expr, "shape",
                                 "'reshape' takes a tensor and a shape, e.g. "
                                 "reshape(x, [N, 3, H, W])");
  if (!shape)
    return false;
  const ExprType &input = expr.args[0]->type;
  if (input.isWeakLiteral())
    return error(expr.args[0]->getLoc(), "reshape a tensor, not a literal");
  auto *list = llvm::dyn_cast<ListExprAST>(shape);
  if (!list)
    return error(shape->getLoc(), "the shape of 'reshape' must be a list of "
                                  "dims, e.g. [N, 3, H, W]");
  // Each dim is a size the dims make (a literal, a name, an expression
  // such as H * W), and the element count must provably stay.
  std::vector<DimAST> dims;
  pipert::DimExpr count = pipert::DimExpr::constant(1),
                  inputCount = pipert::DimExpr::constant(1);
  for (ExprPtr &element : list->elements) {
    std::optional<pipert::DimExpr> size =
        sizeOf(*element, "a dim of 'reshape'");
    if (!size)
      return false;
    if (size->isAlwaysNegative())
      return error(element->getLoc(), "a dim of 'reshape' cannot be negative");
    dims.push_back(toDim(*size, element->getLoc()));
    count = count * *size;
  }
  for (const DimAST &dim : input.dims)
    inputCount = inputCount * fromDim(dim);
  if (count != inputCount) {
    ExprType target{input.dtype, dims};
    return error(expr.getLoc(), "'reshape' of " + input.str() + " to " +
                                    target.str() +
                                    " does not keep the number of elements");
  }
  expr.type = ExprType{input.dtype, dims};
  return true;
}

bool PipelineChecker::checkAxes(CallExprAST &expr, ExprAST &value,
                                const ExprType &input) {
  std::optional<std::vector<int64_t>> axes = axesInOrder(expr, value, input);
  if (!axes)
    return false;
  std::sort(axes->begin(), axes->end());
  expr.axes = *axes;
  return true;
}

std::optional<std::vector<int64_t>>
PipelineChecker::axesInOrder(CallExprAST &expr, ExprAST &value,
                             const ExprType &input) {
  int64_t rank = int64_t(input.dims.size());
  std::vector<ExprAST *> elements;
  if (auto *list = llvm::dyn_cast<ListExprAST>(&value)) {
    for (ExprPtr &element : list->elements)
      elements.push_back(element.get());
  } else {
    elements.push_back(&value);
  }
  std::vector<int64_t> axes;
  for (ExprAST *element : elements) {
    auto *number = llvm::dyn_cast<NumberExprAST>(element);
    if (!number || number->isFloat) {
      // The example in the keyword written: take, concat, stack and iota
      // take one `axis`, the others `axes`.
      bool one = llvm::any_of(expr.kwargs, [&](const KeywordArgAST &kwarg) {
        return kwarg.value.get() == &value && kwarg.name == "axis";
      });
      error(element->getLoc(),
            "an axis of '" + expr.callee + "' is an integer literal, e.g. " +
                (one ? "axis = 1" : "axes = [1, 2]"));
      return std::nullopt;
    }
    int64_t axis = number->intValue < 0 ? number->intValue + rank
                                        : number->intValue;
    if (axis < 0 || axis >= rank) {
      error(element->getLoc(), "axis " + std::to_string(number->intValue) +
                                   " is out of range for " + input.str() +
                                   " (rank " + std::to_string(rank) + ")");
      return std::nullopt;
    }
    if (llvm::is_contained(axes, axis)) {
      error(element->getLoc(),
            "axis " + std::to_string(axis) + " is listed twice");
      return std::nullopt;
    }
    axes.push_back(axis);
  }
  if (axes.empty()) {
    error(value.getLoc(), "'" + expr.callee + "' needs at least one axis");
    return std::nullopt;
  }
  return axes;
}

std::optional<std::string> PipelineChecker::dtypeArgument(ExprAST &value) {
  auto *name = llvm::dyn_cast<NameExprAST>(&value);
  if (!name || !isDType(name->name)) {
    error(value.getLoc(), std::string("dtype = names a dtype (") +
                              getDTypeList() + ")");
    return std::nullopt;
  }
  return name->name;
}

std::optional<std::string>
PipelineChecker::numberDType(CallExprAST &expr, const std::string &fallback) {
  ExprAST *value = keyword(expr, "dtype");
  if (!value)
    return fallback;
  std::optional<std::string> requested = dtypeArgument(*value);
  if (requested && *requested == "bool") {
    error(value->getLoc(), "'" + expr.callee + "' gives numbers, not bool");
    return std::nullopt;
  }
  return requested;
}

bool PipelineChecker::setNumberResult(CallExprAST &expr,
                                      const ExprType &input,
                                      std::vector<DimAST> dims) {
  std::optional<std::string> dtype = numberDType(expr, input.dtype);
  if (!dtype)
    return false;
  expr.operandDType = input.dtype;
  expr.type = ExprType{*dtype, std::move(dims)};
  return true;
}

bool PipelineChecker::checkReduceOp(CallExprAST &expr) {
  const std::string &kind = expr.callee;
  if (expr.args.size() != 1)
    return error(expr.getLoc(), "'" + kind + "' reduces one tensor, e.g. " +
                                    kind + "(x, axes = [1, 2])");
  if (!checkExpr(*expr.args[0]))
    return false;
  const ExprType &input = expr.args[0]->type;
  if (input.isWeakLiteral())
    return error(expr.args[0]->getLoc(), "'" + kind +
                                             "' reduces a tensor, not a "
                                             "literal");
  if (input.dims.empty())
    return error(expr.args[0]->getLoc(),
                 "'" + kind + "' reduces a tensor of rank 1 or more, not " +
                     input.str());
  bool numeric = kind != "any" && kind != "all";
  // sum, prod and mean count bools as 0 and 1 (as NumPy); min and max take
  // numbers.
  if (numeric && input.dtype == "bool" &&
      (kind == "min" || kind == "max"))
    return error(expr.args[0]->getLoc(),
                 "'" + kind + "' of bool is not defined; use any/all, or "
                 "convert first, e.g. u8(x)");
  std::optional<std::string> requested;
  bool hasAxes = false;
  for (KeywordArgAST &kwarg : expr.kwargs) {
    if (kwarg.name == "axes") {
      if (!checkAxes(expr, *kwarg.value, input))
        return false;
      hasAxes = true;
    } else if (kwarg.name == "keepdims") {
      auto *value = llvm::dyn_cast<BoolExprAST>(kwarg.value.get());
      if (!value)
        return error(kwarg.value->getLoc(), "keepdims is true or false");
      expr.keepdims = value->value;
    } else if (kwarg.name == "dtype" && kind != "any" && kind != "all") {
      requested = dtypeArgument(*kwarg.value);
      if (!requested)
        return false;
      if (kind == "mean" && !isFloatDType(*requested))
        return error(kwarg.value->getLoc(),
                     "'mean' gives a float dtype (f16 bf16 f32 f64), not " +
                         *requested);
    } else {
      return error(kwarg.loc, "'" + kind + "' takes no keyword argument '" +
                                  kwarg.name + "' (it takes axes, keepdims" +
                                  (numeric ? ", dtype" : "") + ")");
    }
  }
  if (!hasAxes)
    for (int64_t d = 0; d < int64_t(input.dims.size()); ++d)
      expr.axes.push_back(d);
  std::vector<DimAST> dims;
  for (int64_t d = 0; d < int64_t(input.dims.size()); ++d) {
    if (!llvm::is_contained(expr.axes, d)) {
      dims.push_back(input.dims[d]);
    } else if (expr.keepdims) {
      DimAST one;
      one.loc = input.dims[d].loc;
      one.size = 1;
      dims.push_back(one);
    }
  }
  expr.operandDType = input.dtype;
  expr.type = ExprType{requested ? *requested
                                 : getReductionDType(kind, input.dtype),
                       dims};
  return true;
}

/// A number literal as a person would write it: 4, -1, 2.5.
static std::string describeNumber(const NumberExprAST &number) {
  if (!number.isFloat)
    return number.exceedsInt64 ? std::to_string(uint64_t(number.intValue))
                               : std::to_string(number.intValue);
  char text[32];
  snprintf(text, sizeof text, "%g", number.floatValue);
  return text;
}

bool PipelineChecker::checkGaussianBlurOp(CallExprAST &expr) {
  if (expr.args.size() != 1)
    return error(expr.getLoc(), "'gaussian_blur' blurs one tensor, e.g. "
                                "gaussian_blur(x, window = 5, axes = [1, 2])");
  if (!checkExpr(*expr.args[0]))
    return false;
  const ExprType &input = expr.args[0]->type;
  if (input.isWeakLiteral() || input.dims.empty())
    return error(expr.args[0]->getLoc(), "'gaussian_blur' blurs a tensor of "
                                         "rank 1 or more");
  if (input.dtype == "bool")
    return error(expr.args[0]->getLoc(), "'gaussian_blur' of bool is not "
                                         "defined; convert first, e.g. u8(x)");
  ExprAST *window = nullptr, *sigma = nullptr;
  bool hasAxes = false;
  std::optional<std::string> requested;
  SMLoc fillLoc;
  expr.border = "reflect101";
  for (KeywordArgAST &kwarg : expr.kwargs) {
    ExprAST &value = *kwarg.value;
    if (kwarg.name == "window") {
      window = &value;
    } else if (kwarg.name == "sigma") {
      sigma = &value;
    } else if (kwarg.name == "axes") {
      if (!checkAxes(expr, value, input))
        return false;
      hasAxes = true;
    } else if (kwarg.name == "border") {
      auto *name = llvm::dyn_cast<NameExprAST>(&value);
      if (!name || (name->name != "reflect101" && name->name != "clamp" &&
                    name->name != "constant" && name->name != "wrap"))
        return error(value.getLoc(), "border is one of reflect101, clamp, "
                                     "constant, wrap");
      expr.border = name->name;
    } else if (kwarg.name == "fill") {
      // Finite, as the window filters' fill: inf or NaN entering the sums
      // would make every edge element inf or NaN.
      auto *number = llvm::dyn_cast<NumberExprAST>(&value);
      if (!number || !std::isfinite(number->asDouble()))
        return error(value.getLoc(),
                     "the fill of 'gaussian_blur' is a finite number literal");
      // The blur computes in f32: a fill past its range would be inf.
      if (std::fabs(number->asDouble()) >
          double(std::numeric_limits<float>::max()))
        return error(value.getLoc(),
                     "the fill of 'gaussian_blur' is past f32's range (its "
                     "largest is about 3.4e38): the blur computes in f32");
      expr.fill = number->asDouble();
      fillLoc = kwarg.loc;
    } else if (kwarg.name == "dtype") {
      requested = dtypeArgument(value);
      if (!requested)
        return false;
      if (*requested == "bool")
        return error(value.getLoc(), "'gaussian_blur' cannot give bool");
    } else {
      return error(kwarg.loc, "'gaussian_blur' takes no keyword argument '" +
                                  kwarg.name +
                                  "' (it takes window, sigma, axes, border, "
                                  "fill, dtype)");
    }
  }
  if (fillLoc.isValid() && expr.border != "constant")
    return error(fillLoc, "fill applies only with border = constant");
  int64_t rank = int64_t(input.dims.size());
  if (!hasAxes)
    for (int64_t d = rank > 1 ? 1 : 0; d < rank; ++d)
      expr.axes.push_back(d);
  if (!window && !sigma)
    return error(expr.getLoc(), "'gaussian_blur' needs a window, a sigma, or "
                                "both, e.g. window = 5");
  // A literal is checked here; a tensor has the input's leading dims (one
  // value per sample) or none, and is checked when the pipeline runs.
  auto checkParam = [&](ExprAST *param, bool isWindow) -> bool {
    if (!param)
      return true;
    const char *what = isWindow ? "window" : "sigma";
    if (auto *number = llvm::dyn_cast<NumberExprAST>(param)) {
      param->type = ExprType{};
      param->type.weakFloat = number->isFloat;
      double v = number->asDouble();
      if (isWindow && number->isFloat)
        return error(param->getLoc(), "the window of 'gaussian_blur' is an "
                                      "odd positive integer, not the float " +
                                          describeNumber(*number));
      __int128 taps = isWindow ? number->exactValue() : 0;
      if (isWindow && (taps < 1 || taps % 2 == 0))
        return error(param->getLoc(), "the window of 'gaussian_blur' is an "
                                      "odd positive integer, not " +
                                          describeNumber(*number));
      // (The rule below, pipe_blur_resolve's, takes an i64.)
      if (isWindow && taps > 16777217)
        return error(param->getLoc(),
                     "the window of 'gaussian_blur' is at most 2^24 + 1 "
                     "(16777217) taps, not " + describeNumber(*number));
      if (!isWindow && !(v > 0))
        return error(param->getLoc(), "the sigma of 'gaussian_blur' must be "
                                      "positive");
      // The blur takes sigma as an f32 (the run would refuse it).
      if (!isWindow && !(float(v) > 0))
        return error(param->getLoc(),
                     "the sigma of 'gaussian_blur' is taken as an f32, where " +
                         describeNumber(*number) +
                         " rounds to 0: it must be positive there");
      return true;
    }
    if (!checkExpr(*param))
      return false;
    const ExprType &type = param->type;
    // A dim's value (`W | 1`, `W / 10`) or an expression of numbers: one
    // value, computed when the pipeline runs (MLIRGen emits it as i32 or
    // f32) and checked there, as a scalar tensor is.
    if (type.isWeakLiteral() && !type.dims.empty())
      return error(param->getLoc(), std::string("the ") + what +
                                        " is a number or a tensor, not a "
                                        "list");
    if (type.isWeakLiteral())
      return !(isWindow && type.weakFloat) ||
             error(param->getLoc(), "the window of 'gaussian_blur' is an "
                                    "integer, not a float value (convert it "
                                    "with i32(...))");
    if (isWindow ? !isIntegerDType(type.dtype)
                 : !(isFloatDType(type.dtype) || isIntegerDType(type.dtype)))
      return error(param->getLoc(),
                   std::string("the ") + what + " of 'gaussian_blur' is " +
                       (isWindow ? "an integer" : "a number") + ", not " +
                       type.dtype);
    bool prefix = type.dims.size() <= size_t(expr.axes.front());
    for (size_t d = 0; prefix && d < type.dims.size(); ++d)
      prefix = type.dims[d] == input.dims[d];
    if (!prefix)
      return error(param->getLoc(),
                   std::string("the ") + what + " " + type.str() +
                       " must be a scalar or have the leading dims of " +
                       input.str() + " before the first blurred axis (one " +
                       what + " per sample)");
    return true;
  };
  if (!checkParam(window, true) || !checkParam(sigma, false))
    return false;
  // The most taps a blur takes (2^24 + 1), for literals here, by the rule
  // the run applies (pipe_blur_resolve); tensors are checked when the run
  // reads them, as their other rules are. A window, when given, decides.
  static_assert(PIPE_BLUR_MAX_RADIUS == 1 << 23,
                "the messages below say 2^24 + 1 taps");
  auto *windowLiteral = llvm::dyn_cast_or_null<NumberExprAST>(window);
  auto *sigmaLiteral = llvm::dyn_cast_or_null<NumberExprAST>(sigma);
  if (windowLiteral || (!window && sigmaLiteral)) {
    pipe_blur_params taps = pipe_blur_resolve(
        window != nullptr, windowLiteral ? windowLiteral->intValue : 1,
        sigma != nullptr, sigmaLiteral ? sigmaLiteral->asDouble() : 1.0);
    if (taps.error == PIPE_BLUR_TOO_LARGE && windowLiteral)
      return error(window->getLoc(),
                   "the window of 'gaussian_blur' is at most 2^24 + 1 "
                   "(16777217) taps, not " + describeNumber(*windowLiteral));
    if (taps.error == PIPE_BLUR_TOO_LARGE)
      return error(sigma->getLoc(),
                   "sigma " + describeNumber(*sigmaLiteral) +
                       " would need a window of more than 2^24 + 1 "
                       "(16777217) taps: 'gaussian_blur' takes sigma up to "
                       "2^23 / 3 without a window");
  }
  expr.operandDType = input.dtype;
  expr.type = ExprType{requested ? *requested : input.dtype, input.dims};
  return true;
}

bool PipelineChecker::checkCopyOp(CallExprAST &expr) {
  // x.cpu() / x.gpu(): an explicit copy; the placement pass keeps it or says
  // why it is not needed.
  const std::string &callee = expr.callee;
  if (expr.args.size() != 1 || !expr.kwargs.empty())
    return error(expr.getLoc(), "'" + callee + "' moves one tensor, e.g. x." +
                                    callee + "()");
  if (!checkExpr(*expr.args[0]))
    return false;
  // (`true.cpu()`, `(1 > 0).cpu()` and `(true & false).cpu()` too: they
  // are bool, not weak, and were accepted where `4.cpu()` was not.)
  std::function<bool(const ExprAST &)> literalOnly = [&](const ExprAST &e) {
    if (llvm::isa<BoolExprAST>(e) || isLiteralTree(e))
      return true;
    if (const auto *unary = llvm::dyn_cast<UnaryExprAST>(&e))
      return literalOnly(*unary->operand);
    if (const auto *binary = llvm::dyn_cast<BinaryExprAST>(&e))
      return literalOnly(*binary->lhs) && literalOnly(*binary->rhs);
    return false;
  };
  const ExprAST &moved = *expr.args[0];
  if (moved.type.isWeakLiteral() || literalOnly(moved))
    return error(moved.getLoc(),
                 "'" + callee + "' moves a tensor, not a literal");
  expr.type = expr.args[0]->type;
  return true;
}
