//===- PipeOps.cpp - Operations of the pipe dialect -----------------------===//
//
// Verifiers, folders, custom assembly and the elementwise-interface answers
// (the C++ expression of one element) of the pipe ops.
//
//===----------------------------------------------------------------------===//

#include "dialect/PipeDialect.h"

#include "core/DimExpr.h"
#include "core/ElementwiseOps.h"
#include "core/PipeScalar.h"
#include "core/PipeStencil.h"
#include "core/PipeWindow.h"
#include "runtime/HostScalars.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <map>

using namespace mlir;
using namespace mlir::pipe;

static Type getElementType(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

/// `host` or `device`: a MemorySpaceAttr as a bare keyword (pipe.copy).
static ParseResult parseMemoryKeyword(OpAsmParser &parser,
                                      MemorySpaceAttr &memory) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<MemorySpace> space = symbolizeMemorySpace(keyword);
  if (!space)
    return parser.emitError(loc) << "expected host or device, not '"
                                 << keyword << "'";
  memory = MemorySpaceAttr::get(parser.getContext(), *space);
  return success();
}

static void printMemoryKeyword(OpAsmPrinter &printer, Operation *,
                               MemorySpaceAttr memory) {
  printer << stringifyMemorySpace(memory.getValue());
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

std::optional<MemorySpace> PipelineOp::getArgMemory(unsigned i) {
  auto memory = getArgAttrOfType<MemorySpaceAttr>(i, getMemoryAttrName());
  return memory ? std::optional(memory.getValue()) : std::nullopt;
}

std::optional<MemorySpace> PipelineOp::getResultMemory(unsigned i) {
  auto memory = getResultAttrOfType<MemorySpaceAttr>(i, getMemoryAttrName());
  return memory ? std::optional(memory.getValue()) : std::nullopt;
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
      ArrayAttr dicts = what == StringRef("argument") ? getArgAttrsAttr()
                                                      : getResAttrsAttr();
      if (auto dict = dicts ? dyn_cast<DictionaryAttr>(dicts[i]) : nullptr)
        if (Attribute memory = dict.get(getMemoryAttrName());
            memory && !isa<MemorySpaceAttr>(memory))
          return emitOpError() << what << " '" << name << "' has "
                               << getMemoryAttrName() << " = " << memory
                               << "; expected #pipe.memory<host> or "
                                  "#pipe.memory<device>";
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
  // The dim checks any op may carry (dialect/DimChecks.h), read without
  // further checks by the plan builder and the reference: strings that
  // parse as dim expressions, their reasons strings, one per check.
  WalkResult checks = getBody().walk([&](Operation *op) {
    Attribute checks = op->getAttr("dim_checks");
    Attribute reasons = op->getAttr("dim_check_reasons");
    Attribute named = op->getAttr("dim_check_op");
    auto strings = [](Attribute attr) {
      auto array = dyn_cast<ArrayAttr>(attr);
      return array && llvm::all_of(array, [](Attribute element) {
               return isa<StringAttr>(element);
             });
    };
    auto verifyChecks = [&]() -> LogicalResult {
      if (checks && !strings(checks))
        return op->emitOpError() << "dim_checks must be an array of strings";
      if (reasons && !strings(reasons))
        return op->emitOpError()
               << "dim_check_reasons must be an array of strings";
      if (named && !isa<StringAttr>(named))
        return op->emitOpError() << "dim_check_op must be a string";
      if (checks)
        for (Attribute check : cast<ArrayAttr>(checks))
          if (!pipert::DimExpr::parse(cast<StringAttr>(check).str()))
            return op->emitOpError()
                   << "dim check " << check << " is not a dim expression";
      return success();
    };
    if (succeeded(verifyChecks()))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return failure(checks.wasInterrupted());
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
  if (auto dense = dyn_cast<DenseElementsAttr>(value))
    inferredReturnTypes.push_back(dense.getType());
  else
    inferredReturnTypes.push_back(RankedTensorType::get({}, value.getType()));
  return success();
}

LogicalResult ConstantOp::verify() {
  Attribute value = getValue();
  Type type = getValue().getType();
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.getType().getRank() != 1 || !dense.getType().hasStaticShape())
      return emitOpError() << "a tensor constant must be a list: rank 1";
    type = dense.getElementType();
  } else if (!isa<IntegerAttr, FloatAttr>(value)) {
    return emitOpError() << "value must be a number or a list of numbers";
  }
  if (!isPipeElementType(type))
    return emitOpError() << "unsupported dtype " << type;
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

std::optional<int64_t> mlir::pipe::getIntegerLiteral(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!constant || !type || type.getRank() != 0 ||
      !isa<IntegerType>(type.getElementType()))
    return std::nullopt;
  Attribute literal = constant.getValue();
  APInt bits;
  if (auto integer = dyn_cast<IntegerAttr>(literal))
    bits = integer.getValue();
  else if (auto dense = dyn_cast<DenseIntElementsAttr>(literal))
    bits = *dense.value_begin<APInt>();
  else
    return std::nullopt;
  Type element = type.getElementType();
  if (!element.isUnsignedInteger() && !element.isInteger(1))
    return bits.getSExtValue();
  if (bits.getActiveBits() > 63)
    return std::nullopt;
  return int64_t(bits.getZExtValue());
}

std::string ConstantOp::getScalarExpression(ArrayRef<std::string>) {
  Type type = getValue().getType();
  std::string cppType = getCppScalarType(type);
  if (type.isInteger(1))
    return std::string("pipe_make_bool(") +
           (cast<IntegerAttr>(getValue()).getValue().isZero() ? "false"
                                                              : "true") +
           ")";
  if (auto floatAttr = dyn_cast<FloatAttr>(getValue())) {
    // Enough digits to round-trip the double; the conversion to the dtype
    // rounds it exactly as the frontend did.
    char buffer[64];
    snprintf(buffer, sizeof(buffer), "%.17g", floatAttr.getValueAsDouble());
    std::string literal = buffer;
    if (literal == "inf" || literal == "-inf" || literal == "nan" ||
        literal == "-nan")
      literal = literal[0] == '-' ? "(-1.0 / 0.0)"
                                  : (literal == "nan" ? "(0.0 / 0.0)" : "(1.0 / 0.0)");
    else if (literal.find_first_of(".eE") == std::string::npos)
      literal += ".0";
    if (type.isF16())
      return "pipe_make_f16(" + literal + ")";
    if (type.isBF16())
      return "pipe_make_bf16(" + literal + ")";
    return "((" + cppType + ")" + literal + ")";
  }
  auto intAttr = cast<IntegerAttr>(getValue());
  if (cast<IntegerType>(type).isUnsigned())
    return "((" + cppType + ")" +
           std::to_string(intAttr.getValue().getZExtValue()) + "ull)";
  int64_t value = intAttr.getValue().getSExtValue();
  // -9223372036854775808ll would be a negated literal that does not fit.
  if (value == INT64_MIN)
    return "((" + cppType + ")(-9223372036854775807ll - 1))";
  return "((" + cppType + ")" + std::to_string(value) + "ll)";
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

/// Whether `type` is allowed by `rule`.
static bool allows(DTypeRule rule, Type type) {
  bool isBool = type.isInteger(1);
  bool isFloat = isa<FloatType>(type);
  switch (rule) {
  case DTypeRule::Any: return true;
  case DTypeRule::Numeric: return !isBool;
  case DTypeRule::Float: return isFloat;
  case DTypeRule::Integer: return !isBool && !isFloat;
  case DTypeRule::IntegerOrBool: return !isFloat;
  case DTypeRule::Bool: return isBool;
  }
  return false;
}

static const char *describe(DTypeRule rule) {
  switch (rule) {
  case DTypeRule::Any: return "any dtype";
  case DTypeRule::Numeric: return "a numeric dtype (not bool)";
  case DTypeRule::Float: return "a float dtype";
  case DTypeRule::Integer: return "an integer dtype";
  case DTypeRule::IntegerOrBool: return "an integer or bool dtype";
  case DTypeRule::Bool: return "bool";
  }
  return "";
}

LogicalResult mlir::pipe::verifyElementwiseOp(Operation *op, DTypeRule rule,
                                              bool compares) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  auto operands = op->getOperands();
  // A select's condition is bool; its other operands are the values.
  if (isa<SelectOp>(op)) {
    if (!getElementType(operands[0]).isInteger(1))
      return op->emitOpError() << "condition must be bool, not "
                               << getElementType(operands[0]);
    operands = operands.drop_front();
  }
  Type dtype = getElementType(operands[0]);
  for (Value operand : op->getOperands()) {
    auto operandType = cast<RankedTensorType>(operand.getType());
    if (operandType.getRank() != 0 && !haveSameShape(operandType, resultType))
      return op->emitOpError()
             << "operand shape " << operandType
             << " is neither rank 0 nor the result's shape " << resultType;
  }
  for (Value operand : operands)
    if (getElementType(operand) != dtype)
      return op->emitOpError() << "operands have different dtypes: " << dtype
                               << " and " << getElementType(operand);
  if (!allows(rule, dtype))
    return op->emitOpError() << "needs " << describe(rule) << ", not "
                             << dtype;
  Type expected = compares ? IntegerType::get(op->getContext(), 1) : dtype;
  if (resultType.getElementType() != expected)
    return op->emitOpError() << "result dtype must be " << expected
                             << ", not " << resultType.getElementType();
  return success();
}

std::string mlir::pipe::getCallExpression(StringRef function,
                                          ArrayRef<std::string> args) {
  std::string text = (function + "(").str();
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(args, os);
  os << ")";
  return text;
}

LogicalResult CastOp::verify() {
  auto inputType = cast<RankedTensorType>(getInput().getType());
  auto resultType = cast<RankedTensorType>(getResult().getType());
  if (!haveSameShape(inputType, resultType))
    return emitOpError() << "changes the shape from " << inputType << " to "
                         << resultType;
  return success();
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  // A cast to the same dtype is the identity.
  if (getInput().getType() == getResult().getType())
    return getInput();
  return foldScalarElementwise(*this, adaptor.getOperands());
}

//===----------------------------------------------------------------------===//
// Folding scalar constants
//===----------------------------------------------------------------------===//

/// The bits of a scalar constant (its storage, as the runtime lays it out),
/// or nothing when `value` is not one.
static std::optional<APInt> getScalarBits(Attribute value) {
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(value)) {
    if (!dense.isSplat() || dense.getType().getRank() != 0)
      return std::nullopt;
    value = dense.getSplatValue<Attribute>();
  }
  if (auto integer = dyn_cast_or_null<IntegerAttr>(value))
    return integer.getValue();
  if (auto real = dyn_cast_or_null<FloatAttr>(value))
    return real.getValue().bitcastToAPInt();
  return std::nullopt;
}

