//===- MLIRGen.cpp - .pipe AST to the pipe dialect ------------------------===//
//
// Sema has decided every dtype and shape; MLIRGen makes the conversions
// explicit: operands are cast to the dtype an op computes in and broadcast
// to its result's shape (rank-0 values broadcast implicitly), weak literals
// become constants of the dtype they took, and functions that are
// compositions (clamp, unary minus) are expanded. This file has the
// generator's core (pipelines, expressions, elementwise ops, reductions,
// blurs); MLIRGenLayout.cpp and MLIRGenImage.cpp the rest of its emitters
// (MLIRGenerator.h).
//
//===----------------------------------------------------------------------===//

#include "frontend/MLIRGen.h"
#include "frontend/MLIRGenerator.h"

#include "dialect/PipeDialect.h"
#include "frontend/Sema.h"

#include "core/DimExpr.h"
#include "core/PipeColor.h"

#include "dialect/PipeSpellings.inc"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

using namespace pipec;
using namespace mlir;

Type pipec::getElementType(MLIRContext *context, llvm::StringRef dtype) {
  if (dtype == "f32")
    return Float32Type::get(context);
  if (dtype == "f64")
    return Float64Type::get(context);
  if (dtype == "f16")
    return Float16Type::get(context);
  if (dtype == "bf16")
    return BFloat16Type::get(context);
  if (dtype == "bool")
    return IntegerType::get(context, 1);
  return IntegerType::get(context, getDTypeBits(dtype),
                          isUnsignedDType(dtype) ? IntegerType::Unsigned
                                                 : IntegerType::Signed);
}

