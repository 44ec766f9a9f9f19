//===- PipeDialect.cpp - The pipe dialect and its types -------------------===//
//
// Registers the dialect and defines what a pipe tensor type is.
//
//===----------------------------------------------------------------------===//

#include "dialect/PipeDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

// After PipeScalar.h, as in a kernel prelude.
#include "core/DimExpr.h"
#include "core/PipeScalar.h"
#include "core/PipeReduce.h"
#include "core/PipeStencil.h"
#include "core/PipeRandom.h"
#include "core/PipeResample.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::pipe;

#include "dialect/PipeDialect.cpp.inc"
#include "dialect/PipeEnums.cpp.inc"
#include "dialect/PipeInterfaces.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "dialect/PipeAttrs.cpp.inc"

// The kernels and the reference switch on the C enums of core/; the
// dialect's enum attributes carry the same values.
static_assert(int(ReductionKind::sum) == PIPE_SUM &&
                  int(ReductionKind::mean) == PIPE_MEAN &&
                  int(ReductionKind::prod) == PIPE_PROD &&
                  int(ReductionKind::min) == PIPE_MIN &&
                  int(ReductionKind::max) == PIPE_MAX &&
                  int(ReductionKind::any) == PIPE_ANY &&
                  int(ReductionKind::all) == PIPE_ALL,
              "ReductionKind must match pipe_reduce_kind");
static_assert(int(Border::reflect101) == PIPE_REFLECT101 &&
                  int(Border::clamp) == PIPE_CLAMP &&
                  int(Border::constant) == PIPE_CONSTANT &&
                  int(Border::wrap) == PIPE_WRAP,
              "Border must match pipe_border");
static_assert(int(ResampleTransform::affine) == PIPE_RESAMPLE_AFFINE &&
                  int(ResampleTransform::rotate) == PIPE_RESAMPLE_ROTATE &&
                  int(ResampleTransform::resize) == PIPE_RESAMPLE_RESIZE &&
                  int(Interp::nearest) == PIPE_INTERP_NEAREST &&
                  int(Interp::linear) == PIPE_INTERP_LINEAR &&
                  int(Interp::cubic) == PIPE_INTERP_CUBIC &&
                  int(Interp::lanczos) == PIPE_INTERP_LANCZOS,
              "the resample enums must match core/PipeResample.h's");

void PipeDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/PipeOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/PipeAttrs.cpp.inc"
      >();
}

bool mlir::pipe::isPipeElementType(Type type) {
  if (type.isF16() || type.isBF16() || type.isF32() || type.isF64())
    return true;
  if (auto intType = dyn_cast<IntegerType>(type)) {
    unsigned width = intType.getWidth();
    if (width == 1) // bool
      return intType.isSignless();
    if (width != 8 && width != 16 && width != 32 && width != 64)
      return false;
    // Unsigned dtypes are `uiN`, signed ones `siN`: the signedness decides the
    // semantics of casts and saturation, so signless integers are not allowed.
    return !intType.isSignless();
  }
  return false;
}

bool mlir::pipe::isPipeTensorType(Type type) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType || !isPipeElementType(tensorType.getElementType()))
    return false;
  int64_t numDynamic = tensorType.getNumDynamicDims();
  Attribute encoding = tensorType.getEncoding();
  if (numDynamic == 0)
    return !encoding;
  auto names = dyn_cast_or_null<ArrayAttr>(encoding);
  if (!names || static_cast<int64_t>(names.size()) != numDynamic)
    return false;
  return llvm::all_of(names, [](Attribute name) {
    auto str = dyn_cast<StringAttr>(name);
    return str && !str.getValue().empty();
  });
}

RankedTensorType mlir::pipe::getPipeTensorType(ArrayRef<int64_t> shape,
                                               ArrayRef<StringRef> dimNames,
                                               Type elementType) {
  MLIRContext *context = elementType.getContext();
  Attribute encoding;
  if (!dimNames.empty()) {
    SmallVector<Attribute> names;
    for (StringRef name : dimNames)
      names.push_back(StringAttr::get(context, name));
    encoding = ArrayAttr::get(context, names);
  }
  return RankedTensorType::get(shape, elementType, encoding);
}

