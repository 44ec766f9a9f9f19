//===- SemaResample.cpp - Checking warp_affine, rotate and resize ---------===//
//
// Images [..., H, W, C] with their channels last; the output size (two
// sizes), the interpolation, the fill of warp_affine and rotate, the
// matrices or angles per sample, resize's antialias; the output dtype.
//
//===----------------------------------------------------------------------===//

#include "frontend/Sema.h"
#include "frontend/SemaChecker.h"

#include "llvm/Support/Casting.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>

using namespace pipec;
using namespace pipec::sema;
using pipert::DimExpr;

namespace {
/// Why a literal angle or matrix element cannot turn an image (what a
/// tensor's is checked for when the run starts): NaN, an infinity or a
/// magnitude past 2^62, which folding literals can give (0.0 / 0.0); or
/// nothing.
std::optional<std::string> unusableLiteral(const NumberExprAST &number) {
  const double value = number.asDouble();
  if (std::isnan(value))
    return std::string("nan, not a finite number");
  if (std::isinf(value))
    return std::string(value < 0 ? "-inf" : "inf") + ", not a finite number";
  // An integer exactly (2^62 + 1 is a double of 2^62), a float as the
  // double it is.
  const __int128 limit = __int128(1) << 62;
  if (!number.isFloat) {
    __int128 exact = number.exactValue();
    if (exact > limit || exact < -limit) {
      std::string digits = number.exceedsInt64
                               ? std::to_string(uint64_t(number.intValue))
                               : std::to_string(number.intValue);
      return digits + ", past 2^62 in magnitude";
    }
    return std::nullopt;
  }
  if (std::fabs(value) > 4611686018427387904.0) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.17g", value);
    return std::string(text) + ", past 2^62 in magnitude";
  }
  return std::nullopt;
}
} // namespace