namespace pipec {
namespace mlirgen {

Location Generator::loc(llvm::SMLoc smLoc) {
  unsigned bufferId = sourceMgr.FindBufferContainingLoc(smLoc);
  if (!bufferId)
    return builder.getUnknownLoc();
  // SourceMgr finds a column by scanning back to the line's start, which
  // is quadratic over a long line (40,000 parameters on one line took
  // 10 s). Locations mostly come in source order: go on from the last one
  // when it is earlier on the same line.
  const char *ptr = smLoc.getPointer();
  unsigned line, column;
  if (bufferId == last.bufferId && last.ptr && last.ptr <= ptr &&
      llvm::StringRef(last.ptr, ptr - last.ptr).find_first_of("\r\n") ==
          llvm::StringRef::npos) {
    line = last.line;
    column = last.column + unsigned(ptr - last.ptr);
  } else {
    std::tie(line, column) = sourceMgr.getLineAndColumn(smLoc, bufferId);
  }
  last = {bufferId, ptr, line, column};
  return FileLineColLoc::get(
      builder.getStringAttr(
          sourceMgr.getMemoryBuffer(bufferId)->getBufferIdentifier()),
      line, column);
}

Type Generator::elementType(llvm::StringRef dtype) {
  return getElementType(builder.getContext(), dtype);
}

RankedTensorType Generator::tensorType(llvm::StringRef dtype,
                                       const std::vector<DimAST> &dims) {
  SmallVector<int64_t> shape;
  SmallVector<StringRef> names;
  for (const DimAST &dim : dims) {
    shape.push_back(dim.isSymbolic() ? ShapedType::kDynamic : dim.size);
    if (dim.isSymbolic())
      names.push_back(dim.symbol);
  }
  return pipe::getPipeTensorType(shape, names, elementType(dtype));
}

/// The attribute of one literal as `dtype`.
TypedAttr Generator::literalAttr(const NumberExprAST &number,
                                 llvm::StringRef dtype) {
  Type type = elementType(dtype);
  if (isFloatDType(dtype))
    return builder.getFloatAttr(type, number.asDouble());
  // As bool, a number is true where nonzero (as a cast converts it).
  if (type.isInteger(1))
    return builder.getBoolAttr(number.isFloat ? number.floatValue != 0
                                              : number.intValue != 0);
  return builder.getIntegerAttr(type, number.intValue);
}

TypedAttr Generator::convertedLiteralAttr(const NumberExprAST *literal,
                                          Type element) {
  if (!literal)
    return cast<TypedAttr>(builder.getZeroAttr(element));
  const NumberExprAST &number = *literal;
  if (element.isInteger(1))
    return builder.getBoolAttr(number.isFloat ? number.floatValue != 0
                                              : number.exactValue() != 0);
  if (auto floatType = dyn_cast<FloatType>(element)) {
    // One rounding, from the literal's exact value to the dtype.
    llvm::APFloat value(floatType.getFloatSemantics());
    bool lost;
    if (number.isFloat) {
      value = llvm::APFloat(number.floatValue);
      value.convert(floatType.getFloatSemantics(),
                    llvm::APFloat::rmNearestTiesToEven, &lost);
    } else {
      __int128 exact = number.exactValue();
      uint64_t words[2] = {uint64_t(exact), uint64_t(exact >> 64)};
      value.convertFromAPInt(llvm::APInt(128, words), /*IsSigned=*/true,
                             llvm::APFloat::rmNearestTiesToEven);
    }
    return builder.getFloatAttr(element, value);
  }
  auto [lo, hi] = getIntegerRange(pipe::getDTypeName(element));
  __int128 value;
  if (number.isFloat) {
    // Literals are finite (the parser says so); 2^127 bounds every dtype.
    double rounded = std::nearbyint(number.floatValue);
    value = rounded <= double(lo)   ? lo
            : rounded >= double(hi) ? hi
                                    : __int128(rounded);
  } else {
    value = std::clamp(number.exactValue(), lo, hi);
  }
  return builder.getIntegerAttr(
      element, llvm::APInt(element.getIntOrFloatBitWidth(), uint64_t(value),
                           /*isSigned=*/!element.isUnsignedInteger(),
                           /*implicitTrunc=*/true));
}

Value Generator::constant(const ExprAST &literal, llvm::StringRef dtype) {
  Location where = loc(literal.getLoc());
  if (auto *list = llvm::dyn_cast<ListExprAST>(&literal)) {
    SmallVector<Attribute> elements;
    for (const ExprPtr &element : list->elements)
      elements.push_back(
          literalAttr(llvm::cast<NumberExprAST>(*element), dtype));
    auto type =
        RankedTensorType::get({int64_t(elements.size())}, elementType(dtype));
    return pipe::ConstantOp::create(builder, where,
                                    DenseElementsAttr::get(type, elements));
  }
  if (auto *boolean = llvm::dyn_cast<BoolExprAST>(&literal))
    return pipe::ConstantOp::create(builder, where,
                                    builder.getBoolAttr(boolean->value));
  return pipe::ConstantOp::create(
      builder, where, literalAttr(llvm::cast<NumberExprAST>(literal), dtype));
}

/// Converts `value` to `dtype` if it has another.
Value Generator::castTo(Value value, llvm::StringRef dtype, Location where) {
  auto type = cast<RankedTensorType>(value.getType());
  Type element = elementType(dtype);
  if (type.getElementType() == element)
    return value;
  return pipe::CastOp::create(builder, where,
                              pipe::withElementType(type, element), value);
}

/// Broadcasts `value` to `dims` (NumPy: trailing dims align) unless it
/// already has them or is rank 0.
Value Generator::broadcastTo(Value value, const std::vector<DimAST> &dims,
                             Location where) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() == 0)
    return value;
  RankedTensorType target =
      tensorType(pipe::getDTypeName(type.getElementType()), dims);
  if (pipe::haveSameShape(type, target))
    return value;
  SmallVector<int64_t> dimensions;
  int64_t offset = int64_t(dims.size()) - type.getRank();
  for (int64_t i = 0; i < type.getRank(); ++i)
    dimensions.push_back(offset + i);
  return pipe::BroadcastOp::create(builder, where, target, value,
                                   builder.getDenseI64ArrayAttr(dimensions));
}

/// Emits an operand of an op that computes in `dtype` over `dims`.
Value Generator::operand(const ExprAST &expr, llvm::StringRef dtype,
                         const std::vector<DimAST> &dims, Location where) {
  return broadcastTo(castTo(emitExpr(expr, dtype), dtype, where), dims, where);
}

