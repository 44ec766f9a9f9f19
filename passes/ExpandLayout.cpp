//===- ExpandLayout.cpp - Layout ops into index maps and selects ----------===//
//
// Implements `pipe-expand-layout` (see Passes.td). Fusion and codegen take
// index maps that are total (every result element an input element) and
// elementwise ops; the layout ops that are not one are rewritten into them
// here, over coordinates (pipe.coordinate):
//  - a crop with out_of_bounds = pad: select(inside, crop with clamp, fill);
//  - a pad with border = constant: select(inside, pad with clamp, fill);
//  - concat: a select by the coordinate along the axis among its inputs,
//    each read through a (clamped) pad that places it, the inputs empty in
//    their types left out;
//  - erase: select(in some region, fill, input);
//  - channel_mix (the color functions): a sum over the input's channels,
//    each a slice read through a broadcast, times a column of the matrix.
// and inserts the checks that the unclamped maps need: a crop's anchors
// with out_of_bounds = error, a take's indices (pipe.check_bounds, or a
// dim check where the anchor is known from the dims).
// Each read is clamped into its input, so that the lanes the select drops
// read in bounds too.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialect/DimChecks.h"

#include "core/DimExpr.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallBitVector.h"

#include <cmath>
#include <cstring>

namespace mlir {
namespace pipe {
#define GEN_PASS_DEF_EXPANDLAYOUT
#include "passes/Passes.h.inc"
} // namespace pipe
} // namespace mlir

using namespace mlir;
using namespace mlir::pipe;
using pipert::DimExpr;

namespace {

/// Builds the elementwise expressions of one expansion over `shape` (the
/// layout op's result type).
class Expander {
public:
  Expander(PatternRewriter &rewriter, Location loc, RankedTensorType shape)
      : rewriter(rewriter), loc(loc), shape(shape),
        i64(IntegerType::get(rewriter.getContext(), 64, IntegerType::Signed)),
        i1(IntegerType::get(rewriter.getContext(), 1)) {}

  RankedTensorType of(Type element) { return withElementType(shape, element); }

  /// Each element's coordinate along `axis`, as si64.
  Value coordinate(int64_t axis) {
    return CoordinateOp::create(rewriter, loc, of(i64),
                                rewriter.getI64IntegerAttr(axis));
  }

  /// A size as an si64 scalar.
  Value size(const DimExpr &size) {
    auto scalar = RankedTensorType::get({}, i64);
    if (size.isConstant())
      return ConstantOp::create(rewriter, loc,
                                rewriter.getIntegerAttr(i64, size.getConstant()));
    return DimOp::create(rewriter, loc, scalar,
                         rewriter.getStringAttr(size.str()));
  }

  /// A per-sample (or rank-0) integer parameter as si64, spread over the
  /// shape where it has dims.
  Value param(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() > 0) {
      SmallVector<int64_t> dims;
      for (int64_t d = 0; d < type.getRank(); ++d)
        dims.push_back(d);
      value = BroadcastOp::create(rewriter, loc, of(type.getElementType()),
                                  value, rewriter.getDenseI64ArrayAttr(dims));
      type = cast<RankedTensorType>(value.getType());
    }
    if (type.getElementType() == i64)
      return value;
    return CastOp::create(rewriter, loc, withElementType(type, i64), value);
  }

