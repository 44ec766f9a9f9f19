//===- PipeLayoutOps.cpp - Which element each result is -------------------===//
//
// Verifiers, folders and canonicalizations of the layout ops, and the index
// maps (IndexMapOpInterface::mapIndex) of those that are one: for a result
// coordinate, the source coordinate.
//
//===----------------------------------------------------------------------===//

#include "dialect/PipeDialect.h"

#include "core/DimExpr.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::pipe;
using pipert::DimExpr;

/// Dim `i` of `type` as a dim expression.
static DimExpr dimSize(RankedTensorType type, int64_t i) {
  if (!type.isDynamicDim(i))
    return DimExpr::constant(type.getDimSize(i));
  return *DimExpr::parse(getDimNames(type)[i]);
}

/// A size attribute's text as a dim expression, or nothing.
static std::optional<DimExpr> parseSize(Attribute attr) {
  auto text = dyn_cast<StringAttr>(attr);
  return text ? DimExpr::parse(text.getValue()) : std::nullopt;
}

/// A dim expression as an index expression: a literal, or the dim (by its
/// canonical text, which codegen prints over the kernel's dim arguments).
static IndexExpr indexOf(const DimExpr &size) {
  return size.isConstant() ? IndexExpr::constant(size.getConstant())
                           : IndexExpr::dim(size.str());
}

/// Checks `axes`: in range for `rank`, each once.
static LogicalResult verifyAxes(Operation *op, ArrayRef<int64_t> axes,
                                int64_t rank) {
  llvm::SmallDenseSet<int64_t> seen;
  for (int64_t axis : axes)
    if (axis < 0 || axis >= rank || !seen.insert(axis).second)
      return op->emitOpError() << "axes must be distinct dims of the input";
  return success();
}

/// Checks a per-sample parameter of a layout op on `input`: of rank 0, or
/// with `input`'s leading dims before `firstAxis`; `integer` or bool.
static LogicalResult verifySampleParam(Operation *op, Value param,
                                       RankedTensorType input,
                                       int64_t firstAxis, bool boolean,
                                       StringRef what) {
  auto type = cast<RankedTensorType>(param.getType());
  Type element = type.getElementType();
  if (boolean ? !element.isInteger(1)
              : (!isa<IntegerType>(element) || element.isInteger(1)))
    return op->emitOpError() << what << " must be "
                             << (boolean ? "bool" : "an integer") << ", not "
                             << element;
  if (type.getRank() > firstAxis)
    return op->emitOpError() << what << " cannot span a laid-out axis";
  if (!haveSameLeadingDims(type, input, type.getRank()))
    return op->emitOpError() << what << " must have the input's leading dims";
  return success();
}

/// The leading (sample) coordinates of `result` that a parameter of
/// `param`'s rank is read at.
static IndexExpr readParam(Value param, ArrayRef<IndexExpr> result) {
  int64_t rank = cast<RankedTensorType>(param.getType()).getRank();
  return IndexExpr::read(param, result.take_front(rank));
}

//===----------------------------------------------------------------------===//
// broadcast, transpose, reshape
//===----------------------------------------------------------------------===//

/// One dim of a pipe tensor: its literal size, or its name.
static std::string dimAt(RankedTensorType type, int64_t i) {
  return getDimNames(type)[i];
}

static bool isLiteralOne(RankedTensorType type, int64_t i) {
  return !type.isDynamicDim(i) && type.getDimSize(i) == 1;
}

LogicalResult BroadcastOp::verify() {
  auto inputType = cast<RankedTensorType>(getInput().getType());
  auto resultType = cast<RankedTensorType>(getResult().getType());
  ArrayRef<int64_t> dims = getDimensions();
  if (inputType.getElementType() != resultType.getElementType())
    return emitOpError() << "changes the dtype";
  if (int64_t(dims.size()) != inputType.getRank())
    return emitOpError() << "needs one dimension per operand dim ("
                         << inputType.getRank() << "), has " << dims.size();
  llvm::SmallDenseSet<int64_t> seen;
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= resultType.getRank() || !seen.insert(d).second)
      return emitOpError() << "dimension " << d
                           << " is out of range or repeated";
    if (!isLiteralOne(inputType, i) &&
        dimAt(inputType, i) != dimAt(resultType, d))
      return emitOpError() << "operand dim " << i << " ("
                           << dimAt(inputType, i) << ") cannot become result "
                           << "dim " << d << " (" << dimAt(resultType, d)
                           << ")";
  }
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor) {
  // The identity map on the same type.
  if (getInput().getType() != getResult().getType())
    return {};
  for (auto [i, d] : llvm::enumerate(getDimensions()))
    if (int64_t(i) != d)
      return {};
  return getInput();
}

