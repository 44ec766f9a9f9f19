//===- HostControl.cpp - Branches and iterations the host decides ---------===//
//
// Implements `pipe-host-control` (see Passes.td). The frontend turns `if`
// and `for` into predication: both branches (all K iterations) are
// computed and a select per name keeps the right version. That is the
// cheapest form when the skipped work is elementwise (it fuses into the
// same kernels and costs no transfer), and the only form for a per-sample
// condition. When the condition is one scalar and the side it would skip
// holds a reduction, a blur, a window filter, a resampling or another
// decided branch, reading the scalar on the host costs one small copy and
// a wait, and saves whole kernels:
// the select becomes a `pipe.choose`, and the runtime launches only what
// the chosen value needs.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

#include <algorithm>
#include <map>

namespace mlir {
namespace pipe {
#define GEN_PASS_DEF_HOSTCONTROL
#include "passes/Passes.h.inc"
} // namespace pipe
} // namespace mlir

using namespace mlir;
using namespace mlir::pipe;

namespace {
struct HostControlPass : public pipe::impl::HostControlBase<HostControlPass> {
  void runOnOperation() override;
};

/// The scalar a merge's condition broadcasts, or null when the condition
/// differs between elements (per sample).
Value getScalarCondition(SelectOp select) {
  Value condition = select.getCondition();
  if (auto broadcast = condition.getDefiningOp<BroadcastOp>())
    condition = broadcast.getInput();
  if (cast<RankedTensorType>(condition.getType()).getRank() != 0)
    return nullptr;
  return condition;
}

/// Whether the scalar `condition` is, or is computed by scalar elementwise
/// ops from, a value the source sends to the host (`c.cpu()`,
/// `n.cpu() > 2`).
bool sendsToHost(Value condition) {
  SmallVector<Value> worklist{condition};
  DenseSet<Operation *> visited;
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || !visited.insert(def).second)
      continue;
    if (auto copy = dyn_cast<CopyOp>(def); copy && copy.getTo() == MemorySpace::host)
      return true;
    if (isa<ElementwiseOpInterface>(def))
      llvm::append_range(worklist, def->getOperands());
  }
  return false;
}

/// The ops computing `select`'s operand `index` and nothing else: what the
/// GPU need not run when the other operand is chosen, latest first. The
/// block is in program order, so every user of an op follows it: taking
/// candidates latest first, an op's users in the cone are all known when
/// it is reached. Only the cone's operands become candidates, so the walk
/// costs the cone's size, not the block's (a loop of K iterations has K
/// merges a name; walking the block from each made nested loops quadratic).
SmallVector<Operation *> getExclusiveProducers(SelectOp select,
                                               unsigned index) {
  Block *block = select->getBlock();
  // A heap by program order: the latest candidate on top.
  auto earlier = [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  };
  SmallVector<Operation *> candidates;
  DenseSet<Operation *> seen;
  auto consider = [&](Value value) {
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != block || !seen.insert(def).second)
      return;
    candidates.push_back(def);
    std::push_heap(candidates.begin(), candidates.end(), earlier);
  };
  consider(select->getOperand(index));
  DenseSet<Operation *> cone;
  SmallVector<Operation *> ordered;
  while (!candidates.empty()) {
    std::pop_heap(candidates.begin(), candidates.end(), earlier);
    Operation *op = candidates.pop_back_val();
    bool exclusive = llvm::all_of(op->getUses(), [&](OpOperand &use) {
      if (use.getOwner() == select.getOperation())
        return use.getOperandNumber() == index;
      return cone.contains(use.getOwner());
    });
    if (!exclusive)
      continue;
    cone.insert(op);
    ordered.push_back(op);
    for (Value operand : op->getOperands())
      consider(operand);
  }
  return ordered;
}

/// `value` broadcast to `select`'s result shape. A select broadcasts its
/// operands (`y = s` in one branch with a scalar `s`); a choose returns one
/// of them as it is, so both must already have the result's type.
Value spreadToResult(OpBuilder &builder, SelectOp select, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  auto result = cast<RankedTensorType>(select.getType());
  if (type == result)
    return value;
  SmallVector<int64_t> dimensions;
  int64_t offset = result.getRank() - type.getRank();
  for (int64_t i = 0; i < type.getRank(); ++i)
    dimensions.push_back(offset + i);
  return BroadcastOp::create(builder, select.getLoc(), result, value,
                             builder.getDenseI64ArrayAttr(dimensions));
}