  /// A scalar of `value`'s dtype spread over the shape where it has dims.
  Value spread(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() == 0 || haveSameShape(type, shape))
      return value;
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < type.getRank(); ++d)
      dims.push_back(d);
    return BroadcastOp::create(rewriter, loc, of(type.getElementType()), value,
                               rewriter.getDenseI64ArrayAttr(dims));
  }

  Value add(Value a, Value b) { return AddOp::create(rewriter, loc, of(i64), a, b); }
  Value sub(Value a, Value b) { return SubOp::create(rewriter, loc, of(i64), a, b); }
  Value maximum(Value a, Value b) {
    return MaxOp::create(rewriter, loc, of(i64), a, b);
  }
  /// anchor <= x < anchor + extent, without computing anchor + extent
  /// (which passes the 64-bit integers for an anchor near 2^63): the end
  /// test as x - max(extent, 0) < anchor, which cannot wrap (x >= 0), and
  /// an extent of 0 or less holds nothing. One max more per element than
  /// the plain test.
  Value inBox(Value x, Value anchor, Value extent) {
    Value room = maximum(extent, size(DimExpr::constant(0)));
    return both(le(anchor, x), lt(sub(x, room), anchor));
  }
  Value le(Value a, Value b) { return LeOp::create(rewriter, loc, of(i1), a, b); }
  Value lt(Value a, Value b) { return LtOp::create(rewriter, loc, of(i1), a, b); }
  Value both(Value a, Value b) {
    return a ? AndOp::create(rewriter, loc, of(i1), a, b) : b;
  }
  Value either(Value a, Value b) {
    return a ? OrOp::create(rewriter, loc, of(i1), a, b) : b;
  }
  /// lo <= x < hi (a coordinate is never below 0: no test for that).
  Value within(Value x, const DimExpr &lo, const DimExpr &hi) {
    Value below = lo.isConstant() && lo.getConstant() <= 0
                      ? Value()
                      : le(size(lo), x);
    return both(below, lt(x, size(hi)));
  }
  /// lo <= x < hi.
  Value within(Value x, Value lo, Value hi) { return both(le(lo, x), lt(x, hi)); }

  /// `value` (of the shape's dtype: a crop's or pad's fill) over the whole
  /// shape (what reads an input that is empty in its type: no element of
  /// it is ever taken).
  Value filled(TypedAttr value) {
    return BroadcastOp::create(rewriter, loc, shape,
                               ConstantOp::create(rewriter, loc, value),
                               rewriter.getDenseI64ArrayAttr({}));
  }

  Value select(Value condition, Value a, Value b) {
    return SelectOp::create(rewriter, loc, shape, condition, a, b);
  }

  PatternRewriter &rewriter;
  Location loc;
  RankedTensorType shape;
  Type i64, i1;
};

/// Moves the dim checks of `from` (with its name, for their messages) to
/// `to`, which replaces it.
void keepDimChecks(Operation *from, Operation *to) {
  for (llvm::StringRef name : {"dim_checks", "dim_check_reasons"})
    if (Attribute checks = from->getAttr(name))
      to->setAttr(name, checks);
  if (from->hasAttr("dim_checks") && !to->hasAttr("dim_check_op"))
    to->setAttr("dim_check_op",
                StringAttr::get(from->getContext(),
                                from->getName().stripDialect()));
}

/// Whether `type` has no elements along one of `axes` whatever the dims.
bool emptyAlong(RankedTensorType type, ArrayRef<int64_t> axes) {
  return llvm::any_of(axes, [&](int64_t axis) {
    return !type.isDynamicDim(axis) && type.getDimSize(axis) == 0;
  });
}

/// crop(x, out_of_bounds = pad) -> select(inside, crop(x, clamp), fill).
struct ExpandPaddingCrop : OpRewritePattern<CropOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CropOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getOutOfBounds() != OutOfBounds::pad)
      return failure();
    auto type = cast<RankedTensorType>(op.getType());
    auto input = cast<RankedTensorType>(op.getInput().getType());
    Expander e(rewriter, op.getLoc(), type);
    if (emptyAlong(input, op.getAxes())) {
      rewriter.replaceOp(op, e.filled(op.getFill()));
      return success();
    }
    auto read = CropOp::create(
        rewriter, op.getLoc(), type, op.getInput(), op.getAnchors(),
        op.getAxesAttr(),
        OutOfBoundsAttr::get(rewriter.getContext(), OutOfBounds::clamp),
        op.getFillAttr());
    read->setAttr("pipe.fills_outside", rewriter.getUnitAttr());
    Value inside;
    for (auto [axis, anchor] : llvm::zip(op.getAxes(), op.getAnchors())) {
      Value position = e.add(e.coordinate(axis), e.param(anchor));
      inside = e.both(inside, e.within(position, e.size(DimExpr::constant(0)),
                                       e.size(getDimSize(input, axis))));
    }
    rewriter.replaceOp(op, e.select(inside, read,
                                    ConstantOp::create(rewriter, op.getLoc(),
                                                       op.getFill())));
    return success();
  }
};