namespace {
/// broadcast(broadcast(x)) -> broadcast(x), the maps composed.
struct ComposeBroadcasts : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<BroadcastOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> dims;
    for (int64_t d : inner.getDimensions())
      dims.push_back(op.getDimensions()[d]);
    rewriter.replaceOpWithNewOp<BroadcastOp>(
        op, op.getType(), inner.getInput(), rewriter.getDenseI64ArrayAttr(dims));
    return success();
  }
};

/// Bytes per element that an elementwise op reads from tensors (scalars are
/// read once, not per element).
static int64_t tensorOperandBytes(Operation *op) {
  int64_t bytes = 0;
  for (Value operand : op->getOperands()) {
    auto type = cast<RankedTensorType>(operand.getType());
    if (type.getRank() == 0)
      continue;
    // Values no kernel loads per element: coordinates, and spreads of
    // lower-rank values (a per-sample anchor), are computed or cached.
    Operation *def = operand.getDefiningOp();
    if (def && (isa<CoordinateOp>(def) ||
                (isa<BroadcastOp>(def) &&
                 cast<RankedTensorType>(def->getOperand(0).getType())
                         .getRank() < type.getRank())))
      continue;
    if (auto cast = dyn_cast_or_null<CastOp>(def))
      if (Operation *inner = cast.getInput().getDefiningOp();
          inner && (isa<CoordinateOp>(inner) || isa<BroadcastOp>(inner)) &&
          tensorOperandBytes(def) == 0)
        continue;
    bytes += std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  }
  return bytes;
}

/// map(elementwise(a, b, ...)) -> elementwise(map(a), map(b), ...) for an
/// index map (a broadcast, a crop, a flip, ...; every one is total, so it
/// commutes with elementwise work): layout ops move toward the kernel
/// inputs, where fusion folds them into index arithmetic. When the
/// elementwise op has other users, the moved copy recomputes it, which pays
/// when it reads fewer bytes per element than it writes (f32(u8_image) * 2
/// read twice costs 2 bytes, stored and read back 8); otherwise its result
/// is kept and read through the map. Scalars stay scalars; constants are
/// left alone.
/// Whether `op` is a broadcast that repeats its source's elements (adds
/// dims, or stretches a dim of literal size 1), not only permutes them.
static bool repeatsElements(IndexMapOpInterface op) {
  auto broadcast = dyn_cast<BroadcastOp>(op.getOperation());
  if (!broadcast)
    return false;
  auto source = cast<RankedTensorType>(broadcast.getInput().getType());
  auto result = cast<RankedTensorType>(broadcast.getResult().getType());
  if (source.getRank() < result.getRank())
    return true;
  for (auto [s, d] : llvm::enumerate(broadcast.getDimensions()))
    if (!source.isDynamicDim(s) && source.getDimSize(s) == 1 &&
        (result.isDynamicDim(d) || result.getDimSize(d) != 1))
      return true;
  return false;
}

