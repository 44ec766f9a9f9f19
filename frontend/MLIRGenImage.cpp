//===- MLIRGenImage.cpp - Resampling, color and random numbers ------------===//
//
// warp_affine, rotate, resize and random_resized_crop (pipe.resample with
// its matrices, angles, regions or drawn windows), the color functions
// (channel mixes by per-sample matrices built from core/PipeColor.h) and
// the random sources (pipe.random over each element's row-major index).
//
//===----------------------------------------------------------------------===//

#include "frontend/MLIRGenerator.h"
#include "frontend/Sema.h"

#include "dialect/DimChecks.h"

#include "core/PipeColor.h"

#include "llvm/Support/Casting.h"

#include <cmath>

using namespace mlir;

namespace pipec {
namespace mlirgen {

/// A constant tensor of `shape` (row-major `values`) in `dtype`.
Value Generator::constantTensor(ArrayRef<int64_t> shape,
                                ArrayRef<double> values, llvm::StringRef dtype,
                                Location where) {
  Type element = elementType(dtype);
  SmallVector<Attribute> attrs;
  for (double value : values)
    attrs.push_back(builder.getFloatAttr(element, value));
  // Tensor constants are lists; a matrix is a reshaped one (a view).
  auto list = RankedTensorType::get({int64_t(values.size())}, element);
  Value constant = pipe::ConstantOp::create(
      builder, where, DenseElementsAttr::get(list, attrs));
  if (shape.size() == 1)
    return constant;
  return pipe::ReshapeOp::create(
      builder, where, RankedTensorType::get(shape, element), constant);
}

/// `value` (rank 0, or a prefix of `dims`) broadcast to `dims`, its dims
/// leading: a per-sample parameter spread over each sample.
Value Generator::spreadLeading(Value value, const std::vector<DimAST> &dims,
                               Location where) {
  auto type = cast<RankedTensorType>(value.getType());
  return pipe::createLeadingBroadcast(
      builder, where, value,
      tensorType(pipe::getDTypeName(type.getElementType()), dims), 0);
}

/// warp_affine, rotate, resize: pipe.resample with the matrices (f32
/// [..., 2, 3]) or the angles (f32, per sample) as its parameter.
/// Whether `expr` is a uniform or normal draw whose parameters are all
/// modest literals: its values are finite, in f32 too.
static bool isFiniteDraw(const ExprAST &expr) {
  auto *call = llvm::dyn_cast<CallExprAST>(&expr);
  if (!call || (call->callee != "uniform" && call->callee != "normal"))
    return false;
  auto modest = [](const ExprAST &e) {
    auto *number = llvm::dyn_cast<NumberExprAST>(&e);
    return number && std::fabs(number->asDouble()) < 1e30;
  };
  return llvm::all_of(call->kwargs, [&](const KeywordArgAST &kwarg) {
    const ExprAST &value = *kwarg.value;
    if (kwarg.name == "shape" || kwarg.name == "dtype" || kwarg.name == "seed")
      return true;
    if (auto *list = llvm::dyn_cast<ListExprAST>(&value))
      return llvm::all_of(list->elements,
                          [&](const ExprPtr &element) { return modest(*element); });
    return modest(value);
  });
}

Value Generator::emitResampleOp(const CallExprAST &call, RankedTensorType type,
                                Location where, llvm::StringRef) {
  Value input = emitExpr(*call.args[0], call.operandDType);
  Value param;
  pipe::ResampleTransform transform;
  std::string at = pipe::describeLocation(where);
  std::string prefix = call.callee + (at.empty() ? "" : " at " + at) + ": ";
  if (call.callee == "rotate") {
    transform = pipe::ResampleTransform::rotate;
    const ExprAST &angle = *keywordValue(call, "angle");
    Value degrees = emitDegrees(angle, "f32");
    // A NaN or infinite angle (from a tensor) fails the run; a literal or
    // a draw of literal parameters is finite already. The check sees the
    // angle as given, before its turns are taken out.
    if (!llvm::isa<NumberExprAST>(angle) && !isFiniteDraw(angle))
      degrees =
          checkedFinite(degrees, prefix + "the angle of sample {at}", where);
    param = castTo(withoutWholeTurns(angle, degrees, where), "f32", where);
  } else if (call.callee == "warp_affine") {
    transform = pipe::ResampleTransform::affine;
    const ExprAST &matrix = *keywordValue(call, "matrix");
    param = castTo(emitExpr(matrix, "f32"), "f32", where);
    if (llvm::isa<ListExprAST>(matrix))
      param = pipe::ReshapeOp::create(
          builder, where, RankedTensorType::get({2, 3}, elementType("f32")),
          param);
    else
      param = checkedFinite(
          param, prefix + "the matrices' element {at} (sample..., row, column)",
          where);
  } else {
    transform = pipe::ResampleTransform::resize;
    if (call.callee == "random_resized_crop")
      param = emitCropWindows(call, input, where);
    else if (keywordValue(call, "roi_start"))
      param = emitResizeRoi(call, input, where);
  }
  bool resize = transform == pipe::ResampleTransform::resize;
  auto resample = pipe::ResampleOp::create(
      builder, where, type, input, param,
      pipe::ResampleTransformAttr::get(builder.getContext(), transform),
      pipe::InterpAttr::get(builder.getContext(),
                            *pipe::symbolizeInterp(call.interp)),
      pipe::BorderAttr::get(builder.getContext(), resize
                                                      ? pipe::Border::clamp
                                                      : pipe::Border::constant),
      builder.getF64FloatAttr(call.fill),
      call.antialias ? builder.getUnitAttr() : UnitAttr());
  if (resize)
    requireImagePixels(resample, call.callee);
  return resample;
}

/// A resize of an image with no pixels has nothing to interpolate (the
/// kernels would give 0s, a fill no one asked for): a dim check fails the
/// run instead, in the call's name, unless the result is empty too. (A
/// rotation or warp of an empty image is its fill, all of it outside.)
void Generator::requireImagePixels(Operation *resample,
                                   llvm::StringRef callee) {
  Value input = resample->getOperand(0), result = resample->getResult(0);
  auto inputType = cast<RankedTensorType>(input.getType());
  auto resultType = cast<RankedTensorType>(result.getType());
  int64_t rank = inputType.getRank();
  llvm::SmallVector<Attribute> checks, reasons;
  for (auto [axis, name] : {std::pair{rank - 3, "height"}, {rank - 2, "width"}}) {
    std::optional<pipert::DimExpr> check = pipe::getReadableDimCheck(
        pipe::getDimSize(inputType, axis), resultType);
    if (!check)
      continue;
    checks.push_back(builder.getStringAttr(check->str()));
    reasons.push_back(builder.getStringAttr(
        std::string("its images have no pixels (their ") + name +
        " is 0): there is nothing to resize"));
  }
  if (checks.empty())
    return;
  resample->setAttr("dim_checks", builder.getArrayAttr(checks));
  resample->setAttr("dim_check_reasons", builder.getArrayAttr(reasons));
  resample->setAttr("dim_check_op", builder.getStringAttr(callee));
}

/// The dims of a resampling call's images before H, W and C: one image
/// each.
std::vector<DimAST> Generator::sampleDims(const CallExprAST &call) {
  const std::vector<DimAST> &dims = call.args[0]->type.dims;
  return std::vector<DimAST>(dims.begin(), dims.end() - 3);
}

/// Size `axis` of `value`'s type as a dim expression.
pipert::DimExpr Generator::dimOf(Value value, int64_t axis) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.isDynamicDim(axis))
    return pipert::DimExpr::constant(type.getDimSize(axis));
  return *pipert::DimExpr::parse(pipe::getDimNames(type)[axis]);
}