/// The elementwise op that `spelling` (an operator, or a function name)
/// of `operands.size()` operands names (dialect/PipeSource.td).
Value Generator::emitElementwise(llvm::StringRef spelling, bool isOperator,
                                 ValueRange operands, RankedTensorType type,
                                 Location where) {
#define PIPE_SPELLING(Class, name, op, arity, accepts)                         \
  if (isOperator == bool(op) && operands.size() == arity && spelling == name)  \
    return pipe::Class##Op::create(builder, where, TypeRange{type}, operands);
  PIPE_ELEMENTWISE_SPELLINGS(PIPE_SPELLING)
#undef PIPE_SPELLING
  llvm_unreachable("Sema let a spelling without an op through");
}

Value Generator::emitCall(const CallExprAST &call,
                          llvm::StringRef literalDType) {
  Location where = loc(call.getLoc());
  const std::string &callee = call.callee;
  // (A function of dims alone is weak: it computes in its operand dtype.)
  RankedTensorType type = tensorType(
      call.type.isWeakLiteral() ? call.operandDType : call.type.dtype,
      call.type.dims);
  if (isDType(callee)) {
    Value input = emitExpr(*call.args[0], call.operandDType);
    return castTo(input, callee, where);
  }
  // The function of a structured op (as Sema chose it): emit<Op>.
  if (callee != "clamp" && callee != "select" &&
      !hasElementwiseFunction(callee, call.args.size())) {
#define PIPE_FUNCTION(Class, name, positional, keywords)                       \
  if (callee == name)                                                          \
    return emit##Class##Op(call, type, where, literalDType);
    PIPE_FUNCTIONS(PIPE_FUNCTION)
#undef PIPE_FUNCTION
  }
  return emitElementwiseCall(call, type, where);
}

/// Whether `name` is an elementwise function of `arity` operands.
bool Generator::hasElementwiseFunction(llvm::StringRef name, size_t arity) {
#define PIPE_SPELLING(Class, spelling, op, n, accepts)                         \
  if (!op && n == arity && name == spelling)                                   \
    return true;
  PIPE_ELEMENTWISE_SPELLINGS(PIPE_SPELLING)
#undef PIPE_SPELLING
  return false;
}

Value Generator::emitElementwiseCall(const CallExprAST &call,
                                     RankedTensorType type, Location where) {
  const std::string &callee = call.callee;
  const std::vector<DimAST> &dims = call.type.dims;
  const std::string &dtype = call.operandDType;
  auto arg = [&](unsigned i) {
    return operand(*call.args[i], dtype, dims, where);
  };
  RankedTensorType computed = tensorType(dtype, dims);
  if (callee == "select") {
    Value condition = broadcastTo(emitExpr(*call.args[0], "bool"), dims, where);
    auto select =
        pipe::SelectOp::create(builder, where, type, condition, arg(1), arg(2));
    if (!call.versionMerge.empty())
      select->setAttr(pipe::kVersionMergeAttr,
                      builder.getStringAttr(call.versionMerge));
    return select;
  }
  if (callee == "clamp") {
    Value low = pipe::MaxOp::create(builder, where, computed, arg(0), arg(1));
    return pipe::MinOp::create(builder, where, type, low, arg(2));
  }
  SmallVector<Value> operands;
  for (unsigned i = 0; i < call.args.size(); ++i)
    operands.push_back(arg(i));
  return emitElementwise(callee, /*isOperator=*/false, operands, type, where);
}

Value Generator::emitSelectOp(const CallExprAST &call, RankedTensorType type,
                              Location where, llvm::StringRef) {
  return emitElementwiseCall(call, type, where);
}

Value Generator::emitTransposeOp(const CallExprAST &call, RankedTensorType type,
                                 Location where, llvm::StringRef literalDType) {
  Value input = emitExpr(*call.args[0], literalDType);
  return pipe::TransposeOp::create(
      builder, where, type, input,
      builder.getDenseI64ArrayAttr(call.permutation));
}

Value Generator::emitReshapeOp(const CallExprAST &call, RankedTensorType type,
                               Location where, llvm::StringRef literalDType) {
  Value input = emitExpr(*call.args[0], literalDType);
  return pipe::ReshapeOp::create(builder, where, type, input);
}