OpFoldResult mlir::pipe::foldScalarElementwise(Operation *op,
                                               ArrayRef<Attribute> operands) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (resultType.getRank() != 0 || operands.empty())
    return {};
  StringRef name = op->getName().stripDialect();
  Type operandElement =
      getElementType(op->getOperand(isa<SelectOp>(op) ? 1 : 0));
  // Left to the kernel where CUDA may round differently from the host.
#define PIPE_INEXACT_NAME(Class, mnemonic) mnemonic,
  static const llvm::StringLiteral inexact[] = {
      PIPE_FLOAT_INEXACT_OPS(PIPE_INEXACT_NAME)};
#undef PIPE_INEXACT_NAME
  if (isa<FloatType>(operandElement) && llvm::is_contained(inexact, name))
    return {};
  std::vector<uint64_t> words;
  for (Attribute operand : operands) {
    std::optional<APInt> bits = getScalarBits(operand);
    if (!bits)
      return {};
    words.push_back(bits->getZExtValue());
  }
  std::optional<uint64_t> folded = pipert::evaluateScalarOp(
      name.str(), getRuntimeDType(operandElement),
      getRuntimeDType(resultType.getElementType()), words);
  if (!folded)
    return {};
  uint64_t word = *folded;
  Type element = resultType.getElementType();
  if (auto real = dyn_cast<FloatType>(element))
    return FloatAttr::get(
        element, APFloat(real.getFloatSemantics(), APInt(real.getWidth(), word)));
  unsigned width = element.getIntOrFloatBitWidth();
  return IntegerAttr::get(element, APInt(width, word));
}