struct SinkIndexMapThroughElementwise
    : OpInterfaceRewritePattern<IndexMapOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(IndexMapOpInterface op,
                                PatternRewriter &rewriter) const override {
    if (!op.isTotal())
      return failure();
    Value source = op.getSource();
    Operation *producer = source.getDefiningOp();
    if (!producer || !isa<ElementwiseOpInterface>(producer) ||
        isa<ConstantOp>(producer) || producer->getNumOperands() == 0)
      return failure();
    // Random numbers are drawn once each and read through a broadcast that
    // repeats them: moved, a per-sample draw broadcast over an image would
    // be drawn again for every pixel (ten Philox rounds each). Through
    // other maps (a transpose, a crop) each is still drawn about once.
    if (isa<RandomOp>(producer) && repeatsElements(op))
      return failure();
    int64_t resultBytes = std::max<int64_t>(
        1, cast<RankedTensorType>(producer->getResult(0).getType())
                   .getElementTypeBitWidth() /
               8);
    if (!producer->hasOneUse() && tensorOperandBytes(producer) > resultBytes)
      return failure();
    // A scalar computation (every operand rank 0) stays scalar: computed
    // once, then spread (and a cast cannot change the shape).
    if (llvm::all_of(producer->getOperandTypes(), [](Type type) {
          return cast<RankedTensorType>(type).getRank() == 0;
        }))
      return failure();
    // The source is the map's operand that `getSource` names.
    unsigned sourceIndex = 0;
    while (op->getOperand(sourceIndex) != source)
      ++sourceIndex;
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<Value> operands;
    for (Value operand : producer->getOperands()) {
      auto operandType = cast<RankedTensorType>(operand.getType());
      if (operandType.getRank() == 0) {
        operands.push_back(operand);
        continue;
      }
      Operation *moved = rewriter.clone(*op);
      moved->setOperand(sourceIndex, operand);
      moved->getResult(0).setType(
          withElementType(resultType, operandType.getElementType()));
      // A fill (a crop's or pad's, of the map's dtype) is never read by a
      // total map: the operand's dtype's zero keeps the op valid.
      if (moved->getAttrOfType<TypedAttr>("fill"))
        moved->setAttr("fill",
                       rewriter.getZeroAttr(operandType.getElementType()));
      operands.push_back(moved->getResult(0));
    }
    Operation *computed = rewriter.clone(*producer);
    computed->setOperands(operands);
    computed->getResult(0).setType(withElementType(
        resultType,
        cast<RankedTensorType>(producer->getResult(0).getType())
            .getElementType()));
    rewriter.replaceOp(op, computed->getResults());
    return success();
  }
};

/// transpose(x, perm) -> broadcast(x, inverse(perm)).
struct TransposeToBroadcast : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> perm = op.getPermutation();
    SmallVector<int64_t> inverse(perm.size());
    for (auto [d, p] : llvm::enumerate(perm))
      inverse[p] = d;
    rewriter.replaceOpWithNewOp<BroadcastOp>(
        op, op.getType(), op.getInput(), rewriter.getDenseI64ArrayAttr(inverse));
    return success();
  }
};
} // namespace

Value BroadcastOp::getSource() { return getInput(); }

IndexCoordinates BroadcastOp::mapIndex(ArrayRef<IndexExpr> result) {
  // Operand dim s is result dim dimensions[s]; a literal 1 repeats.
  auto source = cast<RankedTensorType>(getInput().getType());
  IndexCoordinates coordinates;
  for (auto [s, d] : llvm::enumerate(getDimensions()))
    coordinates.push_back(!source.isDynamicDim(s) && source.getDimSize(s) == 1
                              ? IndexExpr::constant(0)
                              : result[d]);
  return coordinates;
}

Value TransposeOp::getSource() { return getInput(); }

IndexCoordinates TransposeOp::mapIndex(ArrayRef<IndexExpr> result) {
  // Result dim d is operand dim permutation[d].
  IndexCoordinates coordinates(result.size());
  for (auto [d, p] : llvm::enumerate(getPermutation()))
    coordinates[p] = result[d];
  return coordinates;
}

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeBroadcasts>(context);
}

void PipeDialect::getCanonicalizationPatterns(
    RewritePatternSet &results) const {
  results.add<SinkIndexMapThroughElementwise>(getContext());
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<TransposeToBroadcast>(context);
}

LogicalResult TransposeOp::verify() {
  auto inputType = cast<RankedTensorType>(getInput().getType());
  auto resultType = cast<RankedTensorType>(getResult().getType());
  ArrayRef<int64_t> perm = getPermutation();
  if (int64_t(perm.size()) != inputType.getRank() ||
      resultType.getRank() != inputType.getRank())
    return emitOpError() << "permutation must have one entry per dim";
  llvm::SmallDenseSet<int64_t> seen;
  for (auto [d, p] : llvm::enumerate(perm)) {
    if (p < 0 || p >= inputType.getRank() || !seen.insert(p).second)
      return emitOpError() << "is not a permutation";
    if (dimAt(resultType, d) != dimAt(inputType, p))
      return emitOpError() << "result dim " << d << " must be operand dim "
                           << p;
  }
  if (inputType.getElementType() != resultType.getElementType())
    return emitOpError() << "changes the dtype";
  return success();
}