/// pad(x, border = constant) -> select(inside, pad(x, clamp), fill).
struct ExpandConstantPad : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getBorder() != Border::constant)
      return failure();
    auto type = cast<RankedTensorType>(op.getType());
    auto input = cast<RankedTensorType>(op.getInput().getType());
    Expander e(rewriter, op.getLoc(), type);
    if (emptyAlong(input, op.getAxes())) {
      Value filled = e.filled(op.getFill());
      keepDimChecks(op, filled.getDefiningOp());
      rewriter.replaceOp(op, filled);
      return success();
    }
    auto read = PadOp::create(
        rewriter, op.getLoc(), type, op.getInput(), op.getAxesAttr(),
        op.getBeforeAttr(), op.getAfterAttr(),
        BorderAttr::get(rewriter.getContext(), Border::clamp),
        op.getFillAttr());
    if (Attribute checks = op->getAttr("dim_checks"))
      read->setAttr("dim_checks", checks);
    read->setAttr("pipe.fills_outside", rewriter.getUnitAttr());
    Value inside;
    for (auto [axis, before] : llvm::zip(op.getAxes(), op.getBefore())) {
      DimExpr lo = *DimExpr::parse(cast<StringAttr>(before).getValue());
      inside = e.both(inside, e.within(e.coordinate(axis), lo,
                                       lo + getDimSize(input, axis)));
    }
    rewriter.replaceOp(op, e.select(inside, read,
                                    ConstantOp::create(rewriter, op.getLoc(),
                                                       op.getFill())));
    return success();
  }
};

/// concat(a, b, ...) -> select(c < A, a', select(c < A + B, b', ...)), each
/// input placed by a clamped pad.
struct ExpandConcat : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t axis = op.getAxis();
    // A part empty in its type adds nothing (NumPy concatenates it too);
    // reading it, even clamped, would read outside it. When every part
    // is, the result is empty too: nothing is read.
    SmallVector<std::pair<size_t, Value>> parts;
    for (auto [i, input] : llvm::enumerate(op.getInputs()))
      if (!emptyAlong(cast<RankedTensorType>(input.getType()), {axis}))
        parts.push_back({i, input});
    Expander e(rewriter, op.getLoc(), type);
    if (parts.empty()) {
      rewriter.replaceOp(
          op, e.filled(
                  cast<TypedAttr>(rewriter.getZeroAttr(type.getElementType()))));
      return success();
    }
    if (parts.size() == 1 && parts[0].second.getType() == type) {
      rewriter.replaceOp(op, parts[0].second);
      return success();
    }
    DimExpr total = getDimSize(type, axis);
    SmallVector<Value> placed;
    SmallVector<DimExpr> ends;
    DimExpr offset = DimExpr::constant(0);
    for (auto [i, input] : parts) {
      auto inputType = cast<RankedTensorType>(input.getType());
      DimExpr length = getDimSize(inputType, axis);
      DimExpr after = total - offset - length;
      auto pad = PadOp::create(
          rewriter, op.getLoc(), type, input,
          rewriter.getDenseI64ArrayAttr({axis}),
          rewriter.getStrArrayAttr({offset.str()}),
          rewriter.getStrArrayAttr({after.str()}),
          BorderAttr::get(rewriter.getContext(), Border::clamp),
          cast<TypedAttr>(rewriter.getZeroAttr(type.getElementType())));
      // Its clamped read needs an element (requireElementsToRead), in the
      // concat's name.
      if (std::optional<DimExpr> check = getReadableDimCheck(length, type)) {
        pad->setAttr("dim_checks",
                     rewriter.getStrArrayAttr({check->str()}));
        pad->setAttr(
            "dim_check_reasons",
            rewriter.getStrArrayAttr(
                {"its input " + std::to_string(i) + " is empty along dim " +
                 std::to_string(axis) +
                 " in this run; only a part empty in its type (a literal "
                 "0) may be"}));
      }
      pad->setAttr("dim_check_op", rewriter.getStringAttr("concat"));
      placed.push_back(pad);
      offset = offset + length;
      ends.push_back(offset);
    }
    Value coordinate = e.coordinate(axis);
    Value result = placed.back();
    for (int64_t i = int64_t(placed.size()) - 2; i >= 0; --i)
      result = e.select(e.lt(coordinate, e.size(ends[i])), placed[i], result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// erase(x, regions) -> select(in some region, fill, x).
struct ExpandErase : OpRewritePattern<EraseOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EraseOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Expander e(rewriter, op.getLoc(), type);
    ArrayRef<int64_t> axes = op.getAxes();
    size_t k = axes.size();
    SmallVector<Value> coordinates;
    for (int64_t axis : axes)
      coordinates.push_back(e.coordinate(axis));
    bool shared = op.getShapes().size() == k;
    Value erased;
    for (int64_t r = 0; r < op.getRegions(); ++r) {
      Value inside;
      for (size_t j = 0; j < k; ++j) {
        Value anchor = e.param(op.getAnchors()[r * k + j]);
        Value extent = e.param(op.getShapes()[shared ? j : r * k + j]);
        inside = e.both(inside, e.inBox(coordinates[j], anchor, extent));
      }
      erased = e.either(erased, inside);
    }
    rewriter.replaceOp(op, e.select(erased, e.spread(op.getFill()),
                                    op.getInput()));
    return success();
  }
};