Operation *PipeDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed || !isa<IntegerAttr, FloatAttr, DenseElementsAttr>(value))
    return nullptr;
  auto constant = ConstantOp::create(builder, loc, typed);
  if (constant.getType() != type) {
    constant->erase();
    return nullptr;
  }
  return constant;
}

std::string CastOp::getScalarExpression(ArrayRef<std::string> operands) {
  return "pipe_cast<" + getCppScalarType(getElementType(getResult())) + ", " +
         getCppScalarType(getElementType(getInput())) + ">(" + operands[0] +
         ")";
}

//===----------------------------------------------------------------------===//
// RandomOp
//===----------------------------------------------------------------------===//

LogicalResult RandomOp::verify() {
  auto result = cast<RankedTensorType>(getResult().getType());
  auto index = cast<RankedTensorType>(getIndex().getType());
  if (!index.getElementType().isSignedInteger(64) ||
      !haveSameShape(index, result))
    return emitOpError() << "index must be si64 of the result's shape";
  RandomDistribution kind = getDistribution();
  bool integers = kind == RandomDistribution::randint;
  size_t wanted = kind == RandomDistribution::coin_flip      ? 1
                  : kind == RandomDistribution::resized_crop ? 6
                                                             : 2;
  if (getParams().size() != wanted)
    return emitOpError() << "'" << stringifyRandomDistribution(kind)
                         << "' takes " << wanted << " parameters";
  // randint's bounds are si64, ui64 for a ui64 draw (whose bounds may pass
  // the si64s).
  bool unsignedBounds = integers && result.getElementType().isUnsignedInteger(64);
  for (Value param : getParams()) {
    auto type = cast<RankedTensorType>(param.getType());
    Type element = type.getElementType();
    if (unsignedBounds ? !element.isUnsignedInteger(64)
        : integers     ? !element.isSignedInteger(64)
                       : !element.isF64())
      return emitOpError() << "parameters must be "
                           << (unsignedBounds ? "ui64"
                               : integers     ? "si64"
                                              : "f64");
    if (type.getRank() != 0 && !haveSameShape(type, result))
      return emitOpError() << "parameters must be scalars or of the result's "
                              "shape";
  }
  Type element = result.getElementType();
  if ((kind == RandomDistribution::uniform ||
       kind == RandomDistribution::normal ||
       kind == RandomDistribution::resized_crop) &&
      !isa<FloatType>(element))
    return emitOpError() << "draws floats";
  if (kind == RandomDistribution::resized_crop &&
      (result.getRank() == 0 || result.getDimSize(result.getRank() - 1) != 4))
    return emitOpError() << "draws windows [..., 4]";
  if (kind == RandomDistribution::randint &&
      (!isa<IntegerType>(element) || element.isInteger(1)))
    return emitOpError() << "draws integers";
  if (getStream() >= (1u << 16))
    return emitOpError() << "stream must be in [0, 65536)";
  return success();
}

