//===- FuseElementwise.cpp - Elementwise ops into pipe.kernel ops ---------===//
//
// Implements `pipe-fuse-elementwise` (see Passes.td): partitions the
// elementwise ops of a pipeline into groups over one domain, then outlines
// each group into a `pipe.kernel` whose inputs are the values it reads from
// outside and whose results are the values used outside.
//
//===----------------------------------------------------------------------===//

#include "passes/BlockOrder.h"
#include "passes/Passes.h"

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
  /// For scalars: whether the host could compute them (see
  /// HostScalarSources). Such a kernel is kept apart from scalars computed
  /// from the GPU's data, or the host could not compute its values alone.
  bool fromHostScalars = false;
};

/// Which scalars the runtime can compute on the host, with no copy from
/// the device (PlanKernel::hostSteps): from constants, dims, and scalar
/// parameters not pinned to device memory, through scalar elementwise ops
/// (random draws need the GPU's seed and run number).
class HostScalarSources {
public:
  explicit HostScalarSources(PipelineOp pipeline) : pipeline(pipeline) {}

  bool contains(Value value) {
    if (cast<RankedTensorType>(value.getType()).getRank() != 0)
      return false;
    if (auto arg = dyn_cast<BlockArgument>(value))
      return pipeline.getArgMemory(arg.getArgNumber()) != MemorySpace::device;
    Operation *op = value.getDefiningOp();
    if (auto it = known.find(op); it != known.end())
      return it->second;
    bool yes = false;
    if (isa<ConstantOp, DimOp>(op))
      yes = true;
    else if (isa<ElementwiseOpInterface>(op) && !isa<RandomOp>(op))
      yes = llvm::all_of(op->getOperands(),
                         [&](Value operand) { return contains(operand); });
    known[op] = yes;
    return yes;
  }

private:
  PipelineOp pipeline;
  DenseMap<Operation *, bool> known;
};

/// Where the groups lie in program order, for the cycle check's cutoff
/// (dependsOnGroupThroughOutside). A group is "active" at an op when it
/// has an op there or after; `floorOf(op)` is the first op of the oldest
/// such group: from an op before it, reading backwards, no active group
/// can be reached.
class GroupOrder {
public:
  /// Records that `op` (the latest op placed so far) joined group `id`, a
  /// new group when `id` is the number of groups so far.
  void placed(Operation *op, size_t id) {
    if (id == firsts.size()) {
      firsts.push_back(op);
      lastUpTo.push_back(op);
      return;
    }
    // `op` is the latest op yet: the latest last op of groups 0..k is
    // `op` from group `id` on.
    for (size_t k = id; k < lastUpTo.size(); ++k)
      lastUpTo[k] = op;
  }
  Operation *floorOf(Operation *op) const {
    auto it = llvm::partition_point(lastUpTo, [&](Operation *last) {
      return last->isBeforeInBlock(op);
    });
    return it == lastUpTo.end() ? op : firsts[it - lastUpTo.begin()];
  }

private:
  SmallVector<Operation *> firsts;   // each group's first op
  SmallVector<Operation *> lastUpTo; // the latest last op of groups 0..k
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

/// The dims of `type` other than literal 1s, as texts.
SmallVector<std::string> nonUnitDims(RankedTensorType type) {
  SmallVector<std::string> dims;
  SmallVector<std::string> names = getDimNames(type);
  size_t next = 0;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (type.isDynamicDim(d))
      dims.push_back(names[next++]);
    else if (type.getDimSize(d) != 1)
      dims.push_back(std::to_string(type.getDimSize(d)));
  }
  llvm::sort(dims);
  return dims;
}

/// Whether `small` is read broadcast over `large`: its dims (but 1s) are
/// some of `large`'s, not all (a per-sample scalar, a row of constants).
bool isBroadcastSmaller(RankedTensorType small, RankedTensorType large) {
  SmallVector<std::string> a = nonUnitDims(small), b = nonUnitDims(large);
  return a.size() < b.size() &&
         std::includes(b.begin(), b.end(), a.begin(), a.end());
}

/// The most ops a recomputed value may take (see isRecomputable).
constexpr int kMaxRecomputedOps = 8;

