//===- SemaLayout.cpp - Checking slicing and the layout functions ---------===//
//
// Slicing (`x[a:b:s, i]`), crop, flip, pad, take, concat, stack, erase,
// iota, zeros, ones, full: their arguments, and the sizes of their results,
// which are dim expressions (core/DimExpr.h) where the dims are symbolic.
// Where a size depends on the dims only known when the pipeline runs, a
// condition it needs (a slice inside its dim) becomes a dim check the
// runtime makes (SubscriptExprAST::dimChecks).
//
//===----------------------------------------------------------------------===//

#include "frontend/Sema.h"
#include "frontend/SemaChecker.h"

#include "llvm/Support/Casting.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace pipec;
using namespace pipec::sema;
using pipert::DimExpr;

namespace {

/// The elements of a list literal, or the expression alone.
std::vector<ExprAST *> elementsOf(ExprAST &expr) {
  std::vector<ExprAST *> elements;
  if (auto *list = llvm::dyn_cast<ListExprAST>(&expr))
    for (ExprPtr &element : list->elements)
      elements.push_back(element.get());
  else
    elements.push_back(&expr);
  return elements;
}

} // namespace

//===----------------------------------------------------------------------===//
// Sizes
//===----------------------------------------------------------------------===//

bool PipelineChecker::isSize(ExprAST &expr) {
  if (auto *number = llvm::dyn_cast<NumberExprAST>(&expr))
    return !number->isFloat && !number->exceedsInt64;
  if (auto *name = llvm::dyn_cast<NameExprAST>(&expr))
    return knownDims.contains(name->name);
  if (auto *unary = llvm::dyn_cast<UnaryExprAST>(&expr))
    return unary->op == UnaryOp::Neg && isSize(*unary->operand);
  if (auto *binary = llvm::dyn_cast<BinaryExprAST>(&expr)) {
    switch (binary->op) {
    case BinaryOp::Add:
    case BinaryOp::Sub:
    case BinaryOp::Mul:
    case BinaryOp::FloorDiv:
    case BinaryOp::Rem:
      return isSize(*binary->lhs) && isSize(*binary->rhs);
    default:
      return false;
    }
  }
  if (auto *call = llvm::dyn_cast<CallExprAST>(&expr)) {
    if (!call->kwargs.empty())
      return false;
    if ((call->callee == "ceil" || call->callee == "floor") &&
        call->args.size() == 1) {
      if (auto *div = llvm::dyn_cast<BinaryExprAST>(call->args[0].get()))
        return div->op == BinaryOp::Div && isSize(*div->lhs) &&
               isSize(*div->rhs);
      // ceil(37 / 32): the quotient of literals was folded.
      if (auto *number = llvm::dyn_cast<NumberExprAST>(call->args[0].get()))
        return number->integerQuotient.has_value();
    }
    if ((call->callee == "min" || call->callee == "max") &&
        call->args.size() == 2)
      return isSize(*call->args[0]) && isSize(*call->args[1]);
  }
  return false;
}

std::optional<DimExpr> PipelineChecker::sizeOf(ExprAST &expr,
                                               llvm::StringRef what) {
  std::optional<DimExpr> size = sizeTerm(expr, what);
  if (size && size->tooLarge()) {
    error(expr.getLoc(), what + " has more than " +
                             std::to_string(DimExpr::kMaxTerms) +
                             " terms once its products are multiplied out");
    return std::nullopt;
  }
  if (size && size->overflows()) {
    error(expr.getLoc(), what + " passes the 64-bit integers in its "
                                "constant arithmetic");
    return std::nullopt;
  }
  if (size && size->depth() > DimExpr::kMaxDepth) {
    error(expr.getLoc(), what + " is no size: " + pipert::describeTooDeep());
    return std::nullopt;
  }
  return size;
}