std::string RandomOp::getScalarExpression(ArrayRef<std::string> operands) {
  std::string seed =
      getSeed() ? std::to_string(uint64_t(*getSeed())) + "ull"
                : "(pipe_u64)" + getDimCExpression(pipert::kSeedDim);
  std::string expression =
      "pipe_random_" + stringifyRandomDistribution(getDistribution()).str() +
      "<" + getCppScalarType(getElementType(getResult())) + ">(" + seed +
      ", (pipe_u64)" + getDimCExpression(pipert::kRandomRunDim) + ", " +
      std::to_string(getStream()) + "ull";
  for (const std::string &operand : operands)
    expression += ", " + operand;
  return expression + ")";
}

//===----------------------------------------------------------------------===//
// ChannelMixOp
//===----------------------------------------------------------------------===//

bool ChannelMixOp::getConstantCoefficients(DenseElementsAttr &matrix,
                                           DenseElementsAttr &offset) {
  auto type = cast<RankedTensorType>(getMatrix().getType());
  Value source = getMatrix();
  if (auto reshape = source.getDefiningOp<ReshapeOp>())
    source = reshape.getInput();
  return type.getRank() == 2 && matchPattern(source, m_Constant(&matrix)) &&
         matrix.getNumElements() == type.getNumElements() &&
         matchPattern(getOffset(), m_Constant(&offset)) &&
         offset.getType().getRank() <= 1;
}

LogicalResult ChannelMixOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto matrix = cast<RankedTensorType>(getMatrix().getType());
  auto offset = cast<RankedTensorType>(getOffset().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  int64_t rank = input.getRank();
  if (rank < 1 || input.isDynamicDim(rank - 1) || result.getRank() != rank ||
      result.isDynamicDim(rank - 1))
    return emitOpError() << "mixes a static last dim into a static last dim "
                            "of the same rank";
  int64_t k = input.getDimSize(rank - 1), c = result.getDimSize(rank - 1);
  Type element = matrix.getElementType();
  if (!isa<Float32Type, Float64Type>(element) ||
      offset.getElementType() != element)
    return emitOpError() << "matrix and offset must be f32 or f64, alike";
  // The leading dims of `type` before its last `trailing` are a prefix of
  // the input's leading dims.
  auto leadsWithSamples = [&](RankedTensorType type, int64_t trailing) {
    int64_t samples = type.getRank() - trailing;
    return samples <= rank - 1 && haveSameLeadingDims(type, input, samples);
  };
  int64_t m = matrix.getRank();
  if (m < 2 || matrix.getDimSize(m - 2) != c || matrix.getDimSize(m - 1) != k ||
      !leadsWithSamples(matrix, 2))
    return emitOpError() << "matrix must be [samples..., " << c << ", " << k
                         << "]";
  if (offset.getRank() != 0 &&
      (offset.getDimSize(offset.getRank() - 1) != c ||
       !leadsWithSamples(offset, 1)))
    return emitOpError() << "offset must be a scalar or [samples..., " << c
                         << "]";
  if (!haveSameLeadingDims(result, input, rank - 1))
    return emitOpError() << "result must have the input's leading dims";
  return success();
}

