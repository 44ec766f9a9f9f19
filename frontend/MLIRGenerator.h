//===- MLIRGenerator.h - The AST walker of MLIRGen --------------*- C++ -*-===//
//
// Internal to the frontend: the class that turns a checked AST into the
// pipe dialect (MLIRGen.h is the entry). Its definitions are in three
// files along the language's parts: MLIRGen.cpp (pipelines, expressions,
// elementwise ops, reductions, blurs), MLIRGenLayout.cpp (the layout
// functions) and MLIRGenImage.cpp (resampling, color, random numbers).
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_FRONTEND_MLIRGENERATOR_H
#define PIPE_FRONTEND_MLIRGENERATOR_H

#include "frontend/AST.h"

#include "core/DimExpr.h"
#include "dialect/PipeDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SourceMgr.h"

#include <string>
#include <vector>

namespace pipec {
namespace mlirgen {

using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::StringRef;
using mlir::ArrayAttr;
using mlir::Attribute;
using mlir::Location;
using mlir::MLIRContext;
using mlir::ModuleOp;
using mlir::OpBuilder;
using mlir::OwningOpRef;
using mlir::RankedTensorType;
using mlir::Type;
using mlir::TypedAttr;
using mlir::Value;
using mlir::ValueRange;

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
  Location loc(llvm::SMLoc smLoc);

  /// The last location made, from which `loc` goes on along its line.
  struct {
    unsigned bufferId = 0;
    const char *ptr = nullptr;
    unsigned line = 0, column = 0;
  } last;

  Type elementType(llvm::StringRef dtype);

  RankedTensorType tensorType(llvm::StringRef dtype,
                              const std::vector<DimAST> &dims);

  /// The attribute of one literal as `dtype`.
  TypedAttr literalAttr(const NumberExprAST &number, llvm::StringRef dtype);

  /// `literal` (null: 0) converted to `element` as a cast converts it:
  /// rounded half to even, saturated, true where nonzero. Integer literals
  /// convert exactly (a 64-bit fill past 2^53 keeps its value).
  TypedAttr convertedLiteralAttr(const NumberExprAST *literal, Type element);

  Value constant(const ExprAST &literal, llvm::StringRef dtype);

  /// Converts `value` to `dtype` if it has another.
  Value castTo(Value value, llvm::StringRef dtype, Location where);

  /// Broadcasts `value` to `dims` (NumPy: trailing dims align) unless it
  /// already has them or is rank 0.
  Value broadcastTo(Value value, const std::vector<DimAST> &dims,
                    Location where);

  /// Emits an operand of an op that computes in `dtype` over `dims`.
  Value operand(const ExprAST &expr, llvm::StringRef dtype,
                const std::vector<DimAST> &dims, Location where);

  /// The elementwise op that `spelling` (an operator, or a function name)
  /// of `operands.size()` operands names (dialect/PipeSource.td).
  Value emitElementwise(llvm::StringRef spelling, bool isOperator,
                        ValueRange operands, RankedTensorType type,
                        Location where);

  Value emitCall(const CallExprAST &call, llvm::StringRef literalDType);

  /// Whether `name` is an elementwise function of `arity` operands.
  static bool hasElementwiseFunction(llvm::StringRef name, size_t arity);

  Value emitElementwiseCall(const CallExprAST &call, RankedTensorType type,
                            Location where);

  Value emitSelectOp(const CallExprAST &call, RankedTensorType type,
                     Location where, llvm::StringRef);

  Value emitTransposeOp(const CallExprAST &call, RankedTensorType type,
                        Location where, llvm::StringRef literalDType);

  Value emitReshapeOp(const CallExprAST &call, RankedTensorType type,
                      Location where, llvm::StringRef literalDType);

  Value emitReduceOp(const CallExprAST &call, RankedTensorType, Location where,
                     llvm::StringRef);

  Value emitCopyOp(const CallExprAST &call, RankedTensorType type,
                   Location where, llvm::StringRef literalDType);