/// "crop at f.pipe:2:7".
std::string describeOp(Operation *op, StringRef name) {
  std::string location = describeLocation(op->getLoc());
  return name.str() + (location.empty() ? "" : " at " + location);
}

/// The size a compile-time integer scalar holds (a constant, a dim), or
/// nothing for a value only the run knows.
std::optional<DimExpr> knownSize(Value value) {
  if (auto dim = value.getDefiningOp<DimOp>())
    return DimExpr::parse(dim.getDim());
  if (std::optional<int64_t> literal = getIntegerLiteral(value))
    return DimExpr::constant(*literal);
  // Sums, differences, products, least and greatest of them, and
  // quotients and remainders by positive constants (`H - 5`, `H // 2`), on
  // si64 scalars (where the dims' arithmetic cannot wrap).
  Operation *op = value.getDefiningOp();
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!op || !type || type.getRank() != 0 ||
      !type.getElementType().isSignedInteger(64))
    return std::nullopt;
  // `-(4 - H)`: unary minus is an op of its own.
  if (isa<NegOp>(op)) {
    if (std::optional<DimExpr> a = knownSize(op->getOperand(0)))
      return DimExpr::constant(0) - *a;
    return std::nullopt;
  }
  if (op->getNumOperands() != 2)
    return std::nullopt;
  std::optional<DimExpr> a = knownSize(op->getOperand(0));
  std::optional<DimExpr> b = a ? knownSize(op->getOperand(1)) : std::nullopt;
  if (!b)
    return std::nullopt;
  if (isa<AddOp>(op))
    return *a + *b;
  if (isa<SubOp>(op))
    return *a - *b;
  if (isa<MulOp>(op))
    return *a * *b;
  if (isa<MinOp>(op))
    return DimExpr::min(*a, *b);
  if (isa<MaxOp>(op))
    return DimExpr::max(*a, *b);
  // `H // 2`, `W % 4`: dim expressions divide by positive constants.
  if (isa<FloorDivOp, RemOp>(op) && b->isConstant() && b->getConstant() > 0)
    return isa<FloorDivOp>(op) ? DimExpr::floorDiv(*a, *b)
                               : DimExpr::mod(*a, *b);
  return std::nullopt;
}

/// `value` as column `k` of a tensor [..., C] (a slice that drops only the
/// last dim, at constant index k): how a crop's anchors given as one tensor
/// reach it (pipe::createTrailingSlice, from MLIRGen).
std::optional<std::pair<SliceOp, int64_t>> asColumn(Value value) {
  auto slice = value.getDefiningOp<SliceOp>();
  if (!slice)
    return std::nullopt;
  auto source = cast<RankedTensorType>(slice.getInput().getType());
  int64_t rank = source.getRank();
  if (rank == 0 || source.isDynamicDim(rank - 1))
    return std::nullopt;
  ArrayRef<bool> dropped = slice.getDropped();
  for (int64_t d = 0; d < rank; ++d) {
    auto start = cast<StringAttr>(slice.getStarts()[d]).getValue();
    if (slice.getSteps()[d] != 1 || dropped[d] != (d == rank - 1) ||
        (d < rank - 1 && start != "0"))
      return std::nullopt;
  }
  auto k = DimExpr::parse(
      cast<StringAttr>(slice.getStarts()[rank - 1]).getValue());
  if (!k || !k->isConstant())
    return std::nullopt;
  return std::make_pair(slice, k->getConstant());
}