//===----------------------------------------------------------------------===//
// ResampleOp
//===----------------------------------------------------------------------===//

/// What pipe.resample and pipe.resample_kernel check of their resample:
/// `result` is the resampled images' type.
static LogicalResult verifyResample(Operation *op, Value inputValue,
                                    Value param, ResampleTransform transform,
                                    Interp interp, bool antialias,
                                    RankedTensorType result) {
  auto emitOpError = [&]() { return op->emitOpError(); };
  auto input = cast<RankedTensorType>(inputValue.getType());
  int64_t rank = input.getRank();
  if (rank < 3 || result.getRank() != rank)
    return emitOpError() << "resamples images [..., H, W, C] into images of "
                            "the same rank";
  SmallVector<std::string> in = getDimNames(input), out = getDimNames(result);
  for (int64_t d = 0; d < rank; ++d)
    if ((d < rank - 3 || d == rank - 1) && in[d] != out[d])
      return emitOpError() << "keeps the sample dims and the channels";
  if (isa<IntegerType>(input.getElementType()) &&
      input.getElementType().isInteger(1))
    return emitOpError() << "resamples numbers, not bool";
  if (transform != ResampleTransform::resize && !param)
    return emitOpError() << "takes a parameter unless it is a resize";
  if (antialias && transform != ResampleTransform::resize)
    return emitOpError() << "antialiases resizes only";
  if ((interp == Interp::cubic || interp == Interp::lanczos) &&
      transform != ResampleTransform::resize)
    return emitOpError() << "interpolates " << stringifyInterp(interp)
                         << " in resizes only";
  if (param) {
    // [samples..., 2, 3] matrices, [samples..., 4] regions, [samples...]
    // angles.
    auto type = cast<RankedTensorType>(param.getType());
    SmallVector<int64_t> trailing =
        transform == ResampleTransform::affine   ? SmallVector<int64_t>{2, 3}
        : transform == ResampleTransform::resize ? SmallVector<int64_t>{4}
                                                 : SmallVector<int64_t>{};
    int64_t samples = type.getRank() - int64_t(trailing.size());
    bool ok = type.getElementType().isF32() && samples >= 0 &&
              samples <= rank - 3 && haveSameLeadingDims(type, input, samples);
    for (size_t i = 0; ok && i < trailing.size(); ++i)
      ok = type.getDimSize(samples + int64_t(i)) == trailing[i];
    if (!ok)
      return emitOpError() << "parameter must be f32 "
                           << (transform == ResampleTransform::affine
                                   ? "[samples..., 2, 3]"
                               : transform == ResampleTransform::resize
                                   ? "[samples..., 4]"
                                   : "[samples...]");
  }
  return success();
}

LogicalResult ResampleOp::verify() {
  return verifyResample(*this, getInput(), getParam(), getTransform(),
                        getInterp(), getAntialias(),
                        cast<RankedTensorType>(getResult().getType()));
}

//===----------------------------------------------------------------------===//
// ResampleKernelOp
//===----------------------------------------------------------------------===//

static LogicalResult verifyFusedBlock(Operation *op, Block &block,
                                      ValueRange inputs, unsigned leading,
                                      StringRef what);

/// What a fused op with an epilogue checks of its results: at least one,
/// each of `shape`'s shape, the epilogue yielding their types.
static LogicalResult verifyEpilogueResults(Operation *op, Block &epilogue,
                                           RankedTensorType shape,
                                           StringRef what) {
  if (op->getNumResults() == 0)
    return op->emitOpError() << "must have at least one result";
  for (Value result : op->getResults())
    if (!haveSameShape(cast<RankedTensorType>(result.getType()), shape))
      return op->emitOpError() << "results must " << what;
  if (epilogue.getTerminator()->getOperandTypes() != op->getResultTypes())
    return op->emitOpError() << "epilogue yields types that differ from its "
                                "results";
  return success();
}