std::optional<DimExpr> PipelineChecker::sizeTerm(ExprAST &expr,
                                                 llvm::StringRef what) {
  if (!isSize(expr)) {
    // A literal past the i64s (perhaps folded: 2**62 * 2) is no size.
    if (auto *number = llvm::dyn_cast<NumberExprAST>(&expr);
        number && number->exceedsInt64 && !number->isFloat) {
      error(expr.getLoc(), what + " " +
                               std::to_string(uint64_t(number->intValue)) +
                               " passes the 64-bit signed integers");
      return std::nullopt;
    }
    // A name that is no dim is the likely slip: say so at the name.
    if (auto *name = llvm::dyn_cast<NameExprAST>(&expr)) {
      if (!name->isDim && !knownDims.contains(name->name)) {
        // A name an `if` or a `for` rebinds is versioned as name@k
        // (Parser::parseFor): named as written.
        llvm::StringRef written = llvm::StringRef(name->name).split('@').first;
        error(expr.getLoc(), "'" + written + "' is not a dim of any " +
                                 "parameter (" + what +
                                 " is a size known from the dims)");
        return std::nullopt;
      }
    }
    for (ExprAST *part : sizeOperands(expr))
      if (!isSize(*part))
        return sizeTerm(*part, what);
    error(expr.getLoc(),
          what + " is a size known from the dims: integer literals and dim "
                 "names with + - * // %, ceil(a / b), floor(a / b), min, max");
    return std::nullopt;
  }
  if (auto *number = llvm::dyn_cast<NumberExprAST>(&expr))
    return DimExpr::constant(number->intValue);
  if (auto *name = llvm::dyn_cast<NameExprAST>(&expr))
    return DimExpr::symbol(name->name);
  if (auto *unary = llvm::dyn_cast<UnaryExprAST>(&expr)) {
    std::optional<DimExpr> a = sizeTerm(*unary->operand, what);
    if (!a)
      return std::nullopt;
    return DimExpr::constant(0) - *a;
  }
  // Two operands: of a binary operator, of ceil(a / b) or floor(a / b), of
  // min or max.
  ExprAST *lhs, *rhs;
  auto *binary = llvm::dyn_cast<BinaryExprAST>(&expr);
  auto *call = llvm::dyn_cast<CallExprAST>(&expr);
  bool rounded = call && (call->callee == "ceil" || call->callee == "floor");
  if (binary) {
    lhs = binary->lhs.get();
    rhs = binary->rhs.get();
  } else if (rounded) {
    if (auto *number = llvm::dyn_cast<NumberExprAST>(call->args[0].get())) {
      auto [n, d] = *number->integerQuotient;
      if (d == 0) {
        error(number->getLoc(), what + " divides by zero");
        return std::nullopt;
      }
      DimExpr a = DimExpr::constant(n), b = DimExpr::constant(d);
      return call->callee == "ceil" ? DimExpr::ceilDiv(a, b)
                                    : DimExpr::floorDiv(a, b);
    }
    auto &div = llvm::cast<BinaryExprAST>(*call->args[0]);
    lhs = div.lhs.get();
    rhs = div.rhs.get();
  } else {
    lhs = call->args[0].get();
    rhs = call->args[1].get();
  }
  std::optional<DimExpr> a = sizeTerm(*lhs, what);
  if (!a)
    return std::nullopt;
  std::optional<DimExpr> b = sizeTerm(*rhs, what);
  if (!b)
    return std::nullopt;
  bool divides = rounded || (binary && (binary->op == BinaryOp::FloorDiv ||
                                        binary->op == BinaryOp::Rem));
  if (divides && b->isConstant() && b->getConstant() == 0) {
    error(rhs->getLoc(), what + " divides by zero");
    return std::nullopt;
  }
  if (binary) {
    switch (binary->op) {
    case BinaryOp::Add: return *a + *b;
    case BinaryOp::Sub: return *a - *b;
    case BinaryOp::Mul: return *a * *b;
    case BinaryOp::FloorDiv: return DimExpr::floorDiv(*a, *b);
    default: return DimExpr::mod(*a, *b);
    }
  }
  if (rounded)
    return call->callee == "ceil" ? DimExpr::ceilDiv(*a, *b)
                                  : DimExpr::floorDiv(*a, *b);
  return call->callee == "min" ? DimExpr::min(*a, *b) : DimExpr::max(*a, *b);
}

/// The operands of a size expression's node (none for a leaf).
std::vector<ExprAST *> PipelineChecker::sizeOperands(ExprAST &expr) {
  if (auto *unary = llvm::dyn_cast<UnaryExprAST>(&expr))
    return {unary->operand.get()};
  if (auto *binary = llvm::dyn_cast<BinaryExprAST>(&expr))
    return {binary->lhs.get(), binary->rhs.get()};
  if (auto *call = llvm::dyn_cast<CallExprAST>(&expr)) {
    if ((call->callee == "ceil" || call->callee == "floor") &&
        call->args.size() == 1)
      if (auto *div = llvm::dyn_cast<BinaryExprAST>(call->args[0].get());
          div && div->op == BinaryOp::Div)
        return {div->lhs.get(), div->rhs.get()};
    if ((call->callee == "min" || call->callee == "max") &&
        call->args.size() == 2)
      return {call->args[0].get(), call->args[1].get()};
  }
  return {};
}

std::optional<std::vector<DimExpr>>
PipelineChecker::sizesOf(ExprAST &expr, llvm::StringRef what) {
  std::vector<DimExpr> sizes;
  for (ExprAST *element : elementsOf(expr)) {
    std::optional<DimExpr> size = sizeOf(*element, what);
    if (!size)
      return std::nullopt;
    sizes.push_back(*size);
  }
  if (sizes.empty()) {
    error(expr.getLoc(), what + " needs at least one size");
    return std::nullopt;
  }
  return sizes;
}

std::optional<std::vector<int64_t>>
PipelineChecker::layoutAxes(CallExprAST &expr, ExprAST *axes,
                            const ExprType &input, size_t count) {
  size_t rank = input.dims.size();
  if (axes) {
    std::optional<std::vector<int64_t>> given =
        axesInOrder(expr, *axes, input);
    if (given && count && given->size() != count) {
      error(axes->getLoc(), "'" + expr.callee + "' has " +
                                std::to_string(count) + " sizes but " +
                                std::to_string(given->size()) + " axes");
      return std::nullopt;
    }
    return given;
  }
  // The dims after the first (the samples'), or all of them.
  size_t first = rank > count ? 1 : 0;
  if (count > rank) {
    error(expr.getLoc(), "'" + expr.callee + "' has " + std::to_string(count) +
                             " sizes, but " + input.str() + " has " +
                             std::to_string(rank) + " dims");
    return std::nullopt;
  }
  if (count == 0 || first + count > rank) {
    error(expr.getLoc(), "'" + expr.callee + "' of " + input.str() +
                             " needs axes = [...]");
    return std::nullopt;
  }
  std::vector<int64_t> result;
  for (size_t d = first; d < first + count; ++d)
    result.push_back(int64_t(d));
  return result;
}