/// A crop with out_of_bounds = error reads its input unclamped, so each
/// anchor must keep its window inside: a dim check where the anchor is
/// known from the dims, else a check of the values on the GPU
/// (pipe.check_bounds), which the crop then reads. Anchors given as one
/// tensor [N, k] get one check of that tensor, with bounds per column,
/// before it is sliced into columns (which then fuse into the crop).
struct CheckCropAnchors : OpRewritePattern<CropOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CropOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getOutOfBounds() != OutOfBounds::error ||
        op->hasAttr("pipe.checked"))
      return failure();
    auto input = cast<RankedTensorType>(op.getInput().getType());
    auto result = cast<RankedTensorType>(op.getType());
    SmallVector<Value> anchors(op.getAnchors());
    SmallVector<Attribute> dimChecks, dimReasons;
    // The anchors only the run knows: their positions, bounds, messages.
    SmallVector<size_t> unknown;
    SmallVector<Attribute> highs, messages;
    for (auto [i, axis, anchor] :
         llvm::enumerate(op.getAxes(), op.getAnchors())) {
      DimExpr hi = getDimSize(input, axis) - getDimSize(result, axis);
      if (std::optional<DimExpr> known = knownSize(anchor)) {
        std::string at = "the anchor along dim " + std::to_string(axis) +
                         " (" + known->str() + ")";
        for (auto [check, reason] :
             {std::pair<DimExpr, std::string>{*known, at + " is negative"},
              {hi - *known,
               at + " puts the window of " + getDimSize(result, axis).str() +
                   " past the end of the dim (" +
                   getDimSize(input, axis).str() + ")"}}) {
          // (Sema reports one that fails whatever the sizes.)
          if (check.isConstant() && check.getConstant() >= 0)
            continue;
          dimChecks.push_back(rewriter.getStringAttr(check.str()));
          dimReasons.push_back(rewriter.getStringAttr(reason));
        }
        continue;
      }
      unknown.push_back(i);
      highs.push_back(rewriter.getStringAttr(hi.str()));
      messages.push_back(rewriter.getStringAttr(
          describeOp(op, "crop") + ": the anchor along dim " +
          std::to_string(axis) +
          " of sample {at} is {value}, outside [{lo}, {hi}]"));
    }
    // One tensor's columns, each once, all of them: check the tensor.
    std::optional<SliceOp> source;
    SmallVector<Attribute> columnHighs(unknown.size()),
        columnMessages(unknown.size());
    llvm::SmallBitVector seen(unknown.size());
    for (auto [j, i] : llvm::enumerate(unknown)) {
      auto column = asColumn(anchors[i]);
      auto type = column ? cast<RankedTensorType>(
                               column->first.getInput().getType())
                         : RankedTensorType();
      if (!column ||
          type.getDimSize(type.getRank() - 1) != int64_t(unknown.size()) ||
          (source && column->first.getInput() != source->getInput()) ||
          column->second < 0 || column->second >= int64_t(unknown.size()) ||
          seen.test(column->second)) {
        source.reset();
        break;
      }
      source = column->first;
      seen.set(column->second);
      columnHighs[column->second] = highs[j];
      columnMessages[column->second] = messages[j];
    }
    SmallVector<Attribute> zeros(unknown.size(), rewriter.getStringAttr("0"));
    if (source && unknown.size() > 1) {
      Value checked = CheckBoundsOp::create(
          rewriter, op.getLoc(), source->getInput(),
          rewriter.getArrayAttr(zeros), rewriter.getArrayAttr(columnHighs),
          rewriter.getArrayAttr(columnMessages));
      for (size_t i : unknown) {
        auto slice = cast<SliceOp>(anchors[i].getDefiningOp());
        anchors[i] = SliceOp::create(rewriter, slice.getLoc(), slice.getType(),
                                     checked, slice.getStarts(),
                                     slice.getSteps(), slice.getDropped(),
                                     slice.getDimChecksAttr());
      }
    } else {
      for (auto [j, i] : llvm::enumerate(unknown))
        anchors[i] = CheckBoundsOp::create(
            rewriter, op.getLoc(), anchors[i],
            rewriter.getArrayAttr(zeros[j]), rewriter.getArrayAttr(highs[j]),
            rewriter.getArrayAttr(messages[j]));
    }
    rewriter.modifyOpInPlace(op, [&] {
      op.getAnchorsMutable().assign(anchors);
      op->setAttr("pipe.checked", rewriter.getUnitAttr());
      if (!dimChecks.empty()) {
        op->setAttr("dim_checks", rewriter.getArrayAttr(dimChecks));
        op->setAttr("dim_check_reasons", rewriter.getArrayAttr(dimReasons));
      }
    });
    return success();
  }
};