/// Whether `op` is an elementwise op cheaper to recompute in each kernel
/// that reads it than to store and load: the full-size values it is
/// computed from (through other such ops and index maps) take no more
/// bytes per element than it does (then recomputing saves at least its
/// store), and few ops. `f32(images) * brightness` (u8
/// and a per-sample scalar in, f32 out) is; a kernel reading it recomputes
/// it from the u8 images instead of loading a stored f32 temporary.
bool isRecomputable(Operation *op) {
  if (!isa<ElementwiseOpInterface>(op) || isa<ConstantOp>(op) ||
      op->getNumResults() != 1)
    return false;
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  if (result.getRank() == 0)
    return false;
  int64_t bytes = 0, ops = 0;
  DenseSet<Value> leaves;
  SmallVector<Operation *> worklist{op};
  DenseSet<Operation *> visited;
  while (!worklist.empty()) {
    Operation *current = worklist.pop_back_val();
    if (!visited.insert(current).second)
      continue;
    if (isa<ElementwiseOpInterface>(current) && ++ops > kMaxRecomputedOps)
      return false;
    for (Value operand : current->getOperands()) {
      Operation *def = operand.getDefiningOp();
      auto type = cast<RankedTensorType>(operand.getType());
      if (def && (isIndexMap(def) || isClonableScalar(def) ||
                  (isa<ElementwiseOpInterface>(def) && !isa<ConstantOp>(def) &&
                   type.getRank() > 0))) {
        worklist.push_back(def);
        continue;
      }
      if (type.getRank() == 0 || isBroadcastSmaller(type, result) ||
          !leaves.insert(operand).second)
        continue;
      bytes += getElementBytes(type);
    }
  }
  return bytes <= getElementBytes(result);
}

/// Ops cloned into the kernels that use them rather than computed once.
bool isClonable(Operation *op) { return isClonableScalar(op) || isIndexMap(op); }

/// The most index maps a kernel composes into one read: codegen walks the
/// composed expression recursively, and 8000 chained flips overflowed the
/// stack. At 256, a 1 MiB stack (test/frontend/limits) still overflowed
/// when the longest kernel was printed on the main thread; 128 leaves it
/// half free.
constexpr unsigned kMaxIndexMapChain = 128;

