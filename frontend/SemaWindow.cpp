//===- SemaWindow.cpp - box_filter, erode, dilate, median, conv2d ---------===//
//
// The window ops: a window over one or two axes (the two after the first
// by default: [N, H, W] and [N, H, W, C] alike), its sizes (an integer
// literal for every axis, or one per axis) or conv2d's kernel (a list of
// rows of number literals, or a tensor [..., KH, KW], one per sample), the
// border and its fill, the output dtype of box_filter and conv2d.
//
//===----------------------------------------------------------------------===//

#include "frontend/Sema.h"
#include "frontend/SemaChecker.h"

#include "core/PipeScalar.h"
#include "core/PipeStencil.h"
#include "core/PipeWindow.h"

#include "llvm/Support/Casting.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace pipec;
using namespace pipec::sema;


bool PipelineChecker::checkWindowOp(CallExprAST &expr) {
  const std::string &callee = expr.callee;
  bool conv = callee == "conv2d";
  bool selects = callee == "erode" || callee == "dilate" || callee == "median";
  if (expr.args.size() != 1)
    return error(expr.getLoc(),
                 "'" + callee + "' takes one tensor, e.g. " + callee +
                     (conv ? "(x, kernel = [[0, 1, 0], [1, -4, 1], [0, 1, 0]])"
                           : "(x, window = 3)"));
  ExprAST &arg = *expr.args[0];
  if (!checkExpr(arg))
    return false;
  const ExprType &input = arg.type;
  if (input.isWeakLiteral() || input.dims.empty())
    return error(arg.getLoc(), "'" + callee + "' takes a tensor of rank " +
                                   (conv ? "2" : "1") + " or more, not " +
                                   input.str());
  if (input.dtype == "bool" && !selects)
    return error(arg.getLoc(), "'" + callee + "' of bool is not defined; "
                               "convert first, e.g. u8(x)");
  // The axes: given, or the two after the first, or as many as there are.
  int64_t rank = int64_t(input.dims.size());
  if (ExprAST *axes = keyword(expr, "axes")) {
    std::optional<std::vector<int64_t>> listed =
        axesInOrder(expr, *axes, input);
    if (!listed)
      return false;
    // The window's sizes and a kernel's rows and columns follow the axes
    // in increasing order; another order would pair them otherwise than
    // written.
    if (!std::is_sorted(listed->begin(), listed->end()))
      return error(axes->getLoc(),
                   "the axes of '" + callee + "' go in increasing order "
                   "(the window's sizes follow them), e.g. axes = [1, 2]");
    expr.axes = *listed;
    if (expr.axes.size() > 2)
      return error(axes->getLoc(), "the window of '" + callee +
                                       "' spans one or two axes");
  } else {
    for (int64_t d = rank > 2 ? 1 : 0; d < rank && expr.axes.size() < 2; ++d)
      expr.axes.push_back(d);
  }
  if (conv && expr.axes.size() != 2)
    return error(expr.getLoc(), "the kernel of 'conv2d' spans two axes; " +
                                    input.str() + " has one");
  expr.windowSizes.clear();
  if (conv) {
    if (!checkConvKernel(expr, input))
      return false;
  } else {
    ExprAST *window = keyword(expr, "window");
    if (!window)
      return error(expr.getLoc(), "'" + callee + "' needs its window's "
                                  "size, e.g. window = 3 or window = [3, 5]");
    auto *list = llvm::dyn_cast<ListExprAST>(window);
    std::vector<ExprAST *> sizes;
    if (list)
      for (ExprPtr &element : list->elements)
        sizes.push_back(element.get());
    else
      sizes.assign(expr.axes.size(), window);
    if (sizes.size() != expr.axes.size())
      return error(window->getLoc(),
                   "'" + callee + "' has " + std::to_string(sizes.size()) +
                       " window sizes but " +
                       std::to_string(expr.axes.size()) +
                       (expr.axes.size() == 1 ? " axis" : " axes"));
    for (ExprAST *size : sizes) {
      auto *number = llvm::dyn_cast<NumberExprAST>(size);
      if (!number || number->isFloat || number->intValue < 1)
        return error(size->getLoc(), "a window size of '" + callee +
                                         "' is a positive integer literal");
      // Said before the product below can overflow.
      int64_t most = callee == "median" ? PIPE_WINDOW_MAX_MEDIAN_TAPS
                                        : PIPE_WINDOW_MAX_TAPS;
      if (number->intValue > most)
        return error(size->getLoc(), "the window of '" + callee + "' has " +
                                         std::to_string(number->intValue) +
                                         " elements along an axis; at most " +
                                         std::to_string(most) + " in all");
      if (callee == "median" && number->intValue % 2 == 0)
        return error(size->getLoc(),
                     "the window of 'median' must have odd sizes (so that "
                     "it centres on the element), not " +
                         std::to_string(number->intValue));
      expr.windowSizes.push_back(number->intValue);
    }
    if (list)
      list->type = ExprType{};
    else
      window->type = ExprType{};
  }
  int64_t taps = 1;
  for (int64_t size : expr.windowSizes)
    taps *= size;
  int64_t most = callee == "median" ? PIPE_WINDOW_MAX_MEDIAN_TAPS
                                    : PIPE_WINDOW_MAX_TAPS;
  if (taps > most)
    return error(expr.getLoc(), "the window of '" + callee + "' has " +
                                    std::to_string(taps) + " taps; at most " +
                                    std::to_string(most));
  // OpenCV's defaults: reflect101 for sums, the edge's value for the
  // selections (which then see only the image's own pixels).
  expr.border = selects ? "clamp" : "reflect101";
  if (ExprAST *border = keyword(expr, "border")) {
    auto *name = llvm::dyn_cast<NameExprAST>(border);
    if (!name || (name->name != "reflect101" && name->name != "clamp" &&
                  name->name != "constant" && name->name != "wrap"))
      return error(border->getLoc(), "border is one of reflect101, clamp, "
                                     "constant, wrap");
    expr.border = name->name;
  }
  expr.fill = 0;
  if (ExprAST *fill = keyword(expr, "fill")) {
    auto *number = llvm::dyn_cast<NumberExprAST>(fill);
    // A bool image's selections take true and false too (erode of a mask
    // is its `all`: the fill a user writes there is `true`).
    auto *boolean = llvm::dyn_cast<BoolExprAST>(fill);
    if (boolean && !(selects && input.dtype == "bool"))
      return error(fill->getLoc(), "the fill of '" + callee +
                                       "' is a finite number literal (true "
                                       "and false only for a bool image's "
                                       "erode, dilate and median)");
    if (!boolean && (!number || !std::isfinite(number->asDouble())))
      return error(fill->getLoc(), "the fill of '" + callee +
                                       "' is a finite number literal");
    if (expr.border != "constant")
      return error(fill->getLoc(), "fill applies only with border = constant");
    expr.fill = boolean ? double(boolean->value) : number->asDouble();
    // erode, dilate and median keep the dtype, and their fill travels as
    // an f64: a 64-bit one it cannot hold would come back rounded.
    if (selects && number && !number->isFloat &&
        (input.dtype == "i64" || input.dtype == "u64")) {
      auto [lo, hi] = getIntegerRange(input.dtype);
      __int128 value = std::clamp(number->exactValue(), lo, hi);
      long double asF64 = double(value);
      if (asF64 != (long double)value)
        return error(fill->getLoc(),
                     "the fill of '" + callee + "' on " + input.dtype +
                         " must be a value an f64 holds exactly (any "
                         "integer up to 2^53 in magnitude): it would be "
                         "rounded");
    }
  }
  std::string dtype = input.dtype;
  if (!selects) {
    std::optional<std::string> requested = numberDType(expr, input.dtype);
    if (!requested)
      return false;
    dtype = *requested;
    // The sums take the fill as written, in f32 unless the input or the
    // result is f64: past f32's range it would be inf there.
    if (ExprAST *fill = keyword(expr, "fill");
        fill && input.dtype != "f64" && dtype != "f64" &&
        std::fabs(expr.fill) > double(std::numeric_limits<float>::max()))
      return error(fill->getLoc(),
                   "the fill of '" + callee + "' is past f32's range (its "
                   "largest is about 3.4e38): the sums compute in f32 (f64 "
                   "when the input or the result is f64)");
  }
  expr.operandDType = input.dtype;
  expr.type = ExprType{dtype, input.dims};
  return true;
}