/// The number of elements of `type`, as a dim expression: equal for two
/// types that provably hold as many (H * W and W * H; 2 * W and W + W).
static pipert::DimExpr countElements(RankedTensorType type) {
  pipert::DimExpr count = pipert::DimExpr::constant(1);
  for (int64_t i = 0; i < type.getRank(); ++i)
    count = count * dimSize(type, i);
  return count;
}

LogicalResult ReshapeOp::verify() {
  auto inputType = cast<RankedTensorType>(getInput().getType());
  auto resultType = cast<RankedTensorType>(getResult().getType());
  if (inputType.getElementType() != resultType.getElementType())
    return emitOpError() << "changes the dtype";
  if (countElements(inputType) != countElements(resultType))
    return emitOpError() << "does not keep the number of elements";
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  return {};
}


namespace {
/// reshape(f(a, b, ...)) -> f(reshape(a), reshape(b), ...) for an
/// elementwise f whose tensor operands all have its result's shape: the
/// reshape becomes a view of f's inputs, and f fuses with what reads the
/// reshaped value (no temporary of f's result). When f has other users it
/// is recomputed only where it reads no more bytes per element than it
/// writes.
struct SinkElementwiseThroughReshape : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    Operation *producer = op.getInput().getDefiningOp();
    if (!producer || !isa<ElementwiseOpInterface>(producer) ||
        isa<ConstantOp>(producer) || producer->getNumOperands() == 0)
      return failure();
    auto producedType = cast<RankedTensorType>(producer->getResult(0).getType());
    for (Value operand : producer->getOperands()) {
      auto type = cast<RankedTensorType>(operand.getType());
      if (type.getRank() != 0 && !haveSameShape(type, producedType))
        return failure();
    }
    int64_t resultBytes =
        std::max<int64_t>(1, producedType.getElementTypeBitWidth() / 8);
    if (!producer->hasOneUse() && tensorOperandBytes(producer) > resultBytes)
      return failure();
    auto resultType = cast<RankedTensorType>(op.getType());
    SmallVector<Value> operands;
    for (Value operand : producer->getOperands()) {
      auto type = cast<RankedTensorType>(operand.getType());
      operands.push_back(
          type.getRank() == 0
              ? operand
              : ReshapeOp::create(rewriter, op.getLoc(),
                                  withElementType(resultType,
                                                  type.getElementType()),
                                  operand)
                    .getResult());
    }
    Operation *computed = rewriter.clone(*producer);
    computed->setOperands(operands);
    computed->getResult(0).setType(
        withElementType(resultType, producedType.getElementType()));
    rewriter.replaceOp(op, computed->getResults());
    return success();
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<SinkElementwiseThroughReshape>(context);
}

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

Value SliceOp::getSource() { return getInput(); }

IndexCoordinates SliceOp::mapIndex(ArrayRef<IndexExpr> result) {
  IndexCoordinates coordinates;
  size_t next = 0;
  for (auto [start, step, dropped] :
       llvm::zip(getStarts(), getSteps(), getDropped())) {
    IndexExpr first = indexOf(*parseSize(start));
    if (dropped)
      coordinates.push_back(first);
    else
      coordinates.push_back(first + IndexExpr::constant(step) * result[next++]);
  }
  return coordinates;
}