/// `values` (each rank 0 or a prefix of `dims`), as f32, side by side
/// along a new last dim: [dims..., values.size()], or [values.size()]
/// when each is a scalar.
Value Generator::stackLast(ArrayRef<Value> values, std::vector<DimAST> dims,
                           Location where) {
  // Scalars only: one row for all.
  if (llvm::all_of(values, [](Value value) {
        return cast<RankedTensorType>(value.getType()).getRank() == 0;
      }))
    dims.clear();
  DimAST one;
  one.size = 1;
  std::vector<DimAST> column = dims;
  column.push_back(one);
  SmallVector<Value> columns;
  for (Value value : values) {
    Value spread = spreadLeading(castTo(value, "f32", where), dims, where);
    // (A scalar stays rank 0: its broadcast maps no dims.)
    SmallVector<int64_t> dimensions;
    for (int64_t d = 0; d < cast<RankedTensorType>(spread.getType()).getRank();
         ++d)
      dimensions.push_back(d);
    columns.push_back(pipe::BroadcastOp::create(
        builder, where, tensorType("f32", column), spread,
        builder.getDenseI64ArrayAttr(dimensions)));
  }
  DimAST count;
  count.size = int64_t(values.size());
  dims.push_back(count);
  return pipe::ConcatOp::create(
      builder, where, tensorType("f32", dims), columns,
      builder.getI64IntegerAttr(int64_t(dims.size()) - 1));
}

