//===- FuseReductions.cpp - Reductions with their producers and consumers -===//
//
// Implements `pipe-fuse-reductions` (see Passes.td): each `pipe.reduce`
// becomes a `pipe.reduce_kernel` whose prologue is the slice of the
// producing `pipe.kernel` that computes the reduced value, and whose
// epilogue is a `pipe.kernel` over the reduced shape that consumes it.
//
//===----------------------------------------------------------------------===//

#include "passes/BlockOrder.h"
#include "passes/KernelSlices.h"
#include "passes/Passes.h"

#include "llvm/ADT/BitVector.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace pipe {
#define GEN_PASS_DEF_FUSEREDUCTIONS
#include "passes/Passes.h.inc"
} // namespace pipe
} // namespace mlir

using namespace mlir;
using namespace mlir::pipe;

namespace {

struct FuseReductionsPass
    : public pipe::impl::FuseReductionsBase<FuseReductionsPass> {
  void runOnOperation() override;
};

} // namespace

void FuseReductionsPass::runOnOperation() {
  PipelineOp pipeline = getOperation();
  Block &block = pipeline.getBody().front();
  SmallVector<ReduceOp> reduces;
  for (Operation &op : block)
    if (auto reduce = dyn_cast<ReduceOp>(op))
      reduces.push_back(reduce);

  for (auto [index, reduce] : llvm::enumerate(reduces)) {
    Value reducedInput = reduce.getInput();
    // The prologue: the producer kernel's slice computing the reduced value,
    // when it runs there anyway (one use) or reads fewer bytes than the
    // value it would store.
    auto producer = reducedInput.getDefiningOp<KernelOp>();
    llvm::SetVector<Operation *> slice;
    unsigned producerResult = 0;
    if (producer) {
      producerResult = cast<OpResult>(reducedInput).getResultNumber();
      Value yielded = producer.getBody().front().getTerminator()->getOperand(
          producerResult);
      slice = sliceOf(producer, yielded);
      bool single = reducedInput.hasOneUse();
      if (!single &&
          inputBytes(slice) > getElementBytes(reducedInput.getType()))
        producer = {};
    }
    // A reduction over a split batch is combined across the shards
    // between the kernel and its consumers (pipe-shard-batch): no epilogue.
    bool combined = reduce->hasAttr("pipe.combine_shards");
    KernelOp epilogueKernel =
        combined ? KernelOp() : findDirectConsumer(reduce.getResult());
    Operation *anchor = epilogueKernel ? epilogueKernel.getOperation()
                                       : reduce.getOperation();
    OpBuilder builder(anchor);

    // Inputs of the prologue: the producer's inputs that the slice reads.
    llvm::SetVector<Value> prologueInputs;
    if (producer) {
      Block &body = producer.getBody().front();
      for (Operation *op : slice)
        for (Value operand : op->getOperands())
          if (auto arg = dyn_cast<BlockArgument>(operand);
              arg && arg.getOwner() == &body)
            prologueInputs.insert(producer.getInputs()[arg.getArgNumber()]);
    } else {
      prologueInputs.insert(reducedInput);
    }
    SmallVector<Value> epilogueInputs;
    if (epilogueKernel)
      for (Value input : epilogueKernel.getInputs())
        if (input != reduce.getResult())
          epilogueInputs.push_back(input);

    // Results: the epilogue kernel's, then the reduced value itself when
    // something else uses it.
    SmallVector<Type> resultTypes;
    if (epilogueKernel)
      llvm::append_range(resultTypes, epilogueKernel.getResultTypes());
    bool keepReduced = llvm::any_of(reduce.getResult().getUsers(),
                                    [&](Operation *user) {
                                      return user != epilogueKernel.getOperation();
                                    }) ||
                       !epilogueKernel;
    if (keepReduced)
      resultTypes.push_back(reduce.getType());

    SmallVector<Location> locs{reduce.getLoc()};
    if (producer)
      locs.push_back(producer.getLoc());
    if (epilogueKernel)
      locs.push_back(epilogueKernel.getLoc());
    std::string name =
        (pipeline.getSymName() + "_r" + std::to_string(index)).str();
    auto fused = ReduceKernelOp::create(
        builder, builder.getFusedLoc(locs), resultTypes, reduce.getKindAttr(),
        reduce.getAxesAttr(), reduce.getKeepdimsAttr(),
        builder.getStringAttr(name), prologueInputs.getArrayRef(),
        epilogueInputs);
    if (combined)
      fused->setAttr("pipe.combine_shards", builder.getUnitAttr());

    // Prologue body.
    Block *prologue = new Block();
    fused.getPrologue().push_back(prologue);
    IRMapping mapping;
    if (producer) {
      Block &body = producer.getBody().front();
      // Map each used block argument to a fresh prologue argument, in the
      // order of prologueInputs.
      mapping.clear();
      for (Value input : prologueInputs) {
        BlockArgument arg = prologue->addArgument(input.getType(), input.getLoc());
        for (auto [i, candidate] : llvm::enumerate(producer.getInputs()))
          if (candidate == input)
            mapping.map(body.getArgument(i), arg);
      }
      OpBuilder inner = OpBuilder::atBlockEnd(prologue);
      for (Operation *op : slice)
        inner.clone(*op, mapping);
      YieldOp::create(inner, reduce.getLoc(),
                      ValueRange{mapping.lookup(body.getTerminator()->getOperand(
                          producerResult))});
    } else {
      BlockArgument arg =
          prologue->addArgument(reducedInput.getType(), reducedInput.getLoc());
      OpBuilder inner = OpBuilder::atBlockEnd(prologue);
      YieldOp::create(inner, reduce.getLoc(), ValueRange{arg});
    }

    // Epilogue body.
    Block *epilogue = new Block();
    fused.getEpilogue().push_back(epilogue);
    BlockArgument reducedArg =
        epilogue->addArgument(reduce.getType(), reduce.getLoc());
    SmallVector<Value> yielded;
    {
      OpBuilder inner = OpBuilder::atBlockEnd(epilogue);
      if (epilogueKernel) {
        Block &body = epilogueKernel.getBody().front();
        IRMapping epilogueMapping;
        for (auto [input, arg] :
             llvm::zip(epilogueKernel.getInputs(), body.getArguments())) {
          if (input == reduce.getResult())
            epilogueMapping.map(arg, reducedArg);
          else
            epilogueMapping.map(arg, epilogue->addArgument(input.getType(),
                                                           input.getLoc()));
        }
        for (Operation &op : body.without_terminator())
          inner.clone(op, epilogueMapping);
        for (Value value : body.getTerminator()->getOperands())
          yielded.push_back(epilogueMapping.lookup(value));
      }
      if (keepReduced)
        yielded.push_back(reducedArg);
      YieldOp::create(inner, reduce.getLoc(), yielded);
    }

    // Rewire: the epilogue kernel's results, then the reduced value.
    unsigned next = 0;
    if (epilogueKernel) {
      for (Value result : epilogueKernel.getResults())
        result.replaceAllUsesWith(fused.getResult(next++));
      epilogueKernel.erase();
    }
    if (keepReduced)
      reduce.getResult().replaceAllUsesWith(fused.getResult(next));
    reduce.erase();
    if (producer && reducedInput.use_empty())
      dropKernelResult(producer, producerResult);
  }
  // The fused op sits where its epilogue kernel was; users of the reduced
  // value between the two move after it.
  bool sorted = sortBlockByDependencies(block);
  assert(sorted && "reduction fusion created a cycle");
  (void)sorted;
}