LogicalResult SliceOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  int64_t rank = input.getRank();
  if (int64_t(getStarts().size()) != rank ||
      int64_t(getSteps().size()) != rank ||
      int64_t(getDropped().size()) != rank)
    return emitOpError() << "needs a start, a step and a dropped flag per "
                            "input dim";
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "changes the dtype";
  int64_t kept = llvm::count(getDropped(), false);
  if (result.getRank() != kept)
    return emitOpError() << "result must have one dim per dim not dropped";
  for (auto [start, step] : llvm::zip(getStarts(), getSteps())) {
    if (!parseSize(start))
      return emitOpError() << "start " << start << " is not a dim expression";
    if (step == 0)
      return emitOpError() << "a step cannot be 0";
  }
  if (auto checks = getDimChecks())
    for (Attribute check : *checks)
      if (!parseSize(check))
        return emitOpError() << "dim check " << check
                             << " is not a dim expression";
  return success();
}

namespace {
/// A slice within one input of a concat along the concat's axis (a column
/// of `stack([y, x], axis = 1)`): the same slice of that input.
struct SliceOfConcat : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto concat = op.getInput().getDefiningOp<ConcatOp>();
    if (!concat)
      return failure();
    int64_t axis = concat.getAxis();
    auto result = cast<RankedTensorType>(op.getType());
    std::optional<DimExpr> start = parseSize(op.getStarts()[axis]);
    bool dropped = op.getDropped()[axis];
    if (!start || (!dropped && op.getSteps()[axis] != 1))
      return failure();
    // The extent the slice reads along the axis: one index, or its size.
    DimExpr extent = DimExpr::constant(1);
    if (!dropped) {
      int64_t kept = 0;
      for (int64_t d = 0; d < axis; ++d)
        kept += !op.getDropped()[d];
      extent = dimSize(result, kept);
    }
    auto known = [](const DimExpr &e) {
      return e.isConstant() && e.getConstant() >= 0;
    };
    DimExpr offset = DimExpr::constant(0);
    for (Value input : concat.getInputs()) {
      DimExpr size = dimSize(cast<RankedTensorType>(input.getType()), axis);
      DimExpr within = *start - offset;
      if (known(within) && known(offset + size - *start - extent)) {
        SmallVector<Attribute> starts(op.getStarts().begin(),
                                      op.getStarts().end());
        starts[axis] = rewriter.getStringAttr(within.str());
        rewriter.replaceOpWithNewOp<SliceOp>(
            op, op.getType(), input, rewriter.getArrayAttr(starts),
            op.getSteps(), op.getDropped(), op.getDimChecksAttr());
        return success();
      }
      offset = offset + size;
    }
    return failure();
  }
};

/// A slice that only drops dims a broadcast inserted, and keeps the rest
/// whole, is the broadcast's input (a column of a stack of per-sample
/// values).
struct SliceOfBroadcast : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto broadcast = op.getInput().getDefiningOp<BroadcastOp>();
    if (!broadcast || broadcast.getInput().getType() != op.getType())
      return failure();
    ArrayRef<int64_t> mapped = broadcast.getDimensions();
    for (auto [d, start, step, dropped] :
         llvm::enumerate(op.getStarts(), op.getSteps(), op.getDropped())) {
      bool inserted = !llvm::is_contained(mapped, int64_t(d));
      if (dropped != inserted)
        return failure();
      if (!dropped && (step != 1 || cast<StringAttr>(start).getValue() != "0"))
        return failure();
    }
    // The input's dims in the broadcast's order, as the slice keeps them.
    if (!llvm::is_sorted(mapped))
      return failure();
    rewriter.replaceOp(op, broadcast.getInput());
    return success();
  }
};
} // namespace

void SliceOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<SliceOfConcat, SliceOfBroadcast>(context);
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  bool whole = getInput().getType() == getType() &&
               llvm::all_of(getSteps(), [](int64_t s) { return s == 1; }) &&
               llvm::none_of(getDropped(), [](bool d) { return d; }) &&
               llvm::all_of(getStarts(), [](Attribute start) {
                 return cast<StringAttr>(start).getValue() == "0";
               });
  return whole ? getInput() : OpFoldResult();
}

//===----------------------------------------------------------------------===//
// crop, flip, pad, take
//===----------------------------------------------------------------------===//

Value CropOp::getSource() { return getInput(); }

bool CropOp::isTotal() { return getOutOfBounds() != OutOfBounds::pad; }