bool PipelineChecker::checkResampleOp(CallExprAST &expr) {
  const std::string &callee = expr.callee;
  if (expr.args.size() != 1)
    return error(expr.getLoc(), "'" + callee + "' takes one batch of images, "
                                "e.g. " + callee + "(images, ...)");
  ExprAST &image = *expr.args[0];
  if (!checkExpr(image))
    return false;
  const ExprType &input = image.type;
  if (input.isWeakLiteral() || input.dims.size() < 3 || input.dtype == "bool")
    return error(image.getLoc(), "'" + callee + "' takes images of numbers "
                                 "[..., H, W, C], channels last; not " +
                                     input.str());
  int64_t rank = int64_t(input.dims.size());
  std::vector<DimAST> dims = input.dims;
  // The output's size: [OH, OW], the input's by default but for resize.
  if (ExprAST *size = keyword(expr, "size")) {
    std::optional<std::vector<DimExpr>> sizes =
        sizesOf(*size, "the size of '" + callee + "'");
    if (!sizes)
      return false;
    if (sizes->size() != 2)
      return error(size->getLoc(), "the size of '" + callee +
                                       "' is [height, width]");
    for (size_t i = 0; i < 2; ++i) {
      if ((*sizes)[i].isAlwaysNegative())
        return error(size->getLoc(), "a size cannot be negative");
      dims[size_t(rank) - 3 + i] = toDim((*sizes)[i], size->getLoc());
    }
  } else if (callee == "resize" || callee == "random_resized_crop") {
    return error(expr.getLoc(), "'" + callee + "' needs the size it resizes "
                                "to, e.g. " + callee +
                                    "(images, size = [224, 224])");
  }
  expr.interp = "linear";
  const bool resizes = callee == "resize" || callee == "random_resized_crop";
  if (ExprAST *interp = keyword(expr, "interp")) {
    auto *name = llvm::dyn_cast<NameExprAST>(interp);
    bool known = name && (name->name == "nearest" || name->name == "linear" ||
                          name->name == "cubic" || name->name == "lanczos");
    if (!known)
      return error(interp->getLoc(),
                   resizes ? "interp = nearest, linear, cubic or lanczos"
                           : "interp = nearest or linear");
    if (!resizes && name->name != "nearest" && name->name != "linear")
      return error(interp->getLoc(),
                   "interp = " + name->name + " is for resize and "
                   "random_resized_crop; '" + callee +
                       "' takes nearest or linear");
    expr.interp = name->name;
  }
  expr.fill = 0;
  if (ExprAST *fill = keyword(expr, "fill")) {
    auto *number = llvm::dyn_cast<NumberExprAST>(fill);
    double value = number ? number->asDouble() : 0;
    if (!number || !std::isfinite(value))
      return error(fill->getLoc(), "the fill of '" + callee +
                                       "' is a finite number literal");
    // The interpolation computes in f32: a fill past its range would be
    // inf there, and 0 x inf NaN even in pixels wholly inside the image.
    if (std::fabs(value) > double(std::numeric_limits<float>::max()))
      return error(fill->getLoc(),
                   "the fill of '" + callee + "' is past f32's range (" +
                       "its largest is about 3.4e38): the interpolation "
                       "computes in f32");
    expr.fill = value;
  }
  expr.antialias = callee == "resize" || callee == "random_resized_crop";
  if (ExprAST *antialias = keyword(expr, "antialias")) {
    auto *flag = llvm::dyn_cast<BoolExprAST>(antialias);
    if (!flag)
      return error(antialias->getLoc(), "antialias = true or false");
    expr.antialias = flag->value;
  }
  // A nearest resize picks one pixel: it has nothing to antialias.
  expr.antialias = expr.antialias && expr.interp != "nearest";
  int64_t firstAxis = rank - 3;
  if (callee == "resize" && !checkResizeRoi(expr, input))
    return false;
  if (callee == "random_resized_crop") {
    if (!checkCropRange(expr, "scale", expr.cropScale) ||
        !checkCropRange(expr, "ratio", expr.cropRatio) ||
        !checkOwnSeed(expr) || !countRandomCall(expr))
      return false;
  }
  if (callee == "rotate") {
    ExprAST *angle = keyword(expr, "angle");
    if (!angle)
      return error(expr.getLoc(), "'rotate' needs angle = degrees, one per "
                                  "image or one for all");
    if (!checkSampleParam(*angle, input, firstAxis, "number",
                          "rotate's angle"))
      return false;
    if (auto *number = llvm::dyn_cast<NumberExprAST>(angle))
      if (std::optional<std::string> why = unusableLiteral(*number))
        return error(angle->getLoc(), "rotate's angle is " + *why);
  } else if (callee == "warp_affine") {
    ExprAST *matrix = keyword(expr, "matrix");
    if (!matrix)
      return error(expr.getLoc(), "'warp_affine' needs matrix = the 2x3 "
                                  "matrix from output to input points, six "
                                  "numbers or a tensor [..., 2, 3]");
    if (auto *list = llvm::dyn_cast<ListExprAST>(matrix)) {
      // Rows, as NumPy writes a 2x3 array, are the same six numbers.
      auto isRow = [](const ExprPtr &e) {
        auto *row = llvm::dyn_cast<ListExprAST>(e.get());
        return row && row->elements.size() == 3;
      };
      if (list->elements.size() == 2 && llvm::all_of(list->elements, isRow)) {
        std::vector<ExprPtr> flat;
        for (ExprPtr &row : list->elements)
          for (ExprPtr &element : llvm::cast<ListExprAST>(*row).elements)
            flat.push_back(std::move(element));
        list->elements = std::move(flat);
      }
      if (list->elements.size() != 6 ||
          !llvm::all_of(list->elements, [](const ExprPtr &e) {
            return llvm::isa<NumberExprAST>(*e);
          }))
        return error(matrix->getLoc(), "warp_affine's matrix as a list is six "
                                       "numbers, row by row, or two rows of "
                                       "three");
      for (const ExprPtr &element : list->elements)
        if (std::optional<std::string> why =
                unusableLiteral(llvm::cast<NumberExprAST>(*element)))
          return error(element->getLoc(),
                       "an element of warp_affine's matrix is " + *why);
    } else {
      if (!checkExpr(*matrix))
        return false;
      const ExprType &type = matrix->type;
      bool ok = !type.isWeakLiteral() && type.dtype != "bool" &&
                type.dims.size() >= 2;
      if (ok) {
        // [samples..., 2, 3]
        ExprType samples{type.dtype, std::vector<DimAST>(type.dims.begin(),
                                                         type.dims.end() - 2)};
        const DimAST &rows = type.dims[type.dims.size() - 2];
        const DimAST &cols = type.dims.back();
        ok = !rows.isSymbolic() && rows.size == 2 && !cols.isSymbolic() &&
             cols.size == 3 && isSamplePrefix(samples, input, firstAxis);
      }
      if (!ok)
        return error(matrix->getLoc(),
                     "warp_affine's matrix " + type.str() +
                         " must be [2, 3], or one per sample [..., 2, 3] "
                         "over the leading dims of " + input.str());
    }
  }
  return setNumberResult(expr, input, std::move(dims));
}