Value Generator::emitReduceOp(const CallExprAST &call, RankedTensorType,
                              Location where, llvm::StringRef) {
  const std::string &callee = call.callee;
  Value input = emitExpr(*call.args[0], call.operandDType);
  // The product of bools is the product of 0s and 1s, an i64 (as NumPy).
  // Reducing i64 of them keeps one reducer per kind for bool; the cast
  // fuses into the reduction's loads.
  if (callee == "prod" && call.operandDType == "bool")
    input = castTo(input, "i64", where);
  auto inputType = cast<RankedTensorType>(input.getType());
  // mean computes in its requested float; the others convert after.
  Type element = elementType(
      callee == "mean" ? call.type.dtype
                       : getReductionDType(callee, call.operandDType));
  Value reduced = pipe::ReduceOp::create(
      builder, where,
      pipe::getReducedType(inputType, call.axes, call.keepdims, element), input,
      pipe::ReductionKindAttr::get(builder.getContext(),
                                   *pipe::symbolizeReductionKind(callee)),
      builder.getDenseI64ArrayAttr(call.axes),
      call.keepdims ? builder.getUnitAttr() : UnitAttr());
  return castTo(reduced, call.type.dtype, where);
}

Value Generator::emitCopyOp(const CallExprAST &call, RankedTensorType type,
                            Location where, llvm::StringRef literalDType) {
  return pipe::CopyOp::create(
      builder, where, type, emitExpr(*call.args[0], literalDType),
      pipe::MemorySpaceAttr::get(builder.getContext(),
                                 call.callee == "cpu"
                                     ? pipe::MemorySpace::host
                                     : pipe::MemorySpace::device));
}

Value Generator::emitGaussianBlurOp(const CallExprAST &call,
                                    RankedTensorType type, Location where,
                                    llvm::StringRef) {
  return emitGaussianBlur(call, type, where);
}

Value Generator::emitGaussianBlur(const CallExprAST &call,
                                  RankedTensorType type, Location where) {
  Value input = emitExpr(*call.args[0], call.operandDType);
  Value window, sigma;
  for (const KeywordArgAST &kwarg : call.kwargs) {
    if (kwarg.name == "window")
      window = castTo(emitExpr(*kwarg.value, "i32"), "i32", where);
    else if (kwarg.name == "sigma")
      sigma = castTo(emitExpr(*kwarg.value, "f32"), "f32", where);
  }
  return pipe::GaussianBlurOp::create(
      builder, where, type, input, window, sigma,
      builder.getDenseI64ArrayAttr(call.axes),
      pipe::BorderAttr::get(builder.getContext(),
                            *pipe::symbolizeBorder(call.border)),
      builder.getF64FloatAttr(call.fill));
}

Value Generator::emitWindowOp(const CallExprAST &call, RankedTensorType type,
                              Location where, llvm::StringRef) {
  Value input = emitExpr(*call.args[0], call.operandDType);
  pipe::WindowKind kind = call.callee == "box_filter" ? pipe::WindowKind::box
                          : call.callee == "erode"    ? pipe::WindowKind::min
                          : call.callee == "dilate"   ? pipe::WindowKind::max
                          : call.callee == "median" ? pipe::WindowKind::median
                                                    : pipe::WindowKind::correlate;
  Value weights;
  if (kind == pipe::WindowKind::correlate) {
    const ExprAST &kernel = *keywordValue(call, "kernel");
    if (auto *rows = llvm::dyn_cast<ListExprAST>(&kernel)) {
      // Rows of literals: an f32 list constant, seen as [KH, KW].
      SmallVector<Attribute> elements;
      for (const ExprPtr &row : rows->elements)
        for (const ExprPtr &weight : llvm::cast<ListExprAST>(*row).elements)
          elements.push_back(
              literalAttr(llvm::cast<NumberExprAST>(*weight), "f32"));
      Type f32 = elementType("f32");
      weights = pipe::ConstantOp::create(
          builder, loc(kernel.getLoc()),
          DenseElementsAttr::get(
              RankedTensorType::get({int64_t(elements.size())}, f32),
              elements));
      weights = pipe::ReshapeOp::create(
          builder, where,
          RankedTensorType::get({call.windowSizes[0], call.windowSizes[1]},
                                f32),
          weights);
    } else {
      weights = castTo(emitExpr(kernel, "f32"), "f32", where);
    }
  }
  return pipe::WindowOp::create(
      builder, where, type, input, weights,
      pipe::WindowKindAttr::get(builder.getContext(), kind),
      builder.getDenseI64ArrayAttr(call.axes),
      builder.getDenseI64ArrayAttr(call.windowSizes),
      pipe::BorderAttr::get(builder.getContext(),
                            *pipe::symbolizeBorder(call.border)),
      builder.getF64FloatAttr(call.fill));
}

