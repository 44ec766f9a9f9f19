//===- MLIRGenLayout.cpp - The layout functions to pipe ops ---------------===//
//
// Subscripts, crop, flip, pad, take, concat and stack, coordinates,
// zeros/ones/full and erase: each a layout op of the dialect with its
// per-sample parameters as scalar or per-sample tensors.
//
//===----------------------------------------------------------------------===//

#include "frontend/MLIRGenerator.h"
#include "frontend/Sema.h"

#include "llvm/Support/Casting.h"

using namespace mlir;

namespace pipec {
namespace mlirgen {

/// `count` per-sample integer values from `param`: a list of them (sizes
/// or tensors), or a tensor whose last dim holds them ([.., count] or
/// [.., count / per, per]). Weak sizes become si64.
SmallVector<Value> Generator::sampleValues(const ExprAST &param, size_t count,
                                           int64_t per, bool split,
                                           Location where) {
  SmallVector<Value> values;
  if (auto *list = llvm::dyn_cast<ListExprAST>(&param)) {
    for (const ExprPtr &element : list->elements)
      values.push_back(element->size ? dimValue(*element->size, where)
                                     : emitExpr(*element, "i64"));
    return values;
  }
  Value tensor = emitExpr(param, "i64");
  for (size_t i = 0; i < count; ++i)
    values.push_back(
        split
            ? pipe::createTrailingSlice(builder, where, tensor,
                                        {int64_t(i) / per, int64_t(i) % per})
            : pipe::createTrailingSlice(builder, where, tensor, {int64_t(i)}));
  return values;
}

Value Generator::emitSubscript(const SubscriptExprAST &expr,
                               llvm::StringRef literalDType) {
  Value input = emitExpr(*expr.base, literalDType);
  RankedTensorType type = tensorType(expr.type.dtype, expr.type.dims);
  bool whole =
      type == input.getType() &&
      llvm::all_of(expr.steps, [](int64_t s) { return s == 1; }) &&
      llvm::none_of(expr.dropped, [](bool d) { return d; }) &&
      llvm::all_of(expr.starts, [](const std::string &s) { return s == "0"; });
  if (whole)
    return input;
  SmallVector<bool> dropped(expr.dropped.begin(), expr.dropped.end());
  return pipe::SliceOp::create(
      builder, loc(expr.getLoc()), type, input, stringsAttr(expr.starts),
      builder.getDenseI64ArrayAttr(expr.steps),
      builder.getDenseBoolArrayAttr(dropped),
      expr.dimChecks.empty() ? ArrayAttr() : stringsAttr(expr.dimChecks));
}

Value Generator::emitCropOp(const CallExprAST &call, RankedTensorType type,
                            Location where, llvm::StringRef literalDType) {
  Value input = emitExpr(*call.args[0], literalDType);
  auto inputType = cast<RankedTensorType>(input.getType());
  SmallVector<Value> anchors;
  if (const ExprAST *anchor = keywordValue(call, "anchor")) {
    anchors = sampleValues(*anchor, call.axes.size(), 1, call.anchorSplit,
                           where);
  } else {
    // Centred: (size - window) // 2.
    for (auto [axis, window] : llvm::zip(call.axes, call.shape)) {
      pipert::DimExpr size =
          inputType.isDynamicDim(axis)
              ? *pipert::DimExpr::parse(pipe::getDimNames(inputType)[axis])
              : pipert::DimExpr::constant(inputType.getDimSize(axis));
      anchors.push_back(dimValue(
          pipert::DimExpr::floorDiv(size - *pipert::DimExpr::parse(window),
                                    pipert::DimExpr::constant(2)),
          where));
    }
  }
  return pipe::CropOp::create(
      builder, where, type, input, anchors,
      builder.getDenseI64ArrayAttr(call.axes),
      pipe::OutOfBoundsAttr::get(builder.getContext(),
                                 *pipe::symbolizeOutOfBounds(call.outOfBounds)),
      convertedLiteralAttr(
          llvm::dyn_cast_or_null<NumberExprAST>(keywordValue(call, "fill")),
          inputType.getElementType()));
}

Value Generator::emitFlipOp(const CallExprAST &call, RankedTensorType type,
                            Location where, llvm::StringRef literalDType) {
  Value input = emitExpr(*call.args[0], literalDType);
  Value when;
  if (const ExprAST *flag = keywordValue(call, "when")) {
    if (auto *literal = llvm::dyn_cast<BoolExprAST>(flag)) {
      if (!literal->value)
        return input;
    } else {
      when = emitExpr(*flag, "bool");
    }
  }
  return pipe::FlipOp::create(builder, where, type, input, when,
                              builder.getDenseI64ArrayAttr(call.axes));
}

Value Generator::emitPadOp(const CallExprAST &call, RankedTensorType type,
                           Location where, llvm::StringRef literalDType) {
  Value input = emitExpr(*call.args[0], literalDType);
  auto pad = pipe::PadOp::create(
      builder, where, type, input, builder.getDenseI64ArrayAttr(call.axes),
      stringsAttr(call.before), stringsAttr(call.after),
      pipe::BorderAttr::get(builder.getContext(),
                            *pipe::symbolizeBorder(call.border)),
      convertedLiteralAttr(
          llvm::dyn_cast_or_null<NumberExprAST>(keywordValue(call, "fill")),
          cast<RankedTensorType>(input.getType()).getElementType()));
  if (!call.dimChecks.empty())
    pad->setAttr("dim_checks", stringsAttr(call.dimChecks));
  return pad;
}

Value Generator::emitTakeOp(const CallExprAST &call, RankedTensorType type,
                            Location where, llvm::StringRef literalDType) {
  Value input = emitExpr(*call.args[0], literalDType);
  Value indices = emitExpr(*call.args[1], "i64");
  return pipe::TakeOp::create(builder, where, type, input, indices,
                              builder.getI64IntegerAttr(call.axis));
}

Value Generator::emitConcatOp(const CallExprAST &call, RankedTensorType type,
                              Location where, llvm::StringRef) {
  auto &list = llvm::cast<ListExprAST>(*call.args[0]);
  SmallVector<Value> inputs;
  for (const ExprPtr &element : list.elements) {
    Value input =
        castTo(emitExpr(*element, call.operandDType), call.operandDType, where);
    if (call.callee == "stack") {
      // A dim of 1 at the axis, then concat along it.
      auto inputType = cast<RankedTensorType>(input.getType());
      std::vector<DimAST> dims = element->type.dims;
      DimAST one;
      one.size = 1;
      dims.insert(dims.begin() + call.axis, one);
      SmallVector<int64_t> dimensions;
      for (int64_t d = 0; d < inputType.getRank(); ++d)
        dimensions.push_back(d < call.axis ? d : d + 1);
      input = pipe::BroadcastOp::create(
          builder, where, tensorType(call.operandDType, dims), input,
          builder.getDenseI64ArrayAttr(dimensions));
    }
    inputs.push_back(input);
  }
  return pipe::ConcatOp::create(builder, where, type, inputs,
                                builder.getI64IntegerAttr(call.axis));
}

Value Generator::emitCoordinateOp(const CallExprAST &call,
                                  RankedTensorType type, Location where,
                                  llvm::StringRef) {
  return pipe::CoordinateOp::create(builder, where, type,
                                    builder.getI64IntegerAttr(call.axis));
}

Value Generator::emitBroadcastOp(const CallExprAST &call, RankedTensorType type,
                                 Location where, llvm::StringRef) {
  // zeros, ones, full: a scalar repeated over the shape.
  const std::string &dtype = call.operandDType;
  Value value;
  if (call.callee == "full") {
    const ExprAST &given = *call.args.back();
    value = castTo(emitExpr(given, dtype), dtype, where);
  } else {
    Type element = elementType(dtype);
    Attribute attr = call.callee == "zeros" ? builder.getZeroAttr(element)
                     : isa<FloatType>(element)
                         ? Attribute(builder.getFloatAttr(element, 1.0))
                         : Attribute(builder.getIntegerAttr(element, 1));
    value = pipe::ConstantOp::create(builder, where, cast<TypedAttr>(attr));
  }
  return pipe::BroadcastOp::create(builder, where, type, value,
                                   builder.getDenseI64ArrayAttr({}));
}

Value Generator::emitEraseOp(const CallExprAST &call, RankedTensorType type,
                             Location where, llvm::StringRef literalDType) {
  Value input = emitExpr(*call.args[0], literalDType);
  int64_t k = int64_t(call.axes.size());
  SmallVector<Value> anchors =
      sampleValues(*keywordValue(call, "anchor"), size_t(call.regions * k), k,
                   call.anchorSplit, where);
  SmallVector<Value> sizes =
      sampleValues(*keywordValue(call, "shape"), size_t(call.shapeValues), k,
                   call.shapeSplit, where);
  std::string dtype = type.getElementType().isInteger(1)
                          ? "bool"
                          : pipe::getDTypeName(type.getElementType());
  Value fill;
  if (const ExprAST *given = keywordValue(call, "fill")) {
    // A float literal for an integer or bool tensor converts as a cast
    // does (Sema lets it).
    auto *number = llvm::dyn_cast<NumberExprAST>(given);
    bool floatLiteral = number && number->isFloat && !isFloatDType(dtype);
    fill = castTo(emitExpr(*given, floatLiteral ? "f64" : dtype), dtype, where);
  } else
    fill = pipe::ConstantOp::create(
        builder, where,
        cast<TypedAttr>(builder.getZeroAttr(type.getElementType())));
  // No boxes (an anchor of [N, 0]): the tensor as it is. (Its parameters
  // are emitted all the same: a random draw among them keeps its place
  // among the pipeline's random calls, and the ones after it theirs.)
  if (call.regions == 0)
    return input;
  return pipe::EraseOp::create(builder, where, type, input, anchors, sizes,
                               fill, builder.getDenseI64ArrayAttr(call.axes),
                               builder.getI64IntegerAttr(call.regions));
}

} // namespace mlirgen
} // namespace pipec