bool PipelineChecker::checkResizeRoi(CallExprAST &expr,
                                     const ExprType &input) {
  ExprAST *start = keyword(expr, "roi_start"), *end = keyword(expr, "roi_end");
  ExprAST *relative = keyword(expr, "relative_roi");
  if (relative) {
    auto *flag = llvm::dyn_cast<BoolExprAST>(relative);
    if (!flag)
      return error(relative->getLoc(), "relative_roi = true or false");
    expr.relativeRoi = flag->value;
  }
  if (!start && !end) {
    if (relative)
      return error(relative->getLoc(), "relative_roi needs a region: "
                                       "roi_start = [y, x], roi_end = [y, x]");
    return true;
  }
  if (!start || !end)
    return error((start ? start : end)->getLoc(),
                 "a region of interest needs both roi_start = [y, x] and "
                 "roi_end = [y, x]");
  int64_t firstAxis = int64_t(input.dims.size()) - 3;
  for (ExprAST *corner : {start, end}) {
    std::string what = corner == start ? "roi_start" : "roi_end";
    if (auto *list = llvm::dyn_cast<ListExprAST>(corner)) {
      if (list->elements.size() != 2)
        return error(corner->getLoc(), what + " is [y, x]: two values, each "
                                              "a number or one per sample");
      for (size_t i = 0; i < 2; ++i) {
        ExprAST &value = *list->elements[i];
        if (!checkSampleParam(value, input, firstAxis, "number", what))
          return false;
        auto *number = llvm::dyn_cast<NumberExprAST>(&value);
        if (!number)
          continue;
        double v = number->asDouble();
        const DimAST &dim = input.dims[size_t(firstAxis) + i];
        double most = expr.relativeRoi ? 1.0
                      : dim.isSymbolic() ? HUGE_VAL
                                         : double(dim.size);
        if (!std::isfinite(v) || v < 0 || v > most)
          return error(value.getLoc(),
                       what + "'s " + (i ? "x" : "y") + " is outside the " +
                           (expr.relativeRoi ? "image's [0, 1]"
                                             : "image"));
      }
      list->type = ExprType{};
      continue;
    }
    if (!checkExpr(*corner))
      return false;
    const ExprType &type = corner->type;
    bool ok = !type.isWeakLiteral() && type.dtype != "bool" &&
              !type.dims.empty() && !type.dims.back().isSymbolic() &&
              type.dims.back().size == 2;
    if (ok) {
      ExprType samples{type.dtype, std::vector<DimAST>(type.dims.begin(),
                                                       type.dims.end() - 1)};
      ok = isSamplePrefix(samples, input, firstAxis);
    }
    if (!ok)
      return error(corner->getLoc(),
                   what + " " + type.str() + " must be [y, x], or one per "
                          "sample [..., 2] over the leading dims of " +
                       input.str());
  }
  return true;
}

bool PipelineChecker::checkCropRange(CallExprAST &expr, llvm::StringRef name,
                                     double range[2]) {
  ExprAST *given = keyword(expr, name);
  if (!given)
    return true;
  std::string what = "random_resized_crop's " + name.str();
  auto *list = llvm::dyn_cast<ListExprAST>(given);
  if (!list || list->elements.size() != 2)
    return error(given->getLoc(), what + " is [lo, hi], two numbers");
  for (size_t i = 0; i < 2; ++i) {
    auto *number = llvm::dyn_cast<NumberExprAST>(list->elements[i].get());
    if (!number)
      return error(list->elements[i]->getLoc(),
                   what + " is [lo, hi], two number literals");
    range[i] = number->asDouble();
  }
  if (!(range[0] > 0) || !(range[0] <= range[1]) || !std::isfinite(range[1]))
    return error(given->getLoc(),
                 what + " [lo, hi] needs 0 < lo <= hi, both finite");
  list->type = ExprType{};
  return true;
}