/// resize's region of interest (roi_start, roi_end, each [y, x] or one
/// per sample [..., 2]) as the resample's (y0, x0, y1, x1) per sample,
/// in pixels (relative_roi scales by H and W).
Value Generator::emitResizeRoi(const CallExprAST &call, Value images,
                               Location where) {
  auto imagesType = cast<RankedTensorType>(images.getType());
  int64_t firstAxis = imagesType.getRank() - 3;
  SmallVector<Value> corners;
  for (const char *name : {"roi_start", "roi_end"}) {
    const ExprAST &corner = *keywordValue(call, name);
    for (int64_t i = 0; i < 2; ++i) {
      Value value;
      if (auto *list = llvm::dyn_cast<ListExprAST>(&corner))
        value =
            castTo(emitExpr(*list->elements[size_t(i)], "f32"), "f32", where);
      else
        value = pipe::createTrailingSlice(
            builder, where, castTo(emitExpr(corner, "f32"), "f32", where), {i});
      if (call.relativeRoi) {
        Value size =
            castTo(dimValue(dimOf(images, firstAxis + i), where), "f32", where);
        value =
            pipe::MulOp::create(builder, where, value.getType(), value, size);
      }
      corners.push_back(value);
    }
  }
  Value regions = stackLast(corners, sampleDims(call), where);
  // Coordinates only the run knows are checked then: each in [0, H] or
  // [0, W] (NaN in neither), or the run fails naming the sample. Literals
  // were checked when compiling against static sizes (and fractions
  // against 1); against a size only the run knows they are checked then
  // too. (The resize's launcher relies on it: pipe_resize_tiles_fit.)
  bool checked = true;
  for (const char *name : {"roi_start", "roi_end"})
    if (auto *list = llvm::dyn_cast<ListExprAST>(keywordValue(call, name)))
      for (const ExprPtr &element : list->elements)
        checked &= llvm::isa<NumberExprAST>(*element);
    else
      checked = false;
  checked &= call.relativeRoi ||
             (!imagesType.isDynamicDim(firstAxis) &&
              !imagesType.isDynamicDim(firstAxis + 1));
  if (checked)
    return regions;
  std::string height = dimOf(images, firstAxis).str();
  std::string width = dimOf(images, firstAxis + 1).str();
  std::string at = pipe::describeLocation(where);
  // One region for all samples (literals) names none.
  bool perSample = cast<RankedTensorType>(regions.getType()).getRank() > 1;
  SmallVector<Attribute> lows, highs, messages;
  for (int64_t column = 0; column < 4; ++column) {
    bool y = column % 2 == 0;
    lows.push_back(builder.getStringAttr("0"));
    highs.push_back(builder.getStringAttr(y ? height : width));
    messages.push_back(builder.getStringAttr(
        "resize" + (at.empty() ? "" : " at " + at) + ": " +
        (column < 2 ? "roi_start" : "roi_end") + "'s " + (y ? "y" : "x") +
        (perSample ? " of sample {at}" : "") + " is {value}" +
        // (The value given times the dim: say so, or the user looks for
        // a value they never wrote.)
        (call.relativeRoi
             ? " pixels (relative_roi: the value given times " +
                   (y ? height : width) + ")"
             : "") +
        ", outside the image's [{lo}, {hi}]"));
  }
  return pipe::CheckBoundsOp::create(
      builder, where, regions, builder.getArrayAttr(lows),
      builder.getArrayAttr(highs), builder.getArrayAttr(messages));
}