//===----------------------------------------------------------------------===//
// Slicing
//===----------------------------------------------------------------------===//

bool PipelineChecker::checkSubscript(SubscriptExprAST &expr) {
  if (!checkExpr(*expr.base))
    return false;
  const ExprType &input = expr.base->type;
  if (input.isWeakLiteral())
    return error(expr.base->getLoc(), "slice a tensor, not a literal");
  size_t rank = input.dims.size();
  if (expr.items.size() > rank)
    return error(expr.getLoc(), "too many indices: " +
                                    std::to_string(expr.items.size()) +
                                    " for " + input.str());
  std::vector<DimAST> dims;
  // A condition the slice needs (`value` >= 0): checked here when it is a
  // constant, else by the runtime (sizes alone are never negative).
  auto require = [&](const DimExpr &value, SMLoc loc,
                     const std::string &message) {
    if (value.isConstant() || value.isAlwaysNegative()) {
      // (`x[:, 2 * W]`: W - 1 - 2 * W is negative whatever W is.)
      if (value.isAlwaysNegative())
        return error(loc, message);
      return true;
    }
    if (!value.isSymbol() &&
        !llvm::is_contained(expr.dimChecks, value.str()))
      expr.dimChecks.push_back(value.str());
    return true;
  };
  for (size_t d = 0; d < rank; ++d) {
    DimExpr size = fromDim(input.dims[d]);
    bool known = size.isConstant();
    int64_t n = known ? size.getConstant() : 0;
    if (d >= expr.items.size()) {
      expr.starts.push_back("0");
      expr.steps.push_back(1);
      expr.dropped.push_back(false);
      dims.push_back(input.dims[d]);
      continue;
    }
    SliceAST &item = expr.items[d];
    std::string where = "dim " + std::to_string(d) + " of " + input.str();
    // A negative literal counts from the end, as in Python.
    auto bound = [&](ExprAST &part) -> std::optional<DimExpr> {
      std::optional<DimExpr> value = sizeOf(part, "an index or slice bound");
      // -2^63 counts back further than any dim is long, and from a dim
      // known only when the pipeline runs its distance to the end (2^63)
      // would pass the 64-bit integers. (A literal dim clamps it, as
      // Python does.)
      if (!known && value && value->isConstant() &&
          value->getConstant() == INT64_MIN) {
        error(part.getLoc(), "-9223372036854775808 (-2^63) counts back past "
                             "the start of " + where + ", whatever its size");
        return std::nullopt;
      }
      if (value && value->isConstant() && value->getConstant() < 0)
        return size + *value;
      return value;
    };
    if (item.isIndex) {
      std::optional<DimExpr> index = bound(*item.start);
      if (!index)
        return false;
      if (!require(*index, item.loc, "index is before the start of " + where) ||
          !require(size - DimExpr::constant(1) - *index, item.loc,
                   "index is past the end of " + where))
        return false;
      expr.starts.push_back(index->str());
      expr.steps.push_back(1);
      expr.dropped.push_back(true);
      continue;
    }
    int64_t step = 1;
    if (item.step) {
      auto *number = llvm::dyn_cast<NumberExprAST>(item.step.get());
      if (!number || number->isFloat || number->intValue == 0)
        return error(item.step->getLoc(),
                     "a slice's step is a nonzero integer literal");
      // A step of 2^63 or more in magnitude takes what a step of 2^63 - 1
      // does (the first element: no dim is longer), and negates within
      // the 64-bit integers.
      step = number->exceedsInt64 ? INT64_MAX
             : number->intValue == INT64_MIN ? -INT64_MAX
                                              : number->intValue;
    }
    std::optional<DimExpr> start, stop;
    if (item.start && !(start = bound(*item.start)))
      return false;
    if (item.stop && !(stop = bound(*item.stop)))
      return false;
    DimExpr length;
    if (known && (!start || start->isConstant()) &&
        (!stop || stop->isConstant())) {
      // Python's slice.indices: bounds clamp to the dim.
      // (The counts in 128 bits: a step near 2^63 would pass 64.)
      int64_t lo, hi;
      if (step > 0) {
        lo = start ? std::clamp<int64_t>(start->getConstant(), 0, n) : 0;
        hi = stop ? std::clamp<int64_t>(stop->getConstant(), 0, n) : n;
        length = DimExpr::constant(int64_t(std::max<__int128>(
            0, (__int128(hi) - lo + step - 1) / step)));
      } else {
        lo = start ? std::clamp<int64_t>(start->getConstant(), -1, n - 1)
                   : n - 1;
        hi = stop ? std::clamp<int64_t>(stop->getConstant(), -1, n - 1) : -1;
        length = DimExpr::constant(int64_t(std::max<__int128>(
            0, (__int128(lo) - hi - __int128(step) - 1) / -__int128(step))));
      }
      start = DimExpr::constant(lo);
    } else if (step > 0) {
      // Bounds known only with the dims must lie inside it (checked when
      // the pipeline runs).
      if (!start)
        start = DimExpr::constant(0);
      if (!stop)
        stop = size;
      if (!require(*start, item.loc, "slice starts before " + where) ||
          !require(*stop - *start, item.loc,
                   "slice ends before it starts, in " + where) ||
          !require(size - *stop, item.loc, "slice ends past " + where))
        return false;
      length = DimExpr::ceilDiv(*stop - *start, DimExpr::constant(step));
    } else {
      if (!start)
        start = size - DimExpr::constant(1);
      DimExpr end = stop ? *stop : DimExpr::constant(-1);
      if (!require(size - DimExpr::constant(1) - *start, item.loc,
                   "slice starts past " + where) ||
          !require(*start - end, item.loc,
                   "slice ends after it starts, in " + where) ||
          !require(end + DimExpr::constant(1), item.loc,
                   "slice ends before the start of " + where))
        return false;
      length = DimExpr::ceilDiv(*start - end, DimExpr::constant(-step));
    }
    expr.starts.push_back(start->str());
    expr.steps.push_back(step);
    expr.dropped.push_back(false);
    dims.push_back(toDim(length, item.loc));
  }
  expr.type = ExprType{input.dtype, dims};
  return true;
}