LogicalResult ResampleKernelOp::verify() {
  Block &epilogue = getEpilogue().front();
  if (epilogue.getNumArguments() == 0)
    return emitOpError() << "epilogue must take the resampled images first";
  if (failed(verifyFusedBlock(*this, epilogue, getEpilogueInputs(), 1,
                              "epilogue")))
    return failure();
  if (failed(verifyResample(*this, getInput(), getParam(), getTransform(),
                            getInterp(), getAntialias(), getResampledType())))
    return failure();
  return verifyEpilogueResults(*this, epilogue, getDomainType(),
                               "all have one shape");
}

//===----------------------------------------------------------------------===//
// ChooseOp
//===----------------------------------------------------------------------===//

LogicalResult ChooseOp::verify() {
  auto condition = cast<RankedTensorType>(getCondition().getType());
  if (condition.getRank() != 0 || !condition.getElementType().isInteger(1))
    return emitOpError() << "condition must be a rank-0 bool, not "
                         << condition;
  return success();
}

OpFoldResult ChooseOp::fold(FoldAdaptor adaptor) {
  if (getTrueValue() == getFalseValue())
    return getTrueValue();
  Attribute condition = adaptor.getCondition();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(condition);
      dense && dense.isSplat())
    condition = dense.getSplatValue<Attribute>();
  if (auto known = dyn_cast_or_null<IntegerAttr>(condition))
    return known.getValue().isZero() ? getFalseValue() : getTrueValue();
  return {};
}

//===----------------------------------------------------------------------===//
// ReduceOp, ReduceKernelOp, GaussianBlurOp
//===----------------------------------------------------------------------===//

/// Checks a reduction's kind, axes (in range, increasing) and that `result`
/// is the reduced shape of `input` with the kind's dtype.
static LogicalResult verifyReduction(Operation *op, ReductionKind kind,
                                     ArrayRef<int64_t> axes, bool keepdims,
                                     RankedTensorType input,
                                     RankedTensorType result) {
  for (auto [i, axis] : llvm::enumerate(axes))
    if (axis < 0 || axis >= input.getRank() || (i > 0 && axes[i - 1] >= axis))
      return op->emitOpError() << "axes must be increasing dims of the input";
  Type element = result.getElementType();
  Type expected = getReductionResultType(kind, input.getElementType());
  if (element != expected &&
      !(kind == ReductionKind::mean && isa<FloatType>(element)))
    return op->emitOpError() << "'" << stringifyReductionKind(kind) << "' of "
                             << input.getElementType() << " gives " << expected
                             << ", not " << element;
  if (!haveSameShape(getReducedType(input, axes, keepdims, element), result))
    return op->emitOpError() << "result " << result
                             << " is not the reduced shape of " << input;
  return success();
}

LogicalResult ReduceOp::verify() {
  return verifyReduction(*this, getKind(), getAxes(), getKeepdims(),
                         cast<RankedTensorType>(getInput().getType()),
                         cast<RankedTensorType>(getResult().getType()));
}

/// Checks that `block` (the body of a kernel or a fused region, named
/// `where` in messages) holds only elementwise ops, scalar constants, and
/// broadcasts of its arguments (index arithmetic on a load).
static LogicalResult verifyFusedOps(Block &block, StringRef where) {
  for (Operation &inner : block.without_terminator()) {
    if (isa<CoordinateOp>(inner))
      continue;
    if (auto map = dyn_cast<IndexMapOpInterface>(inner)) {
      // A chain of total maps ends at an input, a coordinate or a rank-0
      // value; parameters are inputs, rank-0 values or chains themselves.
      if (!map.isTotal())
        return inner.emitOpError() << "in " << where << " must be expanded "
                                      "first (pipe-expand-layout)";
      Value source = map.getSource();
      while (auto next = source.getDefiningOp<IndexMapOpInterface>())
        source = next.getSource();
      if (!isa<BlockArgument>(source) && !source.getDefiningOp<CoordinateOp>() &&
          cast<RankedTensorType>(source.getType()).getRank() != 0)
        return inner.emitOpError() << "in " << where << " must read an input";
      continue;
    }
    if (!isa<ElementwiseOpInterface>(inner))
      return inner.emitOpError() << "is not elementwise and cannot be in "
                                 << where;
    if (auto constant = dyn_cast<ConstantOp>(inner);
        constant && isa<DenseElementsAttr>(constant.getValue()))
      return inner.emitOpError() << "in " << where << " must be a scalar";
  }
  return success();
}