Value Generator::checkedRange(Value value, llvm::StringRef lo,
                              llvm::StringRef hi, const std::string &message,
                              Location where) {
  return pipe::CheckBoundsOp::create(
      builder, where, value, builder.getArrayAttr({builder.getStringAttr(lo)}),
      builder.getArrayAttr({builder.getStringAttr(hi)}),
      builder.getArrayAttr({builder.getStringAttr(message)}));
}

Value Generator::reduceTurns(Value degrees, Location where) {
  auto type = cast<RankedTensorType>(degrees.getType());
  Type element = type.getElementType();
  Value full = pipe::ConstantOp::create(
      builder, where,
      isa<FloatType>(element)
          ? TypedAttr(builder.getFloatAttr(element, 360.0))
          : TypedAttr(builder.getIntegerAttr(element, 360)));
  Value small = pipe::LtOp::create(
      builder, where, pipe::withElementType(type, builder.getI1Type()),
      pipe::AbsOp::create(builder, where, type, degrees), full);
  return pipe::SelectOp::create(
      builder, where, type, small, degrees,
      pipe::RemOp::create(builder, where, type, degrees, full));
}

Value Generator::emitDegrees(const ExprAST &given,
                             llvm::StringRef literalDType) {
  if (llvm::isa<NumberExprAST>(given))
    return emitExpr(given, literalDType);
  if (given.type.isWeakLiteral())
    return emitExpr(given, given.type.weakFloat ? "f64" : "i64");
  return emitExpr(given, given.type.dtype);
}

Value Generator::withoutWholeTurns(const ExprAST &given, Value degrees,
                                   Location where) {
  if (auto *literal = llvm::dyn_cast<NumberExprAST>(&given)) {
    double reduced;
    if (literal->isFloat) {
      double value = literal->asDouble();
      if (!(std::fabs(value) >= 360.0))
        return degrees;
      reduced = std::fmod(value, 360.0); // exact
    } else {
      __int128 value = literal->exactValue();
      if (value > -360 && value < 360)
        return degrees;
      reduced = double(value % 360);
    }
    return pipe::ConstantOp::create(
        builder, where, builder.getFloatAttr(elementType("f64"), reduced));
  }
  Type element = getElementTypeOrSelf(degrees.getType());
  if (element.isF64() || (element.isInteger() && !element.isInteger(1)))
    return reduceTurns(degrees, where);
  return degrees;
}

Value Generator::checkedFinite(Value value, const std::string &what,
                               Location where) {
  return checkedRange(value, "0 - 4611686018427387904", "4611686018427387904",
                      what + " is {value}, not a finite number of magnitude "
                             "at most 2^62",
                      where);
}

/// random_resized_crop's windows: pipe.random resized_crop over
/// [samples..., 4] with the images' height and width.
Value Generator::emitCropWindows(const CallExprAST &call, Value images,
                                 Location where) {
  auto imagesType = cast<RankedTensorType>(images.getType());
  int64_t firstAxis = imagesType.getRank() - 3;
  std::vector<DimAST> dims = sampleDims(call);
  DimAST four;
  four.size = 4;
  dims.push_back(four);
  auto number = [&](double value) -> Value {
    return pipe::ConstantOp::create(
        builder, where, builder.getFloatAttr(elementType("f64"), value));
  };
  SmallVector<Value> params = {
      castTo(dimValue(dimOf(images, firstAxis), where), "f64", where),
      castTo(dimValue(dimOf(images, firstAxis + 1), where), "f64", where),
      number(call.cropScale[0]),
      number(call.cropScale[1]),
      number(call.cropRatio[0]),
      number(call.cropRatio[1])};
  return pipe::RandomOp::create(
      builder, where, tensorType("f32", dims), randomIndex(dims, where), params,
      pipe::RandomDistributionAttr::get(builder.getContext(),
                                        pipe::RandomDistribution::resized_crop),
      builder.getI64IntegerAttr(randomStreams++),
      call.seed ? builder.getI64IntegerAttr(int64_t(*call.seed))
                : IntegerAttr());
}