//===----------------------------------------------------------------------===//
// crop, flip, pad, take
//===----------------------------------------------------------------------===//

/// How far a window passes its dim, `room` being negative whatever the
/// sizes: "3 whatever its size", "W + 1, whatever the dims' sizes".
static std::string describeShortfall(const DimExpr &room) {
  if (room.isConstant())
    return std::to_string(-room.getConstant()) + " whatever its size";
  return (DimExpr() - room).str() + ", whatever the dims' sizes";
}

bool PipelineChecker::checkCropOp(CallExprAST &expr) {
  if (expr.args.size() != 1)
    return error(expr.getLoc(), "'crop' crops one tensor, e.g. crop(x, "
                                "anchor = [y, x], shape = [224, 224])");
  if (!checkExpr(*expr.args[0]))
    return false;
  const ExprType &input = expr.args[0]->type;
  if (input.isWeakLiteral() || input.dims.empty())
    return error(expr.args[0]->getLoc(), "'crop' crops a tensor of rank 1 or "
                                         "more");
  ExprAST *shape = keyword(expr, "shape");
  if (!shape)
    return error(expr.getLoc(), "'crop' needs the window's shape = [...]");
  std::optional<std::vector<DimExpr>> sizes = sizesOf(*shape, "a crop's shape");
  if (!sizes)
    return false;
  std::optional<std::vector<int64_t>> axes =
      layoutAxes(expr, keyword(expr, "axes"), input, sizes->size());
  if (!axes)
    return false;
  int64_t firstAxis = *std::min_element(axes->begin(), axes->end());
  expr.outOfBounds = "error";
  if (ExprAST *mode = keyword(expr, "out_of_bounds")) {
    auto *name = llvm::dyn_cast<NameExprAST>(mode);
    if (!name || (name->name != "error" && name->name != "pad" &&
                  name->name != "clamp"))
      return error(mode->getLoc(), "out_of_bounds is one of error, pad, clamp");
    expr.outOfBounds = name->name;
  }
  if (ExprAST *fill = keyword(expr, "fill")) {
    auto *number = llvm::dyn_cast<NumberExprAST>(fill);
    if (!number)
      return error(fill->getLoc(), "fill is a number literal");
    if (expr.outOfBounds != "pad")
      return error(fill->getLoc(), "fill applies only with out_of_bounds = pad");
    expr.fill = number->asDouble();
  }
  // With clamp, a dim empty in its type has nothing to clamp to (the run
  // says so for one it finds empty): unless the result is empty whatever
  // the sizes (a window or another dim of literal 0); a window of sizes
  // only the run knows is the run's to check.
  auto emptyResult = [&] {
    for (size_t d = 0; d < input.dims.size(); ++d) {
      auto at = std::find(axes->begin(), axes->end(), int64_t(d));
      DimExpr size = at == axes->end() ? fromDim(input.dims[d])
                                       : (*sizes)[at - axes->begin()];
      if (size.isConstant() && size.getConstant() == 0)
        return true;
    }
    return false;
  };
  if (expr.outOfBounds == "clamp" && !emptyResult())
    for (size_t j = 0; j < axes->size(); ++j) {
      DimExpr dim = fromDim(input.dims[(*axes)[j]]);
      DimExpr window = (*sizes)[j];
      if (!dim.isConstant() || dim.getConstant() != 0 || !window.isConstant())
        continue;
      return error(keyword(expr, "out_of_bounds")->getLoc(),
                   "'crop' cannot clamp a window of " + window.str() +
                       " to dim " + std::to_string((*axes)[j]) + " of " +
                       input.str() +
                       ": the dim is empty, there is nothing to clamp to "
                       "(out_of_bounds = pad fills it)");
    }
  // A window larger than its dim whatever the sizes leaves the sample at
  // every anchor, the centred one included (with out_of_bounds = error).
  if (expr.outOfBounds == "error")
    for (size_t j = 0; j < axes->size(); ++j) {
      DimExpr dim = fromDim(input.dims[(*axes)[j]]);
      DimExpr room = dim - (*sizes)[j];
      if (!room.isAlwaysNegative())
        continue;
      auto *list = llvm::dyn_cast<ListExprAST>(shape);
      ExprAST &at = list && j < list->elements.size() ? *list->elements[j]
                                                      : *shape;
      return error(at.getLoc(),
                   "the window of " + (*sizes)[j].str() + " is larger than "
                   "dim " + std::to_string((*axes)[j]) + " (" + dim.str() +
                   ") by " + describeShortfall(room) +
                   "; out_of_bounds = pad or clamp lets it leave the sample");
    }
  // Without an anchor the window is centred: (size - window) // 2.
  if (ExprAST *anchor = keyword(expr, "anchor")) {
    if (!checkSampleValues(*anchor, input, firstAxis, int64_t(sizes->size()), 1,
                           "a crop's anchor", &expr.anchorSplit))
      return false;
    // Anchors known from the dims whose window leaves the sample whatever
    // the sizes (with out_of_bounds = error): the program's mistake.
    auto *list = llvm::dyn_cast<ListExprAST>(anchor);
    if (list && expr.outOfBounds == "error")
      for (size_t j = 0; j < list->elements.size() && j < axes->size(); ++j) {
        // (checkSampleValues found each size: ExprAST::size.)
        ExprAST &element = *list->elements[j];
        if (!element.size)
          continue;
        DimExpr at = *element.size;
        DimExpr dim = fromDim(input.dims[(*axes)[j]]);
        DimExpr room = dim - (*sizes)[j] - at;
        if (at.isAlwaysNegative())
          return error(element.getLoc(), "a crop's anchor cannot be negative");
        if (room.isAlwaysNegative())
          return error(element.getLoc(),
                       "this anchor puts the window of " + (*sizes)[j].str() +
                           " past the end of dim " +
                           std::to_string((*axes)[j]) + " (" + dim.str() +
                           ") by " + describeShortfall(room));
      }
  }
  std::vector<DimAST> dims = input.dims;
  for (size_t j = 0; j < axes->size(); ++j) {
    if ((*sizes)[j].isAlwaysNegative())
      return error(shape->getLoc(), "a crop's shape cannot be negative");
    dims[(*axes)[j]] = toDim((*sizes)[j], shape->getLoc());
    expr.shape.push_back((*sizes)[j].str());
  }
  expr.axes = *axes;
  expr.type = ExprType{input.dtype, dims};
  return true;
}