/// Checks a fused region's block: arguments typed as `inputs` (after
/// `leading` extra arguments), only elementwise ops and broadcasts of
/// arguments inside.
static LogicalResult verifyFusedBlock(Operation *op, Block &block,
                                      ValueRange inputs, unsigned leading,
                                      StringRef what) {
  // (The verifiers read the yield before MLIR checks the block's
  // terminator: Block::getTerminator asserts on a block without one.)
  if (block.empty() || !isa<YieldOp>(block.back()))
    return op->emitOpError() << what << " must end with pipe.yield";
  if (block.getNumArguments() != inputs.size() + leading)
    return op->emitOpError() << what << " has " << block.getNumArguments()
                             << " arguments for " << inputs.size()
                             << " inputs";
  for (auto [arg, input] :
       llvm::zip(block.getArguments().drop_front(leading), inputs))
    if (arg.getType() != input.getType())
      return op->emitOpError() << what << " argument type " << arg.getType()
                               << " differs from its input's "
                               << input.getType();
  return verifyFusedOps(block, "a fused region");
}

LogicalResult ReduceKernelOp::verify() {
  Block &prologue = getPrologue().front();
  Block &epilogue = getEpilogue().front();
  if (failed(verifyFusedBlock(*this, prologue, getPrologueInputs(), 0,
                              "prologue")) ||
      failed(verifyFusedBlock(*this, epilogue, getEpilogueInputs(), 1,
                              "epilogue")))
    return failure();
  if (prologue.getTerminator()->getNumOperands() != 1)
    return emitOpError() << "prologue must yield the one value to reduce";
  if (failed(verifyReduction(*this, getKind(), getAxes(), getKeepdims(),
                             getInputDomainType(), getReductionType())))
    return failure();
  return verifyEpilogueResults(*this, epilogue, getReductionType(),
                               "have the reduced shape");
}

LogicalResult GaussianBlurOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (!haveSameShape(input, result))
    return emitOpError() << "result must have the input's shape";
  if (!getWindow() && !getSigma())
    return emitOpError() << "needs a window or a sigma";
  ArrayRef<int64_t> axes = getAxes();
  if (axes.empty())
    return emitOpError() << "needs at least one axis";
  for (auto [i, axis] : llvm::enumerate(axes))
    if (axis < 0 || axis >= input.getRank() || (i > 0 && axes[i - 1] >= axis))
      return emitOpError() << "axes must be increasing dims of the input";
  for (auto [param, element] :
       {std::pair<Value, Type>{getWindow(),
                               IntegerType::get(getContext(), 32,
                                                IntegerType::Signed)},
        {getSigma(), Float32Type::get(getContext())}}) {
    if (!param)
      continue;
    auto type = cast<RankedTensorType>(param.getType());
    if (type.getElementType() != element)
      return emitOpError() << "window must be si32 and sigma f32";
    // Per sample: the input's leading dims, before the first axis.
    if (type.getRank() > axes.front())
      return emitOpError() << "a per-sample parameter cannot span a blurred "
                              "axis";
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.getDimSize(d) != input.getDimSize(d) ||
          getDimNames(type)[d] != getDimNames(input)[d])
        return emitOpError() << "a per-sample parameter must have the "
                                "input's leading dims";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// WindowOp
//===----------------------------------------------------------------------===//