IndexCoordinates CropOp::mapIndex(ArrayRef<IndexExpr> result) {
  // anchor + c. With `error`, the runtime checks every anchor before a
  // kernel that reads through the map runs (a failed check skips it), so
  // the map stays linear along the window; `clamp` (and the read under
  // `pad`'s select, after pipe-expand-layout) clamps into the input.
  auto input = cast<RankedTensorType>(getInput().getType());
  IndexCoordinates coordinates(result.begin(), result.end());
  auto window = cast<RankedTensorType>(getType());
  for (auto [axis, anchor] : llvm::zip(getAxes(), getAnchors())) {
    IndexExpr at = readParam(anchor, result);
    if (getOutOfBounds() == OutOfBounds::error) {
      coordinates[axis] = at + result[axis];
      continue;
    }
    // The anchor into [-S, D] first (S the window, D the dim): the same
    // clamped positions, and anchor + c cannot pass the 64-bit integers
    // (an anchor of 2^63 - 1 reads the last element, not the first).
    IndexExpr dim = IndexExpr::dimOf(input, axis);
    at = IndexExpr::clamp(at, IndexExpr::constant(0) -
                                  IndexExpr::dimOf(window, axis),
                          dim);
    coordinates[axis] = IndexExpr::clamp(at + result[axis],
                                         IndexExpr::constant(0),
                                         dim - IndexExpr::constant(1));
  }
  return coordinates;
}

LogicalResult CropOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (failed(verifyAxes(*this, getAxes(), input.getRank())))
    return failure();
  if (getAnchors().size() != getAxes().size())
    return emitOpError() << "needs one anchor per axis";
  int64_t firstAxis = *llvm::min_element(getAxes());
  for (Value anchor : getAnchors())
    if (failed(verifySampleParam(*this, anchor, input, firstAxis, false,
                                 "an anchor")))
      return failure();
  if (result.getRank() != input.getRank() ||
      result.getElementType() != input.getElementType())
    return emitOpError() << "keeps the input's rank and dtype";
  if (getFill().getType() != input.getElementType())
    return emitOpError() << "fill must be of the input's dtype";
  for (int64_t d = 0; d < input.getRank(); ++d)
    if (!llvm::is_contained(getAxes(), d) &&
        dimSize(input, d) != dimSize(result, d))
      return emitOpError() << "changes dim " << d << ", which is no axis";
  return success();
}

Value FlipOp::getSource() { return getInput(); }

IndexCoordinates FlipOp::mapIndex(ArrayRef<IndexExpr> result) {
  auto input = cast<RankedTensorType>(getInput().getType());
  IndexCoordinates coordinates(result.begin(), result.end());
  for (int64_t axis : getAxes()) {
    IndexExpr reversed = IndexExpr::dimOf(input, axis) -
                         IndexExpr::constant(1) - result[axis];
    coordinates[axis] =
        getWhen() ? IndexExpr::select(readParam(getWhen(), result), reversed,
                                      result[axis])
                  : reversed;
  }
  return coordinates;
}

LogicalResult FlipOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (getResult().getType() != input)
    return emitOpError() << "result must have the input's type";
  if (failed(verifyAxes(*this, getAxes(), input.getRank())))
    return failure();
  if (getAxes().empty())
    return emitOpError() << "needs at least one axis";
  if (getWhen())
    return verifySampleParam(*this, getWhen(), input,
                             *llvm::min_element(getAxes()), true, "when");
  return success();
}

Value PadOp::getSource() { return getInput(); }

bool PadOp::isTotal() { return getBorder() != Border::constant; }

IndexCoordinates PadOp::mapIndex(ArrayRef<IndexExpr> result) {
  auto input = cast<RankedTensorType>(getInput().getType());
  IndexCoordinates coordinates(result.begin(), result.end());
  for (auto [axis, before] : llvm::zip(getAxes(), getBefore())) {
    IndexExpr size = IndexExpr::dimOf(input, axis);
    IndexExpr x = result[axis] - indexOf(*parseSize(before));
    IndexExpr one = IndexExpr::constant(1), zero = IndexExpr::constant(0);
    switch (getBorder()) {
    case Border::constant: // the clamped read under pipe-expand-layout's select
    case Border::clamp:
      coordinates[axis] = IndexExpr::clamp(x, zero, size - one);
      break;
    case Border::wrap:
      coordinates[axis] = IndexExpr::mod(x, size);
      break;
    case Border::reflect101: {
      // dcb|abcd|cba: period 2n - 2 (a size of 1 repeats its one element),
      // m = x mod it, then m up to n - 1 and 2n - 2 - m past it, which is
      // n - 1 - |m - (n - 1)|: m once, so that pads of pads stay linear
      // in size (a select of m, m and 2n - 2 - m tripled x each level).
      IndexExpr last = size - one;
      IndexExpr period = IndexExpr::constant(2) * last;
      IndexExpr m = IndexExpr::mod(x, IndexExpr::max(period, one));
      coordinates[axis] = last - IndexExpr::abs(m - last);
      break;
    }
    }
  }
  return coordinates;
}