bool PipelineChecker::checkFlipOp(CallExprAST &expr) {
  if (expr.args.size() != 1)
    return error(expr.getLoc(), "'flip' flips one tensor, e.g. flip(x, axes "
                                "= [2])");
  if (!checkExpr(*expr.args[0]))
    return false;
  const ExprType &input = expr.args[0]->type;
  if (input.isWeakLiteral() || input.dims.empty())
    return error(expr.args[0]->getLoc(), "'flip' flips a tensor of rank 1 or "
                                         "more");
  ExprAST *axes = keyword(expr, "axes");
  if (!axes)
    return error(expr.getLoc(), "'flip' needs axes, e.g. axes = [2] to mirror "
                                "the W of [N, H, W, C]");
  if (!checkAxes(expr, *axes, input))
    return false;
  if (ExprAST *when = keyword(expr, "when"))
    if (!checkSampleParam(*when, input, expr.axes.front(), "bool",
                          "a flip's when"))
      return false;
  expr.type = input;
  return true;
}

bool PipelineChecker::checkPadOp(CallExprAST &expr) {
  if (expr.args.size() != 1)
    return error(expr.getLoc(), "'pad' pads one tensor, e.g. pad(x, after = "
                                "[1, 1])");
  if (!checkExpr(*expr.args[0]))
    return false;
  const ExprType &input = expr.args[0]->type;
  if (input.isWeakLiteral() || input.dims.empty())
    return error(expr.args[0]->getLoc(), "'pad' pads a tensor of rank 1 or "
                                         "more");
  ExprAST *before = keyword(expr, "before"), *after = keyword(expr, "after"),
          *shape = keyword(expr, "shape");
  if (shape && after)
    return error(shape->getLoc(), "'pad' takes shape or after, not both");
  if (!before && !after && !shape)
    return error(expr.getLoc(), "'pad' needs before = [...], after = [...] or "
                                "shape = [...]");
  std::optional<std::vector<DimExpr>> lo, hi, extent;
  if (before && !(lo = sizesOf(*before, "a pad's before")))
    return false;
  if (after && !(hi = sizesOf(*after, "a pad's after")))
    return false;
  if (shape && !(extent = sizesOf(*shape, "a pad's shape")))
    return false;
  size_t count = lo ? lo->size() : hi ? hi->size() : extent->size();
  for (auto *sizes : {&lo, &hi, &extent})
    if (*sizes && (*sizes)->size() != count)
      return error(expr.getLoc(), "'pad' has lists of different lengths");
  std::optional<std::vector<int64_t>> axes =
      layoutAxes(expr, keyword(expr, "axes"), input, count);
  if (!axes)
    return false;
  expr.border = "constant";
  if (ExprAST *border = keyword(expr, "border")) {
    auto *name = llvm::dyn_cast<NameExprAST>(border);
    if (!name || (name->name != "reflect101" && name->name != "clamp" &&
                  name->name != "constant" && name->name != "wrap"))
      return error(border->getLoc(), "border is one of constant, reflect101, "
                                     "clamp, wrap");
    expr.border = name->name;
  }
  if (ExprAST *fill = keyword(expr, "fill")) {
    auto *number = llvm::dyn_cast<NumberExprAST>(fill);
    if (!number)
      return error(fill->getLoc(), "fill is a number literal");
    if (expr.border != "constant")
      return error(fill->getLoc(), "fill applies only with border = constant");
    expr.fill = number->asDouble();
  }
  std::vector<DimAST> dims = input.dims;
  for (size_t j = 0; j < count; ++j) {
    int64_t axis = (*axes)[j];
    DimExpr size = fromDim(input.dims[axis]);
    DimExpr b = lo ? (*lo)[j] : DimExpr::constant(0);
    DimExpr a = hi ? (*hi)[j] : extent ? (*extent)[j] - size - b
                                       : DimExpr::constant(0);
    for (const DimExpr &width : {a, b})
      if (width.isAlwaysNegative())
        return error(expr.getLoc(), "'pad' would shrink dim " +
                                        std::to_string(axis) + " of " +
                                        input.str() + "; crop it instead");
    // np.pad refuses it too; border = constant pads an empty dim with fill.
    if (size.isConstant() && size.getConstant() == 0 &&
        expr.border != "constant" && !(a.isConstant() && b.isConstant() &&
                                       a.getConstant() + b.getConstant() == 0))
      return error(expr.getLoc(), "'pad' cannot grow dim " +
                                      std::to_string(axis) + " of " +
                                      input.str() + " with border = " +
                                      expr.border +
                                      ": the dim is empty, there is nothing "
                                      "to repeat (border = constant fills it)");
    // A width only known from the dims must not be negative (checked when
    // the pipeline runs).
    for (const DimExpr &width : {a, b})
      if (!width.isConstant() && !width.isSymbol())
        expr.dimChecks.push_back(width.str());
    DimExpr grown = size + b + a;
    if (grown.overflows())
      return error(expr.getLoc(), "'pad' would grow dim " +
                                      std::to_string(axis) + " of " +
                                      input.str() +
                                      " past the 64-bit integers");
    expr.before.push_back(b.str());
    expr.after.push_back(a.str());
    dims[axis] = toDim(grown, expr.getLoc());
  }
  expr.axes = *axes;
  expr.type = ExprType{input.dtype, dims};
  return true;
}