/// A take's indices must lie in [-size, size): checked on the GPU.
struct CheckTakeIndices : OpRewritePattern<TakeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TakeOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getIndices().getDefiningOp<CheckBoundsOp>())
      return failure();
    auto input = cast<RankedTensorType>(op.getInput().getType());
    DimExpr size = getDimSize(input, op.getAxis());
    auto one = [&](const std::string &text) {
      return rewriter.getArrayAttr(rewriter.getStringAttr(text));
    };
    Value checked = CheckBoundsOp::create(
        rewriter, op.getLoc(), op.getIndices(),
        one((DimExpr::constant(0) - size).str()),
        one((size - DimExpr::constant(1)).str()),
        one(describeOp(op, "take") +
            ": index {value} at {at} of the indices is outside [{lo}, {hi}]"));
    rewriter.modifyOpInPlace(
        op, [&] { op.getIndicesMutable().assign(checked); });
    return success();
  }
};

/// channel_mix (the color functions) -> acc = offset; acc = acc + m[., k] *
/// x[., k] for each input channel k, over the result's shape: each channel
/// of the input and each column of the matrix a slice read through a
/// broadcast (maps of kernel inputs), so the mix fuses into one kernel with
/// what surrounds it.
struct ExpandChannelMix : OpRewritePattern<ChannelMixOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ChannelMixOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto result = cast<RankedTensorType>(op.getResult().getType());
    auto matrix = cast<RankedTensorType>(op.getMatrix().getType());
    Type element = matrix.getElementType();
    RankedTensorType computed = withElementType(result, element);
    int64_t outputs = matrix.getDimSize(matrix.getRank() - 2);
    int64_t inputs = matrix.getDimSize(matrix.getRank() - 1);
    // Input channel k as `element`, over the result's shape.
    auto channel = [&](int64_t k) {
      Value x = createTrailingSlice(rewriter, loc, op.getInput(), {k});
      auto xType = cast<RankedTensorType>(x.getType());
      if (xType.getElementType() != element)
        x = CastOp::create(rewriter, loc, withElementType(xType, element), x);
      return createLeadingBroadcast(rewriter, loc, x, result, 0);
    };
    auto spreadRow = [&](Value row) {
      Value spread = createLeadingBroadcast(rewriter, loc, row, result, 1);
      if (cast<RankedTensorType>(spread.getType()).getRank() == 0)
        spread = BroadcastOp::create(rewriter, loc, computed, spread,
                                     rewriter.getDenseI64ArrayAttr({}));
      return spread;
    };
    Value mixed = constantMatrixSum(op, rewriter, computed, outputs, inputs,
                                    channel, spreadRow);
    if (!mixed) {
      mixed = spreadRow(op.getOffset());
      for (int64_t k = 0; k < inputs; ++k) {
        Value column = createLeadingBroadcast(
            rewriter, loc,
            createTrailingSlice(rewriter, loc, op.getMatrix(), {k}), result, 1);
        mixed = AddOp::create(rewriter, loc, computed, mixed,
                              MulOp::create(rewriter, loc, computed, column,
                                            channel(k)));
      }
    }
    if (element != result.getElementType())
      mixed = CastOp::create(rewriter, loc, result, mixed);
    rewriter.replaceOp(op, mixed);
    return success();
  }

  /// With a constant matrix and offset (color_space_conversion's), each
  /// output channel sums only its nonzero terms, from its first (then its
  /// offset, if not 0): 0 x inf is NaN, and rgb -> bgr must not turn [inf,
  /// 0.25, 0.5] into [nan, nan, inf], nor -0.0 into 0.0. Null otherwise.
  template <typename Channel, typename Spread>
  static Value constantMatrixSum(ChannelMixOp op, PatternRewriter &rewriter,
                                 RankedTensorType computed, int64_t outputs,
                                 int64_t inputs, Channel channel,
                                 Spread spreadRow) {
    DenseElementsAttr matrix, offset;
    if (!op.getConstantCoefficients(matrix, offset))
      return {};
    Location loc = op.getLoc();
    auto m = [&](int64_t c, int64_t k) {
      return matrix.getValues<APFloat>()[c * inputs + k];
    };
    auto mask = [&](ArrayRef<bool> bits) {
      auto type = RankedTensorType::get({int64_t(bits.size())},
                                        rewriter.getI1Type());
      return spreadRow(
          ConstantOp::create(rewriter, loc,
                             DenseElementsAttr::get(type, bits)));
    };
    // bits ? a : b per output channel, without a select where all agree.
    auto choose = [&](ArrayRef<bool> bits, Value a, Value b) -> Value {
      if (llvm::all_of(bits, [](bool x) { return x; }))
        return a;
      if (llvm::none_of(bits, [](bool x) { return x; }))
        return b;
      return SelectOp::create(rewriter, loc, computed, mask(bits), a, b);
    };
    Value zero = ConstantOp::create(
        rewriter, loc,
        cast<TypedAttr>(rewriter.getZeroAttr(computed.getElementType())));
    Value acc = zero;
    SmallVector<bool> started(outputs, false);
    for (int64_t k = 0; k < inputs; ++k) {
      SmallVector<bool> first(outputs), later(outputs);
      for (int64_t c = 0; c < outputs; ++c) {
        bool used = !m(c, k).isZero();
        first[c] = used && !started[c];
        later[c] = used && started[c];
        started[c] = started[c] || used;
      }
      if (llvm::none_of(first, [](bool x) { return x; }) &&
          llvm::none_of(later, [](bool x) { return x; }))
        continue;
      Value column = spreadRow(
          createTrailingSlice(rewriter, loc, op.getMatrix(), {k}));
      Value term = MulOp::create(rewriter, loc, computed, column, channel(k));
      Value added = llvm::any_of(later, [](bool x) { return x; })
                        ? Value(AddOp::create(rewriter, loc, computed, acc,
                                              term))
                        : acc;
      acc = choose(first, term, choose(later, added, acc));
    }
    SmallVector<bool> offsetUsed;
    for (int64_t c = 0; c < outputs; ++c)
      offsetUsed.push_back(
          !offset.getValues<APFloat>()[offset.isSplat() ? 0 : c].isZero());
    if (llvm::any_of(offsetUsed, [](bool x) { return x; })) {
      Value shifted = AddOp::create(rewriter, loc, computed, acc,
                                    spreadRow(op.getOffset()));
      acc = choose(offsetUsed, shifted, acc);
    }
    if (cast<RankedTensorType>(acc.getType()).getRank() == 0)
      acc = BroadcastOp::create(rewriter, loc, computed, acc,
                                rewriter.getDenseI64ArrayAttr({}));
    return acc;
  }
};

