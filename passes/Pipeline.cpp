//===- Pipeline.cpp - The default pass pipeline ---------------------------===//
//
// The passes in the order pipec runs them, kept in one place so that pipec,
// pipe-opt (`--pipe-default`) and the JIT agree.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::pipe::buildDefaultPipeline(OpPassManager &pm) {
  OpPassManager &pipelinePm = pm.nest<PipelineOp>();
  pipelinePm.addPass(createHostControl());
  pipelinePm.addPass(createPlacement());
  pipelinePm.addPass(createShardBatch());
  pipelinePm.addPass(createExpandLayout());
  pipelinePm.addPass(createCanonicalizerPass());
  pipelinePm.addPass(createCSEPass());
  pipelinePm.addPass(createFuseElementwise());
  pipelinePm.addPass(createFuseResampleEpilogues());
  pipelinePm.addPass(createFuseReductions());
  pipelinePm.addPass(createFuseWindowPrologues());
}

void mlir::pipe::registerPipePassesAndPipelines() {
  registerPipePasses();
  PassPipelineRegistration<>(
      "pipe-default",
      "The default pipeline: host control, placement, batch sharding, "
      "layout expansion, canonicalize, CSE, fusion of elementwise ops, of "
      "resamples with their consumers, of reductions, then of window filters "
      "with their producers",
      [](OpPassManager &pm) { buildDefaultPipeline(pm); });
}


mlir::InFlightDiagnostic mlir::pipe::emitUserError(Operation *op) {
  InFlightDiagnostic error = op->emitError();
  // The mark first: what the caller streams in goes to the error itself.
  error.attachNote() << kUserErrorNote;
  return error;
}
