//===- ShardBatch.cpp - How a pipeline splits along its batch dim ---------===//
//
// Implements `pipe-shard-batch` (see Passes.td). A sharded run
// (runtime/Sharded.h) gives each shard a contiguous run of samples, the
// leading dim of the parameters that have the batch dim there, and runs
// the whole pipeline on each. That is the unsharded run only if every op
// keeps the samples apart: this pass checks each op against its rule and
// either names the batch dim (`pipe.batch_dim`) or says, at the op, why
// the pipeline cannot be split (`pipe.unshardable`). It also marks
//  - each reduction over the batch dim (`pipe.combine_shards`): each shard
//    computes it over its own samples and the runtime combines the
//    partial values (a few bytes a shard) before anything reads them, so
//    it is fused with no consumer (pipe-fuse-reductions);
//  - each coordinate along the batch dim (`pipe.batch_offset`: `iota`, and
//    the index random ops draw with), which the kernels then offset by the
//    shard's first sample, so that a shard draws what the unsharded run
//    draws for the same sample.
// The pass runs before pipe-expand-layout, on the ops the source wrote.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "core/DimExpr.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace pipe {
#define GEN_PASS_DEF_SHARDBATCH
#include "passes/Passes.h.inc"
} // namespace pipe
} // namespace mlir

using namespace mlir;
using namespace mlir::pipe;

namespace {
struct ShardBatchPass : public pipe::impl::ShardBatchBase<ShardBatchPass> {
  void runOnOperation() override;
};

/// The batch dim's name, and the questions the rules ask about a value.
class BatchDim {
public:
  explicit BatchDim(std::string name) : name(std::move(name)) {}

  /// Whether `value`'s leading dim is the batch dim: one row per sample.
  bool isBatched(Value value) const {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    return type && type.getRank() > 0 && type.isDynamicDim(0) &&
           getDimNames(type)[0] == name;
  }

  /// The first dim of `value` that is the batch dim or an expression of it
  /// other than a batched value's leading dim, or -1.
  int64_t findStrayDim(Value value) const {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type)
      return -1;
    SmallVector<std::string> names = getDimNames(type);
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d) || (d == 0 && names[0] == name))
        continue;
      if (mentions(names[d]))
        return d;
    }
    return -1;
  }

  /// Whether dim expression `dim` uses the batch dim.
  bool mentions(StringRef dim) const {
    std::set<std::string> symbols;
    if (auto expr = pipert::DimExpr::parse(dim.str()))
      expr->collectSymbols(symbols);
    return symbols.count(name) != 0;
  }

  const std::string name;
};
} // namespace

/// The axes along which `op` moves data between positions (a blur's, a
/// flip's): splitting the batch is wrong if the batch dim is one. Null
/// for ops whose rule is not an axis list.
static std::optional<SmallVector<int64_t>> getMixedAxes(Operation *op) {
  auto lastAxes = [](Value v, int64_t n) {
    int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
    SmallVector<int64_t> axes;
    for (int64_t a = std::max<int64_t>(rank - n, 0); a < rank; ++a)
      axes.push_back(a);
    return axes;
  };
  auto of = [](ArrayRef<int64_t> axes) { return SmallVector<int64_t>(axes); };
  return TypeSwitch<Operation *, std::optional<SmallVector<int64_t>>>(op)
      .Case<GaussianBlurOp, WindowOp, CropOp, FlipOp, PadOp, EraseOp>(
          [&](auto op) { return of(op.getAxes()); })
      .Case<TakeOp, ConcatOp>([&](auto op) {
        return SmallVector<int64_t>{int64_t(op.getAxis())};
      })
      // Images [S..., H, W, C]: the last three dims.
      .Case<ResampleOp>([&](ResampleOp op) { return lastAxes(op.getInput(), 3); })
      // Mixes the channels, the last dim.
      .Case<ChannelMixOp>(
          [&](ChannelMixOp op) { return lastAxes(op.getInput(), 1); })
      .Default([](Operation *) { return std::nullopt; });
}

