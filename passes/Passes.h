//===- Passes.h - Passes over the pipe dialect ------------------*- C++ -*-===//

#ifndef PIPE_PASSES_PASSES_H
#define PIPE_PASSES_PASSES_H

#include "dialect/PipeDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir {
namespace pipe {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// The default pipeline from tensor-level IR to fused kernels:
/// host control, placement, layout expansion, canonicalize, CSE, then
/// fusion of elementwise ops, of resamples with their consumers, and of
/// reductions (passes/Pipeline.cpp).
void buildDefaultPipeline(OpPassManager &pm);

/// Registers the passes and the default pipeline (`pipe-default`).
void registerPipePassesAndPipelines();

/// The note that marks an error as the user's (emitUserError). The mark
/// travels with the diagnostic: MLIR runs a pass on several pipelines at
/// once and re-emits their diagnostics later, on the calling thread, so a
/// per-thread flag set around the emission would be gone by then.
inline constexpr const char *kUserErrorNote = "pipe.user-error";

/// An error at `op` that is the program's mistake, which only a pass can
/// see (a result sent to the host by '.cpu()' but declared @device):
/// reported at the user's source line. Any other error a pass emits, and
/// any IR a pass leaves that does not verify, is an internal error, and
/// pipec::runDefaultPipeline reports it as one.
InFlightDiagnostic emitUserError(Operation *op);

} // namespace pipe
} // namespace mlir

#endif // PIPE_PASSES_PASSES_H