LogicalResult PadOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (failed(verifyAxes(*this, getAxes(), input.getRank())))
    return failure();
  if (getBefore().size() != getAxes().size() ||
      getAfter().size() != getAxes().size())
    return emitOpError() << "needs a before and an after per axis";
  if (result.getRank() != input.getRank() ||
      result.getElementType() != input.getElementType())
    return emitOpError() << "keeps the input's rank and dtype";
  if (getFill().getType() != input.getElementType())
    return emitOpError() << "fill must be of the input's dtype";
  for (int64_t d = 0; d < input.getRank(); ++d) {
    DimExpr expected = dimSize(input, d);
    for (auto [axis, before, after] :
         llvm::zip(getAxes(), getBefore(), getAfter()))
      if (axis == d) {
        std::optional<DimExpr> b = parseSize(before), a = parseSize(after);
        if (!b || !a)
          return emitOpError() << "widths must be dim expressions";
        expected = expected + *b + *a;
      }
    if (expected != dimSize(result, d))
      return emitOpError() << "result dim " << d << " must be "
                           << expected.str() << ", not "
                           << dimSize(result, d).str();
  }
  return success();
}

Value TakeOp::getSource() { return getInput(); }

IndexCoordinates TakeOp::mapIndex(ArrayRef<IndexExpr> result) {
  // The index along `axis`, negative ones from the end, clamped into the
  // input (an index outside is an error the runtime reports).
  auto input = cast<RankedTensorType>(getInput().getType());
  int64_t axis = getAxis();
  int64_t rank = cast<RankedTensorType>(getIndices().getType()).getRank();
  IndexCoordinates coordinates(result.take_front(axis).begin(),
                               result.take_front(axis).end());
  IndexExpr size = IndexExpr::dimOf(input, axis);
  IndexExpr index =
      IndexExpr::read(getIndices(), result.slice(axis, rank));
  IndexExpr wrapped = IndexExpr::select(
      IndexExpr::lt(index, IndexExpr::constant(0)), index + size, index);
  coordinates.push_back(IndexExpr::clamp(wrapped, IndexExpr::constant(0),
                                         size - IndexExpr::constant(1)));
  for (int64_t d = axis + 1; d < input.getRank(); ++d)
    coordinates.push_back(result[d + rank - 1]);
  return coordinates;
}

LogicalResult TakeOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto indices = cast<RankedTensorType>(getIndices().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= input.getRank())
    return emitOpError() << "axis must be a dim of the input";
  if (!isa<IntegerType>(indices.getElementType()) ||
      indices.getElementType().isInteger(1))
    return emitOpError() << "indices must be integers";
  if (result.getElementType() != input.getElementType() ||
      result.getRank() != input.getRank() - 1 + indices.getRank())
    return emitOpError() << "result must be the input's dims around the "
                            "indices' dims";
  for (int64_t d = 0; d < result.getRank(); ++d) {
    DimExpr expected = d < axis ? dimSize(input, d)
                       : d < axis + indices.getRank()
                           ? dimSize(indices, d - axis)
                           : dimSize(input, d - indices.getRank() + 1);
    if (expected != dimSize(result, d))
      return emitOpError() << "result dim " << d << " must be "
                           << expected.str();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// concat, coordinate, erase
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one input";
  auto first = cast<RankedTensorType>(getInputs().front().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= first.getRank())
    return emitOpError() << "axis must be a dim of the inputs";
  DimExpr along = DimExpr::constant(0);
  for (Value input : getInputs()) {
    auto type = cast<RankedTensorType>(input.getType());
    if (type.getElementType() != first.getElementType() ||
        type.getRank() != first.getRank())
      return emitOpError() << "inputs must have one dtype and rank";
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d != axis && dimSize(type, d) != dimSize(first, d))
        return emitOpError() << "inputs differ in dim " << d;
    along = along + dimSize(type, axis);
  }
  if (result.getElementType() != first.getElementType() ||
      result.getRank() != first.getRank())
    return emitOpError() << "result must have the inputs' dtype and rank";
  for (int64_t d = 0; d < result.getRank(); ++d)
    if (dimSize(result, d) != (d == axis ? along : dimSize(first, d)))
      return emitOpError() << "result dim " << d << " is wrong";
  return success();
}