/// The color functions. brightness_contrast is elementwise; the others
/// mix the channels by a 3x3 matrix per sample (pipe.channel_mix), DALI's
/// YIQ formulas (core/PipeColor.h documents them).
Value Generator::emitChannelMixOp(const CallExprAST &call,
                                  RankedTensorType type, Location where,
                                  llvm::StringRef) {
  const std::string &callee = call.callee;
  Value input = emitExpr(*call.args[0], call.operandDType);
  const std::string &in = call.operandDType, &out = call.type.dtype;
  std::string f = in == "f64" || out == "f64" ? "f64" : "f32";
  const std::vector<DimAST> &dims = call.args[0]->type.dims;
  int64_t rank = int64_t(dims.size());
  std::vector<DimAST> samples(dims.begin(),
                              dims.begin() + std::max<int64_t>(rank - 3, 0));
  auto number = [&](double value) -> Value {
    return pipe::ConstantOp::create(
        builder, where, builder.getFloatAttr(elementType(f), value));
  };
  // A parameter as `f` over the sample dims (or a scalar).
  auto param = [&](llvm::StringRef name, double fallback) -> Value {
    const ExprAST *given = keywordValue(call, name);
    if (!given)
      return number(fallback);
    return spreadLeading(castTo(emitExpr(*given, f), f, where), samples, where);
  };
  auto shapeOf = [&](Value a, Value b) {
    auto ta = cast<RankedTensorType>(a.getType());
    return ta.getRank() ? ta : cast<RankedTensorType>(b.getType());
  };
  auto mul = [&](Value a, Value b) -> Value {
    return pipe::MulOp::create(builder, where, shapeOf(a, b), a, b);
  };
  auto add = [&](Value a, Value b) -> Value {
    return pipe::AddOp::create(builder, where, shapeOf(a, b), a, b);
  };
  auto sub = [&](Value a, Value b) -> Value {
    return pipe::SubOp::create(builder, where, shapeOf(a, b), a, b);
  };

  if (callee == "brightness_contrast") {
    // out = shift * range(out) + brightness * (centre + contrast * (in -
    // centre)), computed as shift * range(out) + brightness * (in +
    // (contrast - 1) * (in - centre)) (docs/language.md): at contrast 1 the
    // input passes as f32 holds it, where centre + (in - centre) lost a
    // 32- or 64-bit integer's low bits to a centre of 2^30 or more in f32
    // (1 came back 0). DALI's addend + multiplier * in cancels (a contrast
    // of 10^4 lost 4 digits) and turns an infinite brightness into inf -
    // inf = NaN.
    double centre = pipert::getColorHalfRange(in);
    if (const ExprAST *given = keywordValue(call, "contrast_center")) {
      auto *literal = llvm::cast<NumberExprAST>(given);
      centre = literal->asDouble();
    }
    double outRange = pipert::getColorFullRange(out);
    RankedTensorType pixels = tensorType(f, dims);
    auto spread = [&](Value v) { return spreadLeading(v, dims, where); };
    Value x = castTo(input, f, where);
    Value centred =
        pipe::SubOp::create(builder, where, pixels, x, spread(number(centre)));
    Value excess = spread(sub(param("contrast", 1), number(1)));
    Value product =
        pipe::MulOp::create(builder, where, pixels, centred, excess);
    // At contrast 1 the term is -0.0 also for an infinite input (inf * 0
    // would make it NaN), so every value passes: x + -0.0 is x, -0.0
    // included (x + 0.0 would make it 0.0).
    Value unchanged = pipe::EqOp::create(
        builder, where, pipe::withElementType(pixels, builder.getI1Type()),
        excess, number(0));
    Value stretched = pipe::SelectOp::create(builder, where, pixels,
                                             unchanged, number(-0.0), product);
    Value moved =
        pipe::AddOp::create(builder, where, pixels, x, stretched);
    Value bright = pipe::MulOp::create(builder, where, pixels, moved,
                                       spread(param("brightness", 1)));
    // A shift of 0 adds -0.0, which keeps a -0.0 pixel's sign, as above.
    Value shift = mul(param("brightness_shift", 0), number(outRange));
    auto shiftType = cast<RankedTensorType>(shift.getType());
    shift = pipe::SelectOp::create(
        builder, where, shiftType,
        pipe::EqOp::create(builder, where,
                           pipe::withElementType(shiftType,
                                                 builder.getI1Type()),
                           shift, number(0)),
        number(-0.0), shift);
    Value sum =
        pipe::AddOp::create(builder, where, pixels, spread(shift), bright);
    return castTo(sum, out, where);
  }

  Value matrix, offset = number(0);
  DimAST three;
  three.size = 3;
  if (callee == "color_space_conversion") {
    pipert::ColorConversion conversion =
        pipert::getColorConversion(call.fromColor, call.toColor, in);
    int64_t c = int64_t(conversion.offset.size());
    int64_t k = int64_t(conversion.matrix.size()) / c;
    matrix = constantTensor({c, k}, conversion.matrix, f, where);
    offset = constantTensor({c}, conversion.offset, f, where);
  } else {
    // M = value * brightness * contrast * (A0 + s cos(h) A1 + s sin(h) A2),
    // the product Yiq2Rgb * hue * saturation * Rgb2Yiq expanded.
    pipert::ColorYiqTerms terms = pipert::getColorYiqTerms();
    // The hue's whole turns are taken out before it becomes f32 (or f64),
    // which would round 16777217 degrees first (withoutWholeTurns), then
    // again in that dtype. Smaller angles are kept as they are: -20 as
    // 340 would take the sine further from 0, where CUDA's and the host's
    // differ in more bits.
    Value h = number(0), s = param("saturation", 1);
    if (const ExprAST *given = keywordValue(call, "hue")) {
      Value degrees = emitDegrees(*given, f);
      h = spreadLeading(castTo(withoutWholeTurns(*given, degrees, where), f,
                               where),
                        samples, where);
    }
    // (Unreduced, an angle of 36000032 turned by f32(36000032 * pi / 180)
    // was off by 0.06 rad.)
    Value radians = mul(reduceTurns(h, where), number(M_PI / 180));
    auto trig = [&](bool sine) -> Value {
      auto t = cast<RankedTensorType>(radians.getType());
      return sine ? Value(pipe::SinOp::create(builder, where, t, radians))
                  : Value(pipe::CosOp::create(builder, where, t, radians));
    };
    Value scale = param("value", 1);
    if (callee == "color_twist")
      scale = mul(param("brightness", 1), param("contrast", 1));
    std::vector<DimAST> full = samples;
    full.push_back(three);
    full.push_back(three);
    RankedTensorType fullType = tensorType(f, full);
    auto term = [&](ArrayRef<double> a, Value weight) -> Value {
      Value constant = constantTensor({3, 3}, a, f, where);
      if (!samples.empty())
        constant = broadcastTo(constant, full, where);
      return pipe::MulOp::create(builder, where, fullType, constant,
                                 spreadLeading(weight, full, where));
    };
    Value sum = pipe::AddOp::create(
        builder, where, fullType,
        pipe::AddOp::create(builder, where, fullType, term(terms.a0, number(1)),
                            term(terms.a1, mul(s, trig(false)))),
        term(terms.a2, mul(s, trig(true))));
    matrix = pipe::MulOp::create(builder, where, fullType, sum,
                                 spreadLeading(scale, full, where));
    if (callee == "color_twist") {
      // DALI's offset: (half - half * contrast) * brightness, each
      // channel, half being 0.5 for float images and 128 for any integer
      // one (color_twist.h; brightness_contrast's centre is the dtype's).
      double half = isFloatDType(in) ? 0.5 : 128.0;
      Value o = mul(sub(number(half), mul(number(half), param("contrast", 1))),
                    param("brightness", 1));
      std::vector<DimAST> offsetDims = samples;
      offsetDims.push_back(three);
      offset = spreadLeading(o, offsetDims, where);
      if (cast<RankedTensorType>(offset.getType()).getRank() == 0)
        offset =
            pipe::BroadcastOp::create(builder, where, tensorType(f, {three}),
                                      offset, builder.getDenseI64ArrayAttr({}));
    }
  }
  return pipe::ChannelMixOp::create(builder, where, type, input, matrix,
                                    offset);
}