  Value emitGaussianBlurOp(const CallExprAST &call, RankedTensorType type,
                           Location where, llvm::StringRef);

  Value emitGaussianBlur(const CallExprAST &call, RankedTensorType type,
                         Location where);

  /// box_filter, erode, dilate, median, conv2d: pipe.window (conv2d's
  /// kernel f32 [..., KH, KW], a constant when written as rows).
  Value emitWindowOp(const CallExprAST &call, RankedTensorType type,
                     Location where, llvm::StringRef);

  /// Emits `expr`; a weak literal becomes a constant of `literalDType`.
  Value emitExpr(const ExprAST &expr, llvm::StringRef literalDType);

  /// `@host` or `@device` as the pipeline's attribute (Sema checked it).
  Attribute memoryAttr(llvm::StringRef memory);

  void emitPipeline(const PipelineAST &pipeline);

  //===--------------------------------------------------------------------===//
  // Sizes, slicing and the layout functions
  //===--------------------------------------------------------------------===//
  /// A dim expression's value as an si64 scalar: a constant when it is one.
  Value dimValue(const pipert::DimExpr &size, Location where);

  /// `count` per-sample integer values from `param`: a list of them (sizes
  /// or tensors), or a tensor whose last dim holds them ([.., count]) or,
  /// when `split` (Sema's reading), whose last two do ([.., count / per,
  /// per]). Weak sizes become si64.
  SmallVector<Value> sampleValues(const ExprAST &param, size_t count,
                                  int64_t per, bool split, Location where);

  const ExprAST *keywordValue(const CallExprAST &call, llvm::StringRef name);

  ArrayAttr stringsAttr(ArrayRef<std::string> texts);

  Value emitSubscript(const SubscriptExprAST &expr,
                      llvm::StringRef literalDType);

  Value emitCropOp(const CallExprAST &call, RankedTensorType type,
                   Location where, llvm::StringRef literalDType);

  Value emitFlipOp(const CallExprAST &call, RankedTensorType type,
                   Location where, llvm::StringRef literalDType);

  Value emitPadOp(const CallExprAST &call, RankedTensorType type,
                  Location where, llvm::StringRef literalDType);

  Value emitTakeOp(const CallExprAST &call, RankedTensorType type,
                   Location where, llvm::StringRef literalDType);

  Value emitConcatOp(const CallExprAST &call, RankedTensorType type,
                     Location where, llvm::StringRef);

  Value emitCoordinateOp(const CallExprAST &call, RankedTensorType type,
                         Location where, llvm::StringRef);

  Value emitBroadcastOp(const CallExprAST &call, RankedTensorType type,
                        Location where, llvm::StringRef);

  Value emitEraseOp(const CallExprAST &call, RankedTensorType type,
                    Location where, llvm::StringRef literalDType);

  /// A constant tensor of `shape` (row-major `values`) in `dtype`.
  Value constantTensor(ArrayRef<int64_t> shape, ArrayRef<double> values,
                       llvm::StringRef dtype, Location where);

  /// `value` (rank 0, or a prefix of `dims`) broadcast to `dims`, its dims
  /// leading: a per-sample parameter spread over each sample.
  Value spreadLeading(Value value, const std::vector<DimAST> &dims,
                      Location where);

  /// warp_affine, rotate, resize: pipe.resample with the matrices (f32
  /// [..., 2, 3]) or the angles (f32, per sample) as its parameter.
  Value emitResampleOp(const CallExprAST &call, RankedTensorType type,
                       Location where, llvm::StringRef);
  /// Dim checks that a resize's images have pixels (unless the result is
  /// empty too), in `callee`'s name.
  void requireImagePixels(mlir::Operation *resample, llvm::StringRef callee);

  /// The dims of a resampling call's images before H, W and C: one image
  /// each.
  static std::vector<DimAST> sampleDims(const CallExprAST &call);

