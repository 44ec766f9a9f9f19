//===- FuseElementwise.cpp - Elementwise ops into pipe.kernel ops ---------===//
//
// Implements `pipe-fuse-elementwise` (see Passes.td): partitions the
// elementwise ops of a pipeline into groups over one domain, then outlines
// each group into a `pipe.kernel` whose inputs are the values it reads from
// outside and whose results are the values used outside.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#include <functional>

#define DEBUG_TYPE "pipe-fuse-elementwise"

namespace mlir {
namespace pipe {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "passes/Passes.h.inc"
} // namespace pipe
} // namespace mlir

using namespace mlir;
using namespace mlir::pipe;

namespace {

/// A set of elementwise ops that will become one kernel, in program order.
struct Group {
  RankedTensorType domain;
  llvm::SetVector<Operation *> ops;
};

/// Whether `op` computes a scalar (rank 0) elementwise. Such ops are cloned
/// into every kernel that uses them, where codegen computes them once per
/// thread before the loop: cheaper than a one-element kernel launch and a
/// round trip through memory.
bool isClonableScalar(Operation *op) {
  return isa<ElementwiseOpInterface>(op) &&
         cast<RankedTensorType>(op->getResult(0).getType()).getRank() == 0;
}

/// Whether `op` is an index map (a broadcast, a crop, a flip, ...) or a
/// coordinate: it is cloned into every kernel that reads it, with the chain
/// of maps it reads through, where codegen turns the chain into index
/// arithmetic on the loads of a kernel input (or on the coordinates).
bool isIndexMap(Operation *op) {
  return isa<CoordinateOp>(op) ||
         (isa<IndexMapOpInterface>(op) &&
          cast<IndexMapOpInterface>(op).isTotal());
}

/// Ops cloned into the kernels that use them rather than computed once.
bool isClonable(Operation *op) { return isClonableScalar(op) || isIndexMap(op); }

/// Whether `op` can be part of a kernel: an elementwise op (constants are
/// cloned in or passed as buffers instead), or an index map.
bool isFusible(Operation *op) {
  return (isa<ElementwiseOpInterface>(op) && !isa<ConstantOp>(op)) ||
         isIndexMap(op);
}

/// Whether some user of `op` is neither elementwise nor an index map (the
/// pipeline's return, a reduction): then `op`'s value must be materialized
/// by a kernel of its own.
bool hasNonElementwiseUser(Operation *op) {
  return llvm::any_of(op->getUsers(), [](Operation *user) {
    return !isa<ElementwiseOpInterface>(user) && !isIndexMap(user);
  });
}

/// Whether `value` depends, through ops outside `group`, on an op of `group`.
/// If so, putting the user of `value` into `group` would make a cycle.
bool dependsOnGroupThroughOutside(Value value, const Group &group,
                                  const DenseMap<Operation *, int> &groupOf,
                                  int groupId) {
  SmallVector<Operation *> worklist;
  DenseSet<Operation *> visited;
  if (Operation *def = value.getDefiningOp())
    worklist.push_back(def);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!visited.insert(op).second)
      continue;
    auto it = groupOf.find(op);
    if (it != groupOf.end() && it->second == groupId)
      return true;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back(def);
  }
  return false;
}

struct FuseElementwisePass
    : public pipe::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override;
};

} // namespace