/// Each element's row-major index in `dims`, as si64 of that shape:
/// what a random op draws from.
Value Generator::randomIndex(const std::vector<DimAST> &dims, Location where) {
  // index = sum of c<d> * (product of the sizes after d).
  RankedTensorType indexType = tensorType("i64", dims);
  Value index;
  pipert::DimExpr stride = pipert::DimExpr::constant(1);
  for (int64_t d = int64_t(dims.size()) - 1; d >= 0; --d) {
    const DimAST &dim = dims[size_t(d)];
    if (!dim.isSymbolic() && dim.size == 1)
      continue; // its coordinate is 0
    Value term = pipe::CoordinateOp::create(builder, where, indexType,
                                            builder.getI64IntegerAttr(d));
    if (!(stride.isConstant() && stride.getConstant() == 1))
      term = pipe::MulOp::create(builder, where, indexType, term,
                                 dimValue(stride, where));
    index =
        index
            ? Value(pipe::AddOp::create(builder, where, indexType, index, term))
            : term;
    stride = stride * *pipert::DimExpr::parse(dim.str());
  }
  // A shape of 1s (or none): every coordinate is 0, the index too, of the
  // shape drawn.
  if (!index) {
    index = dimValue(pipert::DimExpr::constant(0), where);
    if (!dims.empty())
      index = pipe::BroadcastOp::create(builder, where, indexType, index,
                                        builder.getDenseI64ArrayAttr({}));
  }
  return index;
}