/// What makes skipping `ops` worth a round trip to the host: the name of
/// the first op that launches kernels of its own, or "".
std::string getCostlyWork(ArrayRef<Operation *> ops) {
  for (Operation *op : ops) {
    if (isa<ReduceOp>(op))
      return "a " + stringifyReductionKind(cast<ReduceOp>(op).getKind()).str();
    if (isa<GaussianBlurOp>(op))
      return "a gaussian_blur";
    if (auto window = dyn_cast<WindowOp>(op))
      return "a " + stringifyWindowKind(window.getKind()).str() + " window";
    if (auto resample = dyn_cast<ResampleOp>(op))
      switch (resample.getTransform()) {
      case ResampleTransform::resize:
        return "a resize";
      case ResampleTransform::rotate:
        return "a rotate";
      case ResampleTransform::affine:
        return "a warp_affine";
      }
    if (isa<ChooseOp>(op))
      return "a branch decided on the host";
  }
  return "";
}
} // namespace

void HostControlPass::runOnOperation() {
  PipelineOp pipeline = getOperation();
  Block &body = pipeline.getBody().front();
  // One note per merge site (a loop's K copies share their source line).
  struct Site {
    std::string where, merged, reason;
    int decided = 0, total = 0;
  };
  std::vector<Site> sites;
  std::map<std::string, size_t> siteOf;
  // In program order: a merge nested in a branch is decided before the
  // merge of the branch that holds it, whose skipped work it then is.
  SmallVector<SelectOp> merges;
  for (Operation &op : body)
    if (auto select = dyn_cast<SelectOp>(op))
      if (select->hasAttr(kVersionMergeAttr))
        merges.push_back(select);
  for (SelectOp select : merges) {
    auto merged = select->getAttrOfType<StringAttr>(kVersionMergeAttr);
    std::string where = describeLocation(select.getLoc());
    auto [it, inserted] =
        siteOf.try_emplace(where + "\n" + merged.str(), sites.size());
    if (inserted)
      sites.push_back({where, merged.str(), "", 0, 0});
    Site &site = sites[it->second];
    ++site.total;
    select->removeAttr(kVersionMergeAttr);
    Value condition = getScalarCondition(select);
    if (!condition) {
      site.reason =
          "predicated on the GPU: its condition differs between elements";
      continue;
    }
    // A condition the source sends to the host (`c.cpu()`) is decided
    // there whatever the cost; pipe-placement then drops the copy, since
    // reading the condition is the decision's own transfer.
    bool requested = sendsToHost(condition);
    std::string costly = getCostlyWork(getExclusiveProducers(select, 1));
    if (costly.empty())
      costly = getCostlyWork(getExclusiveProducers(select, 2));
    if (costly.empty() && !requested) {
      site.reason =
          "predicated on the GPU: the work it would skip is elementwise and "
          "fuses into the kernels around it";
      continue;
    }
    OpBuilder builder(select);
    Value chosen = ChooseOp::create(
        builder, select.getLoc(), condition,
        spreadToResult(builder, select, select.getTrueValue()),
        spreadToResult(builder, select, select.getFalseValue()));
    select.replaceAllUsesWith(chosen);
    select.erase();
    ++site.decided;
    site.reason =
        requested ? "decided on the host, as the source asks (.cpu() on the "
                    "condition)"
                  : "decided on the host: the side not taken holds " + costly +
                        ", which then does not run";
  }
  if (sites.empty())
    return;
  Builder builder(&getContext());
  SmallVector<Attribute> notes;
  for (const Site &site : sites) {
    std::string note = (site.where.empty() ? "" : site.where + ": ") +
                       site.merged + ": " + site.reason;
    if (site.total > 1)
      note += " (" + std::to_string(site.decided) + " of " +
              std::to_string(site.total) + " iterations decided on the host)";
    notes.push_back(builder.getStringAttr(note));
  }
  pipeline->setAttr("pipe.control", builder.getArrayAttr(notes));
}