/// Moves the ops of `group` into a new kernel op placed after the group's
/// last op, and rewires their outside uses to the kernel's results.
static void outlineGroup(const Group &group, StringRef name) {
  Operation *last = group.ops.back();
  // Values read from outside the group become inputs, except scalars that
  // are cloned in (with the scalars they depend on, producers first); values
  // used outside become results.
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Value> outputs;
  llvm::SetVector<Operation *> scalars;
  std::function<void(Value)> addOperand = [&](Value operand) {
    Operation *def = operand.getDefiningOp();
    if (def && group.ops.contains(def))
      return;
    if (!def || !isClonable(def)) {
      inputs.insert(operand);
      return;
    }
    if (scalars.contains(def))
      return;
    for (Value scalarOperand : def->getOperands())
      addOperand(scalarOperand);
    scalars.insert(def);
  };
  for (Operation *op : group.ops) {
    for (Value operand : op->getOperands())
      addOperand(operand);
    for (Value result : op->getResults())
      for (Operation *user : result.getUsers())
        if (!group.ops.contains(user))
          outputs.insert(result);
  }

  OpBuilder builder(last->getContext());
  builder.setInsertionPointAfter(last);
  SmallVector<Location> locs;
  for (Operation *op : group.ops)
    locs.push_back(op->getLoc());
  Location loc = builder.getFusedLoc(locs);
  SmallVector<Type> resultTypes;
  for (Value output : outputs)
    resultTypes.push_back(output.getType());
  auto kernel = KernelOp::create(builder, loc, resultTypes,
                                 builder.getStringAttr(name),
                                 inputs.getArrayRef());
  Block *body = new Block();
  kernel.getBody().push_back(body);
  IRMapping mapping;
  for (Value input : inputs)
    mapping.map(input, body->addArgument(input.getType(), input.getLoc()));

  OpBuilder bodyBuilder = OpBuilder::atBlockEnd(body);
  for (Operation *scalar : scalars)
    bodyBuilder.clone(*scalar, mapping);
  for (Operation *op : group.ops)
    bodyBuilder.clone(*op, mapping);
  SmallVector<Value> yielded;
  for (Value output : outputs)
    yielded.push_back(mapping.lookup(output));
  YieldOp::create(bodyBuilder, loc, yielded);

  for (auto [index, output] : llvm::enumerate(outputs))
    Value(output).replaceUsesWithIf(kernel.getResult(index), [&](OpOperand &use) {
      return !kernel->isAncestor(use.getOwner());
    });
  for (Operation *op : llvm::reverse(group.ops))
    op->erase();
}

void FuseElementwisePass::runOnOperation() {
  PipelineOp pipeline = getOperation();
  Block &block = pipeline.getBody().front();

  std::vector<Group> groups;
  DenseMap<Operation *, int> groupOf;
  for (Operation &op : block.without_terminator()) {
    if (!isFusible(&op) || (isClonable(&op) && !hasNonElementwiseUser(&op)))
      continue;
    auto domain = cast<RankedTensorType>(op.getResult(0).getType());
    // Join the latest kernel over the same domain, unless an operand depends
    // on that kernel through an op outside it (joining would make a cycle).
    // Independent ops over one domain thus share a kernel too (horizontal
    // fusion): one launch, and inputs they share are loaded once.
    int chosen = -1;
    for (int g = int(groups.size()) - 1; g >= 0 && chosen < 0; --g) {
      if (!haveSameShape(groups[g].domain, domain))
        continue;
      bool makesCycle = llvm::any_of(op.getOperands(), [&](Value operand) {
        auto it = groupOf.find(operand.getDefiningOp());
        if (it != groupOf.end() && it->second == g)
          return false;
        return dependsOnGroupThroughOutside(operand, groups[g], groupOf, g);
      });
      // An index map indexes a kernel input: it cannot read a value
      // computed in the same kernel. (Through a chain of cloned maps, the
      // cycle check above sees that.)
      bool readsGroup = false;
      if (auto map = dyn_cast<IndexMapOpInterface>(op)) {
        auto it = groupOf.find(map.getSource().getDefiningOp());
        readsGroup = it != groupOf.end() && it->second == g;
      }
      if (!makesCycle && !readsGroup)
        chosen = g;
      // Only the latest legal kernel is tried: an earlier one would have to
      // be placed after ops that the later one feeds.
      break;
    }
    if (chosen < 0) {
      chosen = groups.size();
      groups.push_back(Group{domain, {}});
    }
    groups[chosen].ops.insert(&op);
    groupOf[&op] = chosen;
  }

  for (auto [index, group] : llvm::enumerate(groups)) {
    std::string name =
        (pipeline.getSymName() + "_k" + std::to_string(index)).str();
    LLVM_DEBUG(llvm::dbgs() << "kernel " << name << ": " << group.ops.size()
                            << " ops\n");
    outlineGroup(group, name);
  }

  // A kernel sits after its last op; ops outside it that use its results
  // but came earlier in the block move after it. Fusion made no cycle, so
  // this order exists.
  bool sorted = sortTopologically(&block, block.without_terminator());
  assert(sorted && "fusion created a cycle");
  (void)sorted;

  // Cloned scalars and index maps now live in the kernels that use them.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (isClonable(&op) && op.use_empty())
      op.erase();
}