bool PipelineChecker::checkTakeOp(CallExprAST &expr) {
  if (expr.args.size() != 2)
    return error(expr.getLoc(), "'" + expr.callee + "' takes a tensor and "
                                "its indices, e.g. take(x, perm, axis = 0)");
  bool ok = checkExpr(*expr.args[0]);
  ok &= checkExpr(*expr.args[1]);
  if (!ok)
    return false;
  const ExprType &input = expr.args[0]->type, &indices = expr.args[1]->type;
  if (input.isWeakLiteral() || input.dims.empty())
    return error(expr.args[0]->getLoc(), "'" + expr.callee + "' reads a "
                                         "tensor of rank 1 or more");
  if (indices.isWeakLiteral() || !isIntegerDType(indices.dtype))
    return error(expr.args[1]->getLoc(), "the indices of '" + expr.callee +
                                             "' are an integer tensor, not " +
                                             indices.str());
  expr.axis = 0;
  if (ExprAST *axis = keyword(expr, "axis")) {
    std::optional<std::vector<int64_t>> axes = axesInOrder(expr, *axis, input);
    if (!axes)
      return false;
    if (axes->size() != 1)
      return error(axis->getLoc(), "'" + expr.callee + "' takes one axis");
    expr.axis = axes->front();
  }
  std::vector<DimAST> dims(input.dims.begin(), input.dims.begin() + expr.axis);
  dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
  dims.insert(dims.end(), input.dims.begin() + expr.axis + 1,
              input.dims.end());
  expr.type = ExprType{input.dtype, dims};
  return true;
}

//===----------------------------------------------------------------------===//
// concat, stack
//===----------------------------------------------------------------------===//

