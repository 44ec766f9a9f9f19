//===- PipeOps.cpp - Operations of the pipe dialect -----------------------===//
//
// Verifiers, folders, custom assembly and the elementwise-interface answers
// (the C++ expression of one element) of the pipe ops.
//
//===----------------------------------------------------------------------===//

#include "dialect/PipeDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::pipe;

/// The C++ type that holds one element of `type` in generated code.
static std::string getCppScalarType(Type type) {
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  auto intType = cast<IntegerType>(type);
  return (intType.isUnsigned() ? "pipe_u" : "pipe_i") +
         std::to_string(intType.getWidth());
}

static Type getElementType(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

//===----------------------------------------------------------------------===//
// PipelineOp
//===----------------------------------------------------------------------===//

void PipelineOp::build(OpBuilder &builder, OperationState &state,
                       StringRef name, FunctionType type,
                       ArrayRef<StringRef> argNames,
                       ArrayRef<StringRef> resultNames) {
  state.addAttribute(SymbolTable::getSymbolAttrName(),
                     builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type));
  auto namesToAttrs = [&](ArrayRef<StringRef> names) {
    SmallVector<Attribute> dicts;
    for (StringRef name : names)
      dicts.push_back(builder.getDictionaryAttr(builder.getNamedAttr(
          getNameAttrName(), builder.getStringAttr(name))));
    return builder.getArrayAttr(dicts);
  };
  state.addAttribute(getArgAttrsAttrName(state.name), namesToAttrs(argNames));
  state.addAttribute(getResAttrsAttrName(state.name),
                     namesToAttrs(resultNames));
  Region *body = state.addRegion();
  Block *entry = new Block();
  for (Type input : type.getInputs())
    entry->addArgument(input, state.location);
  body->push_back(entry);
}