/// A bound of randint, as pipe.random takes it (i64, u64 for a u64 draw)
/// broadcast to the shape drawn. One only the run knows (a size's, a
/// tensor's) is checked then, in its own dtype, where the draw is narrower
/// than 64 bits: lo must fit the dtype and hi - 1 too (hi is never drawn;
/// Sema checks literals). A 64-bit draw takes its bounds as a cast
/// converts them.
Value Generator::randintBound(const ExprAST *bound, bool isLo,
                              const CallExprAST &call, Location where) {
  const std::vector<DimAST> &dims = call.type.dims;
  const std::string &dtype = call.type.dtype;
  llvm::StringRef paramDType = dtype == "u64" ? "u64" : "i64";
  if (llvm::isa<NumberExprAST, ListExprAST>(*bound) ||
      pipec::getDTypeBits(dtype) >= 64)
    return operand(*bound, paramDType, dims, where);
  auto [least, most] = pipec::getIntegerRange(dtype);
  std::string at = pipe::describeLocation(where);
  Value given = emitExpr(*bound, paramDType);
  // "randint at f.pipe:2:7: hi of element [3] is 300" ("hi is" alone for
  // one value: a size's).
  std::string what = "randint" + (at.empty() ? "" : " at " + at) + ": " +
                     (isLo ? "lo" : "hi") +
                     (cast<RankedTensorType>(given.getType()).getRank() == 0
                          ? " is {value}"
                          : " of element {at} is {value}");
  Value value =
      isLo ? checkedRange(given, std::to_string(int64_t(least)),
                          std::to_string(int64_t(most)),
                          what + ", which " + dtype + " cannot hold", where)
           : checkedRange(given, "0 - 9223372036854775807 - 1",
                          std::to_string(int64_t(most) + 1),
                          what + ": it draws up to hi - 1, which " + dtype +
                              " cannot hold",
                          where);
  return broadcastTo(castTo(value, paramDType, where), dims, where);
}

