//===- Placement.cpp - Where each value lives; which copies are needed ----===//
//
// Implements `pipe-placement` (see Passes.td). Every op of a pipeline runs
// on the GPU (the runtime has no host kernels), so a value is needed on the
// host only when the pipeline returns it there or when it is the condition
// of a `pipe.choose` (which the runtime reads itself). Each explicit copy is
// therefore the copy of a result to host memory (kept: the result is
// pinned to the host, and the runtime makes that copy once, at the end),
// a condition the host reads (its copy is the decision's), or part of a
// round trip that comes back to the GPU (removed). Each decision
// is written to the pipeline's `pipe.placement` attribute, which the
// transfer report prints.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir {
namespace pipe {
#define GEN_PASS_DEF_PLACEMENT
#include "passes/Passes.h.inc"
} // namespace pipe
} // namespace mlir

using namespace mlir;
using namespace mlir::pipe;

namespace {
struct PlacementPass : public pipe::impl::PlacementBase<PlacementPass> {
  void runOnOperation() override;
};
} // namespace

/// Whether `value` reaches the condition of a `pipe.choose` (directly or
/// through scalar elementwise ops), which the host reads.
static bool decidesOnHost(Value value) {
  SmallVector<Value> worklist{value};
  DenseSet<Operation *> visited;
  while (!worklist.empty()) {
    for (OpOperand &use : worklist.pop_back_val().getUses()) {
      Operation *user = use.getOwner();
      if (isa<ChooseOp>(user) && use.getOperandNumber() == 0)
        return true;
      if (isa<ElementwiseOpInterface>(user) &&
          cast<RankedTensorType>(user->getResult(0).getType()).getRank() == 0 &&
          visited.insert(user).second)
        worklist.push_back(user->getResult(0));
    }
  }
  return false;
}

void PlacementPass::runOnOperation() {
  PipelineOp pipeline = getOperation();
  Block &body = pipeline.getBody().front();
  auto ret = cast<ReturnOp>(body.getTerminator());
  Builder builder(&getContext());
  SmallVector<Attribute> notes;
  if (auto existing = pipeline->getAttrOfType<ArrayAttr>("pipe.placement"))
    llvm::append_range(notes, existing);
  SmallVector<CopyOp> copies;
  body.walk([&](CopyOp copy) { copies.push_back(copy); });
  for (CopyOp copy : copies) {
    std::string where = mlir::pipe::describeLocation(copy.getLoc());
    std::string what = copy.getTo() == MemorySpace::host ? ".cpu()" : ".gpu()";
    std::string note = (where.empty() ? "" : where + ": ") + what;
    if (copy.getTo() == MemorySpace::host) {
      // Results it reaches become host results; every other use is on the
      // GPU, where the value already is.
      SmallVector<std::string> results;
      for (OpOperand &use : copy.getResult().getUses()) {
        if (use.getOwner() != ret)
          continue;
        unsigned r = use.getOperandNumber();
        if (pipeline.getResultMemory(r) == MemorySpace::device) {
          emitUserError(copy) << "'.cpu()' sends result '"
                           << pipeline.getResultName(r)
                           << "' to the host, but it is declared @device";
          return signalPassFailure();
        }
        pipeline.setResultAttr(r, PipelineOp::getMemoryAttrName(),
                               MemorySpaceAttr::get(builder.getContext(), MemorySpace::host));
        results.push_back(pipeline.getResultName(r).str());
      }
      bool decides = decidesOnHost(copy.getResult());
      if (decides && results.empty()) {
        note += " kept as the condition of a branch the host decides: the "
                "runtime reads it in the decision's own small copy (or "
                "computes it itself from scalars in host memory)";
      } else if (!results.empty()) {
        note += " kept as the copy of result";
        note += results.size() > 1 ? "s" : "";
        for (auto [i, name] : llvm::enumerate(results))
          note += (i ? ", '" : " '") + name + "'";
        note += " to host memory, made once at the end of the run";
        bool others = llvm::any_of(copy.getResult().getUsers(),
                                   [&](Operation *user) { return user != ret; });
        if (others)
          note += "; its other uses read the GPU's value (no round trip)";
      } else if (cast<RankedTensorType>(copy.getType()).getRank() > 0 &&
                 llvm::any_of(copy.getResult().getUsers(),
                              [&](Operation *user) {
                                auto select = dyn_cast<SelectOp>(user);
                                return select && select.getCondition() ==
                                                     copy.getResult();
                              })) {
        // `if (x > 0).cpu()` with x per sample: the host decides only a
        // condition that is one scalar.
        note += " removed: the condition has a value per element (not one "
                "scalar), which the host cannot decide once; the branch is "
                "predicated on the GPU";
      } else {
        note += " removed: a round trip, since every use of the value runs "
                "on the GPU, where it already is";
      }
    } else {
      note += " removed: every op runs on the GPU; a parameter in host "
              "memory is copied there once by the runtime";
    }
    notes.push_back(builder.getStringAttr(note));
    copy.getResult().replaceAllUsesWith(copy.getInput());
    copy.erase();
  }
  if (!notes.empty())
    pipeline->setAttr("pipe.placement", builder.getArrayAttr(notes));
}