/// What pipe.window and pipe.window_kernel check of their window.
static LogicalResult verifyWindow(Operation *op, RankedTensorType input,
                                  Value weights, WindowKind kind,
                                  ArrayRef<int64_t> axes,
                                  ArrayRef<int64_t> window,
                                  RankedTensorType result) {
  auto emitOpError = [&]() { return op->emitOpError(); };
  if (!haveSameShape(input, result))
    return emitOpError() << "result must have the input's shape";
  if (axes.empty() || axes.size() > 2)
    return emitOpError() << "takes one or two axes";
  for (auto [i, axis] : llvm::enumerate(axes))
    if (axis < 0 || axis >= input.getRank() || (i > 0 && axes[i - 1] >= axis))
      return emitOpError() << "axes must be increasing dims of the input";
  if (window.size() != axes.size())
    return emitOpError() << "needs one window size per axis";
  int64_t taps = 1;
  for (int64_t size : window) {
    if (size < 1 || size > PIPE_WINDOW_MAX_TAPS)
      return emitOpError() << "window sizes must be positive";
    taps *= size;
  }
  if (taps > PIPE_WINDOW_MAX_TAPS)
    return emitOpError() << "a window has at most " << PIPE_WINDOW_MAX_TAPS
                         << " taps";
  bool selects = kind == WindowKind::min || kind == WindowKind::max ||
                 kind == WindowKind::median;
  if (selects && input.getElementType() != result.getElementType())
    return emitOpError() << "min, max and median keep the input's dtype";
  if (!selects && (input.getElementType().isInteger(1) ||
                   result.getElementType().isInteger(1)))
    return emitOpError() << "box and correlate take and give numbers";
  if (kind == WindowKind::median &&
      (taps % 2 == 0 || taps > PIPE_WINDOW_MAX_MEDIAN_TAPS))
    return emitOpError() << "a median takes an odd number of taps, at most "
                         << PIPE_WINDOW_MAX_MEDIAN_TAPS;
  if ((kind == WindowKind::correlate) != bool(weights))
    return emitOpError() << "has weights if and only if it correlates";
  if (weights) {
    auto type = cast<RankedTensorType>(weights.getType());
    int64_t samples = type.getRank() - int64_t(window.size());
    bool ok = type.getElementType().isF32() && samples >= 0 &&
              samples <= axes.front() &&
              haveSameLeadingDims(type, input, samples);
    for (size_t i = 0; ok && i < window.size(); ++i)
      ok = type.getDimSize(samples + int64_t(i)) == window[i];
    if (!ok)
      return emitOpError() << "weights must be f32 [samples..., window...], "
                              "the samples the input's dims before the "
                              "first axis";
  }
  return success();
}

LogicalResult WindowOp::verify() {
  return verifyWindow(*this, cast<RankedTensorType>(getInput().getType()),
                      getWeights(), getKind(), getAxes(), getWindow(),
                      cast<RankedTensorType>(getResult().getType()));
}

LogicalResult WindowKernelOp::verify() {
  Block &prologue = getPrologue().front();
  Block &epilogue = getEpilogue().front();
  if (epilogue.getNumArguments() == 0)
    return emitOpError() << "epilogue must take the window's value first";
  if (failed(verifyFusedBlock(*this, prologue, getPrologueInputs(), 0,
                              "prologue")) ||
      failed(verifyFusedBlock(*this, epilogue, getEpilogueInputs(), 1,
                              "epilogue")))
    return failure();
  if (prologue.getTerminator()->getNumOperands() != 1)
    return emitOpError() << "prologue must yield the window's one input";
  if (failed(verifyWindow(*this, getInputType(), getWeights(), getKind(),
                          getAxes(), getWindow(), getWindowType())))
    return failure();
  return verifyEpilogueResults(*this, epilogue, getWindowType(),
                               "have the window's shape");
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

LogicalResult KernelOp::verify() {
  // (Before anything reads the yield: Block::getTerminator asserts on a
  // block without one, and this verifier runs before MLIR checks it.)
  if (getBody().front().empty() || !isa<YieldOp>(getBody().front().back()))
    return emitOpError() << "body must end with pipe.yield";
  if (getNumResults() == 0)
    return emitOpError() << "must have at least one result";
  RankedTensorType domain = getDomainType();
  for (Value result : getResults())
    if (!haveSameShape(cast<RankedTensorType>(result.getType()), domain))
      return emitOpError() << "results must all have the domain's shape "
                           << domain << ", but one is " << result.getType();
  Block &body = getBody().front();
  for (auto [input, arg] : llvm::zip(getInputs(), body.getArguments())) {
    auto inputType = cast<RankedTensorType>(input.getType());
    bool readThroughMaps = !arg.use_empty() &&
                           llvm::all_of(arg.getUsers(), [](Operation *user) {
                             return isa<IndexMapOpInterface>(user);
                           });
    if (inputType.getRank() != 0 && !haveSameShape(inputType, domain) &&
        !readThroughMaps)
      return emitOpError() << "input of type " << inputType
                           << " is neither rank 0 nor the domain's shape "
                           << domain << ", nor read through index maps";
  }
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
  return verifyFusedOps(body, "a 'pipe.kernel'");
}

#define GET_OP_CLASSES
#include "dialect/PipeOps.cpp.inc"