LogicalResult CoordinateOp::verify() {
  auto type = cast<RankedTensorType>(getResult().getType());
  if (getAxis() < 0 || getAxis() >= type.getRank())
    return emitOpError() << "axis must be a dim of the result";
  if (type.getElementType().isInteger(1))
    return emitOpError() << "coordinates are numbers, not bool";
  return success();
}

LogicalResult EraseOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (getResult().getType() != input)
    return emitOpError() << "result must have the input's type";
  if (failed(verifyAxes(*this, getAxes(), input.getRank())))
    return failure();
  size_t k = getAxes().size();
  if (k == 0 || getRegions() < 1 ||
      getAnchors().size() != size_t(getRegions()) * k)
    return emitOpError() << "needs one anchor per region and axis";
  if (getShapes().size() != k && getShapes().size() != getAnchors().size())
    return emitOpError() << "needs one region's shape or every region's";
  int64_t firstAxis = *llvm::min_element(getAxes());
  for (Value param : llvm::concat<Value>(getAnchors(), getShapes()))
    if (failed(verifySampleParam(*this, param, input, firstAxis, false,
                                 "an anchor or shape")))
      return failure();
  auto fill = cast<RankedTensorType>(getFill().getType());
  if (fill.getElementType() != input.getElementType() ||
      fill.getRank() > firstAxis)
    return emitOpError() << "fill must be of the input's dtype, per sample "
                            "or scalar";
  return success();
}

//===----------------------------------------------------------------------===//
// dim
//===----------------------------------------------------------------------===//

LogicalResult DimOp::verify() {
  auto type = cast<RankedTensorType>(getResult().getType());
  if (type.getRank() != 0 || !type.getElementType().isSignedInteger(64))
    return emitOpError() << "gives a si64 scalar";
  if (!DimExpr::parse(getDim()))
    return emitOpError() << "'" << getDim() << "' is not a dim expression";
  return success();
}

std::string DimOp::getScalarExpression(ArrayRef<std::string>) {
  return "((pipe_i64)" + getDimCExpression(getDim()) + ")";
}

//===----------------------------------------------------------------------===//
// check_bounds
//===----------------------------------------------------------------------===//

LogicalResult CheckBoundsOp::verify() {
  auto type = cast<RankedTensorType>(getValue().getType());
  Type element = type.getElementType();
  if ((!isa<IntegerType>(element) && !isa<FloatType>(element)) ||
      element.isInteger(1))
    return emitOpError() << "checks integers or floats, not " << element;
  size_t columns = getLo().size();
  if (columns == 0 || getHi().size() != columns ||
      getMessages().size() != columns)
    return emitOpError() << "needs as many upper bounds and messages as lower "
                            "bounds, at least one";
  if (columns > 1 &&
      (type.getRank() == 0 || type.isDynamicDim(type.getRank() - 1) ||
       type.getDimSize(type.getRank() - 1) != int64_t(columns)))
    return emitOpError() << "has " << columns
                         << " columns of bounds but its last dim is not of "
                            "that static size";
  for (ArrayAttr bounds : {getLo(), getHi()})
    for (Attribute bound : bounds)
      if (!DimExpr::parse(cast<StringAttr>(bound).getValue()))
        return emitOpError() << "bound '" << cast<StringAttr>(bound).getValue()
                             << "' is not a dim expression";
  return success();
}