bool PipelineChecker::checkConcatOp(CallExprAST &expr) {
  bool stack = expr.callee == "stack";
  auto *list = expr.args.size() == 1
                   ? llvm::dyn_cast<ListExprAST>(expr.args[0].get())
                   : nullptr;
  if (!list || list->elements.empty())
    return error(expr.getLoc(), "'" + expr.callee + "' takes a list of "
                                "tensors, e.g. " + expr.callee +
                                "([a, b], axis = 0)");
  bool ok = true;
  for (ExprPtr &element : list->elements)
    ok &= checkExpr(*element);
  if (!ok)
    return false;
  std::vector<ExprAST *> parts;
  for (ExprPtr &element : list->elements) {
    if (element->type.isWeakLiteral())
      return error(element->getLoc(), "'" + expr.callee +
                                          "' joins tensors, not literals");
    parts.push_back(element.get());
  }
  const ExprType &first = parts.front()->type;
  int64_t rank = int64_t(first.dims.size());
  // The axis, from the end when negative; stack's may be one past the last.
  int64_t limit = stack ? rank + 1 : rank;
  expr.axis = 0;
  if (ExprAST *axis = keyword(expr, "axis")) {
    auto *number = llvm::dyn_cast<NumberExprAST>(axis);
    if (!number || number->isFloat)
      return error(axis->getLoc(), "the axis of '" + expr.callee +
                                       "' is an integer literal");
    int64_t value = number->intValue < 0 ? number->intValue + limit
                                         : number->intValue;
    if (value < 0 || value >= limit)
      return error(axis->getLoc(), "axis " +
                                       std::to_string(number->intValue) +
                                       " is out of range for " + first.str());
    expr.axis = value;
  }
  if (!stack && rank == 0)
    return error(parts.front()->getLoc(), "'concat' joins tensors of rank 1 "
                                          "or more; stack scalars");
  // One dtype (promoted, as NumPy), equal dims but along the axis.
  std::optional<std::string> dtype = operandDType(
      parts, Accepts::Any, expr.getLoc(), "'" + expr.callee + "'");
  if (!dtype)
    return false;
  expr.operandDType = *dtype;
  DimExpr along = DimExpr::constant(0);
  for (ExprAST *part : parts) {
    const ExprType &type = part->type;
    bool same = int64_t(type.dims.size()) == rank;
    for (int64_t d = 0; same && d < rank; ++d)
      same = (!stack && d == expr.axis) || type.dims[d] == first.dims[d];
    if (!same)
      return error(part->getLoc(),
                   "'" + expr.callee + "' needs " +
                       (stack ? "equal shapes" : "equal dims but along axis " +
                                                     std::to_string(expr.axis)) +
                       ": " + first.str() + " and " + type.str());
    if (!stack)
      along = along + fromDim(type.dims[expr.axis]);
  }
  std::vector<DimAST> dims = first.dims;
  if (stack) {
    DimAST count;
    count.loc = expr.getLoc();
    count.size = int64_t(parts.size());
    dims.insert(dims.begin() + expr.axis, count);
  } else {
    if (along.overflows())
      return error(expr.getLoc(), "'concat' would make dim " +
                                      std::to_string(expr.axis) +
                                      " pass the 64-bit integers");
    dims[expr.axis] = toDim(along, expr.getLoc());
  }
  expr.type = ExprType{*dtype, dims};
  return true;
}

//===----------------------------------------------------------------------===//
// iota, zeros, ones, full
//===----------------------------------------------------------------------===//

bool PipelineChecker::checkCoordinateOp(CallExprAST &expr) {
  if (expr.args.size() != 1)
    return error(expr.getLoc(), "'iota' takes a shape, e.g. iota([N, H, W], "
                                "axis = 2)");
  std::optional<std::vector<DimExpr>> sizes =
      sizesOf(*expr.args[0], "iota's shape");
  if (!sizes)
    return false;
  std::vector<DimAST> dims;
  for (const DimExpr &size : *sizes) {
    if (size.isAlwaysNegative())
      return error(expr.args[0]->getLoc(), "a size cannot be negative");
    dims.push_back(toDim(size, expr.args[0]->getLoc()));
    expr.shape.push_back(size.str());
  }
  ExprType shape{"i32", dims};
  expr.axis = int64_t(dims.size()) - 1;
  if (ExprAST *axis = keyword(expr, "axis")) {
    std::optional<std::vector<int64_t>> axes = axesInOrder(expr, *axis, shape);
    if (!axes)
      return false;
    if (axes->size() != 1)
      return error(axis->getLoc(), "'iota' takes one axis");
    expr.axis = axes->front();
  }
  std::optional<std::string> dtype = numberDType(expr, "i32");
  if (!dtype)
    return false;
  expr.type = ExprType{*dtype, dims};
  return true;
}

