//===- SemaColor.cpp - Checking the color functions -----------------------===//
//
// brightness_contrast, hsv, hue, saturation, color_twist and
// color_space_conversion (pipe.channel_mix, or elementwise ops): an image
// [..., C] with its channels last, per-sample parameters over the dims
// before the last three (one per image of a batch), the output dtype.
//
//===----------------------------------------------------------------------===//

#include "frontend/Sema.h"
#include "frontend/SemaChecker.h"

#include "llvm/Support/Casting.h"

#include <cmath>
#include <limits>

using namespace pipec;
using namespace pipec::sema;

int64_t pipec::getColorChannels(llvm::StringRef imageType) {
  if (imageType == "rgb" || imageType == "bgr" || imageType == "ycbcr")
    return 3;
  if (imageType == "gray")
    return 1;
  return 0;
}

bool PipelineChecker::checkChannelMixOp(CallExprAST &expr) {
  const std::string &callee = expr.callee;
  if (expr.args.size() != 1)
    return error(expr.getLoc(), "'" + callee + "' takes one image, e.g. " +
                                    callee + "(images, ...)");
  ExprAST &image = *expr.args[0];
  if (!checkExpr(image))
    return false;
  const ExprType &input = image.type;
  if (input.isWeakLiteral() || input.dims.empty() || input.dtype == "bool")
    return error(image.getLoc(), "'" + callee + "' takes an image of numbers "
                                 "with its channels last, not " +
                                     input.str());
  int64_t rank = int64_t(input.dims.size());
  const DimAST &last = input.dims.back();
  int64_t channels = last.isSymbolic() ? -1 : last.size;
  // Parameters are per sample: the dims before the last three (H, W, C).
  int64_t firstAxis = std::max<int64_t>(rank - 3, 0);
  std::vector<DimAST> dims = input.dims;

  if (callee == "color_space_conversion") {
    auto typeOf = [&](const char *which, std::string &name) {
      ExprAST *given = keyword(expr, which);
      auto *ident = llvm::dyn_cast_or_null<NameExprAST>(given);
      if (!ident || !getColorChannels(ident->name))
        return error(given ? given->getLoc() : expr.getLoc(),
                     std::string("color_space_conversion needs ") + which +
                         " = rgb, bgr, gray or ycbcr");
      name = ident->name;
      return true;
    };
    std::string from, to;
    if (!typeOf("image_type", from) || !typeOf("output_type", to))
      return false;
    if (input.dtype != "u8" && !isFloatDType(input.dtype))
      return error(image.getLoc(), "color_space_conversion takes u8 images "
                                   "(0 to 255) or float ones (0 to 1), not " +
                                       input.str());
    if (channels != getColorChannels(from))
      return error(image.getLoc(), std::string(from == "rgb" ? "an " : "a ") + from + " image has " +
                                       std::to_string(getColorChannels(from)) +
                                       (getColorChannels(from) == 1
                                            ? " channel"
                                            : " channels") +
                                       ", its last dim; not " +
                                       input.str());
    expr.fromColor = from;
    expr.toColor = to;
    dims.back().size = getColorChannels(to);
    dims.back().symbol.clear();
  } else {
    bool rgb = callee != "brightness_contrast";
    if (rgb && channels != 3)
      return error(image.getLoc(), "'" + callee + "' takes RGB images, their "
                                   "3 channels last; not " +
                                       input.str());
    for (KeywordArgAST &kwarg : expr.kwargs) {
      if (kwarg.name == "dtype")
        continue;
      if (kwarg.name == "contrast_center") {
        if (!llvm::isa<NumberExprAST>(*kwarg.value))
          return error(kwarg.value->getLoc(),
                       "contrast_center is a number literal");
      } else if (!checkSampleParam(*kwarg.value, input, firstAxis, "number",
                                   callee + "'s " + kwarg.name)) {
        return false;
      }
      // A literal NaN or inf would make every value NaN or inf (tensors are
      // not checked: docs/language.md, Color).
      for (const ExprAST *literal : literalsOf(*kwarg.value))
        if (std::optional<double> value = literalValue(*literal);
            value && !std::isfinite(*value))
          return error(literal->getLoc(),
                       callee + "'s " + kwarg.name + " is " +
                           formatNumber(*value) +
                           "; it must be a finite number");
    }
  }
  if (!setNumberResult(expr, input, std::move(dims)))
    return false;
  // Computed in f32 unless the image or the result is f64: a literal
  // parameter past f32's range would be inf there.
  if (input.dtype != "f64" && expr.type.dtype != "f64")
    for (KeywordArgAST &kwarg : expr.kwargs) {
      if (kwarg.name == "dtype")
        continue;
      for (const ExprAST *literal : literalsOf(*kwarg.value))
        if (std::optional<double> value = literalValue(*literal);
            value &&
            std::fabs(*value) > double(std::numeric_limits<float>::max()))
          return error(literal->getLoc(),
                       callee + "'s " + kwarg.name + " is " +
                           formatNumber(*value) +
                           ", past f32's range (its largest is about "
                           "3.4e38): '" + callee + "' computes in f32 (f64 "
                           "for f64 images or results)");
    }
  return true;
}