RankedTensorType mlir::pipe::withElementType(RankedTensorType type,
                                             Type elementType) {
  return RankedTensorType::get(type.getShape(), elementType,
                               type.getEncoding());
}

SmallVector<std::string> mlir::pipe::getDimNames(RankedTensorType type) {
  SmallVector<std::string> result;
  auto names = dyn_cast_or_null<ArrayAttr>(type.getEncoding());
  unsigned nextName = 0;
  for (int64_t size : type.getShape()) {
    if (ShapedType::isDynamic(size) && names)
      result.push_back(cast<StringAttr>(names[nextName++]).str());
    else
      result.push_back(std::to_string(size));
  }
  return result;
}

int64_t mlir::pipe::getElementBytes(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    type = tensor.getElementType();
  return type.isInteger(1)
             ? 1
             : std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
}

pipert::DType mlir::pipe::getRuntimeDType(Type type) {
  if (type.isInteger(1))
    return pipert::DType::Bool;
  if (type.isF16())
    return pipert::DType::F16;
  if (type.isBF16())
    return pipert::DType::BF16;
  if (type.isF32())
    return pipert::DType::F32;
  if (type.isF64())
    return pipert::DType::F64;
  auto intType = cast<IntegerType>(type);
  bool isUnsigned = intType.isUnsigned();
  switch (intType.getWidth()) {
  case 8: return isUnsigned ? pipert::DType::U8 : pipert::DType::I8;
  case 16: return isUnsigned ? pipert::DType::U16 : pipert::DType::I16;
  case 32: return isUnsigned ? pipert::DType::U32 : pipert::DType::I32;
  default: return isUnsigned ? pipert::DType::U64 : pipert::DType::I64;
  }
}

std::string mlir::pipe::getDTypeName(Type elementType) {
  if (elementType.isF16())
    return "f16";
  if (elementType.isBF16())
    return "bf16";
  if (elementType.isF32())
    return "f32";
  if (elementType.isF64())
    return "f64";
  if (elementType.isInteger(1))
    return "bool";
  if (auto intType = dyn_cast<IntegerType>(elementType))
    return (intType.isUnsigned() ? "u" : "i") +
           std::to_string(intType.getWidth());
  std::string text;
  llvm::raw_string_ostream os(text);
  elementType.print(os);
  return text;
}

bool mlir::pipe::haveSameShape(RankedTensorType a, RankedTensorType b) {
  return a.getShape() == b.getShape() && a.getEncoding() == b.getEncoding();
}

bool mlir::pipe::haveSameLeadingDims(RankedTensorType a, RankedTensorType b,
                                      int64_t count) {
  if (count < 0 || a.getRank() < count || b.getRank() < count)
    return false;
  SmallVector<std::string> an = getDimNames(a), bn = getDimNames(b);
  for (int64_t d = 0; d < count; ++d)
    if (an[d] != bn[d])
      return false;
  return true;
}

Value mlir::pipe::createTrailingSlice(OpBuilder &builder, Location loc,
                                      Value tensor, ArrayRef<int64_t> indices) {
  auto type = cast<RankedTensorType>(tensor.getType());
  int64_t rank = type.getRank(), kept = rank - int64_t(indices.size());
  SmallVector<Attribute> starts;
  SmallVector<int64_t> steps(rank, 1);
  SmallVector<bool> dropped(rank, false);
  for (int64_t d = 0; d < rank; ++d) {
    starts.push_back(builder.getStringAttr(
        d < kept ? "0" : std::to_string(indices[d - kept])));
    dropped[d] = d >= kept;
  }
  SmallVector<int64_t> shape(type.getShape().drop_back(indices.size()));
  SmallVector<StringRef> names;
  SmallVector<std::string> dimNames = getDimNames(type);
  for (int64_t d = 0; d < kept; ++d)
    if (type.isDynamicDim(d))
      names.push_back(dimNames[d]);
  return SliceOp::create(builder, loc,
                         getPipeTensorType(shape, names, type.getElementType()),
                         tensor, builder.getArrayAttr(starts),
                         builder.getDenseI64ArrayAttr(steps),
                         builder.getDenseBoolArrayAttr(dropped), ArrayAttr());
}