  /// Size `axis` of `value`'s type as a dim expression.
  pipert::DimExpr dimOf(Value value, int64_t axis);

  /// `values` (each rank 0 or a prefix of `dims`), as f32, side by side
  /// along a new last dim: [dims..., values.size()], or [values.size()]
  /// when each is a scalar.
  Value stackLast(ArrayRef<Value> values, std::vector<DimAST> dims,
                  Location where);

  /// resize's region of interest (roi_start, roi_end, each [y, x] or one
  /// per sample [..., 2]) as the resample's (y0, x0, y1, x1) per sample,
  /// in pixels (relative_roi scales by H and W).
  Value emitResizeRoi(const CallExprAST &call, Value images, Location where);
  /// `value` checked when the pipeline runs: each element in [lo, hi] (dim
  /// expressions; NaN in none), or the run fails with `message` ({at},
  /// {value}, {lo}, {hi} filled in) and writes nothing.
  Value checkedRange(Value value, llvm::StringRef lo, llvm::StringRef hi,
                     const std::string &message, Location where);
  /// A bound of randint as pipe.random takes it, checked when the
  /// pipeline runs where only the run knows it (MLIRGenImage.cpp).
  Value randintBound(const ExprAST *bound, bool isLo, const CallExprAST &call,
                     Location where);
  /// `degrees` with its whole turns taken out, exactly, where their
  /// magnitude is 360 or more (in `degrees`' dtype: the remainder by 360
  /// rounds nothing).
  Value reduceTurns(Value degrees, Location where);
  /// An angle in degrees as given: a number literal as `literalDType`, a
  /// tree of literals (or a name bound to one) in f64 or i64, a tensor in
  /// its own dtype (withoutWholeTurns then takes its turns out).
  Value emitDegrees(const ExprAST &given, llvm::StringRef literalDType);
  /// An angle in degrees (`degrees`, the value of `given`) with its whole
  /// turns taken out before it becomes f32, which would round them first
  /// (1000000087 degrees are 1000000064 in f32, a turn of 344 degrees
  /// instead of 7): a literal of a turn or more when compiling, as an f64
  /// constant; an integer or f64 tensor in its own dtype. f32, f16 and
  /// bf16 angles come back as they are (f32 holds them; their turns are
  /// taken out there).
  Value withoutWholeTurns(const ExprAST &given, Value degrees, Location where);
  /// A parameter only the run knows, checked to be finite (within
  /// +-2^62: angles and matrices past that are no geometry either).
  Value checkedFinite(Value value, const std::string &what, Location where);

  /// random_resized_crop's windows: pipe.random resized_crop over
  /// [samples..., 4] with the images' height and width.
  Value emitCropWindows(const CallExprAST &call, Value images, Location where);

  /// The color functions. brightness_contrast is elementwise; the others
  /// mix the channels by a 3x3 matrix per sample (pipe.channel_mix), DALI's
  /// YIQ formulas (core/PipeColor.h documents them).
  Value emitChannelMixOp(const CallExprAST &call, RankedTensorType type,
                         Location where, llvm::StringRef);

  /// Each element's row-major index in `dims`, as si64 of that shape:
  /// what a random op draws from.
  Value randomIndex(const std::vector<DimAST> &dims, Location where);

  /// uniform, normal, coin_flip, randint: pipe.random over each element's
  /// row-major index in the shape drawn, with the distribution's
  /// parameters as f64 (si64 for randint) broadcast to it.
  Value emitRandomOp(const CallExprAST &call, RankedTensorType type,
                     Location where, llvm::StringRef);

  OpBuilder builder;

  llvm::SourceMgr &sourceMgr;

  llvm::StringMap<Value> symbols;

  /// The next random op's stream: each op of a pipeline draws its own
  /// numbers (Sema bounds their count).
  int64_t randomStreams = 0;
};

} // namespace mlirgen
} // namespace pipec

#endif // PIPE_FRONTEND_MLIRGENERATOR_H
