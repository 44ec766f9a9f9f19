//===- PipeDialect.h - The pipe dialect -------------------------*- C++ -*-===//
//
// Declares the pipe dialect, its ops, and the helpers that define what a pipe
// tensor type is (a ranked tensor with named dynamic dims).
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_DIALECT_PIPEDIALECT_H
#define PIPE_DIALECT_PIPEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "core/DType.h"

#include <set>

#include "dialect/PipeDialect.h.inc"
#include "dialect/PipeEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/PipeAttrs.h.inc"

namespace mlir {
namespace pipe {

/// Whether `type` is an element type that pipe tensors may hold.
bool isPipeElementType(Type type);

/// Whether `type` is a ranked tensor of a pipe element type whose encoding
/// is an array naming each dynamic dim (absent when there is none).
bool isPipeTensorType(Type type);

/// Builds the pipe tensor type of `shape` (kDynamic where a dim is symbolic)
/// and `elementType`; `dimNames` names each dynamic dim in order.
RankedTensorType getPipeTensorType(ArrayRef<int64_t> shape,
                                   ArrayRef<StringRef> dimNames,
                                   Type elementType);

/// The same shape and dim names with another element type.
RankedTensorType withElementType(RankedTensorType type, Type elementType);

/// The names of a pipe tensor's dims: a symbol or a dim expression
/// (core/DimExpr.h), or the size in decimal.
SmallVector<std::string> getDimNames(RankedTensorType type);

/// The symbolic names `type`'s dims use (an expression's names too).
void collectDimSymbols(RankedTensorType type, std::set<std::string> &symbols);

/// A dim (a name or an expression of names, as types carry it) as a C
/// expression of the kernels' `long long d_<name>` arguments.
std::string getDimCExpression(StringRef dim);

/// Bytes one element of `type` (an element type, or a tensor type's
/// element) takes in memory: bool is one byte.
int64_t getElementBytes(Type type);

/// The runtime's dtype of a pipe element type.
pipert::DType getRuntimeDType(Type elementType);

/// Folds elementwise `op` when every operand is a scalar constant
/// (`operands`, as folders get them): computed as the kernels compute it
/// (the runtime's host steps over core/PipeScalar.h). Ops whose CUDA
/// form may differ from the host's in the last bits (exp, log, sin, cos,
/// tanh, float pow) are left to the kernel.
OpFoldResult foldScalarElementwise(Operation *op, ArrayRef<Attribute> operands);

/// The user-facing spelling of a dtype: u8, i32, f32, ...
std::string getDTypeName(Type elementType);

/// Whether two pipe tensor types have the same shape (sizes and names).
bool haveSameShape(RankedTensorType a, RankedTensorType b);

/// Whether the first `count` dims of `a` and `b` are the same (a
/// per-sample parameter's dims, say, and its input's leading ones).
bool haveSameLeadingDims(RankedTensorType a, RankedTensorType b,
                         int64_t count);

/// `tensor` sliced at `indices` along its last indices.size() dims, which
/// go away (x[..., i] or x[..., i, j]).
Value createTrailingSlice(OpBuilder &builder, Location loc, Value tensor,
                          ArrayRef<int64_t> indices);

/// `value` broadcast to `result`'s shape: its dims before its last
/// `trailing` ones along `result`'s leading dims (a per-sample parameter
/// spread over each sample), its last `trailing` along `result`'s last.
/// `value` itself when it is a scalar or has that shape already.
Value createLeadingBroadcast(OpBuilder &builder, Location loc, Value value,
                             RankedTensorType result, int64_t trailing);

/// The C++ type of one element in generated code and in PipeScalar.h:
/// float, double, pipe_u8, pipe_i32, pipe_bool, pipe_f16, ...
std::string getCppScalarType(Type elementType);

/// The dtypes an elementwise op accepts.
enum class DTypeRule { Any, Numeric, Float, Integer, IntegerOrBool, Bool };

/// Verifies an elementwise op: every operand has the result's shape or rank
/// 0; operands share one dtype (a select's condition is bool), which `rule`
/// allows; the result has that dtype, or bool if `compares`.
LogicalResult verifyElementwiseOp(Operation *op, DTypeRule rule,
                                  bool compares);

/// The element type `kind` gives over elements of `input` by default (see
/// pipe.reduce); `mean` may also give any other float.
Type getReductionResultType(ReductionKind kind, Type input);

/// The shape of reducing `input` along `axes` (dims kept with size 1 under
/// `keepdims`), with element type `element`.
RankedTensorType getReducedType(RankedTensorType input, ArrayRef<int64_t> axes,
                                bool keepdims, Type element);

/// "file:line:col" of `loc` (the first of a fused location), or "" when it
/// has no file position.
std::string describeLocation(Location loc);

/// The tag of a `pipe.return`'s location: the locations it fuses are where
/// each result is bound in the source, in order (CSE may make one result's
/// value another's, defined on another line).
inline constexpr const char *kResultLocationsTag = "pipe.result_locations";

/// The attribute the frontend puts on each `pipe.select` that merges the
/// versions of a name an `if` branch or a `for` iteration binds, saying
/// which ("'x' after the if"):
/// `pipe-host-control` may turn such a select into a `pipe.choose`.
constexpr llvm::StringLiteral kVersionMergeAttr = "pipe.merge";

/// "function(a, b)".
std::string getCallExpression(StringRef function, ArrayRef<std::string> args);

/// The value of `value` when it is a rank-0 integer or bool literal (a
/// pipe.constant) that fits in i64, as its dtype reads it: u8(200) is
/// 200, true is 1. Nothing for a computed value, a float, or a u64 past
/// 2^63 (an index or a size only the run can compare).
std::optional<int64_t> getIntegerLiteral(Value value);

} // namespace pipe
} // namespace mlir

#include "dialect/IndexExpr.h"
#include "dialect/PipeInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialect/PipeOps.h.inc"

#endif // PIPE_DIALECT_PIPEDIALECT_H