/// Emits `expr`; a weak literal becomes a constant of `literalDType`.
Value Generator::emitExpr(const ExprAST &expr, llvm::StringRef literalDType) {
  switch (expr.getKind()) {
  case ExprAST::Kind::Number:
  case ExprAST::Kind::Bool:
  case ExprAST::Kind::List:
    return constant(expr, literalDType);
  case ExprAST::Kind::Name: {
    auto &name = llvm::cast<NameExprAST>(expr);
    if (name.isDim)
      return dimValue(pipert::DimExpr::symbol(name.name), loc(expr.getLoc()));
    return symbols.lookup(name.name);
  }
  case ExprAST::Kind::Subscript:
    return emitSubscript(llvm::cast<SubscriptExprAST>(expr), literalDType);
  case ExprAST::Kind::Unary: {
    auto &unary = llvm::cast<UnaryExprAST>(expr);
    Location where = loc(expr.getLoc());
    // Of a dim expression (`-W`), computed as the dims' arithmetic is, in
    // i64 or f32, before its user converts it (a saturating cast, then a
    // negation, would not be the same number).
    llvm::StringRef dtype = !expr.type.isWeakLiteral() ? llvm::StringRef(expr.type.dtype)
                            : !expr.type.weakDim       ? literalDType
                            : expr.type.weakFloat      ? "f32"
                                                       : "i64";
    Value input = castTo(emitExpr(*unary.operand, dtype), dtype, where);
    auto type = cast<RankedTensorType>(input.getType());
    return emitElementwise(getSpelling(unary.op), /*isOperator=*/true,
                           ValueRange{input}, type, where);
  }
  case ExprAST::Kind::Binary: {
    auto &binary = llvm::cast<BinaryExprAST>(expr);
    Location where = loc(expr.getLoc());
    const std::vector<DimAST> &dims = expr.type.dims;
    // Literals over a `~` (no operand dtype: Sema's checkBinary) compute
    // in the dtype they take, as the `~` does.
    llvm::StringRef operandDType = binary.operandDType.empty()
                                       ? literalDType
                                       : llvm::StringRef(binary.operandDType);
    Value lhs = operand(*binary.lhs, operandDType, dims, where);
    Value rhs = operand(*binary.rhs, operandDType, dims, where);
    // Arithmetic on dims alone is weakly typed: it computes in its
    // operand dtype, and its user converts it (a result bound to it, too).
    llvm::StringRef dtype = expr.type.isWeakLiteral()
                                ? operandDType
                                : llvm::StringRef(expr.type.dtype);
    bool converted = dtype != "bool" && dtype != operandDType;
    Value value = emitElementwise(
        getSpelling(binary.op), /*isOperator=*/true, ValueRange{lhs, rhs},
        tensorType(converted ? operandDType : dtype, dims), where);
    return converted ? castTo(value, dtype, where) : value;
  }
  case ExprAST::Kind::Call:
    return emitCall(llvm::cast<CallExprAST>(expr), literalDType);
  }
  llvm_unreachable("unknown expression kind");
}

/// `@host` or `@device` as the pipeline's attribute (Sema checked it).
Attribute Generator::memoryAttr(llvm::StringRef memory) {
  return pipe::MemorySpaceAttr::get(builder.getContext(),
                                    *pipe::symbolizeMemorySpace(memory));
}

