//===- MLIRGen.cpp - .pipe AST to the pipe dialect ------------------------===//
//
// Sema has decided every dtype and shape; MLIRGen makes the conversions
// explicit: operands are cast to the dtype an op computes in and broadcast
// to its result's shape (rank-0 values broadcast implicitly), weak literals
// become constants of the dtype they took, and functions that are
// compositions (clamp, unary minus) are expanded.
//
//===----------------------------------------------------------------------===//

#include "frontend/MLIRGen.h"

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

namespace {

class Generator {
public:
  Generator(MLIRContext &context, llvm::SourceMgr &sourceMgr)
      : builder(&context), sourceMgr(sourceMgr) {}

  OwningOpRef<ModuleOp> emit(const ModuleAST &module) {
    auto moduleOp = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(moduleOp.getBody());
    for (const PipelineAST &pipeline : module.pipelines)
      emitPipeline(pipeline);
    return moduleOp;
  }

private:
  Location loc(llvm::SMLoc smLoc) {
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
  /// The last location made, from which `loc` goes on along its line.
  struct {
    unsigned bufferId = 0;
    const char *ptr = nullptr;
    unsigned line = 0, column = 0;
  } last;

  Type elementType(llvm::StringRef dtype) {
    return getElementType(builder.getContext(), dtype);
  }

  RankedTensorType tensorType(llvm::StringRef dtype,
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
  TypedAttr literalAttr(const NumberExprAST &number, llvm::StringRef dtype) {
    Type type = elementType(dtype);
    if (isFloatDType(dtype))
      return builder.getFloatAttr(
          type, number.isFloat || number.exceedsInt64 ? number.floatValue
                                                      : double(number.intValue));
    // As bool, a number is true where nonzero (as a cast converts it).
    if (type.isInteger(1))
      return builder.getBoolAttr(number.isFloat ? number.floatValue != 0
                                                : number.intValue != 0);
    return builder.getIntegerAttr(type, number.intValue);
  }

  Value constant(const ExprAST &literal, llvm::StringRef dtype) {
    Location where = loc(literal.getLoc());
    if (auto *list = llvm::dyn_cast<ListExprAST>(&literal)) {
      SmallVector<Attribute> elements;
      for (const ExprPtr &element : list->elements)
        elements.push_back(
            literalAttr(llvm::cast<NumberExprAST>(*element), dtype));
      auto type = RankedTensorType::get({int64_t(elements.size())},
                                        elementType(dtype));
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
  Value castTo(Value value, llvm::StringRef dtype, Location where) {
    auto type = cast<RankedTensorType>(value.getType());
    Type element = elementType(dtype);
    if (type.getElementType() == element)
      return value;
    return pipe::CastOp::create(builder, where,
                                pipe::withElementType(type, element), value);
  }

  /// Broadcasts `value` to `dims` (NumPy: trailing dims align) unless it
  /// already has them or is rank 0.
  Value broadcastTo(Value value, const std::vector<DimAST> &dims,
                    Location where) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() == 0)
      return value;
    RankedTensorType target = tensorType(
        pipe::getDTypeName(type.getElementType()), dims);
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
  Value operand(const ExprAST &expr, llvm::StringRef dtype,
                const std::vector<DimAST> &dims, Location where) {
    return broadcastTo(castTo(emitExpr(expr, dtype), dtype, where), dims,
                       where);
  }

  /// The elementwise op that `spelling` (an operator, or a function name)
  /// of `operands.size()` operands names (dialect/PipeSource.td).
  Value emitElementwise(llvm::StringRef spelling, bool isOperator,
                        ValueRange operands, RankedTensorType type,
                        Location where) {
#define PIPE_SPELLING(Class, name, op, arity, accepts)                         \
  if (isOperator == bool(op) && operands.size() == arity && spelling == name)  \
    return pipe::Class##Op::create(builder, where, TypeRange{type}, operands);
    PIPE_ELEMENTWISE_SPELLINGS(PIPE_SPELLING)
#undef PIPE_SPELLING
    llvm_unreachable("Sema let a spelling without an op through");
  }

  Value emitCall(const CallExprAST &call, llvm::StringRef literalDType) {
    Location where = loc(call.getLoc());
    const std::string &callee = call.callee;
    RankedTensorType type = tensorType(call.type.dtype, call.type.dims);
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
  static bool hasElementwiseFunction(llvm::StringRef name, size_t arity) {
#define PIPE_SPELLING(Class, spelling, op, n, accepts)                         \
  if (!op && n == arity && name == spelling)                                   \
    return true;
    PIPE_ELEMENTWISE_SPELLINGS(PIPE_SPELLING)
#undef PIPE_SPELLING
    return false;
  }

  Value emitElementwiseCall(const CallExprAST &call, RankedTensorType type,
                            Location where) {
    const std::string &callee = call.callee;
    const std::vector<DimAST> &dims = call.type.dims;
    const std::string &dtype = call.operandDType;
    auto arg = [&](unsigned i) {
      return operand(*call.args[i], dtype, dims, where);
    };
    RankedTensorType computed = tensorType(dtype, dims);
    if (callee == "select") {
      Value condition = broadcastTo(emitExpr(*call.args[0], "bool"), dims, where);
      auto select = pipe::SelectOp::create(builder, where, type, condition,
                                           arg(1), arg(2));
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

  Value emitSelectOp(const CallExprAST &call, RankedTensorType type,
                     Location where, llvm::StringRef) {
    return emitElementwiseCall(call, type, where);
  }

  Value emitTransposeOp(const CallExprAST &call, RankedTensorType type,
                        Location where, llvm::StringRef literalDType) {
    Value input = emitExpr(*call.args[0], literalDType);
    return pipe::TransposeOp::create(
        builder, where, type, input,
        builder.getDenseI64ArrayAttr(call.permutation));
  }

  Value emitReshapeOp(const CallExprAST &call, RankedTensorType type,
                      Location where, llvm::StringRef literalDType) {
    Value input = emitExpr(*call.args[0], literalDType);
    return pipe::ReshapeOp::create(builder, where, type, input);
  }

  Value emitReduceOp(const CallExprAST &call, RankedTensorType,
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
        pipe::getReducedType(inputType, call.axes, call.keepdims, element),
        input,
        pipe::ReductionKindAttr::get(builder.getContext(),
                                     *pipe::symbolizeReductionKind(callee)),
        builder.getDenseI64ArrayAttr(call.axes),
        call.keepdims ? builder.getUnitAttr() : UnitAttr());
    return castTo(reduced, call.type.dtype, where);
  }

  Value emitCopyOp(const CallExprAST &call, RankedTensorType type,
                   Location where, llvm::StringRef literalDType) {
    return pipe::CopyOp::create(
        builder, where, type, emitExpr(*call.args[0], literalDType),
        pipe::MemorySpaceAttr::get(builder.getContext(),
                                   call.callee == "cpu"
                                       ? pipe::MemorySpace::host
                                       : pipe::MemorySpace::device));
  }

  Value emitGaussianBlurOp(const CallExprAST &call, RankedTensorType type,
                           Location where, llvm::StringRef) {
    return emitGaussianBlur(call, type, where);
  }

  Value emitGaussianBlur(const CallExprAST &call, RankedTensorType type,
                         Location where) {
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

  /// Emits `expr`; a weak literal becomes a constant of `literalDType`.
  Value emitExpr(const ExprAST &expr, llvm::StringRef literalDType) {
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
      llvm::StringRef dtype = expr.type.isWeakLiteral() ? literalDType
                                                        : llvm::StringRef(expr.type.dtype);
      Value input = castTo(emitExpr(*unary.operand, dtype), dtype, where);
      auto type = cast<RankedTensorType>(input.getType());
      if (unary.op != UnaryOp::Neg)
        return emitElementwise(getSpelling(unary.op), /*isOperator=*/true,
                             ValueRange{input}, type, where);
      // 0 - a for integers (wrapping); -0.0 - a for floats, which flips
      // the sign as IEEE negation does (0 - 0.0 would be +0.0).
      Type elementType = type.getElementType();
      auto zero = isa<FloatType>(elementType)
                      ? TypedAttr(builder.getFloatAttr(elementType, -0.0))
                      : cast<TypedAttr>(builder.getZeroAttr(elementType));
      Value zeroValue = pipe::ConstantOp::create(builder, where, zero);
      return pipe::SubOp::create(builder, where, type, zeroValue, input);
    }
    case ExprAST::Kind::Binary: {
      auto &binary = llvm::cast<BinaryExprAST>(expr);
      Location where = loc(expr.getLoc());
      const std::vector<DimAST> &dims = expr.type.dims;
      Value lhs = operand(*binary.lhs, binary.operandDType, dims, where);
      Value rhs = operand(*binary.rhs, binary.operandDType, dims, where);
      // Arithmetic on dims alone is weakly typed: it computes in its
      // operand dtype, and its user converts it.
      llvm::StringRef dtype = expr.type.isWeakLiteral()
                                  ? llvm::StringRef(binary.operandDType)
                                  : llvm::StringRef(expr.type.dtype);
      return emitElementwise(getSpelling(binary.op), /*isOperator=*/true,
                             ValueRange{lhs, rhs}, tensorType(dtype, dims),
                             where);
    }
    case ExprAST::Kind::Call:
      return emitCall(llvm::cast<CallExprAST>(expr), literalDType);
    }
    llvm_unreachable("unknown expression kind");
  }

  /// `@host` or `@device` as the pipeline's attribute (Sema checked it).
  Attribute memoryAttr(llvm::StringRef memory) {
    return pipe::MemorySpaceAttr::get(
        builder.getContext(), *pipe::symbolizeMemorySpace(memory));
  }

  void emitPipeline(const PipelineAST &pipeline) {
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
    for (const BindingAST &binding : pipeline.body) {
      const ExprType &type = binding.value->type;
      // A binding that is a bare literal keeps its default dtype.
      llvm::StringRef dtype = type.isWeakLiteral()
                                  ? (type.weakFloat ? "f32"
                                     : type.weakDim ? "i64"
                                                    : "i32")
                                  : llvm::StringRef(type.dtype);
      symbols[binding.name] = emitExpr(*binding.value, dtype);
    }
    SmallVector<Value> results;
    for (const ValueDeclAST &result : pipeline.results)
      results.push_back(symbols.lookup(result.name));
    pipe::ReturnOp::create(builder, loc(pipeline.loc), results);
  }

  //===--------------------------------------------------------------------===//
  // Sizes, slicing and the layout functions
  //===--------------------------------------------------------------------===//

  /// A dim expression's value as an si64 scalar: a constant when it is one.
  Value dimValue(const pipert::DimExpr &size, Location where) {
    RankedTensorType type = tensorType("i64", {});
    if (size.isConstant())
      return pipe::ConstantOp::create(
          builder, where, builder.getIntegerAttr(elementType("i64"),
                                                 size.getConstant()));
    return pipe::DimOp::create(builder, where, type,
                               builder.getStringAttr(size.str()));
  }

  /// `count` per-sample integer values from `param`: a list of them (sizes
  /// or tensors), or a tensor whose last dim holds them ([.., count] or
  /// [.., count / per, per]). Weak sizes become si64.
  SmallVector<Value> sampleValues(const ExprAST &param, size_t count,
                                  int64_t per, Location where) {
    SmallVector<Value> values;
    if (auto *list = llvm::dyn_cast<ListExprAST>(&param)) {
      for (const ExprPtr &element : list->elements)
        values.push_back(emitExpr(*element, "i64"));
      return values;
    }
    Value tensor = emitExpr(param, "i64");
    auto type = cast<RankedTensorType>(tensor.getType());
    bool split = per > 1 && type.getRank() >= 2 &&
                 type.getDimSize(type.getRank() - 1) == per &&
                 !type.isDynamicDim(type.getRank() - 1) &&
                 int64_t(count) != per;
    for (size_t i = 0; i < count; ++i)
      values.push_back(
          split ? pipe::createTrailingSlice(
                      builder, where, tensor,
                      {int64_t(i) / per, int64_t(i) % per})
                : pipe::createTrailingSlice(builder, where, tensor,
                                            {int64_t(i)}));
    return values;
  }

  const ExprAST *keywordValue(const CallExprAST &call, llvm::StringRef name) {
    for (const KeywordArgAST &kwarg : call.kwargs)
      if (kwarg.name == name)
        return kwarg.value.get();
    return nullptr;
  }

  ArrayAttr stringsAttr(ArrayRef<std::string> texts) {
    SmallVector<Attribute> attrs;
    for (const std::string &text : texts)
      attrs.push_back(builder.getStringAttr(text));
    return builder.getArrayAttr(attrs);
  }

  Value emitSubscript(const SubscriptExprAST &expr,
                      llvm::StringRef literalDType) {
    Value input = emitExpr(*expr.base, literalDType);
    RankedTensorType type = tensorType(expr.type.dtype, expr.type.dims);
    bool whole = type == input.getType() &&
                 llvm::all_of(expr.steps, [](int64_t s) { return s == 1; }) &&
                 llvm::none_of(expr.dropped, [](bool d) { return d; }) &&
                 llvm::all_of(expr.starts,
                              [](const std::string &s) { return s == "0"; });
    if (whole)
      return input;
    SmallVector<bool> dropped(expr.dropped.begin(), expr.dropped.end());
    return pipe::SliceOp::create(
        builder, loc(expr.getLoc()), type, input, stringsAttr(expr.starts),
        builder.getDenseI64ArrayAttr(expr.steps),
        builder.getDenseBoolArrayAttr(dropped),
        expr.dimChecks.empty() ? ArrayAttr() : stringsAttr(expr.dimChecks));
  }

  Value emitCropOp(const CallExprAST &call, RankedTensorType type,
                   Location where, llvm::StringRef literalDType) {
    Value input = emitExpr(*call.args[0], literalDType);
    auto inputType = cast<RankedTensorType>(input.getType());
    SmallVector<Value> anchors;
    if (const ExprAST *anchor = keywordValue(call, "anchor")) {
      anchors = sampleValues(*anchor, call.axes.size(), 1, where);
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
        builder.getF64FloatAttr(call.fill));
  }

  Value emitFlipOp(const CallExprAST &call, RankedTensorType type,
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

  Value emitPadOp(const CallExprAST &call, RankedTensorType type,
                  Location where, llvm::StringRef literalDType) {
    Value input = emitExpr(*call.args[0], literalDType);
    auto pad = pipe::PadOp::create(
        builder, where, type, input, builder.getDenseI64ArrayAttr(call.axes),
        stringsAttr(call.before), stringsAttr(call.after),
        pipe::BorderAttr::get(builder.getContext(),
                              *pipe::symbolizeBorder(call.border)),
        builder.getF64FloatAttr(call.fill));
    if (!call.dimChecks.empty())
      pad->setAttr("dim_checks", stringsAttr(call.dimChecks));
    return pad;
  }

  Value emitTakeOp(const CallExprAST &call, RankedTensorType type,
                   Location where, llvm::StringRef literalDType) {
    Value input = emitExpr(*call.args[0], literalDType);
    Value indices = emitExpr(*call.args[1], "i64");
    return pipe::TakeOp::create(builder, where, type, input, indices,
                                builder.getI64IntegerAttr(call.axis));
  }

  Value emitConcatOp(const CallExprAST &call, RankedTensorType type,
                     Location where, llvm::StringRef) {
    auto &list = llvm::cast<ListExprAST>(*call.args[0]);
    SmallVector<Value> inputs;
    for (const ExprPtr &element : list.elements) {
      Value input = castTo(emitExpr(*element, call.operandDType),
                           call.operandDType, where);
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

  Value emitCoordinateOp(const CallExprAST &call, RankedTensorType type,
                         Location where, llvm::StringRef) {
    return pipe::CoordinateOp::create(builder, where, type,
                                      builder.getI64IntegerAttr(call.axis));
  }

  Value emitBroadcastOp(const CallExprAST &call, RankedTensorType type,
                        Location where, llvm::StringRef) {
    // zeros, ones, full: a scalar repeated over the shape.
    const std::string &dtype = call.operandDType;
    Value value;
    if (call.callee == "full") {
      const ExprAST &given = *call.args.back();
      value = castTo(emitExpr(given, dtype), dtype, where);
    } else {
      Type element = elementType(dtype);
      Attribute attr =
          call.callee == "zeros" ? builder.getZeroAttr(element)
          : isa<FloatType>(element)
              ? Attribute(builder.getFloatAttr(element, 1.0))
              : Attribute(builder.getIntegerAttr(element, 1));
      value = pipe::ConstantOp::create(builder, where, cast<TypedAttr>(attr));
    }
    return pipe::BroadcastOp::create(builder, where, type, value,
                                     builder.getDenseI64ArrayAttr({}));
  }

  Value emitEraseOp(const CallExprAST &call, RankedTensorType type,
                    Location where, llvm::StringRef literalDType) {
    Value input = emitExpr(*call.args[0], literalDType);
    int64_t k = int64_t(call.axes.size());
    SmallVector<Value> anchors = sampleValues(
        *keywordValue(call, "anchor"), size_t(call.regions * k), k, where);
    const ExprAST &shape = *keywordValue(call, "shape");
    size_t shapes = k;
    if (auto *list = llvm::dyn_cast<ListExprAST>(&shape))
      shapes = list->elements.size();
    else if (!shape.type.dims.empty() &&
             shape.type.dims.back().size != k)
      shapes = size_t(call.regions * k);
    else if (shape.type.dims.size() >= 2 && shape.type.dims.back().size == k &&
             !shape.type.dims[shape.type.dims.size() - 2].isSymbolic() &&
             shape.type.dims[shape.type.dims.size() - 2].size == call.regions)
      shapes = size_t(call.regions * k);
    SmallVector<Value> sizes = sampleValues(shape, shapes, k, where);
    std::string dtype = type.getElementType().isInteger(1)
                            ? "bool"
                            : pipe::getDTypeName(type.getElementType());
    Value fill;
    if (const ExprAST *given = keywordValue(call, "fill"))
      fill = castTo(emitExpr(*given, dtype), dtype, where);
    else
      fill = pipe::ConstantOp::create(
          builder, where, cast<TypedAttr>(builder.getZeroAttr(
                              type.getElementType())));
    return pipe::EraseOp::create(builder, where, type, input, anchors, sizes,
                                 fill, builder.getDenseI64ArrayAttr(call.axes),
                                 builder.getI64IntegerAttr(call.regions));
  }

  /// A constant tensor of `shape` (row-major `values`) in `dtype`.
  Value constantTensor(ArrayRef<int64_t> shape, ArrayRef<double> values,
                       llvm::StringRef dtype, Location where) {
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
    return pipe::ReshapeOp::create(builder, where,
                                   RankedTensorType::get(shape, element),
                                   constant);
  }

  /// `value` (rank 0, or a prefix of `dims`) broadcast to `dims`, its dims
  /// leading: a per-sample parameter spread over each sample.
  Value spreadLeading(Value value, const std::vector<DimAST> &dims,
                      Location where) {
    auto type = cast<RankedTensorType>(value.getType());
    return pipe::createLeadingBroadcast(
        builder, where, value,
        tensorType(pipe::getDTypeName(type.getElementType()), dims), 0);
  }

  /// warp_affine, rotate, resize: pipe.resample with the matrices (f32
  /// [..., 2, 3]) or the angles (f32, per sample) as its parameter.
  Value emitResampleOp(const CallExprAST &call, RankedTensorType type,
                       Location where, llvm::StringRef) {
    Value input = emitExpr(*call.args[0], call.operandDType);
    Value param;
    pipe::ResampleTransform transform;
    if (call.callee == "rotate") {
      transform = pipe::ResampleTransform::rotate;
      param = castTo(emitExpr(*keywordValue(call, "angle"), "f32"), "f32",
                     where);
    } else if (call.callee == "warp_affine") {
      transform = pipe::ResampleTransform::affine;
      const ExprAST &matrix = *keywordValue(call, "matrix");
      param = castTo(emitExpr(matrix, "f32"), "f32", where);
      if (llvm::isa<ListExprAST>(matrix))
        param = pipe::ReshapeOp::create(
            builder, where, RankedTensorType::get({2, 3}, elementType("f32")),
            param);
    } else {
      transform = pipe::ResampleTransform::resize;
      if (call.callee == "random_resized_crop")
        param = emitCropWindows(call, input, where);
      else if (keywordValue(call, "roi_start"))
        param = emitResizeRoi(call, input, where);
    }
    bool resize = transform == pipe::ResampleTransform::resize;
    return pipe::ResampleOp::create(
        builder, where, type, input, param,
        pipe::ResampleTransformAttr::get(builder.getContext(), transform),
        pipe::InterpAttr::get(builder.getContext(),
                              *pipe::symbolizeInterp(call.interp)),
        pipe::BorderAttr::get(builder.getContext(),
                              resize ? pipe::Border::clamp
                                     : pipe::Border::constant),
        builder.getF64FloatAttr(call.fill),
        call.antialias ? builder.getUnitAttr() : UnitAttr());
  }

  /// The dims of a resampling call's images before H, W and C: one image
  /// each.
  static std::vector<DimAST> sampleDims(const CallExprAST &call) {
    const std::vector<DimAST> &dims = call.args[0]->type.dims;
    return std::vector<DimAST>(dims.begin(), dims.end() - 3);
  }

  /// Size `axis` of `value`'s type as a dim expression.
  pipert::DimExpr dimOf(Value value, int64_t axis) {
    auto type = cast<RankedTensorType>(value.getType());
    if (!type.isDynamicDim(axis))
      return pipert::DimExpr::constant(type.getDimSize(axis));
    return *pipert::DimExpr::parse(pipe::getDimNames(type)[axis]);
  }

  /// `values` (each rank 0 or a prefix of `dims`), as f32, side by side
  /// along a new last dim: [dims..., values.size()], or [values.size()]
  /// when each is a scalar.
  Value stackLast(ArrayRef<Value> values, std::vector<DimAST> dims,
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
    return pipe::ConcatOp::create(builder, where, tensorType("f32", dims),
                                  columns,
                                  builder.getI64IntegerAttr(int64_t(dims.size()) - 1));
  }

  /// resize's region of interest (roi_start, roi_end, each [y, x] or one
  /// per sample [..., 2]) as the resample's (y0, x0, y1, x1) per sample,
  /// in pixels (relative_roi scales by H and W).
  Value emitResizeRoi(const CallExprAST &call, Value images, Location where) {
    auto imagesType = cast<RankedTensorType>(images.getType());
    int64_t firstAxis = imagesType.getRank() - 3;
    SmallVector<Value> corners;
    for (const char *name : {"roi_start", "roi_end"}) {
      const ExprAST &corner = *keywordValue(call, name);
      for (int64_t i = 0; i < 2; ++i) {
        Value value;
        if (auto *list = llvm::dyn_cast<ListExprAST>(&corner))
          value = castTo(emitExpr(*list->elements[size_t(i)], "f32"), "f32",
                         where);
        else
          value = pipe::createTrailingSlice(
              builder, where, castTo(emitExpr(corner, "f32"), "f32", where),
              {i});
        if (call.relativeRoi) {
          Value size =
              castTo(dimValue(dimOf(images, firstAxis + i), where), "f32", where);
          value = pipe::MulOp::create(builder, where, value.getType(), value,
                                      size);
        }
        corners.push_back(value);
      }
    }
    Value regions = stackLast(corners, sampleDims(call), where);
    // Coordinates only the run knows are checked then: each in [0, H] or
    // [0, W] (NaN in neither), or the run fails naming the sample.
    bool literal = true;
    for (const char *name : {"roi_start", "roi_end"})
      if (auto *list = llvm::dyn_cast<ListExprAST>(keywordValue(call, name)))
        for (const ExprPtr &element : list->elements)
          literal &= llvm::isa<NumberExprAST>(*element);
      else
        literal = false;
    if (literal)
      return regions;
    std::string height = dimOf(images, firstAxis).str();
    std::string width = dimOf(images, firstAxis + 1).str();
    std::string at = pipe::describeLocation(where);
    SmallVector<Attribute> lows, highs, messages;
    for (int64_t column = 0; column < 4; ++column) {
      bool y = column % 2 == 0;
      lows.push_back(builder.getStringAttr("0"));
      highs.push_back(builder.getStringAttr(y ? height : width));
      messages.push_back(builder.getStringAttr(
          "resize" + (at.empty() ? "" : " at " + at) + ": " +
          (column < 2 ? "roi_start" : "roi_end") + "'s " + (y ? "y" : "x") +
          " of sample {at} is {value}" +
          (call.relativeRoi ? " pixels" : "") +
          ", outside the image's [{lo}, {hi}]"));
    }
    return pipe::CheckBoundsOp::create(builder, where, regions,
                                       builder.getArrayAttr(lows),
                                       builder.getArrayAttr(highs),
                                       builder.getArrayAttr(messages));
  }

  /// random_resized_crop's windows: pipe.random resized_crop over
  /// [samples..., 4] with the images' height and width.
  Value emitCropWindows(const CallExprAST &call, Value images, Location where) {
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
        number(call.cropScale[0]), number(call.cropScale[1]),
        number(call.cropRatio[0]), number(call.cropRatio[1])};
    return pipe::RandomOp::create(
        builder, where, tensorType("f32", dims), randomIndex(dims, where),
        params,
        pipe::RandomDistributionAttr::get(
            builder.getContext(), pipe::RandomDistribution::resized_crop),
        builder.getI64IntegerAttr(randomStreams++),
        call.seed ? builder.getI64IntegerAttr(int64_t(*call.seed))
                  : IntegerAttr());
  }

  /// The color functions. brightness_contrast is elementwise; the others
  /// mix the channels by a 3x3 matrix per sample (pipe.channel_mix), DALI's
  /// YIQ formulas (core/PipeColor.h documents them).
  Value emitChannelMixOp(const CallExprAST &call, RankedTensorType type,
                         Location where, llvm::StringRef) {
    const std::string &callee = call.callee;
    Value input = emitExpr(*call.args[0], call.operandDType);
    const std::string &in = call.operandDType, &out = call.type.dtype;
    std::string f = in == "f64" || out == "f64" ? "f64" : "f32";
    const std::vector<DimAST> &dims = call.args[0]->type.dims;
    int64_t rank = int64_t(dims.size());
    std::vector<DimAST> samples(dims.begin(),
                                dims.begin() + std::max<int64_t>(rank - 3, 0));
    auto number = [&](double value) -> Value {
      return pipe::ConstantOp::create(builder, where,
                                      builder.getFloatAttr(elementType(f), value));
    };
    // A parameter as `f` over the sample dims (or a scalar).
    auto param = [&](llvm::StringRef name, double fallback) -> Value {
      const ExprAST *given = keywordValue(call, name);
      if (!given)
        return number(fallback);
      return spreadLeading(castTo(emitExpr(*given, f), f, where), samples,
                           where);
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
      // DALI: out = shift * range(out) + brightness * (centre + contrast
      // * (in - centre)), as addend + multiplier * in: addend = shift *
      // range(out) + brightness * (centre - contrast * centre),
      // multiplier = brightness * contrast.
      double centre = pipert::getColorHalfRange(in);
      if (const ExprAST *given = keywordValue(call, "contrast_center")) {
        auto *literal = llvm::cast<NumberExprAST>(given);
        centre = literal->isFloat ? literal->floatValue
                                  : double(literal->intValue);
      }
      double outRange = pipert::getColorFullRange(out);
      Value b = param("brightness", 1);
      Value contrast = param("contrast", 1);
      Value addend =
          add(mul(param("brightness_shift", 0), number(outRange)),
              mul(b, sub(number(centre), mul(contrast, number(centre)))));
      Value multiplier = mul(b, contrast);
      Value x = castTo(input, f, where);
      Value scaled = pipe::MulOp::create(builder, where, tensorType(f, dims), x,
                                         spreadLeading(multiplier, dims, where));
      Value sum = pipe::AddOp::create(builder, where, tensorType(f, dims),
                                      spreadLeading(addend, dims, where), scaled);
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
      Value h = param("hue", 0), s = param("saturation", 1);
      Value radians = mul(h, number(M_PI / 180));
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
          pipe::AddOp::create(builder, where, fullType,
                              term(terms.a0, number(1)),
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
          offset = pipe::BroadcastOp::create(builder, where,
                                             tensorType(f, {three}), offset,
                                             builder.getDenseI64ArrayAttr({}));
      }
    }
    return pipe::ChannelMixOp::create(builder, where, type, input, matrix,
                                      offset);
  }

  /// Each element's row-major index in `dims`, as si64 of that shape:
  /// what a random op draws from.
  Value randomIndex(const std::vector<DimAST> &dims, Location where) {
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
      index = index ? Value(pipe::AddOp::create(builder, where, indexType,
                                                index, term))
                    : term;
      stride = stride * *pipert::DimExpr::parse(dim.str());
    }
    if (!index)
      index = dimValue(pipert::DimExpr::constant(0), where);
    return index;
  }

  /// uniform, normal, coin_flip, randint: pipe.random over each element's
  /// row-major index in the shape drawn, with the distribution's
  /// parameters as f64 (si64 for randint) broadcast to it.
  Value emitRandomOp(const CallExprAST &call, RankedTensorType type,
                     Location where, llvm::StringRef) {
    const std::vector<DimAST> &dims = call.type.dims;
    bool randint = call.callee == "randint";
    llvm::StringRef paramDType = randint ? "i64" : "f64";
    Value index = randomIndex(dims, where);
    // The parameters, in pipe.random's order.
    auto param = [&](const ExprAST *given, double fallback) -> Value {
      if (given)
        return operand(*given, paramDType, dims, where);
      Type element = elementType(paramDType);
      return pipe::ConstantOp::create(
          builder, where,
          randint ? TypedAttr(builder.getIntegerAttr(element, int64_t(fallback)))
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
      params.push_back(param(keywordValue(call, "stddev"), 1.0));
    } else if (call.callee == "coin_flip") {
      kind = pipe::RandomDistribution::coin_flip;
      const ExprAST *p = keywordValue(call, "probability");
      params.push_back(param(p ? p : keywordValue(call, "p"), 0.5));
    } else {
      kind = pipe::RandomDistribution::randint;
      const ExprAST *lo = keywordValue(call, "lo");
      const ExprAST *hi = keywordValue(call, "hi");
      size_t positional = 0;
      if (!lo)
        lo = call.args[positional++].get();
      if (!hi)
        hi = call.args[positional].get();
      params.push_back(param(lo, 0));
      params.push_back(param(hi, 0));
    }
    return pipe::RandomOp::create(
        builder, where, type, index, params,
        pipe::RandomDistributionAttr::get(builder.getContext(), kind),
        builder.getI64IntegerAttr(randomStreams++),
        call.seed ? builder.getI64IntegerAttr(int64_t(*call.seed))
                  : IntegerAttr());
  }

  OpBuilder builder;
  llvm::SourceMgr &sourceMgr;
  llvm::StringMap<Value> symbols;
  /// The next random op's stream: each op of a pipeline draws its own
  /// numbers (Sema bounds their count).
  int64_t randomStreams = 0;
};

} // namespace

OwningOpRef<ModuleOp> pipec::emitModule(MLIRContext &context,
                                        const ModuleAST &module,
                                        llvm::SourceMgr &sourceMgr) {
  context.getOrLoadDialect<pipe::PipeDialect>();
  return Generator(context, sourceMgr).emit(module);
}