/// uniform, normal, coin_flip, randint: pipe.random over each element's
/// row-major index in the shape drawn, with the distribution's
/// parameters as f64 (si64 for randint) broadcast to it.
Value Generator::emitRandomOp(const CallExprAST &call, RankedTensorType type,
                              Location where, llvm::StringRef) {
  const std::vector<DimAST> &dims = call.type.dims;
  bool randint = call.callee == "randint";
  // A u64 draw takes u64 bounds: they may pass the i64s.
  llvm::StringRef paramDType = !randint                   ? "f64"
                               : call.type.dtype == "u64" ? "u64"
                                                          : "i64";
  Value index = randomIndex(dims, where);
  // The parameters, in pipe.random's order.
  auto param = [&](const ExprAST *given, double fallback) -> Value {
    if (given)
      return operand(*given, paramDType, dims, where);
    Type element = elementType(paramDType);
    return pipe::ConstantOp::create(
        builder, where,
        randint ? TypedAttr(builder.getIntegerAttr(element, uint64_t(fallback)))
                : TypedAttr(builder.getFloatAttr(element, fallback)));
  };
  SmallVector<Value> params;
  pipe::RandomDistribution kind;
  if (call.callee == "uniform") {
    kind = pipe::RandomDistribution::uniform;
    const ExprAST *range = keywordValue(call, "range");
    auto *list = llvm::dyn_cast_or_null<ListExprAST>(range);
    params.push_back(param(list ? list->elements[0].get() : nullptr, 0.0));
    params.push_back(param(list ? list->elements[1].get() : nullptr, 1.0));
  } else if (call.callee == "normal") {
    kind = pipe::RandomDistribution::normal;
    params.push_back(param(keywordValue(call, "mean"), 0.0));
    const ExprAST *stddev = keywordValue(call, "stddev");
    if (stddev && !llvm::isa<NumberExprAST, ListExprAST>(*stddev)) {
      // A stddev only the run knows is checked then, as NumPy and torch
      // refuse a negative one; before it is spread over the shape drawn.
      // In its own dtype: the check reads the parameter as given.
      std::string at = pipe::describeLocation(where);
      Value value = checkedRange(
          emitExpr(*stddev, "f64"), "0", "4611686018427387904",
          "normal" + (at.empty() ? "" : " at " + at) +
              ": the stddev of element {at} is {value}, not a finite "
              "number in [0, 2^62]",
          where);
      params.push_back(broadcastTo(castTo(value, "f64", where), dims, where));
    } else {
      params.push_back(param(stddev, 1.0));
    }
  } else if (call.callee == "coin_flip") {
    kind = pipe::RandomDistribution::coin_flip;
    const ExprAST *p = keywordValue(call, "probability");
    const ExprAST *given = p ? p : keywordValue(call, "p");
    params.push_back(param(given, 0.5));
    // A probability only the run knows is checked then.
    if (given && !llvm::isa<NumberExprAST, ListExprAST>(*given)) {
      std::string at = pipe::describeLocation(where);
      params.back() = checkedRange(
          params.back(), "0", "1",
          "coin_flip" + (at.empty() ? "" : " at " + at) +
              ": the probability of element {at} is {value}, outside [0, 1]",
          where);
    }
  } else {
    kind = pipe::RandomDistribution::randint;
    const ExprAST *lo = keywordValue(call, "lo");
    const ExprAST *hi = keywordValue(call, "hi");
    size_t positional = 0;
    if (!lo)
      lo = call.args[positional++].get();
    if (!hi)
      hi = call.args[positional].get();
    params.push_back(randintBound(lo, /*isLo=*/true, call, where));
    params.push_back(randintBound(hi, /*isLo=*/false, call, where));
  }
  return pipe::RandomOp::create(
      builder, where, type, index, params,
      pipe::RandomDistributionAttr::get(builder.getContext(), kind),
      builder.getI64IntegerAttr(randomStreams++),
      call.seed ? builder.getI64IntegerAttr(int64_t(*call.seed))
                : IntegerAttr());
}

} // namespace mlirgen
} // namespace pipec