struct ExpandLayoutPass
    : public pipe::impl::ExpandLayoutBase<ExpandLayoutPass> {
  void runOnOperation() override {
    // Slices of concats and broadcasts first (a column of a stack of
    // per-sample values is that value), while the concats are still whole.
    {
      RewritePatternSet slices(&getContext());
      SliceOp::getCanonicalizationPatterns(slices, &getContext());
      GreedyRewriteConfig config;
      config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
      (void)applyPatternsGreedily(getOperation(), std::move(slices), config);
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandPaddingCrop, ExpandConstantPad, ExpandConcat,
                 ExpandErase, ExpandChannelMix, CheckCropAnchors,
                 CheckTakeIndices>(
        &getContext());
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config))) {
      getOperation().emitError()
          << "internal error in pipe-expand-layout: the rewrites did not "
             "converge; please report it with this pipeline";
      signalPassFailure();
      return;
    }
    requireElementsToRead();
    if (failed(rejectChecksThatAlwaysFail()))
      signalPassFailure();
  }

  /// A dim check that is a negative constant fails every run whatever the
  /// sizes: the program's mistake, reported when compiling, at the op.
  /// Sema rejects most of these where it sees the literals; this catches
  /// what only the IR folds (an anchor `u8(200)` on a resize's 300 rows).
  LogicalResult rejectChecksThatAlwaysFail() {
    LogicalResult result = success();
    getOperation().walk([&](Operation *op) {
      auto checks = op->getAttrOfType<ArrayAttr>("dim_checks");
      if (!checks)
        return WalkResult::advance();
      for (auto [i, check] : llvm::enumerate(checks)) {
        std::optional<DimExpr> value =
            DimExpr::parse(cast<StringAttr>(check).getValue());
        if (!value || !value->isConstant() || value->getConstant() >= 0)
          continue;
        std::string reason = getDimCheckReason(op, i);
        std::string what = getDimCheckOpName(op);
        // (The reasons are worded for the run that checks them.)
        if (size_t at = reason.find(" in this run"); at != std::string::npos)
          reason.erase(at, std::strlen(" in this run"));
        if (reason.empty())
          reason = what == "slice" ? "it reaches outside the dim it slices"
                                   : "it would need a negative width";
        emitUserError(op) << "'" << what << "' fails for every size: "
                          << reason;
        result = failure();
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return result;
  }

  /// A clamped read (a pad's, a concat's part, a crop that clamps or pads)
  /// reads its input somewhere along each axis even where the select then
  /// takes the fill: the input must not be empty there. A dim check (made
  /// when the run binds the dims) says so instead of reading out of bounds.
  void requireElementsToRead() {
    auto require = [](Operation *op, RankedTensorType input,
                      ArrayRef<int64_t> axes, const std::string &why) {
      SmallVector<Attribute> checks, reasons;
      if (auto old = op->getAttrOfType<ArrayAttr>("dim_checks"))
        llvm::append_range(checks, old);
      if (auto old = op->getAttrOfType<ArrayAttr>("dim_check_reasons"))
        llvm::append_range(reasons, old);
      Builder builder(op->getContext());
      // Earlier checks keep the op's own message.
      while (reasons.size() < checks.size())
        reasons.push_back(builder.getStringAttr(""));
      auto result = cast<RankedTensorType>(op->getResult(0).getType());
      for (int64_t axis : axes) {
        std::optional<DimExpr> check =
            getReadableDimCheck(getDimSize(input, axis), result);
        if (!check)
          continue;
        checks.push_back(builder.getStringAttr(check->str()));
        reasons.push_back(builder.getStringAttr(
            "dim " + std::to_string(axis) +
            " of its input is empty in this run: " + why));
      }
      if (checks.empty())
        return;
      op->setAttr("dim_checks", builder.getArrayAttr(checks));
      op->setAttr("dim_check_reasons", builder.getArrayAttr(reasons));
    };
    // What the user wrote: the reads of a constant pad and of a crop that
    // pads are marked pipe.fills_outside.
    const std::string fills =
        "only an input empty in its type (a literal 0) is all fill";
    getOperation().walk([&](Operation *op) {
      bool filled = op->hasAttr("pipe.fills_outside");
      if (auto pad = dyn_cast<PadOp>(op);
          pad && !pad->hasAttr("dim_check_op")) // (a concat's checks its own)
        require(op, cast<RankedTensorType>(pad.getInput().getType()),
                pad.getAxes(),
                filled ? fills
                       : "border = " + stringifyBorder(pad.getBorder()).str() +
                             " has no element to repeat");
      else if (auto crop = dyn_cast<CropOp>(op);
               crop && crop.getOutOfBounds() != OutOfBounds::error)
        require(op, cast<RankedTensorType>(crop.getInput().getType()),
                crop.getAxes(),
                filled ? fills
                       : "out_of_bounds = clamp has no element to clamp to");
    });
  }
};

} // namespace