bool PipelineChecker::checkBroadcastOp(CallExprAST &expr) {
  // zeros(shape), zeros(dtype, shape); full(shape, value), full(dtype,
  // shape, value); dtype = ... as a keyword instead.
  const std::string &callee = expr.callee;
  std::vector<ExprAST *> args;
  for (ExprPtr &arg : expr.args)
    args.push_back(arg.get());
  std::optional<std::string> dtype;
  if (!args.empty())
    if (auto *name = llvm::dyn_cast<NameExprAST>(args.front());
        name && isDType(name->name)) {
      dtype = name->name;
      args.erase(args.begin());
    }
  size_t wanted = callee == "full" ? 2 : 1;
  if (args.size() != wanted)
    return error(expr.getLoc(), "'" + callee + "' takes " +
                                    (callee == "full" ? "a shape and a value"
                                                      : "a shape") +
                                    ", e.g. " + callee + "([N, H, W]" +
                                    (callee == "full" ? ", 1.5" : "") +
                                    ", dtype = f32)");
  if (ExprAST *value = keyword(expr, "dtype")) {
    if (dtype)
      return error(value->getLoc(), "'" + callee + "' has its dtype twice");
    if (!(dtype = dtypeArgument(*value)))
      return false;
  }
  std::optional<std::vector<DimExpr>> sizes =
      sizesOf(*args[0], "the shape of '" + callee + "'");
  if (!sizes)
    return false;
  std::vector<DimAST> dims;
  for (const DimExpr &size : *sizes) {
    if (size.isAlwaysNegative())
      return error(args[0]->getLoc(), "a size cannot be negative");
    dims.push_back(toDim(size, args[0]->getLoc()));
    expr.shape.push_back(size.str());
  }
  if (callee == "full") {
    ExprAST &value = *args[1];
    if (!checkExpr(value))
      return false;
    if (!value.type.dims.empty())
      return error(value.getLoc(), "the value of 'full' is a scalar, not " +
                                       value.type.str());
    if (!dtype)
      dtype = value.type.isWeakLiteral()
                  ? (value.type.weakFloat ? "f32"
                     : value.type.weakDim ? "i64"
                                          : "i32")
                  : value.type.dtype;
    if (value.type.isWeakLiteral() && isLiteralTree(value) &&
        !checkLiteralFits(value, *dtype))
      return false;
    // The value must fit the dtype (docs: iota, zeros, ones, full), a
    // float literal too: one past the dtype's largest finite value would
    // fill the tensor with inf.
    auto *number = llvm::dyn_cast<NumberExprAST>(&value);
    if (number && number->isFloat && std::isfinite(number->asDouble()) &&
        isFloatDType(*dtype)) {
      FloatRange range = getFloatRange(*dtype);
      if (std::fabs(number->asDouble()) >= range.roundsToInf) {
        char text[64];
        std::snprintf(text, sizeof text, "%.9g", number->asDouble());
        char most[64];
        std::snprintf(most, sizeof most, "%.9g", range.largest);
        return error(value.getLoc(), "literal " + std::string(text) +
                                         " does not fit in " + *dtype +
                                         " (its largest finite value is " +
                                         most + ")");
      }
    }
  }
  expr.operandDType = dtype ? *dtype : "f32";
  expr.type = ExprType{expr.operandDType, dims};
  return true;
}

//===----------------------------------------------------------------------===//
// erase
//===----------------------------------------------------------------------===//

bool PipelineChecker::checkEraseOp(CallExprAST &expr) {
  if (expr.args.size() != 1)
    return error(expr.getLoc(), "'erase' erases regions of one tensor, e.g. "
                                "erase(x, anchor = [y, x], shape = [32, 32], "
                                "axes = [1, 2])");
  if (!checkExpr(*expr.args[0]))
    return false;
  const ExprType &input = expr.args[0]->type;
  if (input.isWeakLiteral() || input.dims.empty())
    return error(expr.args[0]->getLoc(), "'erase' erases regions of a tensor "
                                         "of rank 1 or more");
  ExprAST *axesArg = keyword(expr, "axes");
  if (!axesArg)
    return error(expr.getLoc(), "'erase' needs the axes its regions span, "
                                "e.g. axes = [1, 2]");
  std::optional<std::vector<int64_t>> axes =
      axesInOrder(expr, *axesArg, input);
  if (!axes)
    return false;
  int64_t k = int64_t(axes->size());
  int64_t firstAxis = *std::min_element(axes->begin(), axes->end());
  ExprAST *anchor = keyword(expr, "anchor"), *shape = keyword(expr, "shape");
  if (!anchor || !shape)
    return error(expr.getLoc(), "'erase' needs each region's anchor = [...] "
                                "and shape = [...]");
  // k values per region; the anchor says how many regions, the shape may
  // give one region's sizes for all.
  std::optional<int64_t> count = checkSampleValues(
      *anchor, input, firstAxis, 0, k, "erase's anchor", &expr.anchorSplit);
  if (!count)
    return false;
  if (*count % k != 0)
    return error(anchor->getLoc(),
                 "erase's anchor has " + std::to_string(*count) +
                     " values per sample, not a multiple of the " +
                     std::to_string(k) + " axes: each box takes one per axis");
  int64_t regions = *count / k;
  int64_t shapeCount = 0;
  if (auto *list = llvm::dyn_cast<ListExprAST>(shape))
    shapeCount = int64_t(list->elements.size()) == k ? k : *count;
  std::optional<int64_t> given =
      checkSampleValues(*shape, input, firstAxis, shapeCount, k,
                        "erase's shape", &expr.shapeSplit);
  if (!given)
    return false;
  if (*given != k && *given != *count)
    return error(shape->getLoc(), "erase's shape has " + std::to_string(*given) +
                                      " values: one region's " +
                                      std::to_string(k) + " or every region's " +
                                      std::to_string(*count));
  if (ExprAST *fill = keyword(expr, "fill")) {
    if (!checkSampleParam(*fill, input, firstAxis, "number", "erase's fill"))
      return false;
    // An integer literal must fit (for bool, a u8); a float one converts
    // as a cast does, as a crop's and a pad's fill and DALI's float
    // fill_value do (2.5 is 2 as u8).
    auto *number = llvm::dyn_cast<NumberExprAST>(fill);
    if (fill->type.isWeakLiteral() && number && !number->isFloat &&
        !checkLiteralFits(*fill, input.dtype == "bool" ? "u8" : input.dtype))
      return false;
  }
  expr.axes = *axes;
  expr.regions = regions;
  expr.shapeValues = *given;
  expr.type = input;
  return true;
}