/// The index maps where a chain of them passes kMaxIndexMapChain: each is
/// computed by a kernel of its own (it reads the chain below it), and the
/// maps after it read what that kernel stored.
DenseSet<Operation *> findChainCuts(Block &block) {
  DenseMap<Operation *, unsigned> length;
  DenseSet<Operation *> cuts;
  for (Operation &op : block.without_terminator()) {
    if (!isIndexMap(&op))
      continue;
    unsigned below = 0;
    for (Value operand : op.getOperands())
      if (auto it = length.find(operand.getDefiningOp()); it != length.end())
        below = std::max(below, it->second);
    unsigned chain = below + 1;
    if (chain > kMaxIndexMapChain) {
      cuts.insert(&op);
      chain = 0;
    }
    length[&op] = chain;
  }
  return cuts;
}

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
/// If so, putting the user of `value` into `group` would make a cycle. Ops
/// that `isCloned` says will be cloned into the group (scalars, recomputed
/// values) are not outside it: reading the group through them is no cycle.
/// An op of another group stands for its whole group: that kernel runs
/// after every input of every op in it, its later ops' too. The walk
/// covers the ops since the oldest group still growing when `group` began
/// (GroupOrder::floorOf), not all of the pipeline's (which made long
/// unrolled loops quadratic to compile): an older op reads only older ops
/// and groups that ended before `group` began, none of which can reach
/// it. (Cutting at `group`'s own first op instead missed kernels begun
/// earlier whose later ops read `group` through a reduction: a cycle,
/// "operand does not dominate this use".)
bool dependsOnGroupThroughOutside(
    Value value, ArrayRef<Group> groups,
    const DenseMap<Operation *, int> &groupOf, int groupId,
    const GroupOrder &order,
    const std::function<bool(Operation *)> &isCloned) {
  // (op, whether the path to it left the group through an op not cloned)
  SmallVector<std::pair<Operation *, bool>> worklist;
  DenseSet<Operation *> visited[2]; // by `outside`
  DenseSet<int> groupsFollowed;
  if (Operation *def = value.getDefiningOp())
    worklist.push_back({def, false});
  Operation *floor = order.floorOf(groups[groupId].ops.front());
  while (!worklist.empty()) {
    auto [op, outside] = worklist.pop_back_val();
    if (op->isBeforeInBlock(floor) || !visited[outside].insert(op).second)
      continue;
    auto it = groupOf.find(op);
    if (it != groupOf.end() && it->second == groupId) {
      if (outside)
        return true;
      continue;
    }
    if (it != groupOf.end() && groupsFollowed.insert(it->second).second)
      for (Operation *member : groups[it->second].ops)
        if (member != op)
          worklist.push_back({member, true});
    // Through an index map, the group's value would have to be a kernel
    // input: the map leaves the group.
    bool leaves = outside || !isCloned(op) || isIndexMap(op);
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back({def, leaves});
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
static void outlineGroup(const Group &group, StringRef name,
                         DenseSet<Operation *> &recomputable,
                         const DenseSet<Operation *> &chainCuts) {
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
    if (!def || !(isClonable(def) || recomputable.contains(def)) ||
        chainCuts.contains(def)) {
      inputs.insert(operand);
      return;
    }
    if (scalars.contains(def))
      return;
    for (Value scalarOperand : def->getOperands())
      addOperand(scalarOperand);
    scalars.insert(def);
  };
  for (Operation *op : group.ops)
    for (Value operand : op->getOperands())
      addOperand(operand);
  // A value is a result when something outside the kernel reads it:
  // directly, or through an op cloned into this kernel that is read (so
  // cloned) outside too.
  std::function<bool(Value)> readOutside = [&](Value value) {
    for (Operation *user : value.getUsers()) {
      if (group.ops.contains(user))
        continue;
      if (!scalars.contains(user))
        return true;
      if (llvm::any_of(user->getResults(), readOutside))
        return true;
    }
    return false;
  };
  for (Operation *op : group.ops)
    for (Value result : op->getResults())
      if (readOutside(result))
        outputs.insert(result);

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

  // In program order: a cloned op may read an op of the group (a value
  // recomputed from one the group computes).
  SmallVector<Operation *> ordered(scalars.begin(), scalars.end());
  llvm::append_range(ordered, group.ops);
  llvm::sort(ordered, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  OpBuilder bodyBuilder = OpBuilder::atBlockEnd(body);
  for (Operation *op : ordered)
    bodyBuilder.clone(*op, mapping);
  SmallVector<Value> yielded;
  for (Value output : outputs)
    yielded.push_back(mapping.lookup(output));
  YieldOp::create(bodyBuilder, loc, yielded);

  for (auto [index, output] : llvm::enumerate(outputs))
    Value(output).replaceUsesWithIf(kernel.getResult(index), [&](OpOperand &use) {
      return !kernel->isAncestor(use.getOwner());
    });
  // The group's ops go, and with them the originals of ops cloned in that
  // nothing else reads (one may read a group op: it cannot outlive it).
  DenseSet<Operation *> erased(group.ops.begin(), group.ops.end());
  for (Operation *op : llvm::reverse(ordered)) {
    if (erased.contains(op))
      continue;
    if (llvm::all_of(op->getUsers(),
                     [&](Operation *user) { return erased.contains(user); }))
      erased.insert(op);
  }
  // An erased op leaves `recomputable` too: a kernel outlined later may
  // be allocated at its address, and would be taken for it.
  for (Operation *op : llvm::reverse(ordered))
    if (erased.contains(op)) {
      recomputable.erase(op);
      op->erase();
    }
}

void FuseElementwisePass::runOnOperation() {
  PipelineOp pipeline = getOperation();
  Block &block = pipeline.getBody().front();

  // Values recomputed where they are read (isRecomputable), decided once:
  // fusion moves them.
  DenseSet<Operation *> recomputable;
  // (Not those read through an index map, which reads a kernel input.)
  for (Operation &op : block.without_terminator())
    if (isRecomputable(&op) && llvm::none_of(op.getUsers(), isIndexMap))
      recomputable.insert(&op);

  std::vector<Group> groups;
  DenseMap<Operation *, int> groupOf;
  HostScalarSources hostScalars(pipeline);
  DenseSet<Operation *> chainCuts = findChainCuts(block);
  GroupOrder order;
  // Ops cloned into the kernels that read them: not in a group of their own.
  auto isCloned = [&](Operation *op) {
    return (isClonable(op) || recomputable.contains(op)) &&
           !groupOf.contains(op);
  };
  for (Operation &op : block.without_terminator()) {
    if (!isFusible(&op) ||
        ((isClonable(&op) || recomputable.contains(&op)) &&
         !hasNonElementwiseUser(&op) && !chainCuts.contains(&op)))
      continue;
    auto domain = cast<RankedTensorType>(op.getResult(0).getType());
    bool fromHostScalars = hostScalars.contains(op.getResult(0));
    // Join the latest kernel over the same domain, unless an operand depends
    // on that kernel through an op outside it (joining would make a cycle).
    // Independent ops over one domain thus share a kernel too (horizontal
    // fusion): one launch, and inputs they share are loaded once.
    int chosen = -1;
    for (int g = int(groups.size()) - 1; g >= 0 && chosen < 0; --g) {
      if (!haveSameShape(groups[g].domain, domain) ||
          groups[g].fromHostScalars != fromHostScalars)
        continue;
      bool makesCycle = llvm::any_of(op.getOperands(), [&](Value operand) {
        return dependsOnGroupThroughOutside(operand, groups, groupOf, g,
                                            order, isCloned);
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
      groups.push_back(Group{domain, {}, fromHostScalars});
    }
    groups[chosen].ops.insert(&op);
    groupOf[&op] = chosen;
    order.placed(&op, chosen);
  }

  for (auto [index, group] : llvm::enumerate(groups)) {
    std::string name =
        (pipeline.getSymName() + "_k" + std::to_string(index)).str();
    LLVM_DEBUG(llvm::dbgs() << "kernel " << name << ": " << group.ops.size()
                            << " ops\n");
    outlineGroup(group, name, recomputable, chainCuts);
  }

  // A kernel sits after its last op; ops outside it that use its results
  // but came earlier in the block move after it. Fusion made no cycle, so
  // this order exists.
  bool sorted = sortBlockByDependencies(block);
  assert(sorted && "fusion created a cycle");
  (void)sorted;

  // Cloned scalars, index maps and recomputed values now live in the
  // kernels that use them.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if ((isClonable(&op) || recomputable.contains(&op)) && op.use_empty())
      op.erase();
}