Value mlir::pipe::createLeadingBroadcast(OpBuilder &builder, Location loc,
                                         Value value, RankedTensorType result,
                                         int64_t trailing) {
  auto type = cast<RankedTensorType>(value.getType());
  RankedTensorType target = withElementType(result, type.getElementType());
  if (type.getRank() == 0 || type == target)
    return value;
  SmallVector<int64_t> dimensions;
  for (int64_t d = 0; d < type.getRank() - trailing; ++d)
    dimensions.push_back(d);
  for (int64_t t = 0; t < trailing; ++t)
    dimensions.push_back(result.getRank() - trailing + t);
  return BroadcastOp::create(builder, loc, target, value,
                             builder.getDenseI64ArrayAttr(dimensions));
}

std::string mlir::pipe::getCppScalarType(Type type) {
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  if (type.isF16())
    return "pipe_f16";
  if (type.isBF16())
    return "pipe_bf16";
  if (type.isInteger(1))
    return "pipe_bool";
  auto intType = cast<IntegerType>(type);
  return (intType.isUnsigned() ? "pipe_u" : "pipe_i") +
         std::to_string(intType.getWidth());
}

Type mlir::pipe::getReductionResultType(ReductionKind kind, Type input) {
  MLIRContext *context = input.getContext();
  if (kind == ReductionKind::any || kind == ReductionKind::all)
    return IntegerType::get(context, 1);
  if (kind == ReductionKind::min || kind == ReductionKind::max)
    return input;
  if (kind == ReductionKind::mean)
    return input.isF64() ? input : Float32Type::get(context);
  // sum, prod: integers and bool accumulate in 64 bits.
  if (isa<FloatType>(input))
    return input;
  bool isUnsigned = !input.isInteger(1) && cast<IntegerType>(input).isUnsigned();
  return IntegerType::get(context, 64,
                          isUnsigned ? IntegerType::Unsigned
                                     : IntegerType::Signed);
}

RankedTensorType mlir::pipe::getReducedType(RankedTensorType input,
                                            ArrayRef<int64_t> axes,
                                            bool keepdims, Type element) {
  SmallVector<int64_t> shape;
  SmallVector<std::string> names;
  SmallVector<std::string> inputNames = getDimNames(input);
  for (int64_t d = 0; d < input.getRank(); ++d) {
    if (llvm::is_contained(axes, d)) {
      if (keepdims)
        shape.push_back(1);
      continue;
    }
    shape.push_back(input.getDimSize(d));
    if (input.isDynamicDim(d))
      names.push_back(inputNames[d]);
  }
  SmallVector<StringRef> nameRefs(names.begin(), names.end());
  return getPipeTensorType(shape, nameRefs, element);
}

void mlir::pipe::collectDimSymbols(RankedTensorType type,
                                   std::set<std::string> &symbols) {
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      if (auto expr = pipert::DimExpr::parse(getDimNames(type)[d]))
        expr->collectSymbols(symbols);
}

std::string mlir::pipe::getDimCExpression(StringRef dim) {
  std::optional<pipert::DimExpr> expr = pipert::DimExpr::parse(dim);
  if (!expr || expr->isSymbol())
    return "d_" + dim.str();
  return expr->toC("d_");
}

std::string mlir::pipe::describeLocation(Location loc) {
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      loc = fused.getLocations().front();
  if (auto named = dyn_cast<NameLoc>(loc))
    loc = named.getChildLoc();
  auto fileLoc = dyn_cast<FileLineColLoc>(loc);
  if (!fileLoc)
    return "";
  return (fileLoc.getFilename().str() + ":" +
          std::to_string(fileLoc.getLine()) + ":" +
          std::to_string(fileLoc.getColumn()));
}