bool PipelineChecker::checkConvKernel(CallExprAST &expr,
                                      const ExprType &input) {
  ExprAST *kernel = keyword(expr, "kernel");
  if (!kernel)
    return error(expr.getLoc(), "'conv2d' needs kernel = rows of weights, "
                                "e.g. [[0, 1, 0], [1, -4, 1], [0, 1, 0]], or a "
                                "tensor [..., KH, KW]");
  if (auto *rows = llvm::dyn_cast<ListExprAST>(kernel)) {
    size_t width = 0;
    for (ExprPtr &element : rows->elements) {
      auto *row = llvm::dyn_cast<ListExprAST>(element.get());
      if (!row || row->elements.empty())
        return error(element->getLoc(), "a row of conv2d's kernel is a list "
                                        "of number literals, e.g. [1, 2, 1]");
      if (width && row->elements.size() != width)
        return error(element->getLoc(), "the rows of conv2d's kernel have "
                                        "one length; this one has " +
                                            std::to_string(
                                                row->elements.size()) +
                                            ", the first " +
                                            std::to_string(width));
      width = row->elements.size();
      for (ExprPtr &weight : row->elements) {
        auto *number = llvm::dyn_cast<NumberExprAST>(weight.get());
        if (!number || !std::isfinite(number->asDouble()))
          return error(weight->getLoc(), "a weight of conv2d's kernel is a "
                                         "finite number literal");
        // The weights are f32: one past its range would be inf.
        if (std::fabs(number->asDouble()) >
            double(std::numeric_limits<float>::max()))
          return error(weight->getLoc(),
                       "a weight of conv2d's kernel is past f32's range "
                       "(its largest is about 3.4e38): the weights are f32");
        weight->type = ExprType{};
      }
      row->type = ExprType{};
    }
    if (rows->elements.empty())
      return error(rows->getLoc(), "conv2d's kernel needs at least one row");
    rows->type = ExprType{};
    expr.windowSizes = {int64_t(rows->elements.size()), int64_t(width)};
    return true;
  }
  if (!checkExpr(*kernel))
    return false;
  const ExprType &type = kernel->type;
  if (type.dtype == "bool")
    return error(kernel->getLoc(),
                 "conv2d's kernel holds numbers (weights), not bool; convert "
                 "it with f32(...)");
  bool ok = !type.isWeakLiteral() && type.dims.size() >= 2;
  if (ok) {
    const DimAST &kh = type.dims[type.dims.size() - 2], &kw = type.dims.back();
    ExprType samples{type.dtype, std::vector<DimAST>(type.dims.begin(),
                                                     type.dims.end() - 2)};
    ok = !kh.isSymbolic() && !kw.isSymbolic() && kh.size > 0 && kw.size > 0 &&
         isSamplePrefix(samples, input, expr.axes.front());
    if (ok)
      expr.windowSizes = {kh.size, kw.size};
  }
  if (!ok)
    return error(kernel->getLoc(),
                 "conv2d's kernel " + type.str() +
                     " must be [KH, KW] of fixed sizes, or one per sample "
                     "[..., KH, KW] over the leading dims of " + input.str() +
                     " before the first axis");
  return true;
}