ParseResult PipelineOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes,
                          ArrayRef<Type> results,
                          function_interface_impl::VariadicFlag,
                          std::string &) {
    return builder.getFunctionType(argTypes, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void PipelineOp::print(OpAsmPrinter &printer) {
  function_interface_impl::printFunctionOp(
      printer, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

static StringRef getNameIn(ArrayAttr dicts, unsigned i) {
  if (!dicts || i >= dicts.size())
    return {};
  auto dict = dyn_cast<DictionaryAttr>(dicts[i]);
  if (!dict)
    return {};
  auto name = dict.getAs<StringAttr>(PipelineOp::getNameAttrName());
  return name ? name.getValue() : StringRef();
}

StringRef PipelineOp::getArgName(unsigned i) {
  return getNameIn(getArgAttrsAttr(), i);
}

StringRef PipelineOp::getResultName(unsigned i) {
  return getNameIn(getResAttrsAttr(), i);
}

void PipelineOp::getAsmBlockArgumentNames(Region &region,
                                          OpAsmSetValueNameFn setNameFn) {
  if (&region != &getBody())
    return;
  for (BlockArgument arg : region.getArguments())
    if (StringRef name = getArgName(arg.getArgNumber()); !name.empty())
      setNameFn(arg, name);
}

LogicalResult PipelineOp::verify() {
  FunctionType type = getFunctionType();
  llvm::StringSet<> seen;
  auto checkNames = [&](unsigned count, auto getName, StringRef what,
                        ArrayRef<Type> types) -> LogicalResult {
    for (unsigned i = 0; i < count; ++i) {
      StringRef name = getName(i);
      if (name.empty())
        return emitOpError() << what << " #" << i << " has no '"
                             << getNameAttrName() << "' string attribute";
      if (!seen.insert(name).second)
        return emitOpError() << "the name '" << name << "' is used twice";
      if (!isPipeTensorType(types[i]))
        return emitOpError() << what << " '" << name
                             << "' is not a pipe tensor: " << types[i];
    }
    return success();
  };
  if (failed(checkNames(type.getNumInputs(),
                        [&](unsigned i) { return getArgName(i); }, "argument",
                        type.getInputs())) ||
      failed(checkNames(type.getNumResults(),
                        [&](unsigned i) { return getResultName(i); }, "result",
                        type.getResults())))
    return failure();
  if (type.getNumResults() == 0)
    return emitOpError() << "must have at least one result";
  return success();
}

LogicalResult ReturnOp::verify() {
  auto pipeline = (*this)->getParentOfType<PipelineOp>();
  ArrayRef<Type> expected = pipeline.getResultTypes();
  if (getNumOperands() != expected.size())
    return emitOpError() << "returns " << getNumOperands()
                         << " values but the pipeline has " << expected.size()
                         << " results";
  for (auto [i, operand] : llvm::enumerate(getOperands()))
    if (operand.getType() != expected[i])
      return emitOpError() << "result #" << i << " has type "
                           << operand.getType() << " but the pipeline declares "
                           << expected[i];
  return success();
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ConstantOp::Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto value = dyn_cast_or_null<TypedAttr>(adaptor.getValue());
  if (!value)
    return failure();
  inferredReturnTypes.push_back(RankedTensorType::get({}, value.getType()));
  return success();
}

LogicalResult ConstantOp::verify() {
  Attribute value = getValue();
  if (!isa<IntegerAttr, FloatAttr>(value))
    return emitOpError() << "value must be an integer or float scalar";
  if (!isPipeElementType(getValue().getType()))
    return emitOpError() << "unsupported dtype " << getValue().getType();
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

std::string ConstantOp::getScalarExpression(ArrayRef<std::string>) {
  Type type = getValue().getType();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "((" << getCppScalarType(type) << ")";
  if (auto floatAttr = dyn_cast<FloatAttr>(getValue())) {
    // Print enough digits to round-trip, as a double literal; the cast rounds
    // it to the dtype exactly as the frontend did.
    double v = floatAttr.getValueAsDouble();
    char buffer[64];
    snprintf(buffer, sizeof(buffer), "%.17g", v);
    std::string literal = buffer;
    if (literal.find_first_of(".eEn") == std::string::npos)
      literal += ".0";
    os << literal;
  } else {
    auto intAttr = cast<IntegerAttr>(getValue());
    auto intType = cast<IntegerType>(type);
    if (intType.isUnsigned())
      os << intAttr.getValue().getZExtValue() << "ull";
    else
      os << intAttr.getValue().getSExtValue() << "ll";
  }
  os << ")";
  return text;
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

/// Checks that `operand` has the result's shape or is a rank-0 scalar.
static LogicalResult verifyBroadcastOperand(Operation *op, Value operand,
                                            StringRef which) {
  auto operandType = cast<RankedTensorType>(operand.getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (operandType.getRank() == 0 || haveSameShape(operandType, resultType))
    return success();
  return op->emitOpError() << which << " shape " << operandType
                           << " is neither rank 0 nor the result's shape "
                           << resultType;
}

static LogicalResult verifyBinaryOp(Operation *op) {
  static const StringRef kOperandNames[] = {"lhs", "rhs"};
  Type resultElement = getElementType(op->getResult(0));
  for (auto [operand, which] : llvm::zip(op->getOperands(), kOperandNames)) {
    if (getElementType(operand) != resultElement)
      return op->emitOpError()
             << which << " dtype " << getElementType(operand)
             << " differs from the result dtype " << resultElement;
    if (failed(verifyBroadcastOperand(op, operand, which)))
      return failure();
  }
  return success();
}

static std::string callExpression(StringRef function, Type type,
                                  ArrayRef<std::string> operands) {
  std::string text = (function + "<" + getCppScalarType(type) + ">(").str();
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(operands, os);
  os << ")";
  return text;
}

#define PIPE_DEFINE_BINARY_OP(Op, function)                                   \
  LogicalResult Op::verify() { return verifyBinaryOp(*this); }                 \
  std::string Op::getScalarExpression(ArrayRef<std::string> operands) {        \
    return callExpression(function, getElementType(getResult()), operands);    \
  }

PIPE_DEFINE_BINARY_OP(AddOp, "pipe_add")
PIPE_DEFINE_BINARY_OP(SubOp, "pipe_sub")
PIPE_DEFINE_BINARY_OP(MulOp, "pipe_mul")
#undef PIPE_DEFINE_BINARY_OP

LogicalResult DivOp::verify() {
  if (failed(verifyBinaryOp(*this)))
    return failure();
  if (!isa<FloatType>(getElementType(getResult())))
    return emitOpError() << "divides floats only; the frontend converts "
                            "integer operands of '/' to f32";
  return success();
}

std::string DivOp::getScalarExpression(ArrayRef<std::string> operands) {
  return callExpression("pipe_div", getElementType(getResult()), operands);
}

LogicalResult CastOp::verify() {
  auto inputType = cast<RankedTensorType>(getInput().getType());
  auto resultType = cast<RankedTensorType>(getResult().getType());
  if (!haveSameShape(inputType, resultType))
    return emitOpError() << "changes the shape from " << inputType << " to "
                         << resultType;
  return success();
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  // A cast to the same dtype is the identity.
  if (getInput().getType() == getResult().getType())
    return getInput();
  return {};
}

std::string CastOp::getScalarExpression(ArrayRef<std::string> operands) {
  return "pipe_cast<" + getCppScalarType(getElementType(getResult())) + ", " +
         getCppScalarType(getElementType(getInput())) + ">(" + operands[0] +
         ")";
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

LogicalResult KernelOp::verify() {
  if (getNumResults() == 0)
    return emitOpError() << "must have at least one result";
  RankedTensorType domain = getDomainType();
  for (Value result : getResults())
    if (!haveSameShape(cast<RankedTensorType>(result.getType()), domain))
      return emitOpError() << "results must all have the domain's shape "
                           << domain << ", but one is " << result.getType();
  for (Value input : getInputs()) {
    auto inputType = cast<RankedTensorType>(input.getType());
    if (inputType.getRank() != 0 && !haveSameShape(inputType, domain))
      return emitOpError() << "input of type " << inputType
                           << " is neither rank 0 nor the domain's shape "
                           << domain;
  }
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "body has " << body.getNumArguments()
                         << " arguments for " << getInputs().size()
                         << " inputs";
  for (auto [arg, input] : llvm::zip(body.getArguments(), getInputs()))
    if (arg.getType() != input.getType())
      return emitOpError() << "body argument type " << arg.getType()
                           << " differs from its input's " << input.getType();
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError() << "yields types that differ from its results";
  for (Operation &op : body.without_terminator())
    if (!isa<ElementwiseOpInterface>(op))
      return op.emitOpError() << "is not elementwise and cannot be in a "
                                 "'pipe.kernel'";
  return success();
}

#define GET_OP_CLASSES
#include "dialect/PipeOps.cpp.inc"