/// Why `op` keeps the samples of a split batch from being computed apart,
/// or "" when it does not. Marks reductions and coordinates over the batch.
static std::string checkOp(Operation *op, const BatchDim &batch) {
  std::string name = "'" + op->getName().stripDialect().str() + "'";
  for (Value result : op->getResults())
    if (int64_t d = batch.findStrayDim(result); d >= 0)
      return name + " gives a value whose dim " + std::to_string(d) + " ('" +
             getDimNames(cast<RankedTensorType>(result.getType()))[d] +
             "') is computed from the batch dim";
  bool anyBatched = llvm::any_of(op->getOperands(), [&](Value v) {
    return batch.isBatched(v);
  }) || llvm::any_of(op->getResults(), [&](Value v) {
    return batch.isBatched(v);
  });
  Builder builder(op->getContext());
  if (auto dim = dyn_cast<DimOp>(op))
    return batch.mentions(dim.getDim())
               ? name + " reads the batch size as a value (a shard would read "
                        "its own)"
               : "";
  if (!anyBatched || isa<ReturnOp, ConstantOp>(op))
    return "";
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    if (batch.isBatched(reduce.getInput()) && reduce.isReducedAxis(0))
      op->setAttr("pipe.combine_shards", builder.getUnitAttr());
    return "";
  }
  if (auto coordinate = dyn_cast<CoordinateOp>(op)) {
    if (coordinate.getAxis() == 0)
      op->setAttr("pipe.batch_offset", builder.getUnitAttr());
    return "";
  }
  if (std::optional<SmallVector<int64_t>> axes = getMixedAxes(op)) {
    if (llvm::is_contained(*axes, 0))
      return name + " works across the samples (along dim 0, the batch dim)";
    return "";
  }
  std::string across = name + " moves the batch dim";
  if (auto transpose = dyn_cast<TransposeOp>(op))
    return transpose.getPermutation()[0] == 0 ? "" : across;
  if (auto broadcast = dyn_cast<BroadcastOp>(op))
    return !batch.isBatched(broadcast.getInput()) ||
                   broadcast.getDimensions()[0] == 0
               ? ""
               : across;
  if (auto reshape = dyn_cast<ReshapeOp>(op))
    return batch.isBatched(reshape.getInput()) ==
                   batch.isBatched(reshape.getResult())
               ? ""
               : name + " merges the batch dim with another";
  if (auto slice = dyn_cast<SliceOp>(op)) {
    bool whole = slice.getStarts()[0] == builder.getStringAttr("0") &&
                 slice.getSteps()[0] == 1 && !slice.getDropped()[0] &&
                 batch.isBatched(slice.getResult());
    return whole ? "" : name + " takes part of the batch dim";
  }
  // Elementwise ops (random ones too), selects of the host, checks: each
  // batched operand must be aligned with the result's samples.
  if (isa<ElementwiseOpInterface, ChooseOp, CheckBoundsOp>(op)) {
    Value result = op->getResult(0);
    int64_t rank = cast<RankedTensorType>(result.getType()).getRank();
    for (Value operand : op->getOperands())
      if (batch.isBatched(operand) &&
          (!batch.isBatched(result) ||
           cast<RankedTensorType>(operand.getType()).getRank() != rank))
        return across;
    return "";
  }
  return name + " has no rule for splitting the batch";
}

void ShardBatchPass::runOnOperation() {
  PipelineOp pipeline = getOperation();
  Block &body = pipeline.getBody().front();
  Builder builder(&getContext());
  auto unshardable = [&](const std::string &why) {
    pipeline->setAttr("pipe.unshardable", builder.getStringAttr(why));
  };
  // The batch dim is the first parameter's leading dim, if it is symbolic.
  std::string name;
  for (BlockArgument arg : body.getArguments()) {
    auto type = cast<RankedTensorType>(arg.getType());
    if (type.getRank() > 0 && type.isDynamicDim(0)) {
      name = getDimNames(type)[0];
      break;
    }
  }
  if (name.empty())
    return unshardable("no parameter has a symbolic leading dim to split");
  BatchDim batch(name);
  for (BlockArgument arg : body.getArguments())
    if (int64_t d = batch.findStrayDim(arg); d >= 0)
      return unshardable("parameter '" +
                         pipeline.getArgName(arg.getArgNumber()).str() +
                         "' has the batch dim " + name + " at dim " +
                         std::to_string(d) + ", not first");
  for (Operation &op : body) {
    std::string why = checkOp(&op, batch);
    if (why.empty())
      continue;
    std::string where = describeLocation(op.getLoc());
    // Leave no half-made marks behind.
    body.walk([](Operation *marked) {
      marked->removeAttr("pipe.combine_shards");
      marked->removeAttr("pipe.batch_offset");
    });
    return unshardable(why + (where.empty() ? "" : " at " + where));
  }
  pipeline->setAttr("pipe.batch_dim", builder.getStringAttr(name));
}