void Generator::emitPipeline(const PipelineAST &pipeline) {
  randomStreams = 0;
  SmallVector<Type> argTypes, resultTypes;
  SmallVector<StringRef> argNames, resultNames;
  for (const ValueDeclAST &param : pipeline.params) {
    argTypes.push_back(tensorType(param.type.dtype, param.type.dims));
    argNames.push_back(param.name);
  }
  for (const ValueDeclAST &result : pipeline.results) {
    resultTypes.push_back(tensorType(result.type.dtype, result.type.dims));
    resultNames.push_back(result.name);
  }
  auto op = pipe::PipelineOp::create(
      builder, loc(pipeline.loc), pipeline.name,
      builder.getFunctionType(argTypes, resultTypes), argNames, resultNames);
  Block &entry = op.getBody().front();
  for (auto [arg, param] : llvm::zip(entry.getArguments(), pipeline.params))
    arg.setLoc(loc(param.loc));
  for (auto [i, param] : llvm::enumerate(pipeline.params))
    if (!param.memory.empty())
      op.setArgAttr(i, pipe::PipelineOp::getMemoryAttrName(),
                    memoryAttr(param.memory));
  for (auto [i, result] : llvm::enumerate(pipeline.results))
    if (!result.memory.empty())
      op.setResultAttr(i, pipe::PipelineOp::getMemoryAttrName(),
                       memoryAttr(result.memory));

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&entry);
  symbols.clear();
  for (auto [arg, param] : llvm::zip(entry.getArguments(), pipeline.params))
    symbols[param.name] = arg;
  // Where each name is bound: a result's own line, even when CSE later
  // makes its value another binding's (b = mean(x) after a = mean(x)).
  llvm::StringMap<Location> boundAt;
  for (auto [arg, param] : llvm::zip(entry.getArguments(), pipeline.params))
    boundAt.insert_or_assign(param.name, arg.getLoc());
  for (const BindingAST &binding : pipeline.body) {
    boundAt.insert_or_assign(binding.name, loc(binding.value->getLoc()));
    const ExprType &type = binding.value->type;
    // A binding that is a bare literal keeps its default dtype.
    llvm::StringRef dtype = type.isWeakLiteral() ? (type.weakFloat ? "f32"
                                                    : type.weakDim ? "i64"
                                                                   : "i32")
                                                 : llvm::StringRef(type.dtype);
    symbols[binding.name] = emitExpr(*binding.value, dtype);
  }
  SmallVector<Value> results;
  SmallVector<Location> resultLocs;
  for (const ValueDeclAST &result : pipeline.results) {
    results.push_back(symbols.lookup(result.name));
    auto it = boundAt.find(result.name);
    // Named, so that the fused location keeps one per result (it drops
    // repeats: two results of one `if` are bound at the same place).
    resultLocs.push_back(NameLoc::get(
        builder.getStringAttr(result.name),
        it != boundAt.end() ? it->second : loc(result.loc)));
  }
  // The return's location holds each result's binding (see
  // pipe::getResultLocation).
  Location returnLoc = loc(pipeline.loc);
  if (!resultLocs.empty())
    returnLoc = FusedLoc::get(builder.getContext(), resultLocs,
                              builder.getStringAttr(pipe::kResultLocationsTag));
  pipe::ReturnOp::create(builder, returnLoc, results);
}

//===--------------------------------------------------------------------===//
// Sizes, slicing and the layout functions
//===--------------------------------------------------------------------===//
/// A dim expression's value as an si64 scalar: a constant when it is one.
Value Generator::dimValue(const pipert::DimExpr &size, Location where) {
  RankedTensorType type = tensorType("i64", {});
  if (size.isConstant())
    return pipe::ConstantOp::create(
        builder, where,
        builder.getIntegerAttr(elementType("i64"), size.getConstant()));
  return pipe::DimOp::create(builder, where, type,
                             builder.getStringAttr(size.str()));
}

const ExprAST *Generator::keywordValue(const CallExprAST &call,
                                       llvm::StringRef name) {
  for (const KeywordArgAST &kwarg : call.kwargs)
    if (kwarg.name == name)
      return kwarg.value.get();
  return nullptr;
}

ArrayAttr Generator::stringsAttr(ArrayRef<std::string> texts) {
  SmallVector<Attribute> attrs;
  for (const std::string &text : texts)
    attrs.push_back(builder.getStringAttr(text));
  return builder.getArrayAttr(attrs);
}

} // namespace mlirgen
} // namespace pipec

OwningOpRef<ModuleOp> pipec::emitModule(MLIRContext &context,
                                        const ModuleAST &module,
                                        llvm::SourceMgr &sourceMgr) {
  context.getOrLoadDialect<pipe::PipeDialect>();
  return mlirgen::Generator(context, sourceMgr).emit(module);
}
